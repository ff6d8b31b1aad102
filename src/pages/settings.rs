//! Settings (issue #13; a lazy chunk): `/settings/llm` — the active backend's LLM profiles
//! (create or replace, test, activate, delete; keys write-only); `/settings/agent` — the agent's
//! and new conversations' settings as forms the server's schemas generate (`settings_agent`);
//! `/settings/mcp` — its MCP servers, listed, tested, added and removed (`settings_mcp`);
//! `/settings/secrets` — its secrets
//! (names listed, values write-only: typed once, sent, cleared, never shown or asked for
//! again) — and `/settings/app` — this browser's preferences (theme, notifications, sound).
//! A backend kind without secrets says so instead of failing.

use crate::components::confirm::ConfirmDialog;
use crate::links::href;
use crate::pages::settings_agent::AgentSection;
use crate::pages::settings_mcp::McpSection;
use crate::platform::notify;
use crate::platform::storage::WebStorage;
use crate::services::settings as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use canvas_core::settings::preferences::{self, Theme};
use canvas_core::settings::profiles::{check_profile, ProfileInfo, Validation};
use canvas_core::settings::secrets::{check_new_secret, SecretItem};
use leptos::prelude::*;
use svc::ProfileAction;
use web_sys::NotificationPermission;

/// The sections: (path segment, label).
const SECTIONS: &[(&str, &str)] = &[
    ("llm", "LLM"),
    ("agent", "Agent"),
    ("mcp", "MCP"),
    ("secrets", "Secrets"),
    ("plugins", "Plugins"),
    ("app", "App"),
];

#[component]
pub fn SettingsPage(section: String) -> impl IntoView {
    let section = if section.is_empty() {
        SECTIONS[0].0.to_string()
    } else {
        section
    };
    // Upstream's sections that are parts of the agent form here.
    let shown_as = match section.as_str() {
        "condenser" | "verification" | "agent-context" => "agent",
        s => s,
    }
    .to_string();
    let nav = SECTIONS
        .iter()
        .map(|&(id, label)| {
            let current = (id == shown_as).then_some("page");
            view! {
                <a href=href(&format!("/settings/{id}")) class="settings-tab"
                    data-testid=format!("settings-nav-{id}") aria-current=current>{label}</a>
            }
        })
        .collect_view();
    let body = match section.as_str() {
        "llm" => view! { <LlmSection /> }.into_any(),
        "agent" | "condenser" | "verification" | "agent-context" => {
            view! { <AgentSection /> }.into_any()
        }
        "agents" => view! {
            <div class="settings-section" data-testid="settings-agent-profiles">
                <p class="muted">
                    "Agent profiles (stored agent configurations to launch) are not in this console \
                     yet. The agent's own settings are under "
                    <a href=href("/settings/agent")>"Agent"</a>
                    ", its LLM profiles under "
                    <a href=href("/settings/llm")>"LLM"</a>"."
                </p>
            </div>
        }
        .into_any(),
        "mcp" => view! { <McpSection /> }.into_any(),
        "secrets" => view! { <SecretsSection /> }.into_any(),
        "plugins" => view! {
            <div class="settings-section" data-testid="settings-plugins">
                <p class="muted">
                    "Plugins bundle skills, MCP servers and hooks. The agent server installs them \
                     for every conversation it starts; disable one to leave it out."
                </p>
                <crate::components::installed::InstalledExtensions kind=canvas_core::settings::extensions::Extension::Plugin />
            </div>
        }
        .into_any(),
        "app" => view! { <AppSection /> }.into_any(),
        other => view! {
            <div class="error" role="alert" data-testid="settings-unknown">
                <p>{format!("There is no settings page “{other}”. Pick one above.")}</p>
            </div>
        }
        .into_any(),
    };
    view! {
        <section class="page settings">
            <header class="page-header"><h1>"Settings"</h1></header>
            <nav class="settings-nav" aria-label="Settings">{nav}</nav>
            {body}
        </section>
    }
}

