//! The LLM profile list: a row per profile, and the activate / delete confirmation.

use crate::components::confirm::ConfirmDialog;
use crate::components::loaded::{loaded, ListStates};
use crate::services::settings as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::error::ApiError;
use canvas_core::settings::profiles::{ProfileInfo, ProfileList};
use leptos::prelude::*;
use svc::ProfileAction;

/// The loaded profiles (or why there are none).
pub(super) fn profile_list(
    r: Result<ProfileList, ApiError>,
    reload: RwSignal<u32>,
    pending: RwSignal<Option<(String, ProfileAction)>>,
    edit: Callback<ProfileInfo>,
) -> AnyView {
    let states = ListStates {
        prefix: "profiles",
        error_testid: None,
    };
    let empty: fn(&ProfileList) -> bool = |l| l.profiles.is_empty();
    loaded(
        r,
        states,
        t!("settings.llm.unavailable"),
        Some((t!("settings.llm.empty"), empty)),
        reload,
        |l| {
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
        },
    )
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
        profile
            .model
            .clone()
            .unwrap_or_else(|| t!("settings.llm.no_model")),
        profile
            .base_url
            .as_deref()
            .map(|u| format!(" · {u}"))
            .unwrap_or_default()
    );
    let key = if profile.api_key_set {
        t!("settings.llm.key_stored")
    } else {
        t!("settings.llm.no_key")
    };
    let editing = profile.clone();
    view! {
        <li class="secret-row profile-row" data-testid="profile-row" data-name=profile.name.clone()
            data-active=active.to_string()>
            <code class="secret-name">{profile.name.clone()}</code>
            <span class="muted">{details}" · "{key}</span>
            {if active {
                view! { <span class="badge status-execution-running" data-testid="profile-active">{t!("settings.llm.active")}</span> }.into_any()
            } else {
                view! {
                    <button type="button" class="btn small" data-testid="activate-profile"
                        on:click=move |_| pending.set(Some((n1.clone(), ProfileAction::Activate)))>{t!("settings.llm.activate")}</button>
                }.into_any()
            }}
            <span class="conversation-actions">
                <button type="button" class="btn small" data-testid="edit-profile"
                    on:click=move |_| edit.run(editing.clone())>{t!("settings.common.edit")}</button>
                <button type="button" class="btn small danger" data-testid="delete-profile"
                    on:click=move |_| pending.set(Some((n2.clone(), ProfileAction::Delete)))>{t!("settings.common.delete")}</button>
            </span>
        </li>
    }
}

/// Confirms activating or deleting a profile, then does it.
#[component]
pub(super) fn ProfileDialog(
    name: String,
    action: ProfileAction,
    pending: RwSignal<Option<(String, ProfileAction)>>,
    done: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let (title, text, verb) = match action {
        ProfileAction::Activate => (
            t!("settings.llm.activate_title"),
            t!("settings.llm.activate_text", name = name),
            t!("settings.llm.activate"),
        ),
        ProfileAction::Delete => (
            t!("settings.llm.delete_title"),
            t!("settings.llm.delete_text", name = name),
            t!("settings.common.delete"),
        ),
    };
    view! {
        <ConfirmDialog title=title testid="profile-dialog" confirm_testid="confirm-profile-action"
            text=text verb=verb busy_verb=t!("settings.common.working") style="primary"
            on_close=Callback::new(move |_| pending.set(None)) on_done=done
            run=move || {
                let (n, active) = (name.clone(), backends.active.get_untracked());
                async move { svc::profile_action(backends, &active, &n, action).await }
            } />
    }
}
