//! `/settings/app`: this browser's preferences (language, theme, notifications, sound, default
//! directory).

use crate::platform::notify;
use crate::platform::storage::WebStorage;
use crate::state::i18n::{self, t, Said};
use crate::state::language;
use canvas_core::i18n::Locale;
use canvas_core::settings::preferences::{self, Theme};
use leptos::prelude::*;
use web_sys::NotificationPermission;

/// Applies `theme` to the page (`data-theme` on the root element, read by the CSS).
fn apply_theme(theme: Theme) {
    if let Some(root) = document().document_element() {
        let _ = match theme.token() {
            Some(t) => root.set_attribute("data-theme", t),
            None => root.remove_attribute("data-theme"),
        };
    }
}

#[component]
pub(super) fn AppSection() -> impl IntoView {
    let store = WebStorage::local();
    let theme = RwSignal::new(preferences::theme(&store));
    let chosen = preferences::language(&store);
    let notifications = RwSignal::new(preferences::notifications_on(&store));
    let sound = RwSignal::new(preferences::sound_on(&store));
    let permission = RwSignal::new(notify::permission());
    let default_dir = RwSignal::new(preferences::default_dir(&store));
    let dir_error = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let report = move |r: Result<(), canvas_core::storage::StorageError>| {
        error.set(
            r.err()
                .map(|e| t!("settings.app.save_failed", error = e.said())),
        );
    };
    let ask = Action::new_local(move |_: &()| async move {
        notify::ask_permission().await;
        permission.try_set(notify::permission());
    });
    let themes = Theme::ALL
        .into_iter()
        .map(|t| {
            view! {
                <label class="choice">
                    <input type="radio" name="theme" data-testid=format!("theme-{}", t.label().to_lowercase())
                        prop:checked=move || theme.get() == t
                        on:change=move |_| {
                            report(preferences::set_theme(&store, t));
                            theme.set(t);
                            apply_theme(t);
                        } />
                    " "{i18n::say(&t.label_text())}
                </label>
            }
        })
        .collect_view();
    let permission_text = move || match permission.get() {
        NotificationPermission::Granted => t!("settings.app.notify_allowed"),
        NotificationPermission::Denied => t!("settings.app.notify_blocked"),
        _ => t!("settings.app.notify_ask"),
    };
    view! {
        <div class="settings-section" data-testid="settings-app">
            <p class="muted">{t!("settings.app.intro")}</p>
            <div class="field">
                <label for="pref-language">{t!("settings.app.language")}</label>
                <select id="pref-language" data-testid="pref-language"
                    on:change=move |ev| {
                        let picked = Locale::from_tag(&event_target_value(&ev));
                        report(preferences::set_language(&store, picked));
                        // The page comes back in that language (its file read before the paint).
                        let _ = window().location().reload();
                    }>
                    <option value="" selected=chosen.is_none()>
                        {t!("settings.app.language_auto", language = language::browser_locale().native_name())}
                    </option>
                    {Locale::ALL.into_iter().map(|l| view! {
                        <option value=l.tag() lang=l.tag() selected=chosen == Some(l)>{l.native_name()}</option>
                    }).collect_view()}
                </select>
                <span class="muted">{t!("settings.app.language_help")}</span>
            </div>
            <fieldset class="pref-group">
                <legend>{t!("settings.app.theme")}</legend>
                {themes}
            </fieldset>
            <fieldset class="pref-group">
                <legend>{t!("settings.app.alerts")}</legend>
                <label class="choice">
                    <input type="checkbox" data-testid="pref-notifications"
                        prop:checked=move || notifications.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            report(preferences::set_notifications(&store, on));
                            notifications.set(on);
                            if on && permission.get_untracked() == NotificationPermission::Default {
                                ask.dispatch(());
                            }
                        } />
                    {" "}{t!("settings.app.desktop_notification")}
                </label>
                <span class="muted" data-testid="notification-permission">{permission_text}</span>
                <label class="choice">
                    <input type="checkbox" data-testid="pref-sound"
                        prop:checked=move || sound.get()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            report(notify::set_sound(on));
                            sound.set(on);
                        } />
                    {" "}{t!("settings.app.sound")}
                </label>
            </fieldset>
            <fieldset class="pref-group">
                <legend>{t!("settings.app.new_conversations")}</legend>
                <label for="pref-default-dir">{t!("settings.app.default_dir")}</label>
                <input id="pref-default-dir" type="text" data-testid="pref-default-dir"
                    autocomplete="off" spellcheck="false"
                    placeholder=t!("settings.app.default_dir_placeholder")
                    prop:value=move || default_dir.get()
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        default_dir.set(v.clone());
                        dir_error.set(
                            preferences::set_default_dir_text(&store, &v)
                                .err()
                                .map(|e| i18n::say(&e)),
                        );
                    } />
                <span class="muted">
                    {t!("settings.app.default_dir_help")}
                </span>
                {move || dir_error.get().map(|e| view! {
                    <span class="field-error" role="alert" data-testid="pref-default-dir-error">{e}</span>
                })}
            </fieldset>
            <p class="field-error" role="alert" data-testid="pref-error" hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </p>
        </div>
    }
}
