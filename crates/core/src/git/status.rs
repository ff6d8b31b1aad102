//! Where a conversation works, in git terms, for its header: the repository, the branch, what
//! the branch was made from and how many commits it is ahead of that, its upstream, and how
//! many files are not committed. One command through the runtime ([`command`]), parsed here.
//!
//! The base is read from the branch's own reflog: `git worktree add -b <branch> … <base>`
//! (how the agent server makes a conversation's worktree) writes "branch: Created from
//! <base>" as the branch's first entry, with the commit it started at. So the server needs
//! to remember nothing, and a branch made by hand the same way is read the same way.

use crate::agent_server::dto::BashResult;
use crate::error::ApiError;

use super::{read_prelude, repo_prelude, Found, Prelude};

/// What the branch was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The ref it was made from, as git wrote it (`origin/main`, `feature/login`, `HEAD`).
    pub name: String,
    /// The commit it started at.
    pub commit: String,
    /// Commits on the branch since then.
    pub ahead: u32,
}

/// The branch's upstream (after a push that set it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// `origin/<branch>`.
    pub name: String,
    /// Commits not pushed.
    pub ahead: u32,
    /// Commits not pulled.
    pub behind: u32,
}

/// The repository a directory is in, as the header shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchStatus {
    /// The repository's top directory (a worktree's own directory for a worktree).
    pub root: String,
    /// The branch checked out (`None`: detached HEAD).
    pub branch: Option<String>,
    /// What the branch was made from, where its reflog says.
    pub base: Option<Base>,
    /// Its upstream, if set.
    pub upstream: Option<Upstream>,
    /// Files changed, added, deleted or not yet tracked (not committed).
    pub uncommitted: u32,
}

impl BranchStatus {
    /// The repository's name (the last part of its top directory).
    pub fn name(&self) -> &str {
        self.root
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(&self.root)
    }
}

/// What the header shows about a conversation's directory.
pub type StatusProbe = Found<BranchStatus>;

/// The command that tells where `dir` stands (run with `sh`; the answer is [`parse`]d).
pub fn command(dir: &str) -> String {
    format!(
        "{}; b=$(git symbolic-ref --short -q HEAD); \
         if [ -n \"$b\" ]; then \
           first=$(git reflog show --format='%H %gs' \"refs/heads/$b\" -- 2>/dev/null | tail -n 1); \
           case \"$first\" in *' branch: Created from '*) \
             printf 'base %s %s\\n' \"$(git rev-list --count \"${{first%% *}}..HEAD\")\" \"$first\";; \
           esac; \
         fi; \
         git status --porcelain=v2 --branch",
        repo_prelude(dir)
    )
}

