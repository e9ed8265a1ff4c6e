//! Who played whom, and who scored against whom: the two graphs that decide whether
//! ratings are comparable and whether a finite maximum-likelihood fit exists.
//!
//! - **Comparison graph** (undirected, an edge per pairing that played): ratings are
//!   only defined relative to each other within one connected component.
//! - **Scoring graph** (directed, `a → b` when `a` scored at least a draw against `b`
//!   in some game): the Bradley–Terry likelihood has a finite maximum iff, within each
//!   component, this graph is strongly connected (Ford 1957, "Solution of a ranking
//!   problem from binary comparisons", Amer. Math. Monthly 64(8); Hunter 2004, "MM
//!   algorithms for generalized Bradley–Terry models", Ann. Statist. 32(1), Assumption
//!   1). Otherwise some group never scored against another and their gap diverges.
//!
//! Bots are indices `0..n`; the graphs are small (one node per bot), so plain
//! breadth-first searches are enough.

use std::collections::VecDeque;

/// The two graphs over `n` bots.
#[derive(Clone, Debug)]
pub(crate) struct Graphs {
    /// Undirected neighbours.
    played: Vec<Vec<usize>>,
    /// `scored[a]` holds `b` when `a` scored against `b`.
    scored: Vec<Vec<usize>>,
}

impl Graphs {
    pub(crate) fn new(n: usize) -> Graphs {
        Graphs {
            played: vec![Vec::new(); n],
            scored: vec![Vec::new(); n],
        }
    }

    /// Records a game between `a` and `b` where `a` scored `a_half_points` (0..=2).
    pub(crate) fn add_game(&mut self, a: usize, b: usize, a_half_points: u8) {
        push_unique(&mut self.played[a], b);
        push_unique(&mut self.played[b], a);
        if a_half_points > 0 {
            push_unique(&mut self.scored[a], b);
        }
        if a_half_points < 2 {
            push_unique(&mut self.scored[b], a);
        }
    }

    /// Makes every two of `bots` score against each other: bots whose ratings are
    /// fixed cannot drift apart, whatever their games.
    pub(crate) fn tie(&mut self, bots: &[usize]) {
        for &a in bots {
            for &b in bots {
                if a != b {
                    push_unique(&mut self.scored[a], b);
                }
            }
        }
    }

    /// Connected components of the comparison graph, largest first, ties by their
    /// smallest bot index; bots in each component in index order.
    pub(crate) fn components(&self) -> Vec<Vec<usize>> {
        let n = self.played.len();
        let mut seen = vec![false; n];
        let mut components = Vec::new();
        for start in 0..n {
            if !seen[start] {
                let mut members = reach(&self.played, start);
                members.retain(|&v| !seen[v]);
                for &v in &members {
                    seen[v] = true;
                }
                components.push(members);
            }
        }
        components.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        components
    }

    /// The strongly connected groups of the scoring graph inside `component`, in
    /// order of their smallest bot. One group means a finite fit exists there.
    pub(crate) fn scoring_groups(&self, component: &[usize]) -> Vec<Vec<usize>> {
        let n = self.scored.len();
        let forward: Vec<Vec<bool>> = component
            .iter()
            .map(|&v| {
                let mut row = vec![false; n];
                for w in reach(&self.scored, v) {
                    row[w] = true;
                }
                row
            })
            .collect();
        let mut assigned = vec![false; n];
        let mut groups = Vec::new();
        for (i, &v) in component.iter().enumerate() {
            if assigned[v] {
                continue;
            }
            let group: Vec<usize> = component
                .iter()
                .enumerate()
                .filter(|&(j, &w)| forward[i][w] && forward[j][v])
                .map(|(_, &w)| w)
                .collect();
            for &w in &group {
                assigned[w] = true;
            }
            groups.push(group);
        }
        groups
    }
}

fn push_unique(list: &mut Vec<usize>, v: usize) {
    if !list.contains(&v) {
        list.push(v);
    }
}

/// Every node reachable from `start` (itself included), sorted.
fn reach(adjacency: &[Vec<usize>], start: usize) -> Vec<usize> {
    let mut seen = vec![false; adjacency.len()];
    seen[start] = true;
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &adjacency[v] {
            if !seen[w] {
                seen[w] = true;
                queue.push_back(w);
            }
        }
    }
    (0..adjacency.len()).filter(|&v| seen[v]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_found_and_ordered_by_size() {
        let mut g = Graphs::new(5);
        g.add_game(3, 4, 1);
        g.add_game(0, 1, 1);
        g.add_game(1, 2, 1);
        assert_eq!(g.components(), vec![vec![0, 1, 2], vec![3, 4]]);
    }

    #[test]
    fn a_cycle_of_wins_is_one_scoring_group() {
        let mut g = Graphs::new(3);
        g.add_game(0, 1, 2);
        g.add_game(1, 2, 2);
        g.add_game(2, 0, 2);
        assert_eq!(g.scoring_groups(&[0, 1, 2]), vec![vec![0, 1, 2]]);
    }

    #[test]
    fn a_bot_that_won_everything_is_its_own_group() {
        let mut g = Graphs::new(3);
        g.add_game(0, 1, 2);
        g.add_game(2, 0, 0);
        g.add_game(1, 2, 1);
        assert_eq!(g.scoring_groups(&[0, 1, 2]), vec![vec![0], vec![1, 2]]);
    }

    #[test]
    fn draws_connect_both_ways() {
        let mut g = Graphs::new(2);
        g.add_game(0, 1, 1);
        assert_eq!(g.scoring_groups(&[0, 1]), vec![vec![0, 1]]);
    }
}
