//! The header's git actions (issue #34): commit, pull (fast-forward only), push (setting the
//! upstream), a new branch. Each is one command run in the conversation's terminal, so its
//! output shows live there; when it ends, [`GitAction::outcome`] says what happened in words.
//! Nothing here rewrites history: no `reset --hard`, no force push.

use crate::i18n::text::text;
use crate::i18n::Text;
use crate::workspace::paths::shell_quote;

use super::worktree::valid_ref;

/// `localStorage` key of the git identity commits are made with on one backend.
pub fn identity_key(backend_id: &str) -> String {
    format!("agent-canvas-git-identity:{backend_id}")
}

/// Who commits: a name and an email (Settings → Git, per backend).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// `user.name`.
    pub name: String,
    /// `user.email`.
    pub email: String,
}

impl Identity {
    /// Reads the stored form (`{"name": …, "email": …}`); `None` when it is not that.
    pub fn parse(raw: &str) -> Option<Identity> {
        let v: serde_json::Value = serde_json::from_str(raw).ok()?;
        let s = |k: &str| match v.get(k) {
            None | Some(serde_json::Value::Null) => Some(String::new()),
            Some(serde_json::Value::String(s)) => Some(s.trim().to_string()),
            Some(_) => None,
        };
        v.is_object().then_some(())?;
        Some(Identity {
            name: s("name")?,
            email: s("email")?,
        })
    }

    /// The stored form.
    pub fn to_storage(&self) -> String {
        serde_json::json!({"name": self.name.trim(), "email": self.email.trim()}).to_string()
    }

    /// What is wrong with it (`None`: fine, or empty, which leaves git's own identity).
    pub fn problem(&self) -> Option<Text> {
        let email = self.email.trim();
        (!email.is_empty() && (!email.contains('@') || email.contains(char::is_whitespace)))
            .then(|| text!("git.identity.bad_email").with("email", email))
    }

    /// `-c user.name=… -c user.email=…` for what is set.
    fn flags(&self) -> String {
        let mut f = String::new();
        for (key, value) in [("user.name", &self.name), ("user.email", &self.email)] {
            if !value.trim().is_empty() {
                f.push_str(&format!(
                    "-c {} ",
                    shell_quote(&format!("{key}={}", value.trim()))
                ));
            }
        }
        f
    }
}

/// One action of the header's Git menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitAction {
    /// Stage everything and commit it with this message.
    Commit {
        /// The commit message.
        message: String,
    },
    /// `git pull --ff-only`.
    Pull,
    /// Push the branch to the first remote, setting its upstream (never forced).
    Push,
    /// `git switch -c <name>`: a new branch from here.
    NewBranch {
        /// Its name.
        name: String,
    },
}

/// Why an action did not happen, in words the user can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Commit with no changes.
    NothingToCommit,
    /// git does not know who commits.
    NoIdentity,
    /// The repository has no remote to push to or pull from.
    NoRemote,
    /// The branch has no upstream to pull from.
    NoUpstream,
    /// The remote has commits the branch does not (a non-fast-forward push).
    Rejected,
    /// Pulling would need a merge (the branches diverged).
    NotFastForward,
    /// The remote wants credentials.
    AuthNeeded,
    /// A branch of that name exists.
    BranchExists,
    /// Anything else: the exit code (the output is in the terminal).
    Other(i64),
    /// It was stopped, or its end never came.
    Unfinished,
}

impl Failure {
    /// What to tell the user.
    pub fn text(&self) -> Text {
        match self {
            Failure::NothingToCommit => text!("git.fail.nothing_to_commit"),
            Failure::NoIdentity => text!("git.fail.no_identity"),
            Failure::NoRemote => text!("git.fail.no_remote"),
            Failure::NoUpstream => text!("git.fail.no_upstream"),
            Failure::Rejected => text!("git.fail.rejected"),
            Failure::NotFastForward => text!("git.fail.not_fast_forward"),
            Failure::AuthNeeded => text!("git.fail.auth"),
            Failure::BranchExists => text!("git.fail.branch_exists"),
            Failure::Other(code) => text!("git.fail.other").with("code", code.to_string()),
            Failure::Unfinished => text!("git.fail.unfinished"),
        }
    }
}

