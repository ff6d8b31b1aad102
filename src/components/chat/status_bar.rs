//! Status bar: the agent's execution status, the live link ("reconnecting…"), run / pause /
//! interrupt, and approve / reject while waiting for confirmation.

use crate::components::countdown::Countdown;
use crate::state::events::{Control, ConversationStore, Link};
use canvas_core::live::{controls, status_label};
use leptos::prelude::*;

#[component]
pub fn StatusBar(store: ConversationStore) -> impl IntoView {
    let status = store.status;
    let link = store.link;
    let usage = store.usage;
    let s = store.clone();
    let act = Action::new_local(move |op: &Control| {
        let s = s.clone();
        let op = *op;
        async move { s.control(op).await }
    });
    let error = move || act.value().get().and_then(|r| r.err());
    let c = Memo::new(move |_| controls(&status.get()));
    let busy = act.pending();
    let link_state = move || match link.get() {
        Link::Idle | Link::Connecting => "connecting",
        Link::Open => "open",
        Link::Reconnecting { .. } => "reconnecting",
        Link::Failed(_) => "failed",
    };
    let link_text = move || match link.get() {
        Link::Idle | Link::Connecting => "Connecting…".to_string(),
        Link::Open => "Live".to_string(),
        Link::Reconnecting { .. } => "Reconnecting…".to_string(),
        Link::Failed(m) => m,
    };
    // The countdown ticks outside the live region (a screen reader hears the state once).
    let next_try = move || match link.get() {
        Link::Reconnecting { until_ms } => Some(view! {
            <span class="muted" data-testid="reconnect-countdown">
                "next try in " <Countdown until_ms=until_ms />
            </span>
        }),
        _ => None,
    };
    let retry_store = store.clone();
    let pending = store.pending;
    view! {
        <div class="status-bar" data-testid="status-bar">
            <span class="exec-status" data-testid="exec-status" data-status=move || status.get().as_str().to_string()>
                {move || status_label(&status.get())}
            </span>
            <span class="link-status" data-testid="link-status" data-state=link_state role="status" aria-live="polite">
                {link_text}
            </span>
            {next_try}
            {move || matches!(link.get(), Link::Failed(_) | Link::Reconnecting { .. }).then(|| {
                let st = retry_store.clone();
                view! { <button class="btn small" data-testid="retry-now" on:click=move |_| st.reconnect_now()>"Retry now"</button> }
            })}
            {move || usage.get().map(|u| view! { <span class="muted usage" data-testid="usage">{u}</span> })}
            <span class="spacer"></span>
            <Show when=move || c.get().run>
                <button class="btn small" data-testid="run" disabled=busy on:click=move |_| { act.dispatch(Control::Run); }>"Run"</button>
            </Show>
            <Show when=move || c.get().pause>
                <button class="btn small" data-testid="pause" disabled=busy on:click=move |_| { act.dispatch(Control::Pause); }>"Pause"</button>
            </Show>
            <Show when=move || c.get().interrupt>
                <button class="btn small" data-testid="interrupt" disabled=busy on:click=move |_| { act.dispatch(Control::Interrupt); }>"Interrupt"</button>
            </Show>
            {move || error().map(|e| view! { <span class="control-error" role="alert">{e}</span> })}
        </div>
        <Show when=move || c.get().confirm>
            <div class="confirm-bar" data-testid="confirm-bar" role="alert">
                <span>"The agent wants to run:"</span>
                <ul>
                    {move || pending.get().into_iter().map(|p| view! {
                        <li><code>{p.summary}</code>" "<span class="muted">{format!("risk: {}", p.security_risk)}</span></li>
                    }).collect_view()}
                </ul>
                <button class="btn primary small" data-testid="approve" disabled=busy on:click=move |_| { act.dispatch(Control::Approve); }>"Approve"</button>
                <button class="btn small" data-testid="reject" disabled=busy on:click=move |_| { act.dispatch(Control::Reject); }>"Reject"</button>
            </div>
        </Show>
    }
}
