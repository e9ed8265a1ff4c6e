//! Ratings and match statistics (docs below are placeholders).

pub mod bradley_terry;
pub mod elo;
pub mod estimate;
mod graph;
mod linalg;
pub mod model;
pub mod pentanomial;
pub mod record;
pub mod report;
pub mod sprt;
pub mod table;

#[cfg(test)]
mod simulation;
