//! Page objects of the settings area. The Skills page: the merged list of skills by tier, the
//! project directory whose skills it loads, and each skill's row (enable/disable, use).

use crate::Browser;
use serde_json::json;

/// The Skills page (see the module docs).
pub struct SkillsPage<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The Skills page.
    pub fn skills(&self) -> SkillsPage<'_> {
        SkillsPage { b: self }
    }
}

impl SkillsPage<'_> {
    /// The selector of skill `name`'s row.
    pub fn row(name: &str) -> String {
        format!("[data-testid=skill-row][data-skill={}]", json!(name))
    }

    /// The names the list shows, in order, once every tier has answered.
    pub async fn listed(&self) -> Vec<String> {
        let v = self
            .b
            .wait_js(
                "the skills list with every tier loaded",
                "const l = document.querySelector('[data-testid=skills-list]'); \
                 return l && l.dataset.loading === 'false' \
                   ? [...l.querySelectorAll('[data-testid=skill-row]')].map(r => r.dataset.skill) : null;",
            )
            .await;
        serde_json::from_value(v).expect("names")
    }

    /// Types `project` into the project-directory field and loads it; waits for the project
    /// tier to answer.
    pub async fn load_project(&self, project: &str) {
        self.b
            .type_into("[data-testid=skills-project-dir]", project)
            .await;
        self.b.click("[data-testid=skills-project-load]").await;
        self.b
            .wait_js(
                "the project tier of the typed directory to load",
                &format!(
                    "const l = document.querySelector('[data-testid=skills-tiers]'); \
                     const t = document.querySelector('[data-testid=skills-tier][data-tier=Project]'); \
                     return !!l && l.dataset.projectDir === {} && !!t && t.dataset.state === 'loaded';",
                    json!(project)
                ),
            )
            .await;
    }

    /// Waits until skill `name` is shown as disabled (`true`) or enabled (`false`).
    pub async fn wait_disabled(&self, name: &str, disabled: bool) {
        self.b
            .wait_js(
                &format!("{name} to be shown disabled={disabled}"),
                &format!(
                    "const r = document.querySelector({}); return !!r && r.dataset.disabled === {};",
                    json!(Self::row(name)),
                    json!(disabled.to_string())
                ),
            )
            .await;
    }
}
