//! A bot entered in a run: a resolved bot ([`BotSpec`]) with the time control it
//! plays under. A plain value, made by the settings ([`super::settings`]) and
//! read by everything that plays: the isolation plan, the preflight, the runner.

use referee::game::TimeControl;

use super::bot_spec::BotSpec;
use crate::results::manifest::Launch;

/// A bot entered in a run.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// How to start it, and its name.
    pub spec: BotSpec,
    /// Its time control (differs between bots only with time odds, or with a
    /// time of their own such as `arena rate`'s levels).
    pub time: TimeControl,
}

impl Entrant {
    /// Whether its play depends on the CPU it gets: no node budget, and not a
    /// built-in engine of fixed work such as a reference level. Only such a
    /// bot's share of the CPU is the governor's concern and a verdict's.
    pub fn plays_by_the_clock(&self) -> bool {
        self.time.nodes.is_none() && !Launch::of(self.spec.builtin, &self.spec.command).fixed_work()
    }
}
