//! What a person sees of any element, for the steps page objects and tests share: "it is
//! there", "it is gone", "it says …", "it is marked …", "pick … in the list", "the page does
//! not hold the secret". Each waits the way [`Browser::wait_js`] does and fails with the
//! selector and the page's visible text.

use crate::Browser;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use serde_json::json;
use std::time::Duration;

/// `name(e)`: an element as `tag[testid].classes`, for messages about it.
const NAME_JS: &str = "const name = e => e.tagName.toLowerCase() \
    + (e.dataset.testid ? `[${e.dataset.testid}]` : '') \
    + (typeof e.className === 'string' && e.className.trim() \
       ? '.' + e.className.trim().split(/\\s+/).join('.') : '');";

/// The script expression for the first match of `css`.
fn first(css: &str) -> String {
    format!("document.querySelector({})", json!(css))
}

/// axe-core from the project's npm tools (`package.json`, installed by `cargo xtask`).
pub fn axe_source() -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (cargo xtask installs it with the npm tools)",
            path.display()
        )
    })
}

impl Browser {
    /// The serious and critical axe violations on the page (`axe`: [`axe_source`]), as
    /// `rule: target (summary)`.
    pub async fn axe_violations(&self, axe: &str) -> Vec<String> {
        let script = format!(
            "{axe}\n;const done = arguments[arguments.length - 1]; \
             axe.run(document, {{ resultTypes: ['violations'] }}).then(r => done(r.violations \
               .filter(v => v.impact === 'serious' || v.impact === 'critical') \
               .flatMap(v => v.nodes.map(n => v.id + ': ' + n.target.join(' ') + ' (' + \
                 (n.failureSummary || '').split('\\n').slice(1).join(' ').trim() + ')')))) \
               .catch(e => done(['axe failed: ' + e]));"
        );
        let v = self
            .client
            .execute_async(&script, vec![])
            .await
            .expect("axe runs");
        serde_json::from_value(v).expect("violations")
    }

    /// Waits until `css` matches something on the page.
    pub async fn wait_for(&self, css: &str) {
        self.wait_js(
            &format!("{css} to be there"),
            &format!("return !!{}", first(css)),
        )
        .await;
    }

    /// Waits until nothing on the page matches `css`.
    pub async fn wait_gone(&self, css: &str) {
        self.wait_js(
            &format!("{css} to be gone"),
            &format!("return !{}", first(css)),
        )
        .await;
    }

    /// Whether `css` matches something right now.
    pub async fn is_there(&self, css: &str) -> bool {
        self.js(&format!("return !!{}", first(css))).await == json!(true)
    }

