//! The conversation's tools (issue #15): the header's `⋯` menu (export Markdown/JSON, the
//! server's trajectory, fork, condense) and what the composer's slash commands run (the same
//! operations plus switching the LLM profile and asking the agent a side question). One
//! [`ConversationTools`] per page runs them and says what happened.

use crate::links::use_go;
use crate::platform::storage::WebStorage;
use crate::services::conversation_tools as svc;
use crate::state::backends::BackendsCtx;
use crate::state::events::Row;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::ConversationRef;
use canvas_core::conversations::chat::llm_switches::{self, LlmSwitch};
use canvas_core::conversations::chat::slash::ExportFormat;
use canvas_core::conversations::live::draft_key;
use canvas_core::conversations::start::launch_options::AgentChoice;
use canvas_core::settings::agents::{AgentModels, AgentSetup};
use leptos::prelude::*;

mod view;

pub use view::{ToolsMenu, ToolsNotice};

/// One operation on the open conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolOp {
    /// Download the transcript.
    Export(ExportFormat),
    /// Download the server's trajectory zip.
    Trajectory,
    /// Fork and open the fork.
    Fork,
    /// Fork up to and including this event (by id) and open the branch.
    Branch(String),
    /// Condense the history now.
    Condense,
    /// Switch to an LLM profile.
    SwitchProfile(String),
    /// Switch an ACP agent to one of its models (by id).
    SwitchAgentModel(String),
    /// Ask the agent without interrupting it.
    Ask(String),
    /// Ask before every action (`true`) or never.
    ConfirmMode(bool),
    /// Show what the agent runs with.
    Setup,
    /// Offer the backend's agent profiles for a new conversation (issue #35: a running
    /// conversation keeps its agent).
    OtherAgent,
    /// Open the launcher with this profile chosen and the unsent message carried.
    StartWith(AgentChoice),
    /// Ask for a goal's objective and rounds (issue #36).
    GoalForm,
    /// Start a goal: its objective and rounds.
    StartGoal(String, u32),
    /// Stop the goal's loop.
    StopGoal,
    /// Resume an interrupted goal.
    ResumeGoal,
}

impl ToolOp {
    fn busy_text(&self) -> String {
        match self {
            ToolOp::Export(_) => t!("chat.tools.exporting"),
            ToolOp::Trajectory => t!("chat.tools.downloading_trajectory"),
            ToolOp::Fork | ToolOp::Branch(_) => t!("chat.tools.forking"),
            ToolOp::Condense => t!("chat.tools.condensing"),
            ToolOp::SwitchProfile(p) => t!("chat.tools.switching", profile = p),
            ToolOp::SwitchAgentModel(m) => t!("chat.tools.switching_model", model = m),
            ToolOp::Ask(_) => t!("chat.tools.asking"),
            ToolOp::ConfirmMode(_) => t!("chat.tools.changing_confirm_mode"),
            ToolOp::Setup => t!("chat.tools.reading_setup"),
            ToolOp::OtherAgent => t!("chat.tools.reading_agents"),
            ToolOp::StartWith(a) => t!("chat.tools.opening_launcher", name = a.name.clone()),
            ToolOp::GoalForm => String::new(),
            ToolOp::StartGoal(..) => t!("chat.goal.starting"),
            ToolOp::StopGoal => t!("chat.goal.stopping"),
            ToolOp::ResumeGoal => t!("chat.goal.resuming"),
        }
    }
}

/// What an operation left to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Working on it.
    Busy(String),
    /// Done (one line).
    Done(String),
    /// Failed (what to do is in the text).
    Failed(String),
    /// The agent's answer to a side question.
    Answer { question: String, answer: String },
    /// What the agent runs with.
    Setup(AgentSetup),
    /// The agent profiles a new conversation can start with.
    Agents(Vec<AgentChoice>),
    /// The goal form (issue #36).
    GoalForm,
}

/// Runs [`ToolOp`]s for one conversation; `notice` says what happened.
#[derive(Clone, Copy)]
pub struct ConversationTools {
    action: Action<ToolOp, ()>,
    pub notice: RwSignal<Option<Notice>>,
    /// Whether the agent asks before actions (`None`: the server did not say).
    pub confirm_mode: RwSignal<Option<bool>>,
    /// The agent's LLM model, as the server last said.
    pub model: RwSignal<Option<String>>,
    /// The LLM switches made from this browser, for the timeline's markers.
    pub switches: RwSignal<Vec<LlmSwitch>>,
    /// An ACP agent's models, as the server last said (issue #35).
    pub agent_models: RwSignal<Option<AgentModels>>,
    /// The backend can copy a conversation up to one message ("Branch from here").
    pub branches: bool,
}

/// What a conversation's tools start from.
pub struct ToolsInit {
    pub title: RwSignal<String>,
    pub confirm_mode: Option<bool>,
    pub model: Option<String>,
    /// The timeline's rows (a switch is marked after the last one).
    pub rows: RwSignal<Vec<Row>>,
}

