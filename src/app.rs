//! Providers and the route table.

use crate::components::shell::Shell;
use crate::lazy::lazy;
use crate::pages::automations::{
    automation_page, automations_page, git_sync_page, preload_automation, preload_automations,
    preload_git_sync, preload_templates, preload_webhooks, templates_page, webhooks_page,
};
use crate::pages::conversation::{conversation_page, preload_conversation};
use crate::pages::hosts::{hosts_page, preload_hosts};
use crate::pages::inbox::{inbox_page, preload_inbox};
use crate::pages::onboarding::{onboarding_page, preload_onboarding};
use crate::pages::panel::{panel_page, preload_panel};
use crate::pages::public_key::{preload_public_key, public_key_page};
use crate::pages::setup::{preload_setup, setup_page};
use crate::pages::skills::{preload_skills, skills_page};
use crate::pages::start_task::{preload_start_task, start_task_page};
use crate::pages::{conversations::ConversationsPage, home::HomePage, not_found::NotFound};
use crate::state;
use crate::state::i18n::msg;
use leptos::prelude::*;
use leptos_router::components::{Outlet, ParentRoute, Route, Router, Routes};
use leptos_router::hooks::{use_location, use_params_map};
use leptos_router::path;

#[component]
pub fn App() -> impl IntoView {
    let backends = state::backends::provide_backends();
    state::connection::provide_connection(backends);
    state::first_paint::provide_first_paint();
    crate::services::first_page::provide_first_page(
        backends,
        canvas_core::conversations::list::sidebar::SIDEBAR_PAGE_SIZE,
        crate::services::sidebar::collapsed(),
    );
    crate::components::backends::provide_backends_ui();
    state::workspace::provide_workspace();
    let base = backends
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default());
    view! {
        <Router base=base>
            <LeaveConversationOnSwitch />
            <Shell>
                <Gate>
                    <Routes fallback=NotFound>
                        <Route path=path!("/") view=HomePage />
                        <Route path=path!("/conversations") view=ConversationsPage />
                        <ParentRoute path=path!("/conversations/:id") view=Outlet>
                            <Route path=path!("") view=ConversationOrTask />
                            <Route path=path!("panel") view=|| lazy(msg!("app.part.workspace_panel"), preload_panel, panel_page) />
                        </ParentRoute>
                        <Route path=path!("/automations") view=|| lazy(msg!("app.part.automations"), preload_automations, automations_page) />
                        <Route path=path!("/automations/webhooks") view=|| lazy(msg!("app.part.webhooks"), preload_webhooks, webhooks_page) />
                        <Route path=path!("/automations/git-sync") view=|| lazy(msg!("app.part.git_sync"), preload_git_sync, git_sync_page) />
                        <Route path=path!("/automations/templates") view=|| lazy(msg!("app.part.templates"), preload_templates, || templates_page(None)) />
                        <Route path=path!("/automations/new/:id") view=TemplateById />
                        <Route path=path!("/automations/:id") view=AutomationById />
                        <Route path=path!("/hosts") view=|| lazy(msg!("app.part.hosts"), preload_hosts, || hosts_page(false)) />
                        <Route path=path!("/usage") view=|| lazy(msg!("app.part.usage"), preload_hosts, || hosts_page(true)) />
                        <Route path=path!("/inbox") view=|| lazy(msg!("app.part.inbox"), preload_inbox, inbox_page) />
                        <Route path=path!("/skills") view=|| lazy(msg!("app.part.skills"), preload_skills, skills_page) />
                        <Route path=path!("/setup") view=|| lazy(msg!("app.part.setup"), preload_setup, setup_page) />
                        <Route path=path!("/settings") view=SettingsBySection />
                        <Route path=path!("/settings/:section") view=SettingsBySection />
                        // Upstream's top-level settings pages (bookmarks keep working).
                        <Route path=path!("/mcp") view=|| view! { <SettingsAt section="mcp" /> } />
                        <Route path=path!("/plugins") view=|| view! { <SettingsAt section="plugins" /> } />
                    </Routes>
                </Gate>
            </Shell>
        </Router>
    }
}

/// `/conversations/:id`: a conversation, or — upstream's URL for a cloud start task —
/// `/conversations/task-<id>`, which has its own page.
#[component]
fn ConversationOrTask() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    move || {
        let id = id.get();
        match id.strip_prefix("task-") {
            Some(task) => {
                let task = task.to_string();
                lazy(msg!("app.part.start_task"), preload_start_task, move || {
                    start_task_page(task.clone())
                })
                .into_any()
            }
            None => lazy(
                msg!("app.part.conversation"),
                preload_conversation,
                move || conversation_page(id.clone()),
            )
            .into_any(),
        }
    }
}

/// `/automations/:id`.
#[component]
fn AutomationById() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    move || {
        let id = id.get();
        lazy(msg!("app.part.automation"), preload_automation, move || {
            automation_page(id.clone())
        })
    }
}

/// `/automations/new/:id`.
#[component]
fn TemplateById() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    move || {
        let id = id.get();
        lazy(
            msg!("app.part.template_setup"),
            preload_templates,
            move || templates_page(Some(id.clone())),
        )
    }
}

/// `/settings` and `/settings/:section` (a lazy chunk; `/settings` is its first section).
#[component]
fn SettingsBySection() -> impl IntoView {
    let params = use_params_map();
    let section = Memo::new(move |_| params.with(|p| p.get("section").unwrap_or_default()));
    move || {
        let section = section.get();
        lazy(
            msg!("app.part.settings"),
            crate::pages::settings::preload_settings,
            move || crate::pages::settings::settings_page(section.clone()),
        )
    }
}

/// A settings section at a URL of its own (upstream's `/mcp`, `/plugins`).
#[component]
fn SettingsAt(section: &'static str) -> impl IntoView {
    lazy(
        msg!("app.part.settings"),
        crate::pages::settings::preload_settings,
        move || crate::pages::settings::settings_page(section.to_string()),
    )
}

/// BR-5: switching backends leaves a conversation (or automation) page for its list (other pages
/// stay). Data
/// never leaks across backends because every resource is keyed by the active backend.
#[component]
fn LeaveConversationOnSwitch() -> impl IntoView {
    let backends = state::backends::use_backends();
    let location = use_location();
    let go = crate::links::use_go();
    let list = crate::links::href("/conversations");
    let automations = crate::links::href("/automations");
    let scope = Memo::new(move |_| backends.active.with(|a| a.cache_scope()));
    Effect::watch(
        move || scope.get(),
        move |_, _, _| {
            let path = location.pathname.get_untracked();
            if path.contains("/conversations/") {
                go(&list, false);
            } else if path.contains("/automations/") {
                // An automation belongs to the backend it was opened on.
                go(&automations, false);
            }
        },
        false,
    );
}

/// Shows the onboarding or the public-mode key entry instead of the routes when needed
/// (issue #5).
#[component]
fn Gate(children: ChildrenFn) -> impl IntoView {
    use crate::components::backends::{current_screen, Screen};
    let backends = state::backends::use_backends();
    let conn = state::connection::use_connection();
    let screen = Memo::new(move |_| current_screen(backends, conn));
    move || match screen.get() {
        Screen::App => children().into_any(),
        Screen::Onboarding => lazy(
            msg!("app.part.welcome_page"),
            preload_onboarding,
            onboarding_page,
        )
        .into_any(),
        Screen::PublicKey { rotated } => lazy(
            msg!("app.part.access_key_page"),
            preload_public_key,
            move || public_key_page(rotated),
        )
        .into_any(),
    }
}
