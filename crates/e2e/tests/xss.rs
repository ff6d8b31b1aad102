//! Issue #17: known XSS payloads (OWASP filter-evasion forms: `<script>`, event handlers, SVG,
//! obfuscated `javascript:` with entities, tabs and mixed case, `data:` and `vbscript:` links,
//! `<iframe srcdoc>`, Markdown links and images, reference definitions, style expressions, …)
//! reach the timeline through every way the agent server delivers text — user messages sent
//! with its REST API, the agent's thought, its terminal command and output, its final message
//! (Markdown) and the conversation title — and a real Chromium shows them as inert text: no
//! payload ran (each would set `window.__xss_<where><n>` or `document.title`), no element
//! carries an `on*` handler, no URL attribute starts with `javascript:`/`data:`/`vbscript:`,
//! and no script, frame, object, embed, image, SVG, style, form or base element exists in the
//! timeline. Live (websocket frames) and after a reload (history pages).
//!
//! The corpus is `crates/core/tests/fixtures/xss_corpus.json`, shared with the Markdown
//! renderer's table test (`crates/core/tests/never_panics.rs`).

use canvas_e2e::{canvas_serve, AgentApi, Browser, Env};
use canvas_fixtures::llm_stub::{self, StubScript};
use serde_json::{json, Value};
use std::time::Duration;

const CORPUS: &str = include_str!("../../core/tests/fixtures/xss_corpus.json");

/// The corpus with `__N__` replaced by `<tag><n>`: `window.__xss_u12`, `document.title='XSSu12'`.
fn corpus(tag: &str) -> Vec<String> {
    let v: Vec<String> = serde_json::from_str(CORPUS).expect("the corpus is a JSON list");
    v.into_iter()
        .enumerate()
        .map(|(n, p)| p.replace("__N__", &format!("{tag}{n}")))
        .collect()
}

/// What the page shows about injected code: every violation found, the flags payloads set,
/// the title, and the links the timeline holds. Checks the whole document for handler
/// attributes, the timeline for elements and URLs.
const FACTS: &str = r#"
const t = document.querySelector('[data-testid=timeline]');
if (!t) return null;
const bad = [];
const forbidden = 'script,iframe,frame,frameset,object,embed,applet,img,image,svg,math,video,'
  + 'audio,source,track,base,meta,link,style,form,title,template,marquee,textarea,isindex,'
  + 'body,html,head,noscript';
for (const e of t.querySelectorAll(forbidden)) {
  bad.push('element ' + e.outerHTML.slice(0, 160));
}
for (const e of t.querySelectorAll('input')) {
  if (e.type !== 'checkbox' || !e.disabled) bad.push('input ' + e.outerHTML.slice(0, 160));
}
const urlAttrs = ['href', 'src', 'action', 'formaction', 'data', 'xlink:href', 'background',
  'poster', 'cite', 'codebase', 'dynsrc', 'lowsrc', 'ping'];
