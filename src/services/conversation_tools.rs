//! What a user does with an open conversation beyond chatting (issue #15): export its
//! transcript, download the server's trajectory, fork it, condense it, switch its LLM profile,
//! ask the agent a side question. Errors come back typed (`ActionError`); the view says them.

use crate::links::{conversation_path, pinned};
use crate::platform::download;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::{EventQuery, MAX_PAGE_LIMIT};
use canvas_core::client::{Client, Planned};
use canvas_core::client::{ConversationRef, SendPlanned};
use canvas_core::conversations::chat::export::{
    export_file_name, transcript_json, transcript_markdown, TranscriptMeta,
};
use canvas_core::conversations::chat::slash::ExportFormat;
use canvas_core::conversations::live::events::Timeline;
use canvas_core::conversations::live::goal::goal_error;
use canvas_core::error::{ActionError, ApiError};
use canvas_core::i18n::english::{message, MessageRef};
use canvas_core::i18n::Text;
use serde_json::Value;

/// More than this many pages (100 events each) is not a transcript anyone downloads.
const MAX_EXPORT_PAGES: usize = 2_000;

/// Plans one call on the active backend's conversation tools and sends it.
pub(crate) async fn with_tools<T: 'static>(
    backends: BackendsCtx,
    active: &ActiveBackend,
    plan: impl FnOnce(&Client) -> Planned<T>,
) -> Result<T, ApiError> {
    client(backends, active).call(plan).await
}

