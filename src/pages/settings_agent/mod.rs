//! `/settings/agent` (issue #13; in the settings chunk): the agent's and new conversations'
//! settings as forms the agent server's own schemas generate (`canvas_core::settings_form`).
//! The schema decides the fields, their editors, choices, defaults and help; minor fields wait
//! under "Show advanced"; a field whose condition is off hides; secrets are write-only; only
//! what changed is sent, in one `PATCH /api/settings`. Enter saves; a wrong value is named at
//! its field and nothing is sent.

use crate::services::settings::{self as svc, AgentForms};
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use canvas_core::settings_form::{
    agent_kind, applies, build_diff, current, display, editor, effective, is_empty_diff,
    variant_patch, variants, visible, Editor, Field, Schema, SchemaKind, EDITED_ELSEWHERE,
};
use leptos::prelude::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The edits of one form: field key → the text its editor holds.
type Edits = RwSignal<BTreeMap<String, String>>;

#[component]
pub fn AgentSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let data = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::agent_forms(backends, &active).await }
    });
    let body = move || {
        data.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="agent-settings-unavailable">
                    "Agent settings are not available on this backend."
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <div class="error" role="alert" data-testid="agent-settings-error">
                    <p>{e.user_message()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>"Try again"</button>
                </div>
            }
            .into_any(),
            Ok(forms) => view! { <AgentForm forms=forms reload=reload /> }.into_any(),
        })
    };
    view! {
        <div class="settings-section" data-testid="settings-agent">
            <Suspense fallback=|| view! { <p class="loading" data-testid="agent-settings-loading">"Loading the agent settings…"</p> }>
                {body}
            </Suspense>
        </div>
    }
}

/// One schema's form state.
#[derive(Clone)]
struct Form {
    kind: SchemaKind,
    schema: Arc<Schema>,
    values: Arc<Value>,
    edits: Edits,
}

impl Form {
    fn new(kind: SchemaKind, schema: Schema, values: Value) -> Form {
        Form {
            kind,
            schema: Arc::new(schema),
            values: Arc::new(values),
            edits: RwSignal::new(BTreeMap::new()),
        }
    }

    /// A field's value as the form has it now (tracks the edits).
    fn lookup(&self, key: &str) -> Value {
        let Some(f) = self
            .schema
            .sections
            .iter()
            .flat_map(|s| &s.fields)
            .find(|f| f.key == key)
        else {
            return Value::Null;
        };
        self.edits
            .with(|e| effective(f, &self.values, e.get(key).map(String::as_str)))
    }
}

