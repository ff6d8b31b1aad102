//! The project directory field: where project skills come from.

use crate::services::skills::{self as svc, ProjectDir};
use crate::state::i18n::{t, Said};
use canvas_core::backends::selection::{ActiveBackend, CacheScope};
use leptos::prelude::*;

/// The project directory field (typed, or picked from the suggestions): its view, built again
/// whenever the page is; what is typed stays.
pub(super) fn project_field(
    project: &ProjectDir,
    active: ActiveBackend,
    typed: RwSignal<Option<(CacheScope, String)>>,
) -> impl Fn() -> AnyView + Clone + Send + Sync + 'static {
    let dir_input = RwSignal::new(project.dir.clone().unwrap_or_default());
    let dir_error = RwSignal::new(None::<String>);
    let dir_hint = match (&project.dir, project.typed) {
        (Some(_), true) => t!("skills.project.hint_remembered"),
        (Some(_), false) => t!("skills.project.hint_newest"),
        (None, _) => t!("skills.project.hint_none"),
    };
    let suggestions = project.suggestions.clone();
    let submit_dir = {
        let active = active.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let dir = dir_input.get_untracked().trim().to_string();
            // Remembered for this tab when storage allows; used now either way.
            if let Err(e) = svc::save_project_dir(&active, &dir) {
                dir_error.set(Some(t!("skills.project.save_error", error = e.said())));
            }
            typed.set((!dir.is_empty()).then(|| (active.cache_scope(), dir)));
        }
    };
    move || {
        let submit_dir = submit_dir.clone();
        project_form(
            submit_dir,
            dir_input,
            dir_error,
            &suggestions,
            dir_hint.clone(),
        )
        .into_any()
    }
}

/// The project directory field: typed, or picked from the suggestions.
fn project_form(
    submit_dir: impl FnMut(leptos::ev::SubmitEvent) + 'static,
    dir_input: RwSignal<String>,
    dir_error: RwSignal<Option<String>>,
    suggestions: &[String],
    dir_hint: String,
) -> impl IntoView {
    view! {
        <form class="skills-project" data-testid="skills-project" on:submit=submit_dir>
            <div class="field">
                <label for="skills-project-dir">{t!("skills.project.label")}</label>
                <div class="skills-project-row">
                    <input id="skills-project-dir" class="mono" data-testid="skills-project-dir"
                        list="skills-project-dirs" autocomplete="off" spellcheck="false"
                        placeholder="/path/to/your/project"
                        prop:value=move || dir_input.get()
                        on:input=move |ev| dir_input.set(event_target_value(&ev)) />
                    <button type="submit" class="btn" data-testid="skills-project-load">{t!("skills.project.load")}</button>
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
    }
}
