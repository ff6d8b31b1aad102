//! The automation templates' catalogue (issue #38 §2): upstream's own, the npm package
//! `@openhands/extensions` (MIT; pinned in package.json, installed by `npm ci`), kept in the
//! repository as `crates/core/src/automation/templates/catalog.json` so that building the app
//! needs no npm. `cargo xtask catalog` writes it; the checks layer fails when it differs from
//! what the pinned package gives.
//!
//! The file holds every automation entry's `manifest.json` as the package ships it (sorted by
//! id) and, for each integration an entry requires, what the setup checks it by: its name, the
//! secret its API-key connection stores its credential in, and its MCP servers' URLs.

use std::fs;
use std::path::Path;

use serde_json::{json, Map, Value};

/// Where the catalogue is kept.
pub const OUT: &str = "crates/core/src/automation/templates/catalog.json";
const PACKAGE: &str = "node_modules/@openhands/extensions";

fn read_json(path: &Path) -> Result<Value, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The catalogue as the installed package gives it.
pub fn generate(root: &Path) -> Result<String, String> {
    let pkg = root.join(PACKAGE);
    let version = read_json(&pkg.join("package.json"))?["version"]
        .as_str()
        .ok_or("@openhands/extensions: package.json has no version")?
        .to_string();
    let mut dirs: Vec<_> = fs::read_dir(pkg.join("automations/catalog"))
        .map_err(|e| format!("@openhands/extensions is not installed (npm ci): {e}"))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    dirs.sort();
    let mut automations = Vec::new();
    let mut needed = std::collections::BTreeSet::new();
    for dir in dirs {
        let m = read_json(&dir.join("manifest.json"))?;
        if let Some(Value::Object(ints)) = m.pointer("/requires/integrations") {
            needed.extend(ints.keys().cloned());
        }
        automations.push(m);
    }
    let mut integrations = Map::new();
    for id in needed {
        let i = read_json(&pkg.join(format!("integrations/catalog/{id}.json")))?;
        let options = i["connectionOptions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let mut secrets: Vec<Value> = Vec::new();
        let mut urls: Vec<Value> = Vec::new();
        for o in &options {
            if let Some(s) = o
                .pointer("/auth/credentialSecretName")
                .filter(|s| s.is_string())
            {
                if !secrets.contains(s) {
                    secrets.push(s.clone());
                }
            }
            if let Some(u) = o.pointer("/transport/url").filter(|u| u.is_string()) {
                if !urls.contains(u) {
                    urls.push(u.clone());
                }
            }
        }
        integrations.insert(
            id.clone(),
            json!({"name": i["name"], "secrets": secrets, "urls": urls}),
        );
    }
    let out = json!({
        "source": format!("@openhands/extensions@{version}"),
        "automations": automations,
        "integrations": integrations,
    });
    Ok(serde_json::to_string_pretty(&out).map_err(|e| e.to_string())? + "\n")
}

/// Writes [`OUT`] from the installed package.
pub fn write(root: &Path) -> Result<(), String> {
    let text = generate(root)?;
    fs::write(root.join(OUT), text).map_err(|e| format!("{OUT}: {e}"))
}

/// Whether [`OUT`] is what the installed package gives.
pub fn check(root: &Path) -> Result<(), String> {
    let want = generate(root)?;
    let have = fs::read_to_string(root.join(OUT)).unwrap_or_default();
    if have == want {
        Ok(())
    } else {
        Err(format!(
            "{OUT} differs from the pinned @openhands/extensions: run `cargo xtask catalog`"
        ))
    }
}
