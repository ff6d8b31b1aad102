//! Slash commands in the composer (issue #15): what a sent text means ([`parse`]) and the `/`
//! menu while typing ([`menu`]).
//!
//! A text is a command only when, after trimming, it starts with `/` directly followed by a
//! built-in command's name (case-insensitive) and then its end or whitespace: `/NEW` is
//! [`Parsed::New`]; `/newer`, `/ new`, `//new` and `say /new` are text. The arguments are the
//! rest, trimmed (they may span lines: `/ask` takes a whole question). Anything else, unknown
//! `/commands` and skill triggers included, is sent to the agent as text, unchanged.

use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::navigation::fuzzy;

/// A built-in slash command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `/new`: start a new conversation.
    New,
    /// `/model <name>`: switch the model or LLM profile.
    Model,
    /// `/condense`: condense the conversation's history.
    Condense,
    /// `/fork`: fork this conversation.
    Fork,
    /// `/export [md|json]`: export the transcript (Markdown by default).
    Export,
    /// `/ask <question>`: ask the agent a question without interrupting it.
    Ask,
    /// `/goal <objective>`: work toward a goal in judged rounds (issue #36).
    Goal,
}

impl Builtin {
    /// Every built-in command, in menu order.
    pub const ALL: [Builtin; 7] = [
        Builtin::New,
        Builtin::Model,
        Builtin::Condense,
        Builtin::Fork,
        Builtin::Export,
        Builtin::Ask,
        Builtin::Goal,
    ];

    /// The name, without the `/`: `"new"`.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::New => "new",
            Builtin::Model => "model",
            Builtin::Condense => "condense",
            Builtin::Fork => "fork",
            Builtin::Export => "export",
            Builtin::Ask => "ask",
            Builtin::Goal => "goal",
        }
    }

    /// How to write it: `"/model <name>"`.
    pub fn usage(self) -> &'static str {
        match self {
            Builtin::New => "/new",
            Builtin::Model => "/model <name>",
            Builtin::Condense => "/condense",
            Builtin::Fork => "/fork",
            Builtin::Export => "/export [md|json]",
            Builtin::Ask => "/ask <question>",
            Builtin::Goal => "/goal <objective>",
        }
    }

    /// What it does, in one line, in English.
    pub fn help(self) -> &'static str {
        self.help_message().english_static()
    }

    /// What it does, in one line.
    pub fn help_text(self) -> Text {
        Text::new(self.help_message())
    }

    fn help_message(self) -> MessageRef {
        const NEW: MessageRef = message("chat_core.slash.help.new");
        const MODEL: MessageRef = message("chat_core.slash.help.model");
        const CONDENSE: MessageRef = message("chat_core.slash.help.condense");
        const FORK: MessageRef = message("chat_core.slash.help.fork");
        const EXPORT: MessageRef = message("chat_core.slash.help.export");
        const ASK: MessageRef = message("chat_core.slash.help.ask");
        const GOAL: MessageRef = message("chat_core.slash.help.goal");
        match self {
            Builtin::New => NEW,
            Builtin::Model => MODEL,
            Builtin::Condense => CONDENSE,
            Builtin::Fork => FORK,
            Builtin::Export => EXPORT,
            Builtin::Ask => ASK,
            Builtin::Goal => GOAL,
        }
    }

    /// What is wrong when it is used wrongly ([`Parsed::Invalid`]): `/ask needs a question:
    /// /ask <question>`.
    pub fn invalid_text(self) -> Text {
        match self {
            Builtin::New | Builtin::Condense | Builtin::Fork => {
                text!("chat_core.slash.no_arguments").with("command", self.name())
            }
            Builtin::Model => text!("chat_core.slash.model_needs_name").with("usage", self.usage()),
            Builtin::Ask => text!("chat_core.slash.ask_needs_question").with("usage", self.usage()),
            Builtin::Goal => {
                text!("chat_core.slash.goal_needs_objective").with("usage", self.usage())
            }
            Builtin::Export => text!("chat_core.slash.export_format"),
        }
    }

    /// It must be given an argument (`/model`, `/ask`).
    pub fn needs_arg(self) -> bool {
        matches!(self, Builtin::Model | Builtin::Ask | Builtin::Goal)
    }

    /// The command named `name` (without the `/`, case-insensitive).
    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }
}

