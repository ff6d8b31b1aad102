//! The ONE websocket chokepoint of the app: [`EventSocket`] (events) and [`ByteSocket`] (an
//! interactive terminal's PTY). [`EventSocket`] opens a `web_sys::WebSocket`,
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

/// A socket with its callbacks attached; dropping it detaches them and closes the socket.
struct Wired {
    ws: WebSocket,
    _open: Closure<dyn FnMut()>,
    _message: Closure<dyn FnMut(MessageEvent)>,
    _close: Closure<dyn FnMut(CloseEvent)>,
    _error: Closure<dyn FnMut()>,
}

impl Wired {
    fn new(
        ws: WebSocket,
        on_open: Box<dyn FnMut()>,
        on_message: Box<dyn FnMut(MessageEvent)>,
        on_close: Box<dyn FnMut(u16)>,
    ) -> Self {
        let on_close = std::rc::Rc::new(std::cell::RefCell::new(on_close));
        let open = Closure::<dyn FnMut()>::new(on_open);
        let message = Closure::<dyn FnMut(MessageEvent)>::new(on_message);
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
        Wired {
            ws,
            _open: open,
            _message: message,
            _close: close,
            _error: error,
        }
    }

    fn is_open(&self) -> bool {
        self.ws.ready_state() == WebSocket::OPEN
    }
}

impl Drop for Wired {
    fn drop(&mut self) {
        self.ws.set_onopen(None);
        self.ws.set_onmessage(None);
        self.ws.set_onclose(None);
        self.ws.set_onerror(None);
        let _ = self.ws.close();
    }
}

/// An open (or opening) events websocket.
pub struct EventSocket(Wired);

impl EventSocket {
    /// Connect to `url`; on open, send `auth_frame` first. Errors only when the URL is refused.
    pub fn connect(url: &str, auth_frame: String, h: SocketHandlers) -> Result<Self, String> {
        let ws = WebSocket::new(url).map_err(|_| "could not open the events socket".to_string())?;
        let SocketHandlers {
            mut on_open,
            mut on_message,
            on_close,
        } = h;
        let ws_for_open = ws.clone();
        Ok(EventSocket(Wired::new(
            ws,
            Box::new(move || {
                let _ = ws_for_open.send_with_str(&auth_frame);
                on_open();
            }),
            Box::new(move |e: MessageEvent| {
                if let Some(text) = e.data().as_string() {
                    on_message(text);
                }
            }),
            on_close,
        )))
    }

    /// Whether the socket is open (frames can be sent).
    pub fn is_open(&self) -> bool {
        self.0.is_open()
    }

    /// Send a text frame; `false` when the socket is not open or the send failed.
    pub fn send(&self, text: &str) -> bool {
        self.is_open() && self.0.ws.send_with_str(text).is_ok()
    }
}

/// Callbacks of a [`ByteSocket`].
pub struct ByteHandlers {
    /// The handshake completed.
    pub on_open: Box<dyn FnMut()>,
    /// A binary frame.
    pub on_bytes: Box<dyn FnMut(Vec<u8>)>,
    /// Closed (or failed): the close code (1006 when the browser gives none).
    pub on_close: Box<dyn FnMut(u16)>,
}

/// A websocket of bytes: an interactive terminal's PTY (binary frames both ways, text frames
/// for control). No auth frame: the backend gives a socket no key can ride on only where it
/// needs none. Dropping it detaches the callbacks and closes the socket.
pub struct ByteSocket(Wired);

impl ByteSocket {
    /// Connect to `url`. Errors only when the URL is refused.
    pub fn connect(url: &str, h: ByteHandlers) -> Result<Self, String> {
        let ws =
            WebSocket::new(url).map_err(|_| "could not open the terminal's socket".to_string())?;
        ws.set_binary_type(web_sys::BinaryType::Arraybuffer);
        let ByteHandlers {
            on_open,
            mut on_bytes,
            on_close,
        } = h;
        Ok(ByteSocket(Wired::new(
            ws,
            on_open,
            Box::new(move |e: MessageEvent| {
                if let Ok(buf) = e.data().dyn_into::<js_sys::ArrayBuffer>() {
                    on_bytes(js_sys::Uint8Array::new(&buf).to_vec());
                }
            }),
            on_close,
        )))
    }

    /// Whether frames can be sent.
    pub fn is_open(&self) -> bool {
        self.0.is_open()
    }

    /// A text frame; `false` when not sent.
    pub fn send_text(&self, text: &str) -> bool {
        self.is_open() && self.0.ws.send_with_str(text).is_ok()
    }

    /// A binary frame; `false` when not sent.
    pub fn send_bytes(&self, bytes: &[u8]) -> bool {
        self.is_open() && self.0.ws.send_with_u8_array(bytes).is_ok()
    }
}
