//! Dropping what a generated shader does not use: every kernel is its family's fragments
//! put together, and a fragment may declare helpers, constants or parameter words that a
//! variant never reads. A variant's source then holds only its own code, and the comments
//! of what it holds.

use std::collections::HashSet;

/// One top-level item of a WGSL source, with the comment lines just above it.
struct Item<'a> {
    text: &'a str,
    /// The name it declares (`fn name`, `const NAME`, `var name`, `struct Name`).
    name: Option<&'a str>,
    /// Kept whatever reads it: an entry point, a binding, an override (the host may set
    /// it), an `enable`.
    root: bool,
}

/// `source` without the functions, constants and structs that nothing kept reads (the entry
/// points, bindings and overrides are kept), each dropped with the comment lines above it.
pub(super) fn shake(source: &str) -> String {
    let items = split(source);
    // The identifiers each item's code names (comments aside).
    let names: Vec<HashSet<&str>> = items.iter().map(|i| identifiers(i.text)).collect();
    let mut keep: Vec<bool> = items.iter().map(|i| i.root || i.name.is_none()).collect();
    let mut pending: Vec<usize> = (0..items.len()).filter(|&i| keep[i]).collect();
    // Whatever a kept item names is kept, until nothing more is.
    while let Some(i) = pending.pop() {
        for (j, item) in items.iter().enumerate() {
            if !keep[j] && item.name.is_some_and(|n| names[i].contains(n)) && j != i {
                keep[j] = true;
                pending.push(j);
            }
        }
    }
    let mut out = String::new();
    for (item, kept) in items.iter().zip(keep) {
        if kept {
            out += item.text;
        }
    }
    // At most one blank line between items.
    let mut tidy = String::with_capacity(out.len());
    let mut blank = 0;
    for line in out.lines() {
        blank = if line.trim().is_empty() { blank + 1 } else { 0 };
        if blank < 2 {
            tidy += line;
            tidy.push('\n');
        }
    }
    tidy.trim_start_matches('\n').to_string()
}

/// The source's top-level items, in order, each with the comment and blank lines above it;
/// the text after the last item is an item of its own, without a name.
fn split(source: &str) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let (mut start, mut at) = (0, 0);
    let bytes = source.as_bytes();
    while at < source.len() {
        let line_end = source[at..].find('\n').map_or(source.len(), |n| at + n + 1);
        let line = &source[at..line_end];
        let starts_item = !line.starts_with(' ')
            && !line.starts_with('\t')
            && !line.trim().is_empty()
            && !line.starts_with("//");
        if !starts_item {
            at = line_end;
            continue;
        }
        // The item runs to its closing brace, or to its `;` outside braces.
        let (mut depth, mut end, mut seen_brace) = (0i32, at, false);
        while end < source.len() {
            match bytes[end] {
                b'/' if bytes.get(end + 1) == Some(&b'/') => {
                    end = source[end..].find('\n').map_or(source.len(), |n| end + n);
                    continue;
                }
                b'{' => {
                    depth += 1;
                    seen_brace = true;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 && seen_brace {
                        end += 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end += 1;
                    break;
                }
                _ => {}
            }
            end += 1;
        }
        let end = source[end..]
            .find('\n')
            .map_or(source.len(), |n| end + n + 1);
        let text = &source[start..end];
        let head = &source[at..end];
        items.push(Item {
            text,
            name: declared(head),
            root: head.starts_with('@')
                || head.starts_with("override ")
                || head.starts_with("enable "),
        });
        start = end;
        at = end;
    }
    if start < source.len() {
        items.push(Item {
            text: &source[start..],
            name: None,
            root: true,
        });
    }
    items
}

/// The name an item declares.
fn declared(head: &str) -> Option<&str> {
    let rest = ["fn ", "const ", "struct ", "alias "]
        .iter()
        .find_map(|k| head.strip_prefix(k))
        .or_else(|| {
            head.strip_prefix("var")
                .map(|r| r.split_once('>').map_or(r, |(_, r)| r))
        })?;
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The identifiers an item's code names, its comments aside.
fn identifiers(text: &str) -> HashSet<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .flat_map(|l| l.split(|c: char| !word(c)))
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_items_go_with_their_comments_and_used_ones_stay() {
        let source = "\
// Bindings.
@group(0) @binding(0) var<storage, read> src: array<u32>;

// Unused.
const UNUSED: u32 = 3u;
const USED: u32 = 1u;

// A helper nothing calls.
fn dead(i: u32) -> u32 {
    return i + UNUSED;
}

// Called.
fn helper(i: u32) -> u32 {
    return src[i] + USED;
}

override SET_BY_HOST: u32 = 0u;

@compute @workgroup_size(1)
fn main() {
    let x = helper(0u); // not dead(0u)
}
";
        let shaken = shake(source);
        assert!(
            !shaken.contains("UNUSED") && !shaken.contains("fn dead"),
            "{shaken}"
        );
        assert!(!shaken.contains("A helper nothing calls"), "{shaken}");
        for kept in [
            "// Bindings.",
            "const USED",
            "// Called.",
            "fn helper",
            "override SET_BY_HOST",
            "fn main",
        ] {
            assert!(shaken.contains(kept), "{kept}: {shaken}");
        }
    }
}
