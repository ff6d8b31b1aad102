//! The file tree of a working directory.
//!
//! Local backends list it with one `find` run through `execute_bash` ([`find_command`]): `.git`
//! and `node_modules` are pruned, and at most [`MAX_ENTRIES`] entries are kept (one more is asked
//! for, so that a cut listing is known to be cut: [`FileTree::truncated`]). Cloud backends list
//! one directory at a time (`["dir/", "file", …]`, [`FileTree::merge_listing`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::workspace::paths::shell_quote;

/// The most entries a tree holds.
pub const MAX_ENTRIES: usize = 2000;

/// Directories never listed.
pub const PRUNED: &[&str] = &[".git", "node_modules"];

/// The shell command that lists `root` (one `type<TAB>size<TAB>relative path` line per entry).
pub fn find_command(root: &str) -> String {
    let prune = PRUNED
        .iter()
        .map(|n| format!("-name {}", shell_quote(n)))
        .collect::<Vec<_>>()
        .join(" -o ");
    format!(
        "cd {} && find . -mindepth 1 \\( {prune} \\) -prune -o -printf '%y\\t%s\\t%P\\n' 2>/dev/null | head -n {}",
        shell_quote(root),
        MAX_ENTRIES + 1
    )
}

/// One file or directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path relative to the root, `/`-separated, no trailing slash.
    pub path: String,
    /// Last component.
    pub name: String,
    /// 0 for the root's children.
    pub depth: usize,
    /// A directory.
    pub is_dir: bool,
    /// Size in bytes (files, when known).
    pub size: Option<u64>,
}

/// A kind's answer to "list this directory" (see
/// [`FilesApi::list_workspace`](crate::client::service::FilesApi::list_workspace)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// The whole tree at once (every directory loaded).
    Full(FileTree),
    /// One directory's names (relative; names ending in `/` are directories).
    Dir {
        /// The directory listed (relative; `""` = root).
        dir: String,
        /// Its entries.
        names: Vec<String>,
    },
}

/// A listed tree, flattened in display order (directories first, then by name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileTree {
    entries: Vec<Entry>,
    /// The listing was cut at [`MAX_ENTRIES`].
    pub truncated: bool,
    /// Directories whose children are known (cloud listings load lazily).
    loaded: BTreeSet<String>,
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(p, _)| p)
}

