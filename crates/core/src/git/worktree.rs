//! How a new conversation works on the repository its directory is in: in a **new worktree**
//! (the default, like upstream: the agent server runs `git worktree add -b <prefix><id>
//! /tmp/conversation-worktrees/<id>/<project> <base>`, so the user's checkout is never
//! touched) or **in the folder** itself. Sent as `StartConversationRequest.worktree` +
//! `worktree_options { base, ref, branch_prefix }`; the server ignores it when the directory
//! is not in a repository.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::probe::Repository;

use crate::i18n::text::text;
use crate::i18n::Text;

/// The branch prefix the server uses when none is given.
pub const DEFAULT_PREFIX: &str = "openhands/";

/// What a conversation's worktree branches from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Base {
    /// The repository's default branch (`origin/HEAD` after a fetch, else `main`/`master`).
    #[default]
    DefaultBranch,
    /// Whatever the checkout has checked out now.
    Head,
    /// A branch, tag or commit by name.
    Ref(String),
}

/// How a new conversation works on a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkMode {
    /// A worktree of its own on branch `<branch_prefix><conversation id>`.
    Worktree {
        /// What it branches from.
        base: Base,
        /// The start of the branch's name.
        branch_prefix: String,
    },
    /// In the chosen folder itself.
    InFolder,
}

impl Default for WorkMode {
    fn default() -> Self {
        WorkMode::Worktree {
            base: Base::DefaultBranch,
            branch_prefix: DEFAULT_PREFIX.to_string(),
        }
    }
}

/// The conversation tag (`StartConversationRequest.tags`, kept by the server) naming the
/// repository a conversation this console started works on: its top directory.
pub const REPOSITORY_TAG: &str = "repository";
/// The conversation tag naming its branch: the worktree's own, or the folder's at the start.
pub const BRANCH_TAG: &str = "branch";
/// The longest tag value the server takes.
const MAX_TAG_CHARS: usize = 256;

/// A ref name the server takes (`^[A-Za-z0-9][A-Za-z0-9._/-]*$`).
pub fn valid_ref(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '-'))
}

/// A branch prefix the server takes: empty, or a [`valid_ref`].
pub fn valid_prefix(prefix: &str) -> bool {
    prefix.is_empty() || valid_ref(prefix)
}

impl WorkMode {
    /// What is wrong before anything is sent (`None`: fine), in words for the field.
    pub fn problem(&self) -> Option<Text> {
        match self {
            WorkMode::InFolder => None,
            WorkMode::Worktree {
                base,
                branch_prefix,
            } => {
                if let Base::Ref(r) = base {
                    if r.trim().is_empty() {
                        return Some(text!("git.ref_missing"));
                    }
                    if !valid_ref(r.trim()) {
                        return Some(text!("git.ref_invalid").with("name", r.trim()));
                    }
                }
                (!valid_prefix(branch_prefix.trim()))
                    .then(|| text!("git.prefix_invalid").with("prefix", branch_prefix.trim()))
            }
        }
    }

    /// The fields of `POST /api/conversations` (`None` in the folder: nothing to add).
    pub fn request_fields(&self) -> Option<Map<String, Value>> {
        let WorkMode::Worktree {
            base,
            branch_prefix,
        } = self
        else {
            return None;
        };
        let mut options = Map::new();
        match base {
            Base::DefaultBranch => options.insert("base".into(), json!("default_branch")),
            Base::Head => options.insert("base".into(), json!("head")),
            Base::Ref(r) => {
                options.insert("ref".into(), json!(r.trim()));
                options.insert("base".into(), json!("ref"))
            }
        };
        options.insert("branch_prefix".into(), json!(branch_prefix.trim()));
        let mut fields = Map::new();
        fields.insert("worktree".into(), json!(true));
        fields.insert("worktree_options".into(), Value::Object(options));
        Some(fields)
    }

    /// The stored form (`None` for the default, which is not stored).
    pub fn to_storage(&self) -> Option<Value> {
        if *self == WorkMode::default() {
            return None;
        }
        Some(match self {
            WorkMode::InFolder => json!({"mode": "folder"}),
            WorkMode::Worktree {
                base,
                branch_prefix,
            } => {
                let mut obj = Map::new();
                obj.insert("mode".into(), json!("worktree"));
                match base {
                    Base::DefaultBranch => {}
                    Base::Head => {
                        obj.insert("base".into(), json!("head"));
                    }
                    Base::Ref(r) => {
                        obj.insert("base".into(), json!("ref"));
                        obj.insert("ref".into(), json!(r));
                    }
                }
                if branch_prefix != DEFAULT_PREFIX {
                    obj.insert("prefix".into(), json!(branch_prefix));
                }
                Value::Object(obj)
            }
        })
    }

