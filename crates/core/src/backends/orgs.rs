//! Cloud organizations in the backend selector (`spec/cloud.md` "Auth and org", issue #5).
//!
//! - Which orgs a cloud backend lists: only the key's bound org, unless the key is legacy (no
//!   binding) or the backend is in cookie mode ([`KeyScope`], [`visible_orgs`]).
//! - The entry label: `"<backend name> – <org name | Personal workspace>"`, where "Personal
//!   workspace" is the org whose id equals the user id ([`entry_label`]).
//! - With no org chosen: the current org, else the personal one, else the first ([`auto_pick`]).
//! - [`load_org_listing`] runs the requests (keys/current, organizations, `me`) over any
//!   [`Transport`], so the same code is tested natively and runs in the browser.

use crate::backends::record::Backend;
use crate::backends::selection::ActiveBackend;
use crate::client::factory::backend_api;
use crate::cloud::dto::{KeyCheck, Organization, Organizations};
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::transport::plan::Transport;
use crate::transport::routing::RoutingContext;

/// How the personal org is shown, in English (message `backend.personal_workspace`).
pub const PERSONAL_WORKSPACE: &str =
    match crate::i18n::english::message("backend.personal_workspace").english {
        crate::i18n::english::English::Text(t) => t,
        crate::i18n::english::English::Plural(_) => panic!("a plural message"),
    };

/// What the backend's credential may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyScope {
    /// An API key bound to one org: only that org is listed.
    Bound(String),
    /// A legacy key (`/api/keys/current` ⇒ 400) or a key without binding: every org.
    Legacy,
    /// Same-origin cookie mode: every org of the logged-in user.
    Cookie,
}

impl KeyScope {
    /// The scope told by `/api/keys/current` (api-key mode).
    pub fn from_key_check(check: &KeyCheck) -> Self {
        match check {
            KeyCheck::Legacy => KeyScope::Legacy,
            KeyCheck::Current(k) => match k.org_id.as_deref().filter(|o| !o.is_empty()) {
                Some(org) => KeyScope::Bound(org.to_string()),
                None => KeyScope::Legacy,
            },
        }
    }
}

/// Everything the selector needs about one cloud backend's orgs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgListing {
    /// The orgs to list (already filtered by [`visible_orgs`]), in the server's order.
    pub orgs: Vec<Organization>,
    /// The server's current org, if it named one.
    pub current_org_id: Option<String>,
    /// The user id (personal workspace = the org with this id), when known.
    pub user_id: Option<String>,
    /// What the credential may see.
    pub scope: KeyScope,
}

/// One entry of the selector for a cloud backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgEntry {
    /// The org id (goes into the selection's `orgId`).
    pub org_id: String,
    /// `"<backend name> – <org name | Personal workspace>"`, in English.
    pub label: String,
    /// The same label as words to say.
    pub label_text: Text,
    /// Whether this is the user's personal workspace.
    pub personal: bool,
}

/// Whether `org` is the personal workspace: its id equals the user id; when the user id is
/// unknown, the server's `is_personal` flag decides.
pub fn is_personal(org: &Organization, user_id: Option<&str>) -> bool {
    match user_id.filter(|u| !u.is_empty()) {
        Some(u) => org.id == u,
        None => org.is_personal == Some(true),
    }
}

/// `"<backend name> – <org name | Personal workspace>"` (an org without a name shows its id),
/// in English.
pub fn entry_label(backend_name: &str, org: &Organization, user_id: Option<&str>) -> String {
    entry_label_text(backend_name, org, user_id).english()
}

/// `"<backend name> – <org name | Personal workspace>"` (an org without a name shows its id).
pub fn entry_label_text(backend_name: &str, org: &Organization, user_id: Option<&str>) -> Text {
    let org_part = if is_personal(org, user_id) {
        text!("backend.personal_workspace")
    } else if org.name.trim().is_empty() {
        Text::as_is(org.id.as_str())
    } else {
        Text::as_is(org.name.trim())
    };
    let name = backend_name.trim();
    if name.is_empty() {
        org_part
    } else {
        text!("backend.org_entry")
            .with("backend", name)
            .with_text("org", org_part)
    }
}

/// The orgs to list for `scope`: a bound key sees only its org (even if the server lists more);
/// a legacy key and cookie mode see them all. Orgs without an id and duplicates are dropped.
pub fn visible_orgs(all: &[Organization], scope: &KeyScope) -> Vec<Organization> {
    let mut out: Vec<Organization> = Vec::new();
    for org in all {
        if org.id.is_empty() || out.iter().any(|o| o.id == org.id) {
            continue;
        }
        let keep = match scope {
            KeyScope::Bound(bound) => &org.id == bound,
            KeyScope::Legacy | KeyScope::Cookie => true,
        };
        if keep {
            out.push(org.clone());
        }
    }
    out
}