/// The format `/export` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    /// `md` (the default).
    Markdown,
    /// `json`.
    Json,
}

impl ExportFormat {
    /// The file extension: `md` or `json`.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Markdown => "md",
            ExportFormat::Json => "json",
        }
    }
}

/// What the composer should do with the text on send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    /// Send as a message, unchanged (also unknown `/commands` and skill triggers: they go to
    /// the agent as text).
    Text(String),
    /// `/new`
    New,
    /// `/model <name>`: the name.
    Model(String),
    /// `/condense`
    Condense,
    /// `/fork`
    Fork,
    /// `/export [md|json]`
    Export(ExportFormat),
    /// `/ask <question>`: the question.
    Ask(String),
    /// `/goal <objective>`: the objective.
    Goal(String),
    /// A built-in command used wrongly: show `message`, send nothing.
    Invalid {
        /// The command.
        command: Builtin,
        /// What is wrong, e.g. `/ask needs a question: /ask <question>`.
        message: String,
    },
}

/// What the composer's text means on send (see the module doc).
pub fn parse(input: &str) -> Parsed {
    let text = || Parsed::Text(input.to_owned());
    let Some(rest) = input.trim().strip_prefix('/') else {
        return text();
    };
    let (name, arg) = match rest.find(char::is_whitespace) {
        Some(at) => (&rest[..at], rest[at..].trim()),
        None => (rest, ""),
    };
    let Some(command) = Builtin::from_name(name) else {
        return text();
    };
    let invalid = || Parsed::Invalid {
        command,
        message: command.invalid_text().english(),
    };
    match command {
        Builtin::New | Builtin::Condense | Builtin::Fork if !arg.is_empty() => invalid(),
        Builtin::New => Parsed::New,
        Builtin::Condense => Parsed::Condense,
        Builtin::Fork => Parsed::Fork,
        Builtin::Model if arg.is_empty() => invalid(),
        Builtin::Model => Parsed::Model(arg.to_owned()),
        Builtin::Ask if arg.is_empty() => invalid(),
        Builtin::Ask => Parsed::Ask(arg.to_owned()),
        Builtin::Goal if arg.is_empty() => invalid(),
        Builtin::Goal => Parsed::Goal(arg.to_owned()),
        Builtin::Export => {
            if arg.is_empty()
                || arg.eq_ignore_ascii_case("md")
                || arg.eq_ignore_ascii_case("markdown")
            {
                Parsed::Export(ExportFormat::Markdown)
            } else if arg.eq_ignore_ascii_case("json") {
                Parsed::Export(ExportFormat::Json)
            } else {
                invalid()
            }
        }
    }
}

/// One entry of the `/` menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    /// What the menu shows: `"/model"`.
    pub label: String,
    /// The text to put in the composer: `"/model "` for a command that needs an argument,
    /// `"/condense"` otherwise; `"/deploy "` for a skill.
    pub insert: String,
    /// One line about it.
    pub help: String,
    /// A skill trigger (sent to the agent as text), not a built-in command.
    pub is_skill: bool,
}

/// The most entries [`menu`] returns.
pub const MAX_SUGGESTIONS: usize = 12;

/// The help line of a skill's entry.
const SKILL_HELP: MessageRef = message("chat_core.slash.skill");

impl Suggestion {
    /// Its help line ([`Suggestion::help`] in the page's language).
    pub fn help_text(&self) -> Text {
        let name = self.label.strip_prefix('/').unwrap_or(&self.label);
        match Builtin::from_name(name).filter(|_| !self.is_skill) {
            Some(b) => b.help_text(),
            None => Text::new(SKILL_HELP),
        }
    }
}

