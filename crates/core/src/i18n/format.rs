//! `{name}` parameters in a message; `{{` and `}}` are literal braces.

/// A piece of a message: text as it shows, or a `{name}` parameter.
enum Piece<'a> {
    Text(&'a str),
    Param(&'a str),
}

/// The pieces of `template`, in order: `{{` and `}}` become one brace; a lone brace or a
/// `{…}` that is no parameter name stays text.
fn pieces(template: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = template;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let Some(i) = rest.find(['{', '}']) else {
            return Some(Piece::Text(std::mem::take(&mut rest)));
        };
        if i > 0 {
            let (text, tail) = rest.split_at(i);
            rest = tail;
            return Some(Piece::Text(text));
        }
        if rest.starts_with("{{") || rest.starts_with("}}") {
            let brace = &rest[..1];
            rest = &rest[2..];
            return Some(Piece::Text(brace));
        }
        if let Some(name) = rest
            .strip_prefix('{')
            .and_then(|t| t.split_once('}'))
            .map(|p| p.0)
            .filter(|n| is_name(n))
        {
            rest = &rest[name.len() + 2..];
            return Some(Piece::Param(name));
        }
        let brace = &rest[..1];
        rest = &rest[1..];
        Some(Piece::Text(brace))
    })
}

/// `template` with each `{name}` replaced by its value in `args`. A parameter without a value
/// stays as written (visible, never a panic); a lone brace is kept as it is.
pub fn format(template: &str, args: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    for piece in pieces(template) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Param(name) => match args.iter().find(|(k, _)| *k == name) {
                Some((_, v)) => out.push_str(v),
                None => {
                    out.push('{');
                    out.push_str(name);
                    out.push('}');
                }
            },
        }
    }
    out
}

/// The parameters `template` uses, sorted, each once.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut out: Vec<&str> = pieces(template)
        .filter_map(|p| match p {
            Piece::Param(name) => Some(name),
            Piece::Text(_) => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `template` with `args`, and `{count}` when counting.
pub(crate) fn say_counted(template: &str, count: Option<u64>, args: &[(&str, &str)]) -> String {
    match count {
        None => format(template, args),
        Some(n) => {
            let n = n.to_string();
            let mut all: Vec<(&str, &str)> = vec![("count", n.as_str())];
            all.extend_from_slice(args);
            format(template, &all)
        }
    }
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
