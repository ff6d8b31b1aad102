//! End-to-end harness: a real Chromium (chromedriver, fresh profile per test), the release app
//! served by `canvas-serve` (in-process), and a real agent server.
//!
//! `cargo xtask test` builds the release app, starts one shared agent server and sets:
//! `CANVAS_E2E_DIST`, `CANVAS_E2E_AGENT_URL`, `CANVAS_E2E_AGENT_KEY`, `CANVAS_E2E_STATE`,
//! `CANVAS_AGENT_PYTHON`, `CHROMEDRIVER`. Tests that need a private agent server (to stop it)
//! start their own with [`Env::private_agent_server`].

use canvas_harness::{
    free_port, random_hex, wait_until, AgentServer, AgentServerOptions, AutomationOptions,
    AutomationService, Group, RunTooling,
};
use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use canvas_serve;

/// A real agent server, the real automation service beside it, and the app in front of both
/// ([`Env::automation_console`]).
pub struct AutomationConsole {
    /// The agent server (the backend).
    pub agent: AgentServer,
    /// The automation service.
    pub svc: AutomationService,
    /// The app.
    pub server: canvas_serve::Running,
    /// The session key both take.
    pub key: String,
}

impl AutomationConsole {
    /// The app's URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.url())
    }

    /// A call to the service itself (`path` under `/api/automation`); panics on a failed status.
    pub async fn service(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> reqwest::Response {
        let mut req = reqwest::Client::new()
            .request(method, format!("{}/api/automation{path}", self.svc.url))
            .header("X-Session-API-Key", &self.key);
        if let Some(body) = body {
            req = req.json(&body);
        }
        let resp = req.send().await.expect("automation service");
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
        resp
    }

    /// `GET` of the service's JSON answer.
    pub async fn get_json(&self, path: &str) -> Value {
        self.service(reqwest::Method::GET, path, None)
            .await
            .json()
            .await
            .expect("json")
    }

    /// `POST` (or another method) with a JSON body, and the JSON answer.
    pub async fn send_json(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        self.service(method, path, Some(body))
            .await
            .json()
            .await
            .expect("json")
    }

    /// The automation called `name`, as the service lists it (the newest hundred).
    pub async fn named(&self, name: &str) -> Value {
        let all = self.get_json("/v1?limit=100").await;
        all["automations"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["name"] == json!(name))
            .cloned()
            .unwrap_or_else(|| panic!("no automation {name:?} on the service: {all}"))
    }
}

/// Runs git in `dir` (a work tree or a bare repository) with no user or system config; its
/// stdout, trimmed. Fails the test with git's words when git does.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub mod launch;
pub mod pages;
pub use pages::dom::axe_source;

/// Default deadline for UI conditions.
pub const UI_TIMEOUT: Duration = Duration::from_secs(20);

/// What `cargo xtask test` prepared.
#[derive(Clone, Debug)]
pub struct Env {
    pub dist: PathBuf,
    pub agent_url: String,
    pub agent_key: String,
    pub state: PathBuf,
    pub python: PathBuf,
    pub chromedriver: PathBuf,
    /// `canvas-fixtures` (its `acp-stub` is the stub ACP agent an agent server launches).
    pub fixtures_bin: PathBuf,
}

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the end-to-end tests with `cargo xtask test --layer e2e`")
    })
}

