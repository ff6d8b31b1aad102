//! The client-side merge of skills gathered tier by tier (issue #13; `spec/skills-and-extensions.md`,
//! seed 002 §3).
//!
//! The agent server's `POST /api/skills` merges every source it is asked to load and does not say
//! which source a skill came from. The Skills page needs the tier, so it asks once per tier
//! ([`request`], [`fetch_plan`]) and merges here, with the server's own precedence
//! (`openhands/agent_server/skills_service.py`, `load_all_skills` / `merge_skills`):
//!
//! ```text
//! Sandbox < Marketplace < Public < User < Organization < Project
//! ```
//!
//! - A skill of a higher tier overrides every skill of a lower tier with the same `name` (names
//!   compare exactly, as the server's `dict` keys do); the winner lists what it hides in
//!   [`MergedSkill::overrides`].
//! - Within one tier the first found wins (the server's per-directory loaders: `~/.agents/skills`
//!   before `~/.openhands/skills`, `.agents/skills` before `.openhands/skills`, …); later
//!   duplicates are kept in [`MergedSkill::shadowed`]. One server answer never repeats a name
//!   (the server merges it by name), so this only matters when two answers share a tier.
//! - The user's `disabled_skills` are applied AFTER the merge (the app server's
//!   `_load_skills_and_update_agent`): a disabled name marks the winning skill
//!   [`MergedSkill::disabled`]; it stays in the list for the UI but leaves
//!   [`Merged::enabled`], and the lower-tier skill it overrode does
//!   NOT come back.

use crate::i18n::english::{message, MessageRef};
use crate::i18n::Text;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{json, Value};

use crate::agent_server::dto::{SkillInfo, SkillType, SkillsRequest, SkillsResponse};

/// Where a skill came from, lowest precedence first (`Ord`: a later tier overrides an earlier
/// one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// The synthetic always-on `work_hosts` skill describing the sandbox's exposed worker URLs.
    Sandbox,
    /// Auto-load plugins and standalone skills of registered marketplaces (loaded only together
    /// with the public catalog).
    Marketplace,
    /// The public catalog (`OpenHands/extensions`, filtered by the default marketplace).
    Public,
    /// The user's own: `~/.agents/skills` > `~/.openhands/skills` > `~/.openhands/microagents` >
    /// enabled installed skills.
    User,
    /// Organization repositories (`{org}/.openhands`, `{org}/.agents`, `{org}/openhands-config`).
    Organization,
    /// The project: `AGENTS.md`-style files, then `.agents/skills` > `.openhands/skills` >
    /// `.openhands/microagents` (highest precedence).
    Project,
}

impl Tier {
    /// Every tier, lowest precedence first.
    pub const ALL: [Tier; 6] = [
        Tier::Sandbox,
        Tier::Marketplace,
        Tier::Public,
        Tier::User,
        Tier::Organization,
        Tier::Project,
    ];

    /// The word shown in the UI, in English (also the stable `data-tier` value).
    pub fn label(self) -> &'static str {
        self.messages().0.english_static()
    }

    /// The word shown in the UI.
    pub fn label_text(self) -> Text {
        Text::new(self.messages().0)
    }

    /// The tier named inside a sentence ("Loading user skills…"): lower case where the
    /// language writes it so.
    pub fn noun_text(self) -> Text {
        Text::new(self.messages().1)
    }

    fn messages(self) -> (MessageRef, MessageRef) {
        const SANDBOX: (MessageRef, MessageRef) = (
            message("skills_core.tier.sandbox"),
            message("skills_core.tier_noun.sandbox"),
        );
        const MARKETPLACE: (MessageRef, MessageRef) = (
            message("skills_core.tier.marketplace"),
            message("skills_core.tier_noun.marketplace"),
        );
        const PUBLIC: (MessageRef, MessageRef) = (
            message("skills_core.tier.public"),
            message("skills_core.tier_noun.public"),
        );
        const USER: (MessageRef, MessageRef) = (
            message("skills_core.tier.user"),
            message("skills_core.tier_noun.user"),
        );
        const ORGANIZATION: (MessageRef, MessageRef) = (
            message("skills_core.tier.organization"),
            message("skills_core.tier_noun.organization"),
        );
        const PROJECT: (MessageRef, MessageRef) = (
            message("skills_core.tier.project"),
            message("skills_core.tier_noun.project"),
        );
        match self {
            Tier::Sandbox => SANDBOX,
            Tier::Marketplace => MARKETPLACE,
            Tier::Public => PUBLIC,
            Tier::User => USER,
            Tier::Organization => ORGANIZATION,
            Tier::Project => PROJECT,
        }
    }
}

