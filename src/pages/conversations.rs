//! The conversation list of the active backend, newest first.

use crate::state::api::client;
use crate::state::backends::use_backends;
use canvas_core::api::view::ConversationSummary;
use canvas_core::url::build_backend_link;
use leptos::prelude::*;
use leptos_router::components::A;

/// Formats an ISO timestamp in the user's locale (falls back to the raw text).
fn format_time(iso: &str) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(iso));
    if d.get_time().is_nan() {
        iso.to_string()
    } else {
        d.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED)
            .as_string()
            .unwrap_or_else(|| iso.to_string())
    }
}

#[component]
fn ConversationRow(c: ConversationSummary) -> impl IntoView {
    let backends = use_backends();
    // The link pins the backend (and org) it belongs to, so it opens there in any tab.
    let href = backends.active.with_untracked(|a| {
        build_backend_link(
            &format!("/conversations/{}", c.id),
            &a.backend.id,
            a.org_id.as_deref(),
        )
    });
    let title = c
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| "Untitled conversation".to_string());
    let updated = c
        .updated_at
        .clone()
        .or(c.created_at.clone())
        .unwrap_or_default();
    let status = c
        .execution_status
        .as_ref()
        .map(|s| s.as_str().to_string())
        .unwrap_or_default();
    view! {
        <li class="conversation-row" data-testid="conversation-row" data-conversation-id=c.id.clone()>
            <A href=href attr:class="conversation-link">
                <span class="conversation-title" data-testid="conversation-title">{title}</span>
            </A>
            <span class="conversation-status" data-status=status.clone()>{status.clone()}</span>
            <time class="conversation-time" datetime=updated.clone()>{format_time(&updated)}</time>
        </li>
    }
}

#[component]
pub fn ConversationsPage() -> impl IntoView {
    let backends = use_backends();
    // Keyed by the active backend (id, org, revision): switching never shows stale data.
    let list = LocalResource::new(move || {
        let active = backends.active.get();
        async move {
            let c = client(backends, &active);
            c.api.list_conversations(None, 20)?.send(&c.transport).await
        }
    });
    view! {
        <section class="page conversations">
            <header class="page-header">
                <h1>"Conversations"</h1>
                <A href="/" attr:class="btn primary" attr:data-testid="new-conversation">"New conversation"</A>
                <button class="btn" on:click=move |_| list.refetch() title="Refresh">
                    "Refresh"
                </button>
            </header>
            <Suspense fallback=|| view! { <p class="loading" data-testid="loading">"Loading conversations…"</p> }>
                {move || Suspend::new(async move {
                    match list.await {
                        Ok(page) if page.items.is_empty() => view! {
                            <div class="empty" data-testid="conversations-empty">
                                <p>"No conversations yet."</p>
                            </div>
                        }.into_any(),
                        Ok(page) => view! {
                            <ul class="conversation-list" data-testid="conversation-list">
                                {page.items.into_iter().map(|c| view! { <ConversationRow c=c /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(e) => view! {
                            <div class="error" role="alert" data-testid="conversations-error">
                                <p>{e.user_message()}</p>
                                <button class="btn" on:click=move |_| list.refetch()>"Try again"</button>
                            </div>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