    /// Reads what [`WorkMode::to_storage`] wrote (`None`: not such an object).
    pub fn from_storage(v: &Value) -> Option<WorkMode> {
        let obj = v.as_object()?;
        let s = |k: &str| match obj.get(k) {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(s)) => Some(Some(s.clone())),
            Some(_) => None,
        };
        match s("mode")?.as_deref() {
            Some("folder") => Some(WorkMode::InFolder),
            Some("worktree") => {
                let base = match s("base")?.as_deref() {
                    None | Some("default_branch") => Base::DefaultBranch,
                    Some("head") => Base::Head,
                    Some("ref") => Base::Ref(s("ref")?.unwrap_or_default()),
                    Some(_) => return None,
                };
                let branch_prefix = s("prefix")?.unwrap_or_else(|| DEFAULT_PREFIX.to_string());
                Some(WorkMode::Worktree {
                    base,
                    branch_prefix,
                })
            }
            _ => None,
        }
    }

    /// The branch the server gives conversation `id` in a worktree (`<prefix><id>`, as the
    /// agent server names it); `None` in the folder.
    pub fn branch_for(&self, id: &str) -> Option<String> {
        match self {
            WorkMode::Worktree { branch_prefix, .. } => {
                Some(format!("{}{id}", branch_prefix.trim()))
            }
            WorkMode::InFolder => None,
        }
    }

    /// The tags of conversation `id` started this way on `repo`: where it works, so a list
    /// can show its branch and group it by repository without asking each runtime. The
    /// repository is its top directory (its name alone when the path is longer than the
    /// server takes); the branch is the worktree's, or in the folder the one checked out now.
    pub fn start_tags(&self, repo: &Repository, id: &str) -> BTreeMap<String, String> {
        let mut tags = BTreeMap::new();
        let root = if repo.root.chars().count() <= MAX_TAG_CHARS {
            repo.root.clone()
        } else {
            repository_name(&repo.root).to_string()
        };
        if !root.is_empty() && root.chars().count() <= MAX_TAG_CHARS {
            tags.insert(REPOSITORY_TAG.to_string(), root);
        }
        let branch = self.branch_for(id).or_else(|| repo.branch.clone());
        if let Some(b) = branch.filter(|b| !b.is_empty() && b.chars().count() <= MAX_TAG_CHARS) {
            tags.insert(BRANCH_TAG.to_string(), b);
        }
        tags
    }

    /// A few words for the launcher's summary (`None` for the default).
    pub fn summary(&self) -> Option<Text> {
        match self {
            WorkMode::InFolder => Some(text!("git.summary_folder")),
            WorkMode::Worktree { base, .. } => match base {
                Base::DefaultBranch => None,
                Base::Head => Some(text!("git.summary_head")),
                Base::Ref(r) => Some(text!("git.summary_ref").with("name", r.trim())),
            },
        }
    }
}

