//! Page object: the conversation list — one backend's rows (rename, delete, "Load more"), the
//! merged list across all backends (`?scope=all`), search and the filter bar.

use crate::Browser;
use serde_json::{json, Value};

/// The rows of one backend's list.
const ROWS: &str = "[data-testid=conversation-row]";
/// The rows of the merged list.
const ALL_ROWS: &str = "[data-testid=all-row]";

/// Each row of the merged list: backend, org, conversation, label, title, link.
const ALL_ROWS_SCRIPT: &str =
    "return [...document.querySelectorAll('[data-testid=all-row]')].map(r => ({
       backend: r.dataset.backendId, org: r.dataset.orgId || null, id: r.dataset.conversationId,
       label: r.querySelector('[data-testid=row-backend]').innerText,
       title: r.querySelector('[data-testid=conversation-title]').innerText,
       href: r.querySelector('a').getAttribute('href')}));";

/// The conversation list (see the module docs).
pub struct ListPage<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The conversation list page.
    pub fn list(&self) -> ListPage<'_> {
        ListPage { b: self }
    }
}

/// The row of conversation `id` (either list).
fn row(id: &str) -> String {
    format!("[data-conversation-id=\"{id}\"]")
}

/// The titles of the visible rows matching `css`, in order.
fn titles_script(css: &str) -> String {
    format!(
        "return [...document.querySelectorAll({css})].filter(r => r.getClientRects().length) \
           .map(r => r.querySelector('[data-testid=conversation-title]').innerText);",
        css = json!(css)
    )
}

/// Whether the merged list has a row of `backend` whose text includes `title`.
fn all_row_script(backend: &str, title: &str) -> String {
    format!(
        "return [...document.querySelectorAll('[data-testid=all-row]')].some(r => \
           r.dataset.backendId === {b} && r.innerText.includes({t}));",
        b = json!(backend),
        t = json!(title)
    )
}

/// The title of the row whose link has the focus.
const FOCUSED_ROW: &str = "const a = document.activeElement; \
     const r = a && a.closest('[data-testid=conversation-row]'); \
     return r && a.matches('.conversation-link') \
       ? r.querySelector('[data-testid=conversation-title]').innerText : null;";

