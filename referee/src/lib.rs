//! The referee: runs untrusted bot processes and plays one game between two seats,
//! judging every move with the rules engine of the [`uttt`] crate.
//!
//! - [`bot`] runs one bot process and speaks the protocol with it, turning every
//!   misbehaviour into a typed fault.
//! - [`dialect`] translates the protocol for bots written for other arenas.
//! - [`game`] plays one game between two seats and records it.
#![deny(missing_docs)]

pub mod bot;
pub mod dialect;
pub mod game;
