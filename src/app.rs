//! Providers and the route table.

use crate::components::shell::Shell;
use crate::pages::{
    conversation::ConversationPage, conversations::ConversationsPage, home::HomePage,
    not_found::NotFound, panel::PanelPage,
};
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
    state::workspace::provide_workspace();
    let base = backends
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default());
    view! {
        <Router base=base>
            <LeaveConversationOnSwitch />
            <Shell>
                <Gate>
                    <Routes fallback=NotFound>
                        <Route path=path!("/") view=HomePage />
                        <Route path=path!("/conversations") view=ConversationsPage />
                        <Route path=path!("/conversations/:id") view=ConversationPage />
                        <Route path=path!("/conversations/:id/panel") view=PanelPage />
                    </Routes>
                </Gate>
            </Shell>
        </Router>
    }
}

/// An app path with the router base (`/canvas/conversations` under `--base-path /canvas`) for
/// `<A href>`: leptos_router keeps absolute hrefs as they are, and leaves a link outside its
/// base to the browser (a full page load).
pub fn link(path: &str) -> String {
    let base = state::backends::use_backends()
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default());
    format!("{base}{path}")
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

/// Shows the onboarding or the public-mode key entry instead of the routes when needed
/// (issue #5).
#[component]
fn Gate(children: ChildrenFn) -> impl IntoView {
    use crate::components::backends::{current_screen, Screen};
    let backends = state::backends::use_backends();
    let conn = state::connection::use_connection();
    let screen = Memo::new(move |_| current_screen(backends, conn));
    move || match screen.get() {
        Screen::App => children().into_any(),
        Screen::Onboarding => view! { <crate::pages::onboarding::OnboardingPage /> }.into_any(),
        Screen::PublicKey { rotated } => {
            view! { <crate::pages::public_key::PublicKeyPage rotated=rotated /> }.into_any()
        }
    }
}
