use super::*;
use crate::settings::mcp::Transport;

fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_catalogue_reads_with_every_entry() {
    let c = catalog();
    assert_eq!(c.source, "@openhands/extensions@0.19.0");
    assert_eq!(c.templates.len(), 18);
    assert!(c
        .templates
        .windows(2)
        .all(|w| w[0].popularity >= w[1].popularity));
    let monitor = c.get("github-repo-monitor").unwrap();
    assert_eq!(monitor.how, How::Prompt);
    assert_eq!(monitor.version.as_deref(), Some("1.0.0"));
    assert_eq!(monitor.trigger.as_deref(), Some("cron"));
    let names: Vec<_> = monitor.fields().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["schedule", "timezone", "ref", "repository", "triggerPhrase"]
    );
    assert_eq!(
        c.get("qa-changes").unwrap().trigger.as_deref(),
        Some("event")
    );
    // Scripts to pack, or a setup by conversation: with the agent.
    assert_eq!(c.get("news-digest").unwrap().how, How::WithAgent);
    assert_eq!(c.get("slack-channel-monitor").unwrap().how, How::WithAgent);
    assert_eq!(
        c.integration("github").secrets,
        ["GITHUB_PERSONAL_ACCESS_TOKEN"]
    );
    assert_eq!(c.integration("nowhere").name, "nowhere");
    assert!(c.search("").len() == 18);
    let found: Vec<_> = c
        .search("FORK upstream")
        .iter()
        .map(|t| t.id.as_str())
        .collect();
    assert_eq!(found, ["upstream-fork-sync"]);
    assert!(c
        .search("slack")
        .iter()
        .all(|t| t.requires.iter().any(|r| r.id == "slack")));
}

/// Upstream's worked examples (`tests/fixtures/automations/*.json` in the package, happy
/// path): the same form values give the same request body.
#[test]
fn the_request_body_is_upstreams_for_the_same_form() {
    let c = catalog();
    let monitor = c.get("github-repo-monitor").unwrap();
    let v = values(&[
        ("repository", "OpenHands/agent-server-gui"),
        ("triggerPhrase", "@openhands"),
        ("ref", "main"),
        ("schedule", "*/15 * * * *"),
        ("timezone", "UTC"),
    ]);
    assert_eq!(monitor.validate(&v), []);
    assert_eq!(
        monitor.create_body(&v),
        json!({"name": "GitHub repository monitor - OpenHands/agent-server-gui", "prompt": "Poll OpenHands/agent-server-gui for any new issue or pull request comments since the last run. For every comment mentioning '@openhands', read the surrounding issue or pull request context and post a helpful reply as a comment on the same thread.", "repos": [{"url": "OpenHands/agent-server-gui", "provider": "github", "ref": "main"}], "trigger": {"type": "cron", "schedule": "*/15 * * * *", "timezone": "UTC"}, "template": {"id": "github-repo-monitor", "version": "1.0.0", "config": {"repository": "OpenHands/agent-server-gui", "triggerPhrase": "@openhands", "ref": "main", "schedule": "*/15 * * * *", "timezone": "UTC"}}})
    );
    let sync = c.get("upstream-fork-sync").unwrap();
    let v = values(&[
        ("repository", "OpenHands/agent-server-gui"),
        ("upstreamRemote", ""),
        ("localChanges", "high-contrast UI theme"),
        ("verifyCommand", "make test"),
        ("schedule", "0 3 * * *"),
        ("timezone", "UTC"),
    ]);
    assert_eq!(
        sync.create_body(&v),
        json!({"name": "Upstream fork sync - OpenHands/agent-server-gui", "prompt": "Fetch the latest upstream changes for the fork OpenHands/agent-server-gui and rebase all local changes on top of upstream. Local changes to preserve: high-contrast UI theme. Check that the software works as intended; if it does, replace the current version, otherwise leave the running version untouched and report what failed.", "repos": [{"url": "OpenHands/agent-server-gui", "provider": "github"}], "trigger": {"type": "cron", "schedule": "0 3 * * *", "timezone": "UTC"}})
    );
    // An event entry: its trigger comes from the repository's provider and its filter.
    let qa = c.get("qa-changes").unwrap();
    let body = qa.create_body(&values(&[
        ("on", "pull_request.opened"),
        ("repository", "octo/hello"),
        ("ref", "main"),
    ]));
    assert_eq!(body["trigger"]["type"], "event");
    assert_eq!(body["trigger"]["source"], "github");
    assert_eq!(body["trigger"]["on"], "pull_request.opened");
    assert!(body["trigger"]["filter"]
        .as_str()
        .unwrap()
        .ends_with("glob(repository.full_name, 'octo/hello')"));
}

