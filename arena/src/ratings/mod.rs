//! Ratings and match statistics (docs below are placeholders).

pub mod bradley_terry;
pub mod elo;
pub mod estimate;
mod graph;
mod linalg;
pub mod model;
pub mod pentanomial;
pub mod record;
pub mod sprt;

#[cfg(test)]
mod simulation;