#[component]
fn AgentForm(forms: AgentForms, reload: RwSignal<u32>) -> impl IntoView {
    let backends = use_backends();
    let kind = agent_kind(&forms.settings.agent_settings);
    let mut all = vec![Form::new(
        SchemaKind::Agent,
        forms.agent,
        forms.settings.agent_settings.clone(),
    )];
    if let Some(c) = forms.conversation {
        all.push(Form::new(
            SchemaKind::Conversation,
            c,
            forms.settings.conversation_settings.clone(),
        ));
    }
    let all = Arc::new(all);
    let advanced = RwSignal::new(false);
    let errors = RwSignal::new(BTreeMap::<String, String>::new());
    let message = RwSignal::new(None::<(bool, String)>);
    let busy = RwSignal::new(false);
    let changed = {
        let all = all.clone();
        move || {
            all.iter()
                .map(|f| f.edits.with(BTreeMap::len))
                .sum::<usize>()
        }
    };
    let changed = Memo::new(move |_| changed());
    // One PATCH (the form's changes, or switching the agent); `failed` prefixes an error.
    let save = Action::new_local(move |(patch, failed): &(Value, &'static str)| {
        let (patch, failed) = (patch.clone(), *failed);
        let active = backends.active.get_untracked();
        async move {
            let r = svc::save_agent_forms(backends, &active, &patch).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                // Read back what the server now holds (the form starts over from it).
                Ok(()) => reload.update(|r| *r += 1),
                Err(e) => message.set(Some((false, format!("{failed}{}", e.user_message())))),
            }
        }
    });
    let submit = {
        let all = all.clone();
        move |ev: web_sys::SubmitEvent| {
            ev.prevent_default();
            if busy.get_untracked() {
                return;
            }
            let mut patch = Map::new();
            let mut wrong = BTreeMap::new();
            for f in all.iter() {
                let edits: Vec<(String, String)> = f.edits.get_untracked().into_iter().collect();
                match build_diff(&f.schema, &f.values, &edits) {
                    Ok(d) if is_empty_diff(&d) => {}
                    Ok(d) => {
                        patch.insert(f.kind.diff_member().to_string(), d);
                    }
                    Err(errs) => wrong.extend(errs),
                }
            }
            if let Some(first) = wrong.keys().next() {
                focus_field(first);
                message.set(Some((
                    false,
                    "Nothing was saved: fix the fields marked below.".into(),
                )));
                errors.set(wrong);
                return;
            }
            errors.set(BTreeMap::new());
            if patch.is_empty() {
                message.set(Some((true, "Nothing changed.".into())));
                return;
            }
            message.set(None);
            busy.set(true);
            save.dispatch((Value::Object(patch), ""));
        }
    };
    let discard = {
        let all = all.clone();
        move |_: web_sys::MouseEvent| {
            for f in all.iter() {
                f.edits.set(BTreeMap::new());
            }
            errors.set(BTreeMap::new());
            message.set(None);
            reload.update(|r| *r += 1);
        }
    };
    let variant_note = match kind.as_str() {
        "acp" => "This server runs an ACP agent: the settings below are the ones it uses.",
        _ => "This server runs the OpenHands agent.",
    };
    // Switching the agent: its own request (the form then shows that agent's settings).
    let kinds = variants(&all[0].schema, &kind);
    let kind_select = (kinds.len() > 1).then(|| {
        let current = kind.clone();
        let options = kinds
            .into_iter()
            .map(|k| {
                let label = match k.as_str() {
                    "openhands" => "OpenHands agent".to_string(),
                    "acp" => "ACP agent (an external coding agent)".to_string(),
                    other => other.to_string(),
                };
                view! { <option value=k.clone() selected={k == current}>{label}</option> }
            })
            .collect_view();
        view! {
            <label class="field">"Agent"
                <select data-testid="agent-kind-select" disabled={move || busy.get() || changed.get() > 0}
                    title="Save or discard your changes first"
                    on:change=move |ev| {
                        let to = event_target_value(&ev);
                        if !busy.get_untracked() {
                            busy.set(true);
                            message.set(None);
                            save.dispatch((variant_patch(&to), "The agent was not switched: "));
                        }
                    }>
                    {options}
                </select>
            </label>
        }
    });
    let forms_view = all
        .iter()
        .map(|f| {
            let heading = match f.kind {
                SchemaKind::Agent => "Agent",
                SchemaKind::Conversation => "New conversations",
            };
            let sections = f
                .schema
                .sections
                .iter()
                .filter(|s| applies(s.variant.as_deref(), &kind))
                .map(|s| {
                    let fields: Vec<Field> = s
                        .fields
                        .iter()
                        .filter(|fl| {
                            applies(fl.variant.as_deref(), &kind)
                                && !EDITED_ELSEWHERE.contains(&fl.key.as_str())
                        })
                        .cloned()
                        .collect();
                    let shown = {
                        let (f, fields, kind) = (f.clone(), fields.clone(), kind.clone());
                        Memo::new(move |_| {
                            let adv = advanced.get();
                            fields
                                .iter()
                                .any(|fl| visible(fl, &kind, adv, &|k| f.lookup(k)))
                        })
                    };
                    let rows = fields
                        .into_iter()
                        .map(|fl| {
                            view! { <FieldRow form=f.clone() field=fl kind=kind.clone() advanced=advanced errors=errors /> }
                        })
                        .collect_view();
                    view! {
                        <fieldset class="settings-group" data-testid=format!("settings-group-{}", s.key)
                            hidden=move || !shown.get()>
                            <legend>{s.label.clone()}</legend>
                            {rows}
                        </fieldset>
                    }
                })
                .collect_view();
            view! {
                <h2 class="settings-heading">{heading}</h2>
                {sections}
            }
        })
        .collect_view();
    view! {
        <form class="form agent-settings" data-testid="agent-settings-form" on:submit=submit novalidate>
            <p class="muted" data-testid="agent-kind" data-kind=kind.clone()>{variant_note}</p>
            {kind_select}
            <label class="check">
                <input type="checkbox" data-testid="settings-advanced"
                    prop:checked=move || advanced.get()
                    on:change=move |ev| advanced.set(event_target_checked(&ev)) />
                " Show advanced settings"
            </label>
            {forms_view}
            <p class="muted" data-testid="mcp-elsewhere">
                "MCP servers have their own page: "
                <a href=crate::links::href("/settings/mcp")>"Settings → MCP"</a>"."
            </p>
            <div class="form-actions sticky-actions">
                <span class="muted" data-testid="settings-unsaved" hidden=move || changed.get() == 0>
                    {move || match changed.get() {
                        1 => "1 unsaved change".to_string(),
                        n => format!("{n} unsaved changes"),
                    }}
                </span>
                <p class="field-error" role="alert" data-testid="agent-settings-message"
                    class:ok-note=move || message.with(|m| matches!(m, Some((true, _))))
                    hidden=move || message.with(Option::is_none)>
                    {move || message.get().map(|(_, m)| m).unwrap_or_default()}
                </p>
                <button type="button" class="btn" data-testid="agent-settings-discard"
                    disabled=move || busy.get() || changed.get() == 0 on:click=discard>"Discard"</button>
                <button type="submit" class="btn primary" data-testid="agent-settings-save"
                    disabled=move || busy.get() || changed.get() == 0>
                    {move || if busy.get() { "Saving…" } else { "Save" }}
                </button>
            </div>
        </form>
    }
}

/// The DOM id of a field's editor.
fn field_id(key: &str) -> String {
    format!("setting-{}", key.replace('.', "-"))
}

fn focus_field(key: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = document()
        .get_element_by_id(&field_id(key))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

#[component]
fn FieldRow(
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
    let initial = canvas_core::settings_form::to_text(&field, &stored);
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
            "Not set.".to_string()
        } else {
            "Set. Type a new value to replace it; leave empty to keep it.".to_string()
        }),
        _ if !field.default.is_null() => Some(format!("Default: {}", display(&field.default))),
        _ => None,
    };
    let input = match editor(&field) {
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
                options.push((String::new(), "Not set".into()));
            }
            if matches!(editor(&field), Editor::TriState) {
                options.push(("true".into(), "On".into()));
                options.push(("false".into(), "Off".into()));
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
            let mode = match editor(&field) {
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
    };
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
