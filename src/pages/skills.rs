//! `/skills` (issue #13): the skills of the active backend gathered tier by tier and merged by
//! precedence (seed 002), with user-disabled skills applied after the merge.
//!
//! Each tier of `canvas_core::skills::fetch_plan` is its own request (public, user, and the
//! project when a project directory is known), shown with its own progress; a tier that fails
//! is an inline note and never holds back the others. The merged list (`canvas_core::skills::
//! merge`) shows each skill's tier, kind, triggers, description, source and what it overrides,
//! and its content as safe Markdown on request. The kind and text filters live in the URL
//! (`?kind=&q=`), so a reload keeps them. Enable/disable writes the backend's `disabled_skills`;
//! "Use skill" leaves the skill's trigger for the launcher and opens it.

use crate::components::chat::markdown::Markdown;
use crate::links::{href, pinned, use_go};
use crate::services::skills::{self as svc, ProjectDir};
use crate::state::backends::use_backends;
use canvas_core::backends::selection::{ActiveBackend, CacheScope};
use canvas_core::backends::url::{parse_query, serialize_query};
use canvas_core::error::ApiError;
use canvas_core::skills::{
    fetch_plan, merge, use_skill_text, KindFilter, MergedSkill, Tier, TierResult,
};
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate, use_query_map};
use leptos_router::NavigateOptions;
use std::collections::{BTreeMap, BTreeSet};

/// The URL query parameter of the kind filter (`repo`, `knowledge`, `agentskills`).
const KIND_PARAM: &str = "kind";
/// The URL query parameter of the text filter.
const TEXT_PARAM: &str = "q";

type TierLoad = LocalResource<Result<TierResult, ApiError>>;

/// The page's `?kind=&q=` written into the current query (other parameters, e.g. the backend
/// pin, are kept); `path` is the page's href (base path included).
fn filter_href(path: &str, search: &str, kind: Option<KindFilter>, text: &str) -> String {
    let mut pairs: Vec<(String, String)> = parse_query(search)
        .into_iter()
        .filter(|(k, _)| k != KIND_PARAM && k != TEXT_PARAM)
        .collect();
    if let Some(k) = kind {
        pairs.push((KIND_PARAM.into(), k.param().into()));
    }
    if !text.is_empty() {
        pairs.push((TEXT_PARAM.into(), text.into()));
    }
    if pairs.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", serialize_query(&pairs))
    }
}

#[component]
pub fn SkillsPage() -> impl IntoView {
    let backends = use_backends();
    let query = use_query_map();
    let location = use_location();
    let navigate = use_navigate();
    let page_path = href("/skills");

    // The filters start from the URL and are written back to it (replacing the history entry,
    // not scrolling); the signals answer the inputs at once, whatever the router does.
    let kind = RwSignal::new(
        query
            .with_untracked(|q| q.get(KIND_PARAM))
            .as_deref()
            .and_then(KindFilter::from_param),
    );
    let text = RwSignal::new(
        query
            .with_untracked(|q| q.get(TEXT_PARAM))
            .unwrap_or_default(),
    );
    let write_url = move || {
        let url = filter_href(
            &page_path,
            &location.search.get_untracked(),
            kind.get_untracked(),
            &text.get_untracked(),
        );
        navigate(
            &url,
            NavigateOptions {
                resolve: false,
                replace: true,
                scroll: false,
                ..Default::default()
            },
        );
    };
    let write_url = StoredValue::new_local(write_url);
    let set_kind = move |k: Option<KindFilter>| {
        kind.set(k);
        write_url.with_value(|w| w());
    };

    // Where project skills come from (the directory typed here, else the one this tab
    // remembers, else the newest conversation's), keyed by the active backend; `reload` starts
    // the whole page over.
    let reload = RwSignal::new(0u32);
    let typed = RwSignal::new(None::<(CacheScope, String)>);
    let project = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        let scope = active.cache_scope();
        let typed = typed.get().filter(|(s, _)| *s == scope).map(|(_, d)| d);
        async move {
            let p = svc::project_dir(backends, &active, typed).await;
            (active, p)
        }
    });

    let kind_buttons = std::iter::once(None)
        .chain(KindFilter::ALL.into_iter().map(Some))
        .map(|k| {
            let label = k.map(KindFilter::label).unwrap_or("All");
            let param = k.map(KindFilter::param).unwrap_or("");
            view! {
                <button type="button" class="btn small skills-kind" data-testid="skills-kind"
                    data-kind=param aria-pressed=move || (kind.get() == k).to_string()
                    on:click=move |_| set_kind(k)>{label}</button>
            }
        })
        .collect_view();

    let body = move || {
        match project.get() {
        None => view! { <p class="loading" data-testid="skills-loading">"Loading skills…"</p> }
            .into_any(),
        Some((active, p)) => {
            view! { <SkillsBody active=active project=p kind=kind text=text reload=reload typed=typed /> }
                .into_any()
        }
    }
    };

    view! {
        <section class="page skills" data-testid="skills-page">
            <header class="page-header">
                <h1>"Skills"</h1>
                <button type="button" class="btn" data-testid="skills-reload"
                    on:click=move |_| reload.update(|n| *n = n.wrapping_add(1))>"Reload"</button>
            </header>
            <p class="muted skills-intro">
                "Skills give the agent knowledge and rules. They come from several places; when two \
                 have the same name, the one from the later place wins: public < user < project."
            </p>
            <div class="skills-filters" role="search">
                <div class="skills-kinds" role="group" aria-label="Kind of skill">{kind_buttons}</div>
                <input type="search" class="skills-search" data-testid="skills-search"
                    aria-label="Filter skills by name, description or trigger"
                    placeholder="Filter by name, description or trigger"
                    prop:value=move || text.get()
                    on:input=move |ev| {
                        text.set(event_target_value(&ev));
                        write_url.with_value(|w| w());
                    } />
            </div>
            {body}
            <h2>"Installed skills"</h2>
            <p class="muted">
                "Installed from a repository or a folder; enabled ones join the user's skills above."
            </p>
            <crate::components::installed::InstalledExtensions kind=canvas_core::settings::extensions::Extension::Skill
                on_change=Callback::new(move |_| reload.update(|n| *n = n.wrapping_add(1))) />
        </section>
    }
}