/// What [`GitAction::command`] prints when there is no remote.
const NO_REMOTE_MARK: &str = "canvas: no remote";

impl GitAction {
    /// What is wrong before it runs (`None`: fine).
    pub fn problem(&self) -> Option<Text> {
        match self {
            GitAction::Commit { message } if message.trim().is_empty() => {
                Some(text!("git.commit_message_missing"))
            }
            GitAction::NewBranch { name } if !valid_ref(name.trim()) => {
                Some(text!("git.ref_invalid").with("name", name.trim()))
            }
            _ => None,
        }
    }

    /// The command, run in the repository's directory `dir` by `identity`.
    pub fn command(&self, dir: &str, identity: &Identity) -> String {
        let cd = format!("cd -- {} && ", shell_quote(dir.trim()));
        let body = match self {
            GitAction::Commit { message } => format!(
                "git add -A && git {}commit -m {}",
                identity.flags(),
                shell_quote(message.trim())
            ),
            GitAction::Pull => "git pull --ff-only".to_string(),
            GitAction::Push => format!(
                "r=$(git remote | head -n 1); [ -n \"$r\" ] || {{ echo '{NO_REMOTE_MARK}' >&2; exit 3; }}; \
                 git push -u \"$r\" HEAD"
            ),
            GitAction::NewBranch { name } => format!("git switch -c {}", shell_quote(name.trim())),
        };
        format!("{cd}{body}")
    }

    /// How it ended, from its exit code and its output (stdout and stderr together).
    pub fn outcome(&self, exit_code: Option<i64>, output: &str) -> Result<(), Failure> {
        let code = match exit_code {
            Some(0) => return Ok(()),
            Some(c) if c >= 0 => c,
            _ => return Err(Failure::Unfinished),
        };
        let out = output.to_lowercase();
        let has = |needles: &[&str]| needles.iter().any(|n| out.contains(n));
        Err(
            if has(&["nothing to commit", "no changes added to commit"]) {
                Failure::NothingToCommit
            } else if has(&["please tell me who you are", "author identity unknown"]) {
                Failure::NoIdentity
            } else if has(&[
                "authentication failed",
                "could not read username",
                "permission denied",
                "terminal prompts disabled",
            ]) {
                Failure::AuthNeeded
            } else if has(&[
                NO_REMOTE_MARK,
                "no remote repository specified",
                "does not appear to be a git repository",
            ]) {
                Failure::NoRemote
            } else if has(&["no tracking information"]) {
                Failure::NoUpstream
            } else if has(&[
                "[rejected]",
                "non-fast-forward",
                "fetch first",
                "failed to push some refs",
            ]) {
                Failure::Rejected
            } else if has(&[
                "not possible to fast-forward",
                "diverging branches",
                "diverged",
            ]) {
                Failure::NotFastForward
            } else if has(&["already exists"]) {
                Failure::BranchExists
            } else {
                Failure::Other(code)
            },
        )
    }
}

