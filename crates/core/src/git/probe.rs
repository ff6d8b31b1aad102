//! What the launcher learns about a working directory before a conversation starts: whether it
//! is in a git repository, and that repository's branches and tags (for "branch from …"). One
//! command through the runtime ([`command`]), its output parsed here ([`parse`]).

use super::{read_prelude, repo_prelude, Found, Prelude};
use crate::agent_server::dto::BashResult;
use crate::error::ApiError;

/// The most refs listed (newest commits first): enough to pick from, small to send.
pub const MAX_REFS: usize = 300;

/// A git repository around a directory.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Repository {
    /// Its top directory.
    pub root: String,
    /// The branch checked out (`None`: detached HEAD, or no commit yet).
    pub branch: Option<String>,
    /// Local branches.
    pub branches: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// Remote-tracking branches (`origin/main`), without the remotes' `HEAD`.
    pub remote_branches: Vec<String>,
}

impl Repository {
    /// Every ref a worktree can branch from: local branches, remote branches, then tags.
    pub fn refs(&self) -> impl Iterator<Item = &String> {
        self.branches
            .iter()
            .chain(&self.remote_branches)
            .chain(&self.tags)
    }
}

/// What the directory is: in a repository (its refs), or why not.
pub type RepoProbe = Found<Repository>;

/// The command that tells what `dir` is (run with `sh`; the answer is [`parse`]d).
pub fn command(dir: &str) -> String {
    format!(
        "{}; printf 'head %s\\n' \"$(git symbolic-ref --short -q HEAD)\"; \
         git for-each-ref --sort=-committerdate --count={MAX_REFS} --format='%(refname)' \
         refs/heads refs/remotes refs/tags",
        repo_prelude(dir)
    )
}

/// Reads the answer of [`command`]; anything else is a typed error.
pub fn parse(result: &BashResult) -> Result<RepoProbe, ApiError> {
    let (root, mut lines) = match read_prelude(result, "repository check")? {
        Prelude::Top(root, lines) => (root, lines),
        Prelude::Not(other) => return Ok(other.of()),
    };
    let odd = |why: &str| ApiError::Decode(format!("repository check: {why}"));
    let head = lines
        .next()
        .and_then(|l| l.strip_prefix("head"))
        .ok_or_else(|| odd("no HEAD line"))?
        .trim();
    let mut repo = Repository {
        root,
        branch: (!head.is_empty()).then(|| head.to_string()),
        ..Repository::default()
    };
    for line in lines.take(MAX_REFS) {
        if let Some(b) = line.strip_prefix("refs/heads/") {
            repo.branches.push(b.to_string());
        } else if let Some(t) = line.strip_prefix("refs/tags/") {
            repo.tags.push(t.to_string());
        } else if let Some(r) = line.strip_prefix("refs/remotes/") {
            if !r.ends_with("/HEAD") {
                repo.remote_branches.push(r.to_string());
            }
        }
    }
    Ok(Found::Repo(repo))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: i64, stdout: &str) -> BashResult {
        BashResult {
            exit_code: Some(code),
            stdout: stdout.into(),
            ..BashResult::default()
        }
    }

    #[test]
    fn the_command_quotes_the_directory() {
        let c = command(" /tmp/it's here ");
        assert!(c.starts_with("cd -- '/tmp/it'\\''s here' "), "{c}");
        assert!(c.contains("--count=300"), "{c}");
    }

    #[test]
    fn answers_parse_into_what_the_directory_is() {
        let cases = [
            ("nofolder\n", Found::NoFolder),
            ("nogit\n", Found::NoGit),
            ("norepo\n", Found::NotARepo),
            (
                "top /home/me/app\nhead main\nrefs/heads/main\nrefs/heads/feature/x\n\
                 refs/remotes/origin/HEAD\nrefs/remotes/origin/main\nrefs/tags/v1.0\n",
                Found::Repo(Repository {
                    root: "/home/me/app".into(),
                    branch: Some("main".into()),
                    branches: vec!["main".into(), "feature/x".into()],
                    tags: vec!["v1.0".into()],
                    remote_branches: vec!["origin/main".into()],
                }),
            ),
            (
                // Detached HEAD, or a repository without a commit yet.
                "top /r\nhead \n",
                Found::Repo(Repository {
                    root: "/r".into(),
                    ..Repository::default()
                }),
            ),
        ];
        for (out, want) in cases {
            assert_eq!(parse(&ran(0, out)).unwrap(), want, "{out:?}");
        }
        let repo = parse(&ran(0, "top /r\nhead x\nrefs/tags/t\nrefs/heads/x\n")).unwrap();
        let Found::Repo(repo) = repo else {
            panic!("a repository")
        };
        assert_eq!(repo.refs().collect::<Vec<_>>(), ["x", "t"]);
    }

    #[test]
    fn odd_answers_are_typed_errors() {
        for (code, out) in [
            (0, ""),
            (0, "top relative\nhead x\n"),
            (0, "top /r\n"),
            (2, ""),
        ] {
            let e = parse(&ran(code, out)).unwrap_err();
            assert!(matches!(e, ApiError::Decode(_)), "{out:?}: {e:?}");
        }
        let mut timed_out = ran(-1, "");
        timed_out.stderr = "killed".into();
        let e = parse(&timed_out).unwrap_err();
        assert!(e.to_string().contains("killed"), "{e}");
    }

    #[test]
    fn why_the_choice_is_not_offered() {
        let repo = RepoProbe::Repo(Repository::default());
        assert_eq!(repo.why_not("/r"), None);
        let s = RepoProbe::NotARepo.why_not("/home/me/x").unwrap().english();
        assert!(s.contains("/home/me/x"), "{s}");
        assert!(RepoProbe::NoFolder.why_not("/n").is_some());
        assert!(RepoProbe::NoGit.why_not("/n").is_some());
    }
}
