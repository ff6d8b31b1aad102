//! Status bar: the agent's execution status, the live link ("reconnecting…"), run / pause /
//! interrupt, the confirmation mode, and approve / reject (⌘/Ctrl+Enter, ⌘/Ctrl+Shift+Backspace,
//! with an optional reason) while an action waits for confirmation.

use crate::components::backends::dialog::Dialog;
use crate::components::chat::tools::{ConversationTools, ToolOp};
use crate::components::countdown::Countdown;
use crate::platform::intl;
use crate::platform::listen::on_window_event;
use crate::services::conversation_tools::usage as usage_now;
use crate::state::events::{Control, ConversationStore, Link};
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::live::events::ItemKind;
use canvas_core::conversations::live::events::{ExecutionStatus, PendingAction};
use canvas_core::conversations::live::usage::{LlmUsage, Usage, CONTEXT_WARN_PERCENT};
use canvas_core::conversations::live::{confirm_key, controls, status_text, ConfirmKey, Controls};
use canvas_core::error::ActionError;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub fn StatusBar(store: ConversationStore, tools: ConversationTools) -> impl IntoView {
    let status = store.status;
    let usage = store.usage;
    let usage_detail = store.usage_detail;
    let usage_open = RwSignal::new(false);
    // The streamed stats leave out an LLM switched in mid-way: when the page opens, when a run
    // ends and when the dialog opens, the conversation's own count is asked for and merged in.
    let us = store.clone();
    let refresh_usage = Action::new_local(move |_: &()| {
        let s = us.clone();
        async move {
            if let Ok(u) = usage_now(s.backends, &s.active, s.conversation()).await {
                s.take_usage(u);
            }
        }
    });
    // A conversation that ran before shows what it used at once.
    refresh_usage.dispatch(());
    Effect::new(move |was_running: Option<bool>| {
        let running = status.get() == ExecutionStatus::Running;
        if was_running == Some(true) && !running {
            refresh_usage.dispatch(());
        }
        running
    });
    let s = store.clone();
    let reason = RwSignal::new(String::new());
    let act = Action::new_local(move |op: &Control| {
        let s = s.clone();
        let op = *op;
        let why = reason.get_untracked();
        async move {
            let done = s
                .control(op, Some(why.trim()).filter(|w| !w.is_empty()))
                .await;
            if done.is_ok() && matches!(op, Control::Approve | Control::Reject) {
                reason.try_set(String::new());
            }
            done
        }
    });
    let error = move || act.value().get().and_then(|r| r.err()).map(|e| e.said());
    let c = Memo::new(move |_| controls(&status.get()));
    let busy = act.pending();
    // ⌘/Ctrl+Enter approves, ⌘/Ctrl+Shift+Backspace rejects, from anywhere on the page.
    confirm_shortcuts(c, act);
    let confirm_mode = tools.confirm_mode;
    let tools_busy = tools.busy();
    let pending = store.pending;
    view! {
        <div class="status-bar" data-testid="status-bar">
            <span class="exec-status" data-testid="exec-status" data-status=move || status.get().as_str().to_string()>
                {move || crate::state::i18n::say(&status_text(&status.get()))}
            </span>
            <LinkStatus store=store.clone() />
            {move || usage.get().map(|u| if usage_detail.with(Option::is_some) {
                view! {
                    <button type="button" class="usage usage-btn" data-testid="usage" aria-haspopup="dialog"
                        title=t!("chat.usage.per_llm") on:click=move |_| {
                            usage_open.set(true);
                            refresh_usage.dispatch(());
                        }>{u}</button>
                }.into_any()
            } else {
                view! { <span class="muted usage" data-testid="usage">{u}</span> }.into_any()
            })}
            <ContextMeter store=store.clone() tools=tools />
            <span class="spacer"></span>
            {move || confirm_mode.get().map(|on| view! {
                <label class="confirm-mode" title=t!("chat.status.confirm_mode_hint")>
                    <input type="checkbox" data-testid="confirm-mode" prop:checked=on
                        disabled=move || tools_busy.get()
                        on:change=move |ev| tools.run(ToolOp::ConfirmMode(event_target_checked(&ev))) />
                    " "{t!("chat.status.confirm_mode")}
                </label>
            })}
            <Show when=move || c.get().run>
                <button class="btn small" data-testid="run" disabled=busy on:click=move |_| { act.dispatch(Control::Run); }>{t!("chat.status.run")}</button>
            </Show>
            <Show when=move || c.get().pause>
                <button class="btn small" data-testid="pause" disabled=busy on:click=move |_| { act.dispatch(Control::Pause); }>{t!("chat.status.pause")}</button>
            </Show>
            <Show when=move || c.get().interrupt>
                <button class="btn small" data-testid="interrupt" disabled=busy on:click=move |_| { act.dispatch(Control::Interrupt); }>{t!("chat.status.interrupt")}</button>
            </Show>
            {move || error().map(|e| view! { <span class="control-error" role="alert">{e}</span> })}
        </div>
        <Show when=move || c.get().confirm>
            {confirm_bar(pending, busy, reason, act)}
        </Show>
        {move || (usage_open.get() && usage_detail.with(Option::is_some)).then(|| untrack(|| view! {
            <UsageDialog usage=usage_detail on_close=Callback::new(move |_| usage_open.set(false)) />
        }))}
    }
}

