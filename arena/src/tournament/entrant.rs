//! A bot entered in a run: a resolved bot ([`BotSpec`]) with the time control it
//! plays under. A plain value, made by the settings ([`super::settings`]) and
//! read by everything that plays: the isolation plan, the preflight, the runner.

use referee::game::TimeControl;

use super::bot_spec::BotSpec;

/// A bot entered in a run.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// How to start it, and its name.
    pub spec: BotSpec,
    /// Its time control (differs between bots only with time odds, or with a
    /// time of their own such as `arena rate`'s levels).
    pub time: TimeControl,
}
