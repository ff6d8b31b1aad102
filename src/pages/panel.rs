//! `/conversations/:id/panel`: the workspace panel on its own page (narrow screens), for the
//! conversation fetched by id.

use crate::components::workspace::WorkspacePanel;
use crate::links::{conversation_path, pinned};
use crate::services::conversation::load;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::transport::routing::ConversationRef;
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

#[component]
pub fn PanelPage() -> impl IntoView {
    let backends = use_backends();
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let conv = LocalResource::new(move || {
        let active = backends.active.get();
        let id = id.get();
        async move { load(backends, &active, &id).await }
    });
    let loaded = Signal::derive(move || conv.get().and_then(|r| r.as_ref().ok().cloned()));
    let handle = Signal::derive(move || loaded.get().map(|c| c.handle()));
    let working_dir: Signal<Option<String>> =
        Signal::derive(move || loaded.get().and_then(|c| c.working_dir));
    let conversation: Signal<Option<ConversationRef>> = handle;
    view! {
        <section class="page panel-page" data-testid="panel-page">
            <header class="page-header">
                <h1>{move || loaded.get().and_then(|c| c.title).unwrap_or_else(|| t!("workspace.title"))}</h1>
                <a class="btn" data-testid="panel-back"
                    href=move || backends.active.with(|a| pinned(&conversation_path(&id.get()), a))>{t!("conversation.back")}</a>
            </header>
            {move || conv.get().and_then(|r| r.as_ref().err().map(|e| view! {
                <div class="error" role="alert" data-testid="panel-error">
                    <p>{e.said()}</p>
                    <button class="btn" on:click=move |_| conv.refetch()>{t!("conversation.try_again")}</button>
                </div>
            }))}
            <WorkspacePanel conversation=conversation working_dir=working_dir />
        </section>
    }
}

crate::lazy::lazy_view! {
    /// The workspace panel on its own page.
    pub fn panel_page() in panel, preload preload_panel {
        view! { <crate::pages::panel::PanelPage /> }
    }
}
