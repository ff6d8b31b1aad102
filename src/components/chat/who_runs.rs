//! Who runs a conversation (issue #35), in its header: the agent profile that launched it, the
//! conversation that started it (a child links back to its parent) and the ones it started.
//! Asked when the page opens and each time the agent stops (it may have started a child, and
//! an ACP agent reports its models once its session started: they go to the composer's picker).

use crate::components::chat::tools::ConversationTools;
use crate::links::{conversation_path, href};
use crate::services::conversation_tools as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::ConversationRef;
use canvas_core::conversations::live::events::ExecutionStatus;
use leptos::prelude::*;

#[component]
pub fn WhoRuns(
    active: ActiveBackend,
    conv: ConversationRef,
    status: RwSignal<ExecutionStatus>,
    tools: ConversationTools,
) -> impl IntoView {
    let backends = use_backends();
    let who = RwSignal::new(svc::WhoShown::default());
    let running = Memo::new(move |_| status.with(|s| *s == ExecutionStatus::Running));
    Effect::new(move |_| {
        if running.get() {
            return;
        }
        let (active, conv) = (active.clone(), conv.clone());
        leptos::task::spawn_local(async move {
            let Some(agent) = svc::conversation_agent(backends, &active, &conv).await else {
                return;
            };
            if agent.models.is_some() {
                tools.agent_models.try_set(agent.models.clone());
            }
            let now = svc::who_runs(backends, &active, &agent).await;
            who.try_set(now);
        });
    });
    let link = |(id, title): (String, String), testid: &'static str| {
        view! { <a href=href(&conversation_path(&id)) data-testid=testid data-id=id.clone()>{title}</a> }
    };
    view! {
        <span class="muted who-runs" data-testid="who-runs">
            {move || who.get().profile.map(|p| view! {
                <span data-testid="conversation-agent">{t!("conversation.agent", name = p)}</span>
            })}
            {move || who.get().acp_agent.map(|a| view! {
                <span data-testid="conversation-agent">{t!("conversation.acp_agent", name = a)}</span>
            })}
            {move || who.get().forked_from.map(|p| view! {
                <span>{t!("conversation.forked_from")}" "{link(p, "forked-from-link")}</span>
            })}
            {move || who.get().parent.map(|p| view! {
                <span>{t!("conversation.parent")}" "{link(p, "parent-link")}</span>
            })}
            {move || {
                let children = who.get().children;
                (!children.is_empty()).then(|| view! {
                    <span>{t!("conversation.children")}" "
                        {children.into_iter().map(|c| view! { {link(c, "child-link")}" " }).collect_view()}
                    </span>
                })
            }}
        </span>
    }
}
