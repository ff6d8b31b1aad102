//! `/automations/git-sync` (issue #38): the service keeps this organization's automations in a
//! git repository, both ways. The page shows where and how it last went (commit, time, error,
//! what changed since), takes the settings (checked against the repository before saving if
//! asked), and starts a sync now, following it until it is over.

use super::{load_error, local_time};
use crate::links::href;
use crate::platform::time::every;
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::automation::git_sync::{is_off, GitSyncForm, GitSyncStatus};
use leptos::prelude::*;
use leptos_router::components::A;
use std::time::Duration;

/// How often the status is asked again while a sync runs, and for how many times at most.
const SYNC_POLL: Duration = Duration::from_secs(2);
const SYNC_POLLS_MAX: u32 = 90;

#[component]
pub fn GitSyncPage() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let status = LocalResource::new(move || {
        let active = backends.active.get();
        reload.track();
        async move { svc::git_sync_status(backends, &active).await }
    });
    // A sync asked for here is followed until the service says it is over: its last sync or
    // last error is no longer the one seen when it was asked for (or after three minutes).
    let following = RwSignal::new(None::<(Option<String>, Option<String>)>);
    let polls = StoredValue::new(0u32);
    let follow = Callback::new(move |_: ()| {
        let marks = match status.get_untracked() {
            Some(Ok(s)) => (s.last_synced_at, s.last_error_at),
            _ => (None, None),
        };
        polls.set_value(0);
        following.set(Some(marks));
    });
    every(SYNC_POLL, move || {
        if following.with_untracked(Option::is_some) {
            polls.update_value(|n| *n += 1);
            if polls.get_value() > SYNC_POLLS_MAX {
                following.set(None);
            }
            reload.update(|r| *r = r.wrapping_add(1));
        }
    });
    Effect::new(move |_| {
        if let (Some(Ok(s)), Some(marks)) = (status.get(), following.get_untracked()) {
            if !s.sync_in_progress && (s.last_synced_at, s.last_error_at) != marks {
                following.set(None);
            }
        }
    });
    // The form starts from the first settings read and is not rebuilt by later reads (what is
    // typed stays).
    let seed = RwSignal::new(None::<GitSyncStatus>);
    Effect::new(move |_| {
        if let Some(Ok(s)) = status.get() {
            if seed.with_untracked(Option::is_none) {
                seed.set(Some(s));
            }
        }
    });
    let summary = move || {
        status.get().map(|r| match r {
            Err(e) => load_error(&e, move || reload.update(|r| *r = r.wrapping_add(1))),
            Ok(s) => status_card(&s, following.with(Option::is_some)).into_any(),
        })
    };
    let settings = move || {
        seed.get().map(|s| {
            view! { <GitSyncSettings seed=s saved=Callback::new(move |_| reload.update(|r| *r = r.wrapping_add(1)))
                follow=follow /> }
        })
    };
    view! {
        <section class="page automations" data-testid="git-sync-page">
            <header class="page-header">
                <h1>{t!("automations.git_sync.title")}</h1>
                <A href=href("/automations") attr:class="btn">{t!("nav.automations")}</A>
            </header>
            <p class="muted">{t!("automations.git_sync.intro")}</p>
            {summary}
            {settings}
        </section>
    }
}

/// Where the automations are kept and how the last sync went.
fn status_card(s: &GitSyncStatus, following: bool) -> impl IntoView {
    let syncing = s.sync_in_progress || following;
    let state = if s.enabled {
        t!("automations.git_sync.state_on")
    } else {
        t!("automations.git_sync.state_off")
    };
    let last = match (&s.last_synced_at, &s.last_synced_commit) {
        (Some(at), commit) => t!(
            "automations.git_sync.last_synced",
            when = local_time(at),
            commit = commit
                .as_deref()
                .map(|c| c.chars().take(12).collect::<String>())
                .unwrap_or_default()
        ),
        (None, _) => t!("automations.git_sync.never_synced"),
    };
    let where_ =
        (!s.repo_url.is_empty()).then(|| format!("{} · {} · {}", s.repo_url, s.branch, s.path));
    view! {
        <div class="git-sync-status" data-testid="git-sync-status" data-enabled=s.enabled.to_string()
            data-syncing=syncing.to_string() data-commit=s.last_synced_commit.clone().unwrap_or_default()>
            <p><strong>{state}</strong>{where_.map(|w| view! { " " <span class="mono">{w}</span> })}</p>
            <p data-testid="git-sync-last">{last}</p>
            <p class="muted" data-testid="git-sync-dirty">{t!("automations.git_sync.dirty", count = s.dirty_count)}</p>
            <p role="status" data-testid="git-sync-running" hidden=!syncing>{t!("automations.git_sync.syncing")}</p>
            {s.last_error.clone().map(|e| view! {
                <p class="field-error" role="alert" data-testid="git-sync-error">{t!("automations.git_sync.last_error", error = e)}</p>
            })}
        </div>
    }
}

