//! Page object: the shell around every page — the header's active-backend hook, the recovery
//! screen, the sidebar's navigation and conversation list, the drawer on a narrow window, the
//! command palette and keyboard focus.

use crate::Browser;
use canvas_core::conversations::list::sidebar::PINS_KEY;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use serde_json::{json, Value};

/// The active-backend hook in the header.
const HOOK: &str = "[data-testid=active-backend]";

/// Shows the drawer (the sidebar on a narrow window) closed.
const DRAWER_CLOSED: &str =
    "return getComputedStyle(document.querySelector('nav.sidebar')).visibility === 'hidden'";

/// Shows the drawer open: visible, focus inside, and the slide finished (a row is clickable
/// only once the drawer is fully on screen).
const DRAWER_OPEN: &str = "const n = document.querySelector('nav.sidebar'); \
     return getComputedStyle(n).visibility === 'visible' \
       && n.contains(document.activeElement) \
       && Math.abs(n.getBoundingClientRect().left) < 0.5;";

/// The shell of the app (see the module docs).
pub struct ShellPage<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The shell around every page: header, sidebar, drawer, palette.
    pub fn shell(&self) -> ShellPage<'_> {
        ShellPage { b: self }
    }
}

/// The sidebar row of conversation `id`.
fn side_row(id: &str) -> String {
    format!("[data-testid=sidebar-conversation][data-sidebar-id=\"{id}\"]")
}

