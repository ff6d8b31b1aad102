//! The add / edit backend form. The rules (kind inference, host normalization, validation) are
//! `canvas_core::backend_form`; this view only shows what they say.

use crate::state::backends::{test_connection, use_backends, TestOutcome};
use canvas_core::backend::{AuthMode, Backend, BackendKind};
use canvas_core::backend_form::{infer_kind, validate, BackendForm as FormInput, FormErrors};
use canvas_core::registry::BackendDraft;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// What saving does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormMode {
    /// Add a new backend (random id); it becomes active.
    Add,
    /// Edit the backend with this id.
    Edit(String),
    /// Add or update the backend with this fixed id (the locked cloud's key entry).
    Upsert(String),
}

/// Fields the caller fixes (the locked cloud host: only the key is asked).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fixed {
    pub name: Option<String>,
    pub host: Option<String>,
    pub kind: Option<BackendKind>,
    /// Saved with this auth mode.
    pub auth_mode: Option<AuthMode>,
}

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

#[component]
pub fn BackendForm(
    mode: FormMode,
    /// Called after a successful save.
    on_done: Callback<()>,
    #[prop(optional)] fixed: Fixed,
    /// Text of the save button.
    #[prop(into, default = "Save".to_string())]
    submit_label: String,
) -> impl IntoView {
    let backends = use_backends();
    let existing: Option<Backend> = match &mode {
        FormMode::Edit(id) | FormMode::Upsert(id) => backends
            .backends
            .with_untracked(|b| b.iter().find(|x| &x.id == id).cloned()),
        FormMode::Add => None,
    };
    let name = RwSignal::new(
        fixed
            .name
            .clone()
            .or_else(|| existing.as_ref().map(|b| b.name.clone()))
            .unwrap_or_default(),
    );
    let host = RwSignal::new(
        fixed
            .host
            .clone()
            .or_else(|| existing.as_ref().map(|b| b.host.clone()))
            .unwrap_or_default(),
    );
    let api_key = RwSignal::new(
        existing
            .as_ref()
            .map(|b| b.api_key.clone())
            .unwrap_or_default(),
    );
    // An existing record keeps its kind unless the user changes it.
    let kind = RwSignal::new(fixed.kind.or(existing.as_ref().map(|b| b.kind)));
    let cookie_mode = existing.as_ref().is_some_and(|b| b.uses_cookie_auth());
    let errors = RwSignal::new(FormErrors::default());
    let save_error = RwSignal::new(None::<String>);
    let test_result = RwSignal::new(None::<TestOutcome>);
    let testing = RwSignal::new(false);
    let fixed = StoredValue::new(fixed);
    let mode = StoredValue::new(mode);
    let uid = crate::state::backends::new_uuid_v4();
    let ids = StoredValue::new((
        format!("bf-name-{uid}"),
        format!("bf-host-{uid}"),
        format!("bf-key-{uid}"),
        format!("bf-kind-{uid}"),
    ));

    let inferred = move || infer_kind(&host.get());
    let input = move || FormInput {
        name: name.get_untracked(),
        host: host.get_untracked(),
        api_key: api_key.get_untracked(),
        kind: kind.get_untracked(),
        cookie_mode,
    };
    let draft = move || -> Option<BackendDraft> {
        match validate(&input()) {
            Ok(mut d) => {
                errors.set(FormErrors::default());
                if let Some(m) = fixed.with_value(|f| f.auth_mode) {
                    d.auth_mode = Some(m);
                }
                Some(d)
            }
            Err(e) => {
                errors.set(e);
                None
            }
        }
    };

    let test = Action::new_local(move |target: &Backend| {
        let target = target.clone();
        async move {
            let out = test_connection(backends, target).await;
            test_result.set(Some(out));
            testing.set(false);
        }
    });
    let on_test = move |_| {
        let Some(d) = draft() else { return };
        let probe_target = Backend {
            auth_mode: d.auth_mode,
            ..Backend::new("connection-test", d.name, d.host, d.api_key, d.kind)
        };
        testing.set(true);
        test_result.set(None);
        test.dispatch(probe_target);
    };

    let form_ref = NodeRef::<html::Form>::new();
    // After a refused submit, focus goes to the first field with an error.
    let focus_first_invalid = move || {
        let first = form_ref.get_untracked().and_then(|f| {
            f.query_selector("[aria-invalid=true]")
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        });
        if let Some(el) = first {
            let _ = el.focus();
        }
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(d) = draft() else {
            // The error attributes are set by the signals' render effects: focus afterwards.
            request_animation_frame(focus_first_invalid);
            return;
        };
        let result = match mode.get_value() {
            FormMode::Add => backends.add(d).map(|_| ()),
            FormMode::Edit(id) => backends.update(&id, d),
            FormMode::Upsert(id) => backends.upsert_with_id(&id, d),
        };
        // Saving can replace the page this form is on (the first backend ends the onboarding):
        // then the form is gone and there is nothing left to update.
        match result {
            Ok(()) => {
                if save_error.try_get_untracked().flatten().is_some() {
                    let _ = save_error.try_set(None);
                }
                on_done.try_run(());
            }
            Err(e) => {
                let _ = save_error.try_set(Some(e.to_string()));
            }
        }
    };

    let err = |f: fn(&FormErrors) -> Option<String>| Signal::derive(move || errors.with(f));
    let name_err = err(|e| e.name.clone());
    let host_err = err(|e| e.host.clone());
    let key_err = err(|e| e.api_key.clone());
    let (name_id, host_id, key_id, kind_id) = ids.get_value();
    let name_fixed = fixed.with_value(|f| f.name.is_some());
    let host_fixed = fixed.with_value(|f| f.host.is_some());
    let kind_fixed = fixed.with_value(|f| f.kind.is_some());

    view! {
        <form class="backend-form" data-testid="backend-form" novalidate node_ref=form_ref on:submit=on_submit>
            <Show when=move || !name_fixed>
                <div class="field">
                    <label for=ids.get_value().0>"Name"</label>
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
            </Show>
            <div class="field">
                <label for=host_id.clone()>"Host"</label>
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
                    {crate::state::backends::offered_hosts(backends).into_iter().map(|h| view! { <option value=h /> }).collect_view()}
                </datalist>
                <FieldError id=format!("{host_id}-err") error=host_err />
            </div>
            <div class="field">
                <label for=key_id.clone()>"API key"</label>
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
            <Show when=move || !kind_fixed>
                <div class="field">
                    <label for=kind_id.clone()>"Kind"</label>
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
                            {move || format!("Automatic ({})", inferred().label())}
                        </option>
                        {BackendKind::CHOICES.map(|k| view! { <option value=k.as_str()>{k.choice_label()}</option> }).collect_view()}
                    </select>
                </div>
            </Show>
            <div class="test-result" data-testid="test-result" aria-live="polite"
                data-outcome=move || match test_result.get() {
                    None => "",
                    Some(TestOutcome::Failed { .. }) => "failed",
                    Some(_) => "ok",
                }
            >
                {move || testing.get().then(|| view! { <span class="muted">"Testing…"</span> })}
                {move || test_result.get().map(|r| match r {
                    TestOutcome::Connected { version, orgs: None } => view! {
                        <p class="ok">"Connected. Server version "
                            <strong data-testid="test-version">{version.unwrap_or_else(|| "(unknown)".into())}</strong>
                        </p>
                    }.into_any(),
                    TestOutcome::Connected { orgs: Some(orgs), .. } => view! {
                        <div class="ok">
                            <p>"Connected. Organizations:"</p>
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
            // `try_get`: after a save that replaced the page, these may run once more.
            <p class="field-error" role="alert" hidden=move || save_error.try_get().flatten().is_none()>
                {move || save_error.try_get().flatten().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="test-connection"
                    disabled=move || testing.get() on:click=on_test>
                    "Test connection"
                </button>
                <button type="submit" class="btn primary" data-testid="save-backend">{submit_label}</button>
            </div>
        </form>
    }
}
