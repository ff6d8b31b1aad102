//! `localStorage` / `sessionStorage` behind `canvas_core::storage::Storage`.
//!
//! Every access can throw (private mode, disabled storage, quota, SecurityError): each call
//! re-acquires the storage object and maps any exception to a `StorageError`, never a panic.

use canvas_core::storage::{Storage, StorageError};
use wasm_bindgen::JsValue;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebStorageKind {
    Local,
    Session,
}

/// A web storage area. Cheap to copy; holds no JS handle.
#[derive(Clone, Copy, Debug)]
pub struct WebStorage {
    kind: WebStorageKind,
}

impl WebStorage {
    pub const fn local() -> Self {
        WebStorage {
            kind: WebStorageKind::Local,
        }
    }

    pub const fn session() -> Self {
        WebStorage {
            kind: WebStorageKind::Session,
        }
    }

    fn area(&self) -> Result<web_sys::Storage, StorageError> {
        let window =
            web_sys::window().ok_or_else(|| StorageError::Unavailable("no window".into()))?;
        let area = match self.kind {
            WebStorageKind::Local => window.local_storage(),
            WebStorageKind::Session => window.session_storage(),
        };
        match area {
            Ok(Some(s)) => Ok(s),
            Ok(None) => Err(StorageError::Unavailable("storage is disabled".into())),
            Err(e) => Err(map_error(e)),
        }
    }
}

/// Maps a thrown DOMException to a typed error (by its `name`).
fn map_error(e: JsValue) -> StorageError {
    let name = js_sys::Reflect::get(&e, &JsValue::from_str("name"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let message = js_sys::Reflect::get(&e, &JsValue::from_str("message"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    match name.as_str() {
        "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED" => StorageError::QuotaExceeded(message),
        "SecurityError" => StorageError::Security(message),
        _ => StorageError::Other(if name.is_empty() {
            message
        } else {
            format!("{name}: {message}")
        }),
    }
}

impl Storage for WebStorage {
    fn get(&self, key: &str) -> Result<Option<String>, StorageError> {
        self.area()?.get_item(key).map_err(map_error)
    }

    fn set(&self, key: &str, value: &str) -> Result<(), StorageError> {
        self.area()?.set_item(key, value).map_err(map_error)
    }

    fn remove(&self, key: &str) -> Result<(), StorageError> {
        self.area()?.remove_item(key).map_err(map_error)
    }
}
