//! Settings (issue #13; a lazy chunk): `/settings/llm` — the active backend's LLM profiles
//! (create or replace, test, activate, delete; keys write-only); `/settings/agent` — the agent's
//! and new conversations' settings as forms the server's schemas generate (`agent/`);
//! `/settings/mcp` — its MCP servers, listed, tested, added and removed (`mcp/`);
//! `/settings/secrets` — its secrets
//! (names listed, values write-only: typed once, sent, cleared, never shown or asked for
//! again) — `/settings/git` — the git identity commits are made with, per backend — and
//! `/settings/app` — this browser's preferences (theme, notifications, sound).
//! A backend kind without secrets says so instead of failing.

use crate::links::href;
use crate::state::i18n::{msg, t, Msg};
use leptos::prelude::*;

mod agent;
mod agents;
mod app;
mod git;
mod llm;
mod mcp;
mod profiles;
mod secrets;
mod sub_agents;

use agent::AgentSection;
use agents::AgentsSection;
use app::AppSection;
use git::GitSection;
use llm::LlmSection;
use mcp::McpSection;
use secrets::SecretsSection;

/// The sections: (path segment, label).
const SECTIONS: &[(&str, Msg)] = &[
    ("llm", msg!("settings.tabs.llm")),
    ("agents", msg!("settings.tabs.agents")),
    ("agent", msg!("settings.tabs.agent")),
    ("mcp", msg!("settings.tabs.mcp")),
    ("secrets", msg!("settings.tabs.secrets")),
    ("plugins", msg!("settings.tabs.plugins")),
    ("git", msg!("settings.tabs.git")),
    ("app", msg!("settings.tabs.app")),
];

#[component]
pub fn SettingsPage(section: String) -> impl IntoView {
    let section = if section.is_empty() {
        SECTIONS[0].0.to_string()
    } else {
        section
    };
    // Upstream's sections that are parts of the agent form here.
    let shown_as = match section.as_str() {
        "condenser" | "verification" | "agent-context" => "agent",
        s => s,
    }
    .to_string();
    let nav = SECTIONS
        .iter()
        .map(|&(id, label)| {
            let current = (id == shown_as).then_some("page");
            view! {
                <a href=href(&format!("/settings/{id}")) class="settings-tab"
                    data-testid=format!("settings-nav-{id}") aria-current=current>{label.text()}</a>
            }
        })
        .collect_view();
    let body = match section.as_str() {
        "llm" => view! { <LlmSection /> }.into_any(),
        "agent" | "condenser" | "verification" | "agent-context" => {
            view! { <AgentSection /> }.into_any()
        }
        "agents" => view! { <AgentsSection /> }.into_any(),
        "mcp" => view! { <McpSection /> }.into_any(),
        "secrets" => view! { <SecretsSection /> }.into_any(),
        "plugins" => view! {
            <div class="settings-section" data-testid="settings-plugins">
                <p class="muted">
                    {t!("settings.plugins.intro")}
                </p>
                <crate::components::installed::InstalledExtensions kind=canvas_core::settings::extensions::Extension::Plugin />
            </div>
        }
        .into_any(),
        "git" => view! { <GitSection /> }.into_any(),
        "app" => view! { <AppSection /> }.into_any(),
        other => view! {
            <div class="error" role="alert" data-testid="settings-unknown">
                <p>{t!("settings.unknown_page", page = other)}</p>
            </div>
        }
        .into_any(),
    };
    view! {
        <section class="page settings">
            <header class="page-header"><h1>{t!("settings.title")}</h1></header>
            <nav class="settings-nav" aria-label=t!("settings.title")>{nav}</nav>
            {body}
        </section>
    }
}

crate::lazy::lazy_view! {
    /// Settings (issue #13): secrets, app preferences.
    pub fn settings_page(section: String) in settings, preload preload_settings {
        view! { <crate::pages::settings::SettingsPage section=section /> }
    }
}