    /// Waits until the first match of `css` is shown (not `hidden`) with some text; that text.
    pub async fn wait_shown_text(&self, css: &str) -> String {
        self.wait_js(
            &format!("{css} shown with text"),
            &format!(
                "const e = {}; return e && !e.hidden ? e.innerText : null;",
                first(css)
            ),
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Waits until the first match of `css` is shown and its text contains `needle`; that text.
    pub async fn wait_text_containing(&self, css: &str, needle: &str) -> String {
        self.wait_js(
            &format!("{css} to say {needle:?}"),
            &format!(
                "const e = {}; return e && !e.hidden && e.innerText.includes({}) ? e.innerText : null;",
                first(css),
                json!(needle)
            ),
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Waits until the first match of `css` is shown and its text is exactly `text`.
    pub async fn wait_text(&self, css: &str, text: &str) {
        self.wait_js(
            &format!("{css} to say exactly {text:?}"),
            &format!(
                "const e = {}; return !!e && !e.hidden && e.innerText === {};",
                first(css),
                json!(text)
            ),
        )
        .await;
    }

    /// Waits until the first match of `css` carries `data-<key>` = `value` (`key` in the
    /// dataset's camelCase, e.g. `"backendId"`).
    pub async fn wait_data(&self, css: &str, key: &str, value: &str) {
        self.wait_js(
            &format!("{css} marked {key}={value}"),
            &format!(
                "const e = {}; return !!e && e.dataset[{}] === {};",
                first(css),
                json!(key),
                json!(value)
            ),
        )
        .await;
    }

    /// Waits up to `timeout` (a run starts a conversation) for the newest run on an
    /// automation's page to finish: its status (`completed` or `failed`) and the row's text.
    pub async fn wait_run_finished(&self, what: &str, timeout: Duration) -> (String, String) {
        self.wait_js_for(
            what,
            "const r = document.querySelector('[data-testid=run-row]'); \
             return r && ['completed', 'failed'].includes(r.dataset.status) ? r.dataset.status : null;",
            timeout,
        )
        .await;
        (
            self.data_of("[data-testid=run-row]", "status").await,
            self.text_of("[data-testid=run-row]").await,
        )
    }

    /// The first match's `data-<key>` right now (`""` without a match or the attribute).
    pub async fn data_of(&self, css: &str, key: &str) -> String {
        self.js_text(&format!(
            "const e = {}; return e && e.dataset[{}] || '';",
            first(css),
            json!(key)
        ))
        .await
    }

    /// The first match's `href` as written in the page (`""` without a match or a link).
    pub async fn href_of(&self, css: &str) -> String {
        self.js_text(&format!(
            "const e = {}; return e && e.getAttribute('href') || '';",
            first(css)
        ))
        .await
    }

    /// The value of the field `css` right now (`""` without a match).
    pub async fn value_of(&self, css: &str) -> String {
        self.js_text(&format!(
            "const e = {}; return e ? String(e.value) : '';",
            first(css)
        ))
        .await
    }

    /// Waits until the field `css` holds `value`.
    pub async fn wait_value(&self, css: &str, value: &str) {
        self.wait_js(
            &format!("{css} holding {value:?}"),
            &format!(
                "const e = {}; return !!e && String(e.value) === {};",
                first(css),
                json!(value)
            ),
        )
        .await;
    }

    /// Waits until the checkbox `css` is ticked (`true`) or not (`false`).
    pub async fn wait_checked(&self, css: &str, checked: bool) {
        self.wait_js(
            &format!("{css} checked={checked}"),
            &format!(
                "const e = {}; return !!e && e.checked === {checked};",
                first(css)
            ),
        )
        .await;
    }

    /// Waits until `css` (a drop-down, or a list of suggestions) is there; the values of its
    /// options, in order.
    pub async fn wait_options(&self, css: &str) -> Vec<String> {
        let v = self
            .wait_js(
                &format!("{css} with its options"),
                &format!(
                    "const e = {}; return e ? [...e.querySelectorAll('option')].map(o => o.value) : null;",
                    first(css)
                ),
            )
            .await;
        serde_json::from_value(v).expect("option values")
    }

    /// Picks `value` in the drop-down `css` (waits for it), as choosing an option does: the
    /// value changes and the page hears `change`.
    pub async fn choose(&self, css: &str, value: &str) {
        self.wait_for(css).await;
        self.js(&format!(
            "const s = {}; s.value = {}; s.dispatchEvent(new Event('change', {{bubbles: true}})); \
             return true;",
            first(css),
            json!(value)
        ))
        .await;
    }

    /// Whether `secret` is anywhere in the page: its markup or the value of a field.
    pub async fn page_holds(&self, secret: &str) -> bool {
        self.js(&format!(
            "const v = {}; \
             return document.documentElement.outerHTML.includes(v) \
               || [...document.querySelectorAll('input, textarea')].some(i => i.value.includes(v));",
            json!(secret)
        ))
        .await
            == json!(true)
    }

    /// The visible text of every match of `css`, in order.
    pub async fn texts_of(&self, css: &str) -> Vec<String> {
        let v = self
            .js(&format!(
                "return [...document.querySelectorAll({})].map(e => e.innerText);",
                json!(css)
            ))
            .await;
        serde_json::from_value(v).expect("texts")
    }

    /// What overflows `css` horizontally right now (empty: nothing): the element itself or any
    /// descendant that scrolls sideways (`overflow-x` auto/scroll with wider content), and any
    /// rendered descendant whose box sticks out of `css`'s box — except what a fixed element
    /// inside it holds (a dialog opened from the page is laid out against the window, and is
    /// checked on its own). Each named as `tag[testid].classes`.
    pub async fn overflows(&self, css: &str) -> Vec<String> {
        let v = self
            .js(&format!(
                "const root = document.querySelector({}); if (!root) return ['(not there)']; \
                 {NAME_JS} \
                 const box = root.getBoundingClientRect(); const out = []; \
                 const fixedIn = e => {{ for (let a = e; a && a !== root; a = a.parentElement) \
                   if (getComputedStyle(a).position === 'fixed') return true; return false; }}; \
                 for (const e of [root, ...root.querySelectorAll('*')]) {{ \
                   const st = getComputedStyle(e); \
                   if (['auto', 'scroll'].includes(st.overflowX) && e.scrollWidth > e.clientWidth + 1) \
                     out.push(name(e) + ' scrolls sideways (' + e.scrollWidth + ' > ' + e.clientWidth + ')'); \
                   const r = e.getBoundingClientRect(); \
                   if (e !== root && r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1) \
                       && !fixedIn(e)) \
                     out.push(name(e) + ' sticks out (' + Math.round(r.left) + '..' + Math.round(r.right) \
                       + ' outside ' + Math.round(box.left) + '..' + Math.round(box.right) + ')'); \
                 }} return out;",
                json!(css)
            ))
            .await;
        serde_json::from_value(v).expect("overflows")
    }

    /// The characters under `css` that render as the "missing glyph" box (tofu): each shown
    /// character past U+2000 (symbols, emoji, other scripts) drawn on a canvas in its element's
    /// fonts and compared with an unassigned code point drawn the same way. Named as
    /// `<char> U+<hex> in <tag>`.
    pub async fn tofu(&self, css: &str) -> Vec<String> {
        let v = self
            .js(&format!(
                "const root = document.querySelector({}); if (!root) return ['(not there)']; \
                 const c = document.createElement('canvas'); c.width = 64; c.height = 64; \
                 const g = c.getContext('2d', {{willReadFrequently: true}}); \
                 const draw = (font, ch) => {{ g.clearRect(0, 0, 64, 64); g.font = font; g.fillText(ch, 4, 48); \
                   const d = g.getImageData(0, 0, 64, 64).data; let h = 0; \
                   for (let i = 3; i < d.length; i += 4) h = (h * 31 + d[i]) | 0; return h; }}; \
                 const out = new Set(); const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT); \
                 while (w.nextNode()) {{ const el = w.currentNode.parentElement; \
                   if (!el || !el.getClientRects().length) continue; \
                   const font = '40px ' + getComputedStyle(el).fontFamily; const none = draw(font, '\\u0378'); \
                   for (const ch of w.currentNode.data) {{ \
                     if (ch.codePointAt(0) < 0x2000 || /\\s/.test(ch)) continue; \
                     if (draw(font, ch) === none) \
                       out.add(ch + ' U+' + ch.codePointAt(0).toString(16) + ' in ' + el.tagName.toLowerCase()); }} }} \
                 return [...out];",
                json!(css)
            ))
            .await;
        serde_json::from_value(v).expect("tofu")
    }

    /// Every stop of the Tab key whose focus cannot be seen (no outline and no box shadow),
    /// each named once as `tag[testid].classes`. The walk goes once round the Tab key's cycle:
    /// from the top of the page (the focus taken away first), or, when a modal dialog holds the
    /// focus, from where the dialog put it (Tab stays inside it; that element is judged when
    /// Tab comes back to it). It ends when the focus comes back to an element it was on. A walk
    /// cut off after `max_stops`, or stuck (Tab moves the focus nowhere), is named too.
    ///
    /// A stop the browser itself did not take for keyboard focus (it does not match
    /// `:focus-visible`, so no page style could show a ring there) is not judged on that walk:
    /// the walk is made once more, and only what is unseen again is named. Chromium does this
    /// now and then to the first stop after the walk wraps round from its own window.
    pub async fn unseen_focus(&self, max_stops: usize) -> Vec<String> {
        let (mut unseen, odd) = self.focus_walk(max_stops).await;
        if !odd.is_empty() {
            let (again, odd_again) = self.focus_walk(max_stops).await;
            unseen.extend(
                again
                    .into_iter()
                    .filter(|u| !unseen.contains(u))
                    .collect::<Vec<_>>(),
            );
            for o in odd_again.into_iter().filter(|o| odd.contains(o)) {
                unseen.push(format!("{o} (not keyboard focus to the browser, twice)"));
            }
        }
        unseen
    }

    /// One walk of [`Self::unseen_focus`]: what was unseen, and the stops the browser did not
    /// take for keyboard focus.
    async fn focus_walk(&self, max_stops: usize) -> (Vec<String>, Vec<String>) {
        // Each focus is judged as it happens (a `focusin` listener), so a batch of Tab presses
        // costs one round trip.
        const BATCH: usize = 20;
        self.js(&format!(
            "{NAME_JS} const f = {{ seen: new Set(), unseen: [], odd: [], stops: 0, done: false, last: '' }}; \
             window.__e2eFocus = f; \
             f.note = e => {{ if (f.done) return; \
               if (!e || f.seen.has(e)) {{ f.done = true; return; }} \
               f.seen.add(e); f.stops++; f.last = name(e); const st = getComputedStyle(e); \
               const seen = (st.outlineStyle !== 'none' && parseFloat(st.outlineWidth) > 0) \
                 || st.boxShadow !== 'none'; \
               const list = e.matches(':focus-visible') ? f.unseen : f.odd; \
               if (!seen && !list.includes(f.last)) list.push(f.last); }}; \
             f.listen = ev => f.note(ev.target); \
             document.addEventListener('focusin', f.listen, true); \
             const a = document.activeElement; \
             if (a && !a.closest('[aria-modal=true]')) a.blur(); \
             return true;"
        ))
        .await;
        let mut out: Vec<String> = Vec::new();
        let mut before = usize::MAX;
        loop {
            let mut tabs = KeyActions::new("keyboard".into());
            for _ in 0..BATCH {
                tabs = tabs
                    .then(KeyAction::Down { value: '\u{E004}' })
                    .then(KeyAction::Up { value: '\u{E004}' });
            }
            self.client.perform_actions(tabs).await.expect("Tab keys");
            let v = self
                .js("const f = window.__e2eFocus; return [f.done, f.stops, f.last];")
                .await;
            let (done, stops) = (v[0] == json!(true), v[1].as_u64().unwrap_or(0) as usize);
            if done {
                break;
            }
            if stops == before {
                out.push(format!(
                    "(Tab moves the focus no further than {})",
                    v[2].as_str().unwrap_or("the page")
                ));
                break;
            }
            if stops >= max_stops {
                out.push(format!(
                    "(more than {max_stops} Tab stops: the walk stopped)"
                ));
                break;
            }
            before = stops;
        }
        let v = self
            .js("const f = window.__e2eFocus; document.removeEventListener('focusin', f.listen, true); \
                 return [f.unseen, f.odd];")
            .await;
        let (mut unseen, odd): (Vec<String>, Vec<String>) =
            serde_json::from_value(v).expect("unseen focus");
        unseen.append(&mut out);
        (unseen, odd)
    }

    /// The number of matches of `css` right now.
    pub async fn count(&self, css: &str) -> usize {
        self.js(&format!(
            "return document.querySelectorAll({}).length",
            json!(css)
        ))
        .await
        .as_u64()
        .unwrap_or_default() as usize
    }
}
