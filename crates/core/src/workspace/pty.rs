//! The screen of an interactive terminal (issue #39 §4): the bytes a PTY sends, read the way a
//! terminal reads them (the `vt100` crate: cursor moves, colours, clearing, the alternate
//! screen), turned into lines of styled spans for the page; and the keys the page sends back.
//! Backend-neutral: [`crate::omnigent::terminal`] says where the bytes come from.

use std::num::NonZeroU16;

/// Lines kept above the screen.
pub const SCROLLBACK: usize = 1000;
/// The smallest and largest sizes asked of the PTY.
pub const MIN_COLS: u16 = 20;
/// See [`MIN_COLS`].
pub const MAX_COLS: u16 = 400;
/// See [`MIN_COLS`].
pub const MIN_ROWS: u16 = 5;
/// See [`MIN_COLS`].
pub const MAX_ROWS: u16 = 200;

/// A run of cells drawn alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The characters.
    pub text: String,
    /// `t-fg-N` / `t-bg-N` (the 16 theme colours), `t-bold`, `t-italic`, `t-under`, `t-dim`,
    /// `t-cursor`, space-separated (empty: the default look).
    pub class: String,
    /// `color:#rrggbb;background:#rrggbb` for the colours beyond the 16.
    pub style: String,
}

/// A terminal screen fed with a PTY's bytes.
pub struct Screen {
    parser: vt100::Parser,
}

fn size(n: u16, min: u16, max: u16) -> NonZeroU16 {
    NonZeroU16::new(n.clamp(min, max)).unwrap_or(NonZeroU16::MIN)
}

impl Screen {
    /// An empty screen of `rows` × `cols` (clamped to the limits above).
    pub fn new(rows: u16, cols: u16) -> Self {
        Self {
            parser: vt100::Parser::new(
                size(rows, MIN_ROWS, MAX_ROWS),
                size(cols, MIN_COLS, MAX_COLS),
                SCROLLBACK,
            ),
        }
    }

    /// Reads what the PTY sent.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
    }

    /// Changes the size (clamped); `true` when it changed.
    pub fn resize(&mut self, rows: u16, cols: u16) -> bool {
        let (r, c) = (
            size(rows, MIN_ROWS, MAX_ROWS),
            size(cols, MIN_COLS, MAX_COLS),
        );
        if self.parser.screen().size() == (r, c) {
            return false;
        }
        self.parser.set_size(r, c);
        true
    }

    /// `(rows, cols)`.
    pub fn size(&self) -> (u16, u16) {
        let (r, c) = self.parser.screen().size();
        (r.get(), c.get())
    }

    /// The text on the screen, a line per row, trailing blanks dropped.
    pub fn text(&self) -> String {
        self.parser.screen().contents()
    }

    /// Whether the arrows send their application-mode codes (`ESC O A`).
    pub fn application_cursor(&self) -> bool {
        self.parser.screen().application_cursor()
    }

    /// Whether a paste is wrapped in bracketed-paste marks.
    pub fn bracketed_paste(&self) -> bool {
        self.parser.screen().bracketed_paste()
    }

    /// Each row as spans of cells drawn alike; the cursor's cell (when shown) is a span of
    /// its own with `t-cursor`. Blank cells after the last drawn one are left out.
    pub fn lines(&self) -> Vec<Vec<Span>> {
        let screen = self.parser.screen();
        let (rows, cols) = self.size();
        let cursor = (!screen.hide_cursor()).then(|| screen.cursor_position());
        (0..rows)
            .map(|row| {
                let mut spans: Vec<Span> = Vec::new();
                // The last column worth drawing: a character, a background, or the cursor.
                let last = (0..cols).rev().find(|&col| {
                    cursor == Some((row, col))
                        || screen.cell(row, col).is_some_and(|c| {
                            c.has_contents() || c.bgcolor() != vt100::Color::Default || c.inverse()
                        })
                });
                let Some(last) = last else {
                    return spans;
                };
                for col in 0..=last {
                    let Some(cell) = screen.cell(row, col) else {
                        continue;
                    };
                    if cell.is_wide_continuation() {
                        continue;
                    }
                    let (class, style) = look(cell, cursor == Some((row, col)));
                    let text = if cell.has_contents() {
                        cell.contents()
                    } else {
                        " "
                    };
                    match spans.last_mut() {
                        Some(s)
                            if s.class == class
                                && s.style == style
                                && !class.contains("t-cursor") =>
                        {
                            s.text.push_str(text)
                        }
                        _ => spans.push(Span {
                            text: text.to_string(),
                            class,
                            style,
                        }),
                    }
                }
                spans
            })
            .collect()
    }
}

