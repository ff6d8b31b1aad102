//! The ONE websocket chokepoint of the app: [`EventSocket`] opens a `web_sys::WebSocket`,
//! sends the auth frame first (the key never goes into the URL), and reports open / message /
//! close to callbacks. Dropping it detaches the callbacks and closes the socket, so a replaced
//! socket can never report anything afterwards. The stream rules (backoff, generations,
//! watchdog) are in `canvas_core::conversations::live::events::stream`; `state::events` drives them.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

/// Callbacks of one socket.
pub struct SocketHandlers {
    /// The handshake completed and the auth frame was sent.
    pub on_open: Box<dyn FnMut()>,
    /// A text frame.
    pub on_message: Box<dyn FnMut(String)>,
    /// Closed (or failed): the close code (1006 when the browser gives none).
    pub on_close: Box<dyn FnMut(u16)>,
}

/// An open (or opening) events websocket.
pub struct EventSocket {
    ws: WebSocket,
    _open: Closure<dyn FnMut()>,
    _message: Closure<dyn FnMut(MessageEvent)>,
    _close: Closure<dyn FnMut(CloseEvent)>,
    _error: Closure<dyn FnMut()>,
}

impl EventSocket {
    /// Connect to `url`; on open, send `auth_frame` first. Errors only when the URL is refused.
    pub fn connect(url: &str, auth_frame: String, h: SocketHandlers) -> Result<Self, String> {
        let ws = WebSocket::new(url).map_err(|_| "could not open the events socket".to_string())?;
        let SocketHandlers {
            mut on_open,
            mut on_message,
            on_close,
        } = h;
        let on_close = std::rc::Rc::new(std::cell::RefCell::new(on_close));
        let ws_for_open = ws.clone();
        let open = Closure::<dyn FnMut()>::new(move || {
            let _ = ws_for_open.send_with_str(&auth_frame);
            on_open();
        });
        let message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(text) = e.data().as_string() {
                on_message(text);
            }
        });
        let oc = on_close.clone();
        let close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            (oc.borrow_mut())(e.code());
        });
        let oc = on_close;
        let error = Closure::<dyn FnMut()>::new(move || {
            (oc.borrow_mut())(1006);
        });
        ws.set_onopen(Some(open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(close.as_ref().unchecked_ref()));
        ws.set_onerror(Some(error.as_ref().unchecked_ref()));
        Ok(EventSocket {
            ws,
            _open: open,
            _message: message,
            _close: close,
            _error: error,
        })
    }

    /// Whether the socket is open (frames can be sent).
    pub fn is_open(&self) -> bool {
        self.ws.ready_state() == WebSocket::OPEN
    }

    /// Send a text frame; `false` when the socket is not open or the send failed.
    pub fn send(&self, text: &str) -> bool {
        self.is_open() && self.ws.send_with_str(text).is_ok()
    }
}

impl Drop for EventSocket {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        self.ws.set_onerror(None);
        let _ = self.ws.close();
    }
}
