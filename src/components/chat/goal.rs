//! Goals (issue #36): the form that starts one (the `⋯` menu's "Work toward a goal…"; `/goal
//! <objective>` starts one with the default rounds), and the header's line for the newest goal
//! update of the timeline — its round and state, with Stop while it runs and Resume once it was
//! interrupted (`canvas_core::conversations::live::goal`).

use super::tools::{ConversationTools, ToolOp};
use crate::state::events::Row;
use crate::state::i18n::{say, t};
use canvas_core::conversations::live::events::ItemKind;
use canvas_core::conversations::live::goal::{parse_rounds, GoalState, DEFAULT_ROUNDS, MAX_ROUNDS};
use leptos::prelude::*;

/// The newest goal update among `rows` (`None`: no goal in the timeline).
fn newest_goal(rows: &[Row]) -> Option<GoalState> {
    rows.iter().rev().find_map(|r| match &r.item.kind {
        ItemKind::Goal(g) => Some((**g).clone()),
        _ => None,
    })
}

/// The header's goal line and its Stop / Resume.
#[component]
pub fn GoalControl(rows: RwSignal<Vec<Row>>, tools: ConversationTools) -> impl IntoView {
    let goal = Memo::new(move |_| rows.with(|r| newest_goal(r)));
    let busy = tools.busy();
    move || {
        goal.get().map(|g| {
            let stop = g.can_stop().then(|| view! {
                <button type="button" class="btn small" data-testid="goal-stop"
                    disabled=move || busy.get()
                    on:click=move |_| tools.run(ToolOp::StopGoal)>{t!("chat.goal.stop")}</button>
            });
            let resume = g.can_resume().then(|| view! {
                <button type="button" class="btn small" data-testid="goal-resume"
                    disabled=move || busy.get()
                    on:click=move |_| tools.run(ToolOp::ResumeGoal)>{t!("chat.goal.resume")}</button>
            });
            view! {
                <span class="goal-state" data-testid="goal-state" data-goal-status=g.status.token().to_string()
                    data-goal-round=g.iteration.to_string() title=g.objective.clone()>
                    <span>{say(&g.header_text())}</span>
                    {stop}
                    {resume}
                </span>
            }
        })
    }
}

/// The form that starts a goal: what it is for and how many rounds.
#[component]
pub fn GoalForm(tools: ConversationTools) -> impl IntoView {
    let objective = RwSignal::new(String::new());
    let rounds = RwSignal::new(DEFAULT_ROUNDS.to_string());
    let error = RwSignal::new(None::<String>);
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        let text = objective.get_untracked().trim().to_string();
        if text.is_empty() {
            error.set(Some(t!("chat.goal.needs_objective")));
            return;
        }
        let Some(n) = parse_rounds(&rounds.get_untracked()) else {
            error.set(Some(t!("chat.goal.bad_rounds", max = MAX_ROUNDS)));
            return;
        };
        error.set(None);
        tools.run(ToolOp::StartGoal(text, n));
    };
    view! {
        // `novalidate`: the form says what is wrong in its own words.
        <form class="ask-answer goal-form" data-testid="goal-form" novalidate on:submit=submit>
            <p><strong>{t!("chat.goal.title")}</strong></p>
            <p class="muted">{t!("chat.goal.explain")}</p>
            <label class="field">
                <span>{t!("chat.goal.objective")}</span>
                <textarea data-testid="goal-objective" rows="3" autofocus
                    prop:value=move || objective.get()
                    on:input=move |ev| objective.set(event_target_value(&ev))></textarea>
            </label>
            <label class="field">
                <span>{t!("chat.goal.rounds")}</span>
                <input type="number" data-testid="goal-rounds" min="1" max=MAX_ROUNDS.to_string()
                    prop:value=move || rounds.get()
                    on:input=move |ev| rounds.set(event_target_value(&ev)) />
            </label>
            <p class="field-error" role="alert" data-testid="goal-error" hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" on:click=move |_| tools.notice.set(None)>{t!("common.cancel")}</button>
                <button type="submit" class="btn primary" data-testid="goal-start">{t!("chat.goal.start")}</button>
            </div>
        </form>
    }
}
