//! The games a check's bot lost by its own fault (an illegal move, a crash, a
//! timeout, an answer not understood), kept as a results directory like any
//! run's: `games.csv`, `moves.csv`, the transcripts, the failure bundle and
//! `tournament.json` with the bot's command, so `arena replay DIR --game ID`
//! shows the game and `arena repro DIR --game ID` asks the bot again. The
//! directory is made only when a game is kept; a check that passes writes
//! nothing.

use std::path::{Path, PathBuf};

use referee::dialect::Dialect;
use referee::game::{GameRecord, TimeControl};
use uttt::rules::Rules;

use crate::results::manifest::{BotEntry, Launch, Manifest, ScheduleKey};
use crate::results::store::{GameMeta, GameRow, ResultStore, move_rows};

/// Where a check keeps its failed games, and the bot they are of.
#[derive(Debug)]
pub struct FailedGames {
    /// The results directory (made at the first kept game).
    dir: PathBuf,
    /// The bot's entry in `tournament.json` (its command, protocol and times).
    bot: BotEntry,
    /// How it was started (its words and limits), for `arena repro`.
    launch: Launch,
    /// The check's seed.
    seed: u64,
    /// The rules the check plays.
    rules: Rules,
}

impl FailedGames {
    /// Failed games of the bot `name`, started as `command` speaking `dialect`
    /// (`builtin`: an engine of `arena bot`; `time`: the time control of the
    /// check's normal steps), to be kept in `dir`.
    pub fn new(
        dir: PathBuf,
        (name, command, dialect): (&str, &referee::bot::BotCommand, Dialect),
        builtin: bool,
        time: &TimeControl,
        seed: u64,
        rules: Rules,
    ) -> FailedGames {
        let ms = |d: Option<std::time::Duration>| {
            d.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        };
        FailedGames {
            dir,
            bot: BotEntry {
                name: name.to_string(),
                command: command.display(),
                protocol: dialect.name().into(),
                move_ms: ms(time.move_time),
                first_move_ms: ms(time.first_move_time),
                margin_ms: ms(Some(time.margin)).unwrap_or(0),
                clock_ms: None,
                increment_ms: None,
                nodes: None,
            },
            launch: Launch::of(builtin, command),
            seed,
            rules,
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keeps `record` under the next free game id and returns that id.
    ///
    /// # Errors
    /// The directory cannot be made or written (another run holds it, a link).
    pub fn keep(&self, record: &GameRecord, seed: u64) -> anyhow::Result<String> {
        let mut store = ResultStore::open(&self.dir)?;
        let rows = store.games()?;
        let number = (1..)
            .find(|n| !rows.iter().any(|r| r.id == GameMeta::id_of(*n)))
            .unwrap_or(1);
        let id = GameMeta::id_of(number);
        let mut record = record.clone();
        record.id.clone_from(&id);
        let meta = GameMeta {
            id: id.clone(),
            round: 1,
            pair: u32::try_from(number).unwrap_or(u32::MAX),
            seed,
        };
        let row = GameRow::new(&meta, &record);
        store.append(&row, &move_rows(&meta, &record))?;
        store.save_transcripts(&meta, &record)?;
        let mut manifest = Manifest::new(
            "check",
            ScheduleKey {
                seed: self.seed,
                rules: self.rules.to_string(),
                format: "check".into(),
                games_per_pairing: 1,
                openings: "the check's steps".into(),
                bots: vec![self.bot.clone()],
                // A check's moves are charged as `auto` charges them here.
                clock: referee::bot::ClockMode::auto().name().to_string(),
            },
            crate::results::manifest::ProcessPolicy::Reuse,
            1,
            None,
            number,
        );
        manifest.games_done = number;
        manifest
            .launch
            .insert(self.bot.name.clone(), self.launch.clone());
        crate::results::bundle::save(store.dir(), (&meta, &row, &record), &manifest)?;
        manifest.save(store.dir())?;
        Ok(id)
    }
}
