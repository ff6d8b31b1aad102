//! Providers and the route table.

use crate::components::shell::Shell;
use crate::pages::{conversations::ConversationsPage, not_found::NotFound};
use crate::state;
use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
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
            <Shell>
                <Routes fallback=NotFound>
                    <Route path=path!("/") view=ConversationsPage />
                    <Route path=path!("/conversations") view=ConversationsPage />
                </Routes>
            </Shell>
        </Router>
    }
}
