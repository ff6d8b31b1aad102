//! What a list loaded from the backend shows, written once for every settings list: "not
//! available on this backend" (a 404 or an unsupported call), the error in words with "Try
//! again", the empty note, or the list itself.

use crate::services::skills::not_available;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::ApiError;
use leptos::prelude::*;
use std::future::Future;

/// What `load` gives for the active backend: loaded again when the active backend changes or
/// `reload` is bumped (its "Try again" and every change a section makes).
pub fn on_active<T: 'static, F: Future<Output = T> + 'static>(
    reload: RwSignal<u32>,
    load: impl Fn(BackendsCtx, ActiveBackend) -> F + 'static,
) -> LocalResource<T> {
    let backends = use_backends();
    LocalResource::new(move || {
        reload.track();
        load(backends, backends.active.get())
    })
}

/// The words and test ids of a list's states. `prefix` names them: `{prefix}-unavailable`,
/// `{prefix}-error` (unless `error_testid` says otherwise) and `{prefix}-empty`.
#[derive(Clone, Copy)]
pub struct ListStates {
    /// The test-id prefix.
    pub prefix: &'static str,
    /// The error block's test id when it is not `{prefix}-error`.
    pub error_testid: Option<&'static str>,
}

/// The note shown when the list is empty, and the test that says it is.
pub type EmptyNote<T> = Option<(String, fn(&T) -> bool)>;

/// The view of a loaded `r`: unavailable (`unavailable` says what is missing), the error with
/// "Try again" (bumps `reload`), `empty` when `is_empty`, else `show(value)`.
pub fn loaded<T>(
    r: Result<T, ApiError>,
    states: ListStates,
    unavailable: String,
    empty: EmptyNote<T>,
    reload: RwSignal<u32>,
    show: impl FnOnce(T) -> AnyView,
) -> AnyView {
    let prefix = states.prefix;
    match r {
        Err(e) if not_available(&e) => view! {
            <p class="muted" data-testid=format!("{prefix}-unavailable")>{unavailable}</p>
        }
        .into_any(),
        Err(e) => {
            let testid = states
                .error_testid
                .map_or_else(|| format!("{prefix}-error"), str::to_owned);
            view! {
                <div class="error" role="alert" data-testid=testid>
                    <p>{e.said()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>{t!("common.try_again")}</button>
                </div>
            }
            .into_any()
        }
        Ok(v) => match empty {
            Some((text, is_empty)) if is_empty(&v) => view! {
                <p class="muted" data-testid=format!("{prefix}-empty")>{text}</p>
            }
            .into_any(),
            _ => show(v),
        },
    }
}
