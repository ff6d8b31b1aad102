//! `/settings/secrets`: the backend's secrets, names listed, values write-only.

use crate::components::confirm::ConfirmDialog;
use crate::components::loaded::{loaded, on_active, ListStates};
use crate::components::text_field::TextField;
use crate::services::settings as svc;
use crate::services::skills::not_available;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::error::ApiError;
use canvas_core::settings::secrets::{check_new_secret, SecretItem};
use leptos::prelude::*;

#[component]
pub(super) fn SecretsSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = on_active(reload, move |b, a| async move { svc::secrets(b, &a).await });
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
    let save = save_action(
        backends,
        busy,
        name,
        value,
        description,
        saved,
        error,
        reload,
    );
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
            Err(e) => error.set(Some(e.said())),
        }
    };
    let rows = move || list.get().map(|r| secret_list(r, reload, deleting));
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    view! {
        <div class="settings-section" data-testid="settings-secrets">
            <p class="muted">
                {t!("settings.secrets.intro")}
            </p>
            <Suspense fallback=|| view! { <p class="loading" data-testid="secrets-loading">{t!("settings.secrets.loading")}</p> }>
                {rows}
            </Suspense>
            <form class="form secret-form" data-testid="secret-form" on:submit=submit hidden=unsupported>
                <h2>{t!("settings.secrets.add_title")}</h2>
                <TextField label=t!("settings.common.name") testid="secret-name" value=name disabled=busy plain=true
                    placeholder="GITHUB_TOKEN" maxlength="64" />
                <TextField label=t!("settings.secrets.value") testid="secret-value" value=value disabled=busy
                    kind="password" />
                <TextField label=t!("settings.common.description_optional") testid="secret-description"
                    value=description disabled=busy />
                <p class="muted" data-testid="secret-replaces" hidden=move || !exists()>
                    {t!("settings.secrets.replaces")}
                </p>
                <p class="field-error" role="alert" data-testid="secret-error" hidden=move || error.with(Option::is_none)>
                    {move || error.get().unwrap_or_default()}
                </p>
                <p class="ok-note" role="status" data-testid="secret-saved" hidden=move || saved.with(Option::is_none)>
                    {move || saved.get().map(|n| t!("settings.secrets.saved", name = n)).unwrap_or_default()}
                </p>
                <div class="form-actions">
                    <button type="submit" class="btn primary" data-testid="secret-save" disabled=move || busy.get()>
                        {move || if busy.get() { t!("settings.common.saving") } else if exists() { t!("settings.common.replace") } else { t!("settings.secrets.add") }}
                    </button>
                </div>
            </form>
            {move || deleting.get().map(|n| view! {
                <DeleteSecretDialog name=n deleting=deleting on_deleted=Callback::new(move |_| reload.update(|r| *r += 1)) />
            })}
        </div>
    }
}

/// The loaded secrets (or why there are none).
fn secret_list(
    r: Result<Vec<SecretItem>, ApiError>,
    reload: RwSignal<u32>,
    deleting: RwSignal<Option<String>>,
) -> AnyView {
    let states = ListStates {
        prefix: "secrets",
        error_testid: None,
    };
    loaded(
        r,
        states,
        t!("settings.secrets.unavailable"),
        Some((t!("settings.secrets.empty"), Vec::is_empty)),
        reload,
        |items| {
            view! {
                <ul class="secret-list" data-testid="secret-list">
                    {items.into_iter().map(|s| view! { <SecretRow item=s deleting=deleting /> }).collect_view()}
                </ul>
            }
            .into_any()
        },
    )
}

/// Stores the secret; the form is emptied once it is saved.
#[allow(clippy::too_many_arguments)]
fn save_action(
    backends: BackendsCtx,
    busy: RwSignal<bool>,
    name: RwSignal<String>,
    value: RwSignal<String>,
    description: RwSignal<String>,
    saved: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    reload: RwSignal<u32>,
) -> Action<(String, String, String), ()> {
    Action::new_local(move |(n, v, d): &(String, String, String)| {
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
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

#[component]
fn SecretRow(item: SecretItem, deleting: RwSignal<Option<String>>) -> impl IntoView {
    let name = item.name.clone();
    let label = t!("settings.secrets.delete_label", name = item.name);
    view! {
        <li class="secret-row" data-testid="secret-row" data-name=item.name.clone()>
            <code class="secret-name">{item.name.clone()}</code>
            <span class="muted secret-description">{item.description.unwrap_or_default()}</span>
            <span class="muted secret-value" aria-label=t!("settings.secrets.value_hidden")>"••••••"</span>
            <button type="button" class="btn small danger" data-testid="delete-secret" aria-label=label
                on:click=move |_| deleting.set(Some(name.clone()))>{t!("settings.common.delete")}</button>
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
    let text = t!("settings.secrets.delete_text", name = name);
    view! {
        <ConfirmDialog title=t!("settings.secrets.delete_title") testid="delete-secret-dialog"
            confirm_testid="confirm-delete-secret" text=text verb=t!("settings.common.delete")
            busy_verb=t!("settings.common.deleting")
            gone_is_done=true on_close=Callback::new(move |_| deleting.set(None)) on_done=on_deleted
            run=move || {
                let (n, active) = (name.clone(), backends.active.get_untracked());
                async move { svc::delete_secret(backends, &active, &n).await }
            } />
    }
}
