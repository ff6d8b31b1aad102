//! Taking an automation elsewhere (issue #38 §4): its definition as a JSON file — name,
//! prompt, trigger, model, repositories, tags — that the import on any backend turns back into
//! the form (checked and named there before anything is created), and the service's own
//! tarball (`GET /v1/{id}/tarball`: the code a run executes).

use serde_json::{json, Value};

use crate::automation::history::file_stem;
use crate::automation::model::{Automation, AutomationDraft};
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::Text;

/// What the file says it is (an import refuses any other).
pub const FORMAT: &str = "agent-canvas.automation/1";

/// The automation as the export file's JSON (pretty, with a line end).
pub fn export_json(a: &Automation) -> String {
    let mut body = AutomationDraft::from_automation(a).create_body();
    body["format"] = json!(FORMAT);
    if !a.tags.is_empty() {
        body["tags"] = json!(a.tags);
    }
    let mut out = serde_json::to_string_pretty(&body).unwrap_or_default();
    out.push('\n');
    out
}

/// The export file's name: `<name>.automation.json`.
pub fn export_file_name(a: &Automation) -> String {
    format!("{}.automation.json", file_stem(a))
}

/// The tarball's file name: `<name>.tar`.
pub fn tarball_file_name(a: &Automation) -> String {
    format!("{}.tar", file_stem(a))
}

/// `GET /v1/{id}/tarball`: the archive's bytes as they came.
pub fn decode_tarball(status: u16, body: &[u8]) -> Result<Vec<u8>, ApiError> {
    crate::transport::decode::check(status, body)?;
    Ok(body.to_vec())
}

/// The most the service's uploads take (`uploads.py`: 1 MiB).
pub const MAX_CODE_BYTES: usize = 1024 * 1024;

/// An archive of code picked for import, checked before it is uploaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeFile {
    /// A name for the automation: the file's, without `.tar` / `.tar.gz` / `.tgz`.
    pub name: String,
    /// What it is sent as (`application/x-tar` or `application/gzip`).
    pub content_type: &'static str,
    /// The command to run it, where the archive makes it plain (blank: to be typed).
    pub entrypoint: String,
    /// `setup.sh` when the archive has one at its top.
    pub setup_script: String,
}

/// Checks a picked archive: a tar (or gzipped tar) of at most [`MAX_CODE_BYTES`]. A plain
/// tar's layout gives its command ([`CodeFile::read_layout`]); a gzipped one's is read once
/// the caller has unpacked it.
pub fn check_code(file_name: &str, bytes: &[u8]) -> Result<CodeFile, Text> {
    if bytes.len() > MAX_CODE_BYTES {
        return Err(text!("automation.import.code_too_big")
            .with("size", bytes.len().div_ceil(1024).to_string())
            .with("max", (MAX_CODE_BYTES / 1024).to_string()));
    }
    let gzip = bytes.starts_with(&[0x1f, 0x8b]);
    let tar = bytes.get(257..262) == Some(b"ustar".as_slice());
    if !gzip && !tar {
        return Err(text!("automation.import.not_code"));
    }
    let stem = [".tar.gz", ".tgz", ".tar"]
        .iter()
        .find_map(|ext| {
            let lower = file_name.to_ascii_lowercase();
            lower
                .ends_with(ext)
                .then(|| file_name[..file_name.len() - ext.len()].to_string())
        })
        .unwrap_or_else(|| file_name.to_string());
    let mut code = CodeFile {
        name: stem.trim().to_string(),
        content_type: if gzip { GZIP } else { "application/x-tar" },
        entrypoint: String::new(),
        setup_script: String::new(),
    };
    if tar {
        code.read_layout(bytes)?;
    }
    Ok(code)
}

/// How a gzipped archive is sent (unpacked by the caller to [`CodeFile::read_layout`]).
pub const GZIP: &str = "application/gzip";

impl CodeFile {
    /// The command and setup script, from the unpacked archive: laid out as the service's own
    /// (`main.py` beside `setup.sh`, which makes `.venv`), the service's command for it.
    /// Bytes that are no tar archive are refused.
    pub fn read_layout(&mut self, tar: &[u8]) -> Result<(), Text> {
        if tar.get(257..262) != Some(b"ustar".as_slice()) {
            return Err(text!("automation.import.not_code"));
        }
        let names = tar_names(tar);
        let has = |n: &str| names.iter().any(|m| m == n);
        self.setup_script = if has("setup.sh") { "setup.sh" } else { "" }.into();
        self.entrypoint = match (has("main.py"), has("setup.sh")) {
            (true, true) => ".venv/bin/python main.py",
            (true, false) => "python3 main.py",
            _ => "",
        }
        .into();
        Ok(())
    }
}