/// A repository's name: the last part of its path or `owner/name` (`/home/a/shop` → `shop`).
/// One separator, `/`: the servers' paths are POSIX (`char` patterns kept it small in the
/// first render, where the conversation rows use it).
pub fn repository_name(repository: &str) -> &str {
    let trimmed = repository.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) if i + 1 < trimmed.len() => &trimmed[i + 1..],
        _ => trimmed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_is_tagged_with_where_it_works() {
        let repo = Repository {
            root: "/home/ana/shop".into(),
            branch: Some("main".into()),
            ..Repository::default()
        };
        let tags = |m: &WorkMode| m.start_tags(&repo, "c0ffee");
        let want = |b: &str| {
            BTreeMap::from([
                (REPOSITORY_TAG.to_string(), "/home/ana/shop".to_string()),
                (BRANCH_TAG.to_string(), b.to_string()),
            ])
        };
        assert_eq!(tags(&WorkMode::default()), want("openhands/c0ffee"));
        assert_eq!(tags(&wt(Base::Head, " team/ ")), want("team/c0ffee"));
        assert_eq!(tags(&WorkMode::InFolder), want("main"));
        // Detached in the folder: no branch to name. A path too long for a tag: its name.
        let long = Repository {
            root: format!("/{}/shop", "d".repeat(300)),
            branch: None,
            ..Repository::default()
        };
        assert_eq!(
            WorkMode::InFolder.start_tags(&long, "c0ffee"),
            BTreeMap::from([(REPOSITORY_TAG.to_string(), "shop".to_string())])
        );
    }

    #[test]
    fn repository_names_are_the_last_part() {
        for (repo, name) in [
            ("/home/ana/shop", "shop"),
            ("/home/ana/shop/", "shop"),
            ("octo/shop", "shop"),
            ("shop", "shop"),
            ("/", ""),
        ] {
            assert_eq!(repository_name(repo), name, "{repo}");
        }
    }

    fn wt(base: Base, prefix: &str) -> WorkMode {
        WorkMode::Worktree {
            base,
            branch_prefix: prefix.into(),
        }
    }

    #[test]
    fn ref_names_follow_the_servers_pattern() {
        for ok in ["main", "v1.2", "feature/x-y_z", "0abc", "release/2026.12"] {
            assert!(valid_ref(ok), "{ok}");
        }
        for bad in [
            "", "-x", "/main", ".hidden", "a b", "x~1", "a:b", "ü", "main^",
        ] {
            assert!(!valid_ref(bad), "{bad}");
        }
        assert!(valid_prefix(""));
        assert!(valid_prefix("openhands/"));
        assert!(!valid_prefix("/oh"));
    }

    #[test]
    fn problems_are_said_before_sending() {
        assert_eq!(WorkMode::default().problem(), None);
        assert_eq!(WorkMode::InFolder.problem(), None);
        assert_eq!(
            wt(Base::Ref("  ".into()), DEFAULT_PREFIX)
                .problem()
                .map(|t| t.english()),
            Some("Pick the branch or tag to start from.".into())
        );
        let bad = wt(Base::Ref("a b".into()), DEFAULT_PREFIX)
            .problem()
            .unwrap();
        assert!(bad.english().contains("“a b”"), "{}", bad.english());
        let prefix = wt(Base::Head, "-x/").problem().unwrap();
        assert!(prefix.english().contains("“-x/”"), "{}", prefix.english());
        assert_eq!(wt(Base::Head, "").problem(), None);
    }

    #[test]
    fn request_fields_match_the_servers_schema() {
        assert_eq!(WorkMode::InFolder.request_fields(), None);
        let f = WorkMode::default().request_fields().unwrap();
        assert_eq!(
            Value::Object(f),
            json!({"worktree": true,
                   "worktree_options": {"base": "default_branch", "branch_prefix": "openhands/"}})
        );
        let f = wt(Base::Ref(" release/1.0 ".into()), "me/")
            .request_fields()
            .unwrap();
        assert_eq!(
            Value::Object(f),
            json!({"worktree": true,
                   "worktree_options": {"base": "ref", "ref": "release/1.0", "branch_prefix": "me/"}})
        );
        let f = wt(Base::Head, "").request_fields().unwrap();
        assert_eq!(f["worktree_options"]["base"], "head");
    }

    #[test]
    fn storage_round_trips_and_refuses_the_unknown() {
        assert_eq!(WorkMode::default().to_storage(), None);
        for mode in [
            WorkMode::InFolder,
            wt(Base::Head, DEFAULT_PREFIX),
            wt(Base::Ref("v1".into()), "x/"),
            wt(Base::DefaultBranch, ""),
        ] {
            let stored = mode.to_storage().unwrap();
            assert_eq!(WorkMode::from_storage(&stored), Some(mode), "{stored}");
        }
        for bad in [
            json!("folder"),
            json!({"mode": "elsewhere"}),
            json!({"mode": "worktree", "base": "tip"}),
            json!({"mode": "worktree", "prefix": 3}),
            json!({}),
        ] {
            assert_eq!(WorkMode::from_storage(&bad), None, "{bad}");
        }
    }

    #[test]
    fn summaries_name_what_differs() {
        assert_eq!(WorkMode::default().summary(), None);
        let s = |m: WorkMode| m.summary().unwrap().english();
        assert_eq!(s(WorkMode::InFolder), "in the folder itself");
        assert_eq!(s(wt(Base::Head, DEFAULT_PREFIX)), "worktree from HEAD");
        assert_eq!(
            s(wt(Base::Ref("v1".into()), DEFAULT_PREFIX)),
            "worktree from v1"
        );
    }
}
