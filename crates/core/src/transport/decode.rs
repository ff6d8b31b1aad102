//! The decoding every answer shares: `(status, body bytes) → Result<T, ApiError>`.
//!
//! A non-2xx status becomes [`ApiError::from_status`] (with the server's `detail` text when the
//! body is FastAPI-style JSON); a 2xx body that is not what we expected becomes
//! [`ApiError::Decode`]. The decoders of each answer are in [`crate::client::decode`].

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ApiError;

/// Whether a status is 2xx.
pub fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// The human part of an error body: FastAPI's `{"detail": "…"}`, the `msg`s of a validation
/// error (`{"detail": [{"loc": [...], "msg": "…"}]}`), `{"message": "…"}`, the `exception` of
/// an agent server's internal error, else the text.
pub fn error_detail(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return text.trim().to_string();
    };
    // The agent server answers an unexpected failure with a bare "Internal Server Error" and
    // what went wrong in `exception` (a refused `git worktree add`, say): that is the reason.
    if v.get("detail").and_then(Value::as_str) == Some("Internal Server Error") {
        if let Some(e) = v.get("exception").and_then(Value::as_str) {
            return e.trim().to_string();
        }
    }
    match v
        .get("detail")
        .or_else(|| v.get("message"))
        .or_else(|| v.get("error"))
    {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                let msg = item
                    .get("msg")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| item.to_string());
                let loc = item
                    .get("loc")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .map(|p| match p {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            })
                            .collect::<Vec<_>>()
                            .join(".")
                    })
                    .filter(|l| !l.is_empty());
                match loc {
                    Some(loc) => format!("{loc}: {msg}"),
                    None => msg,
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
        _ => text.trim().to_string(),
    }
}

/// The error for a non-2xx answer.
pub fn status_error(status: u16, body: &[u8]) -> ApiError {
    ApiError::from_status(status, &error_detail(body))
}

pub(crate) fn check(status: u16, body: &[u8]) -> Result<(), ApiError> {
    if is_success(status) {
        Ok(())
    } else {
        Err(status_error(status, body))
    }
}

pub(crate) fn decode_error(e: impl std::fmt::Display) -> ApiError {
    ApiError::Decode(e.to_string())
}

/// Any JSON answer.
pub fn decode_json<T: DeserializeOwned>(status: u16, body: &[u8]) -> Result<T, ApiError> {
    check(status, body)?;
    serde_json::from_slice(body).map_err(decode_error)
}

/// Any 2xx answer, body ignored.
pub fn decode_unit(status: u16, body: &[u8]) -> Result<(), ApiError> {
    check(status, body)
}

/// The raw bytes of a 2xx answer (downloads).
pub fn decode_bytes(status: u16, body: &[u8]) -> Result<Vec<u8>, ApiError> {
    check(status, body)?;
    Ok(body.to_vec())
}

/// The text of a 2xx answer (lossy UTF-8).
pub fn decode_text(status: u16, body: &[u8]) -> Result<String, ApiError> {
    check(status, body)?;
    Ok(String::from_utf8_lossy(body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_reason_is_read_from_its_error_body() {
        for (body, want) in [
            (
                r#"{"detail": "Conversation not found"}"#,
                "Conversation not found",
            ),
            (
                r#"{"detail": [{"loc": ["body", "ref"], "msg": "bad"}]}"#,
                "body.ref: bad",
            ),
            (r#"{"message": " gone "}"#, "gone"),
            // The agent server's internal errors: the exception is the reason.
            (
                r#"{"detail": "Internal Server Error", "exception": "Git command failed: git worktree add -b o/1 /tmp/w no-such", "error_id": "e6"}"#,
                "Git command failed: git worktree add -b o/1 /tmp/w no-such",
            ),
            (
                r#"{"detail": "Internal Server Error"}"#,
                "Internal Server Error",
            ),
            ("plain words\n", "plain words"),
        ] {
            assert_eq!(error_detail(body.as_bytes()), want, "{body}");
        }
    }
}
