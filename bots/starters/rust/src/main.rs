//! Starter bot for uttt-arena in Rust, on the `uttt` crate (the arena's own
//! rules): it reads the referee's lines on standard input and answers on standard
//! output (protocol.md). Make it better by editing `choose`; debug output goes to
//! standard error. Build with `cargo build --release`, then
//! `arena check target/release/uttt-starter`.

use std::io::{self, BufRead, Write};

use uttt::protocol::{FromBot, IdField, ToBot, parse_to_bot};
use uttt::rules::{BoardState, Position, Rules, Square};

/// WRITE YOUR STRATEGY HERE: the move in `pos`, one of `legal` (never empty).
/// This one wins the game if it can, else claims a small board if it can, else
/// plays the first legal square.
fn choose(pos: Position, legal: &[Square]) -> Option<Square> {
    let me = pos.side_to_move();
    let after = |sq: &Square| pos.play(*sq).ok();
    let wins = |sq: &&Square| after(sq).and_then(|p| p.status().outcome()?.winner()) == Some(me);
    let claims =
        |sq: &&Square| after(sq).map(|p| p.board_state(sq.board())) == Some(BoardState::Won(me));
    legal
        .iter()
        .find(wins)
        .or_else(|| legal.iter().find(claims))
        .or(legal.first())
        .copied()
}

fn main() -> io::Result<()> {
    let mut out = io::stdout().lock();
    let mut rules = Rules::default();
    for line in io::stdin().lock().lines() {
        match parse_to_bot(&line?) {
            Ok(ToBot::Hello { .. }) => {
                writeln!(out, "{}", FromBot::Id(IdField::Name, "RustStarter".into()))?;
                writeln!(out, "{}", FromBot::Ready)?;
            }
            Ok(ToBot::NewGame(game)) => rules = game.rules,
            Ok(ToBot::Go(go)) => {
                // The referee sends every move so far: replaying them gives the position.
                let pos = Position::from_moves(rules, go.moves.iter().copied())
                    .map_err(|(i, e)| io::Error::other(format!("move {}: {e}", i + 1)))?;
                let reply = choose(pos, &go.legal).map_or(FromBot::Resign, FromBot::Move);
                writeln!(out, "{reply}")?;
            }
            Ok(ToBot::Quit) => break,
            Ok(ToBot::GameOver(_)) => {}
            Err(e) => eprintln!("[RustStarter] {e}"),
        }
        out.flush()?;
    }
    Ok(())
}