impl Env {
    pub fn get() -> Env {
        Env {
            dist: PathBuf::from(var("CANVAS_E2E_DIST")),
            agent_url: var("CANVAS_E2E_AGENT_URL"),
            agent_key: var("CANVAS_E2E_AGENT_KEY"),
            state: PathBuf::from(var("CANVAS_E2E_STATE")),
            python: PathBuf::from(var("CANVAS_AGENT_PYTHON")),
            chromedriver: PathBuf::from(
                std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into()),
            ),
            fixtures_bin: PathBuf::from(var("CANVAS_FIXTURES_BIN")),
        }
    }

    /// The command line of the stub ACP agent (a custom ACP command for an agent server).
    pub fn acp_stub_command(&self) -> String {
        format!("{} acp-stub", self.fixtures_bin.display())
    }

    /// The stub ACP agent calling itself as Gemini CLI does (the server then switches its
    /// models live).
    pub fn acp_stub_as_gemini(&self) -> String {
        format!("{} --name stub-as-gemini-cli", self.acp_stub_command())
    }

    /// A fresh scratch directory under the e2e state dir.
    pub fn scratch(&self, name: &str) -> PathBuf {
        let suffix = random_hex(4).unwrap_or_else(|_| "0".into());
        let dir = self.state.join(format!("{name}-{suffix}"));
        let _ = std::fs::create_dir_all(&dir);
        dir
    }

    /// Serve config for the shared agent server with its key injected.
    pub fn serve_config(&self) -> canvas_serve::Config {
        let mut c = canvas_serve::Config::new(&self.dist);
        c.agent_server_url = Some(self.agent_url.clone());
        c.session_api_key = Some(self.agent_key.clone());
        c
    }

    /// Serve config fronting `agent` (a private agent server) instead of the shared one.
    pub fn serve_config_on(&self, agent: &AgentServer) -> canvas_serve::Config {
        let mut c = canvas_serve::Config::new(&self.dist);
        c.agent_server_url = Some(agent.url.clone());
        c.session_api_key = Some(agent.session_api_key.clone());
        c
    }

    /// Serve config on `port` whose cloud proxy may reach the stand-in's runtime host (a
    /// loopback address, hence `cloud_proxy_allow_private`). No launcher key is injected.
    pub fn cloud_proxy_serve_config(
        &self,
        port: u16,
        runtime_host: impl std::fmt::Display,
    ) -> canvas_serve::Config {
        let mut c = canvas_serve::Config::new(&self.dist);
        c.port = port;
        c.cloud_proxy_allow = vec![runtime_host.to_string()];
        c.cloud_proxy_allow_private = true;
        c
    }

    /// A private agent server (blocking start, ~15 s) that the test may stop.
    pub async fn private_agent_server(&self, name: &str) -> AgentServer {
        let opts = AgentServerOptions::new(
            self.python.clone(),
            free_port().expect("free port"),
            self.scratch(name),
            random_hex(32).expect("random key"),
        );
        tokio::task::spawn_blocking(move || AgentServer::start(&opts))
            .await
            .expect("join")
            .unwrap_or_else(|e| panic!("private agent server: {e}"))
    }

    /// A private agent server whose LLM is `stub_url`, able to run automations (uv, Python and
    /// a filled uv cache on its PATH, offline), and the real automation service beside it with
    /// the same key (issue #14). `None` when `cargo xtask test` did not prepare the service.
    pub async fn automation_stack(
        &self,
        name: &str,
        stub_url: &str,
    ) -> Option<(AgentServer, AutomationService)> {
        let tooling = RunTooling::from_env()?;
        let svc_python = PathBuf::from(std::env::var("CANVAS_AUTOMATION_PYTHON").ok()?);
        let mut opts = AgentServerOptions::new(
            self.python.clone(),
            free_port().expect("free port"),
            self.scratch(&format!("{name}-agent")),
            random_hex(32).expect("random key"),
        );
        opts.env.extend(tooling.agent_server_env());
        let svc_state = self.scratch(&format!("{name}-automation"));
        let stub_url = stub_url.to_string();
        let stack = tokio::task::spawn_blocking(move || {
            let agent = AgentServer::start(&opts)?;
            let svc = AutomationService::start(&AutomationOptions::new(
                svc_python,
                free_port().map_err(|e| e.to_string())?,
                svc_state,
                &agent.url,
                &agent.session_api_key,
            ))?;
            Ok::<_, String>((agent, svc))
        })
        .await
        .expect("join")
        .unwrap_or_else(|e| panic!("automation stack: {e}"));
        // The runs' agent takes its LLM from the agent server's settings.
        AgentApi::new(&stack.0.url, &stack.0.session_api_key)
            .send(
                reqwest::Method::PATCH,
                "/api/settings",
                Some(json!({"agent_settings_diff": {"llm": {
                    "model": "openai/stub-model", "base_url": stub_url,
                    "api_key": "stub", "num_retries": 0}}})),
            )
            .await;
        Some(stack)
    }

    /// [`Env::automation_stack`] and the app served in front of it (the agent server as the
    /// backend, the service behind `/api/automation`): what every automations test starts from.
    /// Panics with how to get the service when it is missing.
    pub async fn automation_console(&self, name: &str, stub_url: &str) -> AutomationConsole {
        let (agent, svc) = self
            .automation_stack(name, stub_url)
            .await
            .expect("the automation service: run with `cargo xtask test`");
        let key = agent.session_api_key.clone();
        let mut config = canvas_serve::Config::new(&self.dist);
        config.agent_server_url = Some(agent.url.clone());
        config.automation_url = Some(svc.url.clone());
        config.session_api_key = Some(key.clone());
        let server = canvas_serve::start(config).await.expect("serve");
        AutomationConsole {
            agent,
            svc,
            server,
            key,
        }
    }

    /// The agent-server version pinned in `server/requirements.lock`.
    pub fn pinned_server_version() -> String {
        let lock = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../server/requirements.lock"),
        )
        .expect("read server/requirements.lock");
        lock.lines()
            .find_map(|l| l.trim().strip_prefix("openhands-agent-server=="))
            .expect("openhands-agent-server pin")
            .trim()
            .to_string()
    }
}

