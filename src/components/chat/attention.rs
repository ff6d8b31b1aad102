//! What tells a person that this conversation needs them while they look elsewhere (issue
//! #16): the tab title carries the agent's status ("✓ Fix the build · Agent Canvas"), and when
//! the agent finishes, fails or waits for a confirmation while this tab is in the background, a
//! desktop notification says so — once the person allowed them ("Notify me"). The rules are
//! `canvas_core::attention`; this only applies them.

use canvas_core::attention::{notification, tab_title, APP_TITLE};
use canvas_core::events::ExecutionStatus;
use leptos::prelude::*;
use web_sys::{Notification, NotificationOptions, NotificationPermission, VisibilityState};

fn permission() -> NotificationPermission {
    // `Notification` is missing in some browsers (and in insecure contexts).
    let has_api = js_sys::Reflect::has(&window(), &"Notification".into()).unwrap_or(false);
    if has_api {
        Notification::permission()
    } else {
        NotificationPermission::Denied
    }
}

fn notify(title: &str, body: &str) {
    let hidden = document().visibility_state() == VisibilityState::Hidden;
    if !hidden || permission() != NotificationPermission::Granted {
        return;
    }
    let options = NotificationOptions::new();
    options.set_body(body);
    options.set_tag("agent-canvas-conversation");
    let _ = Notification::new_with_options(title, &options);
}

/// Keeps the tab title in step with `status` and notifies on the changes that matter.
#[component]
pub fn Attention(title: String, status: RwSignal<ExecutionStatus>) -> impl IntoView {
    let heading = title.clone();
    Effect::new(move |before: Option<ExecutionStatus>| {
        let now = status.get();
        document().set_title(&tab_title(&title, &now));
        if let Some(body) = before.and_then(|b| notification(&b, &now)) {
            notify(&tab_title(&title, &now), body);
        }
        now
    });
    on_cleanup(|| document().set_title(APP_TITLE));
    let asked = RwSignal::new(false);
    let can_ask = move || {
        asked.track();
        permission() == NotificationPermission::Default
    };
    let ask = move |_| {
        if let Ok(promise) = Notification::request_permission() {
            leptos::task::spawn_local(async move {
                let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
                asked.try_set(true);
            });
        }
    };
    view! {
        <Show when=can_ask>
            <button class="btn small" data-testid="notify-me" title=format!("Tell me when “{heading}” finishes or needs me while this tab is in the background") on:click=ask>
                "Notify me"
            </button>
        </Show>
    }
}
