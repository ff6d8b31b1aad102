//! What tells a person that this conversation needs them while they look elsewhere (issue
//! #16): the tab title carries the conversation's title — asked again from the server while it
//! has none, since the server names a conversation in the background — and the agent's status
//! ("✓ Fix the build · Agent Canvas"); the tab's icon gets a dot while the agent waits for a
//! confirmation; and when the agent finishes, fails or waits while this tab is in the
//! background, a desktop notification says so — once the person allowed them ("Notify me") —
//! and, when the person turned it on ("Sound"), a short chime (`platform::notify`).
//! The rules are `canvas_core::conversations::live::attention`; this only applies them.

use crate::components::icon::{icons, Icon};
use crate::platform::notify::{ask_permission, permission, set_sound, sound_on, tell};
use crate::services::conversation::load;
use crate::state::backends::use_backends;
use crate::state::i18n::{t, Said};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::UNTITLED_MESSAGE;
use canvas_core::conversations::live::attention::{
    ask_for_title, needs_you, notification_text, tab_title_text, APP_TITLE, NEEDS_YOU_ICON,
};
use canvas_core::conversations::live::events::ExecutionStatus;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlLinkElement, NotificationPermission};

fn icon_link() -> Option<HtmlLinkElement> {
    document()
        .query_selector("link[rel~=icon]")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<HtmlLinkElement>().ok())
}

/// Keeps the tab title and icon in step with the conversation, notifies on the changes that
/// matter, and shows the live title in `title` (the page's heading reads it).
#[component]
pub fn Attention(
    active: ActiveBackend,
    id: String,
    /// The server's title when the page loaded (`None`: not named yet).
    named: Option<String>,
    title: RwSignal<String>,
    status: RwSignal<ExecutionStatus>,
) -> impl IntoView {
    let backends = use_backends();
    let open_id = id.clone();
    let named = StoredValue::new(named);
    // The server names a conversation in the background: ask it again for the title.
    let ask_title = Action::new_local(move |_: &()| {
        let (active, id) = (active.clone(), id.clone());
        async move {
            let Ok(s) = load(backends, &active, &id).await else {
                return;
            };
            let Some(t) = s.title.filter(|t| !t.trim().is_empty()) else {
                return;
            };
            named.try_update_value(|n| *n = Some(t.clone()));
            title.try_set(t);
        }
    });
    // The inbox link's count follows this conversation's state as it is now.
    let needs_you_state = crate::state::needs_you::use_needs_you();
    Effect::new(move |_| {
        let waits = needs_you(&status.get());
        if let Some(n) = needs_you_state {
            n.set_open(Some((open_id.clone(), waits)));
        }
    });
    on_cleanup(move || {
        if let Some(n) = needs_you_state {
            n.set_open(None);
        }
    });
    let plain_icon = icon_link().map(|l| l.href());
    let plain_again = plain_icon.clone();
    Effect::new(move |before: Option<ExecutionStatus>| {
        let now = status.get();
        let shown = title.get_untracked();
        document().set_title(&crate::state::i18n::say(&tab_title_text(&shown, &now)));
        if let (Some(link), Some(plain)) = (icon_link(), plain_icon.as_deref()) {
            link.set_href(if needs_you(&now) {
                NEEDS_YOU_ICON
            } else {
                plain
            });
        }
        if let Some(body) = before.as_ref().and_then(|b| notification_text(b, &now)) {
            tell(
                &crate::state::i18n::say(&tab_title_text(&shown, &now)),
                &crate::state::i18n::say(&body),
            );
        }
        let unnamed = named.with_value(|n| n.clone());
        if let Some(b) = &before {
            if ask_for_title(unnamed.as_deref(), b, &now) {
                ask_title.dispatch(());
            }
        }
        now
    });
    // A new title (from the server) is shown in the tab at once.
    Effect::watch(
        move || title.get(),
        move |t, _, _| {
            document().set_title(&crate::state::i18n::say(&tab_title_text(
                t,
                &status.get_untracked(),
            )))
        },
        false,
    );
    on_cleanup(move || {
        document().set_title(APP_TITLE);
        if let (Some(link), Some(plain)) = (icon_link(), plain_again.as_deref()) {
            link.set_href(plain);
        }
    });
    let asked = RwSignal::new(false);
    let can_ask = move || {
        asked.track();
        permission() == NotificationPermission::Default
    };
    let ask = Action::new_local(move |_: &()| async move {
        ask_permission().await;
        asked.try_set(true);
    });
    let sound = RwSignal::new(sound_on());
    let sound_error = RwSignal::new(None::<String>);
    let toggle_sound = move |_| {
        let on = !sound.get_untracked();
        match set_sound(on) {
            Ok(()) => {
                sound.set(on);
                sound_error.set(None);
            }
            Err(e) => sound_error.set(Some(t!("chat.attention.sound_error", error = e.said()))),
        }
    };
    let hint = move || {
        let t = title.get();
        let t = if t.is_empty() {
            crate::state::i18n::say(&canvas_core::i18n::Text::new(UNTITLED_MESSAGE))
        } else {
            t
        };
        t!("chat.attention.notify_hint", title = t)
    };
    view! {
        <Show when=can_ask>
            <button class="btn small" data-testid="notify-me" title=hint on:click=move |_| { ask.dispatch(()); }>
                {t!("chat.attention.notify_me")}
            </button>
        </Show>
        <button class="btn small" data-testid="sound-toggle" aria-pressed=move || sound.get().to_string()
            title=t!("chat.attention.sound_hint")
            on:click=toggle_sound>
            {move || if sound.get() {
                view! { <Icon icon=icons::SOUND_ON />" "{t!("chat.attention.sound_on")} }
            } else {
                view! { <Icon icon=icons::SOUND_OFF />" "{t!("chat.attention.sound_off")} }
            }}
        </button>
        <span class="field-error" role="alert" data-testid="sound-error" hidden=move || sound_error.with(Option::is_none)>
            {move || sound_error.get().unwrap_or_default()}
        </span>
    }
}
