//! The similarity check after a league run, wired: the students' copies that
//! played read by `similarity` (their sources, the starter code the teacher
//! named and the shipped starter kits left out of both sides), each bot asked
//! the same positions of the shipped suite (through `suite::ask`, for the
//! behaviour shown beside the source score), `similarity.csv` written, and the
//! lines that name each flagged pair. The teacher's alone: nothing of it goes
//! into a student's feedback.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::defaults;
use crate::similarity;
use crate::tournament::settings::RunSettings;

/// How many of the shipped suite's positions each student is asked, spread
/// evenly over it: enough for a share to mean something, few enough that a class
/// of 30 is asked in seconds.
const BEHAVIOUR_POSITIONS: usize = 30;

/// The longest a student is given per position when the league's own first-move
/// time is longer (the answers are compared, not timed: a loaded machine must
/// not turn them into timeouts).
const BEHAVIOUR_MOVE_TIME: Duration = Duration::from_secs(2);

/// Failures (no start, a fault) after which a bot is asked no more positions.
const GIVE_UP_AFTER: usize = 3;

/// The students' copies that played: name and copy.
pub fn copies(settings: &RunSettings, is_level: impl Fn(&str) -> bool) -> Vec<(String, PathBuf)> {
    settings
        .entrants
        .iter()
        .filter(|e| !is_level(&e.spec.name))
        .filter(|e| {
            settings
                .builds
                .get(&e.spec.name)
                .is_some_and(|step| step.submitted)
        })
        .filter_map(|e| {
            let copy = e.spec.command.working_dir.clone()?;
            Some((e.spec.name.clone(), copy))
        })
        .collect()
}

/// Similarity of the students' current copies (`students`: name and copy, the
/// code that played), `starter` the teacher's starter code: the sources
/// compared, each bot asked the same positions, `similarity.csv` written; the
/// lines that name each flagged pair.
///
/// # Errors
/// The suite cannot be read, or `similarity.csv` written.
pub fn check(
    students: &[(String, PathBuf)],
    settings: &RunSettings,
    starter: Option<&Path>,
    threshold: f64,
    out: &Path,
) -> anyhow::Result<Vec<String>> {
    let started = Instant::now();
    let subs: Vec<similarity::Submission> = students
        .iter()
        .filter_map(|(name, dir)| similarity::read_submission(name, dir))
        .collect();
    let starters = similarity::Starters::shipped_and(starter);
    let answers = behaviour(students, settings)?;
    let rows = similarity::compare(&subs, &starters, &answers, threshold);
    similarity::write(out, &rows)?;
    let flagged: Vec<&similarity::PairRow> = rows
        .iter()
        .filter(|r| r.flagged == similarity::Flag::Yes)
        .collect();
    let mut lines = vec![format!(
        "Similarity: {} submission{} compared in {:.1} s, {} pair{} at or above {threshold} \
         (similarity.csv; a flag is for a person to look at, it changes no grade)",
        subs.len(),
        if subs.len() == 1 { "" } else { "s" },
        started.elapsed().as_secs_f64(),
        flagged.len(),
        if flagged.len() == 1 { "" } else { "s" },
    )];
    for warning in starters.warnings() {
        lines.push(format!("  warning: {warning}"));
    }
    for r in flagged {
        lines.push(format!(
            "  {} and {} share {:.0}% of their code{}; {}",
            r.a,
            r.b,
            r.score * 100.0,
            r.behaviour.map_or_else(String::new, |b| format!(
                ", the same move in {:.0}% of {} positions",
                b * 100.0,
                r.positions
            )),
            terminal_words(&r.evidence)
        ));
    }
    Ok(lines)
}

/// The evidence as the terminal shows it: a fragment names a student's file,
/// and a file's name is the student's to choose, control characters included;
/// each fragment is escaped as bot text is (`\xNN`), so none can retitle or
/// rewrite the teacher's terminal.
fn terminal_words(evidence: &str) -> String {
    evidence
        .split("; ")
        .map(|f| uttt::protocol::escape_bytes(f.as_bytes()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Each student's answers to the same positions of the shipped suite (`None`
/// where it gave no legal move in time).
fn behaviour(
    students: &[(String, PathBuf)],
    settings: &RunSettings,
) -> anyhow::Result<BTreeMap<String, Vec<Option<String>>>> {
    let (_, entries) = super::super::suite::load(None).map_err(|e| anyhow::anyhow!(e))?;
    let step = (entries.len() / BEHAVIOUR_POSITIONS).max(1);
    let positions: Vec<_> = entries
        .into_iter()
        .step_by(step)
        .take(BEHAVIOUR_POSITIONS)
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut answers = BTreeMap::new();
    for (name, _) in students {
        let Some(entrant) = settings.entrants.iter().find(|e| &e.spec.name == name) else {
            continue;
        };
        if !entrant.spec.dialect.can_start_from_opening() {
            continue;
        }
        let time = entrant
            .time
            .first_move_time
            .or(entrant.time.move_time)
            .map_or(BEHAVIOUR_MOVE_TIME, |t| t.min(BEHAVIOUR_MOVE_TIME));
        let margin = entrant.time.margin;
        let said = runtime.block_on(async {
            let spec = &entrant.spec;
            let handshake = defaults::HANDSHAKE.duration();
            let mut said = Vec::with_capacity(positions.len());
            let mut session = None;
            let mut problems = 0;
            for entry in &positions {
                // A bot that keeps failing is not asked the rest: its answers
                // would all be missing anyway, each after a deadline.
                if problems >= GIVE_UP_AFTER {
                    said.push(None);
                    continue;
                }
                if session.is_none() {
                    session = referee::bot::BotSession::start_dialect(
                        &spec.command,
                        spec.dialect,
                        handshake,
                    )
                    .await
                    .ok();
                }
                let Some(bot) = session.as_mut() else {
                    said.push(None);
                    problems += 1;
                    continue;
                };
                let (answer, problem) =
                    super::super::suite::ask(bot, entry, time, margin, None).await;
                if problem.is_some() {
                    problems += 1;
                    if let Some(s) = session.take() {
                        s.kill().await;
                    }
                    said.push(None);
                } else {
                    said.push(answer.map(|(sq, _)| sq.to_string()));
                }
            }
            if let Some(s) = session {
                s.close(true).await;
            }
            said
        });
        answers.insert(name.clone(), said);
    }
    Ok(answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_in_the_evidence_reaches_the_terminal_without_its_control_characters() {
        let evidence = "\x1b]0;pwned\x07.py:1-9 ~ bot.py:2-10; a.py:3-4 ~ b.py:5-6";
        let shown = terminal_words(evidence);
        assert_eq!(
            shown,
            "\\x1b]0;pwned\\x07.py:1-9 ~ bot.py:2-10; a.py:3-4 ~ b.py:5-6"
        );
        assert!(!shown.chars().any(char::is_control));
    }
}
