//! The OpenHands agent server's wire format (`spec/agent-server.md`): tolerant DTOs read from
//! real captures (`reference/agent-server/`). The client that sends them is
//! [`crate::client::local`].

pub mod dto;
