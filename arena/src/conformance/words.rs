//! The words a bot's author reads about what their bot did wrong, shared by
//! `arena check`'s steps and feedback files and by a league's feedback
//! ([`super::feedback`]): a fault (from the referee's [`Fault`], or the same
//! facts read back from a failure bundle, [`FaultFacts`]), an illegal move and
//! why the rules refuse it, and the board where it happened.

use referee::bot::{ClockMode, Fault};
use uttt::notation::{board_name, format_move_list};
use uttt::rules::{BoardState, IllegalReason, Mark, Position, Square};

use crate::results::bundle::FaultFacts;
use crate::terminal::board::{BoardView, Theme, render};

/// What goes wrong in a step, in words for the bot's author.
pub fn explain(fault: &Fault) -> String {
    explain_facts(&FaultFacts::of_fault(fault))
}

/// A fault's facts in words for the bot's author: "no reply within 100 ms
/// (the limit, plus 50 ms margin; measured 312 ms)", "your bot stopped
/// running (exit code 1)". An illegal move needs its position: see
/// [`explain_illegal`].
pub fn explain_facts(facts: &FaultFacts) -> String {
    match facts {
        FaultFacts::Timeout {
            charged_ms,
            wall_ms,
            allowed_ms,
            margin_ms,
            clock,
            partial,
        } => {
            let measured = if clock == ClockMode::Wall.name() {
                format!("measured {charged_ms} ms")
            } else {
                format!("charged {charged_ms} ms by the {clock} clock, {wall_ms} ms passed")
            };
            let mut s = format!(
                "no reply within {allowed_ms} ms (the limit, plus {margin_ms} ms margin; {measured})"
            );
            if let Some(p) = partial {
                s.push_str(&format!(
                    ": your bot printed '{p}' but never ended the line — print a newline and flush"
                ));
            }
            s
        }
        FaultFacts::Malformed { problem } => {
            format!("your bot's answer was not understood: {problem}")
        }
        FaultFacts::Crash { exit, partial } => {
            let mut s = format!("your bot stopped running ({exit})");
            if let Some(p) = partial {
                s.push_str(&format!(" after printing '{p}' without a newline"));
            }
            s
        }
        FaultFacts::Disconnect { detail } => {
            format!("your bot {}", detail.trim_start_matches("it "))
        }
        FaultFacts::HandshakeFailure { detail } => format!("the handshake failed: {detail}"),
        FaultFacts::Illegal { square } => format!("your bot played {square}, which is illegal"),
    }
}

/// Why a square the bot chose is illegal, addressed to its author.
pub fn explain_illegal(pos: &Position, sq: Square) -> String {
    match pos.why_illegal(sq) {
        Some(IllegalReason::WrongBoard { required }) => format!(
            "your bot played {sq} but the board it had to play in is the {} (the `legal` list says which squares are allowed)",
            board_name(required)
        ),
        Some(IllegalReason::Occupied { by }) => {
            format!("your bot played {sq}, which is already taken by {by}")
        }
        Some(IllegalReason::BoardClosed { state }) => {
            let why = match state {
                BoardState::Won(owner) => format!("is already won by {owner}"),
                _ => "is full".to_string(),
            };
            format!(
                "your bot played {sq}, but the {} {why}; pick a square from `legal`",
                board_name(sq.board())
            )
        }
        Some(IllegalReason::GameOver) => "the game was already over".to_string(),
        None => format!("{sq} is legal"),
    }
}

/// `position` drawn as text, after the `moves` that led there and, when one
/// did, the illegal move that broke the rules (its mark and square).
pub fn board_lines(
    position: &Position,
    moves: &[Square],
    illegal: Option<(Mark, Square)>,
) -> Vec<String> {
    let last = moves.last().copied();
    let mut lines = vec![format!("moves: {}", format_move_list(moves))];
    if let Some((by, square)) = illegal {
        lines.push(format!(
            "then {by} played {square} (illegal) in this position:"
        ));
    } else {
        lines.push("the position then:".into());
    }
    lines.extend(render(
        &BoardView {
            position,
            last,
            cursor: None,
        },
        Theme::Plain,
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_fault_reads_the_same_from_the_referee_and_from_its_bundle() {
        let fault = Fault::Timeout {
            elapsed: Duration::from_millis(1051),
            wall: Duration::from_millis(1060),
            clock: ClockMode::Fair,
            allowed: Duration::from_millis(1000),
            margin: Duration::from_millis(50),
            partial: None,
        };
        assert_eq!(
            explain(&fault),
            "no reply within 1000 ms (the limit, plus 50 ms margin; charged 1051 ms by the \
             fair clock, 1060 ms passed)"
        );
        let round_trip: FaultFacts =
            serde_json::from_str(&serde_json::to_string(&FaultFacts::of_fault(&fault)).unwrap())
                .unwrap();
        assert_eq!(explain_facts(&round_trip), explain(&fault));
    }

    #[test]
    fn illegal_moves_are_explained_to_the_author() {
        let pos = Position::new(uttt::rules::Rules::STANDARD)
            .play("a1".parse().unwrap())
            .unwrap();
        assert_eq!(
            explain_illegal(&pos, "a1".parse().unwrap()),
            "your bot played a1, which is already taken by X"
        );
    }
}