/// The selector entries of a cloud backend, in the listing's order.
pub fn org_entries(backend_name: &str, listing: &OrgListing) -> Vec<OrgEntry> {
    let user = listing.user_id.as_deref();
    listing
        .orgs
        .iter()
        .map(|o| OrgEntry {
            org_id: o.id.clone(),
            label: entry_label(backend_name, o, user),
            label_text: entry_label_text(backend_name, o, user),
            personal: is_personal(o, user),
        })
        .collect()
}

/// Whether `backend` has organizations to pick from (its kind's client says so).
pub fn has_orgs(backend: &Backend) -> bool {
    crate::client::factory::client_for(backend).has_organizations()
}

/// The org to use when the selection names none: the current org (if listed), else the
/// personal one, else the first. `None` when nothing is listed.
pub fn auto_pick(listing: &OrgListing) -> Option<String> {
    let listed = |id: &str| listing.orgs.iter().any(|o| o.id == id);
    if let Some(cur) = listing.current_org_id.as_deref().filter(|c| listed(c)) {
        return Some(cur.to_string());
    }
    let user = listing.user_id.as_deref();
    listing
        .orgs
        .iter()
        .find(|o| is_personal(o, user))
        .or_else(|| listing.orgs.first())
        .map(|o| o.id.clone())
}

/// Whether a stored `orgId` is still valid for the listing (a key rebound to another org, or an
/// org the user left, must not keep sending a stale `X-Org-Id`).
pub fn org_is_listed(listing: &OrgListing, org_id: &str) -> bool {
    listing.orgs.iter().any(|o| o.id == org_id)
}

/// The org whose `me` tells the user id: the bound org, else the current org, else the first.
fn me_target(scope: &KeyScope, orgs: &Organizations) -> Option<String> {
    match scope {
        KeyScope::Bound(org) => Some(org.clone()),
        _ => orgs
            .current_org_id
            .clone()
            .or_else(|| orgs.items.first().map(|o| o.id.clone())),
    }
}

