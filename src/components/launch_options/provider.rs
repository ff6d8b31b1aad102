//! Start on a repository of the backend's git provider (issue #34): the agent server lists the
//! GitHub repositories its own token reaches (`canvas_core::git::provider`); choosing one makes
//! the next start ask the agent to clone it first, into a new folder, with that token in its
//! environment (the server has no checkout step of its own). Asked only when opened: each
//! search is the server asking GitHub. Without a token it says where to add one.

use crate::links::href;
use crate::services::launch as svc;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::{t, Said};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::ApiError;
use canvas_core::git::provider::{ProviderRepository, Search, TOKEN_SECRETS};
use leptos::prelude::*;

/// How long typing must pause before searching.
const TYPING_PAUSE_MS: u32 = 400;

/// The section under the repository field; `secrets`: the backend's secret names (where the
/// token is looked for).
pub(super) fn provider_field(
    backends: BackendsCtx,
    active: ActiveBackend,
    secrets: Vec<String>,
) -> impl IntoView {
    let backend_id = active.backend.id.clone();
    let open = RwSignal::new(false);
    let query = RwSignal::new(String::new());
    // Bumped by "Search again".
    let again = RwSignal::new(0u32);
    // The answer for the query as typed (`None` while asking).
    let answer = RwSignal::new(None::<Result<Search, ApiError>>);
    let chosen = RwSignal::new(None::<ProviderRepository>);
    // The secret the server reads the token from, as this backend names it.
    let token = TOKEN_SECRETS
        .iter()
        .find(|n| secrets.iter().any(|s| s == *n))
        .map(|n| n.to_string());
    super::ask_when_typing_pauses(
        TYPING_PAUSE_MS,
        move || {
            again.track();
            open.get().then(|| query.get())
        },
        answer,
        move |q: String| {
            let active = active.clone();
            async move { svc::search_repositories(backends, &active, &q).await }
        },
        |_: &String, _: &Result<Search, ApiError>| {},
    );
    let choose = {
        let backend_id = backend_id.clone();
        move |repo: Option<ProviderRepository>| {
            svc::choose_clone(&backend_id, repo.clone().map(|r| (r, token.clone())));
            chosen.set(repo);
        }
    };
    let choose_store = StoredValue::new(choose);
    let results = move || {
        let state = match answer.get() {
            None => "searching",
            Some(Ok(Search::NoToken)) => "no-token",
            Some(Ok(Search::Found { .. })) => "found",
            Some(Err(_)) => "error",
        };
        let body = match answer.get() {
            None => view! { <p class="muted" role="status">{t!("git.provider.searching")}</p> }.into_any(),
            Some(Ok(Search::NoToken)) => view! {
                <p class="muted" data-testid="provider-no-token">
                    {t!("git.provider.no_token")}" "
                    <a href=href("/settings/secrets") data-testid="provider-add-token">{t!("git.provider.add_token")}</a>
                </p>
            }.into_any(),
            Some(Err(e)) => view! {
                <p class="error" role="alert" data-testid="provider-error">{t!("git.provider.failed", error = e.said())}</p>
                <button type="button" class="btn small" data-testid="provider-retry"
                    on:click=move |_| again.update(|n| *n += 1)>{t!("git.provider.retry")}</button>
            }.into_any(),
            Some(Ok(Search::Found { items, .. })) if items.is_empty() => {
                view! { <p class="muted" data-testid="provider-none">{t!("git.provider.none")}</p> }.into_any()
            }
            Some(Ok(Search::Found { items, .. })) => view! {
                <ul class="provider-repos" data-testid="provider-repos">
                    {items.into_iter().map(|r| {
                        let name = r.full_name.clone();
                        let private = !r.is_public;
                        view! {
                            <li>
                                <button type="button" class="btn small" data-testid="provider-repo" data-name=name.clone()
                                    on:click=move |_| choose_store.with_value(|c| c(Some(r.clone())))>
                                    <span class="mono">{name.clone()}</span>
                                    {private.then(|| view! { " "<span class="muted">{t!("git.provider.private")}</span> })}
                                </button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            }.into_any(),
        };
        view! { <div data-testid="provider-results" data-state=state>{body}</div> }
    };
    view! {
        <fieldset class="pref-group" data-testid="launch-provider">
            <legend>{t!("git.provider.legend")}</legend>
            {move || match chosen.get() {
                Some(r) => view! {
                    <p data-testid="provider-chosen" data-name=r.full_name.clone()>
                        {t!("git.provider.chosen", repo = r.full_name.clone())}" "
                        <button type="button" class="btn small" data-testid="provider-clear"
                            on:click=move |_| choose_store.with_value(|c| c(None))>{t!("git.provider.clear")}</button>
                    </p>
                }.into_any(),
                None if !open.get() => view! {
                    <button type="button" class="btn small" data-testid="provider-open"
                        on:click=move |_| open.set(true)>{t!("git.provider.open")}</button>
                }.into_any(),
                None => view! {
                    <div class="field">
                        <label for="provider-query">{t!("git.provider.query_label")}</label>
                        <input id="provider-query" type="search" data-testid="provider-query" autocomplete="off"
                            prop:value=move || query.get()
                            on:input=move |ev| query.set(event_target_value(&ev)) />
                    </div>
                    {results}
                }.into_any(),
            }}
        </fieldset>
    }
}
