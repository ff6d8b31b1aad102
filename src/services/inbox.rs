//! The inbox (issue #39 §3): every conversation of the active backend that waits for the
//! person, with what it asks where the backend can say it apart from the conversation's view
//! (an Omnigent session's questions), answered from here.

use crate::services::list_page::page;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::client::{ConversationRef, ExecutionStatus, SendPlanned};
use canvas_core::conversations::live::events::PendingAction;
use canvas_core::error::ApiError;
use futures::future::join_all;

/// Conversations read per page, and the most pages read (the newest 500).
const PAGE: u32 = 100;
const PAGES: usize = 5;

/// One conversation that waits for the person.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    pub conversation: ConversationSummary,
    /// Its questions; `None`: the backend tells them only in the conversation's view.
    pub questions: Option<Result<Vec<PendingAction>, String>>,
}

/// Every conversation of `active` that waits for the person (among the newest
/// `PAGE × PAGES`), newest first, with its questions.
pub async fn waiting(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<Waiting>, ApiError> {
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..PAGES {
        let p = page(backends, active, cursor.as_deref(), PAGE).await?;
        found.extend(
            p.items
                .into_iter()
                .filter(|c| c.execution_status == Some(ExecutionStatus::WaitingForConfirmation)),
        );
        match p.next_page_id {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    // Each conversation's questions, asked all at once.
    let c = client(backends, active);
    let asked = join_all(found.iter().map(|conversation| {
        c.api
            .pending_approvals(&ConversationRef::new(conversation.id.clone()))
            .send(&c.transport)
    }))
    .await;
    Ok(found
        .into_iter()
        .zip(asked)
        .map(|(conversation, asked)| Waiting {
            conversation,
            questions: match asked {
                Err(e) if e.is_unsupported() => None,
                Err(e) => Some(Err(e.said())),
                Ok(q) => Some(Ok(q)),
            },
        })
        .collect())
}

/// Approves (`approve`) or denies `question` of conversation `id`.
pub async fn answer(
    backends: BackendsCtx,
    active: &ActiveBackend,
    id: &str,
    question: PendingAction,
    approve: bool,
) -> Result<(), ApiError> {
    let c = client(backends, active);
    c.api
        .respond_to_confirmation(&ConversationRef::new(id), &[question], approve, None)
        .send(&c.transport)
        .await
}
