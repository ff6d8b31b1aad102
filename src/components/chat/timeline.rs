//! The conversation's timeline: a scroller holding a window of at most
//! [`WINDOW_ROWS`](canvas_core::conversations::live::window::WINDOW_ROWS) rows, whatever the
//! conversation's length (`canvas_core::conversations::live::window` decides which rows and how a
//! scroll moves them). Follows the newest row while the reader is at the bottom; scrolling up
//! moves the window older and then pages older history in, keeping the row the reader saw in
//! place; "Jump to latest" goes back to the newest.

use super::folds::Folds;
use super::items::TimelineItem;
use super::model_picker::SwitchMarkers;
use super::tools::ConversationTools;
use crate::components::icon::{icons, Icon};
use crate::state::events::{ConversationStore, History, Row};
use crate::state::i18n::t;
use canvas_core::conversations::live::events::ExecutionStatus;
use canvas_core::conversations::live::window::{scroll_step, Window};
use canvas_core::conversations::live::{at_bottom, at_top};
use leptos::html::Div;
use leptos::prelude::*;
use std::ops::Range;
use wasm_bindgen::JsCast;

/// The row to keep in place when rows change while the reader is not following: its key and
/// its top relative to the scroller's visible top (refreshed on every scroll).
type Anchor = Option<(String, f64)>;

#[component]
pub fn Timeline(store: ConversationStore, tools: ConversationTools) -> impl IntoView {
    let scroller = NodeRef::<Div>::new();
    let follow = RwSignal::new(true);
    let window = RwSignal::new(Window::Tail);
    let anchor = StoredValue::new(None as Anchor);
    let (rows, history) = (store.rows, store.history);
    // Grouped actions (issue #36): the rows of a closed group do not count toward the window.
    let status = store.status;
    let folds = Folds::new(
        rows,
        Signal::derive(move || {
            status.with(|s| {
                matches!(
                    s,
                    ExecutionStatus::Running | ExecutionStatus::WaitingForConfirmation
                )
            })
        }),
    );
    provide_context(folds);
    let range = Memo::new(move |_| {
        let w = window.get();
        rows.with(|rows| {
            w.range_shown(
                rows.len(),
                |k| rows.iter().position(|r| r.item.key == k),
                |i| folds.shown(&rows[i].item.key),
            )
        })
    });
    keep_scroll(rows, range, scroller, follow, anchor);
    let on_scroll = move |_| {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let (top, h, client_h) = scroll_metrics(&el);
        let can_load = matches!(history.get_untracked(), History::Ready { has_older: true });
        let r = range.get_untracked();
        let step = rows.with_untracked(|rows| {
            scroll_step(
                at_top(top),
                at_bottom(top, h, client_h),
                &r,
                rows.len(),
                can_load,
                |i| rows[i].item.key.clone(),
            )
        });
        if follow.get_untracked() != step.follow {
            follow.set(step.follow);
        }
        // The anchor follows the reader's scrolling; a step names a new one; following needs none.
        let key = step
            .anchor
            .or_else(|| anchor.with_value(|a| a.as_ref().map(|(k, _)| k.clone())));
        anchor.set_value(
            key.filter(|_| !step.follow)
                .and_then(|k| row_top(&el, &k).map(|t| (k, t))),
        );
        if let Some(w) = step.window {
            if window.get_untracked() != w {
                window.set(w);
            }
        }
        if step.load_older {
            store.load_older();
        }
    };
    let jump = move |_| {
        anchor.set_value(None);
        follow.set(true);
        window.set(Window::Tail);
        if let Some(el) = scroller.get_untracked() {
            el.set_scroll_top(el.scroll_height());
        }
    };
    let visible = move || {
        let r = range.get();
        rows.with(|rows| rows[r.start.min(rows.len())..r.end.min(rows.len())].to_vec())
    };
    let total = move || rows.with(Vec::len).to_string();
    view! {
        <div class="timeline-scroll" node_ref=scroller on:scroll=on_scroll data-testid="timeline-scroll">
            {move || history_note(history.get(), range.get().start > 0)}
            <ol class="timeline" data-testid="timeline" data-rows=total
                data-first=move || range.get().start.to_string()
                data-last=move || range.get().end.to_string()>
                <Show when=move || range.get().start == 0>
                    <SwitchMarkers tools=tools after=None />
                </Show>
                <For
                    each=visible
                    key=|r: &Row| (r.item.key.clone(), r.rev)
                    children=move |r: Row| {
                        let key = r.item.key.clone();
                        view! { <TimelineItem item=r.item /> <SwitchMarkers tools=tools after=Some(key) /> }
                    }
                />
            </ol>
        </div>
        <Show when=move || !follow.get()>
            <button class="btn jump-latest" data-testid="jump-latest" on:click=jump>{t!("chat.timeline.jump_latest")}<Icon icon=icons::LATEST /></button>
        </Show>
    }
}

fn scroll_metrics(el: &web_sys::HtmlDivElement) -> (f64, f64, f64) {
    (
        f64::from(el.scroll_top()),
        f64::from(el.scroll_height()),
        f64::from(el.client_height()),
    )
}

/// The top of the row with `key`, relative to the scroller's visible top (the scroller is the
/// rows' offset parent), if it is rendered.
fn row_top(scroller: &web_sys::HtmlDivElement, key: &str) -> Option<f64> {
    let rows = scroller.query_selector_all("li[data-key]").ok()?;
    (0..rows.length())
        .filter_map(|i| rows.item(i)?.dyn_into::<web_sys::HtmlElement>().ok())
        .find(|li| li.get_attribute("data-key").as_deref() == Some(key))
        .map(|li| f64::from(li.offset_top() - scroller.scroll_top()))
}

/// After the rendered rows change: the anchored row back where the reader last saw it (older
/// rows came in above it, or the window moved), else to the bottom while following.
fn keep_scroll(
    rows: RwSignal<Vec<Row>>,
    range: Memo<Range<usize>>,
    scroller: NodeRef<Div>,
    follow: RwSignal<bool>,
    anchor: StoredValue<Anchor>,
) {
    Effect::new(move |_| {
        rows.track();
        range.track();
        let following = follow.get_untracked();
        request_animation_frame(move || {
            let Some(el) = scroller.get_untracked() else {
                return;
            };
            if let Some((key, was)) = anchor.try_get_value().flatten() {
                if let Some(now) = row_top(&el, &key) {
                    el.set_scroll_top(el.scroll_top() + (now - was).round() as i32);
                    return;
                }
            }
            if following {
                el.set_scroll_top(el.scroll_height());
            }
        });
    });
}

/// What the history is doing, above the timeline; `more_above` says older rows are loaded but
/// outside the window.
fn history_note(history: History, more_above: bool) -> Option<AnyView> {
    match history {
        History::Loading => {
            Some(view! { <p class="loading">{t!("chat.timeline.loading_history")}</p> }.into_any())
        }
        History::LoadingOlder => {
            Some(view! { <p class="loading">{t!("chat.timeline.loading_older")}</p> }.into_any())
        }
        History::Ready { has_older } if has_older || more_above => Some(
            view! {
                <p class="muted older-hint">{t!("chat.timeline.older_hint")}</p>
            }
            .into_any(),
        ),
        History::Ready { .. } => None,
        History::Error(e) => Some(view! { <p class="error" role="alert">{e}</p> }.into_any()),
    }
}
