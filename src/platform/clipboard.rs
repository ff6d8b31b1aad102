//! Copying text: the Clipboard API where the page may use it (a secure context), else the
//! older `execCommand("copy")` on a hidden text area (plain-HTTP deployments). Never throws.

use wasm_bindgen::JsCast;

/// Copies `text`; `Err` says that neither way worked.
pub async fn copy(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let has_api = js_sys::Reflect::get(&window.navigator(), &"clipboard".into())
        .map(|c| !c.is_undefined() && !c.is_null())
        .unwrap_or(false);
    if has_api {
        let promise = window.navigator().clipboard().write_text(text);
        if wasm_bindgen_futures::JsFuture::from(promise).await.is_ok() {
            return Ok(());
        }
    }
    fallback(&window, text)
}

fn fallback(window: &web_sys::Window, text: &str) -> Result<(), String> {
    let doc = window.document().ok_or("no document")?;
    let area = doc
        .create_element("textarea")
        .map_err(|_| "cannot copy here")?
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .map_err(|_| "cannot copy here")?;
    area.set_value(text);
    let _ = area.set_attribute("readonly", "");
    let _ = area.set_attribute("class", "visually-hidden");
    let body = doc.body().ok_or("no body")?;
    let _ = body.append_child(&area);
    area.select();
    let ok = doc
        .dyn_ref::<web_sys::HtmlDocument>()
        .and_then(|d| d.exec_command("copy").ok())
        .unwrap_or(false);
    area.remove();
    if ok {
        Ok(())
    } else {
        Err("the browser did not allow copying".to_string())
    }
}
