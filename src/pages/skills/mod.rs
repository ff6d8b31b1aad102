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

use crate::components::page_header::page_header;
use crate::links::href;
use crate::services::skills as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::backends::selection::CacheScope;
use canvas_core::backends::url::{parse_query, serialize_query};
use canvas_core::skills::KindFilter;
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate, use_query_map};
use leptos_router::NavigateOptions;

mod body;
mod project;
mod row;
mod tiers;

use body::SkillsBody;

/// The URL query parameter of the kind filter (`repo`, `knowledge`, `agentskills`).
const KIND_PARAM: &str = "kind";
/// The URL query parameter of the text filter.
const TEXT_PARAM: &str = "q";

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

    let kind_buttons = kind_buttons(kind, set_kind);

    let body = move || {
        match project.get() {
        None => view! { <p class="loading" data-testid="skills-loading">{t!("skills.loading")}</p> }
            .into_any(),
        Some((active, p)) => {
            view! { <SkillsBody active=active project=p kind=kind text=text reload=reload typed=typed /> }
                .into_any()
        }
    }
    };

    view! {
        <section class="page skills" data-testid="skills-page">
            {page_header(t!("skills.title"), "btn", "skills-reload", t!("skills.reload"),
                move |_| reload.update(|n| *n = n.wrapping_add(1)))}
            <p class="muted skills-intro">
                {t!("skills.intro")}
            </p>
            <div class="skills-filters" role="search">
                <div class="skills-kinds" role="group" aria-label=t!("skills.kind_group")>{kind_buttons}</div>
                <input type="search" class="skills-search" data-testid="skills-search"
                    aria-label=t!("skills.search_label")
                    placeholder=t!("skills.search_placeholder")
                    prop:value=move || text.get()
                    on:input=move |ev| {
                        text.set(event_target_value(&ev));
                        write_url.with_value(|w| w());
                    } />
            </div>
            {body}
            <h2>{t!("skills.installed_title")}</h2>
            <p class="muted">
                {t!("skills.installed_intro")}
            </p>
            <crate::components::installed::InstalledExtensions kind=canvas_core::settings::extensions::Extension::Skill
                on_change=Callback::new(move |_| reload.update(|n| *n = n.wrapping_add(1))) />
        </section>
    }
}

/// "All" and a button per kind of skill, the current one pressed.
fn kind_buttons(
    kind: RwSignal<Option<KindFilter>>,
    set_kind: impl Fn(Option<KindFilter>) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    std::iter::once(None)
        .chain(KindFilter::ALL.into_iter().map(Some))
        .map(|k| {
            let label = k.map_or_else(
                || t!("skills.kind_all"),
                |k| crate::state::i18n::say(&k.label_text()),
            );
            let param = k.map(KindFilter::param).unwrap_or("");
            view! {
                <button type="button" class="btn small skills-kind" data-testid="skills-kind"
                    data-kind=param aria-pressed=move || (kind.get() == k).to_string()
                    on:click=move |_| set_kind(k)>{label}</button>
            }
        })
        .collect_view()
}

crate::lazy::lazy_view! {
    /// `/skills`: skills merged by precedence, filters, enable/disable.
    pub fn skills_page() in skills, preload preload_skills {
        view! { <crate::pages::skills::SkillsPage /> }
    }
}