/// A fresh headless Chromium driven over WebDriver; dropping it kills chromedriver's whole
/// process group (the browser included).
pub struct Browser {
    pub client: Client,
    /// Where this browser saves downloads (its own folder).
    pub downloads: PathBuf,
    /// chromedriver's port (for commands fantoccini has no method for).
    driver_port: u16,
    _driver: Group,
}

/// Installed before the app's own scripts by [`Browser::record_requests`]: wraps `fetch` so
/// that every request is logged the moment the page makes it (`window.__e2eRequests`: method,
/// URL, the `X-Session-API-Key` it carries, and `status` once answered: `0` for a network
/// error, `null` while in flight). A `Request` passed in is read, never consumed.
const RECORD_REQUESTS: &str = r#"(() => {
  const log = [];
  Object.defineProperty(window, '__e2eRequests', { value: log });
  const original = window.fetch;
  window.fetch = function (input, init) {
    const req = input instanceof Request ? input : null;
    const headers = new Headers((init && init.headers) || (req ? req.headers : undefined));
    const entry = {
      method: (init && init.method) || (req ? req.method : 'GET'),
      url: req ? req.url : new URL(String(input), location.href).href,
      key: headers.get('X-Session-API-Key'),
      status: null,
    };
    log.push(entry);
    const answer = original.apply(this, arguments);
    answer.then(r => { entry.status = r.status; }, () => { entry.status = 0; });
    return answer;
  };
})();"#;

