//! Page object: the workspace panel — its tabs and the terminal (run, history, stop).

use crate::Browser;
use fantoccini::Locator;
use serde_json::{json, Value};

/// The terminal's command field.
const TERMINAL_INPUT: &str = "[data-testid=terminal-input]";

/// The workspace panel (see the module docs).
pub struct WorkspacePanel<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The workspace panel (its own page, or beside a conversation).
    pub fn workspace(&self) -> WorkspacePanel<'_> {
        WorkspacePanel { b: self }
    }
}

/// The Files tab's entry for `path` (relative to the workspace).
pub fn tree_entry(path: &str) -> String {
    format!("[data-testid=tree-entry][data-path={}]", json!(path))
}

/// The Changes tab's row for `path`.
fn change_row(path: &str) -> String {
    format!("[data-testid=change-row][data-path={}]", json!(path))
}

impl WorkspacePanel<'_> {
    /// Opens `path` in the Files tab (a folder opens, a file shows in the viewer).
    pub async fn open_entry(&self, path: &str) {
        self.b.click(&format!("{} button", tree_entry(path))).await;
    }

    /// Waits until the Changes tab lists `path`; its status (`modified`, `added`, …).
    pub async fn wait_change(&self, path: &str) -> String {
        self.b.wait_for(&change_row(path)).await;
        self.b.data_of(&change_row(path), "status").await
    }

    /// Opens `path`'s diff in the Changes tab.
    pub async fn open_change(&self, path: &str) {
        self.b.click(&format!("{} button", change_row(path))).await;
    }

    /// Opens tab `name` (`terminal`, `files`, `changes`, …).
    pub async fn open_tab(&self, name: &str) {
        self.b.click(&format!("[data-testid=ws-tab-{name}]")).await;
    }

    /// Waits until the terminal's command field is there.
    pub async fn wait_terminal(&self) {
        self.b.wait_for(TERMINAL_INPUT).await;
    }

    /// Sends `keys` to the terminal's command field as key presses (text, or arrows for its
    /// history).
    pub async fn terminal_keys(&self, keys: &str) {
        self.b
            .client
            .find(Locator::Css(TERMINAL_INPUT))
            .await
            .expect("terminal input")
            .send_keys(keys)
            .await
            .expect("type");
    }

    /// Clears the terminal's command field.
    pub async fn clear_terminal(&self) {
        self.b
            .client
            .find(Locator::Css(TERMINAL_INPUT))
            .await
            .expect("terminal input")
            .clear()
            .await
            .expect("clear");
    }

    /// Waits until the terminal's command field holds `text`.
    pub async fn wait_terminal_text(&self, what: &str, text: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return document.querySelector({}).value === {}",
                    json!(TERMINAL_INPUT),
                    json!(text)
                ),
            )
            .await;
    }

    /// Types `command` and clicks Run, without waiting for it.
    pub async fn start_command(&self, command: &str) {
        self.terminal_keys(command).await;
        self.b.click("[data-testid=terminal-run-button]").await;
    }

    /// Types `command`, clicks Run and clicks the new run's Stop as soon as it shows — in the
    /// same turn of the page's event loop, so before the server could answer the start.
    pub async fn start_and_stop_at_once(&self, command: &str) {
        self.terminal_keys(command).await;
        let script = "const done = arguments[arguments.length - 1]; \
             const stop = () => document.querySelector('[data-testid=terminal-run] [data-testid=terminal-stop]'); \
             const obs = new MutationObserver(() => { \
               const b = stop(); if (b) { obs.disconnect(); b.click(); done(true); } }); \
             obs.observe(document.body, { childList: true, subtree: true }); \
             document.querySelector('[data-testid=terminal-run-button]').click();";
        self.b
            .client
            .execute_async(script, vec![])
            .await
            .expect("run, then stop at once");
    }

    /// How many runs the terminal lists.
    pub async fn runs(&self) -> Value {
        self.b
            .js("return document.querySelectorAll('[data-testid=terminal-run]').length")
            .await
    }

    /// Runs `command` and waits for its exit code; returns (exit code, output) of the newest
    /// run.
    pub async fn run_command(&self, command: &str) -> (Value, String) {
        let before = self.runs().await;
        self.start_command(command).await;
        let script = format!(
            "const runs = document.querySelectorAll('[data-testid=terminal-run]'); \
             if (runs.length <= {before}) return null; \
             const r = runs[0]; \
             const e = r.querySelector('[data-testid=terminal-exit]'); \
             if (!e || !e.dataset.exitCode || r.dataset.running === 'true') return null; \
             return [Number(e.dataset.exitCode), r.querySelector('[data-testid=terminal-output]').textContent, e.innerText];"
        );
        let v = self
            .b
            .wait_js(&format!("the exit code of `{command}`"), &script)
            .await;
        (v[0].clone(), v[1].as_str().unwrap_or_default().to_string())
    }

    /// The newest run's exit label ("exit code 3", "stopped …").
    pub async fn exit_label(&self) -> Value {
        self.b
            .js("return document.querySelector('[data-testid=terminal-exit]').innerText")
            .await
    }

    /// Stops the running command (its Stop button, once it shows).
    pub async fn stop(&self) {
        self.b
            .wait_js(
                "the stop button",
                "return !!document.querySelector('[data-testid=terminal-run] [data-testid=terminal-stop]')",
            )
            .await;
        self.b.click("[data-testid=terminal-stop]").await;
    }
}
