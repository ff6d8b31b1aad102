//! The launcher's window globals (`__AGENT_CANVAS_*__`) and build-time settings.

use wasm_bindgen::JsValue;

/// Reads `window[name]` as JSON: strings and booleans are kept, anything else is `None`.
pub fn window_global(name: &str) -> Option<serde_json::Value> {
    let window = web_sys::window()?;
    let v = js_sys::Reflect::get(&window, &JsValue::from_str(name)).ok()?;
    if let Some(s) = v.as_string() {
        Some(serde_json::Value::String(s))
    } else {
        v.as_bool().map(serde_json::Value::Bool)
    }
}

/// Build-time settings (`AGENT_CANVAS_*` in the environment of the release build).
pub struct BuildTime {
    pub backend_base_url: Option<&'static str>,
    pub session_api_key: Option<&'static str>,
    pub lock_to_cloud: Option<&'static str>,
}

pub const BUILD_TIME: BuildTime = BuildTime {
    backend_base_url: option_env!("AGENT_CANVAS_BACKEND_BASE_URL"),
    session_api_key: option_env!("AGENT_CANVAS_SESSION_API_KEY"),
    lock_to_cloud: option_env!("AGENT_CANVAS_LOCK_TO_CLOUD"),
};
