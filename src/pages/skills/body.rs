//! The skills of one backend and project directory: tiers, the merged list, the project field.

use super::project::project_field;
use super::row::SkillRow;
use super::tiers::{skill_sources, tier_notes, TierState};
use crate::links::pinned;
use crate::services::skills::{self as svc, ProjectDir};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::Said;
use crate::state::i18n::{t, tn};
use canvas_core::backends::selection::{ActiveBackend, CacheScope};
use canvas_core::error::ApiError;
use canvas_core::skills::{KindFilter, MergedSkill};
use leptos::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The page for one backend and project directory (rebuilt when either changes or on reload).
#[component]
pub(super) fn SkillsBody(
    active: ActiveBackend,
    project: ProjectDir,
    kind: RwSignal<Option<KindFilter>>,
    text: RwSignal<String>,
    reload: RwSignal<u32>,
    typed: RwSignal<Option<(CacheScope, String)>>,
) -> impl IntoView {
    let backends = use_backends();
    let (settings, written, merged, states) =
        skill_sources(backends, &active, project.dir.as_deref());
    let all_done = move || states.with(|s| s.iter().all(|(_, st)| *st != TierState::Loading));
    // No tier exists on this backend: its client has no skills (or the server lacks the route).
    let unavailable =
        Memo::new(move |_| states.with(|s| s.iter().all(|(_, st)| *st == TierState::NotAvailable)));

    // One enable/disable at a time (each reads the server's list and writes it back whole).
    let busy = RwSignal::new(None::<String>);
    let row_errors = RwSignal::new(BTreeMap::<String, String>::new());
    let toggle = toggle_action(backends, active.clone(), busy, row_errors, written);
    let on_toggle = Callback::new(move |(name, disable): (String, bool)| {
        if busy.get_untracked().is_some() {
            return;
        }
        busy.set(Some(name.clone()));
        row_errors.update(|m| {
            m.remove(&name);
        });
        toggle.dispatch((name, disable));
    });
    let expanded = RwSignal::new(BTreeSet::<String>::new());
    let home = pinned("/", &active);

    // The project directory field.
    let project_form = project_field(&project, active.clone(), typed);
    let project_dir = project.dir.clone();

    let tier_notes = move || tier_notes(states.get(), reload);

    let list = move || {
        let shown: Vec<MergedSkill> = merged.with(|m| {
            m.filter(kind.get(), &text.get())
                .into_iter()
                .cloned()
                .collect()
        });
        let total = merged.with(|m| m.skills.len());
        let count = shown.len();
        let done = all_done();
        let rows = shown
            .into_iter()
            .map(|s| {
                view! {
                    <SkillRow s=s active=active.clone() home=home.clone() expanded=expanded
                        busy=busy errors=row_errors on_toggle=on_toggle />
                }
            })
            .collect_view();
        let summary = if total == 0 && done {
            t!("skills.none_found")
        } else if count == total {
            tn!("skills.count", total)
        } else {
            tn!("skills.count_filtered", total, shown = count)
        };
        view! {
            <p class="muted skills-count" data-testid="skills-count">{summary}</p>
            <ul class="skill-list" data-testid="skills-list" data-count=count.to_string()
                data-loading=(!done).to_string()>
                {rows}
            </ul>
        }
    };

    let unknown_disabled = move || {
        let names = merged.with(|m| m.unknown_disabled.clone());
        (!names.is_empty()).then(|| unknown_disabled(names, busy, row_errors, on_toggle))
    };

    let settings_error = move || settings_error(settings);

    move || {
        if unavailable.get() {
            return view! {
                <div class="error" role="alert" data-testid="skills-unavailable">
                    <p><strong>{t!("skills.unavailable")}</strong></p>
                </div>
            }
            .into_any();
        }
        view! {
            {project_form()}
            <ul class="skills-tiers" data-testid="skills-tiers"
                data-project-dir=project_dir.clone().unwrap_or_default()>{tier_notes}</ul>
            {settings_error}
            {list.clone()}
            {unknown_disabled}
        }
        .into_any()
    }
}

/// The `Ok`/`Err` of one enable/disable: the server's new list, or the row's error.
fn toggle_action(
    backends: BackendsCtx,
    active: ActiveBackend,
    busy: RwSignal<Option<String>>,
    row_errors: RwSignal<BTreeMap<String, String>>,
    written: RwSignal<Option<Vec<String>>>,
) -> Action<(String, bool), ()> {
    Action::new_local(move |(name, disable): &(String, bool)| {
        let (name, disable, active) = (name.clone(), *disable, active.clone());
        async move {
            let r = svc::set_disabled(backends, &active, &name, disable).await;
            if busy.try_set(None).is_some() {
                return; // the page went away meanwhile
            }
            match r {
                Ok(list) => {
                    row_errors.update(|m| {
                        m.remove(&name);
                    });
                    written.set(Some(list));
                }
                Err(e) => row_errors.update(|m| {
                    m.insert(
                        name,
                        if disable {
                            t!("skills.disable_error", error = e.said())
                        } else {
                            t!("skills.enable_error", error = e.said())
                        },
                    );
                }),
            }
        }
    })
}

/// Disabled skills that no loaded source has, each with "Enable".
fn unknown_disabled(
    names: Vec<String>,
    busy: RwSignal<Option<String>>,
    row_errors: RwSignal<BTreeMap<String, String>>,
    on_toggle: Callback<(String, bool)>,
) -> impl IntoView {
    let items = names
        .into_iter()
        .map(|name| {
            let n = name.clone();
            let err_name = name.clone();
            view! {
                <li class="skill-unknown" data-testid="skill-unknown-disabled" data-skill=name.clone()>
                    <code>{name.clone()}</code>
                    <button type="button" class="btn small" disabled=move || busy.get().is_some()
                        on:click=move |_| on_toggle.run((n.clone(), false))>{t!("skills.enable")}</button>
                    <span class="field-error" role="alert">
                        {move || row_errors.with(|m| m.get(&err_name).cloned()).unwrap_or_default()}
                    </span>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="skills-unknown">
            <h2>{t!("skills.unknown_disabled_title")}</h2>
            <ul>{items}</ul>
        </section>
    }
}

/// Could not read the disabled list.
fn settings_error(settings: LocalResource<Result<Vec<String>, ApiError>>) -> Option<impl IntoView> {
    settings
        .map(|r| r.as_ref().err().map(ApiError::user_message))
        .flatten()
        .map(|e| {
            view! {
                <p class="field-error" role="alert" data-testid="skills-settings-error">
                    {t!("skills.settings_error", error = e)}
                </p>
            }
        })
}
