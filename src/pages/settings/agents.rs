//! `/settings/agents` (issue #35, upstream's URL): the active backend's agent profiles — which
//! agent new conversations run. A row per profile (the active one marked, what a launch of it
//! would miss in words), create, edit (renaming keeps its id), activate and delete (after
//! asking). OpenHands profiles run on an LLM profile; ACP profiles start Claude Code, Codex,
//! Gemini CLI or any ACP command, and name the secrets they receive (never a value here).

use crate::components::confirm::ConfirmDialog;
use crate::components::loaded::{loaded, on_active, ListStates};
use crate::components::text_field::TextField;
use crate::links::href;
use crate::services::agents::{self as svc, AgentAction};
use crate::services::skills::not_available;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::{say, t, Said};
use canvas_core::settings::agents::{
    check_agent_form, discovery_body, preset, AcpModels, AgentForm, AgentKind, AgentProfile,
    AgentProfileInfo, AgentProfileList, ACP_PRESETS, CUSTOM_ACP,
};
use leptos::prelude::*;

/// The `agent` field's value for the built-in agent (the others are `acp_server` keys).
const OPENHANDS: &str = "openhands";

/// The editor's fields.
#[derive(Clone, Copy)]
struct Fields {
    agent: RwSignal<String>,
    name: RwSignal<String>,
    llm_profile: RwSignal<String>,
    persona: RwSignal<String>,
    command: RwSignal<String>,
    args: RwSignal<String>,
    model: RwSignal<String>,
    secrets: RwSignal<String>,
    /// The stored profile being edited (`None`: a new one).
    editing: RwSignal<Option<AgentProfile>>,
}

impl Fields {
    fn new() -> Self {
        Fields {
            agent: RwSignal::new(OPENHANDS.to_string()),
            name: RwSignal::new(String::new()),
            llm_profile: RwSignal::new(String::new()),
            persona: RwSignal::new(String::new()),
            command: RwSignal::new(String::new()),
            args: RwSignal::new(String::new()),
            model: RwSignal::new(String::new()),
            secrets: RwSignal::new(String::new()),
            editing: RwSignal::new(None),
        }
    }

    fn fill(&self, f: AgentForm, editing: Option<AgentProfile>) {
        self.agent.set(match f.kind {
            AgentKind::Acp => f.acp_server,
            _ => OPENHANDS.to_string(),
        });
        self.name.set(f.name);
        self.llm_profile.set(f.llm_profile);
        self.persona.set(f.persona);
        self.command.set(f.acp_command);
        self.args.set(f.acp_args);
        self.model.set(f.acp_model);
        self.secrets.set(f.secrets);
        self.editing.set(editing);
    }

    fn form(&self) -> AgentForm {
        let agent = self.agent.get_untracked();
        let base = if agent == OPENHANDS {
            AgentForm::openhands(&self.llm_profile.get_untracked())
        } else {
            AgentForm {
                kind: AgentKind::Acp,
                acp_server: agent,
                ..AgentForm::openhands("")
            }
        };
        AgentForm {
            name: self.name.get_untracked(),
            persona: self.persona.get_untracked(),
            acp_command: self.command.get_untracked(),
            acp_args: self.args.get_untracked(),
            acp_model: self.model.get_untracked(),
            secrets: self.secrets.get_untracked(),
            ..base
        }
    }

    /// Another agent chosen: an ACP preset's key secret replaces the previous preset's.
    fn choose(&self, agent: String) {
        let before = preset(&self.agent.get_untracked()).and_then(|p| p.secret);
        let secrets = self.secrets.get_untracked();
        if secrets.trim().is_empty() || Some(secrets.trim()) == before {
            self.secrets.set(
                preset(&agent)
                    .and_then(|p| p.secret)
                    .unwrap_or_default()
                    .to_string(),
            );
        }
        self.agent.set(agent);
    }
}

