//! Providers and the route table.

use crate::components::shell::Shell;
use crate::pages::{conversations::ConversationsPage, not_found::NotFound};
use crate::state;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::hooks::{use_location, use_navigate};
use leptos_router::path;

#[component]
pub fn App() -> impl IntoView {
    let backends = state::backends::provide_backends();
    state::connection::provide_connection(backends);
    crate::components::backends::provide_backends_ui();
    let base = backends
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default());
    view! {
        <Router base=base>
            <LeaveConversationOnSwitch />
            <Gate>
                <Shell>
                    <Routes fallback=NotFound>
                        <Route path=path!("/") view=ConversationsPage />
                        <Route path=path!("/conversations") view=ConversationsPage />
                    </Routes>
                </Shell>
            </Gate>
        </Router>
    }
}

/// BR-5: switching backends leaves a conversation page for the list (other pages stay). Data
/// never leaks across backends because every resource is keyed by the active backend.
#[component]
fn LeaveConversationOnSwitch() -> impl IntoView {
    let backends = state::backends::use_backends();
    let location = use_location();
    let navigate = use_navigate();
    let scope = Memo::new(move |_| backends.active.with(|a| a.cache_scope()));
    Effect::watch(
        move || scope.get(),
        move |_, _, _| {
            let path = location.pathname.get_untracked();
            if path.contains("/conversations/") {
                navigate("/conversations", Default::default());
            }
        },
        false,
    );
}

/// What the whole window shows: the app, the first-run onboarding (no backend at all), or the
/// public-mode key entry (issue #5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Screen {
    App,
    Onboarding,
    /// Public mode without an accepted key; `rotated` when the saved key was refused.
    PublicKey {
        rotated: bool,
    },
}

/// Shows the onboarding or the public-mode key entry instead of the app when needed.
#[component]
fn Gate(children: ChildrenFn) -> impl IntoView {
    use crate::state::connection::{use_connection, Connection};
    use canvas_core::errors::ApiError;
    use canvas_core::probe::ProbeError;
    let backends = state::backends::use_backends();
    let conn = use_connection();
    let public = backends
        .launcher
        .with_value(|l| l.auth_required && l.lock_to_cloud.is_none());
    let screen = Memo::new(move |_| {
        let (none, default_local) = backends.active.with(|a| {
            (
                a.is_none(),
                a.backend.id == canvas_core::backend::DEFAULT_LOCAL_ID,
            )
        });
        if public && none {
            return Screen::PublicKey { rotated: false };
        }
        if none {
            return Screen::Onboarding;
        }
        let refused = matches!(
            conn.state(),
            Connection::Failed {
                error: ProbeError::Api(ApiError::Unauthorized),
                ..
            }
        );
        if public && default_local && refused {
            return Screen::PublicKey { rotated: true };
        }
        Screen::App
    });
    move || match screen.get() {
        Screen::App => children().into_any(),
        Screen::Onboarding => view! { <crate::pages::onboarding::OnboardingPage /> }.into_any(),
        Screen::PublicKey { rotated } => {
            view! { <crate::pages::public_key::PublicKeyPage rotated=rotated /> }.into_any()
        }
    }
}
