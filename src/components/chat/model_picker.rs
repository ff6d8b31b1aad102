//! Switching the conversation's LLM mid-conversation (issue #15): the composer bar's picker of
//! the backend's LLM profiles (`switch_profile`, like `/model <profile>`), and the timeline's
//! markers where a switch happened.

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
    view! {
        <Show when=move || profiles.with(|p| !p.is_empty())>
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