/// The `POST /api/skills` body that loads `tier` (and, as far as the server's flags allow, only
/// that tier).
///
/// What the server does with each body (`load_all_skills`), given the fields [`SkillsRequest`]
/// can carry (`load_public`, `load_user`, `load_project`, `load_org`, `project_dir`):
///
/// - [`Tier::Sandbox`]: every flag off. The sandbox tier is built from `sandbox_config`, which
///   `SkillsRequest` cannot send, so the answer is empty.
/// - [`Tier::Marketplace`]: cannot be loaded alone: marketplace skills are loaded only with
///   `load_public`, and the same answer holds the public catalog (public winning on a name
///   clash). The closest body is the public one, so this returns the same body as
///   [`Tier::Public`]; [`fetch_plan`] asks once and labels the answer `Public`.
/// - [`Tier::Public`]: `load_public` only (also returns the auto-load marketplaces the server is
///   configured with, see above; offline, the catalog is skipped with a warning).
/// - [`Tier::User`]: `load_user` only.
/// - [`Tier::Organization`]: `load_org` only. The repositories come from `org_configs`, which
///   `SkillsRequest` cannot send, so the answer is empty.
/// - [`Tier::Project`]: `load_project` with `project_dir` (no directory: the server loads
///   nothing).
///
/// `project_dir` is only sent for [`Tier::Project`].
pub fn request(tier: Tier, project_dir: Option<&str>) -> SkillsRequest {
    let mut body = SkillsRequest {
        load_public: false,
        load_user: false,
        load_project: false,
        load_org: false,
        project_dir: None,
    };
    match tier {
        Tier::Sandbox => {}
        Tier::Marketplace | Tier::Public => body.load_public = true,
        Tier::User => body.load_user = true,
        Tier::Organization => body.load_org = true,
        Tier::Project => {
            body.load_project = true;
            body.project_dir = project_dir.map(str::to_string);
        }
    }
    body
}

/// The requests worth sending for the Skills page, one per tier, lowest tier first: `Public`
/// (which also carries the marketplace skills), `User`, and `Project` when a project directory is
/// known. `Sandbox` and `Organization` are left out: their sources need `sandbox_config` /
/// `org_configs`, which [`SkillsRequest`] cannot carry, so the server would answer nothing.
pub fn fetch_plan(project_dir: Option<&str>) -> Vec<(Tier, SkillsRequest)> {
    let mut tiers = vec![Tier::Public, Tier::User];
    if project_dir.is_some_and(|d| !d.trim().is_empty()) {
        tiers.push(Tier::Project);
    }
    tiers
        .into_iter()
        .map(|t| (t, request(t, project_dir)))
        .collect()
}

/// The skills one tier's request returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TierResult {
    /// The tier that was loaded.
    pub tier: Tier,
    /// The skills, in the order the server listed them (first found first).
    pub skills: Vec<SkillInfo>,
}

impl TierResult {
    /// A tier's skills.
    pub fn new(tier: Tier, skills: Vec<SkillInfo>) -> Self {
        Self { tier, skills }
    }

    /// A tier's `POST /api/skills` answer (the per-source counts are dropped).
    pub fn from_response(tier: Tier, response: SkillsResponse) -> Self {
        Self::new(tier, response.skills)
    }
}

/// The three kinds of skill, as `SkillInfo.type` / `is_agentskills_format` tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KindFilter {
    /// `repo`: always on (no trigger).
    Repo,
    /// `knowledge`: activated by trigger keywords.
    Knowledge,
    /// `agentskills`: an AgentSkills `SKILL.md` directory (invoked by the agent or the user).
    AgentSkills,
}

impl KindFilter {
    /// Every kind, in the order the UI lists them.
    pub const ALL: [KindFilter; 3] = [
        KindFilter::Repo,
        KindFilter::Knowledge,
        KindFilter::AgentSkills,
    ];

    /// The kind of `skill`, as the server decides it (`Skill.get_skill_type`):
    /// `is_agentskills_format` first, then `type`; an unknown `type` falls back to its triggers
    /// (none: always on).
    pub fn of(skill: &SkillInfo) -> Self {
        if skill.is_agentskills_format {
            return KindFilter::AgentSkills;
        }
        match &skill.skill_type {
            SkillType::AgentSkills => KindFilter::AgentSkills,
            SkillType::Repo => KindFilter::Repo,
            SkillType::Knowledge => KindFilter::Knowledge,
            SkillType::Unknown(_) if skill.triggers.is_empty() => KindFilter::Repo,
            SkillType::Unknown(_) => KindFilter::Knowledge,
        }
    }

    /// Its spelling in a URL query (`?kind=`): the server's `SkillInfo.type` word.
    pub fn param(self) -> &'static str {
        match self {
            KindFilter::Repo => "repo",
            KindFilter::Knowledge => "knowledge",
            KindFilter::AgentSkills => "agentskills",
        }
    }

    /// The kind a `?kind=` value names (case-insensitive, trimmed); `None` for anything else
    /// (then no kind filter applies).
    pub fn from_param(value: &str) -> Option<Self> {
        let v = value.trim();
        KindFilter::ALL
            .into_iter()
            .find(|k| k.param().eq_ignore_ascii_case(v))
    }

    /// The word shown in the UI, in English.
    pub fn label(self) -> &'static str {
        self.message().english_static()
    }

    /// The word shown in the UI.
    pub fn label_text(self) -> Text {
        Text::new(self.message())
    }

    fn message(self) -> MessageRef {
        const REPO: MessageRef = message("skills_core.kind.repo");
        const KNOWLEDGE: MessageRef = message("skills_core.kind.knowledge");
        const AGENT_SKILLS: MessageRef = message("skills_core.kind.agentskills");
        match self {
            KindFilter::Repo => REPO,
            KindFilter::Knowledge => KNOWLEDGE,
            KindFilter::AgentSkills => AGENT_SKILLS,
        }
    }
}

