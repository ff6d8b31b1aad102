//! The agent settings form: the schemas' forms, the agent switch, save and discard.

use super::field::{focus_field, FieldRow};
use super::Form;
use crate::components::check::check_box;
use crate::services::settings::{self as svc, AgentForms};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::Said;
use crate::state::i18n::{say, t, tn};
use canvas_core::settings::form::{
    agent_kind, applies, build_diff_text, is_empty_diff, variant_patch, variants, visible, Field,
    SchemaKind, EDITED_ELSEWHERE,
};
use leptos::prelude::*;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

#[component]
pub(super) fn AgentForm(forms: AgentForms, reload: RwSignal<u32>) -> impl IntoView {
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
    let save = save_action(backends, busy, reload, message);
    let submit = {
        let all = all.clone();
        move |ev: web_sys::SubmitEvent| {
            ev.prevent_default();
            if busy.get_untracked() {
                return;
            }
            submit_forms(&all, errors, message, busy, save);
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
        "acp" => t!("settings.agent.runs_acp"),
        _ => t!("settings.agent.runs_openhands"),
    };
    // Switching the agent: its own request (the form then shows that agent's settings).
    let kinds = variants(&all[0].schema, &kind);
    let kind_select = kind_select(kinds, &kind, busy, changed, message, save);
    let forms_view = forms_view(&all, &kind, advanced, errors);
    view! {
        <form class="form agent-settings" data-testid="agent-settings-form" on:submit=submit novalidate>
            <p class="muted" data-testid="agent-kind" data-kind=kind.clone()>{variant_note}</p>
            {kind_select}
            {check_box("settings-advanced", advanced, format!(" {}", t!("settings.agent.show_advanced")))}
            {forms_view}
            <p class="muted" data-testid="mcp-elsewhere">
                {t!("settings.agent.mcp_elsewhere_before")}
                <a href=crate::links::href("/settings/mcp")>{t!("settings.agent.mcp_elsewhere_link")}</a>
                {t!("settings.agent.mcp_elsewhere_after")}
            </p>
            <div class="form-actions sticky-actions">
                <span class="muted" data-testid="settings-unsaved" hidden=move || changed.get() == 0>
                    {move || tn!("settings.agent.unsaved", changed.get())}
                </span>
                <p class="field-error" role="alert" data-testid="agent-settings-message"
                    class:ok-note=move || message.with(|m| matches!(m, Some((true, _))))
                    hidden=move || message.with(Option::is_none)>
                    {move || message.get().map(|(_, m)| m).unwrap_or_default()}
                </p>
                <button type="button" class="btn" data-testid="agent-settings-discard"
                    disabled=move || busy.get() || changed.get() == 0 on:click=discard>{t!("settings.agent.discard")}</button>
                <button type="submit" class="btn primary" data-testid="agent-settings-save"
                    disabled=move || busy.get() || changed.get() == 0>
                    {move || if busy.get() { t!("settings.common.saving") } else { t!("settings.common.save") }}
                </button>
            </div>
        </form>
    }
}

/// One PATCH (the form's changes, or switching the agent: `switching`, said in an error).
fn save_action(
    backends: BackendsCtx,
    busy: RwSignal<bool>,
    reload: RwSignal<u32>,
    message: RwSignal<Option<(bool, String)>>,
) -> Action<(Value, bool), ()> {
    Action::new_local(move |(patch, switching): &(Value, bool)| {
        let (patch, switching) = (patch.clone(), *switching);
        let active = backends.active.get_untracked();
        async move {
            let r = svc::save_agent_forms(backends, &active, &patch).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                // Read back what the server now holds (the form starts over from it).
                Ok(()) => reload.update(|r| *r += 1),
                Err(e) => {
                    let text = if switching {
                        t!("settings.agent.switch_failed", error = e.said())
                    } else {
                        e.said()
                    };
                    message.set(Some((false, text)));
                }
            }
        }
    })
}

/// Checks every form's edits and sends what changed in one PATCH; a wrong value is named at
/// its field (focused) and nothing is sent.
fn submit_forms(
    all: &[Form],
    errors: RwSignal<BTreeMap<String, String>>,
    message: RwSignal<Option<(bool, String)>>,
    busy: RwSignal<bool>,
    save: Action<(Value, bool), ()>,
) {
    let mut patch = Map::new();
    let mut wrong = BTreeMap::new();
    for f in all.iter() {
        let edits: Vec<(String, String)> = f.edits.get_untracked().into_iter().collect();
        match build_diff_text(&f.schema, &f.values, &edits) {
            Ok(d) if is_empty_diff(&d) => {}
            Ok(d) => {
                patch.insert(f.kind.diff_member().to_string(), d);
            }
            Err(errs) => wrong.extend(errs.into_iter().map(|(k, e)| (k, say(&e)))),
        }
    }
    if let Some(first) = wrong.keys().next() {
        focus_field(first);
        message.set(Some((false, t!("settings.agent.fix_fields"))));
        errors.set(wrong);
        return;
    }
    errors.set(BTreeMap::new());
    if patch.is_empty() {
        message.set(Some((true, t!("settings.agent.nothing_changed"))));
        return;
    }
    message.set(None);
    busy.set(true);
    save.dispatch((Value::Object(patch), false));
}

/// Switching the agent (when the server offers more than one): its own request.
fn kind_select(
    kinds: Vec<String>,
    kind: &str,
    busy: RwSignal<bool>,
    changed: Memo<usize>,
    message: RwSignal<Option<(bool, String)>>,
    save: Action<(Value, bool), ()>,
) -> Option<impl IntoView> {
    (kinds.len() > 1).then(|| {
        let current = kind.to_string();
        let options = kinds
            .into_iter()
            .map(|k| {
                let label = match k.as_str() {
                    "openhands" => t!("settings.agent.kind_openhands"),
                    "acp" => t!("settings.agent.kind_acp"),
                    other => other.to_string(),
                };
                view! { <option value=k.clone() selected={k == current}>{label}</option> }
            })
            .collect_view();
        view! {
            <label class="field">{t!("settings.agent.kind_label")}
                <select data-testid="agent-kind-select" disabled={move || busy.get() || changed.get() > 0}
                    title=t!("settings.agent.switch_blocked")
                    on:change=move |ev| {
                        let to = event_target_value(&ev);
                        if !busy.get_untracked() {
                            busy.set(true);
                            message.set(None);
                            save.dispatch((variant_patch(&to), true));
                        }
                    }>
                    {options}
                </select>
            </label>
        }
    })
}

/// Each schema's form: a heading, then its sections (those of the current agent kind), each
/// shown while one of its fields is.
fn forms_view(
    all: &[Form],
    kind: &str,
    advanced: RwSignal<bool>,
    errors: RwSignal<BTreeMap<String, String>>,
) -> impl IntoView {
    let kind = kind.to_string();
    all
        .iter()
        .map(|f| {
            let heading = match f.kind {
                SchemaKind::Agent => t!("settings.agent.heading_agent"),
                SchemaKind::Conversation => t!("settings.agent.heading_conversations"),
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
        .collect_view()
}
