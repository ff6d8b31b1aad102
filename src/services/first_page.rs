//! The conversation list's first page, asked for beside the probe (issue #11). A list asks the
//! backend only once the probe says it is connected, which cost the first paint one more round
//! trip; this answer is usually in by then. Only the first list that starts may take it, and
//! only for the same backend, org and page size; a failed answer is asked for again.

use crate::services::list_page::page;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::ConversationSummaryPage;
use canvas_core::error::ApiError;
use futures::channel::oneshot;
use leptos::prelude::*;

type Answer = Result<ConversationSummaryPage, ApiError>;

struct Pending {
    active: ActiveBackend,
    limit: u32,
    answer: oneshot::Receiver<Answer>,
}

/// The page asked for at start, until a list takes it.
#[derive(Clone, Copy)]
pub struct FirstPage(StoredValue<Option<Pending>>);

impl FirstPage {
    /// The answer for `active` and `limit`, if it was asked for at start and nobody took it;
    /// whoever starts first ends the offer either way.
    pub fn take(self, active: &ActiveBackend, limit: u32) -> Option<oneshot::Receiver<Answer>> {
        self.0
            .try_update_value(|p| {
                p.take()
                    .filter(|p| p.active == *active && p.limit == limit)
                    .map(|p| p.answer)
            })
            .flatten()
    }
}

/// Asks for the active backend's first `limit` conversations now (not when the list is
/// `collapsed`: nothing would show them).
pub fn provide_first_page(backends: BackendsCtx, limit: u32, collapsed: bool) {
    let active = backends.active.get_untracked();
    let pending = (!active.is_none() && !collapsed).then(|| {
        let (tx, answer) = oneshot::channel();
        let for_call = active.clone();
        leptos::task::spawn_local(async move {
            let _ = tx.send(page(backends, &for_call, None, limit).await);
        });
        Pending {
            active,
            limit,
            answer,
        }
    });
    provide_context(FirstPage(StoredValue::new(pending)));
}

/// The app's offer; `None` outside the app.
pub fn use_first_page() -> Option<FirstPage> {
    use_context::<FirstPage>()
}
