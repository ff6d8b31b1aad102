//! First run (issue #37) on the pages people land on: the LLM banner (the start page and a
//! conversation) and the starter suggestions under an empty launcher. Both are lazy parts that
//! show nothing while they load.

use crate::components::icon::{icons, Icon};
use crate::links::href;
use crate::services::setup;
use crate::state::backends::use_backends;
use crate::state::i18n::{msg, t, Msg};
use leptos::prelude::*;
use leptos_router::components::A;

/// "Your LLM isn't set up yet…" with one button into the setup's LLM step, while the active
/// backend reports that a new conversation would have no LLM. Asks again when the backend
/// changes or the setup (or a settings page) saves an LLM.
#[component]
pub fn LlmBanner() -> impl IntoView {
    let backends = use_backends();
    let facts = LocalResource::new(move || {
        let active = backends.active.get();
        setup::track_changes();
        async move { setup::facts(backends, &active).await }
    });
    move || {
        facts.get().map(|f| {
            if !f.llm_missing() {
                // Known to be fine: nothing to see (tests wait for this mark).
                return view! { <span hidden data-testid="llm-ready"></span> }.into_any();
            }
            view! {
                <div class="llm-banner" role="status" data-testid="llm-banner">
                    <Icon icon=icons::WARNING />
                    <p>{t!("banner.llm.text")}</p>
                    <A href=href("/setup?step=llm") attr:class="btn primary" attr:data-testid="llm-banner-setup">
                        {t!("banner.llm.action")}
                    </A>
                </div>
            }
            .into_any()
        })
    }
}

/// Tasks that work in any folder.
const STARTERS: [Msg; 5] = [
    msg!("starter.explain"),
    msg!("starter.readme"),
    msg!("starter.todo"),
    msg!("starter.script"),
    msg!("starter.tests"),
];

/// A few tasks to start from while the launcher is empty; choosing one fills it.
#[component]
pub fn Starters(draft: RwSignal<String>) -> impl IntoView {
    let empty = move || draft.with(|d| d.trim().is_empty());
    view! {
        <Show when=empty>
            <section class="starters" data-testid="starters" aria-labelledby="starters-title">
                <h2 id="starters-title" class="starters-title">{t!("starter.title")}</h2>
                <ul>
                    {STARTERS.iter().map(|m| {
                        let words = m.text();
                        let fill = words.clone();
                        view! {
                            <li><button type="button" class="btn starter" data-testid="starter"
                                on:click=move |_| {
                                    draft.set(fill.clone());
                                    focus_launcher();
                                }>{words}</button></li>
                        }
                    }).collect_view()}
                </ul>
            </section>
        </Show>
    }
}

/// Puts the caret in the launcher after a suggestion filled it.
fn focus_launcher() {
    use wasm_bindgen::JsCast;
    if let Some(el) = document()
        .query_selector("[data-testid=launcher-input]")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

crate::lazy::lazy_view! {
    /// The LLM banner.
    pub fn llm_banner() in first_run, preload preload_llm_banner {
        view! { <crate::components::first_run::LlmBanner /> }
    }
}

crate::lazy::lazy_view! {
    /// The starter suggestions under the launcher.
    pub fn starters(draft: leptos::prelude::RwSignal<String>) in first_run, preload preload_starters {
        view! { <crate::components::first_run::Starters draft=draft /> }
    }
}
