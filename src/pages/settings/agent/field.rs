//! One field of a settings form: its editor, help, default and error.

use super::Form;
use crate::state::i18n::t;
use canvas_core::settings::form::{current, display, editor, visible, Editor, Field};
use leptos::prelude::*;
use std::collections::BTreeMap;

/// The DOM id of a field's editor.
fn field_id(key: &str) -> String {
    format!("setting-{}", key.replace('.', "-"))
}

pub(super) fn focus_field(key: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = document()
        .get_element_by_id(&field_id(key))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

#[component]
pub(super) fn FieldRow(
    form: Form,
    field: Field,
    kind: String,
    advanced: RwSignal<bool>,
    errors: RwSignal<BTreeMap<String, String>>,
) -> impl IntoView {
    let shown = {
        let (form, field) = (form.clone(), field.clone());
        Memo::new(move |_| visible(&field, &kind, advanced.get(), &|k| form.lookup(k)))
    };
    let key = field.key.clone();
    let id = field_id(&key);
    let stored = current(&field, &form.values);
    let initial = canvas_core::settings::form::to_text(&field, &stored);
    let edits = form.edits;
    let set = {
        let (key, initial) = (key.clone(), initial.clone());
        move |text: String| {
            edits.update(|e| {
                if text == initial {
                    e.remove(&key);
                } else {
                    e.insert(key.clone(), text);
                }
            });
            errors.update(|e| {
                e.remove(&key);
            });
        }
    };
    let error = {
        let key = key.clone();
        move || errors.with(|e| e.get(&key).cloned())
    };
    let invalid = {
        let error = error.clone();
        move || error().is_some().then_some("true")
    };
    let error_hidden = {
        let error = error.clone();
        move || error().is_none()
    };
    let testid = format!("setting-{key}");
    let hint = match editor(&field) {
        Editor::Secret => Some(if display(&stored).is_empty() {
            t!("settings.agent.secret_not_set")
        } else {
            t!("settings.agent.secret_set")
        }),
        _ if !field.default.is_null() => Some(t!(
            "settings.agent.default",
            value = display(&field.default)
        )),
        _ => None,
    };
    let input = field_input(&field, &id, &initial, invalid, set);
    view! {
        <div class="field setting" data-testid=testid data-key=key.clone() hidden=move || !shown.get()>
            <label for=id>{field.label.clone()}</label>
            {input}
            {field.description.clone().map(|d| view! { <small class="muted help">{d}</small> })}
            {hint.map(|h| view! { <small class="muted">{h}</small> })}
            <p class="field-error" role="alert" hidden=error_hidden>{move || error().unwrap_or_default()}</p>
        </div>
    }
}

/// The editor the schema asks for: checkbox, select, JSON, secret or text.
fn field_input(
    field: &Field,
    id: &str,
    initial: &str,
    invalid: impl Fn() -> Option<&'static str> + Clone + Send + Sync + 'static,
    set: impl Fn(String) + Clone + 'static,
) -> AnyView {
    let (id, initial) = (id.to_string(), initial.to_string());
    match editor(field) {
        Editor::Checkbox => {
            let checked = initial == "true";
            view! {
                <input type="checkbox" id=id.clone() data-testid="setting-input" prop:checked=checked
                    on:change=move |ev| set(event_target_checked(&ev).to_string()) />
            }
            .into_any()
        }
        Editor::TriState | Editor::Select => {
            let mut options: Vec<(String, String)> = Vec::new();
            let nullable = field.default.is_null() || initial.is_empty();
            if nullable {
                options.push((String::new(), t!("settings.agent.not_set")));
            }
            if matches!(editor(field), Editor::TriState) {
                options.push(("true".into(), t!("settings.agent.on")));
                options.push(("false".into(), t!("settings.agent.off")));
            } else {
                options.extend(
                    field
                        .choices
                        .iter()
                        .enumerate()
                        .map(|(i, c)| (i.to_string(), c.label.clone())),
                );
            }
            let opts = options
                .into_iter()
                .map(|(v, label)| {
                    let selected = v == initial;
                    view! { <option value=v selected=selected>{label}</option> }
                })
                .collect_view();
            view! {
                <select id=id.clone() data-testid="setting-input" aria-invalid=invalid
                    on:change=move |ev| set(event_target_value(&ev))>{opts}</select>
            }
            .into_any()
        }
        Editor::Json => view! {
            <textarea id=id.clone() data-testid="setting-input" rows="3" spellcheck="false"
                class="mono" aria-invalid=invalid prop:value=initial.clone()
                on:input=move |ev| set(event_target_value(&ev))></textarea>
        }
        .into_any(),
        Editor::Secret => view! {
            <input type="password" id=id.clone() data-testid="setting-input" autocomplete="new-password"
                aria-invalid=invalid on:input=move |ev| set(event_target_value(&ev)) />
        }
        .into_any(),
        Editor::Integer | Editor::Number | Editor::Text => {
            let mode = match editor(field) {
                Editor::Integer => "numeric",
                Editor::Number => "decimal",
                _ => "text",
            };
            view! {
                <input type="text" id=id.clone() data-testid="setting-input" inputmode=mode
                    autocomplete="off" spellcheck="false" aria-invalid=invalid prop:value=initial.clone()
                    on:input=move |ev| set(event_target_value(&ev)) />
            }
            .into_any()
        }
    }
}
