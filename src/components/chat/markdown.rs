//! Safe Markdown: `canvas_core::markdown`'s AST turned into real DOM nodes. Text always goes in
//! as text nodes (raw HTML stays literal); links carry `rel="noopener noreferrer"`; only URLs
//! that passed `safe_href` exist in the AST at all.

use canvas_core::markdown::{self, Align, Block, Inline, ListItem};
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
        Block::CodeBlock { language, code } => view! {
            <pre class="code-block" data-language=language><code>{code}</code></pre>
        }
        .into_any(),
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
        view! { <input type="checkbox" disabled=true checked=c aria-label="task" /> }
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
