//! One labelled text input bound to a signal: the settings forms' fields (a profile's name,
//! model, base URL and key; a secret's name, value and description) written once.

use leptos::prelude::*;

/// `<label class="field"><span>{label}</span><input …/>{children}</label>`. `kind` is the
/// input's type (`text`, `url`, `password`); a password is never filled in by the browser
/// (`new-password`), other fields are not autocompleted; `plain` turns spellchecking off (names,
/// model ids).
#[component]
pub fn TextField(
    #[prop(into)] label: String,
    testid: &'static str,
    value: RwSignal<String>,
    #[prop(into)] disabled: Signal<bool>,
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional)] plain: bool,
    #[prop(optional, into)] placeholder: Option<String>,
    #[prop(optional)] maxlength: Option<&'static str>,
    #[prop(optional)] list: Option<&'static str>,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let autocomplete = if kind == "password" {
        "new-password"
    } else {
        "off"
    };
    view! {
        <label class="field">
            <span>{label}</span>
            <input type=kind data-testid=testid autocomplete=autocomplete
                spellcheck=plain.then_some("false") placeholder=placeholder maxlength=maxlength
                list=list
                prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev))
                disabled=move || disabled.get() />
            {children.map(|c| c())}
        </label>
    }
}