/// How full the agent's context window is (issue #36): its last turn's tokens against the
/// model's window as the server reports them ("unknown" when the server does not know the
/// window), a warning from [`CONTEXT_WARN_PERCENT`] with "Condense", and the budget where one is
/// set. After a condensation the share is measured again at the agent's next step, which the
/// meter says instead of warning about the old count.
#[component]
fn ContextMeter(store: ConversationStore, tools: ConversationTools) -> impl IntoView {
    let usage = store.usage_detail;
    let fill = Memo::new(move |_| usage.with(|u| u.as_ref().and_then(Usage::context)));
    let budget = Memo::new(move |_| {
        usage.with(|u| {
            u.as_ref()
                .and_then(|u| u.budget().map(|b| (u.total().cost, b)))
        })
    });
    // The context's tokens when the history was last condensed (by this button, `/condense`
    // or the server): that count is no longer what the agent sends.
    let condensed_at = RwSignal::new(None::<u64>);
    let rows = store.rows;
    let condensations = Memo::new(move |_| {
        rows.with(|r| {
            r.iter()
                .filter(|r| matches!(r.item.kind, ItemKind::Condensation { .. }))
                .count()
        })
    });
    Effect::new(move |before: Option<usize>| {
        let now = condensations.get();
        if before.is_some_and(|b| now > b) {
            let used = fill.with_untracked(|f| match f {
                Some(Ok(c)) => Some(c.used),
                _ => None,
            });
            condensed_at.set(used);
        }
        now
    });
    let meter = move || {
        fill.get().map(|f| match f {
            Err(tokens) => view! {
                <span class="muted context-meter" data-testid="context-meter" data-state="unknown"
                    title=t!("chat.context.unknown_hint")>
                    {t!("chat.context.unknown", tokens = intl::number(tokens))}
                </span>
            }
            .into_any(),
            Ok(c) => {
                let percent = c.percent();
                let condensed = condensed_at.get() == Some(c.used);
                let warn = c.filling() && !condensed;
                let state = if condensed { "condensed" } else if warn { "filling" } else { "ok" };
                view! {
                    <span class="context-meter" data-testid="context-meter" data-state=state
                        data-percent=percent.to_string()
                        title=t!("chat.context.tokens", used = intl::number(c.used), window = intl::number(c.window))>
                        <meter min="0" max="100" low="60" high=CONTEXT_WARN_PERCENT.to_string() optimum="0"
                            value=percent.to_string() aria-label=t!("chat.context.label")></meter>
                        " "{t!("chat.context.percent", percent = percent)}
                    </span>
                    {warn.then(|| view! {
                        <span class="context-warn" role="status" data-testid="context-warning">
                            {t!("chat.context.filling")}" "
                            <button type="button" class="btn small" data-testid="context-condense"
                                disabled=move || tools.busy().get()
                                on:click=move |_| tools.run(ToolOp::Condense)>{t!("chat.context.condense")}</button>
                        </span>
                    })}
                    {condensed.then(|| view! {
                        <span class="muted" data-testid="context-condensed">{t!("chat.context.condensed")}</span>
                    })}
                }
                .into_any()
            }
        })
    };
    view! {
        {meter}
        {move || budget.get().map(|(spent, budget)| view! {
            <span class="muted" data-testid="budget">
                {t!("chat.context.budget", spent = intl::dollars(spent), budget = intl::dollars(budget))}
            </span>
        })}
    }
}

/// The events link: its state in words (a live region), the countdown to the next attempt and
/// "Retry now" while it is down.
#[component]
fn LinkStatus(store: ConversationStore) -> impl IntoView {
    let link = store.link;
    let link_state = move || match link.get() {
        Link::Idle | Link::Connecting => "connecting",
        Link::Open => "open",
        Link::Reconnecting { .. } => "reconnecting",
        Link::Failed(_) => "failed",
    };
    let link_text = move || match link.get() {
        Link::Idle | Link::Connecting => t!("chat.status.connecting"),
        Link::Open => t!("chat.status.live"),
        Link::Reconnecting { .. } => t!("chat.status.reconnecting"),
        Link::Failed(m) => crate::state::i18n::say(m.text()),
    };
    // The countdown ticks outside the live region (a screen reader hears the state once).
    let next_try = move || match link.get() {
        Link::Reconnecting { until_ms } => Some(view! {
            <span class="muted" data-testid="reconnect-countdown">
                {t!("chat.status.next_try")}" " <Countdown until_ms=until_ms />
            </span>
        }),
        _ => None,
    };
    view! {
        <span class="link-status" data-testid="link-status" data-state=link_state role="status" aria-live="polite">
            {link_text}
        </span>
        {next_try}
        {move || matches!(link.get(), Link::Failed(_) | Link::Reconnecting { .. }).then(|| {
            let st = store.clone();
            view! { <button class="btn small" data-testid="retry-now" on:click=move |_| st.reconnect_now()>{t!("chat.status.retry_now")}</button> }
        })}
    }
}

