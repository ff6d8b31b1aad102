//! Step 2: the agent that runs new conversations — the backend's agent profiles (the active one
//! chosen; choosing another makes it active on the server), or OpenHands where there are none.
//! ACP agents (Claude Code, Codex, Gemini CLI) are added in Settings → Agents.

use super::Setup;
use crate::links::href;
use crate::services::agents::{self, AgentAction};
use crate::services::setup;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use crate::state::i18n::{t, Said};
use canvas_core::settings::agents::AgentProfileList;
use canvas_core::setup::steps::{Outcome, Step};
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub(super) fn AgentStep(ctx: Setup) -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        let active = backends.active.get();
        reload.track();
        async move { agents::profiles(backends, &active).await }
    });
    let error = RwSignal::new(None::<String>);
    let choose = Action::new_local(move |(name, id): &(String, String)| {
        let (name, id) = (name.clone(), id.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = agents::act(backends, &active, &name, &id, AgentAction::Activate).await;
            error.set(
                r.as_ref()
                    .err()
                    .map(|e| t!("setup.agent.error", error = e.said())),
            );
            reload.update(|r| *r += 1);
            setup::changed();
        }
    });
    let body = move || match list.get() {
        None => view! { <p class="muted" role="status">{t!("setup.agent.loading")}</p> }.into_any(),
        Some(Err(e)) if not_available(&e) => {
            view! { <p data-testid="setup-agent-own">{t!("setup.agent.own")}</p> }.into_any()
        }
        Some(Err(e)) => view! { <p class="error" role="alert">{e.said()}</p> }.into_any(),
        Some(Ok(l)) => choices(l, choose).into_any(),
    };
    view! {
        <p>{t!("setup.agent.intro")}</p>
        {body}
        {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="setup-agent-error">{e}</p> })}
        <p class="muted">{t!("setup.agent.acp_hint")}" "
            <A href=href("/settings/agents") attr:data-testid="setup-agents-link">{t!("setup.agent.open_settings")}</A>
        </p>
        <div class="form-actions">
            <button type="button" class="btn primary" data-testid="setup-continue"
                disabled=move || choose.pending().get()
                on:click=move |_| ctx.end(Step::Agent, Outcome::Done)>{t!("setup.next")}</button>
        </div>
    }
}

/// The profiles as a choice (OpenHands alone where there are none).
fn choices(l: AgentProfileList, choose: Action<(String, String), ()>) -> impl IntoView {
    let rows = l
        .profiles
        .iter()
        .filter_map(|p| {
            p.id.clone()
                .map(|id| (p.name.clone(), id, p.kind.key().to_string(), l.is_active(p)))
        })
        .collect::<Vec<_>>();
    let none = rows.is_empty();
    view! {
        <fieldset class="setup-choices" data-testid="setup-agents" disabled=move || choose.pending().get()>
            <legend class="visually-hidden">{t!("setup.step.agent")}</legend>
            {none.then(|| view! {
                <label class="check"><input type="radio" name="setup-agent" checked data-testid="setup-agent-openhands" />
                    {t!("setup.agent.openhands")}</label>
            })}
            {rows.into_iter().map(|(name, id, kind, active)| {
                let pick = (name.clone(), id);
                let data_name = name.clone();
                view! {
                    <label class="check" data-testid="setup-agent" data-name=data_name>
                        <input type="radio" name="setup-agent" checked=active
                            on:change=move |_| { choose.dispatch(pick.clone()); } />
                        <span>{name}</span>" "<span class="badge">{kind}</span>
                    </label>
                }
            }).collect_view()}
        </fieldset>
    }
}