/// Every stored event of `conv`, oldest first.
async fn all_events(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<Vec<Value>, ActionError> {
    let c = client(backends, active);
    let mut events = Vec::new();
    let mut page_id = None;
    for _ in 0..MAX_EXPORT_PAGES {
        let query = EventQuery {
            page_id: page_id.take(),
            limit: MAX_PAGE_LIMIT,
            newest_first: false,
            ..EventQuery::default()
        };
        let page = c.api.search_events(conv, &query).send(&c.transport).await?;
        events.extend(page.items.into_iter().map(|e| e.0));
        match page.next_page_id {
            Some(next) if !next.is_empty() => page_id = Some(next),
            _ => return Ok(events),
        }
    }
    const TOO_LONG: MessageRef = message("error.export_too_long");
    Err(ActionError::Refused(Text::new(TOO_LONG)))
}

/// Downloads the transcript of `conv` as Markdown or JSON; answers the file's name.
pub async fn export(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    title: &str,
    format: ExportFormat,
) -> Result<String, ActionError> {
    let events = all_events(backends, active, conv).await?;
    let meta = TranscriptMeta {
        title: title.to_string(),
        conversation_id: conv.id.clone(),
        backend_label: active.backend.name.clone(),
        exported_at: String::from(js_sys::Date::new_0().to_iso_string()),
    };
    let (ext, mime, text) = match format {
        ExportFormat::Markdown => {
            let mut timeline = Timeline::new();
            timeline.apply_page(events);
            (
                "md",
                "text/markdown;charset=utf-8",
                transcript_markdown(&meta, timeline.items()),
            )
        }
        ExportFormat::Json => ("json", "application/json", transcript_json(&meta, &events)),
    };
    let name = export_file_name(title, &conv.id, ext);
    download::save(&name, mime, text.as_bytes()).map_err(ActionError::Refused)?;
    Ok(name)
}

/// Downloads the server's trajectory of `conv` (a zip); answers the file's name.
pub async fn trajectory(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    title: &str,
) -> Result<String, ActionError> {
    let bytes = with_tools(backends, active, |api| api.download_trajectory(conv)).await?;
    let name = export_file_name(&format!("{title} trajectory"), &conv.id, "zip");
    download::save(&name, "application/zip", &bytes).map_err(ActionError::Refused)?;
    Ok(name)
}

/// Whether `active` can copy a conversation up to one message ("Branch from here").
pub fn branches(backends: BackendsCtx, active: &ActiveBackend) -> bool {
    client(backends, active).api.branches_from_messages()
}

/// Forks `conv` (up to and including event `from`, when given: a branch); answers the fork's
/// page, pinned to this backend.
pub async fn fork(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    title: &str,
    from: Option<&str>,
) -> Result<String, ActionError> {
    let fork_title = format!("{title} (fork)");
    let fork = with_tools(backends, active, |api| {
        api.fork_conversation(conv, Some(&fork_title), from)
    })
    .await?;
    // On a backend that places sessions on machines, the copy runs where its source runs.
    if let Some((host, workspace)) = &conv.runs_on {
        match with_tools(backends, active, |api| {
            api.place_session(&fork.id, host, workspace)
        })
        .await
        {
            Err(e) if !e.is_unsupported() => return Err(e.into()),
            _ => {}
        }
    }
    Ok(pinned(&conversation_path(&fork.id), active))
}

/// Asks the server to condense the history of `conv` now.
pub async fn condense(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<(), ActionError> {
    let c = client(backends, active);
    c.api
        .condense_conversation(conv)
        .send(&c.transport)
        .await
        .map_err(ActionError::from)
}

/// Switches `conv` to the LLM profile `name` (one request), the error in words.
pub async fn use_profile(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    name: &str,
) -> Result<(), ActionError> {
    with_tools(backends, active, |api| api.switch_profile(conv, name))
        .await
        .map_err(|e| match e {
            ApiError::NotFound => {
                const NO_PROFILE: MessageRef = message("error.no_profile_named");
                ActionError::Refused(Text::new(NO_PROFILE).with("name", name))
            }
            e => e.into(),
        })
}

/// Switches `conv` to the LLM profile `name`; answers the model the server then reports for
/// the conversation (`None` when it does not say).
pub async fn switch_profile(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    name: &str,
) -> Result<Option<String>, ActionError> {
    use_profile(backends, active, conv, name).await?;
    let c = client(backends, active);
    Ok(c.api
        .get_conversation(&conv.id)
        .send(&c.transport)
        .await
        .ok()
        .and_then(|s| s.model))
}

/// Who runs the conversation as the server says now (`None`: not readable here).
pub async fn conversation_agent(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Option<canvas_core::settings::agents::ConversationAgent> {
    client(backends, active)
        .call(|api| api.conversation_agent(conv))
        .await
        .ok()
}

/// The backend's agent profiles a new conversation can start with (by id and name).
pub async fn agent_choices(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Result<Vec<canvas_core::conversations::start::launch_options::AgentChoice>, ActionError> {
    let list = crate::services::agents::profiles(backends, active).await?;
    Ok(list.choices())
}

/// What the conversation's agent runs with: tools, MCP servers, skills (from the conversation)
/// and the system prompt (its newest `SystemPromptEvent`; none when it cannot be read).
pub async fn agent_setup(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<canvas_core::settings::agents::AgentSetup, ActionError> {
    let c = client(backends, active);
    let agent = c.call(|api| api.conversation_agent(conv)).await?;
    let query = EventQuery {
        kind: Some("SystemPromptEvent".into()),
        ..EventQuery::newest(1)
    };
    let prompt = c
        .call(|api| api.search_events(conv, &query))
        .await
        .ok()
        .and_then(|page| {
            page.items
                .iter()
                .find_map(|e| canvas_core::settings::agents::system_prompt_text(&e.0))
        });
    // Policies where the backend keeps them (Omnigent); elsewhere the row is left out.
    let policies = c.call(|api| api.conversation_policies(conv)).await.ok();
    Ok(canvas_core::settings::agents::AgentSetup {
        system_prompt: prompt,
        policies,
        ..agent.setup
    })
}

/// What a conversation's header shows of who runs it: the launching profile's name and the
/// linked conversations' (id, title).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WhoShown {
    /// The launching agent profile's name.
    pub profile: Option<String>,
    /// An ACP agent's name (shown when no profile launched it).
    pub acp_agent: Option<String>,
    /// The conversation that started this one.
    pub parent: Option<(String, String)>,
    /// The conversations this one started.
    pub children: Vec<(String, String)>,
    /// The conversation this one was forked or branched from.
    pub forked_from: Option<(String, String)>,
}

/// The names the header shows for [`conversation_agent`]'s answer: the launching profile's
/// name (by its id among the backend's profiles) and the titles of the parent and children
/// (a conversation not readable here is left out).
pub async fn who_runs(
    backends: BackendsCtx,
    active: &ActiveBackend,
    agent: &canvas_core::settings::agents::ConversationAgent,
) -> WhoShown {
    let c = client(backends, active);
    let profile = match &agent.profile_id {
        Some(id) => crate::services::agents::profiles(backends, active)
            .await
            .ok()
            .and_then(|l| l.profiles.into_iter().find(|p| p.id.as_ref() == Some(id)))
            .map(|p| p.name),
        None => None,
    };
    let ids: Vec<&str> = agent
        .parent_id
        .iter()
        .chain(agent.forked_from.iter())
        .chain(agent.children.iter())
        .map(String::as_str)
        .collect();
    let found = if ids.is_empty() {
        Vec::new()
    } else {
        c.call(|api| api.get_conversations(&ids))
            .await
            .unwrap_or_default()
    };
    let named = |id: &str| {
        found
            .iter()
            .flatten()
            .find(|s| s.id == id)
            .map(|s| (s.id.clone(), crate::state::i18n::say(&s.title_text())))
    };
    WhoShown {
        acp_agent: agent.acp_agent.clone().filter(|_| profile.is_none()),
        profile,
        parent: agent.parent_id.as_deref().and_then(named),
        children: agent.children.iter().filter_map(|id| named(id)).collect(),
        forked_from: agent.forked_from.as_deref().and_then(named),
    }
}

/// Switches an ACP conversation's agent to model `id`; the models as the server then says
/// (`None` when it could not be read back).
pub async fn switch_agent_model(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    id: &str,
) -> Result<Option<canvas_core::settings::agents::AgentModels>, ActionError> {
    let c = client(backends, active);
    c.call(|api| api.switch_acp_model(conv, id)).await?;
    Ok(conversation_agent(backends, active, conv)
        .await
        .and_then(|a| a.models))
}

/// The backend's LLM profiles, for the composer's model picker (none where the backend has no
/// profiles or did not answer: the picker then stays hidden).
pub async fn profile_choices(
    backends: BackendsCtx,
    active: &ActiveBackend,
) -> Vec<canvas_core::settings::profiles::ProfileInfo> {
    crate::services::settings::profiles(backends, active)
        .await
        .map(|l| l.profiles)
        .unwrap_or_default()
}

/// Asks the agent `question` without interrupting it; its answer.
pub async fn ask(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    question: &str,
) -> Result<String, ActionError> {
    with_tools(backends, active, |api| api.ask_agent(conv, question))
        .await
        .map_err(ActionError::from)
}

/// Starts a goal on `conv` (issue #36): `objective`, in up to `rounds` judged rounds.
pub async fn start_goal(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    objective: &str,
    rounds: u32,
) -> Result<(), ActionError> {
    with_tools(backends, active, |api| {
        api.start_goal(conv, objective, rounds)
    })
    .await
    .map_err(goal_error)
}

/// Stops the goal's loop on `conv`.
pub async fn stop_goal(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<(), ActionError> {
    with_tools(backends, active, |api| api.stop_goal(conv))
        .await
        .map_err(goal_error)
}

/// Resumes the interrupted goal of `conv`.
pub async fn resume_goal(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<(), ActionError> {
    with_tools(backends, active, |api| api.resume_goal(conv))
        .await
        .map_err(goal_error)
}

/// Makes the agent of `conv` ask before every action (`ask`) or never.
pub async fn confirmation_mode(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    ask: bool,
) -> Result<(), ActionError> {
    with_tools(backends, active, |api| {
        api.set_confirmation_policy(conv, ask)
    })
    .await
    .map_err(ActionError::from)
}

/// The usage of `conv` as the server counts it now (complete where the streamed stats are not).
pub async fn usage(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<canvas_core::conversations::live::usage::Usage, ActionError> {
    with_tools(backends, active, |api| api.usage(conv))
        .await
        .map_err(ActionError::from)
}
