//! The conversation's tools (issue #15), end to end on the shared agent server with the LLM
//! stub: export Markdown and JSON (read back from the browser's downloads), the `/` menu by
//! keyboard, `/fork` landing in the fork with the same history, `/model` switching to a saved
//! profile (the stub then receives the profile's model), `/ask` answered beside the timeline,
//! an invalid command kept in the box with its reason, and condense on demand. Confirmations:
//! approve and reject (with a reason) by keyboard, the confirmation mode per conversation.
//! Attachments: an image pasted (thumbnail, removed, one too big refused), a file by the Attach
//! button whose name is taken (the console asks; "Keep both"), both sent and kept by the server;
//! the model picker's switch reaching the stub and marked in the timeline across a reload.
//! "Branch from here" on a message: the branch holds the history up to it (issue #36).

use canvas_e2e::keys::{ARROW_DOWN, BACKSPACE, CONTROL, ENTER, ESCAPE, SHIFT};
use canvas_e2e::{AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript, DEFAULT_FINAL_MESSAGE, DEFAULT_THOUGHT};
use fantoccini::Locator;
use serde_json::{json, Value};
use std::time::Duration;

const USER_TEXT: &str = "Run the tools test";

/// Waits until the page left conversation `id` for another one (a fork or a branch of it) whose
/// link is pinned to its backend; answers the new conversation's id.
async fn wait_copy_opened(b: &Browser, id: &str, what: &str) -> String {
    let url = b
        .wait_js_for(
            what,
            &format!(
                "return !location.pathname.endsWith('/{id}') \
                   && location.pathname.includes('/conversations/') \
                   && !!document.querySelector('[data-testid=conversation-heading]') \
                   ? location.pathname + location.search : null"
            ),
            Duration::from_secs(30),
        )
        .await;
    let url = url.as_str().unwrap_or_default().to_string();
    assert!(url.contains("backend="), "pinned to its backend: {url}");
    url.trim_start_matches("/conversations/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// Waits until the highlighted entry of the `/` menu inserts `insert`.
async fn wait_selected(b: &Browser, insert: &str) {
    b.wait_js(
        &format!("{insert:?} highlighted"),
        &format!(
            "const o = document.querySelector('[data-testid=slash-option][aria-selected=true]'); \
             return !!o && o.dataset.insert === {}",
            json!(insert)
        ),
    )
    .await;
}

/// Saves LLM profile `name` on the agent server: `model` on the stub at `stub_url`.
async fn save_stub_profile(api: &AgentApi, name: &str, model: &str, stub_url: &str) {
    api.send(
        reqwest::Method::POST,
        &format!("/api/profiles/{name}"),
        Some(json!({"llm": {
            "model": model, "base_url": stub_url, "api_key": "stub", "num_retries": 0
        }})),
    )
    .await;
}

/// Waits until the tools' notice is no longer busy; answers `[state, text]`.
async fn tools_outcome(b: &Browser, what: &str) -> (String, String) {
    let v = b
        .wait_js_for(
            what,
            "const s = document.querySelector('[data-testid=tools-status]'); \
             return s && s.dataset.state !== 'busy' ? [s.dataset.state, s.innerText] : null",
            Duration::from_secs(60),
        )
        .await;
    (
        v[0].as_str().unwrap_or_default().to_string(),
        v[1].as_str().unwrap_or_default().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversation_tools_export_fork_switch_ask_and_condense() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new()).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("conversation-tools");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{id}"),
        Some(json!({"title": "Tools test"})),
    )
    .await;
    api.send_message(&id, USER_TEXT).await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.conversation()
        .wait_finished_turns("the finished run", 1, Duration::from_secs(90))
        .await;

    // --- Export as Markdown from the ⋯ menu (keyboard: the menu opens on its first item) ---
    b.click("[data-testid=conversation-menu]").await;
    b.wait_js(
        "the menu, focus on its first item",
        "return document.activeElement && document.activeElement.dataset.testid === 'conv-export-md'",
    )
    .await;
    b.press(ENTER).await;
    let md_name = format!("tools-test-{}.md", &id[..8]);
    let (state, text) = tools_outcome(&b, "the Markdown export").await;
    assert_eq!(state, "done", "{text}");
    assert!(text.contains(&md_name), "{text}");
    let md = String::from_utf8(b.wait_download(&md_name).await).expect("utf-8");
    assert!(md.starts_with("# Tools test\n"), "{md}");
    assert!(md.contains(&format!("- Conversation: `{id}`")), "{md}");
    // The run in order: the user's message, the command with its output, the final answer.
    let user = md
        .find(&format!("## User\n\n{USER_TEXT}"))
        .expect("user message");
    let cmd = md
        .find("### $ echo hello from the stub")
        .expect("the command");
    let out = md.find("hello from the stub\n```").expect("its output");
    let fin = md
        .find(&format!("## Agent (finished)\n\n{DEFAULT_FINAL_MESSAGE}"))
        .expect("the final answer");
    assert!(user < cmd && cmd < out && out < fin, "{md}");

    // --- Export as JSON: every stored event, raw ---
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-export-json]").await;
    let json_name = format!("tools-test-{}.json", &id[..8]);
    let (state, text) = tools_outcome(&b, "the JSON export").await;
    assert_eq!(state, "done", "{text}");
    let exported: Value = serde_json::from_slice(&b.wait_download(&json_name).await).expect("JSON");
    let (_, count) = api
        .get(&format!("/api/conversations/{id}/events/count"))
        .await;
    assert_eq!(exported["conversation_id"], json!(id));
    assert_eq!(
        exported["events"].as_array().map(Vec::len),
        count.as_u64().map(|n| n as usize),
        "every stored event"
    );

    // --- The `/` menu by keyboard ---
    b.conversation().focus_composer().await;
    b.press("/").await;
    let labels = b
        .wait_js(
            "the slash menu",
            "const m = document.querySelector('[data-testid=slash-menu]'); \
             return m ? [...m.querySelectorAll('.slash-label')].map(l => l.innerText) : null",
        )
        .await;
    assert_eq!(
        labels.as_array().map(|l| l[..6].to_vec()),
        Some(
            ["/new", "/model", "/condense", "/fork", "/export", "/ask"]
                .map(|s| json!(s))
                .to_vec()
        ),
        "{labels}"
    );
    wait_selected(&b, "/new").await;
    b.press(ARROW_DOWN).await;
    wait_selected(&b, "/model ").await;
    // Esc closes the menu and keeps the text.
    b.press(ESCAPE).await;
    b.wait_gone("[data-testid=slash-menu]").await;
    b.conversation().wait_composer_text("/").await;
    // Typing narrows it; Enter completes, a second Enter runs the command.
    b.press("fo").await;
    wait_selected(&b, "/fork").await;
    b.press(ENTER).await;
    b.conversation().wait_composer_text("/fork").await;

    // --- /fork: lands in the fork, pinned to this backend, with the same history ---
    b.press(ENTER).await;
    let fork_id = wait_copy_opened(&b, &id, "the fork's page").await;
    b.wait_js(
        "the fork's title and history",
        &format!(
            "return document.querySelector('[data-testid=conversation-heading]').innerText === 'Tools test (fork)' \
               && [...document.querySelectorAll('[data-testid=timeline-item][data-kind=user]')] \
                    .some(e => e.innerText.includes({}))",
            json!(USER_TEXT)
        ),
    )
    .await;
    // The command left the box.
    b.conversation().wait_composer_text("").await;

    // --- An invalid command stays in the box with its reason ---
    b.conversation().focus_composer().await;
    b.press("/ask").await;
    b.press(ESCAPE).await;
    b.press(ENTER).await;
    let err = b.wait_shown_text("[data-testid=composer-error]").await;
    assert!(err.contains("/ask"), "{err}");
    b.conversation().wait_composer_text("/ask").await;

    // --- /model <profile>: the fork runs on the profile's model (the server does not copy an
    // inline LLM key into a fork: without a switch the fork's LLM has no credentials) ---
    let profile = format!("canvas-switch-{}", &fork_id[..6]);
    save_stub_profile(&api, &profile, "openai/stub-switched", &stub.url()).await;
    b.conversation().send(&format!("/model {profile}")).await;
    let (state, text) = tools_outcome(&b, "the switch").await;
    assert_eq!(state, "done", "{text}");
    assert!(text.contains(&profile), "{text}");
    // --- /ask: answered beside the timeline, the run not touched ---
    let events_before = api
        .get(&format!("/api/conversations/{fork_id}/events/count"))
        .await
        .1;
    b.conversation().send("/ask what are you doing?").await;
    let answer = b
        .wait_js_for(
            "the agent's answer",
            "const a = document.querySelector('[data-testid=ask-answer-text]'); return a ? a.innerText : null",
            Duration::from_secs(60),
        )
        .await;
    assert!(
        answer
            .as_str()
            .unwrap_or_default()
            .contains(DEFAULT_THOUGHT),
        "{answer}"
    );
    let events_after = api
        .get(&format!("/api/conversations/{fork_id}/events/count"))
        .await
        .1;
    assert_eq!(
        events_before, events_after,
        "asking adds nothing to the conversation"
    );

    // The usage in the status bar (the stub reports 10 in / 5 out per call), if any yet: the
    // fork has not run, and whether the side question's stats are streamed is the server's
    // business.
    let usage_before = b.text_of("[data-testid=usage]").await;
    let before = stub.requests().len();
    b.conversation().send("Once more, switched").await;
    b.conversation()
        .wait_finished_turns("the second run's answer", 2, Duration::from_secs(90))
        .await;
    let models: Vec<String> = stub.requests()[before..]
        .iter()
        .filter(|r| r.get("tools").is_some())
        .filter_map(|r| r["model"].as_str().map(str::to_string))
        .collect();
    assert!(
        !models.is_empty() && models.iter().all(|m| m.ends_with("stub-switched")),
        "the stub received {models:?}"
    );
    let _ = api
        .raw(reqwest::Method::DELETE, &format!("/api/profiles/{profile}"))
        .await;

    // The usage followed the run live; its dialog has a row per LLM and the total.
    b.wait_js(
        "the usage updated by the second run",
        &format!(
            "const u = document.querySelector('[data-testid=usage]'); return !!u && u.innerText !== {}",
            json!(usage_before)
        ),
    )
    .await;
    // The dialog shows what the server counts for the conversation (its `stats`).
    let (_, info) = api.get(&format!("/api/conversations/{fork_id}")).await;
    let counted: u64 = info["stats"]["usage_to_metrics"]
        .as_object()
        .map(|m| {
            m.values()
                .filter_map(|v| v["accumulated_token_usage"]["prompt_tokens"].as_u64())
                .sum()
        })
        .unwrap_or(0);
    assert!(counted >= 10, "the server counted the runs: {info}");
    b.click("[data-testid=usage]").await;
    let rows = b
        .wait_js_for(
            "the usage dialog with the server's count",
            &format!(
                "const d = document.querySelector('[data-testid=usage-dialog]'); \
                 if (!d) return null; \
                 const rows = [...d.querySelectorAll('[data-testid=usage-row]')].map(r => \
                   [r.dataset.usageId, ...[...r.querySelectorAll('td')].map(c => c.innerText)]); \
                 const total = rows[rows.length - 1]; \
                 return total && total[0] === 'total' \
                   && Number(total[2].replace(/,/g, '')) >= {counted} ? rows : null"
            ),
            Duration::from_secs(30),
        )
        .await;
    let rows = rows.as_array().cloned().unwrap_or_default();
    assert!(rows.len() >= 2, "at least one LLM and the total: {rows:?}");
    b.press(ESCAPE).await;
    b.wait_gone("[data-testid=usage-dialog]").await;

    // --- Condense on demand: the server condenses (its default summarizing condenser, the
    // stub writing the summary) and the card shows it ---
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-condense]").await;
    let (state, text) = tools_outcome(&b, "the condense answer").await;
    assert_eq!(state, "done", "{text}");
    assert!(text.contains("condense"), "{text}");
    let card = b
        .wait_js_for(
            "the condensation card",
            "const c = document.querySelector('[data-testid=timeline] [data-kind=condensation] summary'); \
             return c ? c.innerText : null",
            Duration::from_secs(60),
        )
        .await;
    let card = card.as_str().unwrap_or_default();
    assert!(card.starts_with("History condensed ("), "{card}");
}

