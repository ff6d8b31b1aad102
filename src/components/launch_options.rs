//! The launcher's options (issue #13): where the agent works (the backend's registered
//! workspaces, the directories of its newest conversations and the subfolders of what is being
//! typed are offered; any absolute path may be typed), which LLM profile, and which stored
//! secrets the agent gets. Each change is remembered at once for the active backend
//! (`services::launch`), so a reload or the next visit starts the same way. A part the backend
//! does not offer is not shown; a profile or secret that is gone is named, not used.

use crate::services::launch::{self as svc, Offers};
use crate::services::settings::subdirectories;
use crate::state::backends::use_backends;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::conversations::launch_options::{
    browse_dir, check_working_dir, DirChoice, LaunchOptions,
};
use canvas_core::error::ApiError;
use leptos::prelude::*;

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
    let dirs_offered = !matches!(offers.dirs, Err(ApiError::Unsupported(_)));
    if profiles.is_none() && secrets.is_none() && !dirs_offered {
        return ().into_any();
    }
    let id = active.backend.id.clone();
    let (start, load_error) = match svc::load(&id) {
        Ok(o) => (o, None),
        Err(e) => (LaunchOptions::default(), Some(e)),
    };
    let (usable, gone) = start.available(
        profiles.as_deref().unwrap_or_default(),
        secrets.as_deref().unwrap_or_default(),
    );
    let opts = RwSignal::new(usable);
    let error = RwSignal::new(load_error.map(|e| {
        format!("Starting with the defaults: {e}. Choosing an option here replaces them.")
    }));
    let id = StoredValue::new(id);
    // Every change is remembered at once (a refused directory is not).
    let change = move |f: &dyn Fn(&mut LaunchOptions)| {
        opts.update(|o| f(o));
        match svc::save(&id.get_value(), &opts.get_untracked()) {
            Ok(()) => error.set(None),
            Err(e) => error.set(Some(e)),
        }
    };

    // The directory field: typed text (checked as typed), suggestions.
    let typed = RwSignal::new(opts.get_untracked().working_dir);
    let dir_error = RwSignal::new(None::<String>);
    let on_dir = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        typed.set(v.clone());
        match check_working_dir(&v) {
            Ok(()) => {
                dir_error.set(None);
                change(&|o| o.working_dir = v.trim().to_string());
            }
            Err(e) => dir_error.set(Some(e)),
        }
    };
    // The subfolders of the folder being typed. An Action, not a resource: a resource read
    // here would make the surrounding Suspense rebuild the field (and lose the focus) each time.
    let browse = Memo::new(move |_| typed.with(|t| browse_dir(t)));
    let list_subdirs = {
        let active = active.clone();
        Action::new_local(move |dir: &String| {
            let (active, dir) = (active.clone(), dir.clone());
            async move {
                subdirectories(backends, &active, &dir)
                    .await
                    .unwrap_or_default()
            }
        })
    };
    Effect::new(move |_| {
        if let Some(dir) = browse.get() {
            list_subdirs.dispatch(dir);
        }
    });
    let subdirs = move || {
        if browse.with(Option::is_none) {
            return Vec::new();
        }
        list_subdirs.value().get().unwrap_or_default()
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
        "A new folder under ~/workspace/project".to_string()
    } else {
        format!("{fallback} (the default in Settings → App)")
    };
    let dir_field = dirs_offered.then(|| {
        view! {
            <div class="field">
                <label for="launch-dir">"Working directory"</label>
                <input id="launch-dir" type="text" list="launch-dirs" data-testid="launch-dir"
                    autocomplete="off" spellcheck="false" placeholder=placeholder
                    prop:value=move || typed.get() on:input=on_dir />
                <datalist id="launch-dirs" data-testid="launch-dir-options">{options}</datalist>
                {move || dir_error.get().map(|e| view! {
                    <span class="field-error" role="alert" data-testid="launch-dir-error">{e}</span>
                })}
            </div>
        }
    });

    let profile_field = profiles.map(|names| {
        let choices = names
            .into_iter()
            .map(|n| view! { <option value=n.clone()>{n.clone()}</option> })
            .collect_view();
        view! {
            <div class="field">
                <label for="launch-profile">"LLM"</label>
                <select id="launch-profile" data-testid="launch-profile"
                    prop:value=move || opts.with(|o| o.profile.clone().unwrap_or_default())
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        change(&|o| o.profile = (!v.is_empty()).then(|| v.clone()));
                    }>
                    <option value="">"The backend's LLM settings"</option>
                    {choices}
                </select>
            </div>
        }
    });

    let secrets_field = secrets.map(|names| {
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
            view! { <p class="muted">"This backend stores no secrets (Settings → Secrets adds them)."</p> }
        });
        view! {
            <fieldset class="pref-group">
                <legend>"Secrets the agent gets"</legend>
                {boxes}
                {empty}
            </fieldset>
        }
    });

    let gone_note = (!gone.is_empty()).then(|| {
        view! {
            <p class="muted" role="status" data-testid="launch-gone">
                {format!("No longer on this backend, so not used: {}.", gone.join(", "))}
            </p>
        }
    });
    let summary = move || {
        let s = opts.with(LaunchOptions::summary);
        if s.is_empty() {
            "defaults".to_string()
        } else {
            s
        }
    };
    view! {
        <details class="launch-options" data-testid="launch-options">
            <summary>"Options: " <span class="muted" data-testid="launch-options-summary">{summary}</span></summary>
            {move || error.get().map(|e| view! { <p class="error" role="alert" data-testid="launch-options-error">{e}</p> })}
            {dir_field}
            {profile_field}
            {secrets_field}
            {gone_note}
        </details>
    }
    .into_any()
}