#[component]
fn SecretsSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::secrets(backends, &active).await }
    });
    let names = move || {
        list.get()
            .and_then(Result::ok)
            .map(|l| l.into_iter().map(|s| s.name).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let name = RwSignal::new(String::new());
    let value = RwSignal::new(String::new());
    let description = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let saved = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let deleting = RwSignal::new(None::<String>);
    let exists = move || {
        let n = name.get();
        let n = n.trim();
        !n.is_empty() && names().iter().any(|x| x == n)
    };
    let save = Action::new_local(move |(n, v, d): &(String, String, String)| {
        let (n, v, d) = (n.clone(), v.clone(), d.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = svc::put_secret(backends, &active, &n, &v, Some(&d)).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(item) => {
                    value.set(String::new());
                    name.set(String::new());
                    description.set(String::new());
                    saved.set(Some(item.name));
                    reload.update(|r| *r += 1);
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        saved.set(None);
        match check_new_secret(&name.get_untracked(), &value.get_untracked()) {
            Ok(n) => {
                error.set(None);
                busy.set(true);
                save.dispatch((n, value.get_untracked(), description.get_untracked()));
            }
            Err(e) => error.set(Some(e.message())),
        }
    };
    let rows = move || {
        list.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="secrets-unavailable">
                    "Secrets are not available on this backend."
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <div class="error" role="alert" data-testid="secrets-error">
                    <p>{e.user_message()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>"Try again"</button>
                </div>
            }
            .into_any(),
            Ok(items) if items.is_empty() => view! {
                <p class="muted" data-testid="secrets-empty">"No secrets yet."</p>
            }
            .into_any(),
            Ok(items) => view! {
                <ul class="secret-list" data-testid="secret-list">
                    {items.into_iter().map(|s| view! { <SecretRow item=s deleting=deleting /> }).collect_view()}
                </ul>
            }
            .into_any(),
        })
    };
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    view! {
        <div class="settings-section" data-testid="settings-secrets">
            <p class="muted">
                "Secrets are kept by the agent server and given to its conversations as \
                 environment variables of the same name. A value is sent once and never shown again."
            </p>
            <Suspense fallback=|| view! { <p class="loading" data-testid="secrets-loading">"Loading secrets…"</p> }>
                {rows}
            </Suspense>
            <form class="form secret-form" data-testid="secret-form" on:submit=submit hidden=unsupported>
                <h2>"Add a secret"</h2>
                <label class="field">
                    <span>"Name"</span>
                    <input type="text" data-testid="secret-name" autocomplete="off" spellcheck="false"
                        placeholder="GITHUB_TOKEN" maxlength="64"
                        prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <label class="field">
                    <span>"Value"</span>
                    <input type="password" data-testid="secret-value" autocomplete="new-password"
                        prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <label class="field">
                    <span>"Description (optional)"</span>
                    <input type="text" data-testid="secret-description" autocomplete="off"
                        prop:value=move || description.get() on:input=move |ev| description.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <p class="muted" data-testid="secret-replaces" hidden=move || !exists()>
                    "A secret with this name exists: saving replaces its value."
                </p>
                <p class="field-error" role="alert" data-testid="secret-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <p class="ok-note" role="status" data-testid="secret-saved" hidden=move || saved.with(Option::is_none)>
                    {move || saved.get().map(|n| format!("Saved {n}.")).unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="submit" class="btn primary" data-testid="secret-save" disabled=move || busy.get()>
                        {move || if busy.get() { "Saving…" } else if exists() { "Replace" } else { "Add secret" }}
                    </button>
                </div>
            </form>
            {move || deleting.get().map(|n| view! {
                <DeleteSecretDialog name=n deleting=deleting on_deleted=Callback::new(move |_| reload.update(|r| *r += 1)) />
            })}
        </div>
    }
}

#[component]
fn SecretRow(item: SecretItem, deleting: RwSignal<Option<String>>) -> impl IntoView {
    let name = item.name.clone();
    let label = format!("Delete {}", item.name);
    view! {
        <li class="secret-row" data-testid="secret-row" data-name=item.name.clone()>
            <code class="secret-name">{item.name.clone()}</code>
            <span class="muted secret-description">{item.description.unwrap_or_default()}</span>
            <span class="muted secret-value" aria-label="Value hidden">"••••••"</span>
            <button type="button" class="btn small danger" data-testid="delete-secret" aria-label=label
                on:click=move |_| deleting.set(Some(name.clone()))>"Delete"</button>
        </li>
    }
}

#[component]
fn DeleteSecretDialog(
    name: String,
    deleting: RwSignal<Option<String>>,
    on_deleted: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let text = format!("Delete the secret {name}? Conversations that use it lose it.");
    view! {
        <ConfirmDialog title="Delete secret" testid="delete-secret-dialog"
            confirm_testid="confirm-delete-secret" text=text verb="Delete" busy_verb="Deleting…"
            gone_is_done=true on_close=Callback::new(move |_| deleting.set(None)) on_done=on_deleted
            run=move || {
                let (n, active) = (name.clone(), backends.active.get_untracked());
                async move { svc::delete_secret(backends, &active, &n).await }
            } />
    }
}

/// Applies `theme` to the page (`data-theme` on the root element, read by the CSS).
fn apply_theme(theme: Theme) {
    if let Some(root) = document().document_element() {
        let _ = match theme.token() {
            Some(t) => root.set_attribute("data-theme", t),
            None => root.remove_attribute("data-theme"),
        };
    }
}

#[component]
fn AppSection() -> impl IntoView {
    let store = WebStorage::local();
    let theme = RwSignal::new(preferences::theme(&store));
    let notifications = RwSignal::new(preferences::notifications_on(&store));
    let sound = RwSignal::new(preferences::sound_on(&store));
    let permission = RwSignal::new(notify::permission());
    let default_dir = RwSignal::new(preferences::default_dir(&store));
    let dir_error = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let report = move |r: Result<(), canvas_core::storage::StorageError>| {
        error.set(
            r.err()
                .map(|e| format!("This preference could not be saved here: {e}")),
        );
    };
    let ask = Action::new_local(move |_: &()| async move {
        notify::ask_permission().await;
        permission.try_set(notify::permission());
    });
    let themes = Theme::ALL
        .into_iter()
        .map(|t| {
            view! {
                <label class="choice">
                    <input type="radio" name="theme" data-testid=format!("theme-{}", t.label().to_lowercase())
                        prop:checked=move || theme.get() == t
                        on:change=move |_| {
                            report(preferences::set_theme(&store, t));
                            theme.set(t);
                            apply_theme(t);
                        } />
                    " "{t.label()}
                </label>
            }
        })
        .collect_view();
    let permission_text = move || match permission.get() {
        NotificationPermission::Granted => "The browser allows them.",
        NotificationPermission::Denied => {
            "The browser blocks them for this site: allow them in its site settings."
        }
        _ => "The browser will ask when you turn them on.",
    };
    view! {
        <div class="settings-section" data-testid="settings-app">
            <p class="muted">"Kept in this browser for this site; no backend sees them."</p>
            <fieldset class="pref-group">
                <legend>"Theme"</legend>
                {themes}
            </fieldset>
            <fieldset class="pref-group">
                <legend>"When a conversation in a background tab finishes or needs you"</legend>
                <label class="choice">
                    <input type="checkbox" data-testid="pref-notifications"
                        prop:checked=move || notifications.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            report(preferences::set_notifications(&store, on));
                            notifications.set(on);
                            if on && permission.get_untracked() == NotificationPermission::Default {
                                ask.dispatch(());
                            }
                        } />
                    " Desktop notification"
                </label>
                <span class="muted" data-testid="notification-permission">{permission_text}</span>
                <label class="choice">
                    <input type="checkbox" data-testid="pref-sound"
                        prop:checked=move || sound.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            report(notify::set_sound(on).map_err(canvas_core::storage::StorageError::Other));
                            sound.set(on);
                        } />
                    " A short sound"
                </label>
            </fieldset>
            <fieldset class="pref-group">
                <legend>"New conversations"</legend>
                <label for="pref-default-dir">"Default working directory"</label>
                <input id="pref-default-dir" type="text" data-testid="pref-default-dir"
                    autocomplete="off" spellcheck="false"
                    placeholder="A new folder under ~/workspace/project for each"
                    prop:value=move || default_dir.get()
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        default_dir.set(v.clone());
                        dir_error.set(preferences::set_default_dir(&store, &v).err());
                    } />
                <span class="muted">
                    "On the agent's machine, for every backend; the launcher's options can choose \
                     another per backend."
                </span>
                {move || dir_error.get().map(|e| view! {
                    <span class="field-error" role="alert" data-testid="pref-default-dir-error">{e}</span>
                })}
            </fieldset>
            <p class="field-error" role="alert" data-testid="pref-error" hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </p>
        </div>
    }
}

