//! Command history for the terminal input: ↑ goes back, ↓ forward, and leaving the history at
//! the bottom restores the line being typed (the draft).

/// How many commands are kept.
pub const HISTORY_CAP: usize = 200;

/// The commands run so far and the browsing position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    entries: Vec<String>,
    cursor: Option<usize>,
    draft: String,
}

impl History {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// The commands, oldest first.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Records a command that was run (blank ones and repeats of the last are not recorded)
    /// and leaves browsing.
    pub fn push(&mut self, command: &str) {
        self.cursor = None;
        self.draft.clear();
        if command.trim().is_empty() || self.entries.last().is_some_and(|l| l == command) {
            return;
        }
        self.entries.push(command.to_string());
        if self.entries.len() > HISTORY_CAP {
            self.entries.remove(0);
        }
    }

    /// ↑: the previous command (`current` is the input's text, kept as the draft when browsing
    /// starts). `None` = nothing older; leave the input as it is.
    pub fn up(&mut self, current: &str) -> Option<String> {
        let next = match self.cursor {
            None if self.entries.is_empty() => return None,
            None => {
                self.draft = current.to_string();
                self.entries.len() - 1
            }
            Some(0) => return None,
            Some(i) => i - 1,
        };
        self.cursor = Some(next);
        Some(self.entries[next].clone())
    }

    /// ↓: the next command, or the draft after the newest. `None` = not browsing.
    pub fn down(&mut self) -> Option<String> {
        let i = self.cursor?;
        if i + 1 < self.entries.len() {
            self.cursor = Some(i + 1);
            Some(self.entries[i + 1].clone())
        } else {
            self.cursor = None;
            Some(std::mem::take(&mut self.draft))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browse_table() {
        let mut h = History::new();
        assert_eq!(h.up("typed"), None);
        assert_eq!(h.down(), None);
        for c in ["ls", "pwd", "pwd", "  ", "echo hi"] {
            h.push(c);
        }
        assert_eq!(h.entries(), ["ls", "pwd", "echo hi"]);
        assert_eq!(h.up("draft").as_deref(), Some("echo hi"));
        assert_eq!(h.up("echo hi").as_deref(), Some("pwd"));
        assert_eq!(h.up("pwd").as_deref(), Some("ls"));
        assert_eq!(h.up("ls"), None);
        assert_eq!(h.down().as_deref(), Some("pwd"));
        assert_eq!(h.down().as_deref(), Some("echo hi"));
        assert_eq!(h.down().as_deref(), Some("draft"));
        assert_eq!(h.down(), None);
        h.up("");
        h.push("make");
        assert_eq!(h.up("").as_deref(), Some("make"));
    }

    #[test]
    fn capped() {
        let mut h = History::new();
        for i in 0..(HISTORY_CAP + 5) {
            h.push(&format!("c{i}"));
        }
        assert_eq!(h.entries().len(), HISTORY_CAP);
        assert_eq!(h.entries()[0], "c5");
    }
}
