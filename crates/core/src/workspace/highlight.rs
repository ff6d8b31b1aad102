//! Language detection and a small, safe syntax highlighter: it turns text into lines of
//! [`Token`]s (a class and the exact text), which the view renders as spans with classes — never
//! as HTML. Joining a line's tokens gives the line back exactly.

/// A language the highlighter knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// Rust.
    Rust,
    /// JavaScript / TypeScript.
    JavaScript,
    /// Python.
    Python,
    /// Go.
    Go,
    /// C / C++ / Java / C#.
    CLike,
    /// Shell scripts.
    Shell,
    /// JSON.
    Json,
    /// TOML / INI.
    Toml,
    /// YAML.
    Yaml,
    /// HTML / XML / SVG.
    Markup,
    /// CSS.
    Css,
    /// Markdown.
    Markdown,
    /// Anything else (no highlighting).
    Plain,
}

impl Language {
    /// The language of a file, from its name.
    pub fn detect(path: &str) -> Language {
        let name = super::paths::file_name(path).to_ascii_lowercase();
        match name.as_str() {
            "dockerfile" | "makefile" | ".bashrc" | ".profile" | ".zshrc" => {
                return Language::Shell
            }
            "cargo.lock" => return Language::Toml,
            _ => {}
        }
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "rs" => Language::Rust,
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" => Language::JavaScript,
            "py" | "pyi" => Language::Python,
            "go" => Language::Go,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "java" | "cs" | "kt" | "swift" => {
                Language::CLike
            }
            "sh" | "bash" | "zsh" => Language::Shell,
            "json" | "jsonl" => Language::Json,
            "toml" | "ini" | "cfg" => Language::Toml,
            "yml" | "yaml" => Language::Yaml,
            "html" | "htm" | "xml" | "svg" | "vue" => Language::Markup,
            "css" | "scss" | "less" => Language::Css,
            "md" | "markdown" => Language::Markdown,
            _ => Language::Plain,
        }
    }

    /// The language of a Markdown code fence's info string (its first word: `rust`, `py`,
    /// `bash`, `ts`, …; unknown or none: plain).
    pub fn from_fence(info: &str) -> Language {
        let word = info
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match word.as_str() {
            "" => Language::Plain,
            "rust" => Language::Rust,
            "javascript" | "typescript" | "node" => Language::JavaScript,
            "python" | "python3" => Language::Python,
            "golang" => Language::Go,
            "c++" | "c#" | "csharp" => Language::CLike,
            "shell" | "console" | "shellscript" => Language::Shell,
            "markdown" => Language::Markdown,
            ext => Language::detect(&format!("fence.{ext}")),
        }
    }

    /// A short name for display.
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "Rust",
            Language::JavaScript => "JavaScript",
            Language::Python => "Python",
            Language::Go => "Go",
            Language::CLike => "C-like",
            Language::Shell => "Shell",
            Language::Json => "JSON",
            Language::Toml => "TOML",
            Language::Yaml => "YAML",
            Language::Markup => "Markup",
            Language::Css => "CSS",
            Language::Markdown => "Markdown",
            Language::Plain => "Plain text",
        }
    }

    fn rules(self) -> Rules {
        let hash = &["#"][..];
        let slashes = &["//"][..];
        match self {
            Language::Rust => Rules::new(slashes, true, "\"", RUST),
            Language::JavaScript => Rules::new(slashes, true, "\"'`", JS),
            Language::Python => Rules::new(hash, false, "\"'", PY),
            Language::Go => Rules::new(slashes, true, "\"'`", GO),
            Language::CLike => Rules::new(slashes, true, "\"'", C),
            Language::Shell => Rules::new(hash, false, "\"'", SH),
            Language::Json => Rules::new(&[], false, "\"", &["true", "false", "null"]),
            Language::Toml => Rules::new(hash, false, "\"'", &["true", "false"]),
            Language::Yaml => Rules::new(hash, false, "\"'", &["true", "false", "null"]),
            Language::Css => Rules::new(&[], true, "\"'", &["important"]),
            Language::Markup | Language::Markdown | Language::Plain => {
                Rules::new(&[], false, "", &[])
            }
        }
    }
}

const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while",
];
const JS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "return",
    "static",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "yield",
];
const PY: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "self", "try",
    "while", "with", "yield",
];
const GO: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "false",
    "for",
    "func",
    "go",
    "if",
    "import",
    "interface",
    "map",
    "nil",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "true",
    "type",
    "var",
];
const C: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "float",
    "for",
    "if",
    "import",
    "include",
    "int",
    "long",
    "namespace",
    "new",
    "null",
    "nullptr",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "struct",
    "switch",
    "template",
    "this",
    "true",
    "typedef",
    "unsigned",
    "using",
    "void",
    "while",
];
const SH: &[&str] = &[
    "case", "do", "done", "echo", "elif", "else", "esac", "export", "fi", "for", "function", "if",
    "in", "local", "return", "then", "while",
];