/// What one tier's request is doing.
#[derive(Clone, PartialEq)]
enum TierState {
    Loading,
    Loaded(usize),
    Failed(String),
    NotAvailable,
}

fn tier_state(load: &TierLoad) -> TierState {
    load.map(|r| match r {
        Ok(t) => TierState::Loaded(t.skills.len()),
        Err(e) if svc::not_available(e) => TierState::NotAvailable,
        Err(e) => TierState::Failed(e.user_message()),
    })
    .unwrap_or(TierState::Loading)
}

/// The page for one backend and project directory (rebuilt when either changes or on reload).
#[component]
fn SkillsBody(
    active: ActiveBackend,
    project: ProjectDir,
    kind: RwSignal<Option<KindFilter>>,
    text: RwSignal<String>,
    reload: RwSignal<u32>,
    typed: RwSignal<Option<(CacheScope, String)>>,
) -> impl IntoView {
    let backends = use_backends();
    let tiers: Vec<(Tier, TierLoad)> = fetch_plan(project.dir.as_deref())
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
    let all_done = move || states.with(|s| s.iter().all(|(_, st)| *st != TierState::Loading));
    // No tier exists on this backend: its client has no skills (or the server lacks the route).
    let unavailable =
        Memo::new(move |_| states.with(|s| s.iter().all(|(_, st)| *st == TierState::NotAvailable)));

    // One enable/disable at a time (each reads the server's list and writes it back whole).
    let busy = RwSignal::new(None::<String>);
    let row_errors = RwSignal::new(BTreeMap::<String, String>::new());
    let toggle = {
        let active = active.clone();
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
                            format!(
                                "Could not {} this skill: {}",
                                if disable { "disable" } else { "enable" },
                                e.user_message()
                            ),
                        );
                    }),
                }
            }
        })
    };
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
    let dir_input = RwSignal::new(project.dir.clone().unwrap_or_default());
    let dir_error = RwSignal::new(None::<String>);
    let dir_hint = match (&project.dir, project.typed) {
        (Some(_), true) => "Remembered for this backend in this tab.",
        (Some(_), false) => "The working directory of this backend's newest conversation.",
        (None, _) => {
            "Type a directory on the agent's machine to load its project skills (AGENTS.md, \
             .agents/skills, .openhands/skills)."
        }
    };
    let suggestions = project.suggestions.clone();
    let project_dir = project.dir.clone();
    let submit_dir = {
        let active = active.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let dir = dir_input.get_untracked().trim().to_string();
            // Remembered for this tab when storage allows; used now either way.
            if let Err(e) = svc::save_project_dir(&active, &dir) {
                dir_error.set(Some(format!(
                    "Could not remember the directory in this tab: {e}"
                )));
            }
            typed.set((!dir.is_empty()).then(|| (active.cache_scope(), dir)));
        }
    };

    let tier_notes = move || {
        let mut notes: Vec<AnyView> = states
            .get()
            .into_iter()
            .map(|(tier, st)| {
                let noun = tier.label().to_lowercase();
                let (state, text) = match &st {
                    TierState::Loading => ("loading", format!("Loading {noun} skills…")),
                    TierState::Loaded(1) => ("loaded", format!("{}: 1 skill", tier.label())),
                    TierState::Loaded(n) => ("loaded", format!("{}: {n} skills", tier.label())),
                    TierState::Failed(e) => {
                        ("failed", format!("Could not load {noun} skills: {e}"))
                    }
                    TierState::NotAvailable => (
                        "failed",
                        format!("{} skills are not available on this backend.", tier.label()),
                    ),
                };
                let failed = state == "failed";
                view! {
                    <li class=format!("skills-tier tier-{state}") data-testid="skills-tier"
                        data-tier=tier.label() data-state=state role=if failed { "alert" } else { "status" }>
                        {text}
                        {failed.then(|| view! {
                            <button type="button" class="btn small" data-testid="skills-tier-retry"
                                on:click=move |_| reload.update(|n| *n = n.wrapping_add(1))>"Try again"</button>
                        })}
                    </li>
                }
                .into_any()
            })
            .collect();
        let project_planned = states.with(|s| s.iter().any(|(t, _)| *t == Tier::Project));
        if !project_planned {
            notes.push(
                view! {
                    <li class="skills-tier tier-skipped" data-testid="skills-tier"
                        data-tier=Tier::Project.label() data-state="skipped">
                        "Project skills: no project directory yet."
                    </li>
                }
                .into_any(),
            );
        }
        notes
    };

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
            "No skills found.".to_string()
        } else if count == total {
            format!("{total} skills")
        } else {
            format!("{count} of {total} skills match the filter")
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
        (!names.is_empty()).then(|| {
            let items = names
                .into_iter()
                .map(|name| {
                    let n = name.clone();
                    let err_name = name.clone();
                    view! {
                        <li class="skill-unknown" data-testid="skill-unknown-disabled" data-skill=name.clone()>
                            <code>{name.clone()}</code>
                            <button type="button" class="btn small" disabled=move || busy.get().is_some()
                                on:click=move |_| on_toggle.run((n.clone(), false))>"Enable"</button>
                            <span class="field-error" role="alert">
                                {move || row_errors.with(|m| m.get(&err_name).cloned()).unwrap_or_default()}
                            </span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <section class="skills-unknown">
                    <h2>"Disabled, not found in any loaded source"</h2>
                    <ul>{items}</ul>
                </section>
            }
        })
    };

    let settings_error = move || {
        settings
            .map(|r| r.as_ref().err().map(ApiError::user_message))
            .flatten()
            .map(|e| {
                view! {
                    <p class="field-error" role="alert" data-testid="skills-settings-error">
                        {format!("Could not read which skills are disabled: {e}")}
                    </p>
                }
            })
    };

    move || {
        if unavailable.get() {
            return view! {
                <div class="error" role="alert" data-testid="skills-unavailable">
                    <p><strong>"Skills are not available on this backend."</strong></p>
                </div>
            }
            .into_any();
        }
        let submit_dir = submit_dir.clone();
        view! {
            <form class="skills-project" data-testid="skills-project" on:submit=submit_dir>
                <div class="field">
                    <label for="skills-project-dir">"Project directory"</label>
                    <div class="skills-project-row">
                        <input id="skills-project-dir" class="mono" data-testid="skills-project-dir"
                            list="skills-project-dirs" autocomplete="off" spellcheck="false"
                            placeholder="/path/to/your/project"
                            prop:value=move || dir_input.get()
                            on:input=move |ev| dir_input.set(event_target_value(&ev)) />
                        <button type="submit" class="btn" data-testid="skills-project-load">"Load"</button>
                    </div>
                    <datalist id="skills-project-dirs">
                        {suggestions.iter().map(|d| view! { <option value=d.clone()></option> }).collect_view()}
                    </datalist>
                    <p class="muted skills-project-hint">{dir_hint}</p>
                    <p class="field-error" role="alert" hidden=move || dir_error.get().is_none()>
                        {move || dir_error.get().unwrap_or_default()}
                    </p>
                </div>
            </form>
            <ul class="skills-tiers" data-testid="skills-tiers"
                data-project-dir=project_dir.clone().unwrap_or_default()>{tier_notes}</ul>
            {settings_error}
            {list.clone()}
            {unknown_disabled}
        }
        .into_any()
    }
}

/// One skill of the merged list.
#[component]
fn SkillRow(
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
        Err(e) => use_error.set(Some(format!(
            "Could not pass “{use_text}” to the launcher: {e}"
        ))),
    };
    let toggle_name = name.clone();
    let busy_name = name.clone();
    let error_name = name.clone();
    let hidden_name = name.clone();
    let triggers = (!s.skill.triggers.is_empty()).then(|| {
        let chips = s
            .skill
            .triggers
            .iter()
            .map(|t| view! { <code class="skill-trigger" data-testid="skill-trigger">{t.clone()}</code> })
            .collect_view();
        view! { <dt>"Triggers"</dt><dd class="skill-triggers">{chips}</dd> }
    });
    let overrides = (!s.overrides.is_empty()).then(|| {
        let items = s
            .overrides
            .iter()
            .map(|(t, src)| {
                let src = src.clone().unwrap_or_else(|| "(built in)".into());
                view! {
                    <li data-testid="skill-override" data-tier=t.label()>
                        {format!("{} ", t.label())}<code>{src}</code>
                    </li>
                }
            })
            .collect_view();
        view! { <dt>"Overrides"</dt><dd><ul class="skill-overrides">{items}</ul></dd> }
    });
    let shadowed = (!s.shadowed.is_empty()).then(|| {
        let items = s
            .shadowed
            .iter()
            .map(|src| {
                let src = src.clone().unwrap_or_else(|| "(built in)".into());
                view! { <li><code>{src}</code></li> }
            })
            .collect_view();
        view! { <dt>"Also found (ignored)"</dt><dd><ul class="skill-overrides">{items}</ul></dd> }
    });
    let source = s
        .skill
        .source
        .clone()
        .unwrap_or_else(|| "(built in)".into());
    let content = s.skill.content.clone();
    let description = s.skill.description.clone().filter(|d| !d.trim().is_empty());
    view! {
        <li class="skill-row" class:skill-off=disabled data-testid="skill-row" data-skill=name.clone()
            data-tier=tier.label() data-kind=kind.param() data-disabled=disabled.to_string()>
            <div class="skill-main">
                <span class="skill-name" data-testid="skill-name">{name.clone()}</span>
                <span class=format!("badge skill-tier tier-{}", tier.label().to_lowercase())
                    data-testid="skill-tier">{tier.label()}</span>
                <span class="badge skill-kind" data-testid="skill-kind">{kind.label()}</span>
                {disabled.then(|| view! {
                    <span class="badge skill-disabled" data-testid="skill-disabled">"Disabled"</span>
                })}
            </div>
            {description.map(|d| view! { <p class="skill-description" data-testid="skill-description">{d}</p> })}
            <dl class="skill-facts">
                {triggers}
                <dt>"Source"</dt>
                <dd><code data-testid="skill-source">{source}</code></dd>
                {overrides}
                {shadowed}
            </dl>
            <div class="skill-actions">
                <button type="button" class="btn small" data-testid="skill-expand"
                    aria-expanded={let o = is_open.clone(); move || o().to_string()} aria-controls=content_id
                    on:click=flip_open>
                    {let o = is_open.clone(); move || if o() { "Hide content" } else { "Show content" }}
                </button>
                <button type="button" class="btn small" data-testid="skill-toggle"
                    aria-label=format!("{} {name}", if disabled { "Enable" } else { "Disable" })
                    disabled=move || busy.get().is_some()
                    on:click=move |_| on_toggle.run((toggle_name.clone(), !disabled))>
                    {move || match busy.get() {
                        Some(n) if n == busy_name => if disabled { "Enabling…" } else { "Disabling…" },
                        _ => if disabled { "Enable" } else { "Disable" },
                    }}
                </button>
                <button type="button" class="btn small" data-testid="skill-use" on:click=use_skill>
                    "Use skill"
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
