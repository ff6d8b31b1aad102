//! Identifiers made in the browser: UUIDs for records (the browser's crypto) and ids for DOM
//! elements (a counter: unique within the page, nothing random needed).

use std::cell::Cell;

/// A random UUIDv4 from the browser's crypto (falls back to Math.random if unavailable).
pub fn uuid_v4() -> String {
    let mut bytes = [0u8; 16];
    let filled = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .and_then(|c| c.get_random_values_with_u8_array(&mut bytes).ok())
        .is_some();
    if !filled {
        for b in bytes.iter_mut() {
            *b = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    canvas_core::backends::record::uuid_v4_from_bytes(bytes)
}

thread_local! {
    static NEXT_DOM_ID: Cell<u64> = const { Cell::new(0) };
}

/// An element id unique within the page: `prefix-N` (labels, `aria-labelledby`).
pub fn dom_id(prefix: &str) -> String {
    let n = NEXT_DOM_ID.with(|c| {
        let n = c.get() + 1;
        c.set(n);
        n
    });
    format!("{prefix}-{n}")
}
