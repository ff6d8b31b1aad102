//! Planner tab (issue #36): the working directory's `PLAN.md` — the plan the agent keeps —
//! rendered as safe Markdown, read again every few seconds while the tab is open so the agent's
//! edits show up (like the Changes tab). Says plainly when there is no plan yet.

use super::{InlineError, PanelProps};
use crate::components::chat::markdown::Markdown;
use crate::platform::time::every;
use crate::services::workspace;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::client::service::WorkspaceFile;
use canvas_core::error::ApiError;
use leptos::prelude::*;
use std::time::Duration;

/// The plan's file, in the working directory.
pub const PLAN_FILE: &str = "PLAN.md";
const REFRESH: Duration = Duration::from_secs(3);

#[component]
pub(crate) fn PlannerTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let PanelProps { conv, root, .. } = props;
    let plan = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, root) = (conv.clone(), root.clone());
        async move {
            match workspace::read(backends, &active, &conv, root.as_deref(), PLAN_FILE).await {
                Ok(WorkspaceFile::Text(text)) => Ok(Some(text)),
                Ok(WorkspaceFile::Bytes(bytes)) => {
                    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
                }
                Err(ApiError::NotFound) => Ok(None),
                Err(e) => Err(e),
            }
        }
    });
    every(REFRESH, move || plan.refetch());
    view! {
        <section class="ws-planner" data-testid="planner">
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.loading")}</p> }>
                {move || plan.get().map(|r| match r {
                    Ok(Some(text)) => view! {
                        <div class="planner-plan" data-testid="planner-plan"><Markdown text=text /></div>
                    }.into_any(),
                    Ok(None) => view! {
                        <p class="ws-muted" data-testid="planner-empty">{t!("workspace.planner.none", file = PLAN_FILE)}</p>
                    }.into_any(),
                    Err(e) => view! { <InlineError message=e.said() testid="planner-error" /> }.into_any(),
                })}
            </Transition>
        </section>
    }
}
