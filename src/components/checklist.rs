//! The getting-started checklist at the foot of the sidebar (issue #37): items that tick
//! themselves from what the active backend reports, foldable and dismissible, remembered per
//! backend in this browser.

use crate::components::icon::{icons, Icon};
use crate::links::href;
use crate::services::setup;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::setup::checklist::Shown;
use leptos::prelude::*;
use leptos_router::components::A;

#[component]
pub fn GettingStarted() -> impl IntoView {
    let backends = use_backends();
    let id = Memo::new(move |_| backends.active.with(|a| a.backend.id.clone()));
    // How it is shown: read again for each backend; a corrupt value is said and not written.
    let shown = RwSignal::new(Ok::<Shown, String>(Shown::default()));
    Effect::new(move |_| {
        // "Show the checklist again" (the guided setup) says so through the change signal.
        setup::track_changes();
        shown.set(setup::shown(&id.get()).map_err(|e| e.said()));
    });
    let location = leptos_router::hooks::use_location();
    let report = LocalResource::new(move || {
        let active = backends.active.get();
        setup::track_changes();
        // Coming back from a page where something was added ticks it.
        location.pathname.track();
        async move { setup::report(backends, &active).await }
    });
    let set = move |f: fn(&mut Shown)| {
        let Ok(mut s) = shown.get_untracked() else {
            return;
        };
        f(&mut s);
        match setup::save_shown(&id.get_untracked(), s) {
            Ok(()) => shown.set(Ok(s)),
            Err(e) => shown.set(Err(e.said())),
        }
    };
    move || {
        let s = match shown.get() {
            Ok(s) => s,
            Err(e) => {
                return view! { <p class="checklist error" role="alert" data-testid="checklist-error">{e}</p> }
                    .into_any()
            }
        };
        let Some(r) = report.get() else {
            return ().into_any();
        };
        let items = r.items();
        if s.dismissed {
            // Nothing to see; the mark says the report came and the choice was read.
            return view! { <span hidden data-testid="checklist-dismissed"></span> }.into_any();
        }
        if items.is_empty() {
            return ().into_any();
        }
        let (done, total) = r.progress();
        let rows = items
            .into_iter()
            .map(|(item, is_done)| {
                let label = say(&item.label());
                view! {
                    <li data-testid="checklist-item" data-item=item.key() data-done=is_done.to_string()
                        class:done=is_done>
                        <A href=href(item.path()) attr:class="checklist-link">
                            <Icon icon=if is_done { icons::DONE } else { icons::TO_DO } />
                            {is_done.then(|| view! { <span class="visually-hidden">{t!("checklist.done")}" "</span> })}
                            <span>{label}</span>
                        </A>
                    </li>
                }
            })
            .collect_view();
        view! {
            <section class="checklist" data-testid="checklist" aria-labelledby="checklist-title"
                data-done=done.to_string() data-total=total.to_string()>
                <div class="checklist-head">
                    <button type="button" class="checklist-toggle" data-testid="checklist-toggle"
                        aria-expanded=(!s.collapsed).to_string() aria-controls=(!s.collapsed).then_some("checklist-items")
                        title=if s.collapsed { t!("checklist.unfold") } else { t!("checklist.fold") }
                        on:click=move |_| set(|s| s.collapsed = !s.collapsed)>
                        <Icon icon=if s.collapsed { icons::COLLAPSED } else { icons::EXPANDED } />
                        <span class="checklist-heading">
                            <span id="checklist-title" class="checklist-title">{t!("checklist.title")}</span>
                            <span class="muted checklist-progress" data-testid="checklist-progress">
                                {t!("checklist.progress", done = done, total = total)}
                            </span>
                        </span>
                    </button>
                    <button type="button" class="btn ghost small icon" data-testid="checklist-dismiss"
                        aria-label=t!("checklist.dismiss") title=t!("checklist.dismiss")
                        on:click=move |_| set(|s| s.dismissed = true)>
                        <Icon icon=icons::REMOVE />
                    </button>
                </div>
                {(!s.collapsed).then(|| view! { <ul id="checklist-items" class="checklist-items" data-testid="checklist-items">{rows}</ul> })}
            </section>
        }
        .into_any()
    }
}

crate::lazy::lazy_view! {
    /// The getting-started checklist.
    pub fn checklist() in first_run, preload preload_checklist {
        view! { <crate::components::checklist::GettingStarted /> }
    }
}
