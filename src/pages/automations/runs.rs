//! An automation's runs: the list, each run, and the refresh while one is active.

use super::{iso_secs, local_time, now_secs, pager, run_badge, ACTIVE_RUN_POLL};
use crate::links::{conversation_path, pinned};
use crate::platform::time::every;
use crate::services::automations as svc;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::{say, Said};
use crate::state::i18n::{t, tn};
use canvas_core::automation::model::{cancel_error_text, format_span_text, service_missing};
use canvas_core::automation::{Automation, Run, RunPage};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::ApiError;
use leptos::prelude::*;

/// How many quiet polls pass between two asks while no run is pending or running (15 s).
const QUIET_POLL_TICKS: u32 = 5;
/// How many polls after "Run now" ask at the active pace although no run shows yet (30 s): a
/// backend that records the run after answering (Omnigent) shows it within a poll.
pub(super) const AFTER_RUN_NOW_TICKS: u32 = 10;

/// The runs as last loaded (the last answer stays on screen while the next refresh runs),
/// refreshed every [`ACTIVE_RUN_POLL`] while a run is pending or running or `hurry` (polls
/// left, set by "Run now") is not spent, and every [`QUIET_POLL_TICKS`] polls otherwise (a run
/// the schedule or an event started shows up).
pub(super) fn follow_runs(
    runs: LocalResource<Result<RunPage, ApiError>>,
    runs_tick: RwSignal<u32>,
    hurry: RwSignal<u32>,
) -> RwSignal<Option<Result<RunPage, ApiError>>> {
    let shown_runs = RwSignal::new(None::<Result<RunPage, ApiError>>);
    Effect::new(move |_| {
        if let Some(r) = runs.get() {
            shown_runs.set(Some(r));
        }
    });
    // Runs also start without this page (the schedule, an event): asked every fifth tick
    // otherwise.
    let quiet_ticks = std::cell::Cell::new(0u32);
    every(ACTIVE_RUN_POLL, move || {
        let running = shown_runs.with_untracked(|r| matches!(r, Some(Ok(p)) if p.has_active()));
        let hurrying = hurry.get_untracked() > 0;
        if hurrying {
            hurry.set(if running {
                0
            } else {
                hurry.get_untracked() - 1
            });
        }
        let active = running || hurrying;
        quiet_ticks.set(if active { 0 } else { quiet_ticks.get() + 1 });
        if active || quiet_ticks.get() >= QUIET_POLL_TICKS {
            quiet_ticks.set(0);
            runs_tick.update(|t| *t = t.wrapping_add(1));
        }
    });
    shown_runs
}

/// The runs: counts, the list and its pager (the last answer while the next one loads).
pub(super) fn runs_section(
    shown_runs: RwSignal<Option<Result<RunPage, ApiError>>>,
    offset: RwSignal<u64>,
    runs_tick: RwSignal<u32>,
    backends: BackendsCtx,
    about: Option<Automation>,
) -> AnyView {
    let Some(result) = shown_runs.get() else {
        return view! { <p class="loading">{t!("automations.runs.loading")}</p> }.into_any();
    };
    match result {
        Err(e) if service_missing(&e) => ().into_any(),
        Err(ApiError::NotFound) => ().into_any(),
        Err(e) => view! { <p class="field-error" role="alert">{t!("automations.runs.load_error", error = e.said())}</p> }.into_any(),
        Ok(p) if p.runs.is_empty() && offset.get_untracked() == 0 => view! {
            <p class="muted" data-testid="runs-empty">{t!("automations.runs.empty")}</p>
        }
        .into_any(),
        Ok(p) => {
            let counts = p
                .status_count_texts()
                .iter()
                .map(say)
                .collect::<Vec<_>>()
                .join(" · ");
            let start = offset.get_untracked();
            let shown = p.runs.len() as u64;
            let total = p.total;
            let active = backends.active.get_untracked();
            let rows = p
                .runs
                .into_iter()
                .map(|r| view! { <RunRow run=r active=active.clone() refresh=runs_tick about=about.clone() /> })
                .collect_view();
            view! {
                <p class="muted" data-testid="run-counts">{tn!("automations.runs.count", total, counts = counts)}</p>
                <ul class="run-list" data-testid="run-list">{rows}</ul>
                {pager(offset, start, shown, total, u64::from(svc::RUNS_PAGE))}
            }
            .into_any()
        }
    }
}