impl ConversationTools {
    pub fn new(
        backends: BackendsCtx,
        active: ActiveBackend,
        conv: ConversationRef,
        init: ToolsInit,
    ) -> Self {
        let ToolsInit {
            title,
            confirm_mode,
            model,
            rows,
        } = init;
        let agent_models = RwSignal::new(None::<AgentModels>);
        let branches = svc::branches(backends, &active);
        let notice = RwSignal::new(None::<Notice>);
        let confirm_mode = RwSignal::new(confirm_mode);
        let model = RwSignal::new(model);
        let switches_key = StoredValue::new(llm_switches::storage_key(
            &active.backend.id,
            active.org_id.as_deref(),
            &conv.id,
        ));
        let switches = RwSignal::new(
            llm_switches::load(&WebStorage::local(), &switches_key.get_value()).unwrap_or_default(),
        );
        let go = use_go();
        let action = Action::new_local(move |op: &ToolOp| {
            let (op, active, conv, go) = (op.clone(), active.clone(), conv.clone(), go.clone());
            let title = title.get_untracked();
            notice.set(Some(Notice::Busy(op.busy_text())));
            async move {
                let done = match op {
                    ToolOp::Export(format) => svc::export(backends, &active, &conv, &title, format)
                        .await
                        .map(|name| Notice::Done(t!("chat.tools.saved", name = name))),
                    ToolOp::Trajectory => svc::trajectory(backends, &active, &conv, &title)
                        .await
                        .map(|name| Notice::Done(t!("chat.tools.saved", name = name))),
                    ToolOp::Fork | ToolOp::Branch(_) => match svc::fork(
                        backends,
                        &active,
                        &conv,
                        &title,
                        match &op {
                            ToolOp::Branch(from) => Some(from.as_str()),
                            _ => None,
                        },
                    )
                    .await
                    {
                        Ok(href) => {
                            go(&href, false);
                            Ok(Notice::Done(t!("chat.tools.forked")))
                        }
                        Err(e) => Err(e),
                    },
                    ToolOp::Condense => svc::condense(backends, &active, &conv)
                        .await
                        .map(|()| Notice::Done(t!("chat.tools.condensed"))),
                    ToolOp::SwitchProfile(name) => {
                        match svc::switch_profile(backends, &active, &conv, &name).await {
                            Ok(now) => {
                                let switch = LlmSwitch {
                                    after: rows
                                        .with_untracked(|r| r.last().map(|r| r.item.key.clone())),
                                    profile: name.clone(),
                                    model: now.clone(),
                                };
                                model.try_set(now.or_else(|| model.get_untracked()));
                                let kept = llm_switches::record(
                                    &WebStorage::local(),
                                    &switches_key.get_value(),
                                    switch.clone(),
                                );
                                switches.try_update(|l| match kept {
                                    Ok(all) => *l = all,
                                    Err(_) => l.push(switch),
                                });
                                Ok(Notice::Done(t!("chat.tools.switched", profile = name)))
                            }
                            Err(e) => Err(e),
                        }
                    }
                    ToolOp::SwitchAgentModel(id) => {
                        match svc::switch_agent_model(backends, &active, &conv, &id).await {
                            Ok(now) => {
                                let label = now
                                    .as_ref()
                                    .and_then(AgentModels::current_label)
                                    .unwrap_or(id);
                                if now.is_some() {
                                    agent_models.try_set(now);
                                }
                                Ok(Notice::Done(t!("chat.tools.switched_model", model = label)))
                            }
                            Err(e) => Err(e),
                        }
                    }
                    ToolOp::Setup => svc::agent_setup(backends, &active, &conv)
                        .await
                        .map(Notice::Setup),
                    ToolOp::OtherAgent => svc::agent_choices(backends, &active)
                        .await
                        .map(Notice::Agents),
                    ToolOp::StartWith(agent) => {
                        let key = draft_key(&active.backend.id, active.org_id.as_deref(), &conv.id);
                        let draft =
                            canvas_core::storage::Storage::get(&WebStorage::session(), &key)
                                .ok()
                                .flatten()
                                .unwrap_or_default();
                        match crate::services::launch::carry_to_launcher(&active, &draft, agent) {
                            Ok(()) => {
                                go(&crate::links::pinned("/", &active), false);
                                Ok(Notice::Done(t!("chat.tools.launcher_opened")))
                            }
                            Err(e) => Err(e),
                        }
                    }
                    ToolOp::GoalForm => Ok(Notice::GoalForm),
                    ToolOp::StartGoal(objective, rounds) => {
                        svc::start_goal(backends, &active, &conv, &objective, rounds)
                            .await
                            .map(|()| Notice::Done(t!("chat.goal.started")))
                    }
                    ToolOp::StopGoal => svc::stop_goal(backends, &active, &conv)
                        .await
                        .map(|()| Notice::Done(t!("chat.goal.stopped"))),
                    ToolOp::ResumeGoal => svc::resume_goal(backends, &active, &conv)
                        .await
                        .map(|()| Notice::Done(t!("chat.goal.resumed"))),
                    ToolOp::Ask(question) => svc::ask(backends, &active, &conv, &question)
                        .await
                        .map(|answer| Notice::Answer { question, answer }),
                    ToolOp::ConfirmMode(ask) => {
                        match svc::confirmation_mode(backends, &active, &conv, ask).await {
                            Ok(()) => {
                                confirm_mode.try_set(Some(ask));
                                Ok(Notice::Done(if ask {
                                    t!("chat.tools.confirm_on")
                                } else {
                                    t!("chat.tools.confirm_off")
                                }))
                            }
                            Err(e) => Err(e),
                        }
                    }
                };
                notice.try_set(Some(done.unwrap_or_else(|e| Notice::Failed(e.said()))));
            }
        });
        Self {
            action,
            notice,
            confirm_mode,
            model,
            switches,
            agent_models,
            branches,
        }
    }

    /// Runs `op` (one at a time: ignored while another runs).
    pub fn run(&self, op: ToolOp) {
        if !self.action.pending().get_untracked() {
            self.action.dispatch(op);
        }
    }

    /// An operation is running.
    pub fn busy(&self) -> Signal<bool> {
        self.action.pending().into()
    }
}
