//! The last page the agent's browser saw (issue #36, the workspace panel's Browser tab): the
//! newest `BrowserObservation`'s screenshot (`screenshot_data`, base64 PNG, shown only as a
//! safe `data:` image) and text, when it came, and the URL its action went to (the action the
//! observation answers, else the newest `BrowserNavigateAction`). Read from the conversation's
//! newest observations and actions.

use crate::conversations::chat::attachments::safe_image_url;
use serde_json::Value;

/// The most of the page's text kept.
pub const MAX_TEXT_CHARS: usize = 4_000;

/// What the agent's browser last showed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrowserPage {
    /// The page's address, where an action names one.
    pub url: Option<String>,
    /// The screenshot as a safe `data:image/png;base64,…` URL.
    pub screenshot: Option<String>,
    /// The page's text as the tool reported it (at most [`MAX_TEXT_CHARS`]).
    pub text: Option<String>,
    /// When the observation came (ISO, as the server sent it).
    pub at: String,
    /// The tool reported an error.
    pub is_error: bool,
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// The page of the newest browser observation among `observations` (`ObservationEvent`s,
/// newest first), with the URL from `actions` (`ActionEvent`s, newest first); `None`: the
/// browser showed nothing yet.
pub fn last_page<'a>(
    observations: impl IntoIterator<Item = &'a Value>,
    actions: &[&'a Value],
) -> Option<BrowserPage> {
    let event = observations.into_iter().find(|e| {
        e.pointer("/observation/kind").and_then(Value::as_str) == Some("BrowserObservation")
    })?;
    let obs = event.get("observation")?;
    let screenshot = str_at(obs, "screenshot_data")
        .map(|b64| format!("data:image/png;base64,{}", b64.trim()))
        .filter(|url| safe_image_url(url).is_some());
    let text = obs
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| str_at(c, "text"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = (!text.trim().is_empty()).then(|| text.chars().take(MAX_TEXT_CHARS).collect());
    let url_of = |a: &Value| str_at(a.get("action")?, "url").map(str::to_owned);
    let answered = str_at(event, "action_id")
        .and_then(|id| actions.iter().find(|a| str_at(a, "id") == Some(id)))
        .and_then(|a| url_of(a));
    let navigated = || {
        actions
            .iter()
            .filter(|a| {
                a.pointer("/action/kind").and_then(Value::as_str) == Some("BrowserNavigateAction")
            })
            .find_map(|a| url_of(a))
    };
    Some(BrowserPage {
        url: answered.or_else(navigated),
        screenshot,
        text,
        at: str_at(event, "timestamp").unwrap_or_default().to_string(),
        is_error: obs.get("is_error").and_then(Value::as_bool) == Some(true),
    })
}

/// Whether `url` may be a link (http or https).
pub fn linkable(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Built from the server 1.58.2's schemas (BrowserObservation, BrowserNavigateAction): the
    // browser tool does not run here (it needs its own browser runtime), so no capture exists.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

    fn obs(action: &str, screenshot: Value, ts: &str) -> Value {
        json!({"kind": "ObservationEvent", "id": format!("o-{action}"), "timestamp": ts,
            "action_id": action, "tool_name": "browser_navigate",
            "observation": {"kind": "BrowserObservation", "is_error": false,
                "content": [{"type": "text", "text": "Example Domain"}],
                "screenshot_data": screenshot}})
    }
    fn nav(id: &str, url: &str) -> Value {
        json!({"kind": "ActionEvent", "id": id, "action": {"kind": "BrowserNavigateAction", "url": url}})
    }

    #[test]
    fn the_newest_page_with_its_address_and_a_safe_screenshot() {
        let terminal =
            json!({"kind": "ObservationEvent", "observation": {"kind": "TerminalObservation"}});
        let newer = obs("a2", json!(PNG), "2026-12-05T10:00:02Z");
        let older = obs("a1", json!(PNG), "2026-12-05T10:00:01Z");
        let (a2, a1) = (
            nav("a2", "https://example.com/b"),
            nav("a1", "https://example.com/a"),
        );
        let page = last_page([&terminal, &newer, &older], &[&a2, &a1]).expect("a page");
        assert_eq!(page.url.as_deref(), Some("https://example.com/b"));
        assert_eq!(
            page.screenshot,
            Some(format!("data:image/png;base64,{PNG}"))
        );
        assert_eq!(page.text.as_deref(), Some("Example Domain"));
        assert_eq!(page.at, "2026-12-05T10:00:02Z");
        // An observation whose action is not among the newest: the newest navigation's URL.
        let page = last_page([&obs("gone", json!(PNG), "t")], &[&a1]).unwrap();
        assert_eq!(page.url.as_deref(), Some("https://example.com/a"));
        // A screenshot that is not base64 is not shown; no screenshot is fine.
        let bad = last_page([&obs("a2", json!("<svg onload=x>"), "t")], &[]).unwrap();
        assert_eq!(bad.screenshot, None);
        assert_eq!(
            last_page([&obs("a2", Value::Null, "t")], &[])
                .unwrap()
                .screenshot,
            None
        );
        assert_eq!(last_page([&terminal], &[]), None);
        assert!(linkable("https://example.com") && !linkable("javascript:alert(1)"));
    }
}
