//! Event timestamps: `2026-11-05T10:07:50.123456` (no timezone), compared as parsed tuples.

use std::cmp::Ordering;

/// A parsed event timestamp. Ordering is chronological: `(date, time, fraction)`, with the
/// fraction normalised to nanoseconds so `…50.1` and `…50.100000` compare equal.
///
/// A trailing `Z` or `±hh:mm` offset is accepted and ignored: the agent server sends local
/// naive times, and an offset is never mixed into one conversation's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// Calendar year.
    pub year: i32,
    /// 1–12.
    pub month: u8,
    /// 1–31.
    pub day: u8,
    /// 0–23.
    pub hour: u8,
    /// 0–59.
    pub minute: u8,
    /// 0–60 (leap second tolerated).
    pub second: u8,
    /// Fraction of the second, in nanoseconds (digits past the ninth are dropped).
    pub nanos: u32,
}

impl Timestamp {
    /// Parse `YYYY-MM-DD[(T| )HH:MM[:SS[.fraction]]][Z|±hh[:mm]]`. `None` for anything else.
    pub fn parse(s: &str) -> Option<Timestamp> {
        let s = s.trim();
        let bytes = s.as_bytes();
        let mut p = Cursor { b: bytes, i: 0 };
        let year = p.digits(4, 6)?;
        p.expect(b'-')?;
        let month = p.digits(2, 2)?;
        p.expect(b'-')?;
        let day = p.digits(2, 2)?;
        let mut ts = Timestamp {
            year: i32::try_from(year).ok()?,
            month: u8::try_from(month).ok()?,
            day: u8::try_from(day).ok()?,
            hour: 0,
            minute: 0,
            second: 0,
            nanos: 0,
        };
        if !(1..=12).contains(&ts.month) || !(1..=31).contains(&ts.day) {
            return None;
        }
        if p.done() {
            return Some(ts);
        }
        match p.next()? {
            b'T' | b't' | b' ' => {}
            _ => return None,
        }
        ts.hour = u8::try_from(p.digits(2, 2)?).ok()?;
        p.expect(b':')?;
        ts.minute = u8::try_from(p.digits(2, 2)?).ok()?;
        if p.peek() == Some(b':') {
            p.i += 1;
            ts.second = u8::try_from(p.digits(2, 2)?).ok()?;
            if matches!(p.peek(), Some(b'.') | Some(b',')) {
                p.i += 1;
                let start = p.i;
                let mut nanos: u32 = 0;
                let mut n = 0;
                while let Some(c) = p.peek().filter(u8::is_ascii_digit) {
                    if n < 9 {
                        nanos = nanos * 10 + u32::from(c - b'0');
                        n += 1;
                    }
                    p.i += 1;
                }
                if p.i == start {
                    return None;
                }
                for _ in n..9 {
                    nanos *= 10;
                }
                ts.nanos = nanos;
            }
        }
        if ts.hour > 23 || ts.minute > 59 || ts.second > 60 {
            return None;
        }
        // Optional zone designator, ignored.
        match p.peek() {
            None => {}
            Some(b'Z') | Some(b'z') => p.i += 1,
            Some(b'+') | Some(b'-') => {
                p.i += 1;
                p.digits(2, 2)?;
                if p.peek() == Some(b':') {
                    p.i += 1;
                }
                if !p.done() {
                    p.digits(2, 2)?;
                }
            }
            Some(_) => return None,
        }
        p.done().then_some(ts)
    }

    fn tuple(&self) -> (i32, u8, u8, u8, u8, u8, u32) {
        (
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.nanos,
        )
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> Ordering {
        self.tuple().cmp(&other.tuple())
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }
    fn done(&self) -> bool {
        self.i >= self.b.len()
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }
    /// Between `min` and `max` ASCII digits.
    fn digits(&mut self, min: usize, max: usize) -> Option<u64> {
        let mut v: u64 = 0;
        let mut n = 0;
        while n < max {
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    v = v * 10 + u64::from(c - b'0');
                    self.i += 1;
                    n += 1;
                }
                _ => break,
            }
        }
        (n >= min).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap_or_else(|| panic!("should parse: {s}"))
    }

    #[test]
    fn parses_server_format_and_variants() {
        let t = ts("2026-11-05T10:07:50.123456");
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.minute, t.second, t.nanos),
            (2026, 11, 5, 10, 7, 50, 123_456_000)
        );
        assert_eq!(ts("2026-11-05T10:07:50"), ts("2026-11-05 10:07:50.000"));
        assert_eq!(
            ts("2026-11-05T10:07:50.1"),
            ts("2026-11-05T10:07:50.100000")
        );
        assert_eq!(ts("2026-11-05T10:07:50.123456789999").nanos, 123_456_789);
        assert_eq!(ts("2026-11-05T10:07:50Z"), ts("2026-11-05T10:07:50"));
        assert_eq!(ts("2026-11-05T10:07:50.5+00:00").nanos, 500_000_000);
        assert_eq!(ts("2026-11-05T10:07"), ts("2026-11-05T10:07:00"));
        assert_eq!(ts("2026-11-05"), ts("2026-11-05T00:00:00"));
    }

    #[test]
    fn orders_chronologically_not_lexically() {
        // Lexical comparison would get these wrong.
        assert!(ts("2026-11-05T10:07:50.9") > ts("2026-11-05T10:07:50.123456"));
        assert!(ts("2026-11-05T10:07:51") > ts("2026-11-05T10:07:50.999999"));
        assert!(ts("2026-11-05 10:07:50") < ts("2026-11-05T10:07:50.000001"));
        assert!(ts("2027-01-01T00:00:00") > ts("2026-12-31T23:59:59.999"));
        assert!(ts("10000-01-01T00:00:00") > ts("9999-12-31T23:59:59"));
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00",
            "2026-11-00T00:00:00",
            "2026-11-05T25:00:00",
            "2026-11-05T10:61:00",
            "2026-11-05T10:07:50.",
            "2026-11-05T10:07:50.12x",
            "2026-11-05X10:07:50",
            "2026/11/05",
            "26-11-05T10:07:50",
            "2026-11-05T10:07:50+",
            "2026-11-05T10:07:50 junk",
            "٢٠٢٦-11-05",
        ] {
            assert_eq!(Timestamp::parse(bad), None, "{bad:?}");
        }
    }
}
