//! Lazily loaded parts of the app (issue #11).
//!
//! In the split release build (`--cfg agent_canvas_split`, see `xtask/src/split.rs`) each
//! [`lazy_view!`] body lives in its own wasm chunk that is fetched the first time it is shown
//! (or when a link to it is hovered or focused). Everywhere else — Trunk dev builds,
//! wasm-bindgen tests — the same function is a plain `async fn`, so nothing else changes.
//!
//! A chunk that fails to load never takes the app down: [`lazy`] shows what happened with a
//! "Retry" (a failed load is not cached, so retrying fetches again) and a "Reload".

use crate::state::i18n::{t, Msg};
use leptos::prelude::*;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// What a lazy part is called in its "Loading …" and error texts: a message, or words given
/// as they are (tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartName {
    Msg(Msg),
    Plain(&'static str),
}

impl PartName {
    fn text(self) -> String {
        match self {
            PartName::Msg(m) => m.text(),
            PartName::Plain(s) => s.to_string(),
        }
    }
}

impl From<Msg> for PartName {
    fn from(m: Msg) -> Self {
        PartName::Msg(m)
    }
}

impl From<&'static str> for PartName {
    fn from(s: &'static str) -> Self {
        PartName::Plain(s)
    }
}

/// A lazily loaded part could not be fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkError(pub String);

impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(agent_canvas_split)]
impl From<leptos::wasm_split::SplitLoaderError> for ChunkError {
    fn from(e: leptos::wasm_split::SplitLoaderError) -> Self {
        ChunkError(e.to_string())
    }
}

/// Declares `$name(args) -> Result<$ret, ChunkError>` (returning `Ok($body)`) whose code is
/// split into chunk `$chunk` in the split build (a plain `async fn` otherwise), and
/// `async fn $preload()` that only fetches the chunk. [`lazy_view!`] and [`lazy_call!`] are
/// written with it.
macro_rules! split_fn {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident : $ty:ty),*) -> $ret:ty, in $chunk:ident, preload $preload:ident $body:block) => {
        #[cfg(agent_canvas_split)]
        $(#[$meta])*
        #[::leptos::wasm_split::wasm_split(
            $chunk,
            wasm_split_path = ::leptos::wasm_split,
            fallible,
            preload(#[doc(hidden)] $preload)
        )]
        pub fn $name($($arg: $ty),*) -> ::std::result::Result<$ret, $crate::lazy::ChunkError> {
            ::std::result::Result::Ok($body)
        }

        #[cfg(not(agent_canvas_split))]
        $(#[$meta])*
        pub async fn $name($($arg: $ty),*) -> ::std::result::Result<$ret, $crate::lazy::ChunkError> {
            ::std::result::Result::Ok($body)
        }

        #[cfg(not(agent_canvas_split))]
        #[doc(hidden)]
        pub async fn $preload() -> ::std::result::Result<(), $crate::lazy::ChunkError> {
            ::std::result::Result::Ok(())
        }
    };
}
pub(crate) use split_fn;

/// Declares `async fn $name(args) -> Result<AnyView, ChunkError>` whose body is split into
/// chunk `$chunk` in the split build, and `async fn $preload()` that only fetches the chunk.
macro_rules! lazy_view {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident : $ty:ty),* $(,)?) in $chunk:ident, preload $preload:ident $body:block) => {
        $crate::lazy::split_fn! {
            $(#[$meta])*
            pub fn $name($($arg: $ty),*) -> ::leptos::prelude::AnyView, in $chunk, preload $preload {
                // Built untracked, like any component: a signal read while building must not
                // make the surrounding `Suspend` run again.
                ::leptos::prelude::untrack(|| ::leptos::prelude::IntoAny::into_any($body))
            }
        }
    };
}
pub(crate) use lazy_view;

/// A future made inside a chunk: its code lives there too.
pub type ChunkFuture<T> = Pin<Box<dyn Future<Output = T>>>;