/// The paths in a tar archive (ustar: `prefix/name`), without a leading `./`. Stops at the
/// end marker or at the first header that does not read.
fn tar_names(bytes: &[u8]) -> Vec<String> {
    fn field(h: &[u8]) -> String {
        let end = h.iter().position(|&b| b == 0).unwrap_or(h.len());
        String::from_utf8_lossy(&h[..end]).into_owned()
    }
    let mut names = Vec::new();
    let mut at = 0usize;
    while let Some(h) = bytes.get(at..at + 512) {
        if h.iter().all(|&b| b == 0) {
            break;
        }
        let size = field(&h[124..136]);
        let Ok(size) = usize::from_str_radix(size.trim(), 8) else {
            break;
        };
        let (prefix, name) = (field(&h[345..500]), field(&h[..100]));
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        names.push(path.trim_start_matches("./").to_string());
        at += 512 + size.div_ceil(512) * 512;
    }
    names
}

/// `POST /v1/uploads`: the uploaded archive's path on the service (`oh-internal://uploads/…`),
/// once it is kept (`COMPLETED`); an upload it could not keep is an error with its reason.
pub fn decode_upload(status: u16, body: &[u8]) -> Result<String, ApiError> {
    let v: Value = crate::transport::decode::decode_json(status, body)?;
    let said = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
    match (said("status"), said("tarball_path")) {
        ("COMPLETED", path) if !path.is_empty() => Ok(path.to_string()),
        (state, _) => Err(ApiError::Decode(format!(
            "the upload is {state}: {}",
            said("error_message")
        ))),
    }
}

/// An export file read back: the form's fields and the tags to set after creating it.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The form, filled in.
    pub form: AutomationDraft,
    /// Tags to set once it exists (the create call takes none).
    pub tags: Vec<String>,
}

