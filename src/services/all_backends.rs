//! One conversation list across every backend (issue #16): each source's first page fetched
//! in parallel through its own client, each backend with its own deadline, merged by core
//! (`canvas_core::conversations::list::all_backends`). A source is a backend, and for a cloud backend each org the
//! user picked (`canvas_core::conversations::list::all_backends::plan_sources`, `orgs_to_list`): the org of this
//! tab's selection and of the last selection made in any tab, else its personal workspace.
//! A backend that fails, is too slow or is disabled by the circuit breaker becomes one note and
//! never holds up the others; health is recorded as for any request (successes by the
//! transport, unreachable backends here).

use crate::platform::storage::WebStorage;
use crate::services::backends::load_orgs;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::record::Backend;
use canvas_core::backends::selection::{parse_selection, ActiveBackend, Selection};
use canvas_core::conversations::list::all_backends::{
    append_page, merge, next_pages, org_sources, plan_sources, source_label, MergedList, SourceKey,
    SourceOutcome, SourcePlan, SOURCE_TIMEOUT_MS,
};
use canvas_core::error::ApiError;
use canvas_core::storage::{Storage, ACTIVE_BACKEND_KEY};
use futures::future::{join_all, select, Either};
use leptos::prelude::GetUntracked;
use std::future::Future;

type Source = (SourceKey, String, SourceOutcome);

/// What the merged list has loaded so far: each source's rows and cursor, their merge, and
/// the sources whose last "Load more" failed (in words; their earlier rows stay, and the next
/// "Load more" asks them again).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loaded {
    sources: Vec<Source>,
    /// The merged rows and notes.
    pub merged: MergedList,
    /// "Could not load more" per source, from the last "Load more".
    pub more_failed: Vec<String>,
}

/// `fut`'s output, or `None` when `ms` pass first.
async fn within<T>(ms: u32, fut: impl Future<Output = T>) -> Option<T> {
    let deadline = Box::pin(crate::platform::time::sleep_ms(ms));
    match select(Box::pin(fut), deadline).await {
        Either::Left((out, _)) => Some(out),
        Either::Right(_) => None,
    }
}

/// The outcome of a failed request; an unreachable backend is recorded in its health (BR-7).
fn failed(backends: BackendsCtx, backend_id: &str, e: ApiError) -> SourceOutcome {
    if matches!(e, ApiError::Network(_) | ApiError::Timeout) {
        backends.record_health(backend_id, Err(e.said()), js_sys::Date::now() as i64);
    }
    SourceOutcome::Failed { message: e.said() }
}

/// One source's first `per_source` conversations, within `ms`.
async fn list_one(
    backends: BackendsCtx,
    target: ActiveBackend,
    per_source: u32,
    ms: u32,
) -> SourceOutcome {
    let list = crate::services::list_page::page(backends, &target, None, per_source);
    match within(ms, list).await {
        Some(Ok(page)) => SourceOutcome::Page(page),
        Some(Err(e)) => failed(backends, &target.backend.id, e),
        None => SourceOutcome::TimedOut,
    }
}

/// Every source of one backend with its outcome, all within [`SOURCE_TIMEOUT_MS`] from the
/// start: a cloud backend's org listing first, then its orgs' lists in parallel.
async fn ask_backend(
    backends: BackendsCtx,
    backend: Backend,
    plan: SourcePlan,
    per_source: u32,
) -> Vec<Source> {
    let plain = |b: &Backend| (SourceKey::new(b.id.clone(), None), source_label(b, None));
    match plan {
        SourcePlan::Disabled => {
            let (key, label) = plain(&backend);
            vec![(key, label, SourceOutcome::Disabled)]
        }
        SourcePlan::Plain => {
            let (key, label) = plain(&backend);
            let target = ActiveBackend {
                backend,
                org_id: None,
            };
            let outcome = list_one(backends, target, per_source, SOURCE_TIMEOUT_MS).await;
            vec![(key, label, outcome)]
        }
        SourcePlan::Orgs { picked } => {
            let started = js_sys::Date::now();
            let listing = match within(SOURCE_TIMEOUT_MS, load_orgs(backends, &backend)).await {
                Some(Ok(listing)) => listing,
                Some(Err(e)) => {
                    let (key, label) = plain(&backend);
                    return vec![(key, label, failed(backends, &backend.id, e))];
                }
                None => {
                    let (key, label) = plain(&backend);
                    return vec![(key, label, SourceOutcome::TimedOut)];
                }
            };
            let spent = (js_sys::Date::now() - started).max(0.0) as u32;
            let left = SOURCE_TIMEOUT_MS.saturating_sub(spent);
            let sources = org_sources(&backend, &listing, &picked);
            let lists = sources.iter().map(|(key, _)| {
                let target = ActiveBackend {
                    backend: backend.clone(),
                    org_id: key.org_id.clone(),
                };
                list_one(backends, target, per_source, left)
            });
            let outcomes = join_all(lists).await;
            sources
                .into_iter()
                .zip(outcomes)
                .map(|((key, label), outcome)| (key, label, outcome))
                .collect()
        }
    }
}

