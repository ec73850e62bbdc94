//! Filling WGSL templates strictly: every placeholder named, every value used once.

use thiserror::Error;

/// A template that cannot be filled: a mistake in this crate, caught when a variant is
/// generated (every variant is generated and validated by the tests).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TemplateError {
    /// The template names a placeholder no value was given for (a misspelt name).
    #[error("{template}: placeholder {{{{{name}}}}} has no value")]
    Missing {
        /// The template's name.
        template: &'static str,
        /// The placeholder's name.
        name: String,
    },
    /// A value was given for a placeholder the template does not name.
    #[error("{template}: the value for {name} fills no placeholder")]
    Unused {
        /// The template's name.
        template: &'static str,
        /// The value's name.
        name: String,
    },
    /// Two values were given for one placeholder.
    #[error("{template}: two values for {name}")]
    Duplicate {
        /// The template's name.
        template: &'static str,
        /// The value's name.
        name: String,
    },
    /// `{{` not followed by a name of capitals, digits and underscores and `}}`.
    #[error("{template}: malformed placeholder at byte {at}")]
    Malformed {
        /// The template's name.
        template: &'static str,
        /// Byte offset of the `{{`.
        at: usize,
    },
}

/// `text` as WGSL comment lines of at most 92 columns, each starting with `indent`.
pub(crate) fn comment(indent: &str, text: &str) -> String {
    let mut out = String::new();
    let mut line = format!("{indent}//");
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > 92 && line.len() > indent.len() + 2 {
            out += &line;
            out.push('\n');
            line = format!("{indent}//");
        }
        line.push(' ');
        line += word;
    }
    out + &line + "\n"
}

/// Fills the `{{NAME}}` placeholders of `template` in one pass: every placeholder must have
/// exactly one value, every value must fill a placeholder, and values are not scanned again
/// (a value that contains `{{` stays as it is).
pub fn fill(
    name: &'static str,
    template: &str,
    values: &[(&str, &str)],
) -> Result<String, TemplateError> {
    for (i, (key, _)) in values.iter().enumerate() {
        if values[..i].iter().any(|(k, _)| k == key) {
            return Err(TemplateError::Duplicate {
                template: name,
                name: key.to_string(),
            });
        }
    }
    let mut used = vec![false; values.len()];
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let at = template.len() - rest.len() + start;
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or(TemplateError::Malformed { template: name, at })?;
        let key = &after[..end];
        let well_formed = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !well_formed {
            return Err(TemplateError::Malformed { template: name, at });
        }
        let i =
            values
                .iter()
                .position(|(k, _)| *k == key)
                .ok_or_else(|| TemplateError::Missing {
                    template: name,
                    name: key.to_string(),
                })?;
        used[i] = true;
        out.push_str(values[i].1);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    match used.iter().position(|u| !u) {
        Some(i) => Err(TemplateError::Unused {
            template: name,
            name: values[i].0.to_string(),
        }),
        None => Ok(out),
    }
}

/// `const NAME: u32 = Nu;` lines.
pub(super) fn consts(decls: &[(&str, usize)]) -> String {
    decls
        .iter()
        .map(|(name, i)| format!("const {name}: u32 = {i}u;\n"))
        .collect()
}