/// Reads an export file; what is wrong with it in words.
pub fn import_json(text: &str) -> Result<Imported, Text> {
    let v: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| text!("automation.import.not_json").with("detail", e.to_string()))?;
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(text!("automation.import.not_ours").with("format", FORMAT));
    }
    let kind = v.pointer("/trigger/type").and_then(Value::as_str);
    if !matches!(kind, Some("cron" | "event")) || v.get("prompt").and_then(Value::as_str).is_none()
    {
        return Err(text!("automation.import.incomplete"));
    }
    let form = AutomationDraft::from_create_body(&v)
        .ok_or_else(|| text!("automation.import.incomplete"))?;
    let tags = v
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    Ok(Imported { form, tags })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automation::model::decode_automation;

    fn automation(trigger: &str, tags: &str) -> Automation {
        let body = format!(
            r#"{{"id":"a1","name":"Big orders!","prompt":"Summarise the order","model":"fast",
               "trigger":{trigger},"state":"INACTIVE","tags":{tags},
               "preset_metadata":{{"repos":["acme/shop"]}}}}"#
        );
        decode_automation(200, body.as_bytes()).unwrap()
    }

    #[test]
    fn an_export_reads_back_as_the_same_automation() {
        for trigger in [
            r#"{"type":"cron","schedule":"30 8 * * 1-5","timezone":"Europe/Berlin"}"#,
            r#"{"type":"event","source":"orders","on":["order.created","order.paid"],"filter":"amount > `100`"}"#,
        ] {
            let a = automation(trigger, r#"["sales-team"]"#);
            let file = export_json(&a);
            let v: Value = serde_json::from_str(&file).unwrap();
            assert_eq!(v["format"], json!(FORMAT));
            let back = import_json(&file).unwrap();
            assert_eq!(back.form, AutomationDraft::from_automation(&a));
            assert_eq!(back.tags, ["sales-team"]);
            assert!(!back.form.active, "paused stays paused");
            assert_eq!(
                crate::automation::model::tags_patch(&back.tags),
                json!({"tags": ["sales-team"]})
            );
        }
        assert_eq!(
            export_file_name(&automation("{}", "[]")),
            "Big-orders.automation.json"
        );
        assert_eq!(tarball_file_name(&automation("{}", "[]")), "Big-orders.tar");
    }

    const INCOMPLETE: &str =
        "The file lacks the automation's prompt, or a schedule or event trigger.";

    #[test]
    fn a_file_that_is_not_an_export_says_why() {
        let said = |r: Result<Imported, Text>| r.unwrap_err().english();
        assert!(said(import_json("{")).starts_with("The file could not be read as JSON: "));
        assert!(said(import_json(r#"{"name":"x"}"#)).contains(FORMAT));
        assert_eq!(
            said(import_json(&format!(
                r#"{{"format":"{FORMAT}","name":"x","trigger":{{"type":"webhook"}},"prompt":"p"}}"#
            ))),
            INCOMPLETE
        );
        assert_eq!(
            said(import_json(&format!(
                r#"{{"format":"{FORMAT}","name":"x","trigger":{{"type":"cron"}}}}"#
            ))),
            INCOMPLETE
        );
    }

    #[test]
    fn the_tarball_comes_as_it_is() {
        assert_eq!(
            decode_tarball(200, b"ustar\0bytes").unwrap(),
            b"ustar\0bytes"
        );
        assert!(decode_tarball(404, br#"{"detail":"Tarball not found"}"#).is_err());
    }

    /// A tar archive of `files` (ustar headers; the checksum is not read here).
    fn tar(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, body) in files {
            let mut h = [0u8; 512];
            h[..name.len()].copy_from_slice(name.as_bytes());
            let size = format!("{:011o}\0", body.len());
            h[124..136].copy_from_slice(size.as_bytes());
            h[156] = b'0';
            h[257..263].copy_from_slice(b"ustar\0");
            out.extend_from_slice(&h);
            out.extend_from_slice(body);
            out.resize(out.len().div_ceil(512) * 512, 0);
        }
        out.resize(out.len() + 1024, 0);
        out
    }

    #[test]
    fn an_archive_laid_out_as_the_services_own_gets_its_command() {
        let bytes = tar(&[
            ("./main.py", b"print('hi')\n".as_slice()),
            ("./prompt.txt", b"Say hello".as_slice()),
            ("./setup.sh", b"python3 -m venv .venv\n".as_slice()),
        ]);
        assert_eq!(
            tar_names(&bytes),
            ["main.py", "prompt.txt", "setup.sh"],
            "the sizes are followed from header to header"
        );
        let code = check_code("Nightly build.tar", &bytes).unwrap();
        assert_eq!(
            code,
            CodeFile {
                name: "Nightly build".into(),
                content_type: "application/x-tar",
                entrypoint: ".venv/bin/python main.py".into(),
                setup_script: "setup.sh".into(),
            }
        );
        let plain = check_code("job.TAR", &tar(&[("main.py", b"x".as_slice())])).unwrap();
        assert_eq!(
            (plain.name.as_str(), plain.entrypoint.as_str()),
            ("job", "python3 main.py")
        );
        assert_eq!(plain.setup_script, "");
        let other = check_code("x.tar", &tar(&[("run.sh", b"x".as_slice())])).unwrap();
        assert_eq!(other.entrypoint, "", "nothing to guess: the form asks");
        let gz = check_code("code.tar.gz", &[0x1f, 0x8b, 8, 0, 0, 0]).unwrap();
        assert_eq!(
            (gz.name.as_str(), gz.content_type),
            ("code", "application/gzip")
        );
    }

    #[test]
    fn what_is_not_an_archive_or_too_big_is_refused_in_words() {
        let said = |r: Result<CodeFile, Text>| r.unwrap_err().english();
        assert_eq!(
            said(check_code("notes.tar", b"these are notes")),
            "This file is neither an automation exported as JSON nor an archive of code (.tar or .tar.gz)."
        );
        let big = vec![0x1f; MAX_CODE_BYTES + 1];
        assert_eq!(
            said(check_code("big.tgz", &big)),
            "The archive is 1025 KB; the automation service takes at most 1024 KB."
        );
    }

    #[test]
    fn an_upload_is_its_path_once_the_service_keeps_it() {
        let done = br#"{"id":"u1","status":"COMPLETED","tarball_path":"oh-internal://uploads/u1","error_message":null}"#;
        assert_eq!(
            decode_upload(201, done).unwrap(),
            "oh-internal://uploads/u1"
        );
        let failed = br#"{"id":"u2","status":"FAILED","tarball_path":null,"error_message":"Upload exceeds 1048576 bytes"}"#;
        let e = decode_upload(201, failed).unwrap_err().to_string();
        assert!(e.contains("FAILED") && e.contains("exceeds"), "{e}");
        assert!(matches!(
            decode_upload(415, br#"{"detail":"Unsupported Media Type"}"#),
            Err(ApiError::Server { status: 415, .. })
        ));
    }
}