/// Loads the listing of a cloud backend (no `X-Org-Id`: the backend is addressed as itself,
/// whatever this tab has selected): `GET /api/keys/current` (api-key mode) for the binding,
/// `GET /api/organizations`, and `GET /api/organizations/{org}/me` for the user id (a failing
/// `me` is not fatal: the `is_personal` flag is used instead). Local backends have no orgs:
/// `Ok` with nothing listed.
pub async fn load_org_listing<X: Transport + ?Sized>(
    backend: &Backend,
    ctx: &RoutingContext,
    transport: &X,
) -> Result<OrgListing, ApiError> {
    let target = ActiveBackend {
        backend: backend.clone(),
        org_id: None,
    };
    let account = backend_api(&target, ctx);
    // A kind without accounts has no organizations.
    if !account.has_organizations() {
        return Ok(OrgListing {
            orgs: Vec::new(),
            current_org_id: None,
            user_id: None,
            scope: KeyScope::Legacy,
        });
    }
    let (scope, mut user_id) = if backend.uses_cookie_auth() {
        (KeyScope::Cookie, None)
    } else {
        let check = account.keys_current()?.send(transport).await?;
        let user = match &check {
            KeyCheck::Current(k) => k.user_id.clone().filter(|u| !u.is_empty()),
            KeyCheck::Legacy => None,
        };
        (KeyScope::from_key_check(&check), user)
    };
    let all = account.organizations()?.send(transport).await?;
    if user_id.is_none() {
        if let Some(org) = me_target(&scope, &all) {
            if let Ok(me) = account.org_me(&org)?.send(transport).await {
                user_id = Some(me.user_id).filter(|u| !u.is_empty());
            }
        }
    }
    let orgs = visible_orgs(&all.items, &scope);
    Ok(OrgListing {
        current_org_id: all.current_org_id.clone(),
        orgs,
        user_id,
        scope,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::record::AuthMode;
    use crate::backends::record::BackendKind;
    use crate::cloud::dto::KeysCurrent;
    use crate::test_util::block_on as run;
    use crate::test_util::Scripted;

    const USER: &str = "u-1";

    fn org(id: &str, name: &str, personal: Option<bool>) -> Organization {
        Organization {
            id: id.into(),
            name: name.into(),
            is_personal: personal,
        }
    }

    fn orgs() -> Vec<Organization> {
        vec![
            org("a", "Org A", Some(false)),
            org(USER, "someone", Some(true)),
            org("b", "Org B", None),
        ]
    }

    fn listing(orgs: Vec<Organization>, current: Option<&str>, user: Option<&str>) -> OrgListing {
        OrgListing {
            orgs,
            current_org_id: current.map(str::to_string),
            user_id: user.map(str::to_string),
            scope: KeyScope::Legacy,
        }
    }

    #[test]
    fn label_table() {
        let cases: &[(&str, Organization, Option<&str>, &str)] = &[
            (
                "Cloud",
                org("a", "Org A", None),
                Some(USER),
                "Cloud – Org A",
            ),
            (
                "Cloud",
                org(USER, "jane", Some(false)),
                Some(USER),
                "Cloud – Personal workspace",
            ),
            // The id decides when the user id is known, not the flag.
            ("Cloud", org("x", "X", Some(true)), Some(USER), "Cloud – X"),
            // Unknown user id: the flag decides.
            (
                "Cloud",
                org("x", "X", Some(true)),
                None,
                "Cloud – Personal workspace",
            ),
            ("Cloud", org("x", "  ", None), None, "Cloud – x"),
            ("  Work  ", org("a", " Org A ", None), None, "Work – Org A"),
            ("", org("a", "Org A", None), None, "Org A"),
        ];
        for (name, o, user, want) in cases {
            assert_eq!(
                entry_label(name, o, *user),
                *want,
                "{name:?} {o:?} {user:?}"
            );
        }
    }

    #[test]
    fn which_orgs_are_listed_table() {
        let all = orgs();
        let ids = |v: Vec<Organization>| v.into_iter().map(|o| o.id).collect::<Vec<_>>();
        assert_eq!(
            ids(visible_orgs(&all, &KeyScope::Bound("b".into()))),
            vec!["b"]
        );
        assert_eq!(
            ids(visible_orgs(&all, &KeyScope::Bound("gone".into()))),
            Vec::<String>::new()
        );
        assert_eq!(
            ids(visible_orgs(&all, &KeyScope::Legacy)),
            vec!["a", USER, "b"]
        );
        assert_eq!(
            ids(visible_orgs(&all, &KeyScope::Cookie)),
            vec!["a", USER, "b"]
        );
        // Duplicates and id-less entries are dropped.
        let messy = vec![
            org("a", "A", None),
            org("", "nameless", None),
            org("a", "A2", None),
        ];
        assert_eq!(ids(visible_orgs(&messy, &KeyScope::Legacy)), vec!["a"]);
    }

    #[test]
    fn key_scope_from_keys_current() {
        assert_eq!(
            KeyScope::from_key_check(&KeyCheck::Legacy),
            KeyScope::Legacy
        );
        let bound = KeyCheck::Current(KeysCurrent {
            org_id: Some("a".into()),
            ..Default::default()
        });
        assert_eq!(
            KeyScope::from_key_check(&bound),
            KeyScope::Bound("a".into())
        );
        let unbound = KeyCheck::Current(KeysCurrent {
            org_id: Some(String::new()),
            ..Default::default()
        });
        assert_eq!(KeyScope::from_key_check(&unbound), KeyScope::Legacy);
    }

    #[test]
    fn auto_pick_table() {
        let cases: &[(OrgListing, Option<&str>)] = &[
            // current → personal → first
            (listing(orgs(), Some("b"), Some(USER)), Some("b")),
            (listing(orgs(), None, Some(USER)), Some(USER)),
            // A current org that is not listed (bound key) is skipped.
            (listing(orgs(), Some("zzz"), Some(USER)), Some(USER)),
            (
                listing(
                    vec![org("a", "A", None), org("b", "B", None)],
                    None,
                    Some(USER),
                ),
                Some("a"),
            ),
            // Unknown user id: the is_personal flag.
            (listing(orgs(), None, None), Some(USER)),
            (listing(Vec::new(), Some("a"), Some(USER)), None),
        ];
        for (l, want) in cases {
            assert_eq!(auto_pick(l).as_deref(), *want, "{l:?}");
        }
    }

    #[test]
    fn entries_follow_the_listing() {
        let l = listing(orgs(), None, Some(USER));
        let e = org_entries("Cloud", &l);
        let labels: Vec<&str> = e.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "Cloud – Org A",
                "Cloud – Personal workspace",
                "Cloud – Org B"
            ]
        );
        assert!(e[1].personal && !e[0].personal);
        assert!(org_is_listed(&l, "b") && !org_is_listed(&l, "c"));
    }

    // ---- load_org_listing over a scripted transport ----

    const ORGS_JSON: &str = r#"{"items":[{"id":"u-1","name":"me","is_personal":true},
        {"id":"a","name":"Org A","is_personal":false},{"id":"b","name":"Org B"}],
        "current_org_id":"a"}"#;

    fn cloud(key: &str) -> Backend {
        Backend::new("c", "Cloud", "https://app.example", key, BackendKind::Cloud)
    }

    #[test]
    fn bound_key_lists_only_its_org_and_asks_me_of_that_org() {
        let t = Scripted::answering(vec![
            (200, r#"{"id":"k","name":"n","org_id":"a","user_id":null}"#),
            (200, ORGS_JSON),
            (200, r#"{"org_id":"a","user_id":"u-1"}"#),
        ]);
        let ctx = RoutingContext::default();
        let l = run(load_org_listing(&cloud("sk"), &ctx, &t)).unwrap();
        assert_eq!(l.scope, KeyScope::Bound("a".into()));
        assert_eq!(l.orgs.len(), 1);
        assert_eq!(l.user_id.as_deref(), Some("u-1"));
        let sent = t.sent.borrow();
        assert_eq!(sent[0].url, "https://app.example/api/keys/current");
        assert_eq!(sent[2].url, "https://app.example/api/organizations/a/me");
        assert!(sent.iter().all(|p| p.header("X-Org-Id").is_none()));
        assert!(sent
            .iter()
            .all(|p| p.header("Authorization") == Some("Bearer sk")));
        assert_eq!(auto_pick(&l).as_deref(), Some("a"));
    }

    #[test]
    fn legacy_key_lists_all_and_picks_the_current_org() {
        let t = Scripted::answering(vec![
            (400, r#"{"detail":"legacy"}"#),
            (200, ORGS_JSON),
            (200, r#"{"org_id":"a","user_id":"u-1"}"#),
        ]);
        let l = run(load_org_listing(
            &cloud("sk"),
            &RoutingContext::default(),
            &t,
        ))
        .unwrap();
        assert_eq!(l.scope, KeyScope::Legacy);
        let labels: Vec<String> = org_entries("Cloud", &l)
            .into_iter()
            .map(|e| e.label)
            .collect();
        assert_eq!(
            labels,
            vec![
                "Cloud – Personal workspace",
                "Cloud – Org A",
                "Cloud – Org B"
            ]
        );
        assert_eq!(auto_pick(&l).as_deref(), Some("a"));
    }

    #[test]
    fn keys_current_user_id_saves_the_me_request_and_me_failure_is_not_fatal() {
        let t = Scripted::answering(vec![
            (200, r#"{"id":"k","org_id":"b","user_id":"u-1"}"#),
            (200, ORGS_JSON),
        ]);
        let l = run(load_org_listing(
            &cloud("sk"),
            &RoutingContext::default(),
            &t,
        ))
        .unwrap();
        assert_eq!(t.sent.borrow().len(), 2);
        assert_eq!(l.user_id.as_deref(), Some("u-1"));
        let t = Scripted::answering(vec![(400, "{}"), (200, ORGS_JSON), (403, "{}")]);
        let l = run(load_org_listing(
            &cloud("sk"),
            &RoutingContext::default(),
            &t,
        ))
        .unwrap();
        assert_eq!(l.user_id, None);
        assert_eq!(l.orgs.len(), 3);
    }

    #[test]
    fn cookie_mode_skips_keys_current_and_sends_no_authorization() {
        let b = Backend {
            auth_mode: Some(AuthMode::Cookie),
            ..cloud("")
        };
        let t = Scripted::answering(vec![
            (200, ORGS_JSON),
            (200, r#"{"org_id":"a","user_id":"u-1"}"#),
        ]);
        let l = run(load_org_listing(&b, &RoutingContext::default(), &t)).unwrap();
        assert_eq!(l.scope, KeyScope::Cookie);
        let sent = t.sent.borrow();
        assert_eq!(sent[0].url, "https://app.example/api/organizations");
        assert!(sent[0].header("Authorization").is_none());
    }

    #[test]
    fn errors_surface_and_local_backends_have_no_orgs() {
        let t = Scripted::answering(vec![(401, "{}")]);
        let e = run(load_org_listing(
            &cloud("sk"),
            &RoutingContext::default(),
            &t,
        ))
        .unwrap_err();
        assert_eq!(e, ApiError::Unauthorized);
        let local = Backend::new("l", "L", "http://l", "k", BackendKind::Local);
        let t = Scripted::answering(vec![]);
        let l = run(load_org_listing(&local, &RoutingContext::default(), &t)).unwrap();
        assert!(l.orgs.is_empty() && t.sent.borrow().is_empty());
    }
}
