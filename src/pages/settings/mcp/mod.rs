//! `/settings/mcp` (issue #13; in the settings chunk): the active backend's MCP servers — listed
//! (what each runs or where it is, the names of its environment variables and headers, never
//! their values), added (a command over stdio, or a URL over HTTP or SSE), tried first with
//! "Test" (the server connects and lists the tools; nothing is stored), edited (what it runs or
//! where it is, its description; secrets stay as stored), turned off and on, removed after
//! asking.
//! Rules and bodies are `canvas_core::settings::mcp`.

use crate::components::confirm::ConfirmDialog;
use crate::components::loaded::{loaded, on_active, ListStates};
use crate::services::settings as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use leptos::prelude::*;

mod add;
mod row;

use add::McpAddForm;
use row::McpRow;

/// Seconds the server waits for a tested server to connect and list its tools.
const TEST_TIMEOUT_S: u32 = 30;

#[component]
pub fn McpSection() -> impl IntoView {
    let reload = RwSignal::new(0u32);
    let list = on_active(
        reload,
        move |b, a| async move { svc::mcp_servers(b, &a).await },
    );
    let removing = RwSignal::new(None::<String>);
    let rows = move || {
        list.get().map(|r| {
            let states = ListStates {
                prefix: "mcp",
                error_testid: Some("mcp-error-list"),
            };
            loaded(
                r,
                states,
                t!("settings.mcp.unavailable"),
                Some((t!("settings.mcp.empty"), Vec::is_empty)),
                reload,
                |servers| {
                    view! {
                        <ul class="secret-list" data-testid="mcp-list">
                            {servers.into_iter().map(|s| view! {
                                <McpRow server=s removing=removing on_changed=Callback::new(move |_| reload.update(|r| *r += 1)) />
                            }).collect_view()}
                        </ul>
                    }
                    .into_any()
                },
            )
        })
    };
    let names = Signal::derive(move || {
        list.get()
            .and_then(Result::ok)
            .map(|l| l.into_iter().map(|s| s.name).collect::<Vec<_>>())
            .unwrap_or_default()
    });
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    view! {
        <div class="settings-section" data-testid="settings-mcp">
            <p class="muted">
                {t!("settings.mcp.intro")}
            </p>
            <Suspense fallback=|| view! { <p class="loading" data-testid="mcp-loading">{t!("settings.mcp.loading")}</p> }>
                {rows}
            </Suspense>
            <div hidden=unsupported>
                <McpAddForm names=names on_added=Callback::new(move |_| reload.update(|r| *r += 1)) />
            </div>
            {move || removing.get().map(|n| view! {
                <RemoveDialog name=n removing=removing on_removed=Callback::new(move |_| reload.update(|r| *r += 1)) />
            })}
        </div>
    }
}

#[component]
fn RemoveDialog(
    name: String,
    removing: RwSignal<Option<String>>,
    on_removed: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let text = t!("settings.mcp.remove_text", name = name);
    view! {
        <ConfirmDialog title=t!("settings.mcp.remove_title") testid="remove-mcp-dialog"
            confirm_testid="confirm-remove-mcp" text=text verb=t!("settings.mcp.remove")
            busy_verb=t!("settings.mcp.removing")
            gone_is_done=true on_close=Callback::new(move |_| removing.set(None)) on_done=on_removed
            run=move || {
                let (n, active) = (name.clone(), backends.active.get_untracked());
                async move { svc::remove_mcp_server(backends, &active, &n).await }
            } />
    }
}
