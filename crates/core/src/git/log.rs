//! Recent commits read with `git log` through the runtime, where the server has no commits
//! endpoint of its own (Omnigent): one record per commit, fields split by unit separators so
//! that no subject can break the parse.

use crate::agent_server::dto::{BashResult, Commit, CommitsPage};
use crate::error::ApiError;
use crate::workspace::paths::shell_quote;

/// The command that lists `limit` commits of the repository at `dir` (one more, to know
/// whether older ones exist), newest first.
pub fn command(dir: &str, limit: u32) -> String {
    format!(
        "git -C {} log -n {} --format='%H%x1f%h%x1f%s%x1f%an%x1f%aI%x1e'",
        shell_quote(dir),
        limit.saturating_add(1)
    )
}

/// The commits of [`command`]'s answer (`limit` at most). A repository without commits is an
/// empty list; any other failure is the command's error.
pub fn parse(r: &BashResult, limit: u32) -> Result<CommitsPage, ApiError> {
    if r.exit_code != Some(0) {
        if r.stderr.contains("does not have any commits") {
            return Ok(CommitsPage::default());
        }
        return Err(ApiError::Server {
            status: 400,
            detail: r.stderr.trim().to_string(),
        });
    }
    let mut commits: Vec<Commit> = r
        .stdout
        .split('\u{1e}')
        .filter_map(|rec| {
            let f: Vec<&str> = rec.trim_start_matches('\n').split('\u{1f}').collect();
            let [sha, short, subject, author, when] = f.as_slice() else {
                return None;
            };
            Some(Commit {
                sha: sha.to_string(),
                short_sha: short.to_string(),
                subject: subject.to_string(),
                author: author.to_string(),
                timestamp: when.trim().to_string(),
            })
        })
        .collect();
    let has_more = commits.len() > limit as usize;
    commits.truncate(limit as usize);
    Ok(CommitsPage { commits, has_more })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(stdout: &str) -> BashResult {
        BashResult {
            exit_code: Some(0),
            stdout: stdout.into(),
            ..BashResult::default()
        }
    }

    #[test]
    fn commits_are_read_newest_first_and_a_longer_log_says_there_are_more() {
        let out = "a1\u{1f}a\u{1f}Second: with | odd ; chars\u{1f}Ann\u{1f}2026-12-06T01:00:00+00:00\u{1e}\n\
                   b2\u{1f}b\u{1f}First\u{1f}Bob\u{1f}2026-12-05T01:00:00+00:00\u{1e}\n";
        let page = parse(&ok(out), 5).unwrap();
        assert_eq!(page.commits.len(), 2);
        assert_eq!(page.commits[0].subject, "Second: with | odd ; chars");
        assert_eq!(page.commits[1].author, "Bob");
        assert!(!page.has_more);
        let page = parse(&ok(out), 1).unwrap();
        assert_eq!((page.commits.len(), page.has_more), (1, true));
        assert!(command("/w/it's", 20).starts_with("git -C '/w/it'\\''s' log -n 21 "));
    }

    #[test]
    fn no_commits_yet_is_an_empty_list_and_other_failures_are_errors() {
        let empty = BashResult {
            exit_code: Some(128),
            stderr: "fatal: your current branch 'main' does not have any commits yet\n".into(),
            ..BashResult::default()
        };
        assert!(parse(&empty, 20).unwrap().commits.is_empty());
        let bad = BashResult {
            exit_code: Some(128),
            stderr: "fatal: not a git repository\n".into(),
            ..BashResult::default()
        };
        assert!(parse(&bad, 20).is_err());
    }
}