/// The class and style of one cell.
fn look(cell: &vt100::Cell, cursor: bool) -> (String, String) {
    let (mut fg, mut bg) = (cell.fgcolor(), cell.bgcolor());
    if cell.inverse() != cursor {
        // Inverse video (and the cursor's block) swap the colours; a default one becomes the
        // theme's opposite.
        std::mem::swap(&mut fg, &mut bg);
    }
    let mut class: Vec<String> = Vec::new();
    let mut style = String::new();
    let inverted = cell.inverse() != cursor;
    colour(
        fg,
        "fg",
        "color",
        inverted.then_some("t-fg-bg"),
        &mut class,
        &mut style,
    );
    colour(
        bg,
        "bg",
        "background",
        inverted.then_some("t-bg-fg"),
        &mut class,
        &mut style,
    );
    for (on, name) in [
        (cell.bold(), "t-bold"),
        (cell.dim(), "t-dim"),
        (cell.italic(), "t-italic"),
        (cell.underline(), "t-under"),
        (cursor, "t-cursor"),
    ] {
        if on {
            class.push(name.to_string());
        }
    }
    (class.join(" "), style)
}

fn colour(
    c: vt100::Color,
    which: &str,
    property: &str,
    swapped_default: Option<&str>,
    class: &mut Vec<String>,
    style: &mut String,
) {
    match c {
        vt100::Color::Default => {
            if let Some(name) = swapped_default {
                class.push(name.to_string());
            }
        }
        vt100::Color::Idx(i) if i < 16 => class.push(format!("t-{which}-{i}")),
        vt100::Color::Idx(i) => {
            let (r, g, b) = xterm_256(i);
            style.push_str(&format!("{property}:#{r:02x}{g:02x}{b:02x};"));
        }
        vt100::Color::Rgb(r, g, b) => {
            style.push_str(&format!("{property}:#{r:02x}{g:02x}{b:02x};"))
        }
    }
}

/// The xterm 256-colour palette beyond the first 16: a 6×6×6 cube, then 24 greys.
pub fn xterm_256(i: u8) -> (u8, u8, u8) {
    if i >= 232 {
        let v = 8 + (i - 232) * 10;
        return (v, v, v);
    }
    let i = i.saturating_sub(16);
    let step = |n: u8| if n == 0 { 0 } else { 55 + n * 40 };
    (step(i / 36), step((i / 6) % 6), step(i % 6))
}