/// Declares `async fn $name(args) -> Result<ChunkFuture<$out>, ChunkError>`: work (not a view)
/// whose code lives in chunk `$chunk` in the split build. Awaiting the function fetches the
/// chunk (an error if it cannot be fetched); awaiting the future it gives does the work.
macro_rules! lazy_call {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $out:ty, in $chunk:ident, preload $preload:ident $body:block) => {
        $crate::lazy::split_fn! {
            $(#[$meta])*
            pub fn $name($($arg: $ty),*) -> $crate::lazy::ChunkFuture<$out>, in $chunk, preload $preload {
                ::std::boxed::Box::pin(async move { $body })
            }
        }
    };
}
pub(crate) use lazy_call;

/// A chunk's loader, type-erased: one copy of [`lazy`]'s body serves every lazy part.
pub type PreloadFn =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<(), String>>>> + Send + Sync>;
/// A lazy part's builder, type-erased.
pub type BuildFn =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<AnyView, ChunkError>>>> + Send + Sync>;

/// A lazy part's loader: `preload` of [`lazy_view!`] / [`lazy_call!`].
pub trait Preload: Send + Sync + 'static {
    fn erase(self) -> PreloadFn;
}

impl<P, PFut, E> Preload for P
where
    P: Fn() -> PFut + Send + Sync + 'static,
    PFut: Future<Output = Result<(), E>> + 'static,
    E: std::fmt::Display + 'static,
{
    fn erase(self) -> PreloadFn {
        Arc::new(move || {
            let f = self();
            Box::pin(async move { f.await.map_err(|e| e.to_string()) })
        })
    }
}

/// A lazy part's builder: the function [`lazy_view!`] declares.
pub trait Build: Send + Sync + 'static {
    fn erase(self) -> BuildFn;
}

impl<F, Fut> Build for F
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<AnyView, ChunkError>> + 'static,
{
    fn erase(self) -> BuildFn {
        Arc::new(move || Box::pin(self()))
    }
}

/// Shows the view `build` produces once its chunk (fetched by `preload`) is there: a skeleton
/// while it loads, and an error with "Retry" / "Reload" if it cannot be fetched (never a blank
/// page). A part that went away while its chunk was on its way (e.g. a screen shown for a
/// moment) is not built at all.
///
/// Only this thin wrapper is generic; the view itself is built by one non-generic function, so a
/// new lazy part adds a few hundred bytes to the main module, not a copy of the whole thing.
pub fn lazy(what: impl Into<PartName>, preload: impl Preload, build: impl Build) -> AnyView {
    lazy_erased(what.into(), preload.erase(), build.erase(), None, false)
}

/// [`lazy`] for a secondary part of a first-render page (the launcher's options): it shows its
/// skeleton until the conversation list has painted its first page
/// ([`crate::state::first_paint`]), then fetches its chunk.
pub fn lazy_after_list(
    what: impl Into<PartName>,
    preload: impl Preload,
    build: impl Build,
) -> AnyView {
    let after = crate::state::first_paint::use_first_paint();
    lazy_erased(what.into(), preload.erase(), build.erase(), after, false)
}

/// [`lazy_after_list`] for a part that often shows nothing (the LLM banner, the checklist):
/// no skeleton while it loads, so nothing moves when there is nothing to show.
pub fn lazy_quiet(what: impl Into<PartName>, preload: impl Preload, build: impl Build) -> AnyView {
    let after = crate::state::first_paint::use_first_paint();
    lazy_erased(what.into(), preload.erase(), build.erase(), after, true)
}