#[component]
fn LlmSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::profiles(backends, &active).await }
    });
    let models = LocalResource::new(move || {
        let active = backends.active.get();
        async move { svc::llm_models(backends, &active).await }
    });
    let name = RwSignal::new(String::new());
    let model = RwSignal::new(String::new());
    let base_url = RwSignal::new(String::new());
    let api_key = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let pending = RwSignal::new(None::<(String, ProfileAction)>);
    let exists = move || {
        let n = name.get();
        let n = n.trim().to_string();
        !n.is_empty()
            && matches!(list.get(), Some(Ok(ref l)) if l.profiles.iter().any(|p| p.name == n))
    };
    let checked = move || {
        check_profile(
            &name.get_untracked(),
            &model.get_untracked(),
            &base_url.get_untracked(),
            &api_key.get_untracked(),
        )
        .map_err(|e| e.message())
    };
    let save = Action::new_local(move |(n, llm): &(String, serde_json::Value)| {
        let (n, llm) = (n.clone(), llm.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = svc::save_profile(backends, &active, &n, &llm).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    api_key.set(String::new());
                    note.set(Some(format!("Saved the profile {n}.")));
                    reload.update(|r| *r += 1);
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let test = Action::new_local(move |(n, llm): &(String, serde_json::Value)| {
        let (n, llm) = (n.clone(), llm.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = svc::validate_llm(backends, &active, &n, &llm).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(Validation::Valid) => note.set(Some("The server reached the model.".into())),
                Ok(Validation::Invalid { kind, message }) => error.set(Some(format!(
                    "The server could not reach the model ({kind}): {}",
                    canvas_core::error::scrub_secrets(&message)
                ))),
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let start = move |testing: bool| {
        if busy.get_untracked() {
            return;
        }
        note.set(None);
        match checked() {
            Ok(job) => {
                error.set(None);
                busy.set(true);
                if testing {
                    test.dispatch(job);
                } else {
                    save.dispatch(job);
                }
            }
            Err(e) => error.set(Some(e)),
        }
    };
    let edit = Callback::new(move |p: ProfileInfo| {
        name.set(p.name);
        model.set(p.model.unwrap_or_default());
        base_url.set(p.base_url.unwrap_or_default());
        api_key.set(String::new());
        error.set(None);
        note.set(None);
    });
    let rows = move || {
        list.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="profiles-unavailable">
                    "LLM profiles are not available on this backend."
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <div class="error" role="alert" data-testid="profiles-error">
                    <p>{e.user_message()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>"Try again"</button>
                </div>
            }
            .into_any(),
            Ok(l) if l.profiles.is_empty() => view! {
                <p class="muted" data-testid="profiles-empty">"No profiles yet."</p>
            }
            .into_any(),
            Ok(l) => {
                let active = l.active.clone();
                view! {
                    <ul class="secret-list" data-testid="profile-list">
                        {l.profiles.into_iter().map(|p| {
                            let is_active = active.as_deref() == Some(p.name.as_str());
                            view! { <ProfileRow profile=p active=is_active pending=pending edit=edit /> }
                        }).collect_view()}
                    </ul>
                }
                .into_any()
            }
        })
    };
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    let model_options = move || {
        models
            .get()
            .unwrap_or_default()
            .into_iter()
            .map(|m| view! { <option value=m></option> })
            .collect_view()
    };
    view! {
        <div class="settings-section" data-testid="settings-llm">
            <p class="muted">
                "Profiles are named LLM settings kept by the agent server. The active one is the \
                 server's LLM: new conversations use it unless this browser's LLM settings (on \
                 the start page) name a model."
            </p>
            <Suspense fallback=|| view! { <p class="loading">"Loading profiles…"</p> }>{rows}</Suspense>
            <form class="form secret-form" data-testid="profile-form" hidden=unsupported
                on:submit=move |ev: web_sys::SubmitEvent| { ev.prevent_default(); start(false); }>
                <h2>{move || if exists() { "Replace a profile" } else { "New profile" }}</h2>
                <label class="field">
                    <span>"Name"</span>
                    <input type="text" data-testid="profile-name" autocomplete="off" spellcheck="false"
                        maxlength="64" placeholder="fast-model"
                        prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <label class="field">
                    <span>"Model"</span>
                    <input type="text" data-testid="profile-model" autocomplete="off" spellcheck="false"
                        list="llm-models" placeholder="openai/gpt-4o"
                        prop:value=move || model.get() on:input=move |ev| model.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                    <datalist id="llm-models">{model_options}</datalist>
                </label>
                <label class="field">
                    <span>"Base URL (optional)"</span>
                    <input type="url" data-testid="profile-base-url" autocomplete="off"
                        placeholder="https://api.example.com/v1"
                        prop:value=move || base_url.get() on:input=move |ev| base_url.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <label class="field">
                    <span>"API key"</span>
                    <input type="password" data-testid="profile-api-key" autocomplete="new-password"
                        prop:value=move || api_key.get() on:input=move |ev| api_key.set(event_target_value(&ev))
                        disabled=move || busy.get() />
                </label>
                <p class="muted" data-testid="profile-replaces" hidden=move || !exists()>
                    "Saving replaces this profile; type its API key again (a stored key is never sent back)."
                </p>
                <p class="field-error" role="alert" data-testid="profile-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <p class="ok-note" role="status" data-testid="profile-note" hidden=move || note.with(Option::is_none)>
                    {move || note.get().unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="button" class="btn" data-testid="profile-test" disabled=move || busy.get()
                        on:click=move |_| start(true)>"Test"</button>
                    <button type="submit" class="btn primary" data-testid="profile-save" disabled=move || busy.get()>
                        {move || if busy.get() { "Working…" } else if exists() { "Replace" } else { "Save profile" }}
                    </button>
                </div>
            </form>
            {move || pending.get().map(|(n, action)| view! {
                <ProfileDialog name=n action=action pending=pending
                    done=Callback::new(move |_| reload.update(|r| *r += 1)) />
            })}
        </div>
    }
}

#[component]
fn ProfileRow(
    profile: ProfileInfo,
    active: bool,
    pending: RwSignal<Option<(String, ProfileAction)>>,
    edit: Callback<ProfileInfo>,
) -> impl IntoView {
    let (n1, n2) = (profile.name.clone(), profile.name.clone());
    let details = format!(
        "{}{}",
        profile.model.clone().unwrap_or_else(|| "(no model)".into()),
        profile
            .base_url
            .as_deref()
            .map(|u| format!(" · {u}"))
            .unwrap_or_default()
    );
    let key = if profile.api_key_set {
        "key stored"
    } else {
        "no key"
    };
    let editing = profile.clone();
    view! {
        <li class="secret-row profile-row" data-testid="profile-row" data-name=profile.name.clone()
            data-active=active.to_string()>
            <code class="secret-name">{profile.name.clone()}</code>
            <span class="muted">{details}" · "{key}</span>
            {if active {
                view! { <span class="badge status-execution-running" data-testid="profile-active">"Active"</span> }.into_any()
            } else {
                view! {
                    <button type="button" class="btn small" data-testid="activate-profile"
                        on:click=move |_| pending.set(Some((n1.clone(), ProfileAction::Activate)))>"Activate"</button>
                }.into_any()
            }}
            <span class="conversation-actions">
                <button type="button" class="btn small" data-testid="edit-profile"
                    on:click=move |_| edit.run(editing.clone())>"Edit"</button>
                <button type="button" class="btn small danger" data-testid="delete-profile"
                    on:click=move |_| pending.set(Some((n2.clone(), ProfileAction::Delete)))>"Delete"</button>
            </span>
        </li>
    }
}

/// Confirms activating or deleting a profile, then does it.
#[component]
fn ProfileDialog(
    name: String,
    action: ProfileAction,
    pending: RwSignal<Option<(String, ProfileAction)>>,
    done: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let (title, text, verb) = match action {
        ProfileAction::Activate => (
            "Activate profile",
            format!("Make {name} the server's LLM? New conversations that do not bring their own LLM use it."),
            "Activate",
        ),
        ProfileAction::Delete => (
            "Delete profile",
            format!("Delete the profile {name}? Its stored API key goes with it."),
            "Delete",
        ),
    };
    view! {
        <ConfirmDialog title=title testid="profile-dialog" confirm_testid="confirm-profile-action"
            text=text verb=verb busy_verb="Working…" style="primary"
            on_close=Callback::new(move |_| pending.set(None)) on_done=done
            run=move || {
                let (n, active) = (name.clone(), backends.active.get_untracked());
                async move { svc::profile_action(backends, &active, &n, action).await }
            } />
    }
}
