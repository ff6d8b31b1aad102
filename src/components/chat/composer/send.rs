//! Sending the composer's message: files first, then the text with the images and the paths.

use crate::components::chat::attachments::Attachments;
use crate::services::uploads::{upload_files, OnConflict, Uploaded};
use crate::state::events::ConversationStore;
use canvas_core::agent_server::dto::OutgoingMessage;
use canvas_core::conversations::chat::attachments::message_text;
use canvas_core::conversations::live::draft_after_send;
use canvas_core::error::ActionError;
use leptos::prelude::*;

/// Uploads the attached files (a taken name sets `taken` and sends nothing), then sends the
/// message; the box and the attachments empty once the server took it.
pub(super) fn send_action(
    s: ConversationStore,
    upload_dir: Option<String>,
    att: Attachments,
    uploading: RwSignal<Option<String>>,
    taken: RwSignal<Option<(String, Vec<String>)>>,
    draft: RwSignal<String>,
) -> Action<(String, OnConflict), Result<(), ActionError>> {
    Action::new_local(move |(text, on_conflict): &(String, OnConflict)| {
        let (s, text, on_conflict, dir) =
            (s.clone(), text.clone(), *on_conflict, upload_dir.clone());
        let pending = att.items.get_untracked();
        async move {
            let files: Vec<(String, Vec<u8>)> = pending
                .iter()
                .filter(|p| p.image.is_none())
                .map(|p| (p.name.clone(), p.bytes.clone()))
                .collect();
            let progress = move |p: Option<String>| {
                uploading.try_set(p);
            };
            let paths = match upload_files(
                s.backends,
                &s.active,
                &s.conv,
                dir,
                &files,
                on_conflict,
                progress,
            )
            .await?
            {
                Uploaded::Paths(p) => p,
                Uploaded::Taken { dir, names } => {
                    taken.try_set(Some((dir, names)));
                    return Ok(());
                }
            };
            let msg = OutgoingMessage {
                text: message_text(&text, &paths),
                image_urls: pending.into_iter().filter_map(|p| p.image).collect(),
            };
            let sent = s.send_with_images(msg).await;
            if sent.is_ok() {
                att.clear();
                draft.try_update(|d| {
                    if draft_after_send(d, &text).is_none() {
                        d.clear();
                    }
                });
            }
            sent
        }
    })
}