/// One skill of the merged list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedSkill {
    /// The winning skill.
    pub skill: SkillInfo,
    /// The tier it came from.
    pub tier: Tier,
    /// The lower-tier skills with the same name that it hides, as `(tier, source)`: nearest tier
    /// first, in found order within a tier.
    pub overrides: Vec<(Tier, Option<String>)>,
    /// Sources of later skills with the same name in its own tier (first found wins).
    pub shadowed: Vec<Option<String>>,
    /// In the user's `disabled_skills`: shown, but not given to the agent.
    pub disabled: bool,
}

impl MergedSkill {
    /// The skill's kind.
    pub fn kind(&self) -> KindFilter {
        KindFilter::of(&self.skill)
    }

    fn matches_text(&self, needle: &str) -> bool {
        let hit = |s: &str| s.to_lowercase().contains(needle);
        hit(&self.skill.name)
            || self.skill.description.as_deref().is_some_and(hit)
            || self.skill.triggers.iter().any(|t| hit(t))
    }
}

/// The merged list (see the module docs for the rules).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    /// One entry per name, sorted by name (case-insensitive), disabled ones included.
    pub skills: Vec<MergedSkill>,
    /// Names in `disabled_skills` that no loaded skill has (sorted, de-duplicated): kept so the
    /// UI can still offer to re-enable them.
    pub unknown_disabled: Vec<String>,
}

impl Merged {
    /// The skills the agent gets: every entry not disabled.
    pub fn enabled(&self) -> impl Iterator<Item = &MergedSkill> + '_ {
        self.skills.iter().filter(|s| !s.disabled)
    }

    /// The entry named exactly `name`.
    pub fn get(&self, name: &str) -> Option<&MergedSkill> {
        self.skills.iter().find(|s| s.skill.name == name)
    }

    /// The entries of kind `kind` (any when `None`) whose name, description or a trigger contains
    /// `text` (case-insensitive, trimmed; empty matches all). Disabled entries are included.
    pub fn filter(&self, kind: Option<KindFilter>, text: &str) -> Vec<&MergedSkill> {
        let needle = text.trim().to_lowercase();
        self.skills
            .iter()
            .filter(|s| kind.is_none_or(|k| s.kind() == k))
            .filter(|s| needle.is_empty() || s.matches_text(&needle))
            .collect()
    }
}

/// Merge tiers by precedence, then apply `disabled` (names of the user's `disabled_skills`).
///
/// `tiers` may come in any order and may repeat a tier (its lists then count as one, in the given
/// order). Skills with a blank name are dropped.
pub fn merge(tiers: &[TierResult], disabled: &[String]) -> Merged {
    let mut ordered: Vec<&TierResult> = tiers.iter().collect();
    ordered.sort_by_key(|t| t.tier); // stable: same-tier lists keep their order

    let mut by_name: BTreeMap<&str, MergedSkill> = BTreeMap::new();
    for result in ordered {
        for skill in &result.skills {
            if skill.name.trim().is_empty() {
                continue;
            }
            match by_name.get_mut(skill.name.as_str()) {
                None => {
                    by_name.insert(
                        skill.name.as_str(),
                        MergedSkill {
                            skill: skill.clone(),
                            tier: result.tier,
                            overrides: Vec::new(),
                            shadowed: Vec::new(),
                            disabled: false,
                        },
                    );
                }
                // Same tier: the first found wins.
                Some(entry) if entry.tier == result.tier => {
                    entry.shadowed.push(skill.source.clone());
                }
                // Higher tier (input is sorted): it overrides all that was there.
                Some(entry) => {
                    let lower = entry.tier;
                    let mut hidden = vec![(lower, entry.skill.source.take())];
                    hidden.extend(entry.shadowed.drain(..).map(|s| (lower, s)));
                    hidden.append(&mut entry.overrides);
                    entry.overrides = hidden;
                    entry.skill = skill.clone();
                    entry.tier = result.tier;
                }
            }
        }
    }

    // Disabled AFTER the merge: it marks the winner and never brings back what it overrode.
    let disabled: HashSet<&str> = disabled.iter().map(String::as_str).collect();
    let mut skills: Vec<MergedSkill> = by_name.into_values().collect();
    for s in &mut skills {
        s.disabled = disabled.contains(s.skill.name.as_str());
    }
    skills.sort_by(|a, b| {
        a.skill
            .name
            .to_lowercase()
            .cmp(&b.skill.name.to_lowercase())
            .then_with(|| a.skill.name.cmp(&b.skill.name))
    });

    let loaded: HashSet<&str> = skills.iter().map(|s| s.skill.name.as_str()).collect();
    let unknown_disabled = disabled
        .into_iter()
        .filter(|n| !n.trim().is_empty() && !loaded.contains(n))
        .map(str::to_string)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();

    Merged {
        skills,
        unknown_disabled,
    }
}

/// `current` with `name` added (`disable`) or removed: sorted, de-duplicated, blanks dropped.
/// The list to store and to send as `agent_context.disabled_skills`.
pub fn toggle_disabled(current: &[String], name: &str, disable: bool) -> Vec<String> {
    let mut set: BTreeSet<String> = current
        .iter()
        .filter(|n| !n.trim().is_empty())
        .cloned()
        .collect();
    if disable {
        if !name.trim().is_empty() {
            set.insert(name.to_string());
        }
    } else {
        set.remove(name);
    }
    set.into_iter().collect()
}