struct Rules {
    line_comments: &'static [&'static str],
    block_comments: bool,
    quotes: &'static str,
    keywords: &'static [&'static str],
}

impl Rules {
    fn new(
        line_comments: &'static [&'static str],
        block_comments: bool,
        quotes: &'static str,
        keywords: &'static [&'static str],
    ) -> Rules {
        Rules {
            line_comments,
            block_comments,
            quotes,
            keywords,
        }
    }
}

/// Whether a code fence's info string says the block is a diff (`diff`, `patch`).
pub fn is_diff_fence(info: &str) -> bool {
    matches!(
        info.split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
            .as_str(),
        "diff" | "patch"
    )
}

/// The CSS class of a line of a unified diff: `diff-meta` (file and hunk headers), `diff-new`
/// (added), `diff-old` (removed), `diff-ctx` (context).
pub fn diff_line_class(line: &str) -> &'static str {
    if ["+++", "---", "@@", "diff ", "index "]
        .iter()
        .any(|p| line.starts_with(p))
    {
        "diff-meta"
    } else if line.starts_with('+') {
        "diff-new"
    } else if line.starts_with('-') {
        "diff-old"
    } else {
        "diff-ctx"
    }
}

/// What a token is (its CSS class: `tok-<class>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenClass {
    /// Ordinary text.
    Plain,
    /// A keyword or literal keyword.
    Keyword,
    /// A string literal.
    Str,
    /// A comment.
    Comment,
    /// A number.
    Number,
}

impl TokenClass {
    /// The CSS class.
    pub fn css(self) -> &'static str {
        match self {
            TokenClass::Plain => "tok-plain",
            TokenClass::Keyword => "tok-keyword",
            TokenClass::Str => "tok-string",
            TokenClass::Comment => "tok-comment",
            TokenClass::Number => "tok-number",
        }
    }
}

/// A run of text of one class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Its class.
    pub class: TokenClass,
    /// Its exact text.
    pub text: String,
}

fn push(out: &mut Vec<Token>, class: TokenClass, text: &str) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.class == class => last.text.push_str(text),
        _ => out.push(Token {
            class,
            text: text.to_string(),
        }),
    }
}

/// Highlights `src` line by line (block comments may span lines).
pub fn highlight(src: &str, lang: Language) -> Vec<Vec<Token>> {
    if matches!(
        lang,
        Language::Plain | Language::Markup | Language::Markdown
    ) {
        return src
            .split('\n')
            .map(|line| {
                let mut out = Vec::new();
                push(&mut out, TokenClass::Plain, line);
                out
            })
            .collect();
    }
    let rules = lang.rules();
    let mut in_block = false;
    src.split('\n')
        .map(|line| highlight_line(line, &rules, &mut in_block))
        .collect()
}