/// The bytes a key press sends to the PTY, as a terminal sends them (`None`: the page keeps
/// the key, e.g. a lone modifier or a browser shortcut with Ctrl+Shift). `key` is the
/// `KeyboardEvent.key` value.
pub fn key_bytes(
    key: &str,
    ctrl: bool,
    alt: bool,
    shift: bool,
    app_cursor: bool,
) -> Option<Vec<u8>> {
    let csi = |c: &str| -> Vec<u8> {
        let lead = if app_cursor { "\x1bO" } else { "\x1b[" };
        format!("{lead}{c}").into_bytes()
    };
    let mut out = match key {
        "Enter" => b"\r".to_vec(),
        "Backspace" => vec![0x7f],
        "Tab" if shift => b"\x1b[Z".to_vec(),
        "Tab" => b"\t".to_vec(),
        "Escape" => vec![0x1b],
        "ArrowUp" => csi("A"),
        "ArrowDown" => csi("B"),
        "ArrowRight" => csi("C"),
        "ArrowLeft" => csi("D"),
        "Home" => csi("H"),
        "End" => csi("F"),
        "Insert" => b"\x1b[2~".to_vec(),
        "Delete" => b"\x1b[3~".to_vec(),
        "PageUp" => b"\x1b[5~".to_vec(),
        "PageDown" => b"\x1b[6~".to_vec(),
        k if k.chars().count() == 1 => {
            let ch = k.chars().next()?;
            if ctrl && shift {
                // Ctrl+Shift+C / V and the like are the browser's (copy, paste).
                return None;
            }
            if ctrl {
                match ch.to_ascii_lowercase() {
                    c @ 'a'..='z' => vec![c as u8 - b'a' + 1],
                    '@' | ' ' | '2' => vec![0],
                    '[' | '3' => vec![0x1b],
                    '\\' | '4' => vec![0x1c],
                    ']' | '5' => vec![0x1d],
                    '^' | '6' => vec![0x1e],
                    '_' | '7' | '-' => vec![0x1f],
                    '?' | '8' => vec![0x7f],
                    _ => return None,
                }
            } else {
                k.as_bytes().to_vec()
            }
        }
        _ => return None,
    };
    if alt {
        out.insert(0, 0x1b);
    }
    Some(out)
}

/// What a paste sends: the text with its line ends as Enter, wrapped in bracketed-paste marks
/// when the program asked for them.
pub fn paste_bytes(text: &str, bracketed: bool) -> Vec<u8> {
    let body = text.replace("\r\n", "\r").replace('\n', "\r");
    if bracketed {
        format!("\x1b[200~{body}\x1b[201~").into_bytes()
    } else {
        body.into_bytes()
    }
}

/// The size that fits `width` × `height` pixels with cells of `cell_w` × `cell_h`:
/// `(rows, cols)`, clamped to the limits.
pub fn fit(width: f64, height: f64, cell_w: f64, cell_h: f64) -> (u16, u16) {
    let count = |px: f64, cell: f64, min: u16, max: u16| -> u16 {
        if !(px.is_finite() && cell.is_finite()) || cell <= 0.0 || px <= 0.0 {
            return min;
        }
        ((px / cell).floor() as u64).clamp(min as u64, max as u64) as u16
    };
    (
        count(height, cell_h, MIN_ROWS, MAX_ROWS),
        count(width, cell_w, MIN_COLS, MAX_COLS),
    )
}

/// A frame the page sends to the PTY.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// The size, as the backend words it (Omnigent: `{"type":"resize","cols","rows"}`).
    Resize {
        /// Lines.
        rows: u16,
        /// Columns.
        cols: u16,
    },
    /// Keystrokes and pastes.
    Input(Vec<u8>),
}

/// When the page's frames may go. Measured against omnigent 0.19.1: the server sends the
/// current screen *before* its terminal client attaches; a resize sent before that screen
/// arrives can make the keys after it go unread, and one sent between that screen and the
/// attach is sometimes dropped. So everything waits for the first output, the size goes then,
/// and once more with the second output (which came through the attached client). A shell
/// opened a moment ago may not have drawn its prompt when that first screen was taken, and
/// then nothing more comes until the size reaches it (the resize makes it redraw): the page
/// [`nudges`](Self::nudge) a few times, sending the size again while nothing has come since
/// the first screen.
#[derive(Debug, Default)]
pub struct Outbox {
    outputs: u32,
    size: Option<(u16, u16)>,
    held: Vec<Vec<u8>>,
}

impl Outbox {
    /// A new attach: nothing may go yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The page's size changed: what to send now.
    pub fn resize(&mut self, rows: u16, cols: u16) -> Vec<Frame> {
        self.size = Some((rows, cols));
        if self.outputs == 0 {
            return Vec::new();
        }
        vec![Frame::Resize { rows, cols }]
    }

    /// Keys or a paste: what to send now (held until the first output).
    pub fn input(&mut self, bytes: Vec<u8>) -> Vec<Frame> {
        if self.outputs == 0 {
            self.held.push(bytes);
            return Vec::new();
        }
        vec![Frame::Input(bytes)]
    }