/// Waits until an action other than `answered` (an action id) waits for confirmation, or (when
/// `or_finished`) the run has finished; answers the waiting action's id or `finished`.
async fn wait_confirm_or_finish(b: &Browser, answered: &str, or_finished: bool) -> String {
    b.wait_js_for(
        "a new confirmation or the end of the run",
        &format!(
            "const s = document.querySelector('[data-testid=exec-status]').dataset.status; \
             if ({or_finished} && s === 'finished') return 'finished'; \
             const p = document.querySelector('[data-testid=confirm-bar] [data-testid=pending-action]'); \
             return s === 'waiting_for_confirmation' && p && p.dataset.actionId !== {} \
               ? p.dataset.actionId : null",
            json!(answered)
        ),
        Duration::from_secs(90),
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirmations_by_keyboard_with_a_reason_and_the_mode_per_conversation() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new()).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("confirmations");
    let id = api
        .create_on_stub(
            &dir.display().to_string(),
            &stub.url(),
            json!({"confirmation_policy": {"kind": "AlwaysConfirm"}}),
        )
        .await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.wait_checked("[data-testid=confirm-mode]", true).await;

    // The command waits; ⌘/Ctrl+Enter from the composer approves it (and sends nothing).
    api.send_message(&id, "Run something").await;
    let first = wait_confirm_or_finish(&b, "", false).await;
    b.conversation().focus_composer().await;
    b.press(&format!("{CONTROL}{ENTER}")).await;
    b.wait_js_for(
        "the approved command's output",
        "const t = document.querySelector('[data-testid=timeline-item][data-kind=terminal]'); \
         return !!t && t.innerText.includes('hello from the stub')",
        Duration::from_secs(60),
    )
    .await;
    // The next action (the stub's finish, or the next turn's command) is rejected with a reason
    // by ⌘/Ctrl+Shift+Backspace.
    if wait_confirm_or_finish(&b, &first, true).await == "finished" {
        api.send_message(&id, "Run it again").await;
        wait_confirm_or_finish(&b, &first, false).await;
    }
    b.type_into("[data-testid=reject-reason]", "not on this machine")
        .await;
    b.press(&format!("{CONTROL}{SHIFT}{BACKSPACE}")).await;
    b.wait_js_for(
        "the rejection with its reason",
        "return [...document.querySelectorAll('[data-testid=timeline-item][data-kind=rejected]')] \
           .some(e => e.innerText.includes('not on this machine'))",
        Duration::from_secs(30),
    )
    .await;
    let users = b.count("[data-testid=timeline-item][data-kind=user]").await;
    assert!(users <= 2, "the keys sent no message: {users}");

    // Off: the server's policy for this conversation says so, and the next run asks nothing.
    b.conversation()
        .wait_idle("the conversation idle again")
        .await;
    b.click("[data-testid=confirm-mode]").await;
    let (state, text) = tools_outcome(&b, "the mode switched off").await;
    assert_eq!(state, "done", "{text}");
    let (_, info) = api.get(&format!("/api/conversations/{id}")).await;
    assert_eq!(
        info["confirmation_policy"]["kind"],
        json!("NeverConfirm"),
        "{info}"
    );
    let finished_before = b.conversation().finished_turns().await;
    api.send_message(&id, "Now without asking").await;
    b.conversation()
        .wait_finished_turns(
            "a run that finished without asking",
            finished_before + 1,
            Duration::from_secs(90),
        )
        .await;
    // (Had it asked, the run would wait and no answer would come.)
    b.conversation()
        .wait_status("the run finished", "finished")
        .await;
}

