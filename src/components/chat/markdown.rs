//! Safe Markdown: `canvas_core::markdown`'s AST turned into real DOM nodes. Text always goes in
//! as text nodes (raw HTML stays literal); links carry `rel="noopener noreferrer"`; only URLs
//! that passed `safe_href` exist in the AST at all. Code blocks are highlighted by the same
//! safe highlighter as the file viewer (spans with classes, never HTML), diffs line by line,
//! with the language and a "Copy" button above them (issue #15).

use crate::state::i18n::t;
use canvas_core::markdown::{self, Align, Block, Inline, ListItem};
use canvas_core::workspace::highlight::{diff_line_class, highlight, is_diff_fence, Language};
use leptos::prelude::*;

#[component]
pub fn Markdown(#[prop(into)] text: String) -> impl IntoView {
    let blocks = markdown::parse(&text);
    view! { <div class="md">{blocks.into_iter().map(block).collect_view()}</div> }
}

fn blocks(bs: Vec<Block>) -> AnyView {
    bs.into_iter().map(block).collect_view().into_any()
}

fn block(b: Block) -> AnyView {
    match b {
        Block::Paragraph(i) => view! { <p>{inlines(i)}</p> }.into_any(),
        Block::Plain(i) => inlines(i),
        Block::Heading { level, content } => {
            let c = inlines(content);
            match level {
                1 => view! { <h1>{c}</h1> }.into_any(),
                2 => view! { <h2>{c}</h2> }.into_any(),
                3 => view! { <h3>{c}</h3> }.into_any(),
                4 => view! { <h4>{c}</h4> }.into_any(),
                5 => view! { <h5>{c}</h5> }.into_any(),
                _ => view! { <h6>{c}</h6> }.into_any(),
            }
        }
        Block::CodeBlock { language, code } => {
            view! { <CodeBlock language=language.unwrap_or_default() code=code /> }.into_any()
        }
        Block::Quote(b) => view! { <blockquote>{blocks(b)}</blockquote> }.into_any(),
        Block::List { start: None, items } => {
            view! { <ul>{items.into_iter().map(list_item).collect_view()}</ul> }.into_any()
        }
        Block::List {
            start: Some(n),
            items,
        } => {
            view! { <ol start=n.to_string()>{items.into_iter().map(list_item).collect_view()}</ol> }
                .into_any()
        }
        Block::Table {
            alignments,
            head,
            rows,
        } => {
            let class = move |i: usize| match alignments.get(i).copied().unwrap_or(Align::None) {
                Align::None => "",
                Align::Left => "align-left",
                Align::Center => "align-center",
                Align::Right => "align-right",
            };
            let head = head
                .into_iter()
                .enumerate()
                .map(|(i, c)| view! { <th class=class(i)>{inlines(c)}</th> })
                .collect_view();
            let rows = rows
                .into_iter()
                .map(|r| {
                    let cells = r
                        .into_iter()
                        .enumerate()
                        .map(|(i, c)| view! { <td class=class(i)>{inlines(c)}</td> })
                        .collect_view();
                    view! { <tr>{cells}</tr> }
                })
                .collect_view();
            view! {
                <div class="md-table"><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>
            }
            .into_any()
        }
        Block::Rule => view! { <hr /> }.into_any(),
    }
}

fn list_item(li: ListItem) -> impl IntoView {
    let check = li.checked.map(|c| {
        view! { <input type="checkbox" disabled=true checked=c aria-label=t!("chat.markdown.task") /> }
    });
    view! { <li>{check}{blocks(li.blocks)}</li> }
}

fn inlines(is: Vec<Inline>) -> AnyView {
    is.into_iter().map(inline).collect_view().into_any()
}

fn inline(i: Inline) -> AnyView {
    match i {
        Inline::Text(t) => t.into_any(),
        Inline::Code(t) => view! { <code>{t}</code> }.into_any(),
        Inline::Emphasis(c) => view! { <em>{inlines(c)}</em> }.into_any(),
        Inline::Strong(c) => view! { <strong>{inlines(c)}</strong> }.into_any(),
        Inline::Strikethrough(c) => view! { <del>{inlines(c)}</del> }.into_any(),
        Inline::Link {
            href,
            title,
            children,
        } => {
            let external = !markdown::link_attrs(&href).is_empty();
            view! {
                <a
                    href=href
                    title=title
                    rel=external.then_some("noopener noreferrer")
                    target=external.then_some("_blank")
                >
                    {inlines(children)}
                </a>
            }
            .into_any()
        }
        Inline::SoftBreak => " ".into_any(),
        Inline::HardBreak => view! { <br /> }.into_any(),
    }
}

/// A fenced code block: language label, "Copy", highlighted lines (long lines scroll).
#[component]
fn CodeBlock(language: String, code: String) -> impl IntoView {
    let diff = is_diff_fence(&language);
    let lang = Language::from_fence(&language);
    let label = if diff {
        t!("chat.markdown.diff")
    } else if lang != Language::Plain {
        lang.name().to_string()
    } else {
        language
            .split_whitespace()
            .next()
            .map_or_else(|| t!("chat.markdown.text"), str::to_string)
    };
    let body = if diff {
        code.split_inclusive('\n')
            .map(|line| {
                let class = diff_line_class(line.trim_end_matches('\n'));
                view! { <span class=class>{line.to_string()}</span> }
            })
            .collect_view()
            .into_any()
    } else {
        highlight(&code, lang)
            .into_iter()
            .enumerate()
            .map(|(i, toks)| {
                view! {
                    {(i > 0).then_some("\n")}
                    {toks.into_iter().map(|t| view! { <span class=t.class.css()>{t.text}</span> }).collect_view()}
                }
            })
            .collect_view()
            .into_any()
    };
    // "Copied" (or why not) for a moment, then "Copy" again.
    let state = RwSignal::new(None::<Result<(), String>>);
    let text = StoredValue::new(code);
    let copy = Action::new_local(move |_: &()| {
        let t = text.get_value();
        async move {
            let r = crate::platform::clipboard::copy(&t).await;
            if state.try_set(Some(r)).is_none() {
                set_timeout(
                    move || {
                        state.try_set(None);
                    },
                    std::time::Duration::from_secs(2),
                );
            }
        }
    });
    view! {
        <div class="code-wrap">
            <div class="code-head">
                <span class="code-lang" data-testid="code-language">{label}</span>
                <button type="button" class="btn small code-copy" data-testid="code-copy"
                    aria-label=t!("chat.markdown.copy_label") on:click=move |_| { copy.dispatch(()); }>
                    {move || match state.get() {
                        None => t!("chat.markdown.copy"),
                        Some(Ok(())) => t!("chat.markdown.copied"),
                        Some(Err(e)) => t!("chat.markdown.copy_failed", error = e),
                    }}
                </button>
            </div>
            <pre class="code-block" data-language=(!language.is_empty()).then(|| language.clone())><code>{body}</code></pre>
        </div>
    }
}
