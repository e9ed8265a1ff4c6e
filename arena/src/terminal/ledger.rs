//! The seats of a human game (`arena play`) and its ledger: every move as it was
//! played, with its think time, kept across undo so that the record of the line
//! as finally played has every move's time, even of moves played before a
//! restart. The game itself is the referee's loop; this only notes and completes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use referee::bot::{Answer, BotSession, Fault, Reply};
use referee::game::{GameRecord, Seat};
use uttt::protocol::{GameOver, Go, Info, NewGame};
use uttt::rules::Square;

use super::human_seat::HumanSeat;

/// Who sits at one side of the board.
#[derive(Debug)]
pub enum Sitter<'a> {
    /// A person at this terminal.
    Human(HumanSeat),
    /// The bot.
    Bot(&'a mut BotSession),
}

/// A move as it was played: kept across undo so the record of the final line
/// has every move's think time, even for moves played before a restart.
#[derive(Clone, Debug, PartialEq)]
pub struct Played {
    /// The square.
    pub square: Square,
    /// The think time measured when it was played.
    pub think: Duration,
    /// What the bot reported with it.
    pub info: Option<Info>,
}

/// The moves played so far, by ply (1-based).
#[derive(Clone, Debug, Default)]
pub struct Ledger(Arc<Mutex<BTreeMap<u32, Played>>>);

impl Ledger {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u32, Played>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The move of `ply` (1-based): later plies are forgotten (a new line).
    pub fn note(&self, ply: u32, played: Played) {
        let mut plies = self.lock();
        plies.split_off(&ply);
        plies.insert(ply, played);
    }

    /// Undo: plies after `plies` were taken back.
    pub fn forget_after(&self, plies: usize) {
        let keep = u32::try_from(plies).unwrap_or(u32::MAX).saturating_add(1);
        self.lock().split_off(&keep);
    }

    /// The record of the final line: the `--from` moves are the opening (the
    /// restarts after undo passed more moves as the opening), and every later
    /// move gets back the time and info measured when it was played.
    pub fn complete(
        &self,
        mut record: GameRecord,
        opening: usize,
        duration: Duration,
    ) -> GameRecord {
        let plies = self.lock();
        for m in &mut record.moves[opening.min(record.opening_plies)..] {
            if let Some(played) = plies.get(&m.ply)
                && played.square == m.square
                && m.think.is_none()
            {
                m.think = Some(played.think);
                m.info.clone_from(&played.info);
            }
        }
        record.opening_plies = opening;
        record.duration = duration;
        record
    }
}

/// A seat whose moves are noted in the ledger.
#[derive(Debug)]
pub struct Logged<'a> {
    seat: Sitter<'a>,
    ledger: Ledger,
}

impl<'a> Logged<'a> {
    /// `seat`, noting its moves in `ledger`.
    pub fn new(seat: Sitter<'a>, ledger: &Ledger) -> Self {
        Logged {
            seat,
            ledger: ledger.clone(),
        }
    }
}

impl Seat for Logged<'_> {
    async fn new_game(&mut self, game: &NewGame) -> Result<(), Fault> {
        match &mut self.seat {
            Sitter::Human(h) => h.new_game(game).await,
            Sitter::Bot(b) => b.new_game(game).await,
        }
    }

    async fn ask(&mut self, go: &Go, allowed: Duration, margin: Duration) -> Result<Answer, Fault> {
        let answer = match &mut self.seat {
            Sitter::Human(h) => h.ask(go, allowed, margin).await,
            Sitter::Bot(b) => b.ask(go, allowed, margin).await,
        }?;
        if let Reply::Move(square) = answer.reply {
            let ply = u32::try_from(go.moves.len())
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            self.ledger.note(
                ply,
                Played {
                    square,
                    think: answer.elapsed,
                    info: answer.info.clone(),
                },
            );
        }
        Ok(answer)
    }

    async fn game_over(&mut self, over: &GameOver) {
        match &mut self.seat {
            Sitter::Human(h) => h.game_over(over).await,
            Sitter::Bot(b) => b.game_over(over).await,
        }
    }

    fn set_clock(&mut self, clock: referee::bot::ClockMode) {
        match &mut self.seat {
            Sitter::Human(h) => h.set_clock(clock),
            Sitter::Bot(b) => b.set_clock(clock),
        }
    }

    fn transcript(&self) -> Vec<String> {
        match &self.seat {
            Sitter::Human(_) => Vec::new(),
            Sitter::Bot(b) => b.transcript().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use referee::game::{GameSpec, TimeControl};
    use uttt::notation::parse_move_list;
    use uttt::rules::{ByMark, Mark, Position, Rules};

    #[test]
    fn the_record_keeps_the_final_line_with_its_think_times() {
        // Opening e5; the line was replayed from [e5, d4, b2] after an undo.
        let ledger = Ledger::default();
        let ms = Duration::from_millis;
        let played = |s: &str, t| Played {
            square: s.parse().unwrap(),
            think: ms(t),
            info: None,
        };
        ledger.note(2, played("d4", 10));
        ledger.note(3, played("a1", 20));
        ledger.note(4, played("e1", 30));
        ledger.forget_after(2); // undo took back a1 and e1
        ledger.note(3, played("b2", 40));
        ledger.note(4, played("e4", 50));
        let spec = GameSpec {
            id: "G0001".into(),
            rules: Rules::STANDARD,
            opening: parse_move_list("e5 d4 b2").unwrap(),
            time: ByMark::new_with(|_| TimeControl::per_move(100, 100, 10)),
            seeds: ByMark::default(),
            names: ByMark {
                x: "ada".into(),
                o: "bot".into(),
            },
        };
        // Build what play_game would return after the restart with a 3-move opening.
        let mut pos = Position::new(Rules::STANDARD);
        let mut moves = Vec::new();
        for (i, s) in ["e5", "d4", "b2", "e4"].iter().enumerate() {
            let sq: Square = s.parse().unwrap();
            let after = pos.play(sq).unwrap();
            let think = (i == 3).then(|| ms(50));
            moves.push(referee::game::MoveRecord::new(
                &pos, &after, sq, think, None,
            ));
            pos = after;
        }
        let record = GameRecord {
            id: spec.id.clone(),
            names: spec.names.clone(),
            rules: spec.rules,
            opening_plies: 3,
            moves,
            winner: None,
            termination: referee::game::Termination::Resign { by: Mark::X },
            position: pos,
            duration: ms(1),
            seeds: ByMark::default(),
            transcripts: ByMark::default(),
            evidence: ByMark::default(),
        };
        let record = ledger.complete(record, 1, ms(999));
        assert_eq!(record.opening_plies, 1);
        let thinks: Vec<Option<Duration>> = record.moves.iter().map(|m| m.think).collect();
        assert_eq!(thinks, [None, Some(ms(10)), Some(ms(40)), Some(ms(50))]);
        assert_eq!(record.duration, ms(999));
    }
}
