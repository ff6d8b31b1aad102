//! What the launcher learns about a working directory before a conversation starts: whether it
//! is in a git repository, and that repository's branches and tags (for "branch from …"). One
//! command through the runtime ([`command`]), its output parsed here ([`parse`]).

use crate::agent_server::dto::BashResult;
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::workspace::paths::shell_quote;

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

/// What the directory is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoProbe {
    /// In a repository.
    Repo(Repository),
    /// The directory is not in a repository.
    NotARepo,
    /// The directory does not exist (yet: the server creates it).
    NoFolder,
    /// The agent's machine has no `git`.
    NoGit,
}

impl RepoProbe {
    /// Why the launcher does not offer a worktree here, in words (`None`: it does).
    pub fn why_no_choice(&self, dir: &str) -> Option<Text> {
        match self {
            RepoProbe::Repo(_) => None,
            RepoProbe::NotARepo => Some(text!("git.not_a_repo").with("dir", dir)),
            RepoProbe::NoFolder => Some(text!("git.no_folder").with("dir", dir)),
            RepoProbe::NoGit => Some(text!("git.no_git")),
        }
    }
}

/// The command that tells what `dir` is (run with `sh`; the answer is [`parse`]d).
pub fn command(dir: &str) -> String {
    format!(
        "cd -- {dir} 2>/dev/null || {{ echo nofolder; exit 0; }}; \
         command -v git >/dev/null 2>&1 || {{ echo nogit; exit 0; }}; \
         top=$(git rev-parse --show-toplevel 2>/dev/null) || {{ echo norepo; exit 0; }}; \
         printf 'top %s\\nhead %s\\n' \"$top\" \"$(git symbolic-ref --short -q HEAD)\"; \
         git for-each-ref --sort=-committerdate --count={MAX_REFS} --format='%(refname)' \
         refs/heads refs/remotes refs/tags",
        dir = shell_quote(dir.trim())
    )
}

/// Reads the answer of [`command`]; anything else is a typed error.
pub fn parse(result: &BashResult) -> Result<RepoProbe, ApiError> {
    let odd = |why: &str| ApiError::Decode(format!("repository check: {why}"));
    if result.exit_code != Some(0) {
        let detail = result.stderr.trim();
        return Err(odd(&format!(
            "exit code {}{}{detail}",
            result.exit_code.map_or("none".into(), |c| c.to_string()),
            if detail.is_empty() { "" } else { ": " }
        )));
    }
    let mut lines = result.stdout.lines().map(str::trim_end);
    let first = lines.next().unwrap_or_default();
    let simple = match first {
        "nofolder" => Some(RepoProbe::NoFolder),
        "nogit" => Some(RepoProbe::NoGit),
        "norepo" => Some(RepoProbe::NotARepo),
        _ => None,
    };
    if let Some(p) = simple {
        return Ok(p);
    }
    let root = first
        .strip_prefix("top ")
        .filter(|r| r.starts_with('/'))
        .ok_or_else(|| odd("no top directory"))?;
    let head = lines
        .next()
        .and_then(|l| l.strip_prefix("head"))
        .ok_or_else(|| odd("no HEAD line"))?
        .trim();
    let mut repo = Repository {
        root: root.to_string(),
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
    Ok(RepoProbe::Repo(repo))
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
            ("nofolder\n", RepoProbe::NoFolder),
            ("nogit\n", RepoProbe::NoGit),
            ("norepo\n", RepoProbe::NotARepo),
            (
                "top /home/me/app\nhead main\nrefs/heads/main\nrefs/heads/feature/x\n\
                 refs/remotes/origin/HEAD\nrefs/remotes/origin/main\nrefs/tags/v1.0\n",
                RepoProbe::Repo(Repository {
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
                RepoProbe::Repo(Repository {
                    root: "/r".into(),
                    ..Repository::default()
                }),
            ),
        ];
        for (out, want) in cases {
            assert_eq!(parse(&ran(0, out)).unwrap(), want, "{out:?}");
        }
        let repo = parse(&ran(0, "top /r\nhead x\nrefs/tags/t\nrefs/heads/x\n")).unwrap();
        let RepoProbe::Repo(repo) = repo else {
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
        assert_eq!(repo.why_no_choice("/r"), None);
        let s = RepoProbe::NotARepo
            .why_no_choice("/home/me/x")
            .unwrap()
            .english();
        assert!(s.contains("/home/me/x"), "{s}");
        assert!(RepoProbe::NoFolder.why_no_choice("/n").is_some());
        assert!(RepoProbe::NoGit.why_no_choice("/n").is_some());
    }
}
