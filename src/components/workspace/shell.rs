//! The Terminal tab's interactive shell (issue #39 §4): where the backend offers one (an
//! Omnigent session whose agent declares a terminal), "Open bash" opens the shell on the
//! session's host and shows its screen, a PTY over a websocket. Keys go to the shell as a
//! terminal sends them; Shift+Esc leaves it. The rules (the screen, the keys, when frames may
//! go) are `canvas_core::workspace::pty`'s; where the bytes come from is the backend client's.
//!
//! The screen view is its own lazy chunk (`pty`): the terminal reader (`vt100`) is fetched
//! only when a shell is opened.

use super::{InlineError, PanelProps};
use crate::services::workspace::{close_terminal, open_terminal, terminals};
use crate::state::backends::use_backends;
use crate::state::i18n::{msg, t, Said};
use crate::state::workspace::ConvWorkspace;
use canvas_core::transport::routing::ConversationRef;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The shells the conversation can open, or the open one.
#[component]
pub(crate) fn Shells(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let PanelProps { conv, ws, .. } = props;
    // Asked once per tab view; a signal set by a task (a resource read here would make the
    // panel's Suspense fall back and the command field lose what is typed).
    let declared: RwSignal<Option<Result<Vec<String>, String>>> = RwSignal::new(None);
    {
        let conv = conv.clone();
        let active = backends.active.get_untracked();
        spawn_local(async move {
            let answer = match terminals(backends, &active, &conv).await {
                Ok(names) => Ok(names),
                Err(e) if e.is_unsupported() => Ok(Vec::new()),
                Err(e) => Err(e.said()),
            };
            let _ = declared.try_set(Some(answer));
        });
    }
    let opening: RwSignal<Option<String>> = RwSignal::new(None);
    let error: RwSignal<Option<String>> = RwSignal::new(None);
    // Where the open shell attaches (kept here, in the panel's chunk; the workspace state
    // keeps only its name).
    let attached: RwSignal<Option<canvas_core::omnigent::terminal::TerminalAttach>> =
        RwSignal::new(None);
    let open = {
        let conv = conv.clone();
        move |name: String| {
            let conv = conv.clone();
            let active = backends.active.get_untracked();
            opening.set(Some(name.clone()));
            error.set(None);
            spawn_local(async move {
                let answer = open_terminal(backends, &active, &conv, &name).await;
                let _ = opening.try_set(None);
                match answer {
                    Ok(attach) => {
                        let _ = attached.try_set(Some(attach));
                        // Set once: setting it again would build the screen (and attach) twice.
                        if ws.shell.try_get_untracked().flatten().as_deref() != Some(name.as_str())
                        {
                            let _ = ws.shell.try_set(Some(name));
                        }
                    }
                    Err(e) => {
                        let _ = ws.shell.try_set(None);
                        let _ = error.try_set(Some(e.said()));
                    }
                }
            });
        }
    };
    // Back on the tab with a shell open: the same shell again (opening it is idempotent).
    if let Some(name) = ws.shell.get_untracked() {
        open.clone()(name);
    }
    let offer = move || {
        let open = open.clone();
        match declared.get() {
            Some(Ok(names)) if !names.is_empty() => Some(
                view! {
                    <div class="ws-shells" data-testid="shells">
                        <span class="ws-shells-label">{t!("workspace.shell.heading")}</span>
                        {names.into_iter().map(|name| {
                            let open = open.clone();
                            let n = name.clone();
                            let attr = name.clone();
                            view! {
                                <button class="btn small" data-testid="shell-open" data-terminal=attr
                                    disabled=move || opening.get().is_some()
                                    on:click=move |_| open(n.clone())>
                                    {move || if opening.get().as_deref() == Some(name.as_str()) {
                                        t!("workspace.shell.opening", name = name.clone())
                                    } else {
                                        t!("workspace.shell.open", name = name.clone())
                                    }}
                                </button>
                            }
                        }).collect_view()}
                        {move || error.get().map(|e| view! { <InlineError message=e testid="shell-error" /> })}
                    </div>
                }
                .into_any(),
            ),
            Some(Err(e)) => Some(view! { <InlineError message=e testid="shell-error" /> }.into_any()),
            _ => None,
        }
    };
    view! {
        {move || match (ws.shell.get(), attached.get()) {
            (Some(_), Some(attach)) => {
                let conv = conv.clone();
                crate::lazy::lazy(msg!("app.part.shell"), preload_pty, move || shell_view(conv.clone(), attach.clone(), ws)).into_any()
            }
            _ => offer.clone()().into_any(),
        }}
    }
}