impl FileTree {
    /// Parses the output of [`find_command`].
    pub fn parse_find(output: &str) -> FileTree {
        let mut raw = BTreeMap::new();
        let mut lines = 0usize;
        let mut truncated = false;
        for line in output.lines() {
            if line.is_empty() {
                continue;
            }
            lines += 1;
            if lines > MAX_ENTRIES {
                truncated = true;
                break;
            }
            let mut parts = line.splitn(3, '\t');
            let (Some(kind), Some(size), Some(path)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let path = path.trim_matches('/');
            if path.is_empty() || path.split('/').any(|c| c == "." || c == "..") {
                continue;
            }
            let is_dir = kind == "d";
            let size = (!is_dir).then(|| size.parse().ok()).flatten();
            raw.insert(path.to_string(), (is_dir, size));
        }
        let mut tree = FileTree::build(raw);
        tree.truncated = truncated;
        tree.loaded = tree
            .entries
            .iter()
            .filter(|e| e.is_dir)
            .map(|e| e.path.clone())
            .chain([String::new()])
            .collect();
        tree
    }

    /// Adds the listing of directory `dir` (relative; `""` = root): names ending in `/` are
    /// directories. Names may be relative to the root (`"src/main.rs"`) or to `dir` (`"main.rs"`).
    pub fn merge_listing(&mut self, dir: &str, names: &[String]) {
        let dir = dir.trim_matches('/');
        let mut raw: BTreeMap<String, (bool, Option<u64>)> = self
            .entries
            .iter()
            .map(|e| (e.path.clone(), (e.is_dir, e.size)))
            .collect();
        for name in names {
            let is_dir = name.ends_with('/');
            let rel = name.trim_matches('/');
            if rel.is_empty() || rel.split('/').any(|c| c == "." || c == "..") {
                continue;
            }
            let path = if dir.is_empty() || rel.starts_with(&format!("{dir}/")) {
                rel.to_string()
            } else {
                format!("{dir}/{rel}")
            };
            raw.insert(path, (is_dir, None));
        }
        let truncated = self.truncated || raw.len() > MAX_ENTRIES;
        let mut loaded = std::mem::take(&mut self.loaded);
        loaded.insert(dir.to_string());
        *self = FileTree::build(raw);
        self.truncated = truncated;
        self.loaded = loaded;
    }

    /// Applies a listing: a full one replaces the tree, a directory's is merged.
    pub fn apply(&mut self, listing: Listing) {
        match listing {
            Listing::Full(tree) => *self = tree,
            Listing::Dir { dir, names } => self.merge_listing(&dir, &names),
        }
    }

    /// Whether the children of `dir` are known.
    pub fn is_loaded(&self, dir: &str) -> bool {
        self.loaded.contains(dir.trim_matches('/'))
    }

    fn build(mut raw: BTreeMap<String, (bool, Option<u64>)>) -> FileTree {
        // Missing ancestors (a cut listing) become directories.
        let paths: Vec<String> = raw.keys().cloned().collect();
        for p in paths {
            let mut parent = parent_of(&p);
            while !parent.is_empty() {
                raw.entry(parent.to_string()).or_insert((true, None));
                parent = parent_of(parent);
            }
        }
        let mut children: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for p in raw.keys() {
            children.entry(parent_of(p)).or_default().push(p);
        }
        for list in children.values_mut() {
            list.sort_by(|a, b| {
                let (da, db) = (raw[*a].0, raw[*b].0);
                db.cmp(&da).then_with(|| {
                    let (na, nb) = (super::paths::file_name(a), super::paths::file_name(b));
                    na.to_lowercase()
                        .cmp(&nb.to_lowercase())
                        .then_with(|| na.cmp(nb))
                })
            });
        }
        let mut entries = Vec::with_capacity(raw.len());
        let mut stack: Vec<(&str, usize)> = children
            .get("")
            .map(|c| c.iter().rev().map(|p| (*p, 0)).collect())
            .unwrap_or_default();
        while let Some((p, depth)) = stack.pop() {
            let (is_dir, size) = raw[p];
            entries.push(Entry {
                path: p.to_string(),
                name: super::paths::file_name(p).to_string(),
                depth,
                is_dir,
                size,
            });
            if let Some(c) = children.get(p) {
                stack.extend(c.iter().rev().map(|c| (*c, depth + 1)));
            }
        }
        entries.truncate(MAX_ENTRIES);
        FileTree {
            entries,
            truncated: false,
            loaded: BTreeSet::new(),
        }
    }

    /// All entries in display order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Whether a file with this relative path is listed.
    pub fn contains(&self, path: &str) -> bool {
        self.entries.iter().any(|e| e.path == path)
    }

    /// The entries shown when only the directories in `expanded` are open.
    pub fn visible<'a>(&'a self, expanded: &BTreeSet<String>) -> Vec<&'a Entry> {
        let mut out = Vec::new();
        let mut closed: Option<String> = None;
        for e in &self.entries {
            if let Some(prefix) = &closed {
                if e.path.starts_with(prefix.as_str()) {
                    continue;
                }
                closed = None;
            }
            out.push(e);
            if e.is_dir && !expanded.contains(&e.path) {
                closed = Some(format!("{}/", e.path));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_prunes_and_caps() {
        let c = find_command("/w/it's");
        assert!(
            c.starts_with(r"cd '/w/it'\''s' && find . -mindepth 1"),
            "{c}"
        );
        assert!(c.contains(r"\( -name '.git' -o -name 'node_modules' \) -prune -o"));
        assert!(c.ends_with("| head -n 2001"), "{c}");
    }

    #[test]
    fn parse_orders_dirs_first() {
        let out = "f\t5\tzeta.txt\nd\t4096\tsrc\nf\t12\tsrc/main.rs\nf\t1\tAlpha.md\nd\t4096\tsrc/bin\nf\t3\tsrc/bin/x.rs\n";
        let t = FileTree::parse_find(out);
        let rows: Vec<_> = t
            .entries()
            .iter()
            .map(|e| (e.path.as_str(), e.depth, e.is_dir, e.size))
            .collect();
        assert_eq!(
            rows,
            [
                ("src", 0, true, None),
                ("src/bin", 1, true, None),
                ("src/bin/x.rs", 2, false, Some(3)),
                ("src/main.rs", 1, false, Some(12)),
                ("Alpha.md", 0, false, Some(1)),
                ("zeta.txt", 0, false, Some(5)),
            ]
        );
        assert!(!t.truncated);
        let open: BTreeSet<String> = ["src".to_string()].into();
        let vis: Vec<_> = t.visible(&open).iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            vis,
            ["src", "src/bin", "src/main.rs", "Alpha.md", "zeta.txt"]
        );
        let vis: Vec<_> = t
            .visible(&BTreeSet::new())
            .iter()
            .map(|e| e.path.as_str())
            .collect();
        assert_eq!(vis, ["src", "Alpha.md", "zeta.txt"]);
    }

    #[test]
    fn cap_marks_truncated() {
        let out: String = (0..MAX_ENTRIES + 1)
            .map(|i| format!("f\t1\tf{i:05}\n"))
            .collect();
        let t = FileTree::parse_find(&out);
        assert!(t.truncated);
        assert_eq!(t.entries().len(), MAX_ENTRIES);
        let exact: String = (0..MAX_ENTRIES)
            .map(|i| format!("f\t1\tf{i:05}\n"))
            .collect();
        assert!(!FileTree::parse_find(&exact).truncated);
    }

    #[test]
    fn odd_lines_are_skipped_and_parents_synthesized() {
        let t = FileTree::parse_find("garbage\nf\tx\ta/b/c.txt\nf\t1\t../evil\n\n");
        let rows: Vec<_> = t
            .entries()
            .iter()
            .map(|e| (e.path.as_str(), e.is_dir, e.size))
            .collect();
        assert_eq!(
            rows,
            [
                ("a", true, None),
                ("a/b", true, None),
                ("a/b/c.txt", false, None)
            ]
        );
    }

    #[test]
    fn cloud_listings_merge() {
        let mut t = FileTree::default();
        assert!(!t.is_loaded(""));
        t.merge_listing("", &["src/".into(), "README.md".into()]);
        assert!(t.is_loaded("") && !t.is_loaded("src"));
        t.merge_listing("src", &["main.rs".into(), "src/lib/".into()]);
        let rows: Vec<_> = t
            .entries()
            .iter()
            .map(|e| (e.path.as_str(), e.is_dir))
            .collect();
        assert_eq!(
            rows,
            [
                ("src", true),
                ("src/lib", true),
                ("src/main.rs", false),
                ("README.md", false)
            ]
        );
        assert!(t.is_loaded("src"));
        assert!(t.contains("src/main.rs"));
    }
}
