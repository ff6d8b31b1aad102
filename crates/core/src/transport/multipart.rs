//! One file as a `multipart/form-data` body, built in core for requests whose transport cannot
//! build it: uploads to a cloud runtime go through the cloud proxy as bytes
//! (`ProxyBody::Bytes`).
//!
//! The boundary is deterministic but never occurs in the file: the first of
//! `AgentCanvasBoundary7f3a9c`, `…-1`, `…-2`, … that is not in the bytes. Since a delimiter
//! line starts with CR LF and the boundary has neither, no delimiter can then appear anywhere
//! but where it is written.

/// The boundary tried first.
const BOUNDARY: &str = "AgentCanvasBoundary7f3a9c";

/// The body's `Content-Type` (with its boundary) and bytes: one part named `field`, with
/// `filename` `file_name` and type `content_type`. `"`, CR and LF in the names are escaped as
/// `%22`, `%0D` and `%0A` (as browsers do).
pub fn multipart_body(
    field: &str,
    file_name: &str,
    content_type: &str,
    bytes: &[u8],
) -> (String, Vec<u8>) {
    let boundary = (0u64..)
        .map(|n| match n {
            0 => BOUNDARY.to_owned(),
            n => format!("{BOUNDARY}-{n}"),
        })
        .find(|b| !contains(bytes, b.as_bytes()))
        .unwrap_or_default();
    let head = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\n\
         Content-Type: {}\r\n\r\n",
        escape(field),
        escape(file_name),
        content_type.replace(['\r', '\n'], " ")
    );
    let tail = format!("\r\n--{boundary}--\r\n");
    let mut body = Vec::with_capacity(head.len() + bytes.len() + tail.len());
    body.extend_from_slice(head.as_bytes());
    body.extend_from_slice(bytes);
    body.extend_from_slice(tail.as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

fn escape(name: &str) -> String {
    name.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of a body, split at its delimiter: (part headers, part body).
    fn parse(content_type: &str, body: &[u8]) -> Vec<(String, Vec<u8>)> {
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .expect("content type");
        let delimiter = format!("\r\n--{boundary}");
        // The first delimiter has no CR LF before it.
        let mut rest = [b"\r\n".as_slice(), body].concat();
        let mut parts = Vec::new();
        loop {
            let at = rest
                .windows(delimiter.len())
                .position(|w| w == delimiter.as_bytes())
                .expect("delimiter");
            let opening = parts.is_empty() && at == 0;
            if !opening {
                let part = &rest[..at];
                let split = part.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
                parts.push((
                    String::from_utf8(part[..split].to_vec()).unwrap(),
                    part[split + 4..].to_vec(),
                ));
            }
            let after = &rest[at + delimiter.len()..];
            if after.starts_with(b"--") {
                assert_eq!(after, b"--\r\n", "nothing after the close delimiter");
                return parts;
            }
            assert!(after.starts_with(b"\r\n"));
            rest = after[2..].to_vec();
        }
    }

    #[test]
    fn one_part_round_trips() {
        let bytes: Vec<u8> = (0..=255u8).collect();
        let (ct, body) = multipart_body("file", "a.bin", "application/octet-stream", &bytes);
        assert_eq!(
            ct,
            "multipart/form-data; boundary=AgentCanvasBoundary7f3a9c"
        );
        let parts = parse(&ct, &body);
        assert_eq!(parts.len(), 1);
        assert_eq!(
            parts[0].0,
            "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n\
             Content-Type: application/octet-stream"
        );
        assert_eq!(parts[0].1, bytes);
        let (_, empty) = multipart_body("file", "e", "text/plain", b"");
        assert!(empty.ends_with(b"\r\n\r\n\r\n--AgentCanvasBoundary7f3a9c--\r\n"));
    }

    #[test]
    fn the_boundary_never_occurs_in_the_file() {
        // A file that holds the first boundaries (as a file about this code would).
        let mut bytes = b"x\r\n--AgentCanvasBoundary7f3a9c--\r\n".to_vec();
        bytes.extend_from_slice(b"AgentCanvasBoundary7f3a9c-1 AgentCanvasBoundary7f3a9c-2");
        let (ct, body) = multipart_body("file", "evil.txt", "text/plain", &bytes);
        assert_eq!(
            ct,
            "multipart/form-data; boundary=AgentCanvasBoundary7f3a9c-3"
        );
        let parts = parse(&ct, &body);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].1, bytes);
    }

    #[test]
    fn names_cannot_break_the_headers() {
        let (ct, body) = multipart_body(
            "fi\"le",
            "a\"b\r\nX-Evil: 1.txt",
            "text/plain\r\nX: y",
            b"z",
        );
        let parts = parse(&ct, &body);
        assert_eq!(
            parts[0].0,
            "Content-Disposition: form-data; name=\"fi%22le\"; \
             filename=\"a%22b%0D%0AX-Evil: 1.txt\"\r\nContent-Type: text/plain  X: y"
        );
    }
}
