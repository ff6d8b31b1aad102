//! OpenHands Cloud's wire format (`spec/cloud.md`): app conversations, start tasks, sandboxes,
//! organizations and keys. The client that sends them is [`crate::client::cloud`].

pub mod dto;
