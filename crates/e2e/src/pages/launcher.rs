//! Page object: the launcher on the start page — the message box that starts a conversation
//! and its options (working directory, LLM profile, secrets) with their one-line summary.

use crate::Browser;
use serde_json::json;

/// The launcher's message box.
const INPUT: &str = "[data-testid=launcher-input]";

/// The one-line summary of the chosen options.
const SUMMARY: &str = "[data-testid=launch-options-summary]";

/// The launcher (see the module docs).
pub struct LauncherPage<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The launcher on the start page.
    pub fn launcher(&self) -> LauncherPage<'_> {
        LauncherPage { b: self }
    }
}

impl LauncherPage<'_> {
    /// Waits until the message box is on the page.
    pub async fn wait_shown(&self) {
        self.b.wait_for(INPUT).await;
    }

    /// Puts `message` into the message box and clicks Start (once the page is there).
    pub async fn start(&self, message: &str) {
        self.wait_shown().await;
        self.b
            .js(&format!(
                "const e = document.querySelector({}); e.value = {}; \
                 e.dispatchEvent(new Event('input', {{bubbles: true}})); \
                 document.querySelector('[data-testid=launcher-start]').click(); return true;",
                json!(INPUT),
                json!(message)
            ))
            .await;
    }

    /// Opens the options under the message box.
    pub async fn open_options(&self) {
        self.b.click("[data-testid=launch-options] summary").await;
    }

    /// Waits until the options' summary reads `text` (e.g. `"defaults"`).
    pub async fn wait_summary(&self, text: &str) {
        self.b.wait_text(SUMMARY, text).await;
    }

    /// Waits until the options' summary contains `text`.
    pub async fn wait_summary_containing(&self, text: &str) {
        self.b.wait_text_containing(SUMMARY, text).await;
    }

    /// Types `dir` as the working directory.
    pub async fn type_dir(&self, dir: &str) {
        self.b.type_into("[data-testid=launch-dir]", dir).await;
    }

    /// Waits until the working directory's field holds `dir`.
    pub async fn wait_dir(&self, dir: &str) {
        self.b.wait_value("[data-testid=launch-dir]", dir).await;
    }

    /// Picks LLM profile `name`.
    pub async fn choose_profile(&self, name: &str) {
        self.b.choose("[data-testid=launch-profile]", name).await;
    }

    /// Waits until LLM profile `name` is the chosen one.
    pub async fn wait_profile(&self, name: &str) {
        self.b
            .wait_value("[data-testid=launch-profile]", name)
            .await;
    }

    /// The checkbox of secret `name`.
    pub fn secret(name: &str) -> String {
        format!(
            "[data-testid=launch-secret][data-secret={}] input",
            json!(name)
        )
    }
}
