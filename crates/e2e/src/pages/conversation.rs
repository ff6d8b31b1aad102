//! Page object: a conversation — its heading, the run's status, the timeline's finished turns
//! and the composer (typing, sending, the unsent draft).

use crate::keys::ENTER;
use crate::Browser;
use serde_json::{json, Value};
use std::time::Duration;

/// The message box.
const COMPOSER: &str = "[data-testid=composer-input]";

/// The conversation page (see the module docs).
pub struct ConversationPage<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The open conversation's page.
    pub fn conversation(&self) -> ConversationPage<'_> {
        ConversationPage { b: self }
    }
}

impl ConversationPage<'_> {
    /// Waits until the message box is on the page.
    pub async fn wait_composer(&self) {
        self.b.wait_for(COMPOSER).await;
    }

    /// Clicks into the message box.
    pub async fn focus_composer(&self) {
        self.b.click(COMPOSER).await;
    }

    /// Replaces the message box's text with `text` (real key presses), without sending.
    pub async fn type_message(&self, text: &str) {
        self.b.type_into(COMPOSER, text).await;
    }

    /// Types `text` into the message box and presses Enter.
    pub async fn send(&self, text: &str) {
        self.type_message(text).await;
        self.b.press(ENTER).await;
    }

    /// The message box's text.
    pub async fn composer_text(&self) -> Value {
        self.b
            .js(&format!(
                "return document.querySelector({}).value",
                json!(COMPOSER)
            ))
            .await
    }

    /// Waits until the message box holds exactly `text`.
    pub async fn wait_composer_text(&self, text: &str) {
        self.b
            .wait_js(
                &format!("the composer holding {text:?}"),
                &format!(
                    "return document.querySelector({}).value === {}",
                    json!(COMPOSER),
                    json!(text)
                ),
            )
            .await;
    }

    /// Waits until the message box holds some text (e.g. a draft restored after a reload) and
    /// returns it.
    pub async fn wait_composer_filled(&self, what: &str) -> Value {
        self.b
            .wait_js(
                what,
                &format!(
                    "const e = document.querySelector({}); return e && e.value ? e.value : null;",
                    json!(COMPOSER)
                ),
            )
            .await
    }

    /// How many finished turns (the agent's finish messages) the timeline shows.
    pub async fn finished_turns(&self) -> u64 {
        self.b
            .js("return document.querySelectorAll('[data-testid=finish-message]').length")
            .await
            .as_u64()
            .unwrap_or_default()
    }

    /// Waits (up to `timeout`) until a finished turn's message contains `text`: the agent's
    /// answer.
    pub async fn wait_answer(&self, text: &str, timeout: Duration) {
        self.b
            .wait_js_for(
                &format!("the answer {text:?}"),
                &format!(
                    "const f = document.querySelector('[data-testid=finish-message]'); \
                     return !!f && f.innerText.includes({});",
                    json!(text)
                ),
                timeout,
            )
            .await;
    }

    /// Waits (up to `timeout`) until the timeline shows at least `n` finished turns.
    pub async fn wait_finished_turns(&self, what: &str, n: u64, timeout: Duration) {
        self.b
            .wait_js_for(
                what,
                &format!(
                    "return document.querySelectorAll('[data-testid=finish-message]').length >= {n}"
                ),
                timeout,
            )
            .await;
    }

    /// Waits until the run's status (the status bar's `exec-status`) is `status`.
    pub async fn wait_status(&self, what: &str, status: &str) {
        self.wait_status_for(what, status, crate::UI_TIMEOUT).await;
    }

    /// [`ConversationPage::wait_status`] with its own deadline (a run doing real work).
    pub async fn wait_status_for(&self, what: &str, status: &str, timeout: Duration) {
        self.b
            .wait_js_for(
                what,
                &format!(
                    "return document.querySelector('[data-testid=exec-status]')?.dataset.status === {}",
                    json!(status)
                ),
                timeout,
            )
            .await;
    }

    /// Waits until the run is neither running nor waiting for a confirmation.
    pub async fn wait_idle(&self, what: &str) {
        self.b
            .wait_js(
                what,
                "const s = document.querySelector('[data-testid=exec-status]').dataset.status; \
                 return s !== 'running' && s !== 'waiting_for_confirmation'",
            )
            .await;
    }

    /// The conversation's heading (`""` when there is none).
    pub async fn heading(&self) -> String {
        self.b.text_of("[data-testid=conversation-heading]").await
    }

    /// Waits until the conversation's heading reads `title`.
    pub async fn wait_heading(&self, what: &str, title: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return document.querySelector('[data-testid=conversation-heading]')?.innerText === {}",
                    json!(title)
                ),
            )
            .await;
    }

    /// Whether leaving the page now would ask first (the page cancels `beforeunload`).
    pub async fn leaving_asks(&self) -> Value {
        self.b
            .js("const e = new Event('beforeunload', {cancelable: true}); \
                 window.dispatchEvent(e); return e.defaultPrevented;")
            .await
    }
}
