//! Static hosting: MIME, caching, compression, SPA fallback, index.html injection, CSP, base path.

mod common;

use base64::Engine;
use canvas_serve::{start, AppFiles, Config, ServeError};
use common::*;
use sha2::{Digest, Sha256};

/// A config serving the files of `dist`: from the directory, or (`memory`) held in memory as the
/// `agent-canvas` binary serves the app built into it (issue #40). The tests below run both ways.
fn config_for(dist: &std::path::Path, memory: bool) -> Config {
    let mut config = Config::new(dist);
    if memory {
        config.app = AppFiles::Memory {
            files: std::sync::Arc::new(canvas_serve::read_dist(dist).expect("dist reads")),
            cache: None,
        };
    }
    config
}

async fn serve(config: Config) -> canvas_serve::Running {
    start(config).await.expect("server starts")
}

async fn get(url: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut rb = client().get(url);
    for (k, v) in headers {
        rb = rb.header(*k, *v);
    }
    rb.send().await.expect("request")
}

fn header<'a>(r: &'a reqwest::Response, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or("")
}

/// Inline `<script>` bodies (no `src`) of an HTML document, in order.
fn inline_scripts(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<script") {
        let tag_end = rest[i..].find('>').unwrap() + i + 1;
        let close = rest[tag_end..].find("</script>").unwrap() + tag_end;
        if !rest[i..tag_end].contains(" src=") {
            out.push(rest[tag_end..close].to_owned());
        }
        rest = &rest[close + "</script>".len()..];
    }
    out
}

fn csp_script_hashes(csp: &str) -> Vec<String> {
    let script_src = csp
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("script-src "))
        .expect("script-src");
    script_src
        .split_whitespace()
        .filter(|t| t.starts_with("'sha256-"))
        .map(str::to_owned)
        .collect()
}

fn sha256_source(body: &str) -> String {
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(body.as_bytes()))
    )
}

