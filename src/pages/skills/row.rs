//! One skill of the merged list.

use crate::components::chat::markdown::Markdown;
use crate::links::use_go;
use crate::services::skills as svc;
use crate::state::i18n::{t, Said};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::skills::{use_skill_text, MergedSkill};
use leptos::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// One skill of the merged list.
#[component]
pub(super) fn SkillRow(
    s: MergedSkill,
    active: ActiveBackend,
    home: String,
    expanded: RwSignal<BTreeSet<String>>,
    busy: RwSignal<Option<String>>,
    errors: RwSignal<BTreeMap<String, String>>,
    on_toggle: Callback<(String, bool)>,
) -> impl IntoView {
    let go = use_go();
    let name = s.skill.name.clone();
    let kind = s.kind();
    let disabled = s.disabled;
    let tier = s.tier;
    let content_id = format!(
        "skill-content-{}",
        canvas_core::backends::url::path_segment(&name)
    );
    let content_id_inner = content_id.clone();
    let is_open = {
        let name = name.clone();
        move || expanded.with(|e| e.contains(&name))
    };
    let flip_open = {
        let name = name.clone();
        move |_| {
            expanded.update(|e| {
                if !e.remove(&name) {
                    e.insert(name.clone());
                }
            })
        }
    };
    let use_error = RwSignal::new(None::<String>);
    let use_text = use_skill_text(&s.skill);
    let use_skill = move |_| match svc::set_launcher_prefill(&active, &use_text) {
        Ok(()) => go(&home, false),
        Err(e) => use_error.set(Some(t!(
            "skills.use_error",
            text = use_text,
            error = e.said()
        ))),
    };
    let toggle_name = name.clone();
    let busy_name = name.clone();
    let error_name = name.clone();
    let hidden_name = name.clone();
    let facts = skill_facts(&s);
    let content = s.skill.content.clone();
    let description = s.skill.description.clone().filter(|d| !d.trim().is_empty());
    view! {
        <li class="skill-row" class:skill-off=disabled data-testid="skill-row" data-skill=name.clone()
            data-tier=tier.label() data-kind=kind.param() data-disabled=disabled.to_string()>
            <div class="skill-main">
                <span class="skill-name" data-testid="skill-name">{name.clone()}</span>
                <span class=format!("badge skill-tier tier-{}", tier.label().to_lowercase())
                    data-testid="skill-tier">{crate::state::i18n::say(&tier.label_text())}</span>
                <span class="badge skill-kind" data-testid="skill-kind">{crate::state::i18n::say(&kind.label_text())}</span>
                {disabled.then(|| view! {
                    <span class="badge skill-disabled" data-testid="skill-disabled">{t!("skills.disabled_badge")}</span>
                })}
            </div>
            {description.map(|d| view! { <p class="skill-description" data-testid="skill-description">{d}</p> })}
            {facts}
            <div class="skill-actions">
                <button type="button" class="btn small" data-testid="skill-expand"
                    aria-expanded={let o = is_open.clone(); move || o().to_string()} aria-controls=content_id
                    on:click=flip_open>
                    {let o = is_open.clone(); move || if o() { t!("skills.hide_content") } else { t!("skills.show_content") }}
                </button>
                <button type="button" class="btn small" data-testid="skill-toggle"
                    aria-label=if disabled { t!("skills.enable_named", name = name) } else { t!("skills.disable_named", name = name) }
                    disabled=move || busy.get().is_some()
                    on:click=move |_| on_toggle.run((toggle_name.clone(), !disabled))>
                    {move || match busy.get() {
                        Some(n) if n == busy_name => if disabled { t!("skills.enabling") } else { t!("skills.disabling") },
                        _ => if disabled { t!("skills.enable") } else { t!("skills.disable") },
                    }}
                </button>
                <button type="button" class="btn small" data-testid="skill-use" on:click=use_skill>
                    {t!("skills.use")}
                </button>
            </div>
            <p class="field-error" role="alert" data-testid="skill-error"
                hidden=move || errors.with(|m| !m.contains_key(&hidden_name)) && use_error.with(Option::is_none)>
                {move || use_error.get().or_else(|| errors.with(|m| m.get(&error_name).cloned())).unwrap_or_default()}
            </p>
            <Show when=is_open>
                <div class="skill-content" id=content_id_inner.clone() data-testid="skill-content">
                    <Markdown text=content.clone() />
                </div>
            </Show>
        </li>
    }
}

/// Triggers, source, what the skill overrides and where else it was found (ignored).
fn skill_facts(s: &MergedSkill) -> impl IntoView {
    let triggers = (!s.skill.triggers.is_empty()).then(|| {
        let chips = s
            .skill
            .triggers
            .iter()
            .map(|t| view! { <code class="skill-trigger" data-testid="skill-trigger">{t.clone()}</code> })
            .collect_view();
        view! { <dt>{t!("skills.fact.triggers")}</dt><dd class="skill-triggers">{chips}</dd> }
    });
    let overrides = (!s.overrides.is_empty()).then(|| {
        let items = s
            .overrides
            .iter()
            .map(|(t, src)| {
                let src = src.clone().unwrap_or_else(|| t!("skills.built_in"));
                view! {
                    <li data-testid="skill-override" data-tier=t.label()>
                        {format!("{} ", crate::state::i18n::say(&t.label_text()))}<code>{src}</code>
                    </li>
                }
            })
            .collect_view();
        view! { <dt>{t!("skills.fact.overrides")}</dt><dd><ul class="skill-overrides">{items}</ul></dd> }
    });
    let shadowed = (!s.shadowed.is_empty()).then(|| {
        let items = s
            .shadowed
            .iter()
            .map(|src| {
                let src = src.clone().unwrap_or_else(|| t!("skills.built_in"));
                view! { <li><code>{src}</code></li> }
            })
            .collect_view();
        view! { <dt>{t!("skills.fact.also_found")}</dt><dd><ul class="skill-overrides">{items}</ul></dd> }
    });
    let source = s
        .skill
        .source
        .clone()
        .unwrap_or_else(|| t!("skills.built_in"));
    view! {
        <dl class="skill-facts">
            {triggers}
            <dt>{t!("skills.fact.source")}</dt>
            <dd><code data-testid="skill-source">{source}</code></dd>
            {overrides}
            {shadowed}
        </dl>
    }
}
