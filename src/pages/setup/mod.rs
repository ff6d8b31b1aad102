//! `/setup` (issue #37): the guided setup — the backend, the agent, the LLM (tested by the
//! server before going on), then "Say hello": a first conversation that must come back with an
//! answer before the setup calls itself done. `?step=` names the step on screen; what was typed
//! is kept per backend in this browser (never the API key), so a reload resumes where it was.

mod agent;
mod hello;
mod llm;

use crate::components::backends::{use_backends_ui, BackendDialog};
use crate::links::href;
use crate::services::setup;
use crate::state::backends::use_backends;
use crate::state::connection::{use_connection, Connection};
use crate::state::i18n::{say, t, Said};
use canvas_core::setup::steps::{Draft, Outcome, Step, STEPS};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// The setup's draft and how to change it (each change is saved at once).
#[derive(Clone, Copy)]
pub(crate) struct Setup {
    pub draft: RwSignal<Draft>,
    backend_id: Memo<String>,
    save_error: RwSignal<Option<String>>,
    /// What the last step did (shown above the next one).
    pub note: RwSignal<Option<String>>,
    go: StoredValue<std::rc::Rc<dyn Fn(Step)>, LocalStorage>,
}

impl Setup {
    /// Changes the draft and saves it.
    pub fn edit(self, f: impl FnOnce(&mut Draft)) {
        self.draft.update(f);
        let r = self
            .draft
            .with_untracked(|d| setup::save_draft(&self.backend_id.get_untracked(), d));
        self.save_error
            .set(r.err().map(|e| t!("setup.save_error", error = e.said())));
    }

    /// Shows `step`.
    pub fn show(self, step: Step) {
        self.note.set(None);
        self.edit(|d| d.step = Some(step));
        (self.go.get_value())(step);
    }

    /// Ends `step` and shows the next one.
    pub fn end(self, step: Step, outcome: Outcome) {
        self.edit(|d| d.end(step, outcome));
        let next = self.draft.with_untracked(Draft::current);
        (self.go.get_value())(next);
    }
}

