//! Each tier's request and its note above the list.

use crate::services::skills as svc;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::Said;
use crate::state::i18n::{t, tn};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::error::ApiError;
use canvas_core::skills::{fetch_plan, merge, Merged, Tier, TierResult};
use leptos::prelude::*;

pub(super) type TierLoad = LocalResource<Result<TierResult, ApiError>>;

/// What one tier's request is doing.
#[derive(Clone, PartialEq)]
pub(super) enum TierState {
    Loading,
    Loaded(usize),
    Failed(String),
    NotAvailable,
}

pub(super) fn tier_state(load: &TierLoad) -> TierState {
    load.map(|r| match r {
        Ok(t) => TierState::Loaded(t.skills.len()),
        Err(e) if svc::not_available(e) => TierState::NotAvailable,
        Err(e) => TierState::Failed(e.said()),
    })
    .unwrap_or(TierState::Loading)
}

/// A note per tier (loading, loaded, failed with "Try again"), and one for a project tier that
/// is not planned.
pub(super) fn tier_notes(states: Vec<(Tier, TierState)>, reload: RwSignal<u32>) -> Vec<AnyView> {
    let project_planned = states.iter().any(|(t, _)| *t == Tier::Project);
    let mut notes: Vec<AnyView> = states
        .into_iter()
        .map(|(tier, st)| {
            let noun = crate::state::i18n::say(&tier.noun_text());
            let (state, text) = match &st {
                TierState::Loading => ("loading", t!("skills.tier.loading", tier = noun)),
                TierState::Loaded(n) => (
                    "loaded",
                    tn!("skills.tier.loaded", *n, tier = crate::state::i18n::say(&tier.label_text())),
                ),
                TierState::Failed(e) => (
                    "failed",
                    t!("skills.tier.load_error", tier = noun, error = e),
                ),
                TierState::NotAvailable => (
                    "failed",
                    t!("skills.tier.not_available", tier = crate::state::i18n::say(&tier.label_text())),
                ),
            };
            let failed = state == "failed";
            view! {
                <li class=format!("skills-tier tier-{state}") data-testid="skills-tier"
                    data-tier=tier.label() data-state=state>
                    // The live region inside the item: a list item keeps its role.
                    <span role=if failed { "alert" } else { "status" }>{text}</span>
                    {failed.then(|| view! {
                        <button type="button" class="btn small" data-testid="skills-tier-retry"
                            on:click=move |_| reload.update(|n| *n = n.wrapping_add(1))>{t!("skills.try_again")}</button>
                    })}
                </li>
            }
            .into_any()
        })
        .collect();
    if !project_planned {
        notes.push(
            view! {
                <li class="skills-tier tier-skipped" data-testid="skills-tier"
                    data-tier=Tier::Project.label() data-state="skipped">
                    {t!("skills.tier.no_project")}
                </li>
            }
            .into_any(),
        );
    }
    notes
}

/// Each tier's request, the disabled list (as read, and as last written), the merged skills and
/// each tier's state.
#[allow(clippy::type_complexity)]
pub(super) fn skill_sources(
    backends: BackendsCtx,
    active: &ActiveBackend,
    dir: Option<&str>,
) -> (
    LocalResource<Result<Vec<String>, ApiError>>,
    RwSignal<Option<Vec<String>>>,
    Memo<Merged>,
    Memo<Vec<(Tier, TierState)>>,
) {
    let tiers: Vec<(Tier, TierLoad)> = fetch_plan(dir)
        .into_iter()
        .map(|(tier, req)| {
            let active = active.clone();
            let load = LocalResource::new(move || {
                let (active, req) = (active.clone(), req.clone());
                async move { svc::load_tier(backends, &active, tier, &req).await }
            });
            (tier, load)
        })
        .collect();
    let tiers = StoredValue::new(tiers);
    let settings = {
        let active = active.clone();
        LocalResource::new(move || {
            let active = active.clone();
            async move { svc::disabled_skills(backends, &active).await }
        })
    };
    // The list the server answered to this page's last enable/disable (newer than `settings`).
    let written = RwSignal::new(None::<Vec<String>>);
    let disabled = Memo::new(move |_| {
        written
            .get()
            .or_else(|| settings.map(|r| r.clone().ok()).flatten())
            .unwrap_or_default()
    });
    let merged = Memo::new(move |_| {
        let loaded: Vec<TierResult> = tiers.with_value(|ts| {
            ts.iter()
                .filter_map(|(_, load)| load.map(|r| r.clone().ok()).flatten())
                .collect()
        });
        disabled.with(|d| merge(&loaded, d))
    });
    let states = Memo::new(move |_| {
        tiers.with_value(|ts| {
            ts.iter()
                .map(|(t, load)| (*t, tier_state(load)))
                .collect::<Vec<_>>()
        })
    });
    (settings, written, merged, states)
}
