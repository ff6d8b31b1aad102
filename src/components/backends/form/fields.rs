//! The backend form's fields and the connection test's outcome.

use crate::services::backends::TestOutcome;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::{say, t};
use canvas_core::backends::form::infer_kind;
use canvas_core::backends::record::BackendKind;
use leptos::prelude::*;

fn kind_value(k: Option<BackendKind>) -> &'static str {
    k.map_or("auto", BackendKind::as_str)
}

#[component]
fn FieldError(#[prop(into)] id: String, error: Signal<Option<String>>) -> impl IntoView {
    view! {
        <p class="field-error" id=id data-testid="field-error" role="alert" hidden=move || error.get().is_none()>
            {move || error.get().unwrap_or_default()}
        </p>
    }
}

/// The name field (hidden when the caller fixes the name).
pub(super) fn name_field(
    ids: StoredValue<(String, String, String, String)>,
    name: RwSignal<String>,
    name_err: Signal<Option<String>>,
) -> impl IntoView {
    let name_id = ids.get_value().0;
    view! {
        <div class="field">
            <label for=ids.get_value().0>{t!("backends.form.name")}</label>
            <input
                id=ids.get_value().0
                name="name"
                data-testid="backend-name"
                autocomplete="off"
                required
                aria-invalid=move || name_err.get().is_some().to_string()
                aria-describedby=format!("{}-err", ids.get_value().0)
                prop:value=move || name.get()
                on:input=move |ev| name.set(event_target_value(&ev))
            />
            <FieldError id=format!("{name_id}-err") error=name_err />
        </div>
    }
}

/// The host field, with the hosts other backends and the page offer.
pub(super) fn host_field(
    host_id: &str,
    host: RwSignal<String>,
    host_err: Signal<Option<String>>,
    host_fixed: bool,
    test_result: RwSignal<Option<TestOutcome>>,
    backends: BackendsCtx,
) -> impl IntoView {
    let host_id = host_id.to_string();
    view! {
        <div class="field">
            <label for=host_id.clone()>{t!("backends.form.host")}</label>
            <input
                id=host_id.clone()
                name="host"
                data-testid="backend-host"
                placeholder="http://localhost:8000"
                list=format!("{host_id}-offered")
                autocomplete="off"
                spellcheck="false"
                readonly=host_fixed
                aria-invalid=move || host_err.get().is_some().to_string()
                aria-describedby=format!("{host_id}-err")
                prop:value=move || host.get()
                on:input=move |ev| {
                    host.set(event_target_value(&ev));
                    test_result.set(None);
                }
            />
            <datalist id=format!("{host_id}-offered") data-testid="offered-hosts">
                {crate::services::backends::offered_hosts(backends).into_iter().map(|h| view! { <option value=h /> }).collect_view()}
            </datalist>
            <FieldError id=format!("{host_id}-err") error=host_err />
        </div>
    }
}

/// The API key field.
pub(super) fn key_field(
    key_id: &str,
    api_key: RwSignal<String>,
    key_err: Signal<Option<String>>,
    test_result: RwSignal<Option<TestOutcome>>,
) -> impl IntoView {
    let key_id = key_id.to_string();
    view! {
        <div class="field">
            <label for=key_id.clone()>{t!("backends.form.api_key")}</label>
            <input
                id=key_id.clone()
                name="api-key"
                type="password"
                data-testid="backend-api-key"
                autocomplete="off"
                spellcheck="false"
                aria-invalid=move || key_err.get().is_some().to_string()
                aria-describedby=format!("{key_id}-err")
                prop:value=move || api_key.get()
                on:input=move |ev| {
                    api_key.set(event_target_value(&ev));
                    test_result.set(None);
                }
            />
            <FieldError id=format!("{key_id}-err") error=key_err />
        </div>
    }
}

/// The kind: automatic (what the host suggests) or one of the kinds.
pub(super) fn kind_field(
    kind_id: &str,
    kind: RwSignal<Option<BackendKind>>,
    host: RwSignal<String>,
    test_result: RwSignal<Option<TestOutcome>>,
) -> impl IntoView {
    let kind_id = kind_id.to_string();
    let inferred = move || infer_kind(&host.get());
    view! {
        <div class="field">
            <label for=kind_id.clone()>{t!("backends.form.kind")}</label>
            <select
                id=kind_id.clone()
                name="kind"
                data-testid="backend-kind"
                prop:value=move || kind_value(kind.get())
                on:change=move |ev| {
                    kind.set(BackendKind::parse(&event_target_value(&ev)));
                    test_result.set(None);
                }
            >
                <option value="auto">
                    {move || t!("backends.form.kind_automatic", kind = say(&inferred().label_text()))}
                </option>
                {BackendKind::CHOICES.map(|k| view! { <option value=k.as_str()>{say(&k.choice_label_text())}</option> }).collect_view()}
            </select>
        </div>
    }
}

/// "Testing…", then what the connection test found.
pub(super) fn test_result_view(
    testing: RwSignal<bool>,
    test_result: RwSignal<Option<TestOutcome>>,
) -> impl IntoView {
    view! {
        <div class="test-result" data-testid="test-result" aria-live="polite"
            data-outcome=move || match test_result.get() {
                None => "",
                Some(TestOutcome::Failed { .. }) => "failed",
                Some(_) => "ok",
            }
        >
            {move || testing.get().then(|| view! { <span class="muted">{t!("backends.form.testing")}</span> })}
            {move || test_result.get().map(|r| match r {
                TestOutcome::Connected { version, orgs: None } => view! {
                    <p class="ok">{t!("backends.form.connected_version")}" "
                        <strong data-testid="test-version">{version.unwrap_or_else(|| t!("backends.form.version_unknown"))}</strong>
                    </p>
                }.into_any(),
                TestOutcome::Connected { orgs: Some(orgs), .. } => view! {
                    <div class="ok">
                        <p>{t!("backends.form.connected_orgs")}</p>
                        <ul data-testid="test-orgs">
                            {orgs.into_iter().map(|o| view! { <li>{o}</li> }).collect_view()}
                        </ul>
                    </div>
                }.into_any(),
                TestOutcome::Failed { message: msg, .. } => view! {
                    <p class="bad" role="alert" data-testid="test-error">{msg}</p>
                }.into_any(),
            })}
        </div>
    }
}
