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
//! Bots are indices `0..n`; both searches take time linear in the bots and the
//! pairings that played.

/// The two graphs over `n` bots.
#[derive(Clone, Debug)]
pub(crate) struct Graphs {
    /// Undirected neighbours (a neighbour may be listed more than once: the
    /// searches do not mind, and checking each time would cost a bot with many
    /// opponents as many steps per game).
    played: Vec<Vec<usize>>,
    /// `scored[a]` holds `b` when `a` scored against `b` (as often, see `played`).
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
        self.played[a].push(b);
        self.played[b].push(a);
        if a_half_points > 0 {
            self.scored[a].push(b);
        }
        if a_half_points < 2 {
            self.scored[b].push(a);
        }
    }

    /// Makes every two of `bots` score against each other: bots whose ratings are
    /// fixed cannot drift apart, whatever their games.
    pub(crate) fn tie(&mut self, bots: &[usize]) {
        for &a in bots {
            for &b in bots {
                if a != b {
                    self.scored[a].push(b);
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
                seen[start] = true;
                let mut members = vec![start];
                let mut next = 0;
                while next < members.len() {
                    let v = members[next];
                    next += 1;
                    for &w in &self.played[v] {
                        if !seen[w] {
                            seen[w] = true;
                            members.push(w);
                        }
                    }
                }
                members.sort_unstable();
                components.push(members);
            }
        }
        components.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        components
    }

    /// The strongly connected groups of the scoring graph inside `component`, in
    /// order of their smallest bot, each in index order. One group means a finite
    /// fit exists there.
    ///
    /// Tarjan's algorithm (R. Tarjan 1972, "Depth-first search and linear graph
    /// algorithms", SIAM J. Comput. 1(2)), with an explicit stack: time linear in
    /// the bots and pairings of the component.
    pub(crate) fn scoring_groups(&self, component: &[usize]) -> Vec<Vec<usize>> {
        let n = self.scored.len();
        let mut order = vec![usize::MAX; n];
        let mut low = vec![0; n];
        let mut on_stack = vec![false; n];
        let mut stack = Vec::new();
        let mut groups = Vec::new();
        let mut counter = 0;
        for &root in component {
            if order[root] != usize::MAX {
                continue;
            }
            // (node, index of its next edge to follow)
            let mut path = vec![(root, 0)];
            order[root] = counter;
            low[root] = counter;
            counter += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(&mut (v, ref mut edge)) = path.last_mut() {
                if let Some(&w) = self.scored[v].get(*edge) {
                    *edge += 1;
                    if order[w] == usize::MAX {
                        order[w] = counter;
                        low[w] = counter;
                        counter += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        path.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(order[w]);
                    }
                    continue;
                }
                path.pop();
                if let Some(&(parent, _)) = path.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == order[v] {
                    let mut group = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        group.push(w);
                        if w == v {
                            break;
                        }
                    }
                    group.sort_unstable();
                    groups.push(group);
                }
            }
        }
        groups.sort_by_key(|g| g[0]);
        groups
    }
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

    /// The groups by their definition: `v` and `w` are in one group when each
    /// reaches the other.
    fn groups_by_reach(g: &Graphs, component: &[usize]) -> Vec<Vec<usize>> {
        let reach = |from: usize| {
            let mut seen = vec![false; g.scored.len()];
            seen[from] = true;
            let mut todo = vec![from];
            while let Some(v) = todo.pop() {
                for &w in &g.scored[v] {
                    if !seen[w] {
                        seen[w] = true;
                        todo.push(w);
                    }
                }
            }
            seen
        };
        let reached: Vec<Vec<bool>> = component.iter().map(|&v| reach(v)).collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, &v) in component.iter().enumerate() {
            if groups.iter().any(|g| g.contains(&v)) {
                continue;
            }
            groups.push(
                component
                    .iter()
                    .enumerate()
                    .filter(|&(j, &w)| reached[i][w] && reached[j][v])
                    .map(|(_, &w)| w)
                    .collect(),
            );
        }
        groups
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 300,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x6a7),
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        #[test]
        fn the_groups_are_those_of_mutual_reach(
            games in proptest::collection::vec((0..9usize, 1..9usize, 0..3u8), 0..40)
        ) {
            let mut g = Graphs::new(9);
            for (a, offset, half) in games {
                g.add_game(a, (a + offset) % 9, half);
            }
            for component in g.components() {
                proptest::prop_assert_eq!(
                    g.scoring_groups(&component),
                    groups_by_reach(&g, &component)
                );
            }
            let mut all: Vec<usize> = g.components().concat();
            all.sort_unstable();
            proptest::prop_assert_eq!(all, (0..9).collect::<Vec<_>>());
        }
    }

    #[test]
    fn draws_connect_both_ways() {
        let mut g = Graphs::new(2);
        g.add_game(0, 1, 1);
        assert_eq!(g.scoring_groups(&[0, 1]), vec![vec![0, 1]]);
    }
}