impl Browser {
    pub async fn start(env: &Env) -> Browser {
        let port = free_port().expect("free port");
        let profile = env.scratch("chrome-profile");
        let downloads = env.scratch("downloads");
        let mut cmd = Command::new(&env.chromedriver);
        cmd.arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let driver = Group::spawn("chromedriver", cmd).expect("start chromedriver");
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        tokio::task::spawn_blocking(move || {
            wait_until("chromedriver", Duration::from_secs(20), || {
                Ok(
                    std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200))
                        .ok()
                        .map(|_| ()),
                )
            })
        })
        .await
        .expect("join")
        .expect("chromedriver did not start");
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run", "--disable-quic",
                    "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.display()),
                ],
                // Desktop notifications allowed, as after a person said yes (issue #16's test).
                // Downloads land in this browser's own folder without asking (issue #15's
                // exports are read back from there).
                "prefs": {
                    "profile.default_content_setting_values.notifications": 1,
                    "download.default_directory": downloads.display().to_string(),
                    "download.prompt_for_download": false
                }
            }
        });
        let caps = match caps {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("WebDriver session");
        Browser {
            client,
            downloads,
            driver_port: port,
            _driver: driver,
        }
    }

    /// Waits (up to 30 s) until the download `name` is complete in [`Browser::downloads`]; its
    /// bytes.
    pub async fn wait_download(&self, name: &str) -> Vec<u8> {
        let path = self.downloads.join(name);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // Chromium writes `<name>.crdownload` and renames it when done.
            if let Ok(bytes) = std::fs::read(&path) {
                return bytes;
            }
            if Instant::now() >= deadline {
                let have: Vec<String> = std::fs::read_dir(&self.downloads)
                    .map(|d| {
                        d.flatten()
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                panic!("the download {name} did not arrive; the folder has {have:?}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Sends `keys` (text or one of the [`keys`] constants) to the focused element.
    pub async fn press(&self, keys: &str) {
        self.client
            .active_element()
            .await
            .expect("active element")
            .send_keys(keys)
            .await
            .expect("key");
    }

    pub async fn goto(&self, url: &str) {
        self.client.goto(url).await.expect("goto");
    }

    /// Runs `script` (a function body that `return`s a value).
    pub async fn js(&self, script: &str) -> Value {
        self.client
            .execute(script, vec![])
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Polls `script` until it returns something truthy; returns that value. Fails after
    /// `UI_TIMEOUT` with `what` and the page's visible text.
    pub async fn wait_js(&self, what: &str, script: &str) -> Value {
        self.wait_js_for(what, script, UI_TIMEOUT).await
    }

    /// [`Browser::wait_js`] with its own deadline (for conditions that wait on real work, e.g.
    /// an automation run).
    pub async fn wait_js_for(&self, what: &str, script: &str, timeout: Duration) -> Value {
        match self.poll_js(script, timeout).await {
            Some(v) => v,
            None => {
                let text = self.body_text().await;
                panic!("timed out waiting for {what}; page text:\n{text}");
            }
        }
    }

    /// Polls `script` every 100 ms until it returns something truthy (that value), or `None`
    /// at `timeout`.
    async fn poll_js(&self, script: &str, timeout: Duration) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let v = self
                .client
                .execute(script, vec![])
                .await
                .unwrap_or(Value::Null);
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::String(s) => !s.is_empty(),
                Value::Number(n) => n.as_f64() != Some(0.0),
                _ => true,
            };
            if truthy {
                return Some(v);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Stores one cloud backend (and selects it with `org`) in this page's storage, as a user
    /// who added it earlier would have it; call `goto` afterwards to start the app with it.
    pub async fn seed_cloud_backend(&self, id: &str, host: &str, key: &str, org: &str) {
        self.js(&format!(
            "localStorage.setItem('openhands-backends', JSON.stringify([
               {{id:{id}, name:'Cloud', host:{host}, apiKey:{key}, kind:'cloud'}}]));
             const sel = JSON.stringify({{backendId:{id}, orgId:{org}}});
             localStorage.setItem('openhands-active-backend', sel);
             sessionStorage.setItem('openhands-active-backend', sel);
             return true;",
            id = json!(id),
            host = json!(host),
            key = json!(key),
            org = json!(org),
        ))
        .await;
    }

    /// From the next page load on (a reload included), logs every `fetch` the page makes from
    /// its very start, before the app runs; read the log with [`Browser::requests`]. Lets a test
    /// say "no request of this kind was made up to this point" without waiting for time to
    /// pass.
    pub async fn record_requests(&self) {
        self.on_new_document(RECORD_REQUESTS).await;
    }

    /// Runs `source` in every document this browser loads from now on, before the page's own
    /// scripts (after a reload too).
    pub async fn on_new_document(&self, source: &str) {
        let session = self
            .client
            .session_id()
            .await
            .expect("session id")
            .expect("a WebDriver session");
        // chromedriver's route to the DevTools protocol (what Selenium's `execute_cdp_cmd` uses).
        let resp = reqwest::Client::new()
            .post(format!(
                "http://127.0.0.1:{}/session/{session}/goog/cdp/execute",
                self.driver_port
            ))
            .json(&json!({
                "cmd": "Page.addScriptToEvaluateOnNewDocument",
                "params": {"source": source},
            }))
            .send()
            .await
            .expect("chromedriver");
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        assert!(
            status.is_success(),
            "install a script for new documents: {status} {text}"
        );
    }

    /// The requests this page made so far (see [`Browser::record_requests`]), oldest first:
    /// `[{method, url, key, status}]`.
    pub async fn requests(&self) -> Vec<Value> {
        self.js(
            "return window.__e2eRequests ? JSON.parse(JSON.stringify(window.__e2eRequests)) : null",
        )
        .await
        .as_array()
        .cloned()
        .unwrap_or_else(|| {
            panic!("the request log is not installed (record_requests before loading the page)")
        })
    }

    /// Waits until `css` matches and the first match is what a person sees at its centre (not
    /// covered by something still moving into place; a select's option is picked as it is),
    /// then clicks it as a person would.
    pub async fn click(&self, css: &str) {
        self.wait_for(css).await;
        self.wait_js(
            &format!("{css} to be uncovered"),
            &format!(
                "const el = document.querySelector({});\
                 if (!el) return false;\
                 if (el.closest('select')) return true;\
                 el.scrollIntoView({{block: 'nearest', inline: 'nearest'}});\
                 const r = el.getBoundingClientRect();\
                 const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);\
                 return !!hit && (hit === el || el.contains(hit));",
                json!(css)
            ),
        )
        .await;
        self.client
            .find(fantoccini::Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {css}: {e}"));
    }

    /// Waits until `css` matches, clears that field and types `text` into it.
    pub async fn type_into(&self, css: &str, text: &str) {
        self.wait_for(css).await;
        let el = self
            .client
            .find(fantoccini::Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"));
        el.clear().await.expect("clear");
        el.send_keys(text).await.expect("type");
    }

    /// The visible text of the first match of `css` (`""` when none).
    pub async fn text_of(&self, css: &str) -> String {
        self.js_text(&format!(
            "const e = document.querySelector({}); return e ? e.innerText : '';",
            json!(css)
        ))
        .await
    }

    /// Runs `script` and reads its answer as text (`""` when it is not a string).
    pub(crate) async fn js_text(&self, script: &str) -> String {
        self.js(script)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub async fn body_text(&self) -> String {
        self.client
            .execute(
                "return document.body ? document.body.innerText : ''",
                vec![],
            )
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }

    /// Serves the app on the shared agent server, opens `path` (e.g. `/`) in a new browser and
    /// waits until the header says the backend is connected.
    pub async fn open_connected(env: &Env, path: &str) -> (canvas_serve::Running, Browser) {
        let server = canvas_serve::start(env.serve_config())
            .await
            .expect("serve");
        let b = Browser::start(env).await;
        b.goto(&format!("{}{path}", server.url())).await;
        b.wait_backend_status("connected").await;
        (server, b)
    }

    /// Serves the app on the shared agent server, opens conversation `id` in a new browser and
    /// waits until its live link is open.
    pub async fn open_conversation(env: &Env, id: &str) -> (canvas_serve::Running, Browser) {
        let server = canvas_serve::start(env.serve_config())
            .await
            .expect("serve");
        let b = Browser::start(env).await;
        b.goto(&format!("{}/conversations/{id}", server.url()))
            .await;
        b.wait_live_link().await;
        (server, b)
    }

    /// The keys of every row of the open conversation's timeline, oldest first, once it holds
    /// at least `at_least` rows (waiting up to `timeout` for them). The page keeps only a window of rows in the DOM
    /// (`canvas_core::conversations::live::window`), so this jumps to the newest rows and scrolls up
    /// window by window, joining each window to the next by the rows they share, until the
    /// oldest loaded row; it loads no older history. A row that arrives while it walks (e.g.
    /// one the server resends in the middle) makes it walk again.
    pub async fn timeline_keys(&self, at_least: usize, timeout: Duration) -> Vec<String> {
        for _ in 0..3 {
            if let Some(keys) = self.walk_timeline(at_least, timeout).await {
                return keys;
            }
        }
        panic!("the timeline kept changing while it was read window by window");
    }

    /// One walk of [`Browser::timeline_keys`]; `None` when the rows changed meanwhile.
    async fn walk_timeline(&self, at_least: usize, timeout: Duration) -> Option<Vec<String>> {
        // The rows in the DOM are `first..last` (a closed group's hidden rows among them).
        const WINDOW: &str = "const ol = document.querySelector('[data-testid=timeline]'); \
             if (!ol) return null; \
             const keys = [...ol.querySelectorAll('[data-testid=timeline-item]')].map(e => e.dataset.key); \
             const first = +ol.dataset.first, rows = +ol.dataset.rows, last = +ol.dataset.last; \
             if (first + keys.length !== last || last > rows) return null; \
             return [first, rows, keys];";
        let window_js = WINDOW;
        let read = |v: Value| -> (u64, u64, Vec<String>) {
            (
                v[0].as_u64().expect("first row"),
                v[1].as_u64().expect("rows"),
                serde_json::from_value(v[2].clone()).expect("keys"),
            )
        };
        // The newest rows first: "Jump to latest" when the reader is elsewhere.
        self.js("document.querySelector('[data-testid=jump-latest]')?.click(); return true;")
            .await;
        let (mut first, rows, mut keys) = read(
            self.wait_window(
                &format!("the newest rows of the timeline (at least {at_least})"),
                &format!(
                    "const o = document.querySelector('[data-testid=timeline]'); \
                     if (!o || +o.dataset.rows < {at_least} \
                       || document.querySelector('[data-testid=jump-latest]')) return null; {window_js}"
                ),
                timeout,
            )
            .await,
        );
        while first > 0 {
            self.js("document.querySelector('[data-testid=timeline-scroll]').scrollTop = 0; return true;")
                .await;
            let (older_first, older_rows, older) = read(
                self.wait_window(
                    "an older window of the timeline",
                    &format!(
                        "const o = document.querySelector('[data-testid=timeline]'); \
                         if (!o || +o.dataset.first === {first}) return null; {window_js}"
                    ),
                    UI_TIMEOUT,
                )
                .await,
            );
            if older_rows != rows {
                return None;
            }
            // The rows this window adds are those before the oldest row read so far.
            let shared = older.iter().position(|k| *k == keys[0])?;
            keys.splice(0..0, older[..shared].iter().cloned());
            first = older_first;
        }
        (keys.len() as u64 == rows).then_some(keys)
    }

    /// [`Browser::wait_js`] for a window of the timeline; on timeout, says what the window
    /// looked like (first row, rows, rows in the DOM, distinct keys, "Jump to latest").
    async fn wait_window(&self, what: &str, script: &str, timeout: Duration) -> Value {
        if let Some(v) = self.poll_js(script, timeout).await {
            return v;
        }
        let state = self
                    .js("const ol = document.querySelector('[data-testid=timeline]'); \
                         if (!ol) return 'no timeline'; \
                         const keys = [...ol.querySelectorAll('[data-testid=timeline-item]')].map(e => e.dataset.key); \
                         return {first: +ol.dataset.first, rows: +ol.dataset.rows, in_dom: keys.length, \
                           distinct: new Set(keys).size, \
                           jump: !!document.querySelector('[data-testid=jump-latest]'), \
                           scroll_top: document.querySelector('[data-testid=timeline-scroll]').scrollTop};")
                    .await;
        panic!("timed out waiting for {what}; the timeline: {state}");
    }

    /// Waits until the conversation page's live link is open.
    pub async fn wait_live_link(&self) {
        self.wait_js(
            "the live link",
            "return document.querySelector('[data-testid=link-status]')?.dataset.state === 'open'",
        )
        .await;
    }

    /// Waits until the `active-backend` hook reports `status` and returns its backend id.
    pub async fn wait_backend_status(&self, status: &str) -> String {
        let script = format!(
            "const e = document.querySelector('[data-testid=active-backend]'); \
             return e && e.dataset.status === '{status}' ? e.dataset.backendId : null;"
        );
        self.wait_js(&format!("active backend status {status}"), &script)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// A REST client for the agent server (to arrange data the way another client would).
pub struct AgentApi {
    pub url: String,
    pub key: String,
    http: reqwest::Client,
}

impl AgentApi {
    pub fn new(url: &str, key: &str) -> AgentApi {
        AgentApi {
            url: url.to_string(),
            key: key.to_string(),
            http: reqwest::Client::new(),
        }
    }

    /// `method path` with an optional JSON body; asserts a 2xx answer and returns its JSON.
    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.url))
            .header("X-Session-API-Key", &self.key);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("agent server request");
        let status = resp.status();
        let text = resp.text().await.unwrap_or_default();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// `method path` without a body and without asserting success: (status, JSON body or
    /// `Null`).
    pub async fn raw(&self, method: reqwest::Method, path: &str) -> (u16, Value) {
        let resp = self
            .http
            .request(method, format!("{}{path}", self.url))
            .header("X-Session-API-Key", &self.key)
            .send()
            .await
            .expect("agent server request");
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// `GET path` without asserting success: (status, JSON body or `Null`).
    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.raw(reqwest::Method::GET, path).await
    }

    /// Creates a conversation (not run) in `working_dir` and gives it `title`; returns its id.
    /// Its LLM answers nothing (a closed port); use [`AgentApi::create_on_stub`] to run it.
    pub async fn create_conversation(&self, working_dir: &str, title: &str) -> String {
        let id = self
            .create_on_stub(working_dir, "http://127.0.0.1:9/v1", json!({}))
            .await;
        self.send(
            reqwest::Method::PATCH,
            &format!("/api/conversations/{id}"),
            Some(json!({"title": title})),
        )
        .await;
        id
    }

    /// Creates a conversation (not run) in `working_dir` whose LLM is the stub at `llm_url`;
    /// `extra` adds fields to the request (e.g. a confirmation policy). Returns its id.
    pub async fn create_on_stub(&self, working_dir: &str, llm_url: &str, extra: Value) -> String {
        let mut body = json!({
            "workspace": {"working_dir": working_dir},
            "agent_settings": {"llm": {
                "model": "openai/stub-model", "base_url": llm_url,
                "api_key": "stub", "num_retries": 0
            }}
        });
        if let (Some(b), Value::Object(more)) = (body.as_object_mut(), extra) {
            b.extend(more);
        }
        let info = self
            .send(reqwest::Method::POST, "/api/conversations", Some(body))
            .await;
        info["id"].as_str().expect("conversation id").to_string()
    }

    /// Sends a user message and starts the run.
    pub async fn send_message(&self, id: &str, text: &str) {
        self.send(
            reqwest::Method::POST,
            &format!("/api/conversations/{id}/events"),
            Some(json!({"role": "user", "content": [{"type": "text", "text": text}], "run": true})),
        )
        .await;
    }

    /// A conversation on the stub at `llm_url` that ran one turn to its end, titled `title`
    /// (set after the run, once the server's own title from the stub is in). Its id.
    pub async fn finished_on_stub(&self, dir: &str, llm_url: &str, title: &str) -> String {
        let id = self.create_on_stub(dir, llm_url, json!({})).await;
        self.send_message(&id, "Do it").await;
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let (_, c) = self.get(&format!("/api/conversations/{id}")).await;
            if c["execution_status"] == "finished" {
                break;
            }
            assert!(Instant::now() < deadline, "the agent did not finish: {c}");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        // After the run: the server's own title (from the stub) must not replace ours.
        loop {
            self.send(
                reqwest::Method::PATCH,
                &format!("/api/conversations/{id}"),
                Some(json!({"title": title})),
            )
            .await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let (_, c) = self.get(&format!("/api/conversations/{id}")).await;
            if c["title"] == title {
                break;
            }
            assert!(Instant::now() < deadline, "title: {c}");
        }
        id
    }
}

/// The cloud stand-in on the shared agent server, allowing browser calls from `origin`.
pub async fn start_cloud_standin(
    env: &Env,
    name: &str,
    origin: &str,
    start: canvas_fixtures::cloud::StartBehavior,
) -> canvas_fixtures::cloud::CloudStandin {
    let mut opts = canvas_fixtures::cloud::CloudOptions::existing(
        env.agent_url.clone(),
        env.agent_key.clone(),
        env.scratch(name),
    );
    opts.cors_origins = vec![origin.to_string()];
    opts.start = start;
    canvas_fixtures::cloud::start(opts)
        .await
        .expect("cloud stand-in")
}

/// A cloud stand-in whose CORS origin is the app's, and the app served there with the cloud
/// proxy allowed to reach the stand-in's runtime. The app's port is chosen before the
/// stand-in starts (its CORS needs the origin), so another listener (e.g. the stand-in's own
/// LLM stub on an ephemeral port) may take it meanwhile: then both start again on a new port.
pub async fn start_cloud_with_app(
    env: &Env,
    name: &str,
    start: canvas_fixtures::cloud::StartBehavior,
) -> (canvas_fixtures::cloud::CloudStandin, canvas_serve::Running) {
    let mut last = String::new();
    for _ in 0..5 {
        let port = canvas_harness::free_port().expect("port");
        let origin = format!("http://127.0.0.1:{port}");
        let cloud = start_cloud_standin(env, name, &origin, start.clone()).await;
        match canvas_serve::start(env.cloud_proxy_serve_config(port, cloud.runtime_host())).await {
            Ok(server) => return (cloud, server),
            Err(e) => last = format!("{e:?}"),
        }
    }
    panic!("could not serve the app next to the cloud stand-in: {last}");
}

/// A conversation started through the cloud app API and READY (the stand-in started with
/// `Pacing::Immediate`); its app conversation id.
pub async fn ready_cloud_conversation(cloud_url: &str, key: &str) -> String {
    let task_id = start_cloud_task(cloud_url, key).await;
    let task = poll_start_task(cloud_url, key, &task_id).await;
    assert_eq!(task["status"], json!("READY"), "{task}");
    task["app_conversation_id"]
        .as_str()
        .expect("conversation id")
        .to_string()
}

/// Starts a conversation through the cloud app API (as another client would); the task id.
pub async fn start_cloud_task(cloud_url: &str, key: &str) -> String {
    start_cloud_task_in(cloud_url, key, None).await
}

/// [`start_cloud_task`] acting in `org` (`X-Org-Id`) when given.
pub async fn start_cloud_task_in(cloud_url: &str, key: &str, org: Option<&str>) -> String {
    let mut req = reqwest::Client::new()
        .post(format!("{cloud_url}/api/v1/app-conversations"))
        .bearer_auth(key);
    if let Some(org) = org {
        req = req.header("X-Org-Id", org);
    }
    let task: Value = req
        .json(&json!({}))
        .send()
        .await
        .expect("start")
        .json()
        .await
        .expect("task");
    task["id"].as_str().expect("task id").to_string()
}

/// Polls a start task once (each poll may advance it); the task as the cloud reports it.
pub async fn poll_start_task(cloud_url: &str, key: &str, task_id: &str) -> Value {
    poll_start_task_in(cloud_url, key, task_id, None).await
}

/// [`poll_start_task`] acting in `org` (`X-Org-Id`) when given.
pub async fn poll_start_task_in(
    cloud_url: &str,
    key: &str,
    task_id: &str,
    org: Option<&str>,
) -> Value {
    let mut req = reqwest::Client::new()
        .get(format!(
            "{cloud_url}/api/v1/app-conversations/start-tasks?ids={task_id}"
        ))
        .bearer_auth(key);
    if let Some(org) = org {
        req = req.header("X-Org-Id", org);
    }
    let tasks: Value = req
        .send()
        .await
        .expect("start-tasks")
        .json()
        .await
        .expect("tasks json");
    tasks[0].clone()
}

/// WebDriver key codes for [`Browser::press`].
pub mod keys {
    /// Enter.
    pub const ENTER: &str = "\u{E007}";
    /// Escape.
    pub const ESCAPE: &str = "\u{E00C}";
    /// Tab.
    pub const TAB: &str = "\u{E004}";
    /// Arrow up.
    pub const ARROW_UP: &str = "\u{E013}";
    /// Arrow down.
    pub const ARROW_DOWN: &str = "\u{E015}";
    /// Backspace.
    pub const BACKSPACE: &str = "\u{E003}";
    /// Shift (held for the rest of one [`Browser::press`](super::Browser::press)).
    pub const SHIFT: &str = "\u{E008}";
    /// Control (held for the rest of one [`Browser::press`](super::Browser::press)).
    pub const CONTROL: &str = "\u{E009}";
}
