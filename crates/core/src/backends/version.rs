//! The agent-server version gate (BR-9).

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

/// The oldest agent-server this app speaks to. THE one place this number lives.
pub const MINIMUM_AGENT_SERVER_VERSION: &str = "1.28.0";

/// A parsed version: `MAJOR.MINOR.PATCH[-PRERELEASE]` (build metadata dropped).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Version {
    /// Major.
    pub major: u64,
    /// Minor.
    pub minor: u64,
    /// Patch.
    pub patch: u64,
    /// Prerelease (`rc.1`), never empty; `None` for a release.
    pub pre: Option<String>,
}

/// Why a version string does not parse (BR-9).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionParseError {
    /// Nothing left after trimming / stripping.
    #[error("empty version")]
    Empty,
    /// The core is not exactly three non-negative integers.
    #[error("version core must be three non-negative integers: {0:?}")]
    BadCore(String),
    /// The prerelease is empty or has characters outside `[0-9A-Za-z.-]`.
    #[error("invalid prerelease: {0:?}")]
    BadPrerelease(String),
}

const fn parse_u64_const(bytes: &[u8], start: usize, end: usize) -> Option<u64> {
    if start >= end {
        return None;
    }
    let mut i = start;
    let mut n: u64 = 0;
    while i < end {
        let b = bytes[i];
        if !b.is_ascii_digit() {
            return None;
        }
        n = match n.checked_mul(10) {
            Some(x) => match x.checked_add((b - b'0') as u64) {
                Some(y) => y,
                None => return None,
            },
            None => return None,
        };
        i += 1;
    }
    Some(n)
}

/// Parse a plain `X.Y.Z` at compile time.
const fn parse_plain_const(s: &str) -> Option<(u64, u64, u64)> {
    let b = s.as_bytes();
    let mut dots = [0usize; 2];
    let mut count = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'.' {
            if count == 2 {
                return None;
            }
            dots[count] = i;
            count += 1;
        }
        i += 1;
    }
    if count != 2 {
        return None;
    }
    let major = match parse_u64_const(b, 0, dots[0]) {
        Some(n) => n,
        None => return None,
    };
    let minor = match parse_u64_const(b, dots[0] + 1, dots[1]) {
        Some(n) => n,
        None => return None,
    };
    let patch = match parse_u64_const(b, dots[1] + 1, b.len()) {
        Some(n) => n,
        None => return None,
    };
    Some((major, minor, patch))
}

/// [`MINIMUM_AGENT_SERVER_VERSION`], checked when compiling (a bad constant fails the build).
const MINIMUM_PARTS: (u64, u64, u64) = match parse_plain_const(MINIMUM_AGENT_SERVER_VERSION) {
    Some(v) => v,
    None => panic!("MINIMUM_AGENT_SERVER_VERSION must be X.Y.Z"),
};

/// The minimum version as a [`Version`].
pub fn minimum_version() -> Version {
    Version::new(MINIMUM_PARTS.0, MINIMUM_PARTS.1, MINIMUM_PARTS.2)
}

impl Version {
    /// A release version.
    pub const fn new(major: u64, minor: u64, patch: u64) -> Self {
        Self {
            major,
            minor,
            patch,
            pre: None,
        }
    }

