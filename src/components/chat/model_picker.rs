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
    let on_agent_model = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        if !id.is_empty() {
            tools.run(ToolOp::SwitchAgentModel(id));
        }
    };
    view! {
        <Show when=acp>
            <select class="model-picker" data-testid="agent-model-picker"
                aria-label=t!("chat.model.switch_label")
                data-model=move || agent_models.with(|m| m.as_ref().and_then(|m| m.current.clone()).unwrap_or_default())
                disabled=move || busy.get()
                prop:value=move || agent_models.with(|m| m.as_ref().and_then(|m| m.current.clone()).unwrap_or_default())
                on:change=on_agent_model>
                {move || agent_models.get().map(|m| m.models.into_iter().map(|x| {
                    let label = x.label().to_string();
                    view! { <option value=x.id data-testid="agent-model-option">{label}</option> }
                }).collect_view())}
            </select>
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
