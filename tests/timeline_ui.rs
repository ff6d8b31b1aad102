//! Timeline items mounted in a real browser (issue #10, views tested where they live): agent
//! text is Markdown rendered as elements built from an AST — raw HTML stays text, a
//! `javascript:` link gets no href — and a user's message is plain text.

mod support;

use agent_canvas::components::chat::items::TimelineItem;
use canvas_core::conversations::live::events::{ItemKind, ViewItem};
use leptos::prelude::*;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn item(kind: ItemKind) -> ViewItem {
    ViewItem {
        key: "k".into(),
        id: "k".into(),
        timestamp: "2026-12-01T00:00:00".into(),
        kind,
    }
}

#[wasm_bindgen_test]
fn agent_markdown_is_rendered_safely() {
    let root = container();
    let text = "Done **well**.\n\n<img src=x onerror=\"window.__pwned=1\"> \
                [click](javascript:window.__pwned=2) [docs](https://example.com/)"
        .to_string();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <TimelineItem item=item(ItemKind::AgentMessage { text: text.clone(), streaming: false }) /> }
    });
    let el: web_sys::Element = root.unchecked_into();
    let bubble = el
        .query_selector("[data-testid=agent-message]")
        .unwrap()
        .expect("the agent's message");
    assert_eq!(
        bubble
            .query_selector("strong")
            .unwrap()
            .unwrap()
            .text_content()
            .as_deref(),
        Some("well")
    );
    assert!(
        bubble.query_selector("img").unwrap().is_none(),
        "raw HTML is not an element"
    );
    assert!(
        bubble
            .text_content()
            .unwrap_or_default()
            .contains("<img src=x"),
        "raw HTML stays visible as text"
    );
    let links = bubble.query_selector_all("a").unwrap();
    let hrefs: Vec<Option<String>> = (0..links.length())
        .filter_map(|i| links.get(i))
        .map(|n| n.unchecked_into::<web_sys::Element>().get_attribute("href"))
        .collect();
    assert!(
        hrefs.iter().all(|h| h
            .as_deref()
            .is_none_or(|h| !h.to_ascii_lowercase().starts_with("javascript:"))),
        "{hrefs:?}"
    );
    assert!(
        hrefs.contains(&Some("https://example.com/".into())),
        "{hrefs:?}"
    );
    assert!(js("return window.__pwned === undefined")
        .as_bool()
        .unwrap_or(false));
}

#[wasm_bindgen_test]
fn a_users_message_is_plain_text() {
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! { <TimelineItem item=item(ItemKind::UserMessage { text: "**not bold** <b>x</b>".into(), images: Vec::new() }) /> }
    });
    let el: web_sys::Element = root.unchecked_into();
    let bubble = el
        .query_selector("[data-testid=user-message]")
        .unwrap()
        .expect("the user's message");
    assert_eq!(
        bubble.text_content().as_deref(),
        Some("**not bold** <b>x</b>")
    );
    assert!(bubble.query_selector("b, strong").unwrap().is_none());
}

#[wasm_bindgen_test]
fn an_image_on_another_server_is_a_link_never_loaded() {
    const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    let root = container();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! { <TimelineItem item=item(ItemKind::UserMessage {
            text: "two images".into(),
            images: vec![PNG.into(), "https://tracker.example/pixel.png".into()],
        }) /> }
    });
    let el: web_sys::Element = root.unchecked_into();
    let imgs = el.query_selector_all("img").unwrap();
    let srcs: Vec<Option<String>> = (0..imgs.length())
        .filter_map(|i| imgs.get(i))
        .map(|n| n.unchecked_into::<web_sys::Element>().get_attribute("src"))
        .collect();
    assert_eq!(
        srcs,
        [Some(PNG.to_string())],
        "only the inline image is an <img>"
    );
    let link = el
        .query_selector("[data-testid=message-image-link]")
        .unwrap()
        .expect("the remote image as a link");
    assert_eq!(
        link.get_attribute("href").as_deref(),
        Some("https://tracker.example/pixel.png")
    );
    assert_eq!(
        link.text_content().as_deref(),
        Some("Image 2 on tracker.example (not loaded)")
    );
}