impl ListPage<'_> {
    // --- One backend's list ---

    /// Waits until the list (or its empty state) is painted.
    pub async fn wait_painted(&self, what: &str) {
        self.b
            .wait_js(
                what,
                "return !!document.querySelector('[data-testid=conversation-list], [data-testid=conversations-empty]')",
            )
            .await;
    }

    /// The title shown in `id`'s row (`null` without the row).
    pub async fn row_title(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "const r = document.querySelector('{} [data-testid=conversation-title]'); \
                 return r ? r.innerText : null;",
                row(id)
            ))
            .await
    }

    /// Waits until `id`'s row shows a title; that title.
    pub async fn wait_row(&self, id: &str) -> Value {
        self.b
            .wait_js(
                "the new conversation's row",
                &format!(
                    "const r = document.querySelector('{} [data-testid=conversation-title]'); \
                     return r ? r.innerText : null;",
                    row(id)
                ),
            )
            .await
    }

    /// Waits until `id`'s row is titled `title`.
    pub async fn wait_row_title(&self, id: &str, title: &str) {
        self.b
            .wait_js(
                &format!("row {id} titled {title}"),
                &format!(
                    "const r = document.querySelector('{} [data-testid=conversation-title]'); \
                     return !!r && r.innerText === {};",
                    row(id),
                    json!(title)
                ),
            )
            .await;
    }

    /// Waits until one backend's list has a row for `id`.
    pub async fn wait_has_row(&self, what: &str, id: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return !!document.querySelector('{ROWS}[data-conversation-id=\"{id}\"]')"
                ),
            )
            .await;
    }

    /// Waits until the list shows `shown` and not `hidden` (conversation ids).
    pub async fn wait_shows_not(&self, what: &str, shown: &str, hidden: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const row = id => document.querySelector(`{ROWS}[data-conversation-id=\"${{id}}\"]`); \
                     return !!row('{shown}') && !row('{hidden}');"
                ),
            )
            .await;
    }

    /// Every conversation title shown right now.
    pub async fn titles(&self) -> Vec<String> {
        let v = self
            .b
            .js("return [...document.querySelectorAll('[data-testid=conversation-title]')].map(e => e.innerText)")
            .await;
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn listed_script(title: &str) -> String {
        format!(
            "return [...document.querySelectorAll('[data-testid=conversation-title]')].some(e => e.innerText === {})",
            json!(title)
        )
    }

    /// Whether a conversation titled `title` is shown.
    pub async fn listed(&self, title: &str) -> bool {
        self.b.js(&Self::listed_script(title)).await == json!(true)
    }

    /// Waits until a conversation titled `title` is shown.
    pub async fn wait_listed(&self, title: &str) {
        self.b
            .wait_js(
                &format!("conversation {title:?} listed"),
                &Self::listed_script(title),
            )
            .await;
    }

    /// The status badge of `id`'s row: `[status, class]`.
    pub async fn execution_badge(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "const b = document.querySelector('{} [data-testid=status-badge][data-kind=execution]'); \
                 return b ? [b.dataset.status, b.className] : null;",
                row(id)
            ))
            .await
    }

    /// Waits until `id`'s row has a link.
    pub async fn wait_row_link(&self, id: &str) {
        self.b.wait_for(&format!("{} a", row(id))).await;
    }

    /// The `href` of `id`'s row link.
    pub async fn row_href(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "return document.querySelector('{} a.conversation-link').getAttribute('href')",
                row(id)
            ))
            .await
    }

    /// Clicks `id`'s row link.
    pub async fn open_row(&self, id: &str) {
        self.b
            .click(&format!("{} a.conversation-link", row(id)))
            .await;
    }

    /// Clicks Rename on `id`'s row, types `text` in its field with real key presses and
    /// presses `key` (Enter saves, Esc cancels).
    pub async fn rename(&self, id: &str, text: &str, key: &str) {
        self.b
            .click(&format!("{} [data-testid=rename-conversation]", row(id)))
            .await;
        let css = format!("{} [data-testid=rename-input]", row(id));
        self.b
            .wait_js(
                "the focused rename field",
                &format!(
                    "const i = document.querySelector('{css}'); return !!i && document.activeElement === i;"
                ),
            )
            .await;
        self.b.type_into(&css, text).await;
        self.b.press(key).await;
    }

    /// Clicks Delete on `id`'s row.
    pub async fn ask_delete(&self, id: &str) {
        self.b
            .click(&format!("{} [data-testid=delete-conversation]", row(id)))
            .await;
    }

    /// Waits for the delete confirmation with the focus on Cancel; its text.
    pub async fn wait_delete_dialog(&self) -> String {
        self.b
            .wait_js(
                "the delete confirmation with focus on Cancel",
                "const d = document.querySelector('[data-testid=delete-conversation-dialog]'); \
                 return d && document.activeElement?.dataset?.testid === 'cancel-delete-conversation' \
                   ? d.innerText : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until the delete confirmation is closed.
    pub async fn wait_delete_dialog_closed(&self) {
        self.b
            .wait_js(
                "the dialog closed",
                "return !document.querySelector('[data-testid=delete-conversation-dialog]')",
            )
            .await;
    }

    /// Confirms the delete confirmation (the list's and the sidebar's).
    pub async fn confirm_delete(&self) {
        self.b
            .click("[data-testid=confirm-delete-conversation]")
            .await;
    }

    /// Waits until `id`'s row is gone and the confirmation closed.
    pub async fn wait_row_deleted(&self, id: &str) {
        self.b
            .wait_js(
                "the row gone and the dialog closed",
                &format!(
                    "return !document.querySelector('{}') && \
                     !document.querySelector('[data-testid=delete-conversation-dialog]')",
                    row(id)
                ),
            )
            .await;
    }

    /// The conversation ids of the rows, in order.
    pub async fn row_ids(&self) -> Vec<String> {
        serde_json::from_value(
            self.b
                .js("return [...document.querySelectorAll('[data-testid=conversation-row]')].map(r => r.dataset.conversationId)")
                .await,
        )
        .unwrap()
    }

    /// Waits for rows and "Load more"; the rows' conversation ids.
    pub async fn wait_first_page(&self) -> Vec<String> {
        let first = self
            .b
            .wait_js(
                "the first page with Load more",
                "const rows = [...document.querySelectorAll('[data-testid=conversation-row]')]; \
                 return rows.length && document.querySelector('[data-testid=load-more]') \
                   ? rows.map(r => r.dataset.conversationId) : null;",
            )
            .await;
        serde_json::from_value(first).unwrap()
    }

    /// Clicks "Load more" and waits for more rows.
    pub async fn load_more(&self) {
        let before: u64 = self
            .b
            .js("return document.querySelectorAll('[data-testid=conversation-row]').length")
            .await
            .as_u64()
            .unwrap_or(0);
        self.b.click("[data-testid=load-more]").await;
        self.b
            .wait_js(
                "more rows",
                &format!(
                    "return document.querySelectorAll('[data-testid=conversation-row]').length > {before}"
                ),
            )
            .await;
    }

    /// The titles of the visible rows, in order.
    pub async fn row_titles(&self) -> Vec<String> {
        serde_json::from_value(self.b.js(&titles_script(ROWS)).await).unwrap_or_default()
    }

    /// Waits until the visible rows are titled exactly `want` (in any order).
    pub async fn wait_row_titles(&self, what: &str, want: &[&str]) {
        self.wait_titles(what, ROWS, want).await;
    }

    async fn wait_titles(&self, what: &str, css: &str, want: &[&str]) {
        let mut want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
        want.sort();
        self.b
            .wait_js(
                what,
                &format!(
                    "const t = (() => {{ {} }})().sort(); return JSON.stringify(t) === {};",
                    titles_script(css),
                    json!(serde_json::to_string(&want).unwrap())
                ),
            )
            .await;
    }

    /// Waits until a row's link has the focus; that row's title.
    pub async fn wait_focused_row(&self, what: &str) -> Value {
        self.b.wait_js(what, FOCUSED_ROW).await
    }

    /// Waits until the focused row link is `title`'s.
    pub async fn wait_focused_row_titled(&self, what: &str, title: &str) {
        self.b
            .wait_js(
                what,
                &format!("return (() => {{ {FOCUSED_ROW} }})() === {}", json!(title)),
            )
            .await;
    }

    // --- Search and filters ---

    /// Types `text` into the search box.
    pub async fn search(&self, text: &str) {
        self.b
            .type_into("[data-testid=conversation-search]", text)
            .await;
    }

    /// Whether the filter bar is loaded.
    pub async fn has_filter_bar(&self) -> bool {
        self.b
            .js("return !!document.querySelector('[data-testid=list-filters]')")
            .await
            .as_bool()
            .unwrap()
    }

    /// Clicks "Filters".
    pub async fn open_filters(&self) {
        self.b.click("[data-testid=filters-toggle]").await;
    }

    /// Waits for `css`; its `aria-pressed`.
    async fn pressed(&self, css: &str) -> String {
        self.b
            .wait_js(
                &format!("{css} to be there"),
                &format!(
                    "const e = document.querySelector({}); return e ? e.getAttribute('aria-pressed') : null;",
                    json!(css)
                ),
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn status_filter(status: &str) -> String {
        format!("[data-testid=status-filter][data-status={status}]")
    }

    fn backend_filter(id: &str) -> String {
        format!(
            "[data-testid=backend-filter][data-backend-id={}]",
            json!(id)
        )
    }

    /// Waits for the status filter `status`; whether it is on (`"true"`/`"false"`).
    pub async fn status_filter_pressed(&self, status: &str) -> String {
        self.pressed(&Self::status_filter(status)).await
    }

    /// Clicks the status filter `status`.
    pub async fn toggle_status_filter(&self, status: &str) {
        self.b.click(&Self::status_filter(status)).await;
    }

    /// Waits for the backend filter of `id`; whether it is on (`"true"`/`"false"`).
    pub async fn backend_filter_pressed(&self, id: &str) -> String {
        self.pressed(&Self::backend_filter(id)).await
    }

    /// Clicks the backend filter of `id`.
    pub async fn toggle_backend_filter(&self, id: &str) {
        self.b.click(&Self::backend_filter(id)).await;
    }

    /// Waits for "All backends"; whether it is on (`"true"`/`"false"`).
    pub async fn all_backends_pressed(&self) -> String {
        self.pressed("[data-testid=all-backends-toggle]").await
    }

    /// Waits for the note that no conversation matches, with no row shown.
    pub async fn wait_no_match(&self) {
        self.b
            .wait_js(
                "the no-match note",
                "const n = document.querySelector('[data-testid=conversations-no-match]'); \
                 return n && n.getClientRects().length > 0 \
                   && document.querySelectorAll('[data-testid=conversation-row]').length === 0;",
            )
            .await;
    }

    // --- The merged list (all backends) ---

    /// Waits until the merged list has a row of `backend` with `title`.
    pub async fn wait_all_row(&self, what: &str, backend: &str, title: &str) {
        self.b.wait_js(what, &all_row_script(backend, title)).await;
    }

    /// Every row of the merged list: `[{backend, org, id, label, title, href}]`.
    pub async fn all_rows(&self) -> Value {
        self.b.js(ALL_ROWS_SCRIPT).await
    }

    /// The backend label and link of the merged list's row of conversation `id`.
    pub async fn all_row(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "const r = [...document.querySelectorAll('[data-testid=all-row]')]
                   .find(r => r.dataset.conversationId === {id});
                 return {{label: r.querySelector('[data-testid=row-backend]').innerText,
                          href: r.querySelector('a').getAttribute('href')}};",
                id = json!(id)
            ))
            .await
    }

    /// How many rows the merged list has.
    pub async fn all_row_count(&self) -> Value {
        self.b
            .js("return document.querySelectorAll('[data-testid=all-row]').length")
            .await
    }

    /// Waits until the merged list has exactly `n` rows.
    pub async fn wait_all_row_count(&self, what: &str, n: usize) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return document.querySelectorAll('[data-testid=all-row]').length === {n}"
                ),
            )
            .await;
    }

    /// Clicks the merged list's "Load more" and waits until its answer is shown (the list may
    /// not grow: a next page can hold only rows already shown).
    pub async fn all_load_more(&self) {
        const LOADS: &str =
            "Number(document.querySelector('.load-more[data-loads]')?.dataset.loads ?? -1)";
        let before = self.b.js(&format!("return {LOADS}")).await;
        let before = before.as_i64().unwrap_or(-1);
        self.b.click("[data-testid=all-load-more]").await;
        self.b
            .wait_js(
                "the merged list's next pages",
                &format!("return {LOADS} > {before}"),
            )
            .await;
    }

    /// Clicks the link of the merged list's first row.
    pub async fn open_first_all_row(&self) {
        self.b
            .client
            .find(fantoccini::Locator::Css("[data-testid=all-row-link]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    /// Clicks the link of the merged list's row of `backend`'s conversation `id`.
    pub async fn open_all_row(&self, backend: &str, id: &str) {
        self.b
            .client
            .find(fantoccini::Locator::Css(&format!(
                "{ALL_ROWS}[data-backend-id={backend}][data-conversation-id=\"{id}\"] \
                 [data-testid=all-row-link]"
            )))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    /// Waits until the merged list's visible rows are titled exactly `want` (in any order).
    pub async fn wait_all_row_titles(&self, what: &str, want: &[&str]) {
        self.wait_titles(what, ALL_ROWS, want).await;
    }

    /// Waits until the merged list notes one stopped backend, `backend`; the note's text.
    pub async fn wait_one_note_for(&self, what: &str, backend: &str) -> String {
        self.b
            .wait_js(
                what,
                &format!(
                    "const n = [...document.querySelectorAll('[data-testid=source-note]')]; \
                     return n.length === 1 && n[0].dataset.backendId === {} ? n[0].innerText : null;",
                    json!(backend)
                ),
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}
