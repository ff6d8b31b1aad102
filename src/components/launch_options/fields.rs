//! The launcher options' fields: working directory, agent profile, LLM profile, secrets.

use crate::services::launch::{self as svc, Offers};
use crate::services::settings::subdirectories;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::t;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::start::launch_options::{
    browse_dir, check_working_dir_text, AgentChoice, DirChoice, LaunchOptions,
};
use canvas_core::settings::agents::AgentProfileList;
use leptos::prelude::*;

/// The working directory (when the backend offers directories): typed (checked as typed), or
/// picked from its workspaces, recent directories and the subfolders of what is typed.
pub(super) fn dir_field(
    backends: BackendsCtx,
    active: ActiveBackend,
    offers: &Offers,
    dirs_offered: bool,
    opts: RwSignal<LaunchOptions>,
    change: impl Fn(&dyn Fn(&mut LaunchOptions)) + Copy + Send + Sync + 'static,
) -> Option<impl IntoView> {
    let typed = RwSignal::new(opts.get_untracked().working_dir);
    let dir_error = RwSignal::new(None::<String>);
    let on_dir = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        typed.set(v.clone());
        match check_working_dir_text(&v) {
            Ok(()) => {
                dir_error.set(None);
                change(&|o| o.working_dir = v.trim().to_string());
            }
            Err(e) => dir_error.set(Some(crate::state::i18n::say(&e))),
        }
    };
    // The subfolders of the folder being typed. Not a resource: a resource read here would make
    // the surrounding Suspense rebuild the field (and lose the focus) each time. Not an Action
    // either: its value is whichever listing answers last, so a slow listing of a shorter prefix
    // typed earlier could replace the folder's own. A listing is kept only while its folder is
    // still the one typed.
    let browse = Memo::new(move |_| typed.with(|t| browse_dir(t)));
    let listed = RwSignal::new((String::new(), Vec::<DirChoice>::new()));
    Effect::new(move |_| {
        let Some(dir) = browse.get() else { return };
        let active = active.clone();
        leptos::task::spawn_local(async move {
            let found = subdirectories(backends, &active, &dir)
                .await
                .unwrap_or_default();
            if browse.get_untracked().as_deref() == Some(dir.as_str()) {
                listed.set((dir, found));
            }
        });
    });
    let subdirs = move || {
        listed.with(|(dir, found)| match browse.get() {
            Some(b) if b == *dir => found.clone(),
            _ => Vec::new(),
        })
    };
    let known: Vec<DirChoice> = offers.dirs.clone().unwrap_or_default();
    let options = move || {
        let mut all = known.clone();
        for d in subdirs() {
            if !all.iter().any(|k| k.path == d.path) {
                all.push(d);
            }
        }
        all.into_iter()
            .map(|d| view! { <option value=d.path.clone() label=d.name.clone()></option> })
            .collect_view()
    };
    let fallback = svc::default_dir();
    let placeholder = if fallback.is_empty() {
        t!("launch.dir_placeholder")
    } else {
        t!("launch.dir_placeholder_default", dir = fallback)
    };
    dirs_offered.then(|| {
        view! {
            <div class="field">
                <label for="launch-dir">{t!("launch.dir")}</label>
                <input id="launch-dir" type="text" list="launch-dirs" data-testid="launch-dir"
                    autocomplete="off" spellcheck="false" placeholder=placeholder
                    prop:value=move || typed.get() on:input=on_dir />
                <datalist id="launch-dirs" data-testid="launch-dir-options">{options}</datalist>
                {move || dir_error.get().map(|e| view! {
                    <span class="field-error" role="alert" data-testid="launch-dir-error">{e}</span>
                })}
            </div>
        }
    })
}

/// The agent profile (issue #35): as the backend starts conversations (its active profile,
/// named), or one of its profiles by name. Choosing one hides the LLM profile, which the agent
/// profile names itself.
pub(super) fn agent_field(
    list: AgentProfileList,
    opts: RwSignal<LaunchOptions>,
    change: impl Fn(&dyn Fn(&mut LaunchOptions)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let default = match list.active() {
        Some(p) => t!("launch.agent_default_named", name = p.name.clone()),
        None => t!("launch.agent_default"),
    };
    let choices: Vec<AgentChoice> = list.choices();
    let options = choices
        .iter()
        .map(|c| view! { <option value=c.id.clone()>{c.name.clone()}</option> })
        .collect_view();
    view! {
        <div class="field">
            <label for="launch-agent">{t!("launch.agent")}</label>
            <select id="launch-agent" data-testid="launch-agent"
                prop:value=move || opts.with(|o| o.agent.as_ref().map(|a| a.id.clone()).unwrap_or_default())
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    let chosen = choices.iter().find(|c| c.id == v).cloned();
                    change(&|o| o.agent = chosen.clone());
                }>
                <option value="">{default}</option>
                {options}
            </select>
        </div>
    }
}

/// The LLM profile: the backend's own settings, or one of its profiles.
pub(super) fn profile_field(
    names: Vec<String>,
    opts: RwSignal<LaunchOptions>,
    change: impl Fn(&dyn Fn(&mut LaunchOptions)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let choices = names
        .into_iter()
        .map(|n| view! { <option value=n.clone()>{n.clone()}</option> })
        .collect_view();
    view! {
        <div class="field" hidden=move || opts.with(|o| o.agent.is_some())>
            <label for="launch-profile">{t!("launch.llm")}</label>
            <select id="launch-profile" data-testid="launch-profile"
                prop:value=move || opts.with(|o| o.profile.clone().unwrap_or_default())
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    change(&|o| o.profile = (!v.is_empty()).then(|| v.clone()));
                }>
                <option value="">{t!("launch.llm_backend_default")}</option>
                {choices}
            </select>
        </div>
    }
}

/// The stored secrets the agent gets.
pub(super) fn secrets_field(
    names: Vec<String>,
    opts: RwSignal<LaunchOptions>,
    change: impl Fn(&dyn Fn(&mut LaunchOptions)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let boxes = names
        .iter()
        .map(|n| {
            let (name, name2) = (n.clone(), n.clone());
            view! {
                <label class="choice" data-testid="launch-secret" data-secret=n.clone()>
                    <input type="checkbox"
                        prop:checked=move || opts.with(|o| o.secrets.contains(&name))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            change(&|o| {
                                o.secrets.retain(|s| *s != name2);
                                if on { o.secrets.push(name2.clone()); }
                            });
                        } />
                    " " <code>{n.clone()}</code>
                </label>
            }
        })
        .collect_view();
    let empty = names.is_empty().then(|| {
        view! { <p class="muted">{t!("launch.no_secrets")}</p> }
    });
    view! {
        <fieldset class="pref-group">
            <legend>{t!("launch.secrets")}</legend>
            {boxes}
            {empty}
        </fieldset>
    }
}