#[component]
pub fn SetupPage() -> impl IntoView {
    let backends = use_backends();
    let backend_id = Memo::new(move |_| backends.active.with(|a| a.backend.id.clone()));
    let reread = RwSignal::new(0u32);
    let loaded = Memo::new(move |_| {
        reread.track();
        setup::draft(&backend_id.get()).map_err(|e| e.said())
    });
    let name = move || backends.active.with(|a| a.backend.name.clone());
    // The checklist hidden from the sidebar comes back from here.
    let dismissed = move || {
        setup::track_changes();
        setup::shown(&backend_id.get()).is_ok_and(|s| s.dismissed)
    };
    let show_checklist = move |_| {
        let _ = setup::save_shown(&backend_id.get_untracked(), Default::default());
        setup::changed();
    };
    view! {
        <section class="page setup-page" data-testid="setup">
            <header class="page-header"><h1>{t!("setup.title")}</h1></header>
            <p class="muted">{move || t!("setup.intro", backend = name())}</p>
            {move || dismissed().then(|| view! {
                <p><button type="button" class="btn small" data-testid="checklist-show" on:click=show_checklist>
                    {t!("checklist.show_again")}
                </button></p>
            })}
            {move || match loaded.get() {
                Err(e) => view! {
                    <div class="error" role="alert" data-testid="setup-corrupt">
                        <p>{t!("setup.corrupt", error = e)}</p>
                        <button type="button" class="btn" data-testid="setup-start-over" on:click=move |_| {
                            let _ = setup::clear_draft(&backend_id.get_untracked());
                            reread.update(|r| *r += 1);
                        }>{t!("setup.start_over")}</button>
                    </div>
                }.into_any(),
                Ok(d) => view! { <Steps draft=d backend_id=backend_id /> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn Steps(draft: Draft, backend_id: Memo<String>) -> impl IntoView {
    let query = use_query_map();
    let navigate = crate::links::use_go();
    let go: std::rc::Rc<dyn Fn(Step)> = std::rc::Rc::new(move |s: Step| {
        navigate(&href(&format!("/setup?step={}", s.key())), true);
    });
    let ctx = Setup {
        draft: RwSignal::new(draft),
        backend_id,
        save_error: RwSignal::new(None),
        note: RwSignal::new(None),
        go: StoredValue::new_local(go),
    };
    let step = Memo::new(move |_| {
        query
            .with(|q| q.get("step"))
            .and_then(|s| Step::parse(&s))
            .unwrap_or_else(|| ctx.draft.with(Draft::current))
    });
    // The URL's step is the one to come back to.
    Effect::new(move |_| {
        let s = step.get();
        if ctx.draft.with_untracked(|d| d.step != Some(s)) {
            ctx.edit(|d| d.step = Some(s));
        }
    });
    let list = move || {
        let now = step.get();
        STEPS
            .into_iter()
            .map(|s| {
                let state = match ctx.draft.with(|d| d.outcome(s)) {
                    _ if s == now => "current",
                    Some(Outcome::Done) => "done",
                    Some(Outcome::Skipped) => "skipped",
                    None => "todo",
                };
                let words = match state {
                    "current" => Some(t!("setup.state.current")),
                    "done" => Some(t!("setup.state.done")),
                    "skipped" => Some(t!("setup.state.skipped")),
                    _ => None,
                };
                view! {
                    <li data-testid="setup-step" data-step=s.key() data-state=state>
                        <button type="button" class="setup-step" aria-current=(s == now).then_some("step")
                            on:click=move |_| ctx.show(s)>
                            <span class="setup-step-number" aria-hidden="true">{s.number()}</span>
                            <span>{say(&s.title())}</span>
                            {words.map(|w| view! { <span class="visually-hidden">" ("{w}")"</span> })}
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <ol class="setup-steps" aria-label=t!("setup.steps_label")>{list}</ol>
        <div class="setup-body" data-testid="setup-body" data-step=move || step.get().key()>
            <h2 id="setup-step-title">
                {move || {
                    let s = step.get();
                    t!("setup.step_of", n = s.number(), total = STEPS.len(), step = say(&s.title()))
                }}
            </h2>
            {move || ctx.note.get().map(|n| view! { <p class="ok-note" role="status" data-testid="setup-note">{n}</p> })}
            {move || match step.get() {
                Step::Backend => backend_step(ctx).into_any(),
                Step::Agent => view! { <agent::AgentStep ctx=ctx /> }.into_any(),
                Step::Llm => view! { <llm::LlmStep ctx=ctx /> }.into_any(),
                Step::Hello => view! { <hello::HelloStep ctx=ctx /> }.into_any(),
            }}
            {move || ctx.save_error.get().map(|e| view! { <p class="error" role="alert" data-testid="setup-save-error">{e}</p> })}
            <div class="form-actions setup-nav">
                {move || step.get().previous().map(|p| view! {
                    <button type="button" class="btn" data-testid="setup-back" on:click=move |_| ctx.show(p)>{t!("setup.back")}</button>
                })}
                {move || {
                    let s = step.get();
                    (s != Step::Hello).then(|| view! {
                        <button type="button" class="btn ghost" data-testid="setup-skip"
                            on:click=move |_| ctx.end(s, Outcome::Skipped)>{t!("setup.skip")}</button>
                    })
                }}
            </div>
        </div>
    }
}

/// Step 1: the backend conversations run on, and whether it answers.
fn backend_step(ctx: Setup) -> impl IntoView {
    let backends = use_backends();
    let conn = use_connection();
    let ui = use_backends_ui();
    let who = move || {
        backends.active.with(|a| {
            t!(
                "setup.backend.intro",
                name = a.backend.name,
                host = a.backend.host
            )
        })
    };
    let state = move || {
        match conn.state() {
        Connection::Connected(_) => view! {
            <p class="ok-note" role="status" data-testid="setup-backend-state" data-state="connected">{t!("setup.backend.connected")}</p>
        }
        .into_any(),
        Connection::Checking => view! {
            <p class="muted" role="status" data-testid="setup-backend-state" data-state="checking">{t!("setup.backend.checking")}</p>
        }
        .into_any(),
        Connection::Failed { message, .. } => view! {
            <p class="error" role="alert" data-testid="setup-backend-state" data-state="failed">{t!("setup.backend.failed", error = message)}</p>
        }
        .into_any(),
    }
    };
    let connected = move || matches!(conn.state(), Connection::Connected(_));
    view! {
        <p data-testid="setup-backend">{who}</p>
        {state}
        <p class="muted">{t!("setup.backend.other")}</p>
        <div class="form-actions">
            <button type="button" class="btn" data-testid="setup-add-backend"
                on:click=move |_| ui.open(BackendDialog::Add)>{t!("setup.backend.add")}</button>
            <button type="button" class="btn primary" data-testid="setup-continue" disabled=move || !connected()
                on:click=move |_| ctx.end(Step::Backend, Outcome::Done)>{t!("setup.next")}</button>
        </div>
    }
}

crate::lazy::lazy_view! {
    /// `/setup`.
    pub fn setup_page() in setup, preload preload_setup {
        view! { <crate::pages::setup::SetupPage /> }
    }
}