fn lazy_erased(
    what: PartName,
    preload: PreloadFn,
    build: BuildFn,
    after: Option<crate::state::first_paint::FirstPaint>,
    quiet: bool,
) -> AnyView {
    let attempt = RwSignal::new(0u32);
    let fallback = move || {
        if quiet {
            return ().into_any();
        }
        view! {
            <div class="skeleton" data-testid="chunk-loading" aria-busy="true" role="status">
                <span class="skeleton-bar"></span>
                <span class="skeleton-bar short"></span>
                <span class="visually-hidden">{t!("app.loading_part", what = what.text())}</span>
            </div>
        }
        .into_any()
    };
    let content = move || {
        attempt.track();
        if after.is_some_and(|f| !f.is_done()) {
            return fallback().into_any();
        }
        let (preload, build) = (preload.clone(), build.clone());
        Suspend::new(send_wrapper::SendWrapper::new(async move {
            if let Err(e) = preload().await {
                return chunk_error(what, ChunkError(e), attempt).into_any();
            }
            if attempt.is_disposed() {
                return ().into_any();
            }
            lazy_styles().await;
            match build().await {
                Ok(v) => v,
                Err(e) => chunk_error(what, e, attempt).into_any(),
            }
        }))
        .into_any()
    };
    // A part that waits for the first paint keeps `Suspense`: its first build shows the skeleton
    // without asking for anything, which `Transition` would count as its one fallback.
    // Every other part is a `Transition`: it falls back to the skeleton only while the part
    // first loads. Under a `Suspense`, each later reload of a resource the page reads (a
    // filter, a row coming into view, a poll) put the whole page back to the skeleton for a
    // moment, taking the focus and anything open with it.
    if after.is_some() {
        view! { <Suspense fallback=fallback>{content}</Suspense> }.into_any()
    } else {
        view! { <Transition fallback=fallback>{content}</Transition> }.into_any()
    }
}

/// Switches on the lazily loaded parts' stylesheets (`data-lazy-css` in index.html: the
/// release build links them with `media="print"`, so they are fetched at low priority and do
/// not hold up the first render), waiting for any still on its way so no part shows unstyled
/// (parts built at the same moment all wait for it). A stylesheet that fails to load is given
/// up on: the part shows, plainer. Where nothing is marked (dev builds, tests) this does nothing.
async fn lazy_styles() {
    use wasm_bindgen::JsCast;
    let Ok(links) = document().query_selector_all("link[data-lazy-css]") else {
        return;
    };
    for i in 0..links.length() {
        let Some(link) = links
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::HtmlLinkElement>().ok())
        else {
            continue;
        };
        link.set_media("all");
        if link.sheet().is_none() {
            // Not there yet: its load (or error) event is still to come.
            let arrived = js_sys::Promise::new(&mut |done, _| {
                let _ = link.add_event_listener_with_callback("load", &done);
                let _ = link.add_event_listener_with_callback("error", &done);
            });
            let _ = wasm_bindgen_futures::JsFuture::from(arrived).await;
        }
        let _ = link.remove_attribute("data-lazy-css");
    }
}

fn chunk_error(what: PartName, e: ChunkError, attempt: RwSignal<u32>) -> impl IntoView {
    view! {
        <div class="error chunk-error" role="alert" data-testid="chunk-error">
            <p>{t!("app.chunk_error", what = what.text(), error = e.0)}</p>
            <p class="muted">{t!("app.chunk_error_help")}</p>
            <div class="form-actions">
                <button class="btn primary" data-testid="chunk-retry"
                    on:click=move |_| attempt.update(|a| *a += 1)>{t!("app.retry")}</button>
                <button class="btn" data-testid="chunk-reload"
                    on:click=move |_| { let _ = window().location().reload(); }>{t!("app.reload")}</button>
            </div>
        </div>
    }
}

/// Starts fetching a chunk in the background (hover / focus prefetch); errors are ignored here
/// and shown if the part is then opened.
pub fn prefetch<Fut, E>(preload: fn() -> Fut)
where
    Fut: Future<Output = Result<(), E>> + 'static,
    E: 'static,
{
    leptos::task::spawn_local(async move {
        let _ = preload().await;
    });
}
