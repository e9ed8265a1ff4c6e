//! Reference bots.