/// ⌘/Ctrl+Enter approves, ⌘/Ctrl+Shift+Backspace rejects, from anywhere on the page (while an
/// action waits for confirmation and no decision is on its way).
fn confirm_shortcuts(c: Memo<Controls>, act: Action<Control, Result<(), ActionError>>) {
    on_window_event("keydown", move |ev| {
        let Some(k) = ev.dyn_ref::<web_sys::KeyboardEvent>() else {
            return;
        };
        if !c.get_untracked().confirm || act.pending().get_untracked() {
            return;
        }
        let Some(decision) = confirm_key(&k.key(), k.ctrl_key() || k.meta_key(), k.shift_key())
        else {
            return;
        };
        k.prevent_default();
        act.dispatch(match decision {
            ConfirmKey::Approve => Control::Approve,
            ConfirmKey::Reject => Control::Reject,
        });
    });
}

/// What the agent wants to run, with approve, an optional reason and reject.
fn confirm_bar(
    pending: RwSignal<Vec<PendingAction>>,
    busy: Memo<bool>,
    reason: RwSignal<String>,
    act: Action<Control, Result<(), ActionError>>,
) -> impl IntoView {
    view! {
        <div class="confirm-bar" data-testid="confirm-bar" role="alert">
            <span>{t!("chat.confirm.wants_to_run")}</span>
            <ul>
                {move || pending.get().into_iter().map(|p| view! {
                    <li data-testid="pending-action" data-action-id=p.action_id><code>{p.summary}</code>
                        {(!p.security_risk.is_empty()).then(|| view! { " "<span class="muted">{t!("chat.confirm.risk", risk = p.security_risk)}</span> })}</li>
                }).collect_view()}
            </ul>
            <button class="btn primary small" data-testid="approve" disabled=busy
                aria-keyshortcuts="Control+Enter Meta+Enter" title="⌘/Ctrl+Enter"
                on:click=move |_| { act.dispatch(Control::Approve); }>{t!("chat.confirm.approve")}</button>
            <input class="reject-reason" data-testid="reject-reason" aria-label=t!("chat.confirm.reason_label")
                placeholder=t!("chat.confirm.reason_placeholder") prop:value=move || reason.get()
                on:input=move |ev| reason.set(event_target_value(&ev)) />
            <button class="btn small" data-testid="reject" disabled=busy
                aria-keyshortcuts="Control+Shift+Backspace Meta+Shift+Backspace" title="⌘/Ctrl+Shift+Backspace"
                on:click=move |_| { act.dispatch(Control::Reject); }>{t!("chat.confirm.reject")}</button>
            <span class="muted confirm-keys">{t!("chat.confirm.keys")}</span>
        </div>
    }
}

/// Tokens and cost per LLM and in total; follows the run live.
#[component]
fn UsageDialog(usage: RwSignal<Option<Usage>>, on_close: Callback<()>) -> impl IntoView {
    let row = |u: LlmUsage, total: bool| {
        view! {
            <tr data-testid="usage-row" data-usage-id=u.usage_id.clone() class:total=total>
                <th scope="row">{if total { t!("chat.usage.total") } else { u.usage_id.clone() }}</th>
                <td>{u.model}</td>
                <td class="num">{intl::number(u.prompt_tokens)}</td>
                <td class="num">{intl::number(u.completion_tokens)}</td>
                <td class="num">{intl::number(u.cache_read_tokens)}</td>
                <td class="num">{intl::number(u.cache_write_tokens)}</td>
                <td class="num">{intl::dollars(u.cost)}</td>
            </tr>
        }
    };
    view! {
        <Dialog title=t!("chat.usage.title") testid="usage-dialog" on_close=on_close>
            <table class="usage-table">
                <thead><tr>
                    <th scope="col">{t!("chat.usage.llm")}</th><th scope="col">{t!("chat.usage.model")}</th><th scope="col">{t!("chat.usage.input_tokens")}</th>
                    <th scope="col">{t!("chat.usage.output_tokens")}</th><th scope="col">{t!("chat.usage.cache_reads")}</th>
                    <th scope="col">{t!("chat.usage.cache_writes")}</th><th scope="col">{t!("chat.usage.cost")}</th>
                </tr></thead>
                <tbody>
                    {move || usage.get().map(|u| {
                        let total = u.total();
                        u.per_llm.into_iter().map(|l| row(l, false)).chain([row(total, true)]).collect_view()
                    })}
                </tbody>
            </table>
            <p class="muted">{t!("chat.usage.note")}</p>
        </Dialog>
    }
}