/// The selections the app remembers: this tab's (the active backend and org) and the last one
/// made in any tab (localStorage).
fn remembered(backends: BackendsCtx) -> Vec<Selection> {
    let active = backends.active.get_untracked();
    let mut out = vec![Selection::new(
        active.backend.id.clone(),
        active.org_id.as_deref(),
    )];
    let last_used = WebStorage::local()
        .get(ACTIVE_BACKEND_KEY)
        .ok()
        .flatten()
        .and_then(|raw| parse_selection(&raw));
    out.extend(last_used);
    out
}

/// Loads every source's first `per_source` conversations and merges them (newest first, at
/// most `limit` rows). With `only` non-empty, only those backends are asked (the list's backend
/// filter, `?from=`).
pub async fn load(backends: BackendsCtx, per_source: u32, limit: usize, only: &[String]) -> Loaded {
    let health = backends.health.get_untracked();
    let plans = plan_sources(
        &backends.backends.get_untracked(),
        only,
        |id| health.is_disabled(id),
        &remembered(backends),
    );
    let asked = plans
        .into_iter()
        .map(|(backend, plan)| ask_backend(backends, backend, plan, per_source));
    let sources: Vec<Source> = join_all(asked).await.into_iter().flatten().collect();
    Loaded {
        merged: merge(&sources, limit),
        sources,
        more_failed: Vec::new(),
    }
}

/// "Load more" up to `limit` rows: every source that has a next page and lacks rows asks for
/// its next page only (in parallel, each within [`SOURCE_TIMEOUT_MS`]), appended to what it
/// had; nothing is fetched from the start again.
pub async fn load_more(backends: BackendsCtx, mut loaded: Loaded, limit: usize) -> Loaded {
    let registry = backends.backends.get_untracked();
    let asks = next_pages(&loaded.sources, limit).into_iter().map(|next| {
        let backend = registry
            .iter()
            .find(|b| b.id == next.source.backend_id)
            .cloned();
        async move {
            let Some(backend) = backend else {
                return (next, Err(ApiError::NoBackend));
            };
            let target = ActiveBackend {
                backend,
                org_id: next.source.org_id.clone(),
            };
            let page = crate::services::list_page::page(
                backends,
                &target,
                Some(&next.page_id),
                next.limit,
            );
            let answer = within(SOURCE_TIMEOUT_MS, page)
                .await
                .unwrap_or(Err(ApiError::Timeout));
            (next, answer)
        }
    });
    loaded.more_failed.clear();
    for (next, answer) in join_all(asks).await {
        match answer {
            Ok(page) => append_page(&mut loaded.sources, &next.source, page),
            Err(e) => {
                let label = loaded
                    .sources
                    .iter()
                    .find(|(k, _, _)| k.pin() == next.source.pin())
                    .map_or(next.source.backend_id.clone(), |(_, l, _)| l.clone());
                let message = failed(backends, &next.source.backend_id, e);
                if let SourceOutcome::Failed { message } = message {
                    loaded
                        .more_failed
                        .push(format!("{label}: could not load more ({message})"));
                }
            }
        }
    }
    loaded.merged = merge(&loaded.sources, limit);
    loaded
}