    /// Parse per BR-9: trim; strip one leading `v`; drop `+build`; split one `-prerelease`
    /// (at the first `-`); the core must be exactly three non-negative integers (ASCII digits).
    pub fn parse(raw: &str) -> Result<Self, VersionParseError> {
        let s = raw.trim();
        let s = s.strip_prefix('v').unwrap_or(s);
        let s = match s.find('+') {
            Some(i) => &s[..i],
            None => s,
        };
        if s.is_empty() {
            return Err(VersionParseError::Empty);
        }
        let (core, pre) = match s.find('-') {
            Some(i) => (&s[..i], Some(&s[i + 1..])),
            None => (s, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        let nums: Option<Vec<u64>> = parts
            .iter()
            .map(|p| {
                if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                    p.parse::<u64>().ok()
                } else {
                    None
                }
            })
            .collect();
        let nums = match nums {
            Some(n) if n.len() == 3 => n,
            _ => return Err(VersionParseError::BadCore(core.to_string())),
        };
        let pre = match pre {
            None => None,
            Some(p)
                if !p.is_empty()
                    && p.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-') =>
            {
                Some(p.to_string())
            }
            Some(p) => return Err(VersionParseError::BadPrerelease(p.to_string())),
        };
        Ok(Self {
            major: nums[0],
            minor: nums[1],
            patch: nums[2],
            pre,
        })
    }
}

impl std::str::FromStr for Version {
    type Err = VersionParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some(pre) = &self.pre {
            write!(f, "-{pre}")?;
        }
        Ok(())
    }
}

/// SemVer precedence for prerelease identifiers: numeric identifiers compare numerically and
/// sort before alphanumeric ones; a shorter list of equal prefix sorts first.
fn compare_pre(a: &str, b: &str) -> Ordering {
    let mut ai = a.split('.');
    let mut bi = b.split('.');
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let xn = numeric(x);
                let yn = numeric(y);
                let ord = match (xn, yn) {
                    (Some(p), Some(q)) => p.cmp(&q).then_with(|| x.cmp(y)),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => x.cmp(y),
                };
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

fn numeric(s: &str) -> Option<u128> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        // Very long digit strings saturate; ties are then broken lexically.
        Some(s.parse::<u128>().unwrap_or(u128::MAX))
    } else {
        None
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (&self.pre, &other.pre) {
                (None, None) => Ordering::Equal,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(a), Some(b)) => compare_pre(a, b),
            })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub use crate::error::GateError;

/// Longest reported version string quoted back to the user.
const MAX_REPORTED_CHARS: usize = 64;

fn shorten(s: &str) -> String {
    if s.chars().count() > MAX_REPORTED_CHARS {
        let mut out: String = s.chars().take(MAX_REPORTED_CHARS).collect();
        out.push('…');
        out
    } else {
        s.to_string()
    }
}

/// The version string a `/server_info` body reports (BR-9): `version` (trimmed, non-empty),
/// else `sdk_version`; `unknown` (any case) and non-strings count as missing.
pub fn reported_version(server_info: &Value) -> Option<String> {
    let pick = |field: &str| -> Option<String> {
        let s = server_info.get(field)?.as_str()?.trim();
        if s.is_empty() || s.eq_ignore_ascii_case("unknown") {
            None
        } else {
            Some(s.to_string())
        }
    };
    pick("version").or_else(|| pick("sdk_version"))
}

