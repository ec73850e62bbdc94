//! Parsing one side of a pattern into dims of axes, checking what the two sides must agree
//! on, and expanding `...`: the syntax einops accepts (see the [module docs](super)).

use std::ops::Range;

use super::{E, RearrangeError, Side};

pub(super) fn syntax(position: usize, reason: &'static str) -> RearrangeError {
    E::Syntax { position, reason }
}

/// An element of one side of a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Atom<'a> {
    Name(&'a str),
    Ellipsis,
}

/// One dim of one side: a lone atom, or a parenthesised group (`()`, and `1` outside
/// parentheses, are empty groups).
#[derive(Debug)]
pub(super) struct Group<'a> {
    pub(super) atoms: Vec<Atom<'a>>,
    pub(super) parens: bool,
}

/// The names (not `...`) of one side, in order.
pub(super) fn names<'a>(groups: &[Group<'a>]) -> impl Iterator<Item = &'a str> {
    groups
        .iter()
        .flat_map(|g| &g.atoms)
        .filter_map(|a| match a {
            Atom::Name(n) => Some(*n),
            Atom::Ellipsis => None,
        })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses the side of `pattern` at `span`; positions in errors are offsets into `pattern`.
pub(super) fn parse_side(
    pattern: &str,
    span: Range<usize>,
    side: Side,
) -> Result<Vec<Group<'_>>, E> {
    let offset = span.start;
    let text = &pattern[span];
    let bytes = text.as_bytes();
    let mut groups = Vec::new();
    // The open parenthesis' position and the atoms inside it so far.
    let mut open: Option<(usize, Vec<Atom>)> = None;
    let mut seen: Vec<Atom> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let atom = match bytes[i] {
            b' ' => {
                i += 1;
                continue;
            }
            b'(' => {
                if open.is_some() {
                    return Err(syntax(offset + i, "parentheses cannot nest"));
                }
                open = Some((i, Vec::new()));
                i += 1;
                continue;
            }
            b')' => {
                let (_, atoms) = open.take().ok_or(syntax(offset + i, "`)` without `(`"))?;
                groups.push(Group {
                    atoms,
                    parens: true,
                });
                i += 1;
                continue;
            }
            b'.' => {
                if !text[i..].starts_with("...") || bytes.get(i + 3) == Some(&b'.') {
                    return Err(syntax(offset + i, "a dot outside `...`"));
                }
                i += 3;
                // einops reads `a...` or `...a` as one (invalid) name.
                let before = start.checked_sub(1).map(|j| bytes[j]);
                if before.is_some_and(is_name_byte)
                    || bytes.get(i).is_some_and(|&b| is_name_byte(b))
                {
                    return Err(syntax(offset + start, "`...` touches a name"));
                }
                Atom::Ellipsis
            }
            b if is_name_byte(b) => {
                while i < bytes.len() && is_name_byte(bytes[i]) {
                    i += 1;
                }
                match name_token(&text[start..i]).map_err(|r| syntax(offset + start, r))? {
                    Some(name) => Atom::Name(name),
                    None => {
                        // `1`: an empty group on its own, nothing inside parentheses.
                        if open.is_none() {
                            groups.push(Group {
                                atoms: Vec::new(),
                                parens: true,
                            });
                        }
                        continue;
                    }
                }
            }
            _ => return Err(syntax(offset + i, "unexpected character")),
        };
        if seen.contains(&atom) {
            return Err(match atom {
                Atom::Name(n) => E::RepeatedAxis {
                    axis: n.into(),
                    side,
                },
                Atom::Ellipsis => E::EllipsisTwice { side },
            });
        }
        seen.push(atom);
        match &mut open {
            Some((_, atoms)) => atoms.push(atom),
            None => groups.push(Group {
                atoms: vec![atom],
                parens: false,
            }),
        }
    }
    match open {
        Some((at, _)) => Err(syntax(offset + at, "`(` is never closed")),
        None => Ok(groups),
    }
}

/// Classifies a run of name characters: an axis name, or `None` for the unit axis `1`.
fn name_token(token: &str) -> Result<Option<&str>, &'static str> {
    if token.bytes().all(|b| b.is_ascii_digit()) {
        return match token.trim_start_matches('0') {
            "1" => Ok(None),
            _ => Err("a number other than 1 cannot be an axis (rearrange has no anonymous axes)"),
        };
    }
    if token.as_bytes()[0].is_ascii_digit() {
        Err("an axis name cannot start with a digit")
    } else if token.starts_with('_') || token.ends_with('_') {
        Err("an axis name cannot start or end with `_`")
    } else {
        Ok(Some(token))
    }
}

/// Checks what must agree between the sides, in einops' order.
pub(super) fn check_sides(left: &[Group], right: &[Group]) -> Result<(), E> {
    let ellipsis = |side: &[Group]| {
        side.iter()
            .find(|g| g.atoms.contains(&Atom::Ellipsis))
            .map(|g| g.parens)
    };
    match (ellipsis(left), ellipsis(right)) {
        (None, Some(_)) => return Err(E::EllipsisOneSide { side: Side::Right }),
        (Some(true), _) => return Err(E::GroupedEllipsis),
        (Some(_), None) => return Err(E::EllipsisOneSide { side: Side::Left }),
        _ => {}
    }
    if let Some(axis) = names(right).find(|a| !names(left).any(|n| n == *a)) {
        return Err(E::UnknownAxis { axis: axis.into() });
    }
    if let Some(axis) = names(left).find(|a| !names(right).any(|n| n == *a)) {
        return Err(E::MissingAxis { axis: axis.into() });
    }
    Ok(())
}

/// The side's dims as lists of axis names, with `...` replaced by `ellipsis_rank` axes
/// named `…0`, `…1`, ...: a lone `...` becomes that many dims, a grouped one joins its group.
pub(super) fn expand(groups: &[Group], ellipsis_rank: usize) -> Vec<Vec<String>> {
    let ellipsis = || (0..ellipsis_rank).map(|i| format!("…{i}"));
    let mut dims = Vec::new();
    for group in groups {
        if !group.parens && group.atoms == [Atom::Ellipsis] {
            dims.extend(ellipsis().map(|a| vec![a]));
            continue;
        }
        let mut dim = Vec::new();
        for atom in &group.atoms {
            match atom {
                Atom::Name(n) => dim.push(n.to_string()),
                Atom::Ellipsis => dim.extend(ellipsis()),
            }
        }
        dims.push(dim);
    }
    dims
}
