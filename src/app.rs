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
    let base = backends
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default());
    view! {
        <Router base=base>
            <LeaveConversationOnSwitch />
            <Shell>
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=ConversationsPage />
                    <Route path=path!("/conversations") view=ConversationsPage />
                </Routes>
            </Shell>
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
