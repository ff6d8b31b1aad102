//! The workspace panel beside a conversation (terminal, files, changes). Issue #7 fills it in;
//! the conversation page embeds `<WorkspacePanel/>`.

use canvas_core::api::routing::ConversationRef;
use leptos::prelude::*;

#[component]
pub fn WorkspacePanel(
    /// The conversation (`None` while it loads).
    #[prop(into)]
    conversation: Signal<Option<ConversationRef>>,
    /// Its working directory, when known (local backends).
    #[prop(into)]
    working_dir: Signal<Option<String>>,
) -> impl IntoView {
    let _ = (conversation, working_dir);
    view! { <div class="workspace-panel" data-testid="workspace-panel"></div> }
}
