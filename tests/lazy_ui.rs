//! Lazily loaded parts mounted in a real browser (issue #11): a chunk that cannot be fetched
//! shows what happened with "Retry" (which fetches again), never a blank page; a loaded part
//! shows its view.

mod support;

use agent_canvas::lazy::{lazy, ChunkError};
use leptos::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;
use support::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn text_of(root: &web_sys::Element, selector: &str) -> Option<String> {
    root.query_selector(selector)
        .ok()
        .flatten()
        .map(|e| e.unchecked_into::<web_sys::HtmlElement>().inner_text())
}

#[wasm_bindgen_test]
async fn a_chunk_that_fails_shows_retry_and_retrying_fetches_again() {
    let root = container();
    // The first fetch fails (as a chunk would on a dropped connection); the second succeeds.
    let fetches = Arc::new(AtomicU32::new(0));
    let built = Arc::new(AtomicU32::new(0));
    let (f, b) = (fetches.clone(), built.clone());
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let (f, b) = (f.clone(), b.clone());
        lazy(
            "test part",
            move || {
                let n = f.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n == 0 {
                        Err(ChunkError("network error".into()))
                    } else {
                        Ok(())
                    }
                }
            },
            move || {
                b.fetch_add(1, Ordering::SeqCst);
                async { Ok(view! { <p data-testid="loaded-part">"Loaded"</p> }.into_any()) }
            },
        )
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    let message = wait_for("the chunk error", Duration::from_secs(5), || {
        text_of(&el, "[data-testid=chunk-error]")
    })
    .await;
    assert!(
        message.contains("The test part could not be loaded (network error)"),
        "{message}"
    );
    assert!(el
        .query_selector("[data-testid=chunk-reload]")
        .unwrap()
        .is_some());
    assert_eq!(
        built.load(Ordering::SeqCst),
        0,
        "nothing built without its chunk"
    );
    el.query_selector("[data-testid=chunk-retry]")
        .unwrap()
        .unwrap()
        .unchecked_into::<web_sys::HtmlElement>()
        .click();
    let shown = wait_for("the part after Retry", Duration::from_secs(5), || {
        text_of(&el, "[data-testid=loaded-part]")
    })
    .await;
    assert_eq!(shown, "Loaded");
    assert_eq!(fetches.load(Ordering::SeqCst), 2, "Retry fetched again");
    assert!(el
        .query_selector("[data-testid=chunk-error]")
        .unwrap()
        .is_none());
}

#[wasm_bindgen_test]
async fn a_part_shows_a_skeleton_until_its_chunk_arrives() {
    let root = container();
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    let rx = Arc::new(std::sync::Mutex::new(Some(rx)));
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let rx = rx.clone();
        lazy(
            "slow part",
            move || {
                let rx = rx.lock().unwrap().take();
                async move {
                    if let Some(rx) = rx {
                        let _ = rx.await;
                    }
                    Ok::<(), ChunkError>(())
                }
            },
            || async { Ok(view! { <p data-testid="slow-part">"Here"</p> }.into_any()) },
        )
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    let busy = wait_for("the skeleton", Duration::from_secs(5), || {
        attr(&el, "[data-testid=chunk-loading]", "aria-busy")
    })
    .await;
    assert_eq!(busy, "true");
    assert!(text_of(&el, "[data-testid=chunk-loading]")
        .unwrap_or_default()
        .contains("Loading slow part"));
    let _ = tx.send(());
    wait_for("the part", Duration::from_secs(5), || {
        text_of(&el, "[data-testid=slow-part]")
    })
    .await;
    assert!(el
        .query_selector("[data-testid=chunk-loading]")
        .unwrap()
        .is_none());
}

/// Resolves after the next animation frame.
async fn next_frame() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window().unwrap().request_animation_frame(&resolve);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

#[wasm_bindgen_test]
async fn a_part_after_the_list_waits_for_its_first_page_and_is_built_once() {
    use agent_canvas::lazy::lazy_after_list;
    use agent_canvas::state::first_paint::{provide_first_paint, FirstPaint};
    let root = container();
    let fetches = Arc::new(AtomicU32::new(0));
    let built = Arc::new(AtomicU32::new(0));
    let gate = Arc::new(std::sync::Mutex::new(None::<FirstPaint>));
    let (f, b, g) = (fetches.clone(), built.clone(), gate.clone());
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        *g.lock().unwrap() = Some(provide_first_paint());
        let (f, b) = (f.clone(), b.clone());
        lazy_after_list(
            "launcher options",
            move || {
                f.fetch_add(1, Ordering::SeqCst);
                async { Ok::<(), ChunkError>(()) }
            },
            move || {
                b.fetch_add(1, Ordering::SeqCst);
                async { Ok(view! { <p data-testid="after-list">"Options"</p> }.into_any()) }
            },
        )
    });
    let el: web_sys::Element = root.clone().unchecked_into();
    wait_for("the skeleton", Duration::from_secs(5), || {
        attr(&el, "[data-testid=chunk-loading]", "aria-busy")
    })
    .await;
    for _ in 0..3 {
        next_frame().await;
    }
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        0,
        "no fetch before the list's page"
    );
    let gate = gate.lock().unwrap().expect("provided");
    // The list says so twice (a refresh, a second list): the part comes once.
    gate.done();
    gate.done();
    wait_for("the part", Duration::from_secs(5), || {
        text_of(&el, "[data-testid=after-list]")
    })
    .await;
    gate.done();
    for _ in 0..3 {
        next_frame().await;
    }
    assert_eq!(built.load(Ordering::SeqCst), 1, "built once");
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
}
