//! Switching the conversation's LLM mid-conversation (issue #15): the composer bar's picker of
//! the backend's LLM profiles (`switch_profile`, like `/model <profile>`), or of an ACP agent's
//! own models where the server switches them live (`switch_acp_model`, issue #35), and the
//! timeline's markers where a switch happened.

use crate::components::chat::tools::{ConversationTools, ToolOp};
use crate::services::conversation_tools::profile_choices;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::settings::profiles::ProfileInfo;
use leptos::html;
use leptos::prelude::*;

/// The option that opens the field for any model name (no model is named so: names start
/// with a letter or digit).
const OTHER: &str = "…other";

/// The current model and a choice of the backend's LLM profiles; hidden where the backend has
/// none. Choosing one switches the conversation to it from the next step on.
#[component]
pub fn ModelPicker(tools: ConversationTools, active: ActiveBackend) -> impl IntoView {
    let backends = use_backends();
    let profiles = RwSignal::new(Vec::<ProfileInfo>::new());
    // An action, not a resource: the page's `Suspense` must not fall back while it loads.
    let load = Action::new_local(move |_: &()| {
        let active = active.clone();
        async move {
            profiles.try_set(profile_choices(backends, &active).await);
        }
    });
    load.dispatch(());
    let select = NodeRef::<html::Select>::new();
    let busy = tools.busy();
    let model = tools.model;
    let on_change = move |ev: leptos::ev::Event| {
        let name = event_target_value(&ev);
        if let Some(el) = select.get_untracked() {
            el.set_value("");
        }
        if !name.is_empty() {
            tools.run(ToolOp::SwitchProfile(name));
        }
    };
    // An ACP agent's own models, where the server switches among them live (issue #35); its
    // LLM profiles do not apply to it.
    let agent_models = tools.agent_models;
    let acp = move || agent_models.with(|m| m.as_ref().is_some_and(|m| m.runtime_switch));
    // Where any model name may be asked for (Omnigent), the list only suggests: "Other
    // model…" opens a field for a name.
    let any_model = move || agent_models.with(|m| m.as_ref().is_some_and(|m| m.any_model));
    let other = RwSignal::new(false);
    let typed = RwSignal::new(String::new());
    let on_agent_model = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        if id == OTHER {
            other.set(true);
            return;
        }
        other.set(false);
        if !id.is_empty() {
            tools.run(ToolOp::SwitchAgentModel(id));
        }
    };
    let current = move || {
        agent_models.with(|m| {
            m.as_ref()
                .and_then(|m| m.current.clone())
                .unwrap_or_default()
        })
    };
    let on_other = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let name = typed.get_untracked().trim().to_string();
        if !name.is_empty() {
            tools.run(ToolOp::SwitchAgentModel(name));
        }
    };
    // The field closes once the conversation runs the name typed there; a refused name stays
    // to be corrected (the refusal is the tools' notice).
    Effect::new(move |_| {
        let now = current();
        if other.get_untracked() && !now.is_empty() && typed.with_untracked(|t| t.trim() == now) {
            other.set(false);
            typed.set(String::new());
        }
    });
    view! {
        <Show when=acp>
            <select class="model-picker" data-testid="agent-model-picker"
                aria-label=t!("chat.model.switch_label")
                data-model=current
                disabled=move || busy.get()
                prop:value=move || if other.get() { OTHER.to_string() } else { current() }
                on:change=on_agent_model>
                {move || agent_models.get().map(|m| {
                    let any = m.any_model;
                    let listed = m.models.into_iter().map(|x| {
                        // An alias for the agent's own model says which it is.
                        let label = match (x.id.as_str(), &x.name) {
                            ("default", Some(name)) if any => t!("chat.model.agent_default", model = name.clone()),
                            _ => x.label().to_string(),
                        };
                        view! { <option value=x.id data-testid="agent-model-option">{label}</option> }
                    }).collect_view();
                    view! {
                        {listed}
                        {any.then(|| view! { <option value=OTHER data-testid="agent-model-other">{t!("chat.model.other")}</option> })}
                    }
                })}
            </select>
            <Show when=move || any_model() && other.get()>
                <form class="model-other" data-testid="agent-model-form" on:submit=on_other>
                    <input class="model-other-input" data-testid="agent-model-input"
                        aria-label=t!("chat.model.other_label")
                        placeholder=t!("chat.model.other_placeholder")
                        autocomplete="off" spellcheck="false"
                        prop:value=move || typed.get()
                        on:input=move |ev| typed.set(event_target_value(&ev))
                        on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" { other.set(false); } />
                    <button type="submit" class="btn small" data-testid="agent-model-switch"
                        disabled=move || busy.get() || typed.with(|t| t.trim().is_empty())>{t!("chat.model.switch")}</button>
                </form>
            </Show>
        </Show>
        <Show when=move || {
            agent_models.with(Option::is_none)
                && model.with(|m| m.as_deref() != Some(canvas_core::settings::agents::ACP_MANAGED_MODEL))
                && profiles.with(|p| !p.is_empty())
        }>
            <select class="model-picker" data-testid="model-picker" node_ref=select
                aria-label=t!("chat.model.switch_label")
                title=t!("chat.model.switch_hint")
                data-model=move || model.get().unwrap_or_default()
                disabled=move || busy.get()
                on:change=on_change>
                <option value="" selected>
                    {move || model.get().map_or_else(|| t!("chat.model.choose"), |m| t!("chat.model.current", model = m))}
                </option>
                <For each=move || profiles.get() key=|p| p.name.clone() let:p>
                    <option value=p.name.clone() data-testid="model-option">
                        {match &p.model {
                            Some(m) => format!("{} · {m}", p.name),
                            None => p.name.clone(),
                        }}
                    </option>
                </For>
            </select>
        </Show>
    }
}

/// The switches recorded after the timeline item `after` (`None`: before the first item).
#[component]
pub fn SwitchMarkers(tools: ConversationTools, after: Option<String>) -> impl IntoView {
    let switches = tools.switches;
    move || {
        switches.with(|all| {
            all.iter()
                .filter(|s| s.after == after)
                .map(|s| {
                    view! {
                        <li class="timeline-item llm-switch" data-testid="llm-switch"
                            data-profile=s.profile.clone() role="note">
                            <div class="divider">{crate::state::i18n::say(&s.label_text())}</div>
                        </li>
                    }
                })
                .collect_view()
        })
    }
}
