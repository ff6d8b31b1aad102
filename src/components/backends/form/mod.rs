//! The add / edit backend form. The rules (kind inference, host normalization, validation) are
//! `canvas_core::backends::form`; this view only shows what they say.

use crate::services::backends::{test_connection, TestOutcome};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::{say, t};
use canvas_core::backends::form::{validate, BackendForm as FormInput, FormErrors};
use canvas_core::backends::record::{AuthMode, Backend, BackendKind};
use canvas_core::backends::registry::BackendDraft;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

mod fields;

use fields::{host_field, key_field, kind_field, name_field, test_result_view};

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

#[component]
pub fn BackendForm(
    mode: FormMode,
    /// Called after a successful save.
    on_done: Callback<()>,
    #[prop(optional)] fixed: Fixed,
    /// Text of the save button.
    #[prop(into, default = t!("backends.form.save"))]
    submit_label: String,
) -> impl IntoView {
    let backends = use_backends();
    let (name, host, api_key, kind, cookie_mode) = initial_values(backends, &mode, &fixed);
    let (name, host, api_key, kind) = (
        RwSignal::new(name),
        RwSignal::new(host),
        RwSignal::new(api_key),
        RwSignal::new(kind),
    );
    let errors = RwSignal::new(FormErrors::default());
    let save_error = RwSignal::new(None::<String>);
    let test_result = RwSignal::new(None::<TestOutcome>);
    let testing = RwSignal::new(false);
    let fixed = StoredValue::new(fixed);
    let mode = StoredValue::new(mode);
    let ids = StoredValue::new(field_ids());

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
                errors.set(*e);
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
    let focus_first_invalid = move || focus_first_invalid(form_ref);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(d) = draft() else {
            // The error attributes are set by the signals' render effects: focus afterwards.
            request_animation_frame(focus_first_invalid);
            return;
        };
        save(backends, mode.get_value(), d, save_error, on_done);
    };

    let err = |f: fn(&FormErrors) -> Option<String>| Signal::derive(move || errors.with(f));
    let name_err = err(|e| e.name.as_ref().map(say));
    let host_err = err(|e| e.host.as_ref().map(say));
    let key_err = err(|e| e.api_key.as_ref().map(say));
    let (_, host_id, key_id, kind_id) = ids.get_value();
    let name_fixed = fixed.with_value(|f| f.name.is_some());
    let host_fixed = fixed.with_value(|f| f.host.is_some());
    let kind_fixed = fixed.with_value(|f| f.kind.is_some());

    view! {
        <form class="backend-form" data-testid="backend-form" novalidate node_ref=form_ref on:submit=on_submit>
            <Show when=move || !name_fixed>
                {name_field(ids, name, name_err)}
            </Show>
            {host_field(&host_id, host, host_err, host_fixed, test_result, backends)}
            {key_field(&key_id, api_key, key_err, test_result)}
            <Show when=move || !kind_fixed>
                {kind_field(&kind_id, kind, host, test_result)}
            </Show>
            {test_result_view(testing, test_result)}
            // `try_get`: after a save that replaced the page, these may run once more.
            <p class="field-error" role="alert" hidden=move || save_error.try_get().flatten().is_none()>
                {move || save_error.try_get().flatten().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="test-connection"
                    disabled=move || testing.get() on:click=on_test>
                    {t!("backends.form.test_connection")}
                </button>
                <button type="submit" class="btn primary" data-testid="save-backend">{submit_label}</button>
            </div>
        </form>
    }
}

/// Ids for the fields' labels (name, host, key, kind), unique to this form: an add and an
/// edit form can be open at once.
fn field_ids() -> (String, String, String, String) {
    let uid = crate::platform::ids::dom_id("bf");
    (
        format!("bf-name-{uid}"),
        format!("bf-host-{uid}"),
        format!("bf-key-{uid}"),
        format!("bf-kind-{uid}"),
    )
}

/// The form's first values: the caller's fixed fields, else the edited record's, else empty
/// (name, host, API key, kind, whether the record signs in with a cookie).
fn initial_values(
    backends: BackendsCtx,
    mode: &FormMode,
    fixed: &Fixed,
) -> (String, String, String, Option<BackendKind>, bool) {
    let existing: Option<Backend> = match &mode {
        FormMode::Edit(id) | FormMode::Upsert(id) => backends
            .backends
            .with_untracked(|b| b.iter().find(|x| &x.id == id).cloned()),
        FormMode::Add => None,
    };
    let name = fixed
        .name
        .clone()
        .or_else(|| existing.as_ref().map(|b| b.name.clone()))
        .unwrap_or_default();
    let host = fixed
        .host
        .clone()
        .or_else(|| existing.as_ref().map(|b| b.host.clone()))
        .unwrap_or_default();
    let api_key = existing
        .as_ref()
        .map(|b| b.api_key.clone())
        .unwrap_or_default();
    // An existing record keeps its kind unless the user changes it.
    let kind = fixed.kind.or(existing.as_ref().map(|b| b.kind));
    let cookie_mode = existing.as_ref().is_some_and(|b| b.uses_cookie_auth());
    (name, host, api_key, kind, cookie_mode)
}

/// Focuses the first field with an error.
fn focus_first_invalid(form_ref: NodeRef<html::Form>) {
    let first = form_ref.get_untracked().and_then(|f| {
        f.query_selector("[aria-invalid=true]")
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    });
    if let Some(el) = first {
        let _ = el.focus();
    }
}

/// Saves the draft as `mode` says; `on_done` once it is saved.
fn save(
    backends: BackendsCtx,
    mode: FormMode,
    d: BackendDraft,
    save_error: RwSignal<Option<String>>,
    on_done: Callback<()>,
) {
    let result = match mode {
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
            let _ = save_error.try_set(Some(say(&e.user_text())));
        }
    }
}
