//! The app shell: header (active backend, health dot, server version), sidebar, main area.

use crate::components::backends::{
    current_screen, selector::BackendSelector, BackendDialogs, Screen, SwitchingOverlay,
};
use crate::components::icon::{icons, Icon, IconData};
use crate::components::recovery::{
    away_banner, preload_away_banner, preload_recovery, recovery_screen,
};
use crate::components::status_dot::StatusDot;
use crate::lazy::lazy;
use crate::state::backends::use_backends;
use crate::state::connection::{use_connection, Connection};
use crate::state::i18n::{msg, say, t, Msg};
use canvas_core::backends::health::{backend_health_text, Health};
use leptos::prelude::*;
use leptos_router::components::A;

/// A sidebar entry: (path, its label, `data-testid`, what to prefetch on
/// hover/focus, its icon, whether it shows how many conversations wait for the person).
type NavEntry = (&'static str, Msg, &'static str, fn(), IconData, bool);

/// The sidebar's pages.
const NAV: &[NavEntry] = &[
    (
        "/conversations",
        msg!("nav.conversations"),
        "nav-conversations",
        || {},
        icons::CONVERSATIONS,
        false,
    ),
    (
        "/inbox",
        msg!("nav.inbox"),
        "nav-inbox",
        || crate::lazy::prefetch(crate::pages::inbox::preload_inbox),
        icons::INBOX,
        true,
    ),
    (
        "/automations",
        msg!("nav.automations"),
        "nav-automations",
        || crate::lazy::prefetch(crate::pages::automations::preload_automations),
        icons::AUTOMATIONS,
        false,
    ),
    (
        "/skills",
        msg!("nav.skills"),
        "nav-skills",
        || crate::lazy::prefetch(crate::pages::skills::preload_skills),
        icons::SKILLS,
        false,
    ),
    (
        "/settings",
        msg!("nav.settings"),
        "nav-settings",
        || crate::lazy::prefetch(crate::pages::settings::preload_settings),
        icons::SETTINGS,
        false,
    ),
];

/// One sidebar link (one instantiation for all of them: the main module stays small).
#[component]
fn NavLink(
    path: &'static str,
    label: Msg,
    testid: &'static str,
    prefetch: fn(),
    icon: IconData,
    counts: bool,
) -> impl IntoView {
    let needs_you = crate::state::needs_you::use_needs_you();
    let count = move || {
        needs_you
            .filter(|_| counts)
            .and_then(|n| n.count())
            .filter(|n| *n > 0)
            .map(|n| view! { <span class="nav-badge" data-testid="needs-you-count">{n}</span> })
    };
    view! {
        <A href=crate::links::href(path) attr:data-testid=testid attr:class="nav-link"
            on:mouseenter=move |_| prefetch() on:focus=move |_| prefetch()><Icon icon=icon />{label.text()}{count}</A>
    }
}