/// Reads the answer of [`command`]; anything else is a typed error.
pub fn parse(result: &BashResult) -> Result<StatusProbe, ApiError> {
    const WHAT: &str = "git status";
    let lines = match read_prelude(result, WHAT)? {
        Prelude::Top(root, lines) => (root, lines),
        Prelude::Not(other) => return Ok(other.of()),
    };
    let (root, lines) = lines;
    let odd = |why: &str| ApiError::Decode(format!("{WHAT}: {why}: {}", result.stdout.trim()));
    let mut status = BranchStatus {
        root,
        ..BranchStatus::default()
    };
    let mut saw_head = false;
    for line in lines.map(str::trim_end) {
        if let Some(rest) = line.strip_prefix("base ") {
            // `base <ahead> <sha> branch: Created from <name>`
            let mut parts = rest.splitn(3, ' ');
            let ahead = parts.next().and_then(|n| n.parse().ok());
            let commit = parts.next().filter(|c| c.len() >= 7);
            let name = parts
                .next()
                .and_then(|m| m.strip_prefix("branch: Created from "))
                .map(str::trim)
                .filter(|n| !n.is_empty());
            match (ahead, commit, name) {
                (Some(ahead), Some(commit), Some(name)) => {
                    status.base = Some(Base {
                        name: name.to_string(),
                        commit: commit.to_string(),
                        ahead,
                    })
                }
                _ => return Err(odd("an unreadable base line")),
            }
        } else if let Some(head) = line.strip_prefix("# branch.head ") {
            saw_head = true;
            status.branch = (head != "(detached)").then(|| head.to_string());
        } else if let Some(up) = line.strip_prefix("# branch.upstream ") {
            status.upstream = Some(Upstream {
                name: up.to_string(),
                ahead: 0,
                behind: 0,
            });
        } else if let Some(ab) = line.strip_prefix("# branch.ab ") {
            let mut n = ab
                .split(' ')
                .map(|x| x.trim_start_matches(['+', '-']).parse::<u32>().ok());
            match (n.next().flatten(), n.next().flatten(), &mut status.upstream) {
                (Some(a), Some(b), Some(up)) => {
                    up.ahead = a;
                    up.behind = b;
                }
                _ => return Err(odd("an unreadable ahead/behind line")),
            }
        } else if line.starts_with('#') || line.starts_with("! ") || line.is_empty() {
            // Other headers (branch.oid) and ignored files.
        } else if ["1 ", "2 ", "u ", "? "].iter().any(|p| line.starts_with(p)) {
            status.uncommitted += 1;
        } else {
            return Err(odd("an unknown line"));
        }
    }
    if !saw_head {
        return Err(odd("no branch line"));
    }
    Ok(Found::Repo(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(stdout: &str) -> BashResult {
        BashResult {
            exit_code: Some(0),
            stdout: stdout.into(),
            ..BashResult::default()
        }
    }

    const SHA: &str = "5f0c6e1d2b3a49876543210fedcba9876543210a";

    #[test]
    fn a_worktree_branch_reads_its_base_and_its_work() {
        let out = format!(
            "top /tmp/conversation-worktrees/c1/shop\n\
             base 2 {SHA} branch: Created from origin/main\n\
             # branch.oid 1111111111111111111111111111111111111111\n\
             # branch.head openhands/c1\n\
             1 .M N... 100644 100644 100644 aaa bbb notes.txt\n\
             2 R. N... 100644 100644 100644 aaa bbb R100 new.txt\told.txt\n\
             u UU N... 100644 100644 100644 100644 a b c both.txt\n\
             ? scratch.txt\n\
             ! target/\n"
        );
        let Found::Repo(s) = parse(&ran(&out)).unwrap() else {
            panic!("a repository")
        };
        assert_eq!(
            s,
            BranchStatus {
                root: "/tmp/conversation-worktrees/c1/shop".into(),
                branch: Some("openhands/c1".into()),
                base: Some(Base {
                    name: "origin/main".into(),
                    commit: SHA.into(),
                    ahead: 2
                }),
                upstream: None,
                uncommitted: 4,
            }
        );
        assert_eq!(s.name(), "shop");
    }

    #[test]
    fn upstream_detached_and_clean_checkouts() {
        let pushed = ran("top /r\n# branch.oid abc\n# branch.head main\n\
             # branch.upstream origin/main\n# branch.ab +3 -1\n");
        let Found::Repo(s) = parse(&pushed).unwrap() else {
            panic!("a repository")
        };
        assert_eq!(
            s.upstream,
            Some(Upstream {
                name: "origin/main".into(),
                ahead: 3,
                behind: 1
            })
        );
        assert_eq!((s.base, s.uncommitted), (None, 0));
        let detached = ran("top /r\n# branch.oid abc\n# branch.head (detached)\n");
        let Found::Repo(s) = parse(&detached).unwrap() else {
            panic!("a repository")
        };
        assert_eq!(s.branch, None);
        assert_eq!(parse(&ran("norepo\n")).unwrap(), StatusProbe::NotARepo);
        assert_eq!(parse(&ran("nofolder\n")).unwrap(), StatusProbe::NoFolder);
    }

    #[test]
    fn odd_answers_are_typed_errors() {
        for out in [
            "",
            "top /r\n",
            "top /r\n# branch.head main\nX what\n",
            "top /r\nbase two abc branch: Created from x\n# branch.head main\n",
            "top /r\n# branch.head main\n# branch.ab +1 -0\n",
        ] {
            let e = parse(&ran(out)).unwrap_err();
            assert!(matches!(e, ApiError::Decode(_)), "{out:?}: {e:?}");
        }
    }

    #[test]
    fn the_command_reads_the_reflog_and_the_porcelain_status() {
        let c = command("/tmp/it's");
        assert!(c.starts_with("cd -- '/tmp/it'\\''s' "), "{c}");
        assert!(c.contains("branch: Created from"), "{c}");
        assert!(c.ends_with("git status --porcelain=v2 --branch"), "{c}");
    }
}