#[component]
pub(super) fn AgentsSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = on_active(reload, |b, a| async move { svc::profiles(b, &a).await });
    let secrets = on_active(reload, |b, a| async move { svc::secret_names(b, &a).await });
    let llm_profiles = on_active(reload, |b, a| async move {
        crate::services::settings::profiles(b, &a)
            .await
            .map(|l| l.profiles.into_iter().map(|p| p.name).collect::<Vec<_>>())
            .unwrap_or_default()
    });
    let fields = Fields::new();
    let error = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let pending = RwSignal::new(None::<(AgentProfileInfo, AgentAction)>);
    let save = save_action(backends, fields, busy, note, error, reload);
    let check = check_action(backends, fields);
    let open = open_action(backends, fields, busy, note, error);
    let edit = Callback::new(move |name: String| {
        if !busy.get_untracked() {
            busy.set(true);
            open.dispatch(name);
        }
    });
    let submit = move || {
        if busy.get_untracked() {
            return;
        }
        note.set(None);
        let editing = fields.editing.get_untracked();
        match check_agent_form(&fields.form(), editing.as_ref()) {
            Ok((name, body)) => {
                error.set(None);
                busy.set(true);
                save.dispatch((editing.map(|e| e.name), name, body));
            }
            Err(e) => error.set(Some(say(&e.message_text()))),
        }
    };
    let rows = move || {
        list.get()
            .map(|r| profile_list(r, reload, pending, edit, secrets))
    };
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    let title = move || match fields.editing.get() {
        Some(p) => t!("settings.agents.edit_title", name = p.name),
        None => t!("settings.agents.new_title"),
    };
    view! {
        <div class="settings-section" data-testid="settings-agent-profiles">
            <p class="muted">{t!("settings.agents.intro")}</p>
            <Suspense fallback=|| view! { <p class="loading">{t!("settings.agents.loading")}</p> }>{rows}</Suspense>
            <form class="form secret-form agent-form" data-testid="agent-form" hidden=unsupported
                on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); submit(); }>
                <h2>{title}</h2>
                {agent_fields(fields, busy, llm_profiles, check)}
                <p class="field-error" role="alert" data-testid="agent-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <p class="ok-note" role="status" data-testid="agent-note" hidden=move || note.with(Option::is_none)>
                    {move || note.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" data-testid="agent-cancel-edit"
                        hidden=move || fields.editing.with(Option::is_none) disabled=move || busy.get()
                        on:click=move |_| { error.set(None); fields.fill(AgentForm::openhands(""), None); }>
                        {t!("settings.common.cancel")}
                    </button>
                    <button type="submit" class="btn primary" data-testid="agent-save" disabled=move || busy.get()>
                        {move || if busy.get() { t!("settings.common.working") } else { t!("settings.common.save") }}
                    </button>
                </div>
            </form>
            {move || pending.get().map(|(p, action)| view! {
                <AgentDialog profile=p action=action pending=pending
                    done=Callback::new(move |_| reload.update(|r| *r += 1)) />
            })}
            <super::sub_agents::SubAgents />
        </div>
    }
}

/// Saves the form (renaming an edited profile first when its name changed); the form is
/// emptied for the next one.
fn save_action(
    backends: BackendsCtx,
    fields: Fields,
    busy: RwSignal<bool>,
    note: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    reload: RwSignal<u32>,
) -> Action<(Option<String>, String, serde_json::Value), ()> {
    Action::new_local(
        move |(was, name, body): &(Option<String>, String, serde_json::Value)| {
            let (was, name, body) = (was.clone(), name.clone(), body.clone());
            let active = backends.active.get_untracked();
            async move {
                let r = svc::save(backends, &active, was.as_deref(), &name, &body).await;
                if busy.try_set(false).is_some() {
                    return;
                }
                match r {
                    Ok(()) => {
                        fields.fill(AgentForm::openhands(""), None);
                        note.set(Some(t!("settings.agents.saved", name = name)));
                        reload.update(|r| *r += 1);
                    }
                    Err(e) => error.set(Some(e.said())),
                }
            }
        },
    )
}