/// The version gate (BR-9) over a `/server_info` JSON body.
pub fn gate(server_info: &Value) -> Result<Version, GateError> {
    let required = MINIMUM_AGENT_SERVER_VERSION.to_string();
    let Some(reported) = reported_version(server_info) else {
        return Err(GateError::UnknownVersion {
            required,
            reported: None,
        });
    };
    let Ok(version) = Version::parse(&reported) else {
        return Err(GateError::UnknownVersion {
            required,
            reported: Some(shorten(&reported)),
        });
    };
    if version < minimum_version() {
        return Err(GateError::UnsupportedVersion {
            required,
            reported: shorten(&reported),
        });
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn v(major: u64, minor: u64, patch: u64, pre: Option<&str>) -> Version {
        Version {
            major,
            minor,
            patch,
            pre: pre.map(str::to_string),
        }
    }

    #[test]
    fn br9_minimum_is_1_28_0() {
        assert_eq!(MINIMUM_AGENT_SERVER_VERSION, "1.28.0");
        assert_eq!(minimum_version(), Version::new(1, 28, 0));
        assert_eq!(
            Version::parse(MINIMUM_AGENT_SERVER_VERSION),
            Ok(minimum_version())
        );
    }

    #[test]
    fn br9_parse_table() {
        let cases: Vec<(&str, Option<Version>)> = vec![
            ("1.28.0", Some(v(1, 28, 0, None))),
            ("  1.28.0 ", Some(v(1, 28, 0, None))),
            ("v1.28.0", Some(v(1, 28, 0, None))),
            ("vv1.28.0", None),
            ("V1.28.0", None),
            ("1.28.0+build.5", Some(v(1, 28, 0, None))),
            ("1.28.0-rc.1", Some(v(1, 28, 0, Some("rc.1")))),
            ("1.28.0-rc-1", Some(v(1, 28, 0, Some("rc-1")))),
            ("v1.28.0-rc.1+abc", Some(v(1, 28, 0, Some("rc.1")))),
            ("1.28.0+abc-def", Some(v(1, 28, 0, None))),
            ("01.028.00", Some(v(1, 28, 0, None))),
            ("1.28.0-", None),
            ("1.28.0-rc 1", None),
            ("1.28", None),
            ("1.28.0.1", None),
            ("1..0", None),
            ("-1.28.0", None),
            ("1.-28.0", None),
            ("1.28.x", None),
            ("1.2 8.0", None),
            ("１.28.0", None),
            ("99999999999999999999.0.0", None),
            ("", None),
            ("v", None),
            ("+build", None),
        ];
        for (raw, want) in cases {
            assert_eq!(Version::parse(raw).ok(), want, "{raw:?}");
        }
    }

    #[test]
    fn br9_ordering_table() {
        let ordered = [
            "0.9.9",
            "1.27.99",
            "1.28.0-alpha",
            "1.28.0-alpha.1",
            "1.28.0-alpha.beta",
            "1.28.0-beta.2",
            "1.28.0-beta.11",
            "1.28.0-rc.1",
            "1.28.0",
            "1.28.1",
            "1.29.0",
            "2.0.0",
            "10.0.0",
        ];
        let parsed: Vec<Version> = ordered.iter().map(|s| Version::parse(s).unwrap()).collect();
        for w in parsed.windows(2) {
            assert!(w[0] < w[1], "{} < {}", w[0], w[1]);
        }
        assert_eq!(
            Version::parse("1.28.0+a")
                .unwrap()
                .cmp(&Version::parse("1.28.0+b").unwrap()),
            Ordering::Equal
        );
    }

    #[test]
    fn br9_reported_version_table() {
        let cases: Vec<(Value, Option<&str>)> = vec![
            (json!({"version": "1.30.0"}), Some("1.30.0")),
            (
                json!({"version": " 1.30.0 ", "sdk_version": "1.0.0"}),
                Some("1.30.0"),
            ),
            (
                json!({"version": "", "sdk_version": "1.29.0"}),
                Some("1.29.0"),
            ),
            (
                json!({"version": "  ", "sdk_version": "1.29.0"}),
                Some("1.29.0"),
            ),
            (
                json!({"version": "Unknown", "sdk_version": "1.29.0"}),
                Some("1.29.0"),
            ),
            (
                json!({"version": null, "sdk_version": "1.29.0"}),
                Some("1.29.0"),
            ),
            (
                json!({"version": 1.3, "sdk_version": "1.29.0"}),
                Some("1.29.0"),
            ),
            (json!({"sdk_version": "UNKNOWN"}), None),
            (json!({}), None),
            (json!("1.30.0"), None),
            (
                json!({"version": "garbage", "sdk_version": "1.29.0"}),
                Some("garbage"),
            ),
        ];
        for (info, want) in cases {
            assert_eq!(reported_version(&info).as_deref(), want, "{info}");
        }
    }

    #[test]
    fn br9_gate_table() {
        let unsupported = |r: &str| GateError::UnsupportedVersion {
            required: "1.28.0".into(),
            reported: r.into(),
        };
        let unknown = |r: Option<&str>| GateError::UnknownVersion {
            required: "1.28.0".into(),
            reported: r.map(str::to_string),
        };
        let cases: Vec<(Value, Result<Version, GateError>)> = vec![
            (json!({"version": "1.28.0"}), Ok(v(1, 28, 0, None))),
            (json!({"version": "v1.30.2+g1"}), Ok(v(1, 30, 2, None))),
            (json!({"sdk_version": "2.0.0"}), Ok(v(2, 0, 0, None))),
            (json!({"version": "1.27.9"}), Err(unsupported("1.27.9"))),
            (
                json!({"version": "1.28.0-rc.1"}),
                Err(unsupported("1.28.0-rc.1")),
            ),
            (json!({"version": "unknown"}), Err(unknown(None))),
            (json!({}), Err(unknown(None))),
            (json!(null), Err(unknown(None))),
            (json!({"version": "main"}), Err(unknown(Some("main")))),
            (json!({"version": "1.28"}), Err(unknown(Some("1.28")))),
        ];
        for (info, want) in cases {
            assert_eq!(gate(&info), want, "{info}");
        }
    }

    #[test]
    fn br9_messages_state_required_reported_and_what_to_do() {
        let m = gate(&json!({"version": "1.27.0"}))
            .unwrap_err()
            .user_message();
        assert!(
            m.contains("1.28.0") && m.contains("1.27.0") && m.contains("Upgrade"),
            "{m}"
        );
        let m = gate(&json!({"version": "main"}))
            .unwrap_err()
            .user_message();
        assert!(
            m.contains("1.28.0") && m.contains("\"main\"") && m.contains("upgrade"),
            "{m}"
        );
        let m = gate(&json!({})).unwrap_err().user_message();
        assert!(m.contains("1.28.0") && m.contains("did not report"), "{m}");
        let m = GateError::Unreachable {
            detail: "network error".into(),
        }
        .user_message();
        assert!(
            m.contains("network error") && m.contains("Manage backends"),
            "{m}"
        );
        assert!(GateError::NoBackendConfigured
            .user_message()
            .contains("Add a backend"));
    }

    #[test]
    fn br9_long_reported_version_is_shortened() {
        let long = "x".repeat(1000);
        match gate(&json!({ "version": long })) {
            Err(GateError::UnknownVersion {
                reported: Some(r), ..
            }) => assert_eq!(r.chars().count(), MAX_REPORTED_CHARS + 1),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn br9_badge_shows_parsed_version_or_nothing() {
        // The shell's badge is the version the gate passed (`Connected(version)`), printed.
        let badge = |info: Value| gate(&info).ok().map(|v| v.to_string());
        assert_eq!(
            badge(json!({"version": "v1.30.0+abc"})).as_deref(),
            Some("1.30.0")
        );
        assert_eq!(badge(json!({"version": "main"})), None);
        assert_eq!(badge(json!({})), None);
    }

    fn arb_version() -> impl Strategy<Value = Version> {
        (
            any::<u64>(),
            any::<u64>(),
            any::<u64>(),
            proptest::option::of("[0-9A-Za-z.-]{1,12}"),
        )
            .prop_map(|(major, minor, patch, pre)| Version {
                major,
                minor,
                patch,
                pre,
            })
    }

    proptest! {
        #[test]
        fn br9_parse_never_panics(s in any::<String>()) {
            let _ = Version::parse(&s);
            let _ = gate(&json!({ "version": s.clone() }));
            let _ = gate(&json!({ "sdk_version": s }));
        }

        #[test]
        fn br9_display_parse_round_trips(ver in arb_version()) {
            prop_assert_eq!(Version::parse(&ver.to_string()), Ok(ver.clone()));
            prop_assert_eq!(Version::parse(&format!("v{ver}+build.1")), Ok(ver));
        }

        #[test]
        fn br9_ordering_is_consistent(a in arb_version(), b in arb_version()) {
            prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
            prop_assert_eq!(a.cmp(&b) == Ordering::Equal, a == b);
        }
    }
}
