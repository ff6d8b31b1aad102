//! `{name}` parameters in a message; `{{` and `}}` are literal braces.

/// `template` with each `{name}` replaced by its value in `args`. A parameter without a value
/// stays as written (visible, never a panic); a lone brace is kept as it is.
pub fn format(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(name) = tail
            .strip_prefix('{')
            .and_then(|t| t.split_once('}'))
            .map(|p| p.0)
        {
            if is_name(name) {
                match args.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&tail[..name.len() + 2]),
                }
                rest = &tail[name.len() + 2..];
                continue;
            }
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// The parameters `template` uses, sorted, each once.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            rest = &tail[2..];
            continue;
        }
        if let Some(name) = tail
            .strip_prefix('{')
            .and_then(|t| t.split_once('}'))
            .map(|p| p.0)
        {
            if is_name(name) {
                out.push(name);
                rest = &tail[name.len() + 2..];
                continue;
            }
        }
        rest = &tail[1..];
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_filled_and_braces_escaped() {
        assert_eq!(
            format(
                "Hello, {name}! {count} new",
                &[("name", "Ada"), ("count", "3")]
            ),
            "Hello, Ada! 3 new"
        );
        assert_eq!(format("{{literal}} {x}", &[("x", "1")]), "{literal} 1");
        assert_eq!(format("no value: {missing}", &[]), "no value: {missing}");
        assert_eq!(
            format("lone { and } and {not a name}", &[]),
            "lone { and } and {not a name}"
        );
        assert_eq!(format("{a}{a}", &[("a", "é")]), "éé");
        assert_eq!(format("", &[]), "");
    }

    #[test]
    fn placeholders_are_listed_once_in_order() {
        assert_eq!(placeholders("{b} {a} {b} {{c}} {not one}"), vec!["a", "b"]);
        assert!(placeholders("plain").is_empty());
    }
}
