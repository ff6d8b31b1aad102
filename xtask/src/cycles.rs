//! The import-cycle check (issue #31): no two files of the app (`src/`), of canvas-serve
//! (`crates/serve/src/`) or of core (`crates/core/src/`) may reach each other through the names
//! they take from one another.
//!
//! A file takes a name from another when it writes a path into it: `crate::a::b::…`,
//! `super::…`, `self::…`, or a child module it declares (`mod row;` … `row::SidebarRow`), in a
//! `use` (groups `{…}` included) or inline. A path resolves to the deepest module file it names
//! (`crate::pages::home::start_session` → `src/pages/home.rs`). Comments and the trailing
//! `#[cfg(test)] mod tests` are left out. A folder module and the modules inside it are one
//! unit of Rust's module tree: the parent declares its children and they reach back with
//! `super::`, so names taken between a module and its own ancestor are no edge. The check fails
//! with every cycle (strongly connected set of more than one file) and the edges inside it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path (`["pages", "home"]`) → its file, for one crate.
struct Crate {
    modules: BTreeMap<Vec<String>, PathBuf>,
}

impl Crate {
    fn load(root: &Path) -> Result<Crate, String> {
        let mut modules = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    modules.insert(module_path(root, &p), p);
                }
            }
        }
        Ok(Crate { modules })
    }

    /// The file a path written in module `from` names: the deepest module file along it (the
    /// module it starts from when it names an item there).
    fn resolve(&self, from: &[String], segments: &[String]) -> Option<&PathBuf> {
        let (mut path, rest): (Vec<String>, &[String]) = match segments.first()?.as_str() {
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (from.to_vec(), &segments[1..]),
            "super" => {
                let mut p = from.to_vec();
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    p.pop()?;
                    rest = &rest[1..];
                }
                (p, rest)
            }
            // A child module of `from` (the caller checked that it declares one).
            _ => (from.to_vec(), segments),
        };
        let mut best = self.modules.get(&path);
        for seg in rest {
            path.push(seg.clone());
            match self.modules.get(&path) {
                Some(file) => best = Some(file),
                None => break,
            }
        }
        best
    }
}

/// `src/pages/home.rs` → `["pages", "home"]`; `mod.rs`, `lib.rs` and `main.rs` name their folder.
fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source without comments and without a trailing `#[cfg(test)] mod tests { … }`.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a file writes: `a::b::c` runs, with `use a::{b, c::{d, e}}` groups expanded.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let starts = (c.is_ascii_alphabetic() || c == '_')
            && (i == 0 || (!is_ident(bytes[i - 1] as char) && bytes[i - 1] != b':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let s = j;
            while j < bytes.len() && is_ident(bytes[j] as char) {
                j += 1;
            }
            segs.push(code[s..j].to_string());
            if !code[j..].starts_with("::") {
                break;
            }
            j += 2;
            if code[j..].starts_with('{') {
                let end = matching_brace(code, j);
                expand(&segs, &code[j + 1..end], &mut out);
                j = end;
                segs.clear();
                break;
            }
            if !bytes
                .get(j)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            {
                break;
            }
        }
        if segs.len() > 1 {
            out.push(segs);
        }
        i = j.max(i + 1);
    }
    out
}

