//! The whole training of a shipped network, as one seeded recipe: generations
//! of self-play games, each followed by a fit on every game so far; the games
//! of a generation after the first are played by `mcts-net` with the network of
//! the fit before.
//!
//! The recipes of the shipped networks are [`Recipe::standard`] and
//! [`Recipe::most_boards`]; `train_net pipeline` runs one (bots/BENCHMARKS.md,
//! "mcts-net"), and `bots/src/net/PROVENANCE.md` records what it produced. A run
//! is a function of the recipe and the build alone: the games are seeded per
//! game and come back in order whatever the threads, and the fits are seeded and
//! single-threaded.

use std::fmt;

use uttt::rules::{Rules, Variant};

use super::selfplay::{GameRecord, generate};
use super::train::{FitOptions, FloatNet, fit};
use super::{NetModel, Network};
use crate::mcts::{MctsConfig, MctsEngine, NetworkChoice};

/// Who plays a generation's games.
#[derive(Clone, Debug, PartialEq)]
pub enum Player {
    /// An engine as `arena bot` takes it (today's `mcts` for the first
    /// generation), of fixed work.
    Spec(String),
    /// `mcts-net` at this many playouts a move, with the network fitted so far.
    Net {
        /// Playouts per move.
        playouts: u64,
    },
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Spec(spec) => write!(f, "{spec}"),
            Player::Net { playouts } => {
                write!(
                    f,
                    "mcts-net --playouts {playouts} (the network fitted so far)"
                )
            }
        }
    }
}

/// One generation: games, then a fit on every game so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Generation {
    /// Who plays the games.
    pub player: Player,
    /// How many games.
    pub games: u64,
    /// The seed of the games.
    pub seed: u64,
    /// How the fit after the games trains.
    pub fit: FitOptions,
}

/// A whole training run.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    /// The rules of every game.
    pub rules: Rules,
    /// Random plies at the start of each game: uniform in `0..=opening`.
    pub opening: u32,
    /// The generations, in order.
    pub generations: Vec<Generation>,
}

impl fmt::Display for Recipe {
    /// The recipe as PROVENANCE.md quotes it, one generation a line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "rules {}, 0 to {} random plies",
            self.rules, self.opening
        )?;
        for (k, g) in self.generations.iter().enumerate() {
            let o = &g.fit;
            writeln!(
                f,
                "generation {}: {} games of {}, seed {}; fit: {} epochs, batch {}, rate {}, search weight {}, policy weight {} at temperature {}, seed {}",
                k + 1,
                g.games,
                g.player,
                g.seed,
                o.epochs,
                o.batch,
                o.rate,
                o.search_weight,
                o.policy_weight,
                o.temperature,
                o.seed
            )?;
        }
        Ok(())
    }
}

impl Recipe {
    /// The recipe of `model`'s shipped network.
    pub fn of(model: NetModel) -> Recipe {
        match model {
            NetModel::Standard => Recipe::standard(),
            NetModel::MostBoards => Recipe::most_boards(),
        }
    }

    /// The recipe of the shipped standard network.
    pub fn standard() -> Recipe {
        let fit = FitOptions::default();
        Recipe {
            rules: Rules::STANDARD,
            opening: 8,
            // Three runs of today's `mcts`, as the shipped network was made: the
            // fits after the first two are measured, not kept (every fit starts
            // from the same seeded weights on every game so far).
            generations: [(3_000, 1), (8_000, 7), (24_000, 13)]
                .into_iter()
                .map(|(games, seed)| Generation {
                    player: Player::Spec("mcts --playouts 3000".into()),
                    games,
                    seed,
                    fit,
                })
                .collect(),
        }
    }

    /// The recipe of the shipped `most-boards` network.
    pub fn most_boards() -> Recipe {
        let rules = Rules::STANDARD.with(Variant::MostBoards);
        let fit = FitOptions {
            rules,
            ..FitOptions::default()
        };
        Recipe {
            rules,
            opening: 8,
            generations: vec![Generation {
                player: Player::Spec("mcts --playouts 3000".into()),
                games: 16_000,
                seed: 101,
                fit,
            }],
        }
    }

    /// A recipe small enough for a test: two generations of a few games.
    pub fn tiny() -> Recipe {
        let fit = FitOptions {
            epochs: 2,
            batch: 32,
            ..FitOptions::default()
        };
        Recipe {
            rules: Rules::STANDARD,
            opening: 8,
            generations: vec![
                Generation {
                    player: Player::Spec("mcts --playouts 40".into()),
                    games: 6,
                    seed: 1,
                    fit,
                },
                Generation {
                    player: Player::Net { playouts: 40 },
                    games: 4,
                    seed: 2,
                    fit,
                },
            ],
        }
    }
}

