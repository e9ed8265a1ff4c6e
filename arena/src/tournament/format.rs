//! Who plays whom: the format of a run, as a tournament file or a command names
//! it. A vocabulary type read by the schedule (fixed formats), the draw (Swiss and
//! knockout), the settings and the commands; it computes no game itself.

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every bot against every other.
    RoundRobin,
    /// One bot (by index) against each of the others.
    Gauntlet {
        /// Index of the challenger among the bots.
        challenger: usize,
    },
    /// Swiss or knockout: each round drawn from the results of the last
    /// ([`super::draw`]), never a [`Schedule`](super::schedule::Schedule).
    Drawn(Drawn),
}

/// Who plays whom, round by round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drawn {
    /// A Swiss of this many rounds.
    Swiss {
        /// Rounds.
        rounds: u32,
    },
    /// A single-elimination bracket.
    Knockout {
        /// Extra colour-swapped pairs a tied match plays before the higher seed
        /// goes through.
        tiebreak_pairs: u32,
    },
}

impl Drawn {
    /// The least number of games the event plays (a knockout's tie-breaks add
    /// to it).
    pub fn games_at_least(self, bots: usize, games_per_pairing: u32) -> u64 {
        let bots = bots as u64;
        let games = u64::from(games_per_pairing);
        match self {
            Drawn::Swiss { rounds } => u64::from(rounds) * (bots / 2) * games,
            Drawn::Knockout { .. } => bots.saturating_sub(1) * games,
        }
    }
}