#[test]
fn the_form_says_what_is_wrong_by_field() {
    let monitor = catalog().get("github-repo-monitor").unwrap();
    let d = monitor.defaults("Europe/Berlin");
    assert_eq!(d["timezone"], "Europe/Berlin");
    assert_eq!(d["schedule"], "*/15 * * * *");
    assert_eq!(d["repository"], "");
    let fields = |v: &BTreeMap<String, String>| {
        monitor
            .validate(v)
            .into_iter()
            .map(|(f, t)| (f, t.english()))
            .collect::<Vec<_>>()
    };
    let errs = fields(&d);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].0, "repository");
    assert!(errs[0].1.contains("Repository"), "{errs:?}");
    let mut v = d.clone();
    v.insert("repository".into(), "not a repo".into());
    v.insert("triggerPhrase".into(), "x".into());
    v.insert("schedule".into(), "61 * * * *".into());
    let names: Vec<_> = fields(&v).into_iter().map(|(f, _)| f).collect();
    assert_eq!(names, ["schedule", "repository", "triggerPhrase"]);
    v.insert("schedule".into(), "0 * * * *".into());
    v.insert("repository".into(), "octo/hello".into());
    v.insert("triggerPhrase".into(), "y".repeat(51));
    assert_eq!(fields(&v)[0].0, "triggerPhrase");
    v.insert("triggerPhrase".into(), "@bot".into());
    assert_eq!(fields(&v), []);
    // A value that goes into a filter expression as a literal.
    let literal = Field {
        literal: true,
        ..monitor.args[0].clone()
    };
    let t = Template {
        args: vec![literal],
        trigger_fields: Vec::new(),
        ..monitor.clone()
    };
    assert_eq!(t.validate(&values(&[("ref", "it's")])).len(), 1);
}

fn server(name: &str, url: Option<&str>, enabled: bool) -> McpServer {
    McpServer {
        name: name.into(),
        transport: Transport::Http,
        command: None,
        args: Vec::new(),
        url: url.map(str::to_string),
        env_names: Vec::new(),
        header_names: Vec::new(),
        description: None,
        enabled,
    }
}

#[test]
fn an_integration_is_connected_by_its_secret_or_an_mcp_server() {
    let c = catalog();
    let monitor = c.get("github-repo-monitor").unwrap();
    let none = monitor.check(c, &Connected::default());
    assert_eq!(none.len(), 1);
    assert!(!none[0].connected && none[0].required);
    assert_eq!(none[0].name, "GitHub");
    assert_eq!(
        none[0].secret.as_deref(),
        Some("GITHUB_PERSONAL_ACCESS_TOKEN")
    );
    let by_secret = Connected {
        secrets: vec!["OTHER".into(), "GITHUB_PERSONAL_ACCESS_TOKEN".into()],
        mcp: Vec::new(),
    };
    assert!(monitor.check(c, &by_secret)[0].connected);
    let by_url = Connected {
        secrets: Vec::new(),
        mcp: vec![server(
            "gh",
            Some("https://api.githubcopilot.com/mcp"),
            true,
        )],
    };
    assert!(monitor.check(c, &by_url)[0].connected);
    let by_name = Connected {
        secrets: Vec::new(),
        mcp: vec![server("GitHub", None, true)],
    };
    assert!(monitor.check(c, &by_name)[0].connected);
    let switched_off = Connected {
        secrets: Vec::new(),
        mcp: vec![server("github", None, false)],
    };
    assert!(!monitor.check(c, &switched_off)[0].connected);
    // An optional integration (Notion) does not hold setup up.
    let incident = c.get("incident-retrospective-drafter").unwrap();
    let required: Vec<_> = incident
        .check(c, &Connected::default())
        .into_iter()
        .map(|x| (x.id, x.required))
        .collect();
    assert_eq!(
        required,
        [
            ("linear".to_string(), true),
            ("notion".to_string(), false),
            ("slack".to_string(), true)
        ]
    );
}

#[test]
fn placeholders_fill_from_the_form_and_unknown_ones_stay() {
    let ctx = json!({"form": {"a": "x", "list": ["p", "q"]}, "automation": {"name": "N"}});
    assert_eq!(fill("{{form.a}}-{{automation.name}}", &ctx), "x-N");
    assert_eq!(fill("{{form.list}}", &ctx), "p, q");
    assert_eq!(
        fill("{{form.missing}} {{oops", &ctx),
        "{{form.missing}} {{oops"
    );
    let with_agent = catalog()
        .get("news-digest")
        .unwrap()
        .agent_message()
        .english();
    assert!(
        with_agent.contains("News digest") || with_agent.contains("news"),
        "{with_agent}"
    );
}

/// What the local service's `GET /v1/capabilities` says (`openhands-automation` 1.26.0,
/// `capabilities_router.py`): no webhook, so no `webhookDelivery` and only cron triggers.
#[test]
fn a_template_the_service_cannot_run_says_what_it_lacks() {
    let body = json!({"ready": true, "triggerKinds": ["cron"], "eventSources": [], "eventTypes": [],
        "triggers": {"cron": {"minIntervalSeconds": 60, "timezones": ["UTC"]}},
        "features": ["agentProfiles", "automationDescription", "automationDrafts", "conversationDispatch",
                     "customTarball", "mcpTools", "presetPlugin", "presetPrompt", "repoClone", "repoUpdate"],
        "repoProviders": ["github"]})
    .to_string();
    let caps = crate::automation::model::decode_capabilities(200, body.as_bytes()).unwrap();
    let c = catalog();
    assert_eq!(
        c.get("github-repo-monitor").unwrap().unmet(&caps),
        Vec::<String>::new()
    );
    assert_eq!(
        c.get("qa-changes").unwrap().unmet(&caps),
        ["webhookDelivery", "event trigger"]
    );
    // A service that does not say: nothing is held against it.
    let silent = Capabilities::default();
    assert!(c.get("qa-changes").unwrap().unmet(&silent).is_empty());
}