/// The offset of the `}` closing the `{` at `open` (the end of `code` if none).
fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (k, ch) in code[open..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + k;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The paths of a `use` group's items (`b`, `c::d`, `e::{f, g}`), each after `prefix`.
fn expand(prefix: &[String], group: &str, out: &mut Vec<Vec<String>>) {
    let mut depth = 0usize;
    let mut start = 0;
    let mut items = Vec::new();
    for (k, ch) in group.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&group[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    items.push(&group[start..]);
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        match item.split_once("::{") {
            Some((head, inner)) => {
                let mut p = prefix.to_vec();
                p.extend(head.split("::").map(|s| s.trim().to_string()));
                expand(&p, inner.trim_end().trim_end_matches('}'), out);
            }
            None => {
                let mut p = prefix.to_vec();
                p.extend(
                    item.split("::")
                        .map(|s| s.split_whitespace().next().unwrap_or("").to_string())
                        .take_while(|s| !s.is_empty() && s.chars().all(is_ident)),
                );
                out.push(p);
            }
        }
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The edges (file → file it takes names from) of one crate.
fn edges(krate: &Crate) -> Result<BTreeMap<PathBuf, BTreeSet<PathBuf>>, String> {
    let module_of: BTreeMap<&PathBuf, &Vec<String>> =
        krate.modules.iter().map(|(m, f)| (f, m)).collect();
    let mut graph = BTreeMap::new();
    for (module, file) in &krate.modules {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let code = code_of(&text);
        let children: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("pub ").unwrap_or(l);
                let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
                l.strip_prefix("mod ")?
                    .strip_suffix(';')
                    .map(str::to_string)
            })
            .collect();
        let mut to = BTreeSet::new();
        for path in paths_in(&code) {
            let head = path[0].as_str();
            let relevant = matches!(head, "crate" | "super" | "self") || children.contains(head);
            if !relevant {
                continue;
            }
            if let Some(target) = krate.resolve(module, &path) {
                let other = module_of[target];
                let nested = other.starts_with(module) || module.starts_with(other);
                if !nested {
                    to.insert(target.clone());
                }
            }
        }
        graph.insert(file.clone(), to);
    }
    Ok(graph)
}

/// The strongly connected sets of more than one file (Tarjan).
fn cycles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        graph: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some((w, _)) = s.graph.get_key_value(w) else {
                continue;
            };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.push(w.clone());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.out.push(set);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Checks the app, canvas-serve and core; `Ok(())` when no cycle, else every cycle in words.
pub fn check(repo: &Path) -> Result<(), String> {
    let mut report = Vec::new();
    for root in ["src", "crates/serve/src", "crates/core/src"] {
        let krate = Crate::load(&repo.join(root))?;
        let graph = edges(&krate)?;
        for set in cycles(&graph) {
            let rel = |p: &PathBuf| p.strip_prefix(repo).unwrap_or(p).display().to_string();
            let mut lines = vec![format!(
                "cycle of {} files: {}",
                set.len(),
                set.iter().map(rel).collect::<Vec<_>>().join(", ")
            )];
            for from in &set {
                for to in graph[from].iter().filter(|t| set.contains(t)) {
                    lines.push(format!("  {} -> {}", rel(from), rel(to)));
                }
            }
            report.push(lines.join("\n"));
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(report.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempdir::Dir {
        let dir = tempdir::Dir::new();
        for (path, text) in files {
            let p = dir.0.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let p = std::env::temp_dir().join(format!(
                    "xtask-cycles-{}-{:?}",
                    std::process::id(),
                    std::thread::current().id()
                ));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn found(files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let dir = tree(files);
        let krate = Crate::load(&dir.0).unwrap();
        let graph = edges(&krate).unwrap();
        cycles(&graph)
            .into_iter()
            .map(|set| {
                set.iter()
                    .map(|p| p.strip_prefix(&dir.0).unwrap().display().to_string())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn finds_cycles_through_crate_super_child_and_group_paths() {
        // a ↔ b through `use crate::…` and an inline path.
        assert_eq!(
            found(&[
                ("lib.rs", "pub mod a;\npub mod b;\n"),
                ("a.rs", "use crate::b::B;\npub struct A;\n"),
                ("b.rs", "pub struct B;\nfn f() { let _ = crate::a::A; }\n"),
            ]),
            [["a.rs", "b.rs"]]
        );
        // Two children of a folder module through the parent's child paths and `super::`.
        assert_eq!(
            found(&[
                ("lib.rs", "pub mod list;\n"),
                ("list/mod.rs", "pub mod row;\npub mod cell;\n"),
                ("list/row.rs", "use super::cell::Cell;\npub struct Row;\n"),
                (
                    "list/cell.rs",
                    "pub struct Cell;\nfn f() { let _ = super::row::Row; }\n"
                ),
            ]),
            [["list/cell.rs", "list/row.rs"]]
        );
        // A folder module and its own child (`mod row;` … `row::Row`, `super::` back) are one
        // unit: no cycle.
        assert!(found(&[
            ("lib.rs", "pub mod list;\n"),
            (
                "list/mod.rs",
                "mod row;\nuse row::Row;\npub fn helper() {}\n"
            ),
            (
                "list/row.rs",
                "pub struct Row;\nfn f() { super::helper() }\n"
            ),
        ])
        .is_empty());
        // A nested group: `use crate::x::{y::{Y}, Z}`.
        assert_eq!(
            found(&[
                ("lib.rs", "pub mod x;\npub mod w;\n"),
                ("x/mod.rs", "pub mod y;\npub struct Z;\n"),
                ("x/y.rs", "pub struct Y;\nuse crate::w::W;\n"),
                ("w.rs", "use crate::x::{y::{Y}, Z};\npub struct W;\n"),
            ]),
            [["w.rs", "x/y.rs"]]
        );
    }

    #[test]
    fn one_way_imports_comments_and_tests_are_no_cycle() {
        assert!(found(&[
            ("lib.rs", "pub mod a;\npub mod b;\n"),
            (
                "a.rs",
                "use crate::b::B;\n// crate::a is mentioned here only\npub struct A;\n"
            ),
            (
                "b.rs",
                "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n"
            ),
        ])
        .is_empty());
    }
}