/// The local agent server's `PATCH /api/settings` body that stores `current` with `name` disabled
/// (`disable`) or re-enabled: `{"misc_settings_diff":{"app_preferences":{"disabled_skills":[…]}}}`
/// (list from [`toggle_disabled`]). The server deep-merges `misc_settings_diff` but replaces
/// lists wholesale, so the body carries the whole list.
pub fn disabled_skills_patch(current: &[String], name: &str, disable: bool) -> Value {
    json!({
        "misc_settings_diff": {
            "app_preferences": {
                "disabled_skills": toggle_disabled(current, name, disable),
            }
        }
    })
}

/// The composer prefill for "Use skill": its first non-blank trigger, else `/<name>`.
pub fn use_skill_text(skill: &SkillInfo) -> String {
    skill
        .triggers
        .iter()
        .map(|t| t.trim())
        .find(|t| !t.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| format!("/{}", skill.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: &str = "/home/dev";
    const PROJECT: &str = "/home/dev/src/agent-canvas";

    fn knowledge(name: &str, triggers: &[&str], source: &str, description: &str) -> SkillInfo {
        SkillInfo {
            name: name.into(),
            skill_type: SkillType::Knowledge,
            content: format!("# {name}\n\nHow to work with {name}."),
            triggers: triggers.iter().map(|t| t.to_string()).collect(),
            source: Some(source.into()),
            description: Some(description.into()),
            ..SkillInfo::default()
        }
    }

    fn repo(name: &str, source: Option<&str>) -> SkillInfo {
        SkillInfo {
            name: name.into(),
            skill_type: SkillType::Repo,
            content: format!("Always follow the {name} rules."),
            source: source.map(str::to_string),
            ..SkillInfo::default()
        }
    }

    fn agentskill(name: &str, source: &str, description: &str) -> SkillInfo {
        SkillInfo {
            name: name.into(),
            skill_type: SkillType::AgentSkills,
            content: format!("---\nname: {name}\ndescription: {description}\n---\n"),
            triggers: vec![format!("/{name}")],
            source: Some(source.into()),
            description: Some(description.into()),
            is_agentskills_format: true,
            ..SkillInfo::default()
        }
    }

    fn public_src(name: &str) -> String {
        format!("{HOME}/.openhands/cache/skills/public-skills/skills/{name}/SKILL.md")
    }
    fn user_src(name: &str) -> String {
        format!("{HOME}/.agents/skills/{name}/SKILL.md")
    }
    fn org_src(name: &str) -> String {
        format!("/tmp/openhands_org_skills_acme_x1/skills/{name}.md")
    }
    fn project_src(name: &str) -> String {
        format!("{PROJECT}/.agents/skills/{name}.md")
    }

    fn tier(t: Tier, skills: Vec<SkillInfo>) -> TierResult {
        TierResult::new(t, skills)
    }

    fn names(m: &Merged) -> Vec<&str> {
        m.skills.iter().map(|s| s.skill.name.as_str()).collect()
    }

    #[test]
    fn tiers_are_ordered_by_precedence() {
        let mut shuffled = vec![
            Tier::Project,
            Tier::Sandbox,
            Tier::User,
            Tier::Public,
            Tier::Organization,
            Tier::Marketplace,
        ];
        shuffled.sort();
        assert_eq!(shuffled, Tier::ALL);
        assert!(Tier::Sandbox < Tier::Marketplace);
        assert!(Tier::Marketplace < Tier::Public);
        assert!(Tier::Public < Tier::User);
        assert!(Tier::User < Tier::Organization);
        assert!(Tier::Organization < Tier::Project);
        let labels: Vec<_> = Tier::ALL.iter().map(|t| t.label()).collect();
        assert_eq!(
            labels,
            [
                "Sandbox",
                "Marketplace",
                "Public",
                "User",
                "Organization",
                "Project"
            ]
        );
    }

    #[test]
    fn request_flags_per_tier() {
        const P: bool = true;
        const X: bool = false;
        // (tier, project_dir, [load_public, load_user, load_project, load_org], sent project_dir)
        type Row<'a> = (Tier, Option<&'a str>, [bool; 4], Option<&'a str>);
        let table: &[Row] = &[
            (Tier::Sandbox, Some(PROJECT), [X, X, X, X], None),
            (Tier::Marketplace, None, [P, X, X, X], None),
            (Tier::Public, Some(PROJECT), [P, X, X, X], None),
            (Tier::User, Some(PROJECT), [X, P, X, X], None),
            (Tier::Organization, None, [X, X, X, P], None),
            (Tier::Project, Some(PROJECT), [X, X, P, X], Some(PROJECT)),
            (Tier::Project, None, [X, X, P, X], None),
        ];
        for &(t, dir, flags, sent) in table {
            let r = request(t, dir);
            assert_eq!(
                [r.load_public, r.load_user, r.load_project, r.load_org],
                flags,
                "{t:?}"
            );
            assert_eq!(r.project_dir.as_deref(), sent, "{t:?}");
        }
        // Marketplace cannot be asked alone: same body as Public.
        assert_eq!(
            request(Tier::Marketplace, None),
            request(Tier::Public, None)
        );
        // The wire body of the project tier.
        assert_eq!(
            serde_json::to_value(request(Tier::Project, Some(PROJECT))).unwrap(),
            json!({"load_public": false, "load_user": false, "load_project": true,
                   "load_org": false, "project_dir": PROJECT})
        );
        assert_eq!(
            request(Tier::Project, Some(PROJECT)),
            SkillsRequest::project(PROJECT)
        );
    }

    #[test]
    fn fetch_plan_asks_each_loadable_tier_once() {
        let tiers = |dir| {
            fetch_plan(dir)
                .into_iter()
                .map(|(t, _)| t)
                .collect::<Vec<_>>()
        };
        assert_eq!(tiers(None), [Tier::Public, Tier::User]);
        assert_eq!(tiers(Some("  ")), [Tier::Public, Tier::User]);
        assert_eq!(
            tiers(Some(PROJECT)),
            [Tier::Public, Tier::User, Tier::Project]
        );
        for (t, body) in fetch_plan(Some(PROJECT)) {
            assert_eq!(body, request(t, Some(PROJECT)));
        }
    }

    #[test]
    fn every_higher_tier_overrides_every_lower_one() {
        // For every pair lower < higher, the same name in both: higher wins, lists lower.
        for (i, &lower) in Tier::ALL.iter().enumerate() {
            for &higher in &Tier::ALL[i + 1..] {
                let lo = repo("conventions", Some(&format!("/{lower:?}/conventions.md")));
                let hi = repo("conventions", Some(&format!("/{higher:?}/conventions.md")));
                // Input order must not matter.
                for input in [
                    vec![
                        tier(lower, vec![lo.clone()]),
                        tier(higher, vec![hi.clone()]),
                    ],
                    vec![
                        tier(higher, vec![hi.clone()]),
                        tier(lower, vec![lo.clone()]),
                    ],
                ] {
                    let m = merge(&input, &[]);
                    assert_eq!(m.skills.len(), 1, "{lower:?} vs {higher:?}");
                    let s = &m.skills[0];
                    assert_eq!(s.tier, higher);
                    assert_eq!(s.skill, hi);
                    assert_eq!(s.overrides, [(lower, lo.source.clone())]);
                    assert!(s.shadowed.is_empty());
                }
            }
        }
    }

    #[test]
    fn table_of_precedence_cases() {
        struct Case {
            what: &'static str,
            tiers: Vec<TierResult>,
            // (name, winning tier, winning source)
            expect: Vec<(&'static str, Tier, Option<String>)>,
        }
        let cases = vec![
            Case {
                what: "distinct names all kept",
                tiers: vec![
                    tier(Tier::Sandbox, vec![repo("work_hosts", None)]),
                    tier(
                        Tier::Public,
                        vec![knowledge(
                            "github",
                            &["github"],
                            &public_src("github"),
                            "GitHub",
                        )],
                    ),
                    tier(Tier::Project, vec![repo("agents", Some("/p/AGENTS.md"))]),
                ],
                expect: vec![
                    ("agents", Tier::Project, Some("/p/AGENTS.md".into())),
                    ("github", Tier::Public, Some(public_src("github"))),
                    ("work_hosts", Tier::Sandbox, None),
                ],
            },
            Case {
                what: "user beats public",
                tiers: vec![
                    tier(
                        Tier::Public,
                        vec![knowledge(
                            "docker",
                            &["docker"],
                            &public_src("docker"),
                            "Docker",
                        )],
                    ),
                    tier(
                        Tier::User,
                        vec![knowledge(
                            "docker",
                            &["container"],
                            &user_src("docker"),
                            "Mine",
                        )],
                    ),
                ],
                expect: vec![("docker", Tier::User, Some(user_src("docker")))],
            },
            Case {
                what: "public beats marketplace",
                tiers: vec![
                    tier(
                        Tier::Marketplace,
                        vec![agentskill("pdf", "/m/plugins/pdf/SKILL.md", "PDF")],
                    ),
                    tier(
                        Tier::Public,
                        vec![agentskill("pdf", &public_src("pdf"), "PDF")],
                    ),
                ],
                expect: vec![("pdf", Tier::Public, Some(public_src("pdf")))],
            },
            Case {
                what: "a sandbox skill is overridden by anything",
                tiers: vec![
                    tier(Tier::Sandbox, vec![repo("work_hosts", None)]),
                    tier(
                        Tier::User,
                        vec![repo("work_hosts", Some(&user_src("work_hosts")))],
                    ),
                ],
                expect: vec![("work_hosts", Tier::User, Some(user_src("work_hosts")))],
            },
            Case {
                what: "organization beats user, project beats organization",
                tiers: vec![
                    tier(Tier::User, vec![repo("style", Some(&user_src("style")))]),
                    tier(
                        Tier::Organization,
                        vec![repo("style", Some(&org_src("style")))],
                    ),
                    tier(
                        Tier::Organization,
                        vec![repo("review", Some(&org_src("review")))],
                    ),
                    tier(
                        Tier::Project,
                        vec![repo("review", Some(&project_src("review")))],
                    ),
                ],
                expect: vec![
                    ("review", Tier::Project, Some(project_src("review"))),
                    ("style", Tier::Organization, Some(org_src("style"))),
                ],
            },
            Case {
                what: "names compare exactly (case matters, as on the server)",
                tiers: vec![
                    tier(
                        Tier::Public,
                        vec![repo("GitHub", Some(&public_src("GitHub")))],
                    ),
                    tier(Tier::User, vec![repo("github", Some(&user_src("github")))]),
                ],
                expect: vec![
                    ("GitHub", Tier::Public, Some(public_src("GitHub"))),
                    ("github", Tier::User, Some(user_src("github"))),
                ],
            },
            Case {
                what: "blank names are dropped",
                tiers: vec![tier(
                    Tier::User,
                    vec![SkillInfo::default(), repo("  ", None), repo("ok", None)],
                )],
                expect: vec![("ok", Tier::User, None)],
            },
            Case {
                what: "nothing loaded",
                tiers: vec![tier(Tier::Public, vec![]), tier(Tier::Organization, vec![])],
                expect: vec![],
            },
        ];
        for case in cases {
            let m = merge(&case.tiers, &[]);
            let got: Vec<_> = m
                .skills
                .iter()
                .map(|s| (s.skill.name.as_str(), s.tier, s.skill.source.clone()))
                .collect();
            assert_eq!(got, case.expect, "{}", case.what);
        }
    }

    #[test]
    fn within_a_tier_the_first_found_wins() {
        // ~/.agents/skills before ~/.openhands/skills before ~/.openhands/microagents.
        let agents = knowledge("github", &["github"], &user_src("github"), "new location");
        let legacy_src = format!("{HOME}/.openhands/skills/github.md");
        let legacy = knowledge("github", &["gh"], &legacy_src, "legacy location");
        let micro_src = format!("{HOME}/.openhands/microagents/github.md");
        let micro = knowledge("github", &["git"], &micro_src, "microagent");

        let m = merge(
            &[tier(Tier::User, vec![agents.clone(), legacy, micro])],
            &[],
        );
        let s = m.get("github").unwrap();
        assert_eq!(s.skill, agents);
        assert_eq!(s.tier, Tier::User);
        assert_eq!(
            s.shadowed,
            [Some(legacy_src.clone()), Some(micro_src.clone())]
        );
        assert!(s.overrides.is_empty());

        // Two answers for the same tier count as one list, in the given order.
        let first = repo("setup", Some(&user_src("setup")));
        let second = repo("setup", Some("/elsewhere/setup.md"));
        let m = merge(
            &[
                tier(Tier::User, vec![first.clone()]),
                tier(Tier::Project, vec![]),
                tier(Tier::User, vec![second]),
            ],
            &[],
        );
        let s = m.get("setup").unwrap();
        assert_eq!(s.skill, first);
        assert_eq!(s.shadowed, [Some("/elsewhere/setup.md".to_string())]);
    }

    #[test]
    fn override_chain_across_three_tiers() {
        let public = knowledge("github", &["github"], &public_src("github"), "public");
        let user = knowledge("github", &["github", "gh"], &user_src("github"), "user");
        let user_dup_src = format!("{HOME}/.openhands/skills/github.md");
        let user_dup = knowledge("github", &["gh"], &user_dup_src, "user legacy");
        let project = knowledge("github", &["pr"], &project_src("github"), "project");

        // Given out of order on purpose.
        let m = merge(
            &[
                tier(Tier::Project, vec![project.clone()]),
                tier(Tier::Public, vec![public]),
                tier(Tier::User, vec![user, user_dup]),
            ],
            &[],
        );
        assert_eq!(names(&m), ["github"]);
        let s = &m.skills[0];
        assert_eq!(s.skill, project);
        assert_eq!(s.tier, Tier::Project);
        // Nearest tier first; the user tier's shadowed duplicate is hidden too.
        assert_eq!(
            s.overrides,
            [
                (Tier::User, Some(user_src("github"))),
                (Tier::User, Some(user_dup_src)),
                (Tier::Public, Some(public_src("github"))),
            ]
        );
        assert!(s.shadowed.is_empty());
    }

    #[test]
    fn disabled_is_applied_after_the_merge() {
        let public_docker = knowledge("docker", &["docker"], &public_src("docker"), "public");
        let user_docker = knowledge("docker", &["docker"], &user_src("docker"), "user");
        let tiers = [
            tier(Tier::Sandbox, vec![repo("work_hosts", None)]),
            tier(
                Tier::Public,
                vec![
                    public_docker,
                    knowledge("ssh", &["ssh"], &public_src("ssh"), "SSH"),
                ],
            ),
            tier(Tier::User, vec![user_docker.clone()]),
            tier(Tier::Project, vec![repo("agents", Some("/p/AGENTS.md"))]),
        ];

        struct Case {
            disabled: &'static [&'static str],
            active: &'static [&'static str],
            marked: &'static [&'static str],
            unknown: &'static [&'static str],
        }
        let table = [
            Case {
                disabled: &[],
                active: &["agents", "docker", "ssh", "work_hosts"],
                marked: &[],
                unknown: &[],
            },
            // Disabling the overriding user skill does not bring back the public one.
            Case {
                disabled: &["docker"],
                active: &["agents", "ssh", "work_hosts"],
                marked: &["docker"],
                unknown: &[],
            },
            Case {
                disabled: &["work_hosts", "agents", "agents"],
                active: &["docker", "ssh"],
                marked: &["agents", "work_hosts"],
                unknown: &[],
            },
            // Unknown names are reported, case matters.
            Case {
                disabled: &["Docker", "kubernetes", "", "kubernetes"],
                active: &["agents", "docker", "ssh", "work_hosts"],
                marked: &[],
                unknown: &["Docker", "kubernetes"],
            },
        ];
        for case in table {
            let disabled: Vec<String> = case.disabled.iter().map(|s| s.to_string()).collect();
            let m = merge(&tiers, &disabled);
            // Disabled entries stay listed for the UI.
            assert_eq!(
                names(&m),
                ["agents", "docker", "ssh", "work_hosts"],
                "{disabled:?}"
            );
            let active: Vec<&str> = m.enabled().map(|s| s.skill.name.as_str()).collect();
            assert_eq!(active, case.active, "{disabled:?}");
            assert_eq!(m.enabled().count(), case.active.len());
            let got: Vec<&str> = m
                .skills
                .iter()
                .filter(|s| s.disabled)
                .map(|s| s.skill.name.as_str())
                .collect();
            assert_eq!(got, case.marked, "{disabled:?}");
            assert_eq!(m.unknown_disabled, case.unknown, "{disabled:?}");
        }

        // The disabled docker is still the user one, still listing what it overrides.
        let m = merge(&tiers, &["docker".to_string()]);
        let s = m.get("docker").unwrap();
        assert!(s.disabled);
        assert_eq!(s.skill, user_docker);
        assert_eq!(s.overrides, [(Tier::Public, Some(public_src("docker")))]);
        assert_eq!(
            m.skills.iter().filter(|s| s.skill.name == "docker").count(),
            1
        );
    }

    #[test]
    fn sorted_by_name_case_insensitively() {
        let m = merge(
            &[
                tier(
                    Tier::Public,
                    vec![
                        repo("kubernetes", None),
                        repo("Azure-DevOps", None),
                        repo("bitbucket", None),
                        repo("azure", None),
                    ],
                ),
                tier(Tier::User, vec![repo("Bitbucket", None)]),
            ],
            &[],
        );
        assert_eq!(
            names(&m),
            [
                "azure",
                "Azure-DevOps",
                "Bitbucket",
                "bitbucket",
                "kubernetes"
            ]
        );
    }

    #[test]
    fn kind_of_a_skill() {
        let unknown = |triggers: &[&str]| SkillInfo {
            name: "x".into(),
            skill_type: SkillType::Unknown("rule".into()),
            triggers: triggers.iter().map(|t| t.to_string()).collect(),
            ..SkillInfo::default()
        };
        let table = [
            (repo("agents", None), KindFilter::Repo),
            (
                knowledge("npm", &["npm"], &public_src("npm"), "npm"),
                KindFilter::Knowledge,
            ),
            (
                agentskill("pdf", &public_src("pdf"), "PDF"),
                KindFilter::AgentSkills,
            ),
            (
                // The format flag wins over a mismatched type.
                SkillInfo {
                    is_agentskills_format: true,
                    ..repo("frontend-design", None)
                },
                KindFilter::AgentSkills,
            ),
            (
                SkillInfo {
                    skill_type: SkillType::AgentSkills,
                    ..repo("skill-creator", None)
                },
                KindFilter::AgentSkills,
            ),
            (unknown(&[]), KindFilter::Repo),
            (unknown(&["deploy"]), KindFilter::Knowledge),
        ];
        for (skill, kind) in table {
            assert_eq!(KindFilter::of(&skill), kind, "{}", skill.name);
        }
        let labels: Vec<_> = KindFilter::ALL.iter().map(|k| k.label()).collect();
        assert_eq!(labels, ["Always on", "Triggered", "AgentSkills"]);
    }

    #[test]
    fn kind_in_a_url_query() {
        for k in KindFilter::ALL {
            assert_eq!(KindFilter::from_param(k.param()), Some(k));
        }
        let table = [
            ("repo", Some(KindFilter::Repo)),
            (" Knowledge ", Some(KindFilter::Knowledge)),
            ("AGENTSKILLS", Some(KindFilter::AgentSkills)),
            ("", None),
            ("all", None),
            ("triggered", None),
        ];
        for (value, kind) in table {
            assert_eq!(KindFilter::from_param(value), kind, "{value:?}");
        }
    }

    #[test]
    fn filter_by_kind_and_text() {
        let m = merge(
            &[
                tier(Tier::Sandbox, vec![repo("work_hosts", None)]),
                tier(
                    Tier::Public,
                    vec![
                        knowledge(
                            "github",
                            &["github", "git"],
                            &public_src("github"),
                            "Work with GitHub pull requests",
                        ),
                        knowledge(
                            "kubernetes",
                            &["kubectl", "k8s"],
                            &public_src("kubernetes"),
                            "Cluster operations",
                        ),
                        agentskill("pdf", &public_src("pdf"), "Extract text from PDF files"),
                    ],
                ),
                tier(Tier::Project, vec![repo("agents", Some("/p/AGENTS.md"))]),
            ],
            &["github".to_string()],
        );
        let table: &[(Option<KindFilter>, &str, &[&str])] = &[
            (
                None,
                "",
                &["agents", "github", "kubernetes", "pdf", "work_hosts"],
            ),
            (
                None,
                "   ",
                &["agents", "github", "kubernetes", "pdf", "work_hosts"],
            ),
            (Some(KindFilter::Repo), "", &["agents", "work_hosts"]),
            (Some(KindFilter::Knowledge), "", &["github", "kubernetes"]),
            (Some(KindFilter::AgentSkills), "", &["pdf"]),
            // name
            (None, "HOSTS", &["work_hosts"]),
            // description (case-insensitive)
            (None, "pull REQUESTS", &["github"]),
            (None, "pdf", &["pdf"]),
            // trigger
            (None, "K8S", &["kubernetes"]),
            (None, " kubectl ", &["kubernetes"]),
            // several fields, kind narrows
            (None, "git", &["github"]),
            (
                None,
                "t",
                &["agents", "github", "kubernetes", "pdf", "work_hosts"],
            ),
            (Some(KindFilter::Repo), "t", &["agents", "work_hosts"]),
            (Some(KindFilter::AgentSkills), "k8s", &[]),
            (None, "terraform", &[]),
        ];
        for &(kind, text, expect) in table {
            let got: Vec<&str> = m
                .filter(kind, text)
                .iter()
                .map(|s| s.skill.name.as_str())
                .collect();
            assert_eq!(got, expect, "{kind:?} {text:?}");
        }
        // The disabled one is still found (the UI shows it greyed out).
        assert!(m.filter(None, "github")[0].disabled);
    }

    #[test]
    fn disabled_skills_patch_body() {
        let cur = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // (current, name, disable, stored list)
        let table: &[(&[&str], &str, bool, &[&str])] = &[
            (&[], "github", true, &["github"]),
            (
                &["ssh", "docker"],
                "github",
                true,
                &["docker", "github", "ssh"],
            ),
            (&["github"], "github", true, &["github"]),
            (&["ssh", "github", "ssh"], "github", false, &["ssh"]),
            (&["ssh"], "github", false, &["ssh"]),
            (&["github"], "github", false, &[]),
            (&["", "docker", " "], "", true, &["docker"]),
            (&["GitHub"], "github", false, &["GitHub"]),
        ];
        for &(current, name, disable, stored) in table {
            let body = disabled_skills_patch(&cur(current), name, disable);
            assert_eq!(
                body,
                json!({"misc_settings_diff": {"app_preferences": {"disabled_skills": stored}}}),
                "{current:?} {name} {disable}"
            );
            assert_eq!(toggle_disabled(&cur(current), name, disable), stored);
        }
    }

    #[test]
    fn patch_round_trips_through_settings() {
        use crate::agent_server::dto::Settings;
        let body = disabled_skills_patch(&["ssh".to_string()], "docker", true);
        // What GET /api/settings returns after the server deep-merges the diff.
        let settings: Settings = crate::transport::de::FromJson::from_json(&json!({
            "agent_settings": {},
            "conversation_settings": {},
            "llm_api_key_is_set": false,
            "misc_settings": body["misc_settings_diff"].clone(),
        }))
        .unwrap();
        assert_eq!(settings.disabled_skills(), ["docker", "ssh"]);
    }

    #[test]
    fn use_skill_prefill() {
        let table = [
            (
                knowledge(
                    "github",
                    &["github", "git"],
                    &public_src("github"),
                    "GitHub",
                ),
                "github",
            ),
            (
                knowledge("k8s", &["  ", " kubectl "], &public_src("k8s"), "k8s"),
                "kubectl",
            ),
            (repo("agents", Some("/p/AGENTS.md")), "/agents"),
            (agentskill("pdf", &public_src("pdf"), "PDF"), "/pdf"),
            (
                SkillInfo {
                    triggers: vec![],
                    ..agentskill("skill-creator", &public_src("skill-creator"), "Create")
                },
                "/skill-creator",
            ),
        ];
        for (skill, text) in table {
            assert_eq!(use_skill_text(&skill), text, "{}", skill.name);
        }
    }

    #[test]
    fn tier_result_from_a_server_answer() {
        let response: SkillsResponse = serde_json::from_value(json!({
            "skills": [
                {"name": "agents", "type": "repo", "content": "Use cargo-locked.",
                 "triggers": [], "source": "/p/AGENTS.md", "description": null,
                 "is_agentskills_format": false, "disable_model_invocation": false},
                {"name": "github", "type": "knowledge", "content": "…",
                 "triggers": ["github", "git"], "source": "/p/.agents/skills/github.md"}
            ],
            "sources": {"sandbox": 0, "registered_marketplaces": 0, "sdk_base": 0,
                        "org": 0, "project": 2}
        }))
        .unwrap();
        let t = TierResult::from_response(Tier::Project, response);
        assert_eq!(t.tier, Tier::Project);
        let m = merge(&[t], &[]);
        assert_eq!(names(&m), ["agents", "github"]);
        assert_eq!(m.get("github").unwrap().kind(), KindFilter::Knowledge);
        assert_eq!(m.get("agents").unwrap().kind(), KindFilter::Repo);
    }
}