#[component]
pub fn Shell(children: ChildrenFn) -> impl IntoView {
    // One clock for every relative time on screen.
    crate::components::time::provide_now();
    let backends = use_backends();
    let conn = use_connection();
    crate::state::needs_you::provide_needs_you();
    let name = move || backends.active.with(|a| a.backend.name.clone());
    let id = move || backends.active.with(|a| a.backend.id.clone());
    let disabled = move || {
        let id = backends.active.with(|a| a.backend.id.clone());
        backends.health.with(|h| h.is_disabled(&id))
    };
    let status = Signal::derive(move || match conn.state() {
        Connection::Checking => Health::Checking,
        Connection::Connected(_) => Health::Connected,
        Connection::Failed { .. } if disabled() => Health::Disabled,
        Connection::Failed { .. } => Health::Failing,
    });
    let status_title =
        Signal::derive(move || say(&backend_health_text(None, Some(&conn.live()), true).1));
    let version = move || match conn.state() {
        Connection::Connected(Some(v)) => Some(view! {
            <span class="version-badge" data-testid="server-version">{v.to_string()}</span>
        }),
        _ => None,
    };
    // The onboarding and the public-mode key entry take the place of the recovery screen. A
    // backend that is only away keeps the page under a banner instead.
    let failed = move |keeps: bool| {
        matches!(conn.state(), Connection::Failed { keeps_page, .. } if keeps_page == keeps)
            && current_screen(backends, conn) == Screen::App
    };
    // On narrow screens the sidebar is a drawer: opened from the header, closed by Esc, a
    // click beside it, or going to another page.
    let drawer = RwSignal::new(false);
    let location = leptos_router::hooks::use_location();
    Effect::new(move |_| {
        location.pathname.track();
        location.search.track();
        drawer.set(false);
    });
    let in_app = move || current_screen(backends, conn) == Screen::App;
    let drawer_btn = NodeRef::<leptos::html::Button>::new();
    let nav = NodeRef::<leptos::html::Nav>::new();
    // Opening moves focus into the drawer; Esc closes it and gives focus back to its button.
    let toggle_drawer = move |_| {
        let open = !drawer.get_untracked();
        drawer.set(open);
        if open {
            request_animation_frame(move || {
                let first = nav
                    .get_untracked()
                    .and_then(|n| n.query_selector("a[href]").ok().flatten())
                    .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
                if let Some(el) = first {
                    let _ = el.focus();
                }
            });
        }
    };
    view! {
        <div class="app" class:drawer-open=move || drawer.get()>
            <header class="app-header">
                <button type="button" class="drawer-toggle" data-testid="sidebar-drawer-toggle"
                    aria-controls="app-sidebar" aria-expanded=move || drawer.get().to_string()
                    aria-label=t!("nav.menu") node_ref=drawer_btn on:click=toggle_drawer>
                    <crate::components::icon::Icon icon=crate::components::icon::icons::MENU />
                </button>
                <span class="brand">"Agent Canvas"</span>
                <span class="spacer"></span>
                <span
                    class="active-backend"
                    data-testid="active-backend"
                    data-backend-id=id
                    data-status=move || status.get().as_str()
                >
                    <StatusDot status=status title=status_title />
                    <span class="backend-name" data-testid="active-backend-name">{name}</span>
                    {version}
                </span>
            </header>
            <nav class="sidebar" id="app-sidebar" aria-label=t!("nav.main") node_ref=nav
                on:keydown=move |ev: web_sys::KeyboardEvent| {
                    if ev.key() == "Escape" && drawer.get_untracked() {
                        drawer.set(false);
                        if let Some(b) = drawer_btn.get_untracked() {
                            let _ = b.focus();
                        }
                    }
                }>
                {NAV.iter().map(|&(path, label, testid, prefetch, icon, counts)| view! {
                    <NavLink path=path label=label testid=testid prefetch=prefetch icon=icon counts=counts />
                }).collect_view()}
                <BackendSelector />
                <Show when=in_app>
                    {lazy(msg!("app.part.conversation_list"), crate::components::sidebar_list::preload_sidebar_list, crate::components::sidebar_list::sidebar_list)}
                    {crate::lazy::lazy_quiet(msg!("app.part.checklist"), crate::components::checklist::preload_checklist, crate::components::checklist::checklist)}
                </Show>
            </nav>
            <div class="drawer-backdrop" aria-hidden="true" on:click=move |_| drawer.set(false)></div>
            <main class="content">
                <Show when=move || failed(true)>
                    {lazy(msg!("app.part.away_banner"), preload_away_banner, away_banner)}
                </Show>
                <Show when=move || failed(false) fallback=move || children()>
                    {lazy(msg!("app.part.recovery_screen"), preload_recovery, recovery_screen)}
                </Show>
                <SwitchingOverlay />
            </main>
            <BackendDialogs />
            <crate::components::palette::PaletteHost />
        </div>
    }
}
