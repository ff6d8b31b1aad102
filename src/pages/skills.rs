//! `/skills` (issue #13): the skills of the active backend gathered tier by tier and merged by
//! precedence (seed 002), with user-disabled skills applied after the merge.

use leptos::prelude::*;

#[component]
pub fn SkillsPage() -> impl IntoView {
    view! {
        <section class="page skills" data-testid="skills-page">
            <header class="page-header"><h1>"Skills"</h1></header>
        </section>
    }
}