async fn mime_types_and_cache_headers_with(memory: bool) {
    let dist = make_dist();
    let srv = serve(config_for(dist.path(), memory)).await;
    let base = srv.url();

    let wasm = get(&format!("{base}/{}", wasm_name()), &[]).await;
    assert_eq!(wasm.status(), 200);
    assert_eq!(header(&wasm, "content-type"), "application/wasm");
    assert_eq!(
        header(&wasm, "cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert!(header(&wasm, "etag").starts_with('"'));
    assert_eq!(header(&wasm, "x-content-type-options"), "nosniff");
    assert_eq!(header(&wasm, "referrer-policy"), "no-referrer");
    assert!(wasm.headers().get("content-security-policy").is_none());
    assert_eq!(wasm.bytes().await.unwrap().as_ref(), wasm_body().as_slice());

    let js = get(&format!("{base}/{}", js_name()), &[]).await;
    assert!(header(&js, "content-type").starts_with("text/javascript"));
    assert_eq!(
        header(&js, "cache-control"),
        "public, max-age=31536000, immutable"
    );

    let css = get(&format!("{base}/{}", css_name()), &[]).await;
    assert!(header(&css, "content-type").starts_with("text/css"));

    let svg = get(&format!("{base}/assets/logo.svg"), &[]).await;
    assert_eq!(svg.status(), 200);
    assert_eq!(header(&svg, "content-type"), "image/svg+xml");
    assert_eq!(header(&svg, "cache-control"), "no-cache");

    let ico = get(&format!("{base}/favicon.ico"), &[]).await;
    assert_eq!(header(&ico, "content-type"), "image/x-icon");
    assert_eq!(header(&ico, "cache-control"), "no-cache");

    let index = get(&format!("{base}/"), &[]).await;
    assert_eq!(index.status(), 200);
    assert!(header(&index, "content-type").starts_with("text/html"));
    assert_eq!(
        header(&index, "cache-control"),
        "no-store",
        "it carries the key"
    );
    assert_eq!(header(&index, "x-content-type-options"), "nosniff");
    for r in [&index, &svg, &ico] {
        assert_eq!(header(r, "cross-origin-opener-policy"), "same-origin");
        assert_eq!(header(r, "cross-origin-resource-policy"), "same-origin");
    }

    // ETag revalidation.
    let etag = header(&wasm_etag(&base).await, "etag").to_owned();
    let again = get(
        &format!("{base}/{}", wasm_name()),
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(again.status(), 304);
    assert!(again.bytes().await.unwrap().is_empty());
}

async fn wasm_etag(base: &str) -> reqwest::Response {
    get(&format!("{base}/{}", wasm_name()), &[]).await
}

#[tokio::test]
async fn compression_round_trips() {
    let dist = make_dist();
    let srv = serve(Config::new(dist.path())).await;
    let base = srv.url();

    for (path, original) in [
        (wasm_name(), wasm_body()),
        (js_name(), js_body().into_bytes()),
        (css_name(), css_body().into_bytes()),
    ] {
        let url = format!("{base}/{path}");
        let br = get(&url, &[("accept-encoding", "gzip, deflate, br")]).await;
        assert_eq!(header(&br, "content-encoding"), "br", "{path}");
        assert_eq!(header(&br, "vary"), "Accept-Encoding");
        let br_etag = header(&br, "etag").to_owned();
        let br_body = br.bytes().await.unwrap();
        assert!(br_body.len() < original.len());
        assert_eq!(unbrotli(&br_body), original, "{path} br");

        let gz = get(&url, &[("accept-encoding", "gzip")]).await;
        assert_eq!(header(&gz, "content-encoding"), "gzip", "{path}");
        assert_ne!(
            header(&gz, "etag"),
            br_etag,
            "each encoding has its own ETag"
        );
        assert_eq!(gunzip(&gz.bytes().await.unwrap()), original, "{path} gzip");

        let plain = get(&url, &[("accept-encoding", "identity")]).await;
        assert!(plain.headers().get("content-encoding").is_none());
        assert_eq!(header(&plain, "vary"), "Accept-Encoding");
        assert_eq!(plain.bytes().await.unwrap().as_ref(), original.as_slice());

        let refused = get(&url, &[("accept-encoding", "br;q=0, gzip")]).await;
        assert_eq!(header(&refused, "content-encoding"), "gzip");
    }

    // index.html (after injection) compresses too.
    let index = get(&format!("{base}/"), &[("accept-encoding", "br")]).await;
    assert_eq!(header(&index, "content-encoding"), "br");
    let html = String::from_utf8(unbrotli(&index.bytes().await.unwrap())).unwrap();
    assert!(html.contains("<title>Agent Canvas</title>"));
}

/// The files of `dist/.compressed/`, sorted.
fn cached(dist: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dist.join(".compressed"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test]
async fn hashed_files_stay_compressed_between_starts_and_the_session_key_never_touches_disk() {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.session_api_key = Some("key-that-must-stay-in-memory".into());
    let first = serve(config.clone()).await;
    // The content-hashed files (wasm, js, css), each as br and gz; not index.html.
    let names = cached(dist.path());
    assert_eq!(names.len(), 6, "{names:?}");
    for name in &names {
        let bytes = std::fs::read(dist.path().join(".compressed").join(name)).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("key-that-must-stay-in-memory")
                && !String::from_utf8_lossy(&unbrotli_or_gunzip(name, &bytes))
                    .contains("key-that-must-stay-in-memory"),
            "{name} holds the session key"
        );
    }
    drop(first);

    // A second start serves what the cache holds: replace one entry with a different valid
    // encoding of the same bytes and it is served as is.
    let wasm_br = names
        .iter()
        .find(|n| {
            n.ends_with(".br")
                && unbrotli(&std::fs::read(dist.path().join(".compressed").join(n)).unwrap())
                    == wasm_body()
        })
        .expect("the wasm's brotli entry")
        .clone();
    let marker = {
        let mut out = Vec::new();
        let mut w = brotli::CompressorWriter::new(&mut out, 4096, 1, 22);
        std::io::Write::write_all(&mut w, &wasm_body()).unwrap();
        drop(w);
        out
    };
    std::fs::write(dist.path().join(".compressed").join(&wasm_br), &marker).unwrap();
    let second = serve(config.clone()).await;
    let br = get(
        &format!("{}/{}", second.url(), wasm_name()),
        &[("accept-encoding", "br")],
    )
    .await;
    assert_eq!(header(&br, "content-encoding"), "br");
    assert_eq!(br.bytes().await.unwrap().as_ref(), marker.as_slice());
    // The cache is not served, and older builds' entries go.
    let cache = get(&format!("{}/.compressed/{wasm_br}", second.url()), &[]).await;
    assert_ne!(cache.status(), 200);
    drop(second);
    std::fs::write(dist.path().join(".compressed").join("0000-v1.br"), b"old").unwrap();
    let _third = serve(config).await;
    assert!(!cached(dist.path()).contains(&"0000-v1.br".to_string()));
    assert_eq!(cached(dist.path()).len(), 6);
}

fn unbrotli_or_gunzip(name: &str, bytes: &[u8]) -> Vec<u8> {
    if name.ends_with(".br") {
        unbrotli(bytes)
    } else {
        gunzip(bytes)
    }
}

async fn spa_fallback_versus_404_with(memory: bool) {
    let dist = make_dist();
    let srv = serve(config_for(dist.path(), memory)).await;
    let base = srv.url();
    let index = get(&format!("{base}/"), &[]).await.text().await.unwrap();

    // A client route without an extension: index.html, 200.
    let route = get(&format!("{base}/conversations/abc-123"), &[]).await;
    assert_eq!(route.status(), 200);
    assert!(header(&route, "content-type").starts_with("text/html"));
    assert!(header(&route, "content-security-policy").contains("script-src"));
    assert_eq!(header(&route, "cache-control"), "no-store");
    assert_eq!(route.text().await.unwrap(), index);

    // A dotted route from a browser navigation (Accept: text/html): index.html.
    let nav = get(
        &format!("{base}/files/readme.md"),
        &[("accept", "text/html,application/xhtml+xml,*/*;q=0.8")],
    )
    .await;
    assert_eq!(nav.status(), 200);
    assert_eq!(nav.text().await.unwrap(), index);

    // A missing asset: 404, not the app.
    let missing = get(
        &format!("{base}/agent-canvas-ffffffffffffffff.js"),
        &[("accept", "*/*")],
    )
    .await;
    assert_eq!(missing.status(), 404);
    assert_eq!(header(&missing, "x-content-type-options"), "nosniff");
    assert_eq!(
        header(&missing, "cross-origin-resource-policy"),
        "same-origin"
    );

    // Without an agent server the ingress paths are not the app either.
    let api = get(
        &format!("{base}/api/conversations"),
        &[("accept", "text/html")],
    )
    .await;
    assert_eq!(api.status(), 404);
    let body: serde_json::Value = serde_json::from_slice(&api.bytes().await.unwrap()).unwrap();
    assert_eq!(body["detail"], "Not Found");

    // Other methods on static paths.
    let post = client().post(format!("{base}/")).send().await.unwrap();
    assert_eq!(post.status(), 405);

    // /index.html directly is the injected document too.
    let direct = get(&format!("{base}/index.html"), &[]).await;
    assert_eq!(direct.text().await.unwrap(), index);
}

async fn injection_is_escaped_and_first_in_head_with(memory: bool) {
    let dist = make_dist();
    let evil = "k</script><script>alert(1)</script><!--\u{2028}&\"'\\";
    let mut config = config_for(dist.path(), memory);
    config.session_api_key = Some(evil.to_owned());
    config.base_path = Some("/canvas".to_owned());
    let srv = serve(config).await;
    let html = get(&format!("{}/", srv.url()), &[])
        .await
        .text()
        .await
        .unwrap();

    // The launcher script is the first element of <head>.
    let head = html.find("<head>").unwrap() + "<head>".len();
    assert!(html[head..].starts_with("<script>window.__AGENT_CANVAS_SESSION_API_KEY__="));

    // Exactly the two original inline-script boundaries plus ours: nothing broke out.
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(!html.contains("<!--"));
    assert!(!html.contains('\u{2028}'));

    // Parse the assignments back: every value round-trips exactly.
    let scripts = inline_scripts(&html);
    assert_eq!(scripts.len(), 2);
    let ours = &scripts[0];
    let mut values = std::collections::HashMap::new();
    for stmt in ours.split(";window.") {
        let stmt = stmt.trim_start_matches("window.").trim_end_matches(';');
        let (name, json) = stmt.split_once('=').unwrap();
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        values.insert(name.to_owned(), value);
    }
    assert_eq!(values["__AGENT_CANVAS_SESSION_API_KEY__"], evil);
    assert_eq!(values["__AGENT_CANVAS_BASE_PATH__"], "/canvas");
    assert!(!values.contains_key("__AGENT_CANVAS_AUTH_REQUIRED__"));
    // Trunk's loader is still there, unchanged.
    assert_eq!(scripts[1], trunk_loader());

    // The locked cloud host (injected without the key) is escaped the same way.
    let mut locked = config_for(dist.path(), memory);
    locked.lock_to_cloud = Some("https://app.all-hands.dev/</script><!--".to_owned());
    let srv = serve(locked).await;
    let html = get(&format!("{}/", srv.url()), &[])
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(!html.contains("<!--"));
    let ours = &inline_scripts(&html)[0];
    let json = ours
        .strip_prefix("window.__AGENT_CANVAS_LOCK_TO_CLOUD__=")
        .and_then(|j| j.strip_suffix(';'))
        .unwrap_or_else(|| panic!("{ours}"));
    let value: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(value, "https://app.all-hands.dev/</script><!--");
}

async fn auth_required_withholds_the_key_with(memory: bool) {
    let dist = make_dist();
    let mut config = config_for(dist.path(), memory);
    config.session_api_key = Some("the-secret-key".to_owned());
    config.auth_required = true;
    let srv = serve(config).await;
    let html = get(&format!("{}/", srv.url()), &[])
        .await
        .text()
        .await
        .unwrap();
    assert!(!html.contains("the-secret-key"));
    assert!(html.contains("window.__AGENT_CANVAS_AUTH_REQUIRED__=true;"));
    assert!(!html.contains("__AGENT_CANVAS_SESSION_API_KEY__"));
}

async fn csp_lists_the_hash_of_every_inline_script_with(memory: bool) {
    let dist = make_dist();
    let mut config = config_for(dist.path(), memory);
    config.session_api_key = Some("key".to_owned());
    let srv = serve(config).await;
    let resp = get(&format!("{}/", srv.url()), &[]).await;
    let csp = header(&resp, "content-security-policy").to_owned();
    let html = resp.text().await.unwrap();

    for directive in [
        "default-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "font-src 'self'",
        "connect-src 'self' http: https: ws: wss:",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    assert!(csp.contains("script-src 'self' 'wasm-unsafe-eval' 'sha256-"));
    assert!(!csp.contains("unsafe-inline"));

    let scripts = inline_scripts(&html);
    assert_eq!(scripts.len(), 2, "injected + Trunk loader");
    let mut expected: Vec<String> = scripts.iter().map(|s| sha256_source(s)).collect();
    let mut listed = csp_script_hashes(&csp);
    expected.sort();
    listed.sort();
    assert_eq!(listed, expected);
}

async fn base_path_serving_and_redirect_with(memory: bool) {
    let dist = tempfile::tempdir().unwrap();
    // A Trunk build with a <base> tag (data-trunk-public-url) gets it rewritten.
    let index = index_html().replace("<title>", "<base data-trunk-public-url href=\"/\"/><title>");
    write_dist(dist.path(), &index);
    let mut config = config_for(dist.path(), memory);
    config.base_path = Some("/canvas/".to_owned());
    let srv = serve(config).await;
    let origin = format!("http://{}", srv.addr());
    assert_eq!(srv.url(), format!("{origin}/canvas"));

    let redirect = get(&format!("{origin}/canvas?backend=x"), &[]).await;
    assert!(redirect.status().is_redirection());
    assert_eq!(header(&redirect, "location"), "/canvas/?backend=x");

    let page = get(&format!("{origin}/canvas/"), &[]).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert_eq!(html.matches("<base ").count(), 1);
    assert!(html.contains("<base href=\"/canvas/\">"));
    assert!(html.contains("window.__AGENT_CANVAS_BASE_PATH__=\"/canvas\";"));

    let wasm = get(&format!("{origin}/canvas/{}", wasm_name()), &[]).await;
    assert_eq!(wasm.status(), 200);
    assert_eq!(header(&wasm, "content-type"), "application/wasm");

    let route = get(&format!("{origin}/canvas/conversations/1"), &[]).await;
    assert_eq!(route.status(), 200);
    assert!(route
        .text()
        .await
        .unwrap()
        .contains("<base href=\"/canvas/\">"));

    for outside in [
        "/",
        "/index.html",
        &format!("/{}", wasm_name()),
        "/canvasx/",
        "/other/x",
    ] {
        let r = get(&format!("{origin}{outside}"), &[("accept", "text/html")]).await;
        assert_eq!(r.status(), 404, "{outside}");
    }
}

#[tokio::test]
async fn base_tag_inserted_when_missing() {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.base_path = Some("/a/b".to_owned());
    let srv = serve(config).await;
    let html = get(&format!("{}/", srv.url()), &[])
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(html.matches("<base ").count(), 1);
    assert!(html.contains("<base href=\"/a/b/\">"));
}

#[tokio::test]
async fn port_in_use_names_the_port() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port();
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.port = port;
    let err = start(config).await.expect_err("port is taken");
    assert!(matches!(err, ServeError::PortInUse { port: p } if p == port));
    assert!(err.to_string().contains(&port.to_string()), "{err}");
}

#[tokio::test]
async fn missing_dist_or_index_is_a_dist_error() {
    let empty = tempfile::tempdir().unwrap();
    let err = start(Config::new(empty.path()))
        .await
        .expect_err("no index");
    assert!(matches!(err, ServeError::Dist { .. }), "{err}");
    let err = start(Config::new(empty.path().join("nope")))
        .await
        .expect_err("no dir");
    assert!(matches!(err, ServeError::Dist { .. }), "{err}");
    let mut bad = Config::new(empty.path());
    bad.base_path = Some("canvas".into());
    assert!(matches!(
        start(bad).await.expect_err("bad base"),
        ServeError::InvalidConfig(_)
    ));
}

#[tokio::test]
async fn shutdown_and_drop_release_the_port() {
    let dist = make_dist();
    let srv = serve(Config::new(dist.path())).await;
    let addr = srv.addr();
    srv.shutdown().await;
    assert!(client()
        .get(format!("http://{addr}/"))
        .send()
        .await
        .is_err());

    let srv = serve(Config::new(dist.path())).await;
    let addr = srv.addr();
    drop(srv);
    // The accept loop stops promptly after drop.
    let mut refused = false;
    for _ in 0..50 {
        if client()
            .get(format!("http://{addr}/"))
            .send()
            .await
            .is_err()
        {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(refused);
}

#[tokio::test]
async fn dns_rebinding_cannot_read_the_key() {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.session_api_key = Some("rebinding-target".into());
    let srv = serve(config).await;
    let url = format!("{}/", srv.url());

    let rebound = get(&url, &[("host", "evil.example:8080")]).await;
    assert_eq!(rebound.status(), 421);
    assert!(!rebound.text().await.unwrap().contains("rebinding-target"));

    for host in ["localhost", &format!("127.0.0.1:{}", srv.addr().port())] {
        let ok = get(&url, &[("host", host)]).await;
        assert_eq!(ok.status(), 200, "{host}");
        assert!(ok.text().await.unwrap().contains("rebinding-target"));
    }

    // Locked to a cloud host: the local key is not injected, so any Host is served.
    let mut locked = Config::new(dist.path());
    locked.session_api_key = Some("rebinding-target".into());
    locked.lock_to_cloud = Some("https://App.OpenHands.dev/".into());
    let srv_locked = serve(locked).await;
    let url_locked = format!("{}/", srv_locked.url());
    for host in ["app.openhands.dev", "evil.example"] {
        let r = get(&url_locked, &[("host", host)]).await;
        assert_eq!(r.status(), 200, "{host}");
        assert!(
            !r.text().await.unwrap().contains("rebinding-target"),
            "{host}"
        );
    }

    // Nothing to steal (public mode): any Host is served.
    let mut public = Config::new(dist.path());
    public.session_api_key = Some("rebinding-target".into());
    public.auth_required = true;
    let srv = serve(public).await;
    let any = get(&format!("{}/", srv.url()), &[("host", "canvas.example")]).await;
    assert_eq!(any.status(), 200);
}

async fn lock_to_cloud_injects_no_local_key_with(memory: bool) {
    let dist = make_dist();
    let mut config = config_for(dist.path(), memory);
    config.session_api_key = Some("local-session-key".into());
    config.lock_to_cloud = Some("https://app.all-hands.dev".into());
    let srv = serve(config).await;
    for path in ["/", "/index.html", "/conversations/abc"] {
        let html = get(&format!("{}{path}", srv.url()), &[])
            .await
            .text()
            .await
            .unwrap();
        assert!(
            html.contains("window.__AGENT_CANVAS_LOCK_TO_CLOUD__=\"https://app.all-hands.dev\";"),
            "{path}"
        );
        assert!(!html.contains("local-session-key"), "{path}: {html}");
        assert!(!html.contains("__AGENT_CANVAS_SESSION_API_KEY__"), "{path}");
    }
}

/// Sends `request` raw on a fresh connection and returns the whole answer.
async fn raw(addr: std::net::SocketAddr, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut out),
    )
    .await
    .expect("answer within 5 s")
    .expect("read");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn host_is_parsed_strictly_and_no_host_gets_no_key() {
    let dist = make_dist();
    let mut config = Config::new(dist.path());
    config.session_api_key = Some("strict-host-key".into());
    let srv = serve(config).await;
    let port = srv.addr().port();
    let close = "Connection: close\r\n";
    for (what, request) in [
        (
            "userinfo after a loopback port",
            format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}@evil.example\r\n{close}\r\n"),
        ),
        (
            "userinfo",
            format!("GET / HTTP/1.1\r\nHost: localhost@evil.example\r\n{close}\r\n"),
        ),
        (
            "port out of range",
            format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n{close}\r\n"),
        ),
        (
            "two Hosts",
            format!("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n{close}\r\n"),
        ),
        ("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n".to_owned()),
        (
            "HTTP/1.1 without Host",
            format!("GET /conversations/x HTTP/1.1\r\n{close}\r\n"),
        ),
    ] {
        let answer = raw(srv.addr(), &request).await;
        assert_eq!(answer.split(' ').nth(1), Some("400"), "{what}: {answer}");
        assert!(!answer.contains("strict-host-key"), "{what}: key served");
    }
    for request in [
        format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{close}\r\n"),
        "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n".to_owned(),
    ] {
        let answer = raw(srv.addr(), &request).await;
        assert_eq!(answer.split(' ').nth(1), Some("200"), "{request}: {answer}");
        assert!(answer.contains("strict-host-key"));
    }
}

/// The files a route's document preloads, in order.
fn preloads(html: &str) -> Vec<String> {
    html.lines()
        .filter(|l| l.contains("rel=\"preload\"") && l.contains("as=\"fetch\""))
        .map(|l| {
            let at = l.find("href=\"./").expect("a relative href") + "href=\"./".len();
            l[at..at + l[at..].find('"').unwrap()].to_string()
        })
        .collect()
}

#[tokio::test]
async fn each_route_document_preloads_the_lazy_parts_it_opens_with() {
    let dist = tempfile::tempdir().unwrap();
    write_dist(dist.path(), &index_html());
    for f in [
        "split_sidebar-1.wasm",
        "split_conversation-2.wasm",
        "split_settings-3.wasm",
        "chunk_shell-4.wasm",
        "chunk_9-5.wasm",
    ] {
        std::fs::write(dist.path().join(f), wasm_body()).unwrap();
    }
    std::fs::write(
        dist.path().join("chunks.json"),
        r#"{"sidebar": ["split_sidebar-1.wasm", "chunk_shell-4.wasm"],
            "conversation": ["split_conversation-2.wasm", "chunk_9-5.wasm", "chunk_shell-4.wasm"],
            "settings": ["split_settings-3.wasm", "chunk_shell-4.wasm"]}"#,
    )
    .unwrap();
    let mut config = Config::new(dist.path());
    config.session_api_key = Some("k-preload".into());
    let srv = serve(config).await;
    let html = |path: &'static str| {
        let url = format!("{}{path}", srv.url());
        async move {
            let r = get(&url, &[("accept", "text/html")]).await;
            assert_eq!(r.status(), 200, "{path}");
            assert_eq!(header(&r, "cache-control"), "no-store", "{path}");
            let csp = header(&r, "content-security-policy").to_owned();
            let body = r.text().await.unwrap();
            // The injection and the CSP's script hashes hold in every route's document.
            assert!(body.contains("k-preload"), "{path}");
            let mut want: Vec<String> = inline_scripts(&body)
                .iter()
                .map(|s| sha256_source(s))
                .collect();
            let mut listed = csp_script_hashes(&csp);
            want.sort();
            listed.sort();
            assert_eq!(listed, want, "{path}");
            preloads(&body)
        }
    };
    let shell = ["split_sidebar-1.wasm", "chunk_shell-4.wasm"];
    assert_eq!(html("/").await, shell);
    assert_eq!(html("/index.html").await, shell);
    assert_eq!(html("/conversations").await, shell);
    assert_eq!(
        html("/conversations/abc?backend=x").await,
        [
            "split_sidebar-1.wasm",
            "chunk_shell-4.wasm",
            "split_conversation-2.wasm",
            "chunk_9-5.wasm"
        ]
    );
    assert_eq!(
        html("/settings/llm").await,
        [
            "split_sidebar-1.wasm",
            "chunk_shell-4.wasm",
            "split_settings-3.wasm"
        ]
    );
    // A part the build does not list (no automations here) adds nothing.
    assert_eq!(html("/automations").await, shell);
}

#[tokio::test]
async fn a_chunk_list_that_names_missing_files_means_no_preloads() {
    let dist = tempfile::tempdir().unwrap();
    write_dist(dist.path(), &index_html());
    std::fs::write(
        dist.path().join("chunks.json"),
        r#"{"sidebar": ["split_sidebar-gone.wasm"]}"#,
    )
    .unwrap();
    let srv = serve(Config::new(dist.path())).await;
    let r = get(
        &format!("{}/conversations/abc", srv.url()),
        &[("accept", "text/html")],
    )
    .await;
    assert_eq!(r.status(), 200);
    assert!(preloads(&r.text().await.unwrap()).is_empty());
    // Nor does a build without the list (Trunk's).
    let plain = make_dist();
    let srv = serve(Config::new(plain.path())).await;
    let r = get(&format!("{}/", srv.url()), &[("accept", "text/html")]).await;
    assert!(preloads(&r.text().await.unwrap()).is_empty());
}

// Each test above, from a directory and from memory.

#[tokio::test]
async fn injection_is_escaped_and_first_in_head() {
    injection_is_escaped_and_first_in_head_with(false).await
}

#[tokio::test]
async fn injection_is_escaped_and_first_in_head_from_memory() {
    injection_is_escaped_and_first_in_head_with(true).await
}

#[tokio::test]
async fn auth_required_withholds_the_key() {
    auth_required_withholds_the_key_with(false).await
}

#[tokio::test]
async fn auth_required_withholds_the_key_from_memory() {
    auth_required_withholds_the_key_with(true).await
}

#[tokio::test]
async fn csp_lists_the_hash_of_every_inline_script() {
    csp_lists_the_hash_of_every_inline_script_with(false).await
}

#[tokio::test]
async fn csp_lists_the_hash_of_every_inline_script_from_memory() {
    csp_lists_the_hash_of_every_inline_script_with(true).await
}

#[tokio::test]
async fn base_path_serving_and_redirect() {
    base_path_serving_and_redirect_with(false).await
}

#[tokio::test]
async fn base_path_serving_and_redirect_from_memory() {
    base_path_serving_and_redirect_with(true).await
}

#[tokio::test]
async fn spa_fallback_versus_404() {
    spa_fallback_versus_404_with(false).await
}

#[tokio::test]
async fn spa_fallback_versus_404_from_memory() {
    spa_fallback_versus_404_with(true).await
}

#[tokio::test]
async fn lock_to_cloud_injects_no_local_key() {
    lock_to_cloud_injects_no_local_key_with(false).await
}

#[tokio::test]
async fn lock_to_cloud_injects_no_local_key_from_memory() {
    lock_to_cloud_injects_no_local_key_with(true).await
}

#[tokio::test]
async fn mime_types_and_cache_headers() {
    mime_types_and_cache_headers_with(false).await
}

#[tokio::test]
async fn mime_types_and_cache_headers_from_memory() {
    mime_types_and_cache_headers_with(true).await
}
