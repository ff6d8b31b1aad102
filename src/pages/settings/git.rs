//! `/settings/git` (issue #34): the name and email the conversation header's Commit uses on the
//! active backend, remembered in this browser per backend. An unreadable stored identity is
//! said and kept until a new one is saved.

use crate::services::git as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::error::ActionError;
use canvas_core::git::actions::Identity;
use leptos::prelude::*;

#[component]
pub(super) fn GitSection() -> impl IntoView {
    let backends = use_backends();
    // Rebuilt when the active backend changes, not on each of its health updates (which would
    // drop what is being typed).
    let backend_id = Memo::new(move |_| backends.active.with(|a| a.backend.id.clone()));
    move || {
        let id = backend_id.get();
        let (start, load_error) = match svc::identity(&id) {
            Ok(who) => (who, None),
            Err(e) => (Identity::default(), Some(e.said())),
        };
        // The fields start from what is stored and are not written back while typed (an
        // email field rewritten on each keystroke loses the caret at a space).
        let (first_name, first_email) = (start.name.clone(), start.email.clone());
        let name = RwSignal::new(start.name);
        let email = RwSignal::new(start.email);
        let message = RwSignal::new(load_error.map(|e| (false, e)));
        let id = StoredValue::new(id);
        let save = move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let who = Identity {
                name: name.get_untracked(),
                email: email.get_untracked(),
            };
            if let Some(p) = who.problem() {
                message.set(Some((false, say(&p))));
                return;
            }
            message.set(Some(match svc::save_identity(&id.get_value(), &who) {
                Ok(()) => (true, t!("git.identity.saved")),
                Err(e) => (false, ActionError::from(e).said()),
            }));
        };
        view! {
            <form class="settings-section" data-testid="settings-git" novalidate on:submit=save>
                <p class="muted">{t!("git.identity.intro")}</p>
                <div class="field">
                    <label for="git-name">{t!("git.identity.name")}</label>
                    <input id="git-name" type="text" data-testid="git-name" autocomplete="name"
                        prop:value=first_name on:input=move |ev| name.set(event_target_value(&ev)) />
                </div>
                <div class="field">
                    <label for="git-email">{t!("git.identity.email")}</label>
                    <input id="git-email" type="email" data-testid="git-email" autocomplete="email"
                        prop:value=first_email on:input=move |ev| email.set(event_target_value(&ev)) />
                </div>
                <div class="actions">
                    <button type="submit" class="btn primary" data-testid="git-save">{t!("settings.common.save")}</button>
                </div>
                {move || message.get().map(|(ok, words)| view! {
                    <p class=if ok { "muted" } else { "error" } role=if ok { "status" } else { "alert" }
                        data-testid="git-identity-message" data-state=if ok { "saved" } else { "failed" }>{words}</p>
                })}
            </form>
        }
    }
}