/// A 1×1 PNG, base64.
const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// The composer's attachments as `kind:name`, in order.
const CHIPS: &str = "[...document.querySelectorAll('[data-testid=attachment]')] \
                     .map(a => a.dataset.kind + ':' + a.dataset.name).join(',')";

/// Pastes a file into the composer as the browser does (a `paste` event carrying it).
async fn paste_file(b: &Browser, name: &str, mime: &str, js_bytes: &str) {
    b.js(&format!(
        "const dt = new DataTransfer(); \
         dt.items.add(new File([{js_bytes}], {}, {{type: {}}})); \
         document.querySelector('[data-testid=composer-input]').dispatchEvent( \
           new ClipboardEvent('paste', {{clipboardData: dt, bubbles: true, cancelable: true}})); \
         return true;",
        json!(name),
        json!(mime)
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_go_with_the_message_and_the_model_picker_switches_the_llm() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new()).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("attachments");
    // A file already there: attaching one with the same name asks.
    std::fs::write(dir.join("notes.txt"), "already here\n").expect("write");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    let profile = format!("canvas-picker-{}", &id[..6]);
    save_stub_profile(&api, &profile, "openai/stub-picked", &stub.url()).await;
    let (server, b) = Browser::open_conversation(&env, &id).await;

    // --- The model picker: the current model, then the profile chosen from the list ---
    let option = format!("[data-testid=model-option][value={}]", json!(profile));
    b.wait_js(
        "the picker with the profile",
        &format!(
            "const p = document.querySelector('[data-testid=model-picker]'); \
             return !!p && p.dataset.model === 'openai/stub-model' && !!p.querySelector({})",
            json!(option)
        ),
    )
    .await;
    b.click("[data-testid=model-picker]").await;
    b.click(&option).await;
    let (state, text) = tools_outcome(&b, "the switch from the picker").await;
    assert_eq!(state, "done", "{text}");
    b.wait_js(
        "the picker showing the new model, the timeline marking the switch",
        &format!(
            "const p = document.querySelector('[data-testid=model-picker]'); \
             const m = document.querySelector('[data-testid=llm-switch][data-profile={}]'); \
             return p.dataset.model === 'openai/stub-picked' && !!m && m.innerText.includes('openai/stub-picked')",
            json!(profile)
        ),
    )
    .await;

    // --- Images by paste: a thumbnail, removable; one too big is refused in words ---
    b.conversation().focus_composer().await;
    let png = format!("Uint8Array.from(atob('{PNG_1X1}'), c => c.charCodeAt(0))");
    paste_file(&b, "shot.png", "image/png", &png).await;
    paste_file(&b, "second.png", "image/png", &png).await;
    b.wait_js(
        "two image thumbnails",
        &format!("return ({CHIPS}) === 'image:shot.png,image:second.png'"),
    )
    .await;
    b.click("[data-testid=attachment][data-name=\"second.png\"] [data-testid=attachment-remove]")
        .await;
    b.wait_js(
        "one left",
        &format!("return ({CHIPS}) === 'image:shot.png'"),
    )
    .await;
    paste_file(
        &b,
        "huge.png",
        "image/png",
        "new Uint8Array(6 * 1024 * 1024)",
    )
    .await;
    let err = b.wait_shown_text("[data-testid=attach-error]").await;
    assert!(err.contains("huge.png") && err.contains("5 MB"), "{err}");

    // --- A file by the Attach button: its name is taken, so the console asks ---
    let src = env.scratch("attachments-src");
    std::fs::write(src.join("notes.txt"), "attached from the browser\n").expect("write");
    b.client
        .find(Locator::Css("[data-testid=attach-input]"))
        .await
        .expect("attach input")
        .send_keys(&src.join("notes.txt").display().to_string())
        .await
        .expect("choose file");
    b.wait_js(
        "the file attached",
        &format!("return ({CHIPS}) === 'image:shot.png,file:notes.txt'"),
    )
    .await;
    b.conversation().send("Look at these").await;
    b.wait_js(
        "the question, focus on Keep both",
        "return !!document.querySelector('[data-testid=attach-conflict]') \
           && document.activeElement.dataset.testid === 'conflict-keep-both'",
    )
    .await;
    b.press(ENTER).await;
    let sent = b
        .wait_js_for(
            "the sent message with its image",
            "const m = [...document.querySelectorAll('[data-testid=timeline-item][data-kind=user]')] \
               .find(m => !!m.querySelector('[data-testid=message-image]')); \
             return m ? m.innerText : null",
            Duration::from_secs(60),
        )
        .await;
    let sent = sent.as_str().unwrap_or_default().to_string();
    let kept = dir.join("notes (1).txt");
    assert!(
        sent.contains("Look at these") && sent.contains(&kept.display().to_string()),
        "{sent}"
    );
    assert_eq!(
        std::fs::read_to_string(&kept).expect("the upload"),
        "attached from the browser\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).expect("the old file"),
        "already here\n",
        "keep both leaves the old file alone"
    );
    b.wait_js(
        "the composer emptied",
        "return document.querySelector('[data-testid=composer-input]').value === '' \
           && !document.querySelector('[data-testid=attachment]')",
    )
    .await;
    // The server stored the image in the message.
    let (_, page) = api
        .get(&format!("/api/conversations/{id}/events/search?limit=100"))
        .await;
    let images: Vec<String> = page["items"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|e| {
            e["llm_message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|p| p["type"] == json!("image"))
        .flat_map(|p| p["image_urls"].as_array().cloned().unwrap_or_default())
        .filter_map(|u| u.as_str().map(str::to_string))
        .collect();
    assert_eq!(images, vec![format!("data:image/png;base64,{PNG_1X1}")]);

    // The stub's model takes no images: the server itself answers so (no LLM call), and the
    // user sees it.
    let answer = b
        .wait_js_for(
            "the server's answer to the image",
            "const a = [...document.querySelectorAll('[data-testid=agent-message]')].pop();              return a ? a.innerText : null",
            Duration::from_secs(60),
        )
        .await;
    assert!(
        answer.as_str().unwrap_or_default().contains("image"),
        "{answer}"
    );
    // A text message runs on the picked model.
    b.conversation().send("Now without images").await;
    b.conversation()
        .wait_finished_turns("the run finished", 1, Duration::from_secs(90))
        .await;
    let models: Vec<String> = stub
        .requests()
        .iter()
        .filter(|r| r.get("tools").is_some())
        .filter_map(|r| r["model"].as_str().map(str::to_string))
        .collect();
    assert!(
        !models.is_empty() && models.iter().all(|m| m.ends_with("stub-picked")),
        "the stub received {models:?}"
    );

    // --- After a reload: the image is still in the message (click to enlarge), the switch is
    // still marked ---
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    b.wait_js(
        "the image and the marker after a reload",
        &format!(
            "return !!document.querySelector('[data-testid=message-image]') \
               && !!document.querySelector('[data-testid=llm-switch][data-profile={}]')",
            json!(profile)
        ),
    )
    .await;
    b.click("[data-testid=message-image]").await;
    b.wait_js(
        "the image enlarged",
        "const d = document.querySelector('[data-testid=image-viewer]'); \
         return !!d && !!d.querySelector('img') && d.querySelector('img').naturalWidth === 1",
    )
    .await;
    b.press(ESCAPE).await;
    b.wait_gone("[data-testid=image-viewer]").await;
    let _ = api
        .raw(reqwest::Method::DELETE, &format!("/api/profiles/{profile}"))
        .await;
}

/// A conversation's stored events as (id, kind), oldest first (one page: a short run).
async fn events_of(api: &AgentApi, id: &str) -> Vec<(String, String)> {
    let (_, page) = api
        .get(&format!(
            "/api/conversations/{id}/events/search?limit=100&sort_order=TIMESTAMP"
        ))
        .await;
    assert!(page["next_page_id"].is_null(), "one page: {page}");
    page["items"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| {
            let id = e["id"].as_str()?.to_owned();
            Some((id, e["kind"].as_str().unwrap_or_default().to_owned()))
        })
        .collect()
}

/// "Branch from here" on the second question (issue #36): the branch opens pinned to this
/// backend, says where it came from, and holds exactly the source's events up to and including
/// that message (checked against the server); the source keeps all of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn branch_from_a_message_keeps_the_history_up_to_it() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new()).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("branch-here");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{id}"),
        Some(json!({"title": "Branch test"})),
    )
    .await;
    api.send_message(&id, "first question").await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.conversation()
        .wait_finished_turns("the first run", 1, Duration::from_secs(90))
        .await;
    b.conversation().send("second question").await;
    b.conversation()
        .wait_finished_turns("the second run", 2, Duration::from_secs(90))
        .await;

    let second =
        "[data-testid=timeline-item][data-kind=user]:nth-last-child(1 of [data-kind=user])";
    let from = b.data_of(second, "eventId").await;
    assert!(!from.is_empty(), "the second question has an event id");
    b.click(&format!("{second} [data-testid=branch-here]"))
        .await;
    let branch = wait_copy_opened(&b, &id, "the branch's page").await;
    // It says where it came from, and shows both questions but only the first answer.
    b.wait_for(&format!("[data-testid=forked-from-link][data-id=\"{id}\"]"))
        .await;
    b.wait_js(
        "the branch's timeline",
        "const users = [...document.querySelectorAll('[data-testid=timeline-item][data-kind=user]')].map(e => e.innerText); \
         return users.some(t => t.includes('second question')) \
           && document.querySelectorAll('[data-testid=finish-message]').length === 1;",
    )
    .await;

    // The server holds the source's history up to and including the second question: every
    // message, action and observation before it, in order, and nothing of the source after it
    // (state updates are the server's own per conversation, not part of the history).
    let source = events_of(&api, &id).await;
    let at = source
        .iter()
        .position(|(e, _)| *e == from)
        .expect("the branch point is the source's");
    assert!(at + 1 < source.len(), "the source went on after it");
    let forked: Vec<String> = events_of(&api, &branch)
        .await
        .into_iter()
        .map(|(e, _)| e)
        .filter(|e| source.iter().any(|(s, _)| s == e))
        .collect();
    let history = |kind: &str| ["MessageEvent", "ActionEvent", "ObservationEvent"].contains(&kind);
    let wanted: Vec<String> = source[..=at]
        .iter()
        .filter(|(_, k)| history(k))
        .map(|(e, _)| e.clone())
        .collect();
    let kept: Vec<String> = forked
        .iter()
        .filter(|e| wanted.contains(e))
        .cloned()
        .collect();
    assert_eq!(kept, wanted, "the history up to the branch point");
    assert_eq!(forked.last(), Some(&from), "nothing of the source after it");
    assert!(
        forked
            .iter()
            .all(|e| source[..=at].iter().any(|(s, _)| s == e)),
        "only events up to the branch point"
    );
    let (_, info) = api.get(&format!("/api/conversations/{branch}")).await;
    assert_eq!(info["forked_from_conversation_id"], json!(id));
    assert_eq!(info["forked_from_event_id"], json!(from));
}

/// The context meter (issue #36): the stub reports prompt tokens by the request's size against
/// a 16,384-token window; a second turn crosses 80 % (the meter and the warning), "Condense"
/// condenses on the server (the meter says it measures again), and the next turn, sent with
/// the condensed history, measures less.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_context_meter_warns_and_condense_empties_it() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new().with_tokens_per_message(1500)).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("context-meter");
    let id = api
        .create_on_stub(
            &dir.display().to_string(),
            &stub.url(),
            json!({"agent_settings": {"llm": {
                "model": "openai/stub-model", "base_url": stub.url(), "api_key": "stub",
                "num_retries": 0, "max_input_tokens": 16384
            }}}),
        )
        .await;
    api.send_message(&id, "first turn").await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.conversation()
        .wait_finished_turns("the first turn", 1, Duration::from_secs(90))
        .await;
    let meter = "[data-testid=context-meter]";
    b.wait_data(meter, "state", "ok").await;
    let first: u64 = b
        .data_of(meter, "percent")
        .await
        .parse()
        .expect("a percent");
    assert!((1..80).contains(&first), "after one turn: {first} %");

    b.conversation().send("second turn").await;
    b.conversation()
        .wait_finished_turns("the second turn", 2, Duration::from_secs(90))
        .await;
    b.wait_data(meter, "state", "filling").await;
    let full: u64 = b
        .data_of(meter, "percent")
        .await
        .parse()
        .expect("a percent");
    assert!(full >= 80, "after two turns: {full} %");
    b.wait_text_containing("[data-testid=context-warning]", "condense")
        .await;

    b.click("[data-testid=context-condense]").await;
    b.wait_data(meter, "state", "condensed").await;
    assert_eq!(b.count("[data-testid=context-warning]").await, 0);
    b.wait_for("[data-testid=timeline-item][data-kind=condensation]")
        .await;

    b.conversation().send("third turn").await;
    b.conversation()
        .wait_finished_turns("the third turn", 3, Duration::from_secs(90))
        .await;
    b.wait_js(
        "the meter measured again, lower",
        &format!(
            "const m = document.querySelector('{meter}'); \
             return !!m && m.dataset.state !== 'condensed' && Number(m.dataset.percent) < {full};"
        ),
    )
    .await;
}

/// The goal updates the server keeps for `id` (its `ConversationStateUpdateEvent`s with
/// `key: "goal"`), oldest first: (status, round).
async fn goal_updates(api: &AgentApi, id: &str) -> Vec<(String, u64)> {
    let (_, page) = api
        .get(&format!(
            "/api/conversations/{id}/events/search?limit=100&sort_order=TIMESTAMP&kind=ConversationStateUpdateEvent"
        ))
        .await;
    page["items"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["key"] == "goal")
        .map(|e| {
            (
                e["value"]["status"].as_str().unwrap_or_default().to_owned(),
                e["value"]["iteration"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// Waits until the header's goal is `status` (and at `round`, when given).
async fn wait_goal(b: &Browser, what: &str, status: &str, round: Option<u64>) {
    b.wait_js_for(
        what,
        &format!(
            "const g = document.querySelector('[data-testid=goal-state]'); \
             return !!g && g.dataset.goalStatus === {} && ({} === null || g.dataset.goalRound === {});",
            json!(status),
            json!(round.map(|r| r.to_string())),
            json!(round.map(|r| r.to_string())),
        ),
        Duration::from_secs(120),
    )
    .await;
}

async fn start_goal(b: &Browser, objective: &str, rounds: &str) {
    b.click("[data-testid=conversation-menu]").await;
    b.click("[data-testid=conv-goal]").await;
    b.type_into("[data-testid=goal-objective]", objective).await;
    b.type_into("[data-testid=goal-rounds]", rounds).await;
    b.click("[data-testid=goal-start]").await;
}

/// Goals (issue #36): started from the `⋯` menu with 2 rounds, the server runs both (the stub's
/// judge answer cannot be parsed, so each round is "not met") and stops out of rounds — each
/// update in the timeline and the header, as the server's goal events say. A second goal,
/// stopped from the header while it runs, says so and resumes from the header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_runs_its_rounds_and_stops_and_resumes_from_the_header() {
    let env = Env::get();
    let stub = llm_stub::start(StubScript::new()).await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("goal");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.conversation().wait_composer().await;

    // Rounds out of range are said at the form; nothing is sent.
    start_goal(&b, "make it work", "0").await;
    let error = b
        .wait_js(
            "the rounds refused",
            "const e = document.querySelector('[data-testid=goal-error]'); \
             return e && !e.hidden ? e.innerText : null;",
        )
        .await;
    assert!(error.as_str().unwrap().contains("1 to 50"), "{error}");
    assert!(goal_updates(&api, &id).await.is_empty());
    b.type_into("[data-testid=goal-rounds]", "2").await;
    b.click("[data-testid=goal-start]").await;
    wait_goal(&b, "the goal out of its 2 rounds", "capped", Some(2)).await;
    let timeline = b
        .js(
            "return [...document.querySelectorAll('[data-testid=goal-update]')] \
               .map(e => [e.dataset.goalStatus, e.dataset.goalRound, e.innerText])",
        )
        .await;
    let seen: Vec<(String, String)> = timeline
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u[0].as_str().unwrap().to_owned(),
                u[1].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want = |u: &[(&str, u64)]| -> Vec<(String, String)> {
        u.iter()
            .map(|(s, r)| (s.to_string(), r.to_string()))
            .collect()
    };
    assert_eq!(
        seen,
        want(&[("running", 0), ("running", 1), ("capped", 2)]),
        "{timeline}"
    );
    assert!(
        timeline[0][2].as_str().unwrap().contains("make it work"),
        "{timeline}"
    );
    let server: Vec<(String, String)> = goal_updates(&api, &id)
        .await
        .into_iter()
        .map(|(s, r)| (s, r.to_string()))
        .collect();
    assert_eq!(server, seen, "the server's goal events");
    assert_eq!(
        b.js(
            "return !!document.querySelector('[data-testid=goal-stop], [data-testid=goal-resume]')"
        )
        .await,
        json!(false),
        "a goal out of rounds can neither be stopped nor resumed"
    );

    // A second goal, stopped from the header while it runs, then resumed.
    start_goal(&b, "keep going", "50").await;
    wait_goal(&b, "the second goal running", "running", None).await;
    b.click("[data-testid=goal-stop]").await;
    wait_goal(&b, "the goal stopped", "interrupted", None).await;
    // The step under way finishes on its own; then it can go on.
    b.wait_js_for(
        "the run to end",
        "return document.querySelector('[data-testid=exec-status]')?.dataset.status !== 'running';",
        Duration::from_secs(60),
    )
    .await;
    b.click("[data-testid=goal-resume]").await;
    wait_goal(&b, "the goal running again", "running", None).await;
    let statuses: Vec<String> = goal_updates(&api, &id)
        .await
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    let stopped = statuses
        .iter()
        .rposition(|s| s == "interrupted")
        .expect("the stop is the server's");
    assert!(
        statuses[stopped + 1..].iter().any(|s| s == "running"),
        "running again after the stop: {statuses:?}"
    );
    b.click("[data-testid=goal-stop]").await;
    wait_goal(&b, "the goal stopped again", "interrupted", None).await;
}

/// Grouped actions (issue #36): a run of 6 commands, the first of which fails, folds into one
/// group that says so ("6 actions — 5 done, 1 failed") and stays open for the failure; closing
/// it hides the cards (they stay in the page, out of the window's count), opening shows them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_of_actions_folds_into_a_group_that_a_failure_keeps_open() {
    let env = Env::get();
    // The first step fails (its marker is not there yet), the five after it succeed.
    let stub = llm_stub::start(
        StubScript::new()
            .with_command("[ -e .grouped ] || { touch .grouped; false; }")
            .with_steps(6),
    )
    .await;
    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let dir = env.scratch("grouped-actions");
    let id = api
        .create_on_stub(&dir.display().to_string(), &stub.url(), json!({}))
        .await;
    api.send_message(&id, "Run the six steps").await;
    let (_server, b) = Browser::open_conversation(&env, &id).await;
    b.conversation()
        .wait_finished_turns("the run", 1, Duration::from_secs(90))
        .await;
    let group = b
        .wait_js(
            "one group of the six commands",
            "const g = [...document.querySelectorAll('[data-testid=action-group]')]; \
             if (g.length !== 1 || g[0].dataset.actions !== '6') return null; \
             return {failed: g[0].dataset.failed, running: g[0].dataset.running, \
               open: g[0].querySelector('[data-testid=action-group-toggle]').getAttribute('aria-expanded'), \
               text: g[0].innerText};",
        )
        .await;
    assert_eq!(group["failed"], "1", "{group}");
    assert_eq!(group["running"], "0", "{group}");
    assert_eq!(group["open"], "true", "a failure keeps it open: {group}");
    assert!(
        group["text"]
            .as_str()
            .unwrap()
            .contains("6 actions — 5 done, 1 failed"),
        "{group}"
    );
    let shown_cards = "return [...document.querySelectorAll('[data-testid=timeline-item][data-kind=terminal]')] \
        .filter(e => e.getClientRects().length && e.querySelector('[data-testid=terminal-action]')?.getClientRects().length).length;";
    assert_eq!(b.js(shown_cards).await, json!(6));
    // Closed: the header alone; the cards stay in the page, hidden.
    b.click("[data-testid=action-group-toggle]").await;
    b.wait_js(
        "the group closed",
        &format!("return (() => {{ {shown_cards} }})() === 0;"),
    )
    .await;
    assert_eq!(
        b.count("[data-testid=timeline-item][data-kind=terminal]")
            .await,
        6
    );
    assert_eq!(
        b.js("return document.querySelector('[data-testid=action-group-toggle]').getAttribute('aria-expanded')")
            .await,
        json!("false")
    );
    b.click("[data-testid=action-group-toggle]").await;
    b.wait_js(
        "the group open again",
        &format!("return (() => {{ {shown_cards} }})() === 6;"),
    )
    .await;
}