/// The `/` menu for what is typed: `None` unless `input` is a single token starting with `/`
/// (nothing before the `/`, no whitespace yet); else the entries whose name (without the `/`)
/// starts with what follows the `/` (case-insensitive), built-in commands first, then skills,
/// each in their order; then those it matches only as a fuzzy subsequence ([`fuzzy::score`]),
/// best first; at most [`MAX_SUGGESTIONS`]. `/` alone lists every command, then every skill.
///
/// Skill triggers are given with or without their `/` (`"/deploy"`, `"deploy"`); blank ones,
/// repeats (case-insensitive) and any named like a built-in command are left out.
pub fn menu(input: &str, skill_triggers: &[String]) -> Option<Vec<Suggestion>> {
    let query = input.strip_prefix('/')?;
    if query.contains(char::is_whitespace) {
        return None;
    }
    let mut entries: Vec<(String, Suggestion)> = Builtin::ALL
        .into_iter()
        .map(|b| {
            let label = format!("/{}", b.name());
            let insert = if b.needs_arg() {
                format!("{label} ")
            } else {
                label.clone()
            };
            let entry = Suggestion {
                label,
                insert,
                help: b.help().to_owned(),
                is_skill: false,
            };
            (b.name().to_owned(), entry)
        })
        .collect();
    for trigger in skill_triggers {
        let name = trigger.trim().trim_start_matches('/').trim();
        if name.is_empty()
            || entries
                .iter()
                .any(|(known, _)| known.to_lowercase() == name.to_lowercase())
        {
            continue;
        }
        let label = format!("/{name}");
        let entry = Suggestion {
            insert: format!("{label} "),
            label,
            help: SKILL_HELP.english_static().to_owned(),
            is_skill: true,
        };
        entries.push((name.to_owned(), entry));
    }

    let q = query.to_lowercase();
    let mut prefixed = Vec::new();
    let mut fuzzy_only = Vec::new();
    for (name, entry) in entries {
        if name.to_lowercase().starts_with(&q) {
            prefixed.push(entry);
        } else if let Some(score) = fuzzy::score(query, &name) {
            fuzzy_only.push((score, entry));
        }
    }
    // Stable: equal scores keep commands before skills, each in their order.
    fuzzy_only.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let mut out = prefixed;
    out.extend(fuzzy_only.into_iter().map(|(_, e)| e));
    out.truncate(MAX_SUGGESTIONS);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invalid(command: Builtin, message: &str) -> Parsed {
        Parsed::Invalid {
            command,
            message: message.into(),
        }
    }

    fn text(s: &str) -> Parsed {
        Parsed::Text(s.into())
    }

    #[test]
    fn builtins_are_described() {
        for b in Builtin::ALL {
            assert_eq!(Builtin::from_name(b.name()), Some(b));
            assert_eq!(Builtin::from_name(&b.name().to_uppercase()), Some(b));
            assert!(b.usage().starts_with(&format!("/{}", b.name())));
            assert!(!b.help().is_empty() && !b.help().contains('\n'));
            assert_eq!(b.needs_arg(), b.usage().contains('<'), "{b:?}");
        }
        assert_eq!(Builtin::New.name(), "new");
        assert_eq!(Builtin::Model.usage(), "/model <name>");
        assert_eq!(Builtin::from_name("nope"), None);
        assert_eq!(Builtin::from_name(""), None);
        assert_eq!(ExportFormat::Markdown.extension(), "md");
        assert_eq!(ExportFormat::Json.extension(), "json");
    }

    #[test]
    fn parse_table() {
        for (input, want) in [
            // Commands.
            ("/new", Parsed::New),
            ("/NEW", Parsed::New),
            ("/New", Parsed::New),
            ("  /new  ", Parsed::New),
            ("\n/new\n", Parsed::New),
            ("/condense", Parsed::Condense),
            ("/fork", Parsed::Fork),
            ("/model gpt-5", Parsed::Model("gpt-5".into())),
            ("/model   my profile  ", Parsed::Model("my profile".into())),
            ("/MODEL\tclaude", Parsed::Model("claude".into())),
            ("/export", Parsed::Export(ExportFormat::Markdown)),
            ("/export md", Parsed::Export(ExportFormat::Markdown)),
            ("/export MD", Parsed::Export(ExportFormat::Markdown)),
            ("/export markdown", Parsed::Export(ExportFormat::Markdown)),
            ("/export json", Parsed::Export(ExportFormat::Json)),
            ("/export  JSON ", Parsed::Export(ExportFormat::Json)),
            ("/ask why?", Parsed::Ask("why?".into())),
            (
                "/ask what is\nthis file for?\n",
                Parsed::Ask("what is\nthis file for?".into()),
            ),
            ("/ask\nmulti-line", Parsed::Ask("multi-line".into())),
            (
                "/goal make the tests pass",
                Parsed::Goal("make the tests pass".into()),
            ),
            (
                "/goal",
                invalid(Builtin::Goal, "/goal needs an objective: /goal <objective>"),
            ),
            // Misused commands.
            ("/new foo", invalid(Builtin::New, "/new takes no arguments")),
            (
                "/condense now",
                invalid(Builtin::Condense, "/condense takes no arguments"),
            ),
            (
                "/fork x",
                invalid(Builtin::Fork, "/fork takes no arguments"),
            ),
            (
                "/model",
                invalid(Builtin::Model, "/model needs a name: /model <name>"),
            ),
            (
                "/model   ",
                invalid(Builtin::Model, "/model needs a name: /model <name>"),
            ),
            (
                "/ask",
                invalid(Builtin::Ask, "/ask needs a question: /ask <question>"),
            ),
            (
                "/ask \n ",
                invalid(Builtin::Ask, "/ask needs a question: /ask <question>"),
            ),
            (
                "/export pdf",
                invalid(Builtin::Export, "/export takes md or json"),
            ),
            (
                "/export md json",
                invalid(Builtin::Export, "/export takes md or json"),
            ),
            // Text, returned unchanged.
            ("hello", text("hello")),
            ("  hello  ", text("  hello  ")),
            ("", text("")),
            ("   ", text("   ")),
            ("/", text("/")),
            ("/newer", text("/newer")),
            ("/ new", text("/ new")),
            ("//new", text("//new")),
            ("say /new", text("say /new")),
            ("new", text("new")),
            ("/deploy", text("/deploy")),
            ("/deploy to prod ", text("/deploy to prod ")),
            ("/unknown arg", text("/unknown arg")),
            ("/new-conversation", text("/new-conversation")),
            ("/ask?", text("/ask?")),
            ("\\/new", text("\\/new")),
            ("/ｎｅｗ", text("/ｎｅｗ")),
        ] {
            assert_eq!(parse(input), want, "{input:?}");
        }
    }

    fn labels(entries: &[Suggestion]) -> Vec<&str> {
        entries.iter().map(|s| s.label.as_str()).collect()
    }

    fn skills(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn slash_alone_lists_builtins_then_skills() {
        let menu = menu("/", &skills(&["/deploy", "review"])).unwrap();
        assert_eq!(
            labels(&menu),
            [
                "/new",
                "/model",
                "/condense",
                "/fork",
                "/export",
                "/ask",
                "/goal",
                "/deploy",
                "/review"
            ]
        );
        let model = &menu[1];
        assert_eq!(model.insert, "/model ");
        assert_eq!(model.help, Builtin::Model.help());
        assert!(!model.is_skill);
        assert_eq!(menu[2].insert, "/condense");
        assert_eq!(menu[4].insert, "/export");
        assert_eq!(menu[5].insert, "/ask ");
        assert_eq!(menu[6].insert, "/goal ");
        let deploy = &menu[7];
        assert_eq!(deploy.insert, "/deploy ");
        assert!(deploy.is_skill);
        assert_eq!(deploy.help, "Skill");
    }

    #[test]
    fn prefixes_come_first_then_fuzzy_matches() {
        let none: Vec<String> = Vec::new();
        assert_eq!(labels(&menu("/co", &none).unwrap()), ["/condense"]);
        assert_eq!(labels(&menu("/CO", &none).unwrap()), ["/condense"]);
        assert_eq!(labels(&menu("/mo", &none).unwrap()), ["/model"]);
        assert_eq!(labels(&menu("/model", &none).unwrap()), ["/model"]);
        assert_eq!(labels(&menu("/f", &none).unwrap()), ["/fork"]);
        // A prefix match beats a better-placed fuzzy one; fuzzy ones follow.
        let m = menu("/de", &skills(&["deploy"])).unwrap();
        assert_eq!(labels(&m), ["/deploy", "/model", "/condense"]);
        // Fuzzy only.
        assert_eq!(labels(&menu("/cdn", &none).unwrap()), ["/condense"]);
        assert_eq!(labels(&menu("/xpt", &none).unwrap()), ["/export"]);
        // Nothing matches: an empty menu (the input is still a command being typed).
        assert_eq!(menu("/zzz", &none), Some(Vec::new()));
        assert_eq!(menu("//", &none), Some(Vec::new()));
        // Skills matched like commands, case-insensitively.
        let m = menu("/DEP", &skills(&["/Deploy", "/depot"])).unwrap();
        assert_eq!(labels(&m), ["/Deploy", "/depot"]);
    }

    #[test]
    fn skills_are_normalised_deduplicated_and_never_shadow_builtins() {
        let m = menu(
            "/",
            &skills(&[
                "/deploy",
                "deploy",
                "DEPLOY",
                " /deploy ",
                "new",
                "/Model",
                "//fork",
                "",
                "  ",
                "/",
                "review",
            ]),
        )
        .unwrap();
        assert_eq!(
            labels(&m),
            [
                "/new",
                "/model",
                "/condense",
                "/fork",
                "/export",
                "/ask",
                "/goal",
                "/deploy",
                "/review"
            ]
        );
        assert_eq!(m.iter().filter(|s| s.is_skill).count(), 2);
        // A skill named like a command never appears, even when only it would match.
        let m = menu("/ne", &skills(&["new"])).unwrap();
        assert_eq!(labels(&m), ["/new", "/condense"]);
        assert!(m.iter().all(|s| !s.is_skill));
    }

    #[test]
    fn no_menu_unless_a_single_slash_token() {
        let s = skills(&["deploy"]);
        for input in [
            "",
            "hello",
            "hello /x",
            " /new",
            "/model gpt",
            "/model ",
            "/ask\nwhy",
            "new",
        ] {
            assert_eq!(menu(input, &s), None, "{input:?}");
        }
    }

    #[test]
    fn at_most_twelve_entries() {
        let many: Vec<String> = (0..30).map(|i| format!("skill{i}")).collect();
        let m = menu("/", &many).unwrap();
        assert_eq!(m.len(), MAX_SUGGESTIONS);
        assert_eq!(
            &labels(&m)[..7],
            [
                "/new",
                "/model",
                "/condense",
                "/fork",
                "/export",
                "/ask",
                "/goal"
            ]
        );
        assert_eq!(m[7].label, "/skill0");
        assert_eq!(m[11].label, "/skill4");
        let m = menu("/sk", &many).unwrap();
        assert_eq!(m.len(), MAX_SUGGESTIONS);
        assert!(m.iter().all(|s| s.is_skill));
    }

    #[test]
    fn every_entry_has_its_help_as_a_message() {
        let skills = vec!["deploy".to_string()];
        for entry in menu("/", &skills).unwrap() {
            assert_eq!(entry.help_text().english(), entry.help, "{}", entry.label);
        }
    }
}
