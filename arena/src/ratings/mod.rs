//! Ratings and match statistics (placeholder docs, rewritten below).

pub mod bradley_terry;
pub mod elo;
pub mod estimate;
mod graph;
mod linalg;
pub mod model;
pub mod pentanomial;
pub mod record;
#[cfg(test)]
mod simulation;