fn highlight_line(line: &str, rules: &Rules, in_block: &mut bool) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    let b = line.as_bytes();
    while i < line.len() {
        let rest = &line[i..];
        if *in_block {
            match rest.find("*/") {
                Some(end) => {
                    push(&mut out, TokenClass::Comment, &rest[..end + 2]);
                    i += end + 2;
                    *in_block = false;
                }
                None => {
                    push(&mut out, TokenClass::Comment, rest);
                    i = line.len();
                }
            }
            continue;
        }
        if rules.block_comments && rest.starts_with("/*") {
            *in_block = true;
            push(&mut out, TokenClass::Comment, "/*");
            i += 2;
            continue;
        }
        if rules.line_comments.iter().any(|c| rest.starts_with(c))
            && (rest.starts_with("//") || i == 0 || b[i - 1].is_ascii_whitespace())
        {
            push(&mut out, TokenClass::Comment, rest);
            break;
        }
        let c = b[i];
        if rules.quotes.as_bytes().contains(&c) {
            // A string runs to its closing quote (backslash escapes) or the end of the line.
            let mut j = i + 1;
            while j < b.len() {
                if b[j] == b'\\' {
                    j += 2;
                    continue;
                }
                if b[j] == c {
                    j += 1;
                    break;
                }
                j += 1;
            }
            let j = j.min(b.len());
            push(&mut out, TokenClass::Str, &line[i..j]);
            i = j;
            continue;
        }
        if c.is_ascii_digit() && (i == 0 || !is_word(b[i - 1])) {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'.' || b[j] == b'_') {
                j += 1;
            }
            push(&mut out, TokenClass::Number, &line[i..j]);
            i = j;
            continue;
        }
        if is_word(c) {
            let mut j = i;
            while j < b.len() && is_word(b[j]) {
                j += 1;
            }
            let word = &line[i..j];
            let class = if rules.keywords.contains(&word) {
                TokenClass::Keyword
            } else {
                TokenClass::Plain
            };
            push(&mut out, class, word);
            i = j;
            continue;
        }
        // Anything else, up to the next char boundary.
        let ch = rest.chars().next().map_or(1, char::len_utf8);
        push(&mut out, TokenClass::Plain, &rest[..ch]);
        i += ch;
    }
    out
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(line: &[Token]) -> Vec<(TokenClass, &str)> {
        line.iter().map(|t| (t.class, t.text.as_str())).collect()
    }

    #[test]
    fn detect_table() {
        for (p, want) in [
            ("/w/src/main.rs", Language::Rust),
            ("app.TSX", Language::JavaScript),
            ("x.py", Language::Python),
            ("Makefile", Language::Shell),
            ("a/b/c.json", Language::Json),
            ("Cargo.toml", Language::Toml),
            (".github/ci.yml", Language::Yaml),
            ("index.html", Language::Markup),
            ("README.md", Language::Markdown),
            ("notes", Language::Plain),
            ("main.go", Language::Go),
            ("Main.java", Language::CLike),
        ] {
            assert_eq!(Language::detect(p), want, "{p}");
        }
    }

    #[test]
    fn rust_line() {
        let lines = highlight("let x = \"a\\\"b\"; // hi 42", Language::Rust);
        assert_eq!(
            classes(&lines[0]),
            [
                (TokenClass::Keyword, "let"),
                (TokenClass::Plain, " x = "),
                (TokenClass::Str, "\"a\\\"b\""),
                (TokenClass::Plain, "; "),
                (TokenClass::Comment, "// hi 42"),
            ]
        );
    }

    #[test]
    fn block_comment_spans_lines() {
        let lines = highlight("a /* one\ntwo */ 3", Language::JavaScript);
        assert_eq!(
            classes(&lines[0]),
            [(TokenClass::Plain, "a "), (TokenClass::Comment, "/* one")]
        );
        assert_eq!(
            classes(&lines[1]),
            [
                (TokenClass::Comment, "two */"),
                (TokenClass::Plain, " "),
                (TokenClass::Number, "3")
            ]
        );
    }

    #[test]
    fn python_and_shell_hash() {
        let l = highlight("def f(): # note", Language::Python);
        assert_eq!(
            l[0][0],
            Token {
                class: TokenClass::Keyword,
                text: "def".into()
            }
        );
        assert_eq!(l[0].last().unwrap().class, TokenClass::Comment);
        // `$#` in shell is not a comment (no space before the hash).
        let l = highlight("echo $# x1", Language::Shell);
        assert!(l[0].iter().all(|t| t.class != TokenClass::Comment), "{l:?}");
    }

    #[test]
    fn markup_is_plain_text_never_html() {
        let src = "<img src=x onerror=alert(1)>";
        let l = highlight(src, Language::Markup);
        assert_eq!(classes(&l[0]), [(TokenClass::Plain, src)]);
    }

    #[test]
    fn tokens_join_back_to_the_source() {
        let samples = [
            "fn main() { println!(\"héllo ✓\"); } /* x",
            "unterminated \"string",
            "x = 'a' + `b` # c\n\n\ttab",
            "0x1F 3.14 a1 _b",
        ];
        for lang in [
            Language::Rust,
            Language::JavaScript,
            Language::Python,
            Language::Shell,
        ] {
            for s in samples {
                let joined: Vec<String> = highlight(s, lang)
                    .iter()
                    .map(|l| l.iter().map(|t| t.text.as_str()).collect())
                    .collect();
                assert_eq!(joined.join("\n"), s, "{lang:?}");
            }
        }
    }

    #[test]
    fn fences_name_their_language_and_diffs() {
        let cases = [
            ("rust", Language::Rust),
            ("rs", Language::Rust),
            ("Python title=x.py", Language::Python),
            ("ts", Language::JavaScript),
            ("typescript", Language::JavaScript),
            ("bash", Language::Shell),
            ("console", Language::Shell),
            ("json", Language::Json),
            ("yml", Language::Yaml),
            ("c++", Language::CLike),
            ("", Language::Plain),
            ("brainfuck", Language::Plain),
        ];
        for (info, want) in cases {
            assert_eq!(Language::from_fence(info), want, "{info:?}");
        }
        assert!(is_diff_fence("diff") && is_diff_fence("Patch x"));
        assert!(!is_diff_fence("rust") && !is_diff_fence(""));
        let lines = [
            ("--- a/x", "diff-meta"),
            ("+++ b/x", "diff-meta"),
            ("@@ -1 +1 @@", "diff-meta"),
            ("+added", "diff-new"),
            ("-removed", "diff-old"),
            (" same", "diff-ctx"),
            ("", "diff-ctx"),
        ];
        for (line, want) in lines {
            assert_eq!(diff_line_class(line), want, "{line:?}");
        }
    }
}
