//! The launcher's options (issue #13): where the agent works (the backend's registered
//! workspaces, the directories of its newest conversations and the subfolders of what is being
//! typed are offered; any absolute path may be typed), which agent profile (issue #35) or LLM
//! profile, and which stored
//! secrets the agent gets. Each change is remembered at once for the active backend
//! (`services::launch`), so a reload or the next visit starts the same way. A part the backend
//! does not offer is not shown; a profile or secret that is gone is named, not used.

use crate::services::launch::{self as svc, Offers};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::{plural, say, Said};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::start::launch_options::{
    LaunchOptions, SummaryPart, SECRETS_COUNTED,
};
use canvas_core::error::ApiError;
use leptos::prelude::*;

mod fields;
mod provider;
mod repo;

use fields::{agent_field, dir_field, profile_field, secrets_field};
use repo::repo_field;

/// Asks `ask(input)` once `input` (tracked; `None`: nothing to ask) has not changed for
/// `pause_ms`: `answer` is `None` while asking, then the answer, handed to `keep` first. An
/// answer to an input that has changed since is dropped (answers to earlier keystrokes may
/// come back later). A task of its own, not a resource: a resource would make the launcher's
/// Suspense rebuild the fields while typing.
fn ask_when_typing_pauses<I, T, F>(
    pause_ms: u32,
    input: impl Fn() -> Option<I> + 'static,
    answer: RwSignal<Option<T>>,
    ask: impl Fn(I) -> F + Clone + 'static,
    keep: impl Fn(&I, &T) + Clone + 'static,
) where
    I: Clone + 'static,
    T: Send + Sync + 'static,
    F: std::future::Future<Output = T> + 'static,
{
    // Which input is the current one: each change counts one more.
    let asked = StoredValue::new(0u64);
    Effect::new(move |_| {
        let wanted = input();
        asked.update_value(|n| *n += 1);
        let current = asked.get_value();
        answer.set(None);
        let Some(i) = wanted else { return };
        let (ask, keep) = (ask.clone(), keep.clone());
        leptos::task::spawn_local(async move {
            let still = move || asked.try_get_value() == Some(current);
            crate::platform::time::sleep_ms(pause_ms).await;
            if !still() {
                return;
            }
            let got = ask(i.clone()).await;
            if still() {
                keep(&i, &got);
                answer.try_set(Some(got));
            }
        });
    });
}

/// The options for the active backend (rebuilt when it changes).
#[component]
pub fn LaunchOptionsPanel() -> impl IntoView {
    let backends = use_backends();
    let offers = LocalResource::new(move || {
        let active = backends.active.get();
        async move {
            let offers = svc::offers(backends, &active).await;
            (active, offers)
        }
    });
    move || {
        offers
            .get()
            .map(|(active, offers)| view! { <OptionsBody active=active offers=offers /> })
    }
}

fn offered(r: &Result<Vec<String>, ApiError>) -> Option<Vec<String>> {
    match r {
        Err(ApiError::Unsupported(_)) => None,
        Ok(v) => Some(v.clone()),
        // Listed as none; the next visit asks again.
        Err(_) => Some(Vec::new()),
    }
}

#[component]
fn OptionsBody(active: ActiveBackend, offers: Offers) -> impl IntoView {
    let backends = use_backends();
    let profiles = offered(&offers.profiles);
    let secrets = offered(&offers.secrets);
    let agents = offers.agents.clone().ok();
    let dirs_offered = !matches!(offers.dirs, Err(ApiError::Unsupported(_)));
    if profiles.is_none() && secrets.is_none() && !dirs_offered && agents.is_none() {
        return ().into_any();
    }
    let id = active.backend.id.clone();
    let (start, load_error) = match svc::load(&id) {
        Ok(o) => (o, None),
        Err(e) => (LaunchOptions::default(), Some(e)),
    };
    let (mut usable, mut gone) = start.available_text(
        profiles.as_deref().unwrap_or_default(),
        secrets.as_deref().unwrap_or_default(),
    );
    // An agent profile the backend no longer has (where it could list them).
    if let Some(list) = &agents {
        let ids: Vec<String> = list.profiles.iter().filter_map(|p| p.id.clone()).collect();
        gone.extend(usable.agent_available(&ids));
    }
    let opts = RwSignal::new(usable);
    let error = RwSignal::new(load_error.map(|e| t!("launch.load_error", error = e.said())));
    let id = StoredValue::new(id);
    // Every change is remembered at once (a refused directory is not).
    let change = move |f: &dyn Fn(&mut LaunchOptions)| {
        opts.update(|o| f(o));
        match svc::save(&id.get_value(), &opts.get_untracked()) {
            Ok(()) => error.set(None),
            Err(e) => error.set(Some(t!("launch.save_error", error = e.said()))),
        }
    };

    // The directory field: typed text (checked as typed), suggestions.
    // What the backend said about the directory (the repository field asks; the summary reads).
    let repo_answer = RwSignal::new(None);
    let in_repo =
        move || repo_answer.with(|a| matches!(a, Some(Ok(canvas_core::git::Found::Repo(_)))));
    let repo_field =
        dirs_offered.then(|| repo_field(backends, active.clone(), opts, repo_answer, change));
    // Where a directory is taken, a provider's repository can be started on too.
    let provider_field = dirs_offered.then(|| {
        provider::provider_field(
            backends,
            active.clone(),
            secrets.clone().unwrap_or_default(),
        )
    });
    let dir_field = dir_field(backends, active, &offers, dirs_offered, opts, change);

    let agent_field = agents.map(|list| agent_field(list, opts, change));
    let profile_field = profiles.map(|names| profile_field(names, opts, change));

    let secrets_field = secrets.map(|names| secrets_field(names, opts, change));

    let gone_note = (!gone.is_empty()).then(|| {
        view! {
            <p class="muted" role="status" data-testid="launch-gone">
                {t!("launch.gone", names = gone.iter().map(say).collect::<Vec<_>>().join(", "))}
            </p>
        }
    });
    let summary = move || {
        let s = opts.with(|o| {
            o.summary_parts()
                .iter()
                .map(|p| match p {
                    SummaryPart::Text(t) => say(t),
                    SummaryPart::Secrets(n) => plural(SECRETS_COUNTED, *n as u64, &[]),
                })
                // How it works on the repository, where the directory is in one.
                .chain(
                    in_repo()
                        .then(|| o.work_mode.summary().map(|t| say(&t)))
                        .flatten(),
                )
                .collect::<Vec<_>>()
                .join(" · ")
        });
        if s.is_empty() {
            t!("launch.defaults")
        } else {
            s
        }
    };
    // A start the backend refused in a worktree opens the options, where its reason is said.
    let details = NodeRef::<leptos::html::Details>::new();
    Effect::new(move |_| {
        if svc::refused().with(Option::is_some) {
            if let Some(d) = details.get_untracked() {
                d.set_open(true);
            }
        }
    });
    view! {
        <details class="launch-options" data-testid="launch-options" node_ref=details>
            <summary>{t!("launch.options")}" " <span class="muted" data-testid="launch-options-summary">{summary}</span></summary>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="launch-options-error">{e}</p> })}
            {dir_field}
            {repo_field}
            {provider_field}
            {agent_field}
            {profile_field}
            {secrets_field}
            {gone_note}
        </details>
    }
    .into_any()
}

crate::lazy::lazy_view! {
    /// The launcher's options: working directory, LLM profile, secrets (issue #13).
    pub fn launch_options() in launch, preload preload_launch_options {
        view! { <crate::components::launch_options::LaunchOptionsPanel /> }
    }
}
