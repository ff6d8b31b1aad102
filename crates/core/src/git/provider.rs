//! Repositories of a git provider (issue #34): the agent server lists the ones its stored
//! token can reach (`GET /api/git/repositories/search?provider=github&query=`). In 1.58.2 only
//! GitHub is searched; the token is the server's own secret (the first of [`TOKEN_SECRETS`]
//! it holds), never the browser's. Without one the server answers `missing_token`, which is
//! [`Search::NoToken`] here; a token GitHub refuses comes back as the server's 401/403, one
//! it cannot use (GitHub unreachable) as its 502/504.

use serde::Deserialize;

use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::transport::de::{lenient, opt_string};

/// The secrets the agent server reads a GitHub token from, in its order.
pub const TOKEN_SECRETS: [&str; 4] = ["github_token", "GITHUB_TOKEN", "GH_TOKEN", "github"];

/// The one provider the server searches.
pub const GITHUB: &str = "github";

/// A repository the provider's token reaches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct ProviderRepository {
    /// `owner/name`.
    pub full_name: String,
    /// Anyone can read it.
    pub is_public: bool,
    /// Its default branch.
    pub main_branch: Option<String>,
    /// When it was last pushed to (ISO).
    pub pushed_at: Option<String>,
}

impl ProviderRepository {
    /// Its HTTPS address on GitHub.
    pub fn clone_url(&self) -> String {
        format!("https://github.com/{}.git", self.full_name)
    }
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    /// The repositories (newest push first, as GitHub lists them), and the cursor of more.
    Found {
        /// This page.
        items: Vec<ProviderRepository>,
        /// The next page's cursor.
        next_page_id: Option<String>,
    },
    /// The server holds no token for the provider.
    NoToken,
}

/// How a conversation starts on a provider's repository: the agent server has no checkout
/// step of its own (`StartConversationRequest` names a directory, not a repository), so the
/// agent is asked to clone it first, with its own tools, into the conversation's new folder —
/// with the server's token in its environment (`token`: the secret's name, passed to the
/// conversation as a secret the server looks up), like upstream's "Push & create PR". The
/// user's words follow.
pub fn first_task(repo: &ProviderRepository, token: Option<&str>, message: &str) -> Text {
    let ask = match &repo.main_branch {
        Some(b) if !b.trim().is_empty() => text!("git.clone_first_branch").with("branch", b.trim()),
        _ => text!("git.clone_first"),
    }
    .with("repo", repo.full_name.clone())
    .with("url", repo.clone_url());
    let ask = match token {
        Some(t) => text!("git.clone_first_token")
            .with_text("ask", ask)
            .with("token", t)
            .with("repo", repo.full_name.clone()),
        None => ask,
    };
    text!("git.clone_then")
        .with_text("first", ask)
        .with("message", message)
}

#[derive(Deserialize)]
struct Page {
    #[serde(default)]
    items: Vec<ProviderRepository>,
    #[serde(default)]
    next_page_id: Option<String>,
    #[serde(default)]
    missing_token: bool,
}

/// Reads the server's answer (`GitProviderRepositoryPage`); entries without a name are
/// dropped, anything else odd is a typed error.
pub fn parse(v: serde_json::Value) -> Result<Search, ApiError> {
    let page: Page = serde_json::from_value(v)
        .map_err(|e| ApiError::Decode(format!("repository search: {e}")))?;
    if page.missing_token {
        return Ok(Search::NoToken);
    }
    Ok(Search::Found {
        items: page
            .items
            .into_iter()
            .filter(|r| !r.full_name.trim().is_empty())
            .collect(),
        next_page_id: page.next_page_id.filter(|p| !p.is_empty()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_agent_clones_first_then_does_what_was_asked() {
        let repo = ProviderRepository {
            full_name: "octo/shop".into(),
            main_branch: Some("main".into()),
            ..ProviderRepository::default()
        };
        let said = first_task(&repo, Some("github_token"), "Fix the login page").english();
        for part in [
            "https://github.com/octo/shop.git",
            "`main`",
            "$github_token",
            "Fix the login page",
        ] {
            assert!(said.contains(part), "{part} in {said}");
        }
        assert!(said.ends_with("Fix the login page"), "{said}");
        let public = first_task(
            &ProviderRepository {
                full_name: "octo/docs".into(),
                ..ProviderRepository::default()
            },
            None,
            "Hi",
        )
        .english();
        assert!(
            !public.contains('$') && public.contains("octo/docs"),
            "{public}"
        );
    }

    #[test]
    fn a_search_answer_is_read() {
        let found = parse(json!({
            "items": [
                {"id": "1", "full_name": "octo/shop", "git_provider": "github", "is_public": false,
                 "stargazers_count": 3, "pushed_at": "2026-12-01T10:00:00Z", "main_branch": "main"},
                {"id": "2", "full_name": " ", "git_provider": "github", "is_public": true}
            ],
            "next_page_id": "2:0",
            "missing_token": false
        }))
        .unwrap();
        let Search::Found {
            items,
            next_page_id,
        } = found
        else {
            panic!("{found:?}");
        };
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].full_name, "octo/shop");
        assert!(!items[0].is_public);
        assert_eq!(items[0].main_branch.as_deref(), Some("main"));
        assert_eq!(items[0].clone_url(), "https://github.com/octo/shop.git");
        assert_eq!(next_page_id.as_deref(), Some("2:0"));
        assert_eq!(
            parse(json!({"items": [], "next_page_id": null, "missing_token": true})).unwrap(),
            Search::NoToken
        );
        assert!(matches!(
            parse(json!({"items": "nope"})),
            Err(ApiError::Decode(_))
        ));
    }
}

/// One pull request the session made, worked on or was linked to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct PullRequest {
    /// Its address.
    #[serde(deserialize_with = "opt_string")]
    pub url: Option<String>,
    /// Its number.
    #[serde(deserialize_with = "lenient")]
    pub number: Option<u64>,
    /// `owner/name`.
    #[serde(deserialize_with = "opt_string")]
    pub repository: Option<String>,
    /// Its title, where looked up.
    #[serde(deserialize_with = "opt_string")]
    pub title: Option<String>,
}

/// A conversation's pull requests as its machine can read them (Omnigent's
/// `GET …/resources/github`, decoded by [`crate::omnigent::environment::decode_pull_requests`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PullRequests {
    /// The branch checked out in the workspace.
    pub branch: Option<String>,
    /// The host has the provider's command-line tool (`gh`); without it nothing is read or
    /// opened.
    pub cli_available: bool,
    /// The tool is signed in.
    pub authenticated: bool,
    /// What the server says to do to sign in, where it says.
    pub hint: Option<String>,
    /// The pull requests, in the server's order.
    pub prs: Vec<PullRequest>,
}