crate::lazy::lazy_view! {
    /// An open shell's screen.
    pub fn shell_view(conv: ConversationRef, attach: canvas_core::omnigent::terminal::TerminalAttach, ws: ConvWorkspace) in pty, preload preload_pty {
        view! { <screen::ShellScreen conv=conv attach=attach ws=ws /> }
    }
}

mod screen {
    use super::*;
    use crate::platform::socket::{ByteHandlers, ByteSocket};
    use canvas_core::omnigent::terminal::{resize_frame, TerminalAttach};
    use canvas_core::workspace::pty::{fit, key_bytes, paste_bytes, Frame, Outbox, Screen, Span};
    use send_wrapper::SendWrapper;
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::JsCast;

    /// Where the socket stands.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Status {
        Connecting,
        Open,
        Closed(u16),
    }

    impl Status {
        fn as_str(self) -> &'static str {
            match self {
                Status::Connecting => "connecting",
                Status::Open => "open",
                Status::Closed(_) => "closed",
            }
        }
    }

    /// The live attach: the socket, what may be sent, and the screen.
    struct Live {
        socket: Option<ByteSocket>,
        outbox: Outbox,
        screen: Screen,
        /// A repaint is scheduled for the next frame.
        dirty: bool,
    }

    type Shared = SendWrapper<Rc<RefCell<Live>>>;

    /// When the size is sent again after the first screen if nothing has come since.
    const NUDGES_MS: [u64; 3] = [300, 1000, 3000];

    fn send(live: &Shared, frames: Vec<Frame>) {
        let l = live.borrow();
        let Some(socket) = l.socket.as_ref() else {
            return;
        };
        for f in frames {
            match f {
                Frame::Resize { rows, cols } => {
                    socket.send_text(&resize_frame(cols, rows));
                }
                Frame::Input(bytes) => {
                    socket.send_bytes(&bytes);
                }
            }
        }
    }

    #[component]
    pub(crate) fn ShellScreen(
        conv: ConversationRef,
        attach: TerminalAttach,
        ws: ConvWorkspace,
    ) -> impl IntoView {
        let backends = use_backends();
        let live: Shared = SendWrapper::new(Rc::new(RefCell::new(Live {
            socket: None,
            outbox: Outbox::new(),
            screen: Screen::new(24, 80),
            dirty: false,
        })));
        let lines: RwSignal<Vec<Vec<Span>>> = RwSignal::new(Vec::new());
        let status = RwSignal::new(Status::Connecting);
        let ending = RwSignal::new(false);
        let end_error: RwSignal<Option<String>> = RwSignal::new(None);
        let box_ref = NodeRef::<leptos::html::Div>::new();
        let rows_ref = NodeRef::<leptos::html::Div>::new();
        let measure = NodeRef::<leptos::html::Span>::new();
        let detach_ref = NodeRef::<leptos::html::Button>::new();

        let repaint = {
            let live = live.clone();
            move || {
                {
                    let mut l = live.borrow_mut();
                    if l.dirty {
                        return;
                    }
                    l.dirty = true;
                }
                let live = live.clone();
                request_animation_frame(move || {
                    let mut l = live.borrow_mut();
                    l.dirty = false;
                    let _ = lines.try_set(l.screen.lines());
                });
            }
        };

        // The size that fits the box, told to the PTY (when it may go). The rows' box has no
        // padding of its own: its client size is the room there is.
        let refit = {
            let live = live.clone();
            let repaint = repaint.clone();
            move || {
                let (Some(el), Some(m)) = (rows_ref.get_untracked(), measure.get_untracked())
                else {
                    return;
                };
                let (rows, cols) = fit(
                    el.client_width() as f64,
                    el.client_height() as f64,
                    m.offset_width() as f64 / 10.0,
                    m.offset_height() as f64,
                );
                let frames = {
                    let mut l = live.borrow_mut();
                    if !l.screen.resize(rows, cols) && l.socket.is_some() {
                        return;
                    }
                    l.outbox.resize(rows, cols)
                };
                send(&live, frames);
                repaint();
            }
        };

        let connect = {
            let live = live.clone();
            let repaint = repaint.clone();
            let url = attach.url.clone();
            move || {
                status.set(Status::Connecting);
                {
                    let mut l = live.borrow_mut();
                    l.socket = None;
                    l.outbox = Outbox::new();
                    let (rows, cols) = l.screen.size();
                    // A fresh screen: the server sends the whole screen first.
                    l.screen = Screen::new(rows, cols);
                    let _ = l.outbox.resize(rows, cols);
                }
                let on_bytes = {
                    let live = live.clone();
                    let repaint = repaint.clone();
                    move |bytes: Vec<u8>| {
                        let (frames, first) = {
                            let mut l = live.borrow_mut();
                            l.screen.feed(&bytes);
                            let frames = l.outbox.output();
                            (frames, l.outbox.outputs() == 1)
                        };
                        send(&live, frames);
                        repaint();
                        if first {
                            // The size again while nothing has come since the first screen
                            // (`Outbox::nudge`); a nudge after more output sends nothing.
                            for ms in NUDGES_MS {
                                let live = live.clone();
                                set_timeout(
                                    move || {
                                        let frames = live.borrow_mut().outbox.nudge();
                                        send(&live, frames);
                                    },
                                    std::time::Duration::from_millis(ms),
                                );
                            }
                        }
                    }
                };
                let socket = ByteSocket::connect(
                    &url,
                    ByteHandlers {
                        on_open: Box::new(move || {
                            let _ = status.try_set(Status::Open);
                        }),
                        on_bytes: Box::new(on_bytes),
                        on_close: Box::new(move |code| {
                            let _ = status.try_set(Status::Closed(code));
                        }),
                    },
                );
                match socket {
                    Ok(s) => live.borrow_mut().socket = Some(s),
                    Err(_) => status.set(Status::Closed(1006)),
                }
            }
        };

        // Keys as a terminal sends them; Shift+Esc leaves (to "Back to commands").
        let on_key = {
            let live = live.clone();
            move |ev: leptos::ev::KeyboardEvent| {
                if ev.key() == "Escape" && ev.shift_key() {
                    ev.prevent_default();
                    if let Some(b) = detach_ref.get_untracked() {
                        let _ = b.focus();
                    }
                    return;
                }
                if ev.meta_key() || ev.is_composing() {
                    return;
                }
                let app_cursor = live.borrow().screen.application_cursor();
                let Some(bytes) = key_bytes(
                    &ev.key(),
                    ev.ctrl_key(),
                    ev.alt_key(),
                    ev.shift_key(),
                    app_cursor,
                ) else {
                    return;
                };
                ev.prevent_default();
                let frames = live.borrow_mut().outbox.input(bytes);
                send(&live, frames);
            }
        };
        let on_paste = {
            let live = live.clone();
            move |ev: leptos::ev::ClipboardEvent| {
                let Some(text) = ev.clipboard_data().and_then(|d| d.get_data("text").ok()) else {
                    return;
                };
                ev.prevent_default();
                let bracketed = live.borrow().screen.bracketed_paste();
                let frames = live
                    .borrow_mut()
                    .outbox
                    .input(paste_bytes(&text, bracketed));
                send(&live, frames);
            }
        };

        // Attach once the box is in the page (its size is then known), and refit when it
        // changes size.
        {
            let connect = connect.clone();
            let refit = refit.clone();
            let observer: StoredValue<Option<SendWrapper<web_sys::ResizeObserver>>> =
                StoredValue::new(None);
            Effect::new(move |done: Option<bool>| {
                if done == Some(true) {
                    return true;
                }
                let Some(el) = box_ref.get() else {
                    return false;
                };
                refit();
                connect();
                let refit = refit.clone();
                let cb = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(refit);
                if let Ok(o) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
                    o.observe(&el);
                    observer.set_value(Some(SendWrapper::new(o)));
                }
                cb.forget();
                true
            });
            let live = live.clone();
            on_cleanup(move || {
                if let Some(o) = observer.try_get_value().flatten() {
                    o.disconnect();
                }
                live.borrow_mut().socket = None;
            });
        }

        let name = attach.name.clone();
        let id = attach.id.clone();
        let end = move |_| {
            let conv = conv.clone();
            let id = id.clone();
            let active = backends.active.get_untracked();
            ending.set(true);
            end_error.set(None);
            spawn_local(async move {
                let answer = close_terminal(backends, &active, &conv, &id).await;
                let _ = ending.try_set(false);
                match answer {
                    Ok(()) => {
                        let _ = ws.shell.try_set(None);
                    }
                    Err(e) => {
                        let _ = end_error.try_set(Some(e.said()));
                    }
                }
            });
        };
        let reconnect = {
            let connect = connect.clone();
            move |_| connect()
        };
        let label = t!("workspace.shell.label", name = name.clone());
        view! {
            <div class="ws-shell" data-testid="shell-view" data-status=move || status.get().as_str()>
                <div class="ws-shell-bar">
                    <span class="ws-shell-name"><code>{name.clone()}</code></span>
                    <span class="ws-shell-status" role="status" data-testid="shell-status">
                        {move || match status.get() {
                            Status::Connecting => t!("workspace.shell.connecting"),
                            Status::Open => t!("workspace.shell.connected"),
                            Status::Closed(code) => t!("workspace.shell.closed", code = code.to_string()),
                        }}
                    </span>
                    <span class="spacer"></span>
                    {move || matches!(status.get(), Status::Closed(_)).then(|| {
                        let reconnect = reconnect.clone();
                        view! {
                            <button class="btn small" data-testid="shell-reconnect" on:click=reconnect>{t!("workspace.shell.reconnect")}</button>
                        }
                    })}
                    <button class="btn small" data-testid="shell-detach" node_ref=detach_ref
                        on:click=move |_| ws.shell.set(None)>{t!("workspace.shell.detach")}</button>
                    <button class="btn small danger" data-testid="shell-end" disabled=move || ending.get()
                        on:click=end>{t!("workspace.shell.end")}</button>
                </div>
                {move || end_error.get().map(|e| view! { <InlineError message=e testid="shell-end-error" /> })}
                <div class="pty-screen" data-testid="shell-screen" node_ref=box_ref tabindex="0"
                    role="application" aria-roledescription=t!("workspace.shell.role") aria-label=label
                    on:keydown=on_key on:paste=on_paste>
                    <span class="pty-measure" aria-hidden="true" node_ref=measure>"0123456789"</span>
                    <div class="pty-rows" node_ref=rows_ref>
                        {move || lines.get().into_iter().map(|spans| view! {
                            <div class="pty-line">
                                {spans.into_iter().map(|s| view! {
                                    <span class=s.class style=(!s.style.is_empty()).then_some(s.style)>{s.text}</span>
                                }).collect_view()}
                            </div>
                        }).collect_view()}
                    </div>
                </div>
                <p class="ws-muted ws-shell-hint">{t!("workspace.shell.hint")}</p>
            </div>
        }
    }
}