/// What a run hands back after each generation: its games and the network
/// fitted after them.
#[derive(Debug)]
pub struct Stage {
    /// The generation's games.
    pub games: Vec<GameRecord>,
    /// The network fitted to every game so far, as stored.
    pub network: Network,
}

/// Runs `recipe` on `threads` threads for the games; `on_stage` receives each
/// generation as it ends (to write it out), `log` the lines of progress.
///
/// # Errors
/// A spec is not an engine the registry knows, or a fit fails.
pub fn run(
    recipe: &Recipe,
    threads: usize,
    on_stage: &mut dyn FnMut(usize, &Stage) -> Result<(), String>,
    log: &mut dyn FnMut(&str),
) -> Result<Network, String> {
    let mut all: Vec<GameRecord> = Vec::new();
    let mut fitted: Option<Network> = None;
    for (k, generation) in recipe.generations.iter().enumerate() {
        log(&format!(
            "generation {}: {} games of {}",
            k + 1,
            generation.games,
            generation.player
        ));
        let make: Box<dyn Fn() -> MctsEngine + Sync> = match &generation.player {
            Player::Spec(spec) => {
                Box::new(super::selfplay::spec_factory(spec).map_err(|e| e.to_string())?)
            }
            Player::Net { playouts } => {
                let network = fitted
                    .take()
                    .ok_or("a generation of mcts-net needs a network fitted before it")?;
                // The engines of every game share the network for the rest of
                // the run.
                let network: &'static Network = Box::leak(Box::new(network));
                let config = MctsConfig {
                    playouts: Some(*playouts),
                    network: Some(NetworkChoice(network)),
                    ..MctsConfig::net()
                };
                Box::new(move || MctsEngine::named("mcts-net", config))
            }
        };
        let games = generate(
            &make,
            0..generation.games,
            recipe.opening,
            generation.seed,
            recipe.rules,
            threads,
            &|_| {},
        );
        all.extend(games.iter().cloned());
        let options = FitOptions {
            rules: recipe.rules,
            ..generation.fit
        };
        let net: FloatNet = fit(&all, &options, None, log)?;
        let network = net.quantize();
        on_stage(
            k,
            &Stage {
                games,
                network: network.clone(),
            },
        )?;
        fitted = Some(network);
    }
    fitted.ok_or_else(|| "the recipe has no generation".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fenced recipe and the network's SHA-256 that PROVENANCE.md records
    /// under `## {model}`.
    fn recorded(model: NetModel) -> (String, String) {
        let text = include_str!("PROVENANCE.md");
        let heading = format!("## {}\n", model.file_name());
        let section = text
            .split(&heading)
            .nth(1)
            .unwrap_or_else(|| panic!("PROVENANCE.md has no {heading}"));
        let section = section.split("\n## ").next().unwrap_or(section);
        let recipe = section
            .split("```text\n")
            .nth(1)
            .and_then(|r| r.split("```").next())
            .unwrap_or("");
        let hash = section
            .lines()
            .find_map(|l| l.strip_prefix("network sha256 "))
            .unwrap_or("")
            .trim();
        (recipe.to_string(), hash.to_string())
    }

    #[test]
    fn the_shipped_networks_are_what_their_recorded_recipes_made() {
        use sha2::Digest;
        for model in NetModel::ALL {
            let (recipe, hash) = recorded(model);
            // The recipe in the code is the one the record quotes ...
            assert_eq!(recipe, Recipe::of(model).to_string(), "{model:?}");
            // ... and the bytes in the binary are the ones that run produced.
            let digest: String = sha2::Sha256::digest(model.stored())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(
                digest, hash,
                "{model:?}: the shipped weights are not the recorded run's"
            );
        }
    }

    #[test]
    fn a_run_is_a_function_of_its_recipe() {
        let run_once = || {
            let mut stages = Vec::new();
            let net = run(
                &Recipe::tiny(),
                2,
                &mut |_, stage| {
                    stages.push(stage.games.clone());
                    Ok(())
                },
                &mut |_| {},
            )
            .unwrap();
            (net, stages)
        };
        let (a, games_a) = run_once();
        let (b, games_b) = run_once();
        assert_eq!(games_a, games_b);
        assert_eq!(a.encode(), b.encode());
        assert_eq!(games_a.len(), 2);
        assert_ne!(a, Network::zeros());
    }
}