/// Starts the form's ACP agent on the server for a fresh session (the secrets it names
/// passed as lookups of the server's store) and keeps what it said.
fn check_action(backends: BackendsCtx, fields: Fields) -> Action<(), Result<AcpModels, String>> {
    Action::new_local(move |_: &()| {
        let active = backends.active.get_untracked();
        let form = fields.form();
        async move {
            let (body, secrets) = discovery_body(&form).map_err(|e| say(&e.message_text()))?;
            svc::check_acp(backends, &active, &body, &secrets)
                .await
                .map_err(|e| e.said())
        }
    })
}

/// Loads a stored profile into the form.
fn open_action(
    backends: BackendsCtx,
    fields: Fields,
    busy: RwSignal<bool>,
    note: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
) -> Action<String, ()> {
    Action::new_local(move |name: &String| {
        let name = name.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::profile(backends, &active, &name).await;
            if busy.try_set(false).is_some() {
                return;
            }
            note.set(None);
            match r {
                Ok(p) => {
                    error.set(None);
                    fields.fill(p.form(), Some(p));
                }
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

/// The form's fields: the agent, the name, then the built-in agent's LLM profile and persona,
/// or an ACP agent's command, arguments, model and secrets (with where its key comes from and
/// how to install it).
fn agent_fields(
    fields: Fields,
    busy: RwSignal<bool>,
    llm_profiles: LocalResource<Vec<String>>,
    check: Action<(), Result<AcpModels, String>>,
) -> impl IntoView {
    let is_openhands = move || fields.agent.with(|a| a == OPENHANDS);
    let chosen = move || preset(&fields.agent.get());
    let options = ACP_PRESETS
        .iter()
        .map(|p| {
            let label = if p.key == CUSTOM_ACP {
                t!("settings.agents.custom")
            } else {
                p.name.to_string()
            };
            view! { <option value=p.key>{label}</option> }
        })
        .collect_view();
    let llm_options = move || {
        llm_profiles
            .get()
            .unwrap_or_default()
            .into_iter()
            .map(|n| view! { <option value=n></option> })
            .collect_view()
    };
    // What the last check said: the agent and its models, or why it did not start.
    let verdict = move || check.value().get();
    let model_options = move || match verdict() {
        Some(Ok(m)) => m
            .models
            .into_iter()
            .map(|m| view! { <option value=m.id.clone()>{m.label().to_string()}</option> })
            .collect_view()
            .into_any(),
        _ => ().into_any(),
    };
    let checked = move || {
        verdict().map(|r| match r {
            Ok(m) if m.runs() => {
                let models = m
                    .models
                    .iter()
                    .map(|x| x.label().to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                view! {
                    <p class="ok-note" role="status" data-testid="agent-check-result" data-runs="true">
                        {say(&m.verdict())}
                        {(!models.is_empty()).then(|| view! { " "{t!("settings.agents.models")}" "<span class="mono">{models}</span> })}
                    </p>
                }
                .into_any()
            }
            Ok(m) => view! {
                <p class="field-error" role="alert" data-testid="agent-check-result" data-runs="false">
                    {say(&m.verdict())}
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <p class="field-error" role="alert" data-testid="agent-check-result" data-runs="false">{e}</p>
            }
            .into_any(),
        })
    };
    let secret_help = move || {
        chosen().and_then(|p| p.secret).map(|s| {
            view! {
                <p class="muted" data-testid="agent-secret-help">
                    {t!("settings.agents.secret_help", name = s)}" "
                    <a href=href("/settings/secrets")>{t!("settings.tabs.secrets")}</a>
                </p>
            }
        })
    };
    let install = move || {
        chosen().and_then(|p| p.install).map(|cmd| {
            view! {
                <p class="muted" data-testid="agent-install">
                    {t!("settings.agents.install")}" "<code>{cmd}</code>
                </p>
            }
        })
    };
    view! {
        <label class="field">
            <span>{t!("settings.agents.agent")}</span>
            <select data-testid="agent-kind" prop:value=move || fields.agent.get()
                disabled=move || busy.get() || fields.editing.with(Option::is_some)
                on:change=move |ev| {
                    // What a check said was about the agent chosen before.
                    check.value().set(None);
                    fields.choose(event_target_value(&ev));
                }>
                <option value=OPENHANDS>"OpenHands"</option>
                {options}
                // A stored profile's ACP agent this console offers no preset for (Kimi Code, Pi,
                // OpenCode): shown by its key, so the select says what the profile runs.
                {move || {
                    let a = fields.agent.get();
                    (a != OPENHANDS && preset(&a).is_none()).then(|| view! { <option value=a.clone() selected=true>{a.clone()}</option> })
                }}
            </select>
        </label>
        <TextField label=t!("settings.common.name") testid="agent-name" value=fields.name disabled=busy
            plain=true maxlength="64" placeholder="my-agent" />
        <div class="agent-form-part" hidden=move || !is_openhands()>
            <TextField label=t!("settings.agents.llm_profile") testid="agent-llm-profile" value=fields.llm_profile
                disabled=busy plain=true list="agent-llm-profiles">
                <datalist id="agent-llm-profiles">{llm_options}</datalist>
            </TextField>
            <label class="field">
                <span>{t!("settings.agents.persona")}</span>
                <textarea data-testid="agent-persona" rows="3" prop:value=move || fields.persona.get()
                    on:input=move |ev| fields.persona.set(event_target_value(&ev)) disabled=move || busy.get()></textarea>
            </label>
        </div>
        <div class="agent-form-part" hidden=is_openhands>
            <TextField label=t!("settings.agents.command") testid="agent-command" value=fields.command
                disabled=busy plain=true placeholder=t!("settings.agents.command_default") />
            <TextField label=t!("settings.agents.args") testid="agent-args" value=fields.args
                disabled=busy plain=true />
            <TextField label=t!("settings.agents.model") testid="agent-model" value=fields.model
                disabled=busy plain=true list="agent-acp-models">
                <datalist id="agent-acp-models">{model_options}</datalist>
            </TextField>
            <TextField label=t!("settings.agents.secrets") testid="agent-secrets" value=fields.secrets
                disabled=busy plain=true placeholder="ANTHROPIC_API_KEY" />
            {secret_help}
            {install}
            <div class="form-actions agent-check">
                <button type="button" class="btn" data-testid="agent-check"
                    disabled=move || busy.get() || check.pending().get()
                    on:click=move |_| { check.dispatch(()); }>
                    {move || if check.pending().get() { t!("settings.agents.checking_agent") } else { t!("settings.agents.check") }}
                </button>
            </div>
            {checked}
        </div>
    }
}

/// The loaded profiles (or why there are none).
fn profile_list(
    r: Result<AgentProfileList, canvas_core::error::ApiError>,
    reload: RwSignal<u32>,
    pending: RwSignal<Option<(AgentProfileInfo, AgentAction)>>,
    edit: Callback<String>,
    secrets: LocalResource<Option<Vec<String>>>,
) -> AnyView {
    let states = ListStates {
        prefix: "agent-profiles",
        error_testid: None,
    };
    let empty: fn(&AgentProfileList) -> bool = |l| l.profiles.is_empty();
    loaded(
        r,
        states,
        t!("settings.agents.unavailable"),
        Some((t!("settings.agents.empty"), empty)),
        reload,
        move |l| {
            view! {
                <ul class="installed-list" data-testid="agent-profile-list">
                    {l.profiles.iter().map(|p| {
                        let active = l.is_active(p);
                        view! { <AgentRow profile=p.clone() active=active pending=pending edit=edit secrets=secrets /> }
                    }).collect_view()}
                </ul>
            }
            .into_any()
        },
    )
}

#[component]
fn AgentRow(
    profile: AgentProfileInfo,
    active: bool,
    pending: RwSignal<Option<(AgentProfileInfo, AgentAction)>>,
    edit: Callback<String>,
    secrets: LocalResource<Option<Vec<String>>>,
) -> impl IntoView {
    let backends = use_backends();
    let kind = match &profile.kind {
        AgentKind::OpenHands => t!(
            "settings.agents.kind_openhands",
            llm = profile.llm_profile_ref.clone().unwrap_or_default()
        ),
        AgentKind::Acp => t!("settings.agents.kind_acp"),
        AgentKind::Other(k) => t!("settings.agents.kind_other", kind = k.clone()),
    };
    let name = profile.name.clone();
    let diagnosis = LocalResource::new(move || {
        let (active, name) = (backends.active.get(), name.clone());
        async move { svc::diagnostics(backends, &active, &name).await }
    });
    let problems = move || {
        diagnosis.get().map(|r| match r {
            Ok(d) => {
                let known = secrets.get().flatten();
                let problems = d.problems(known.as_deref());
                if problems.is_empty() {
                    view! { <p class="ok-note" data-testid="agent-ready">{t!("settings.agents.ready")}</p> }
                        .into_any()
                } else {
                    view! {
                        <ul class="field-error agent-problems" data-testid="agent-problems">
                            {problems.iter().map(|p| view! { <li>{say(p)}</li> }).collect_view()}
                        </ul>
                    }
                    .into_any()
                }
            }
            Err(e) => view! {
                <p class="field-error" data-testid="agent-check-failed">
                    {t!("settings.agents.check_failed", error = e.said())}
                </p>
            }
            .into_any(),
        })
    };
    let editable = !matches!(profile.kind, AgentKind::Other(_));
    let (p1, p2, n) = (profile.clone(), profile.clone(), profile.name.clone());
    view! {
        <li class="installed-row" data-testid="agent-profile-row" data-name=profile.name.clone()
            data-active=active.to_string()>
            <div class="installed-head">
                <code>{profile.name.clone()}</code>
                <span class="muted">{kind}</span>
                {active.then(|| view! {
                    <span class="badge status-execution-running" data-testid="agent-active">{t!("settings.agents.active")}</span>
                })}
            </div>
            <Suspense fallback=|| view! { <p class="muted">{t!("settings.agents.checking")}</p> }>{problems}</Suspense>
            <div class="row-actions">
                {(!active && profile.id.is_some()).then(|| view! {
                    <button type="button" class="btn small" data-testid="activate-agent"
                        on:click=move |_| pending.set(Some((p1.clone(), AgentAction::Activate)))>{t!("settings.agents.activate")}</button>
                })}
                {editable.then(|| view! {
                    <button type="button" class="btn small" data-testid="edit-agent"
                        on:click=move |_| edit.run(n.clone())>{t!("settings.common.edit")}</button>
                })}
                <button type="button" class="btn small danger" data-testid="delete-agent"
                    on:click=move |_| pending.set(Some((p2.clone(), AgentAction::Delete)))>{t!("settings.common.delete")}</button>
            </div>
        </li>
    }
}

/// Confirms activating or deleting a profile, then does it.
#[component]
fn AgentDialog(
    profile: AgentProfileInfo,
    action: AgentAction,
    pending: RwSignal<Option<(AgentProfileInfo, AgentAction)>>,
    done: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let name = profile.name.clone();
    let (title, text, verb, style) = match action {
        AgentAction::Activate => (
            t!("settings.agents.activate_title"),
            t!("settings.agents.activate_text", name = name),
            t!("settings.agents.activate"),
            "primary",
        ),
        AgentAction::Delete => (
            t!("settings.agents.delete_title"),
            t!("settings.agents.delete_text", name = name),
            t!("settings.common.delete"),
            "danger",
        ),
    };
    let id = profile.id.clone().unwrap_or_default();
    view! {
        <ConfirmDialog title=title testid="agent-dialog" confirm_testid="confirm-agent-action"
            text=text verb=verb busy_verb=t!("settings.common.working") style=style
            gone_is_done=action == AgentAction::Delete
            on_close=Callback::new(move |_| pending.set(None)) on_done=done
            run=move || {
                let (n, id, active) = (name.clone(), id.clone(), backends.active.get_untracked());
                async move { svc::act(backends, &active, &n, &id, action).await }
            } />
    }
}
