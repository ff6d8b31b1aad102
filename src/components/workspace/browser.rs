//! Browser tab (issue #36): the last page the agent's browser saw — its address, when, the
//! screenshot and the page's text as the tool reported it — read again every few seconds while
//! the tab is open. Says plainly when the browser has shown nothing yet.

use super::{InlineError, PanelProps};
use crate::components::time::RelTime;
use crate::platform::time::every;
use crate::services::workspace;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::conversations::live::browser::{linkable, BrowserPage};
use leptos::prelude::*;
use std::time::Duration;

const REFRESH: Duration = Duration::from_secs(3);

#[component]
pub(crate) fn BrowserTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let conv = props.conv;
    let page = LocalResource::new(move || {
        let active = backends.active.get();
        let conv = conv.clone();
        async move { workspace::browser_page(backends, &active, &conv).await }
    });
    every(REFRESH, move || page.refetch());
    view! {
        <section class="ws-browser" data-testid="browser">
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.loading")}</p> }>
                {move || page.get().map(|r| match r {
                    Ok(Some(p)) => page_view(p).into_any(),
                    Ok(None) => view! {
                        <p class="ws-muted" data-testid="browser-empty">{t!("workspace.browser.none")}</p>
                    }.into_any(),
                    Err(e) => view! { <InlineError message=e.said() testid="browser-error" /> }.into_any(),
                })}
            </Transition>
        </section>
    }
}

fn page_view(p: BrowserPage) -> impl IntoView {
    let url = p.url.map(|u| {
        if linkable(&u) {
            let href = u.clone();
            view! { <a href=href target="_blank" rel="noopener noreferrer" data-testid="browser-url">{u}</a> }.into_any()
        } else {
            view! { <span data-testid="browser-url">{u}</span> }.into_any()
        }
    });
    view! {
        <div class="browser-page" data-testid="browser-page" data-error=p.is_error.to_string()>
            <p class="browser-head">{url}" "<RelTime iso=p.at class="muted" /></p>
            {p.screenshot.map(|src| view! {
                <img class="browser-shot" data-testid="browser-screenshot" src=src alt=t!("workspace.browser.screenshot") />
            })}
            {p.text.map(|text| view! {
                <details class="browser-text"><summary>{t!("workspace.browser.text")}</summary><pre class="output">{text}</pre></details>
            })}
        </div>
    }
}