/// What the agent is asked for "Push & create PR": the branch, its base, and that it uses its
/// own tools and credentials (like upstream's).
pub fn pull_request_prompt(branch: &str, base: Option<&str>) -> Text {
    match base {
        Some(base) => text!("git.pr_prompt")
            .with("branch", branch)
            .with("base", base),
        None => text!("git.pr_prompt_default").with("branch", branch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_quoted_and_never_force() {
        let who = Identity {
            name: "Ada L".into(),
            email: "ada@example.org".into(),
        };
        let c = GitAction::Commit {
            message: "it's done".into(),
        }
        .command("/w t", &who);
        assert_eq!(
            c,
            "cd -- '/w t' && git add -A && git -c 'user.name=Ada L' -c 'user.email=ada@example.org' \
             commit -m 'it'\\''s done'"
        );
        let nobody = GitAction::Commit {
            message: "m".into(),
        }
        .command("/w", &Identity::default());
        assert!(
            nobody.ends_with("git add -A && git commit -m 'm'"),
            "{nobody}"
        );
        assert!(GitAction::Pull
            .command("/w", &who)
            .ends_with("git pull --ff-only"));
        let push = GitAction::Push.command("/w", &who);
        assert!(push.contains("git push -u \"$r\" HEAD"), "{push}");
        for a in [GitAction::Pull, GitAction::Push] {
            let c = a.command("/w", &who);
            assert!(!c.contains("--force") && !c.contains("reset"), "{c}");
        }
        assert_eq!(
            GitAction::NewBranch {
                name: " x/y ".into()
            }
            .command("/w", &who),
            "cd -- '/w' && git switch -c 'x/y'"
        );
    }

    #[test]
    fn problems_before_running() {
        assert!(GitAction::Commit {
            message: " ".into()
        }
        .problem()
        .is_some());
        assert!(GitAction::NewBranch { name: "a b".into() }
            .problem()
            .is_some());
        assert_eq!(GitAction::NewBranch { name: "a/b".into() }.problem(), None);
        assert_eq!(GitAction::Push.problem(), None);
    }

    #[test]
    fn outcomes_say_what_went_wrong() {
        let cases: &[(GitAction, &str, Failure)] = &[
            (GitAction::Commit { message: "m".into() }, "On branch x\nnothing to commit, working tree clean", Failure::NothingToCommit),
            (GitAction::Commit { message: "m".into() }, "Author identity unknown\n*** Please tell me who you are.", Failure::NoIdentity),
            (GitAction::Push, "canvas: no remote", Failure::NoRemote),
            (GitAction::Push, " ! [rejected]        HEAD -> b (fetch first)\nerror: failed to push some refs", Failure::Rejected),
            (GitAction::Push, "fatal: could not read Username for 'https://github.com': terminal prompts disabled", Failure::AuthNeeded),
            (GitAction::Pull, "There is no tracking information for the current branch.", Failure::NoUpstream),
            (GitAction::Pull, "fatal: Not possible to fast-forward, aborting.", Failure::NotFastForward),
            (GitAction::NewBranch { name: "b".into() }, "fatal: a branch named 'b' already exists", Failure::BranchExists),
            (GitAction::Pull, "something else", Failure::Other(1)),
        ];
        for (action, out, want) in cases {
            assert_eq!(action.outcome(Some(1), out), Err(want.clone()), "{out}");
        }
        assert_eq!(GitAction::Push.outcome(Some(0), "rejected? no"), Ok(()));
        assert_eq!(GitAction::Push.outcome(None, ""), Err(Failure::Unfinished));
        assert_eq!(
            GitAction::Push.outcome(Some(-1), ""),
            Err(Failure::Unfinished)
        );
        assert!(Failure::Other(128).text().english().contains("128"));
    }

    #[test]
    fn identities_round_trip_and_emails_are_checked() {
        let who = Identity {
            name: "Ada".into(),
            email: "ada@example.org".into(),
        };
        assert_eq!(Identity::parse(&who.to_storage()), Some(who.clone()));
        assert_eq!(Identity::parse("[1]"), None);
        assert_eq!(Identity::parse(r#"{"name": 3}"#), None);
        assert_eq!(who.problem(), None);
        assert_eq!(Identity::default().problem(), None);
        let bad = Identity {
            email: "ada at home".into(),
            ..who
        };
        assert!(bad.problem().unwrap().english().contains("ada at home"));
    }

    #[test]
    fn the_pull_request_prompt_names_branch_and_base() {
        let p = pull_request_prompt("openhands/c1", Some("origin/main")).english();
        assert!(
            p.contains("openhands/c1") && p.contains("origin/main"),
            "{p}"
        );
        let p = pull_request_prompt("b", None).english();
        assert!(p.contains("`b`"), "{p}");
    }
}