/// The settings: on or off, repository, branch, folder, how often, a token; "Check" asks
/// git whether the repository answers with them (nothing saved), "Save" keeps them, "Sync
/// now" starts a sync.
#[component]
fn GitSyncSettings(
    seed: GitSyncStatus,
    saved: Callback<()>,
    follow: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let first = GitSyncForm::from_status(&seed);
    let enabled = RwSignal::new(first.enabled);
    let repo_url = RwSignal::new(first.repo_url);
    let branch = RwSignal::new(first.branch);
    let path = RwSignal::new(first.path);
    let every_minutes = RwSignal::new(first.every_minutes);
    let token = RwSignal::new(String::new());
    let author_name = RwSignal::new(String::new());
    let author_email = RwSignal::new(String::new());
    let form = move || GitSyncForm {
        enabled: enabled.get(),
        repo_url: repo_url.get(),
        branch: branch.get(),
        path: path.get(),
        every_minutes: every_minutes.get(),
        token: token.get(),
        author_name: author_name.get(),
        author_email: author_email.get(),
    };
    let submitted = RwSignal::new(false);
    let problem = move |field: &'static str| {
        move || {
            if !submitted.get() {
                return None;
            }
            form()
                .validate()
                .into_iter()
                .find(|(f, _)| *f == field)
                .map(|(_, m)| say(&m))
        }
    };
    // One line says what the last action found (a check, a save, a sync).
    let said = RwSignal::new(None::<(bool, String)>);
    let check = Action::new_local(move |f: &GitSyncForm| {
        let f = f.clone();
        let active = backends.active.get_untracked();
        async move {
            let line = match svc::check_git_sync(backends, &active, &f).await {
                Ok(c) => (c.ok, say(&c.text())),
                Err(e) => (false, e.said()),
            };
            said.try_set(Some(line));
        }
    });
    let save = Action::new_local(move |f: &GitSyncForm| {
        let f = f.clone();
        let active = backends.active.get_untracked();
        async move {
            let line = match svc::save_git_sync(backends, &active, &f).await {
                Ok(_) => {
                    token.try_set(String::new());
                    saved.run(());
                    (true, t!("automations.git_sync.saved"))
                }
                Err(e) => (
                    false,
                    t!("automations.git_sync.save_error", error = e.said()),
                ),
            };
            said.try_set(Some(line));
        }
    });
    let sync = Action::new_local(move |_: &()| {
        let active = backends.active.get_untracked();
        async move {
            let line = match svc::sync_git(backends, &active).await {
                Ok(true) => {
                    follow.run(());
                    (true, t!("automations.git_sync.sync_started"))
                }
                Ok(false) => (true, t!("automations.git_sync.sync_running")),
                Err(e) if is_off(&e) => (false, t!("automations.git_sync.sync_off")),
                Err(e) => (
                    false,
                    t!("automations.git_sync.sync_error", error = e.said()),
                ),
            };
            said.try_set(Some(line));
        }
    });
    let busy = move || check.pending().get() || save.pending().get() || sync.pending().get();
    let valid = move |f: &GitSyncForm| {
        submitted.set(true);
        said.set(None);
        f.validate().is_empty()
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let f = form();
        if valid(&f) {
            save.dispatch(f);
        }
    };
    let field = |id: &'static str,
                 label: String,
                 value: RwSignal<String>,
                 error: Option<&'static str>,
                 kind: &'static str| {
        let err = error.map(problem);
        let has_err = move || err.map(|e| e().is_some()).unwrap_or(false);
        view! {
            <div class="field">
                <label for=id>{label}</label>
                <input id=id data-testid=id type=kind class="mono" spellcheck="false" autocomplete="off"
                    prop:value=move || value.get() aria-invalid=move || has_err().to_string()
                    on:input=move |ev| value.set(event_target_value(&ev)) />
                <p class="field-error" data-testid=format!("{id}-error") hidden=move || !has_err()>{move || err.and_then(|e| e())}</p>
            </div>
        }
    };
    view! {
        <form class="automation-form git-sync-form" data-testid="git-sync-form" on:submit=on_submit novalidate=true>
            <label class="check">
                <input type="checkbox" data-testid="git-sync-enabled" prop:checked=move || enabled.get()
                    on:change=move |ev| enabled.set(event_target_checked(&ev)) />
                " "{t!("automations.git_sync.enabled")}
            </label>
            {field("git-sync-repo", t!("automations.git_sync.repo_url"), repo_url, Some("repo_url"), "text")}
            {field("git-sync-branch", t!("automations.git_sync.branch"), branch, None, "text")}
            {field("git-sync-path", t!("automations.git_sync.path"), path, Some("path"), "text")}
            {field("git-sync-minutes", t!("automations.git_sync.every_minutes"), every_minutes, Some("every_minutes"), "text")}
            {field("git-sync-token", t!("automations.git_sync.token"), token, None, "password")}
            {field("git-sync-author-name", t!("automations.git_sync.author_name"), author_name, None, "text")}
            {field("git-sync-author-email", t!("automations.git_sync.author_email"), author_email, Some("author_email"), "email")}
            <p role="status" data-testid="git-sync-said" data-ok=move || said.get().map(|(ok, _)| ok.to_string()).unwrap_or_default()
                class=move || if said.get().is_some_and(|(ok, _)| !ok) { "field-error" } else { "ok-note" }
                hidden=move || said.get().is_none()>
                {move || said.get().map(|(_, line)| line)}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="git-sync-check" disabled=busy
                    on:click=move |_| { let f = form(); if valid(&f) { check.dispatch(f); } }>
                    {move || if check.pending().get() { t!("automations.git_sync.checking") } else { t!("automations.git_sync.check") }}
                </button>
                <button type="button" class="btn" data-testid="git-sync-now" disabled=busy
                    on:click=move |_| { said.set(None); sync.dispatch(()); }>{t!("automations.git_sync.sync_now")}</button>
                <button type="submit" class="btn primary" data-testid="git-sync-save" disabled=busy>
                    {t!("automations.git_sync.save")}
                </button>
            </div>
        </form>
    }
}