    /// How many outputs have arrived.
    pub fn outputs(&self) -> u32 {
        self.outputs
    }

    /// A while after the first output: the size again if nothing has come since (the first
    /// one may have gone before the server's terminal client was there to read it).
    pub fn nudge(&mut self) -> Vec<Frame> {
        match (self.outputs, self.size) {
            (1, Some((rows, cols))) => vec![Frame::Resize { rows, cols }],
            _ => Vec::new(),
        }
    }

    /// Output arrived: what to send now.
    pub fn output(&mut self) -> Vec<Frame> {
        self.outputs = self.outputs.saturating_add(1);
        let size = self.size.map(|(rows, cols)| Frame::Resize { rows, cols });
        match self.outputs {
            1 => size
                .into_iter()
                .chain(std::mem::take(&mut self.held).into_iter().map(Frame::Input))
                .collect(),
            2 => size.into_iter().collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_wait_for_the_first_screen_and_the_size_goes_twice() {
        let mut o = Outbox::new();
        assert!(o.resize(24, 80).is_empty());
        assert!(o.input(b"ls".to_vec()).is_empty());
        assert!(o.resize(30, 100).is_empty());
        assert_eq!(
            o.output(),
            vec![
                Frame::Resize {
                    rows: 30,
                    cols: 100
                },
                Frame::Input(b"ls".to_vec())
            ]
        );
        assert_eq!(o.input(b"\r".to_vec()), vec![Frame::Input(b"\r".to_vec())]);
        assert_eq!(
            o.output(),
            vec![Frame::Resize {
                rows: 30,
                cols: 100
            }]
        );
        assert!(o.output().is_empty());
        assert_eq!(o.resize(10, 40), vec![Frame::Resize { rows: 10, cols: 40 }]);
        let mut no_size = Outbox::new();
        assert!(no_size.output().is_empty());
        assert!(no_size.nudge().is_empty());
    }

    #[test]
    fn a_nudge_repeats_the_size_only_while_nothing_came_after_the_first_screen() {
        let mut o = Outbox::new();
        o.resize(20, 60);
        assert!(o.nudge().is_empty(), "not before the first screen");
        o.output();
        assert_eq!(o.nudge(), vec![Frame::Resize { rows: 20, cols: 60 }]);
        assert_eq!(o.nudge(), vec![Frame::Resize { rows: 20, cols: 60 }]);
        o.output();
        assert!(o.nudge().is_empty(), "the terminal client is there");
    }

    fn row_text(s: &Screen, row: usize) -> String {
        s.lines()[row].iter().map(|s| s.text.as_str()).collect()
    }

    #[test]
    fn a_shells_first_screen_and_a_command_read_as_a_terminal_reads_them() {
        // Captured from omnigent 0.19.1's attach (tmux control mode, bash): the clear and the
        // prompt, then the echo of a command, bracketed-paste off and on, the output.
        let mut s = Screen::new(24, 80);
        s.feed(b"\x1b[H\x1b[2Jroot@vm:/tmp/repo# \r\n\r\n\r\n\x1b[1;20H\x1b[?25h");
        s.feed(b"echo marker-$((6*7))\r\n\x1b[?2004l\rmarker-42\r\n\x1b[?2004hroot@vm:/tmp/repo# ");
        assert_eq!(row_text(&s, 0), "root@vm:/tmp/repo# echo marker-$((6*7))");
        assert_eq!(row_text(&s, 1), "marker-42");
        assert_eq!(
            row_text(&s, 2),
            "root@vm:/tmp/repo#  ",
            "the cursor's cell is drawn"
        );
        assert!(s.bracketed_paste());
        let cursor: Vec<_> = s.lines()[2]
            .iter()
            .filter(|sp| sp.class.contains("t-cursor"))
            .cloned()
            .collect();
        assert_eq!(cursor.len(), 1);
        assert!(s.text().contains("marker-42"));
    }

    #[test]
    fn colours_bold_and_inverse_become_classes_and_styles() {
        let mut s = Screen::new(5, 20);
        s.feed(b"\x1b[?25l\x1b[1;31mred\x1b[0m \x1b[38;5;208mor\x1b[0m \x1b[48;2;1;2;3mbg\x1b[0m \x1b[7minv\x1b[0m");
        let spans = &s.lines()[0];
        let find = |t: &str| {
            spans
                .iter()
                .find(|s| s.text == t)
                .unwrap_or_else(|| panic!("{t} in {spans:?}"))
        };
        assert_eq!(find("red").class, "t-fg-1 t-bold");
        assert_eq!(find("or").style, "color:#ff8700;");
        assert_eq!(find("bg").style, "background:#010203;");
        assert_eq!(find("inv").class, "t-fg-bg t-bg-fg");
        assert!(
            spans.iter().all(|s| !s.class.contains("t-cursor")),
            "a hidden cursor is not drawn"
        );
    }

    #[test]
    fn the_alternate_screen_and_a_resize_keep_the_screen_whole() {
        let mut s = Screen::new(10, 40);
        s.feed(b"before");
        s.feed(b"\x1b[?1049h\x1b[Hfull-screen program");
        assert!(s.text().starts_with("full-screen program"));
        s.feed(b"\x1b[?1049l");
        assert!(s.text().starts_with("before"));
        assert!(s.resize(30, 100));
        assert!(!s.resize(30, 100));
        assert_eq!(s.size(), (30, 100));
        assert!(s.resize(1, 1), "clamped");
        assert_eq!(s.size(), (MIN_ROWS, MIN_COLS));
        assert_eq!(s.lines().len(), MIN_ROWS as usize);
    }

    #[test]
    fn keys_are_sent_as_a_terminal_sends_them() {
        assert_eq!(
            key_bytes("a", false, false, false, false),
            Some(b"a".to_vec())
        );
        assert_eq!(
            key_bytes("é", false, false, false, false),
            Some("é".as_bytes().to_vec())
        );
        assert_eq!(
            key_bytes("Enter", false, false, false, false),
            Some(b"\r".to_vec())
        );
        assert_eq!(key_bytes("c", true, false, false, false), Some(vec![3]));
        assert_eq!(key_bytes("D", true, false, false, false), Some(vec![4]));
        assert_eq!(
            key_bytes("C", true, false, true, false),
            None,
            "Ctrl+Shift+C copies"
        );
        assert_eq!(
            key_bytes("ArrowUp", false, false, false, false),
            Some(b"\x1b[A".to_vec())
        );
        assert_eq!(
            key_bytes("ArrowUp", false, false, false, true),
            Some(b"\x1bOA".to_vec())
        );
        assert_eq!(
            key_bytes("b", false, true, false, false),
            Some(b"\x1bb".to_vec())
        );
        assert_eq!(
            key_bytes("Tab", false, false, true, false),
            Some(b"\x1b[Z".to_vec())
        );
        assert_eq!(key_bytes("Shift", false, false, true, false), None);
        assert_eq!(key_bytes("F13", false, false, false, false), None);
        assert_eq!(paste_bytes("a\nb", false), b"a\rb".to_vec());
        assert_eq!(paste_bytes("x", true), b"\x1b[200~x\x1b[201~".to_vec());
    }

    #[test]
    fn the_size_fits_the_box() {
        assert_eq!(fit(800.0, 480.0, 8.0, 20.0), (24, 100));
        assert_eq!(fit(0.0, 0.0, 8.0, 20.0), (MIN_ROWS, MIN_COLS));
        assert_eq!(fit(1e9, 1e9, 1.0, 1.0), (MAX_ROWS, MAX_COLS));
        assert_eq!(fit(f64::NAN, 100.0, 0.0, 10.0), (10, MIN_COLS));
        assert_eq!(xterm_256(16), (0, 0, 0));
        assert_eq!(xterm_256(231), (255, 255, 255));
        assert_eq!(xterm_256(244), (128, 128, 128));
    }
}