impl ShellPage<'_> {
    // --- The header's active-backend hook ---

    /// The hook's backend id and status right now (`("", "")` without a hook).
    pub async fn hook(&self) -> (String, String) {
        let v = self
            .b
            .js(&format!(
                "const e = document.querySelector('{HOOK}'); \
                 return e ? [e.dataset.backendId, e.dataset.status] : ['', ''];"
            ))
            .await;
        (
            v[0].as_str().unwrap_or_default().to_string(),
            v[1].as_str().unwrap_or_default().to_string(),
        )
    }

    /// Waits until the hook names `id` with status `connected`.
    pub async fn wait_connected_to(&self, id: &str) {
        self.b
            .wait_js(
                &format!("connected to {id}"),
                &format!(
                    "const e = document.querySelector('{HOOK}'); \
                     return !!e && e.dataset.backendId === {} && e.dataset.status === 'connected';",
                    json!(id)
                ),
            )
            .await;
    }

    /// Waits until the hook names a backend other than `not` (any status); its id.
    pub async fn wait_active_other_than(&self, what: &str, not: &str) -> String {
        self.b
            .wait_js(
                what,
                &format!(
                    "const e = document.querySelector('{HOOK}'); \
                     return e && e.dataset.backendId !== {} ? e.dataset.backendId : null;",
                    json!(not)
                ),
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until `backend` is active and a conversation page is shown.
    pub async fn wait_conversation_on(&self, backend: &str) {
        self.b
            .wait_js(
                &format!("the {backend} backend active on its conversation"),
                &format!(
                    "const e = document.querySelector('{HOOK}'); \
                     return e && e.dataset.backendId === {} \
                       && !!document.querySelector('[data-testid=conversation-page]');",
                    json!(backend)
                ),
            )
            .await;
    }

    /// Waits for the header's name of the active backend; that name.
    pub async fn wait_backend_name(&self) -> Value {
        self.b
            .wait_js(
                "backend name",
                "return document.querySelector('[data-testid=active-backend-name]')?.innerText",
            )
            .await
    }

    /// Waits for the header's server version badge; its text.
    pub async fn wait_server_version(&self) -> Value {
        self.b
            .wait_js(
                "server version badge",
                "return document.querySelector('[data-testid=server-version]')?.innerText",
            )
            .await
    }

    // --- The recovery screen ---

    /// Waits for the recovery screen's message; its text.
    pub async fn wait_recovery_message(&self) -> String {
        self.b
            .wait_js(
                "the recovery screen",
                "const e = document.querySelector('[data-testid=recovery-message]'); \
                 return e ? e.innerText : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits for the recovery screen; its heading.
    pub async fn wait_recovery_title(&self) -> String {
        self.b
            .wait_js(
                "the recovery screen",
                "const r = document.querySelector('[data-testid=recovery]'); \
                 return r ? r.querySelector('h1').innerText : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until the recovery screen shows a message: (heading, message, whether it offers
    /// "Manage backends").
    pub async fn wait_recovery(&self) -> (String, String, bool) {
        let shown = self
            .b
            .wait_js(
                "the recovery screen",
                "const r = document.querySelector('[data-testid=recovery]'); \
                 const m = document.querySelector('[data-testid=recovery-message]'); \
                 return r && m && m.innerText ? [r.querySelector('h1').innerText, m.innerText, \
                   !!document.querySelector('[data-testid=recovery-manage]')] : null;",
            )
            .await;
        (
            shown[0].as_str().unwrap_or_default().to_string(),
            shown[1].as_str().unwrap_or_default().to_string(),
            shown[2].as_bool().unwrap_or(false),
        )
    }

    /// Clicks the recovery screen's "Manage backends".
    pub async fn manage_from_recovery(&self) {
        self.b.click("[data-testid=recovery-manage]").await;
    }

    // --- Navigation and location ---

    /// Clicks the sidebar's navigation link `name` (`conversations`, `skills`, …).
    pub async fn nav(&self, name: &str) {
        self.b.click(&format!("[data-testid=nav-{name}]")).await;
    }

    /// Clicks the sidebar's link to the conversation list (any base path).
    pub async fn nav_to_conversations(&self) {
        self.b.click("nav.sidebar a[href$='/conversations']").await;
    }

    /// The `href` of every link in the sidebar.
    pub async fn nav_hrefs(&self) -> Vec<String> {
        serde_json::from_value(
            self.b
                .js("return [...document.querySelectorAll('nav.sidebar a')].map(a => a.getAttribute('href'))")
                .await,
        )
        .unwrap_or_default()
    }

    /// `location.pathname`.
    pub async fn path(&self) -> String {
        self.b
            .js("return location.pathname")
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// `location.search`.
    pub async fn query(&self) -> String {
        self.b
            .js("return location.search")
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until the tab's title is `title`.
    pub async fn wait_title(&self, title: &str) {
        self.b
            .wait_js(
                &format!("the tab titled {title:?}"),
                &format!("return document.title === {}", json!(title)),
            )
            .await;
    }

    /// Waits until `location.pathname` is `path`.
    pub async fn wait_path(&self, what: &str, path: &str) {
        self.b
            .wait_js(
                what,
                &format!("return location.pathname === {}", json!(path)),
            )
            .await;
    }

    /// Waits until `location.pathname` ends with `suffix`.
    pub async fn wait_path_ends_with(&self, what: &str, suffix: &str) {
        self.b
            .wait_js(
                what,
                &format!("return location.pathname.endsWith({})", json!(suffix)),
            )
            .await;
    }

    /// Waits until `location.pathname` is `path` with a conversation page shown.
    pub async fn wait_conversation_at(&self, what: &str, path: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return location.pathname === {} && !!document.querySelector('[data-testid=conversation-page]')",
                    json!(path)
                ),
            )
            .await;
    }

    // --- Focus and keyboard ---

    /// Gives the first match of `css` the focus (as Tab would).
    pub async fn focus(&self, css: &str) {
        self.b
            .js(&format!(
                "document.querySelector({}).focus(); return true",
                json!(css)
            ))
            .await;
    }

    /// The focused element's `data-testid` (else its tag name; `null` without one).
    pub async fn focused_testid(&self) -> Value {
        self.b
            .js("const a = document.activeElement; return a ? (a.dataset.testid || a.tagName) : null")
            .await
    }

    /// Waits until the element with `data-testid=testid` has the focus.
    pub async fn wait_focused(&self, testid: &str) {
        self.b
            .wait_js(
                &format!("focus on {testid}"),
                &format!(
                    "return !!document.activeElement && document.activeElement.dataset.testid === {}",
                    json!(testid)
                ),
            )
            .await;
    }

    /// Waits until the modal dialog `testid` is shown with the focus inside.
    pub async fn wait_modal_with_focus(&self, what: &str, testid: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const d = document.querySelector('[data-testid={testid}]'); \
                     return !!d && d.getAttribute('role') === 'dialog' && d.getAttribute('aria-modal') === 'true' \
                       && d.contains(document.activeElement);"
                ),
            )
            .await;
    }

    /// Whether the focus is inside the element `testid` (the page fails without one).
    pub async fn focus_inside(&self, testid: &str) -> Value {
        self.b
            .js(&format!(
                "return document.querySelector('[data-testid={testid}]').contains(document.activeElement)"
            ))
            .await
    }

    /// Whether the keyboard shortcuts dialog is open.
    pub async fn shortcuts_open(&self) -> bool {
        !self
            .b
            .js("return !document.querySelector('[data-testid=shortcuts-dialog]')")
            .await
            .as_bool()
            .unwrap()
    }

    /// Presses `keys` together (held in order, released in reverse) wherever the focus is, as
    /// a person types a shortcut (WebDriver key actions: no element needs focus).
    pub async fn shortcut(&self, keys: &[char]) {
        let mut actions = KeyActions::new("keyboard".into());
        for k in keys {
            actions = actions.then(KeyAction::Down { value: *k });
        }
        for k in keys.iter().rev() {
            actions = actions.then(KeyAction::Up { value: *k });
        }
        self.b.client.perform_actions(actions).await.expect("keys");
    }

    /// Ctrl+K, then waits until typing goes to the palette's input.
    pub async fn open_palette(&self) {
        self.shortcut(&[char::from(fantoccini::key::Key::Control), 'k'])
            .await;
        self.b
            .wait_js(
                "the palette, its input focused",
                "const i = document.querySelector('[data-testid=palette-input]'); \
                 return i && document.activeElement === i;",
            )
            .await;
    }

    /// Whether the command palette is open.
    pub async fn palette_open(&self) -> bool {
        self.b
            .js("return !!document.querySelector('[data-testid=command-palette]')")
            .await
            .as_bool()
            .unwrap()
    }

    /// Waits until the command palette is closed.
    pub async fn wait_palette_closed(&self) {
        self.b
            .wait_js(
                "the palette closed",
                "return !document.querySelector('[data-testid=command-palette]')",
            )
            .await;
    }

    // --- The sidebar's conversation list ---

    /// The ids of the sidebar's rows, in order.
    pub async fn side_ids(&self) -> Vec<String> {
        serde_json::from_value(
            self.b
                .js("return [...document.querySelectorAll('[data-testid=sidebar-conversation]')].map(r => r.dataset.sidebarId)")
                .await,
        )
        .unwrap_or_default()
    }

    /// Waits for a sidebar row; the id of the first.
    pub async fn wait_side_row(&self, what: &str) -> String {
        self.b
            .wait_js(
                what,
                "const r = document.querySelector('[data-testid=sidebar-conversation]'); \
                 return r ? r.dataset.sidebarId : null;",
            )
            .await
            .as_str()
            .expect("row id")
            .to_string()
    }

    /// An attribute of `id`'s sidebar row (`null` when the row is not there).
    pub async fn side_attr(&self, id: &str, attr: &str) -> Value {
        self.b
            .js(&format!(
                "const r = document.querySelector({}); return r ? r.getAttribute({}) : null;",
                json!(side_row(id)),
                json!(attr)
            ))
            .await
    }

    /// Waits until `id`'s sidebar row has `attr` = `want`.
    pub async fn wait_side_attr(&self, id: &str, attr: &str, want: &str) {
        self.b
            .wait_js(
                &format!("sidebar row {id} with {attr}={want}"),
                &format!(
                    "const r = document.querySelector({}); return !!r && r.getAttribute({}) === {};",
                    json!(side_row(id)),
                    json!(attr),
                    json!(want)
                ),
            )
            .await;
    }

    /// Waits until `id`'s sidebar row is titled `title`.
    pub async fn wait_side_title(&self, id: &str, title: &str) {
        self.b
            .wait_js(
                &format!("sidebar row {id} titled {title}"),
                &format!(
                    "const t = document.querySelector({}); return !!t && t.innerText === {};",
                    json!(format!(
                        "{} [data-testid=sidebar-conversation-title]",
                        side_row(id)
                    )),
                    json!(title)
                ),
            )
            .await;
    }

    /// Waits until the sidebar row of `id` is gone and the list page is shown.
    pub async fn wait_side_row_gone_on_list(&self, id: &str) {
        self.b
            .wait_js(
                "the row gone and the list page shown",
                &format!(
                    "return !document.querySelector({}) && location.pathname.endsWith('/conversations')",
                    json!(side_row(id))
                ),
            )
            .await;
    }

    /// Scrolls the sidebar's list to its end and waits for more rows.
    pub async fn scroll_side_list(&self) {
        let before = self.side_ids().await.len();
        self.b
            .js(
                "const l = document.querySelector('[data-testid=sidebar-conversation-list]'); \
                 l.scrollTop = l.scrollHeight; return true",
            )
            .await;
        self.b
            .wait_js(
                "more sidebar rows after scrolling",
                &format!(
                    "return document.querySelectorAll('[data-testid=sidebar-conversation]').length > {before}"
                ),
            )
            .await;
    }

    /// Clicks the link of `id`'s sidebar row.
    pub async fn open_side_row(&self, id: &str) {
        self.b.click(&format!("{} a", side_row(id))).await;
    }

    /// The `aria-current` of the link of `id`'s sidebar row.
    pub async fn side_link_current(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "return document.querySelector({}).getAttribute('aria-current')",
                json!(format!("{} a", side_row(id)))
            ))
            .await
    }

    /// Opens the row menu of `id` and clicks its item `item` (`pin`, `rename`, `delete`).
    pub async fn side_menu(&self, id: &str, item: &str) {
        self.b
            .click(&format!("{} [data-testid=sidebar-row-menu]", side_row(id)))
            .await;
        self.b
            .click(&format!("{} [data-testid=sidebar-{item}]", side_row(id)))
            .await;
    }

    /// Gives the focus to the menu button of `id`'s row.
    pub async fn focus_side_menu(&self, id: &str) {
        self.focus(&format!("{} [data-testid=sidebar-row-menu]", side_row(id)))
            .await;
    }

    /// The `aria-expanded` of the menu button of `id`'s row.
    pub async fn side_menu_expanded(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "return document.querySelector({}).getAttribute('aria-expanded')",
                json!(format!("{} [data-testid=sidebar-row-menu]", side_row(id)))
            ))
            .await
    }

    /// How many row menus are open.
    pub async fn open_side_menus(&self) -> Value {
        self.b
            .js("return document.querySelectorAll('[data-testid=sidebar-menu]').length")
            .await
    }

    /// Types `title` in the sidebar's rename field and saves it.
    pub async fn side_rename_to(&self, title: &str) {
        self.b
            .type_into("[data-testid=sidebar-rename-input]", title)
            .await;
        self.b.click("[data-testid=sidebar-rename-save]").await;
    }

    /// The pins in this browser's storage, as stored (`null` when none).
    pub async fn stored_pins(&self) -> Value {
        self.b
            .js(&format!("return localStorage.getItem('{PINS_KEY}')"))
            .await
    }

    /// Replaces the stored pins with `raw`, as another program might.
    pub async fn store_pins_raw(&self, raw: &str) {
        self.b
            .js(&format!(
                "localStorage.setItem('{PINS_KEY}', {}); return true",
                json!(raw)
            ))
            .await;
    }

    /// Waits for the sidebar's note that its stored pins were left as they are.
    pub async fn wait_side_storage_error(&self) {
        self.b
            .wait_js(
                "the storage error",
                "const e = document.querySelector('[data-testid=sidebar-storage-error]'); \
                 return !!e && !e.hidden && e.innerText.includes('left as it is');",
            )
            .await;
    }

    /// Clicks the button that collapses or expands the sidebar's list.
    pub async fn toggle_side_list(&self) {
        self.b.click("[data-testid=sidebar-list-toggle]").await;
    }

    /// Waits until the sidebar's list is collapsed (`rows_gone`: and shows no row).
    pub async fn wait_side_list_collapsed(&self, what: &str, rows_gone: bool) {
        let script = if rows_gone {
            "const t = document.querySelector('[data-testid=sidebar-list-toggle]'); \
             return t.getAttribute('aria-expanded') === 'false' \
               && !document.querySelector('[data-testid=sidebar-conversation]');"
        } else {
            "const t = document.querySelector('[data-testid=sidebar-list-toggle]'); \
             return !!t && t.getAttribute('aria-expanded') === 'false';"
        };
        self.b.wait_js(what, script).await;
    }

    /// Waits until the sidebar shows a conversation row.
    pub async fn wait_side_rows(&self, what: &str) {
        self.b
            .wait_js(
                what,
                "return !!document.querySelector('[data-testid=sidebar-conversation]')",
            )
            .await;
    }

    // --- The drawer (narrow window) ---

    /// Waits until the drawer is closed.
    pub async fn wait_drawer_closed(&self, what: &str) {
        self.b.wait_js(what, DRAWER_CLOSED).await;
    }

    /// Waits until the drawer is open with the focus inside.
    pub async fn wait_drawer_open(&self, what: &str) {
        self.b.wait_js(what, DRAWER_OPEN).await;
    }

    /// Waits until the drawer's button is shown, closed.
    pub async fn wait_drawer_button(&self) {
        self.b
            .wait_js(
                "the drawer button",
                "const t = document.querySelector('[data-testid=sidebar-drawer-toggle]'); \
                 return !!t && t.offsetParent !== null && t.getAttribute('aria-expanded') === 'false';",
            )
            .await;
    }

    /// Clicks the drawer's button.
    pub async fn toggle_drawer(&self) {
        self.b.click("[data-testid=sidebar-drawer-toggle]").await;
    }

    /// Waits until conversation `id` is shown and the drawer closed.
    pub async fn wait_conversation_drawer_closed(&self, id: &str) {
        self.b
            .wait_js(
                "the conversation, the drawer closed",
                &format!(
                    "return location.pathname.endsWith('/conversations/{id}') \
                       && getComputedStyle(document.querySelector('nav.sidebar')).visibility === 'hidden'"
                ),
            )
            .await;
    }
}
