//! One conversation list across every backend (issue #16): each backend's first page fetched
//! in parallel through its own client, each with its own deadline, merged by core
//! (`canvas_core::all_backends`). A backend that fails, is too slow or is disabled by the
//! circuit breaker becomes one note and never holds up the others; health is recorded as for
//! any request (successes by the transport, unreachable backends here).

use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::all_backends::{
    merge, source_label, MergedList, SourceKey, SourceOutcome, SOURCE_TIMEOUT_MS,
};
use canvas_core::api::SendPlanned;
use canvas_core::backend::NO_BACKEND_ID;
use canvas_core::errors::ApiError;
use canvas_core::selection::ActiveBackend;
use futures::future::{join_all, select, Either};
use leptos::prelude::GetUntracked;

/// Loads every backend's first `per_source` conversations and merges them (newest first, at
/// most `limit` rows). The active backend is listed with its org; others without one. With
/// `only` non-empty, only those backends are asked (the list's backend filter, `?from=`).
pub async fn load(
    backends: BackendsCtx,
    per_source: u32,
    limit: usize,
    only: &[String],
) -> MergedList {
    let active = backends.active.get_untracked();
    let health = backends.health.get_untracked();
    let sources: Vec<(SourceKey, String, Option<ActiveBackend>)> = backends
        .backends
        .get_untracked()
        .into_iter()
        .filter(|b| b.id != NO_BACKEND_ID && (only.is_empty() || only.contains(&b.id)))
        .map(|b| {
            let org = (b.id == active.backend.id)
                .then(|| active.org_id.clone())
                .flatten();
            let key = SourceKey::new(b.id.clone(), org.as_deref());
            let label = source_label(&b, None);
            let target = (!health.is_disabled(&b.id)).then_some(ActiveBackend {
                backend: b,
                org_id: org,
            });
            (key, label, target)
        })
        .collect();
    let fetches = sources.iter().map(|(_, _, target)| async move {
        let Some(target) = target else {
            return SourceOutcome::Disabled;
        };
        let c = client(backends, target);
        let list = Box::pin(
            c.api
                .list_conversations(None, per_source)
                .send(&c.transport),
        );
        let deadline = Box::pin(crate::platform::time::sleep_ms(SOURCE_TIMEOUT_MS));
        let outcome = select(list, deadline).await;
        match outcome {
            Either::Left((Ok(page), _)) => SourceOutcome::Page(page),
            Either::Left((Err(e), _)) => {
                if matches!(e, ApiError::Network(_) | ApiError::Timeout) {
                    backends.record_health(
                        &target.backend.id,
                        Err(e.user_message()),
                        js_sys::Date::now() as i64,
                    );
                }
                SourceOutcome::Failed {
                    message: e.user_message(),
                }
            }
            Either::Right(_) => SourceOutcome::TimedOut,
        }
    });
    let outcomes = join_all(fetches).await;
    let merged_input: Vec<(SourceKey, String, SourceOutcome)> = sources
        .into_iter()
        .zip(outcomes)
        .map(|((key, label, _), outcome)| (key, label, outcome))
        .collect();
    merge(&merged_input, limit)
}