const scheme = v => v.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '').toLowerCase();
const dangerous = v => /^(javascript|data|vbscript):/.test(scheme(v));
for (const e of document.querySelectorAll('*')) {
  const inTimeline = t.contains(e);
  for (const a of e.attributes) {
    const n = a.name.toLowerCase();
    if (n.startsWith('on')) bad.push(`handler ${n} on <${e.tagName.toLowerCase()}>`);
    if (!inTimeline) continue;
    if (urlAttrs.includes(n) && dangerous(a.value)) bad.push(`${n}=${JSON.stringify(a.value)}`);
    if (n === 'srcdoc' || n === 'formaction') bad.push(`${n} on <${e.tagName.toLowerCase()}>`);
    if (n === 'style' && /expression|javascript|url\s*\(/i.test(a.value)) {
      bad.push(`style=${JSON.stringify(a.value)}`);
    }
  }
}
return {
  bad,
  flags: Object.keys(window).filter(k => k.startsWith('__xss')),
  title: document.title,
  links: [...t.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
  text: t.innerText,
  items: t.querySelectorAll('[data-testid=timeline-item]').length,
};
"#;

/// Everything is in the timeline: all user messages and the final message.
const READY: &str = r#"
const t = document.querySelector('[data-testid=timeline]');
if (!t) return false;
return t.querySelectorAll('[data-testid=user-message]').length >= Number(arguments_users)
  && !!t.querySelector('[data-testid=finish-message]')
  && !!t.querySelector('[data-testid=terminal-output]');
"#;

async fn assert_inert(b: &Browser, when: &str, users: usize) {
    b.wait_js_for(
        &format!("every message in the timeline ({when})"),
        &READY.replace("arguments_users", &users.to_string()),
        Duration::from_secs(120),
    )
    .await;
    // No waiting for handlers that fire later (image errors, `onload`, `ontoggle`): such a
    // handler needs an element carrying it, and `bad` lists every `on*` attribute in the
    // document and every element that loads anything; a payload that ran at once has set its
    // flag already.
    let facts = b.js(FACTS).await;
    let bad = facts["bad"].as_array().cloned().unwrap_or_default();
    assert!(
        bad.is_empty(),
        "{when}: injected markup in the page: {bad:#?}"
    );
    assert_eq!(facts["flags"], json!([]), "{when}: payloads ran: {facts:#}");
    let title = facts["title"].as_str().unwrap_or_default();
    assert!(
        !title.starts_with("XSS"),
        "{when}: a payload set the title: {title:?}"
    );
    // Only the harmless links the corpus holds on purpose survive as links.
    for link in facts["links"].as_array().cloned().unwrap_or_default() {
        let href = link.as_str().unwrap_or_default();
        assert!(
            href.starts_with("https://ok.example") || href.starts_with('#'),
            "{when}: unexpected link {href:?}"
        );
        assert!(!href.contains("__xss"), "{when}: {href:?}");
    }
    // The payloads are there, as text (the test is not passing because nothing rendered).
    let text = facts["text"].as_str().unwrap_or_default();
    for shown in [
        "<script>window.__xss_u0=1</script>",
        "<img src=x onerror=\"window.__xss_u3=1\">",
        "<script>window.__xss_f0=1</script>",
        "<svg onload=\"window.__xss_t14=1\">",
        "<img src=x onerror=window.__xss_cmd=1>",
        "md link",
    ] {
        assert!(
            text.contains(shown),
            "{when}: {shown:?} is not shown as text; timeline:\n{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xss_corpus_renders_inert_everywhere_in_the_timeline() {
    let env = Env::get();
    let users = corpus("u");
    let mut script = StubScript::new()
        .with_command(
            "echo '<img src=x onerror=window.__xss_cmd=1>' '<svg/onload=window.__xss_cmd2=1>'",
        )
        .with_final_message(corpus("f").join("\n\n"))
        .with_title("<img src=x onerror=window.__xss_gen=1>");
    script.thought = corpus("t").join("\n\n");
    let stub = llm_stub::start(script).await;

    let api = AgentApi::new(&env.agent_url, &env.agent_key);
    let conv = api
        .send(
            reqwest::Method::POST,
            "/api/conversations",
            Some(json!({
                "workspace": {"working_dir": env.scratch("xss").display().to_string()},
                "agent_settings": {"llm": {
                    "model": "openai/stub-model",
                    "base_url": stub.url(),
                    "api_key": "stub",
                    "num_retries": 0
                }}
            })),
        )
        .await;
    let id = conv["id"].as_str().expect("conversation id").to_string();
    api.send(
        reqwest::Method::PATCH,
        &format!("/api/conversations/{id}"),
        Some(json!({"title": "<svg onload=\"window.__xss_title=1\"><script>document.title='XSStitle'</script>"})),
    )
    .await;

    let server = canvas_serve::start(env.serve_config())
        .await
        .expect("serve");
    let b = Browser::start(&env).await;
    b.goto(&format!("{}/conversations/{id}", server.url()))
        .await;
    b.wait_for("[data-testid=timeline]").await;

    // The corpus as user messages (ten payloads each, one per line), sent like another client
    // would while the page is open: they arrive as websocket frames.
    let chunks: Vec<Value> = users.chunks(10).map(|c| json!(c.join("\n"))).collect();
    for (i, text) in chunks.iter().enumerate() {
        let run = i + 1 == chunks.len();
        api.send(
            reqwest::Method::POST,
            &format!("/api/conversations/{id}/events"),
            Some(json!({"role": "user", "content": [{"type": "text", "text": text}], "run": run})),
        )
        .await;
    }
    assert_inert(&b, "live", chunks.len()).await;

    // The same from the history.
    b.client.refresh().await.expect("reload");
    assert_inert(&b, "after a reload", chunks.len()).await;

    // The checks can fail: one handler attribute planted in the timeline is reported.
    let planted = b
        .js(&format!(
            "document.querySelector('[data-testid=timeline]').insertAdjacentHTML('beforeend', \
               '<li><a href=\" JaVa&#9;Script:x\" onmouseover=\"x\">p</a></li>'); {FACTS}"
        ))
        .await;
    let bad: Vec<String> = planted["bad"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        bad.iter().any(|b| b.starts_with("handler onmouseover")),
        "{bad:?}"
    );
    assert!(bad.iter().any(|b| b.starts_with("href=")), "{bad:?}");
    drop(stub);
}
