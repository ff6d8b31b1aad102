//! The lazily loaded parts of the app (issue #11): every route but the first paint of `/` and
//! `/conversations`, and the secondary UI (backend dialogs, LLM settings, recovery details,
//! onboarding). Each is its own wasm chunk in the split release build (see [`crate::lazy`]).

use crate::components::backends::BackendDialog;
use crate::lazy::{lazy_call, lazy_view};
use leptos::prelude::*;

lazy_view! {
    /// A conversation: timeline, chat, Markdown, composer, workspace panel.
    pub fn conversation_page(id: String) in conversation, preload preload_conversation {
        view! { <crate::pages::conversation::ConversationPage id=id /> }
    }
}

lazy_view! {
    /// The workspace panel on its own page.
    pub fn panel_page() in panel, preload preload_panel {
        view! { <crate::pages::panel::PanelPage /> }
    }
}

lazy_view! {
    /// A cloud start task.
    pub fn start_task_page(task_id: String) in start_task, preload preload_start_task {
        view! { <crate::pages::start_task::StartTaskPage task_id=task_id /> }
    }
}

lazy_view! {
    /// First run: no backend at all.
    pub fn onboarding_page() in onboarding, preload preload_onboarding {
        view! { <crate::pages::onboarding::OnboardingPage /> }
    }
}

lazy_view! {
    /// Public mode: the access key entry.
    pub fn public_key_page(rotated: bool) in public_key, preload preload_public_key {
        view! { <crate::pages::public_key::PublicKeyPage rotated=rotated /> }
    }
}

lazy_view! {
    /// Add / edit / manage backends.
    pub fn backend_dialog(dialog: BackendDialog) in backend_dialogs, preload preload_backend_dialogs {
        crate::components::backends::dialog_view(dialog)
    }
}

lazy_view! {
    /// The LLM settings under the launcher.
    pub fn llm_settings() in launch, preload preload_llm_settings {
        view! { <crate::pages::home::LlmSettingsPanel /> }
    }
}

lazy_view! {
    /// The launcher's options: working directory, LLM profile, secrets (issue #13).
    pub fn launch_options() in launch, preload preload_launch_options {
        view! { <crate::components::launch_options::LaunchOptionsPanel /> }
    }
}

lazy_call! {
    /// Starts a conversation from the launcher with its options (the chunk comes with the
    /// home page's options, so it is usually there before the first Start).
    pub fn start_conversation(
        backends: crate::state::backends::BackendsCtx,
        active: canvas_core::backends::selection::ActiveBackend,
        message: String,
    ) -> Result<String, String>, in launch, preload preload_start_conversation {
        crate::services::conversation::start(backends, &active, &message).await
    }
}

lazy_view! {
    /// "Where should it run?" under the launcher, on backends that run sessions on hosts.
    pub fn run_where(
        choice: RwSignal<Option<crate::services::hosts::Choice>>,
    ) in launch, preload preload_run_where {
        view! { <crate::components::run_where::RunWhere choice=choice /> }
    }
}

lazy_call! {
    /// Starts a session on the host the user picked (backends that run sessions on hosts).
    pub fn start_session(
        backends: crate::state::backends::BackendsCtx,
        active: canvas_core::backends::selection::ActiveBackend,
        choice: crate::services::hosts::Choice,
        message: String,
    ) -> Result<String, String>, in launch, preload preload_start_session {
        crate::services::hosts::start_session(backends, &active, &choice, &message).await
    }
}

lazy_view! {
    /// What to do when the active backend cannot be used.
    pub fn recovery_screen() in recovery, preload preload_recovery {
        view! { <crate::components::recovery::RecoveryScreen /> }
    }
}

lazy_view! {
    /// Above the page while a backend that worked in this tab is away (same chunk as the
    /// recovery screen: both only matter when something failed).
    pub fn away_banner() in recovery, preload preload_away_banner {
        view! { <crate::components::recovery::AwayBanner /> }
    }
}

lazy_view! {
    /// `/automations`: the list, create/edit, run now, pause, delete.
    pub fn automations_page() in automations, preload preload_automations {
        view! { <crate::pages::automations::AutomationsPage /> }
    }
}

lazy_view! {
    /// `/automations/:id`: one automation and its runs.
    pub fn automation_page(id: String) in automations, preload preload_automation {
        view! { <crate::pages::automations::AutomationPage id=id /> }
    }
}

lazy_view! {
    /// `/skills`: skills merged by precedence, filters, enable/disable.
    pub fn skills_page() in skills, preload preload_skills {
        view! { <crate::pages::skills::SkillsPage /> }
    }
}

lazy_view! {
    /// The conversations of every backend in one list (issue #16).
    pub fn all_conversations(refresh: Signal<u32>) in find_work, preload preload_all_conversations {
        view! { <crate::pages::all_conversations::AllConversations refresh=refresh /> }
    }
}

lazy_view! {
    /// The conversation lists' filter bar: status, archived, backends (issue #16).
    pub fn list_filters() in find_work, preload preload_list_filters {
        view! { <crate::pages::conversations::ListFilters /> }
    }
}

lazy_view! {
    /// The keyboard shortcuts' actions and the `?` dialog (issue #16), loaded at the first
    /// shortcut pressed.
    pub fn shortcuts(request: crate::components::shortcuts::Request) in find_work, preload preload_shortcuts {
        view! { <crate::components::shortcuts::Shortcuts request=request /> }
    }
}

lazy_view! {
    /// The command palette (⌘K / Ctrl+K).
    pub fn palette(close: Callback<()>) in find_work, preload preload_palette {
        view! { <crate::components::palette::Palette close=close /> }
    }
}

lazy_view! {
    /// The conversation list in the sidebar (issue #16), loaded after the first paint.
    pub fn sidebar_list() in sidebar, preload preload_sidebar_list {
        view! { <crate::components::sidebar_list::SidebarList /> }
    }
}

lazy_view! {
    /// Settings (issue #13): secrets, app preferences.
    pub fn settings_page(section: String) in settings, preload preload_settings {
        view! { <crate::pages::settings::SettingsPage section=section /> }
    }
}