#[component]
fn RunRow(
    run: Run,
    active: ActiveBackend,
    refresh: RwSignal<u32>,
    about: Option<Automation>,
) -> impl IntoView {
    let backends = use_backends();
    let go = crate::links::use_go();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let run_id = run.id.clone();
    let cancel = Action::new_local(move |_: &()| {
        let id = run_id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::cancel(backends, &active, &id).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(_) => refresh.update(|t| *t = t.wrapping_add(1)),
                Err(e) => {
                    error.set(Some(say(&cancel_error_text(&e))));
                    refresh.update(|t| *t = t.wrapping_add(1));
                }
            }
        }
    });
    let started = run.started_at.as_deref().and_then(iso_secs);
    let ended = run.completed_at.as_deref().and_then(iso_secs);
    let time = local_time(&run.created_at);
    let source = run
        .trigger_source
        .clone()
        .unwrap_or_else(|| t!("automations.run.manual"));
    let when = match (started, ended) {
        (Some(s), Some(e)) => t!(
            "automations.run.when_took",
            time = time,
            source = source,
            span = say(&format_span_text(e - s))
        ),
        (Some(s), None) => t!(
            "automations.run.when_running",
            time = time,
            source = source,
            span = say(&format_span_text(now_secs() - s))
        ),
        _ => t!("automations.run.when", time = time, source = source),
    };
    let conversation = run.conversation_id.clone().map(|cid| {
        let link = pinned(&conversation_path(&cid), &active);
        view! { <a href=link data-testid="run-conversation">{t!("automations.run.open_conversation")}</a> }
    });
    let still_going =
        run.status == canvas_core::automation::RunStatus::Cancelled && started.is_some();
    // Only the automation service cancels a run.
    let cancellable = run.status.is_active() && svc::has_service(backends, &active);
    let detail = match (&run.final_message, &run.error_detail) {
        (Some(m), _) => Some((t!("automations.run.final_answer"), m.clone(), "run-answer")),
        (None, Some(e)) => Some((t!("automations.run.error"), e.clone(), "run-error")),
        _ => None,
    };
    let phase = run.current_phase.clone().filter(|_| run.status.is_active());
    // A failed run: a new conversation that starts from what went wrong.
    let debug = about
        .filter(|_| run.status == canvas_core::automation::RunStatus::Failed)
        .map(|a| {
            let (run, active) = (run.clone(), active.clone());
            let home = pinned("/", &active);
            view! {
                <button type="button" class="btn small" data-testid="debug-run" on:click=move |_| {
                    match svc::debug_run(&active, &a, &run) {
                        Ok(()) => go(&home, false),
                        Err(e) => error.set(Some(e.said())),
                    }
                }>{t!("automations.run.debug")}</button>
            }
        });
    view! {
        <li class="run-row" data-testid="run-row" data-run-id=run.id.clone() data-status=run.status.label().to_string()>
            <div class="run-main">
                {run_badge(&run)}
                <span class="muted">{when}</span>
                {conversation}
                {cancellable.then(|| view! {
                    <button type="button" class="btn small danger" data-testid="cancel-run"
                        disabled=move || busy.get()
                        on:click=move |_| { busy.set(true); error.set(None); cancel.dispatch(()); }>
                        {move || if busy.get() { t!("automations.cancelling") } else { t!("automations.cancel") }}
                    </button>
                })}
            </div>
            {phase.map(|p| view! { <p class="muted run-phase" data-testid="run-phase">{p}</p> })}
            {detail.map(|(label, text, testid)| view! {
                <p class="run-detail" data-testid=testid><strong>{format!("{label} ")}</strong>{text}</p>
            })}
            {still_going.then(|| view! {
                <p class="muted" data-testid="run-cancel-note">
                    {t!("automations.run.cancel_note")}
                </p>
            })}
            {debug}
            <p class="field-error" role="alert" hidden=move || error.get().is_none()>{move || error.get().unwrap_or_default()}</p>
        </li>
    }
}
