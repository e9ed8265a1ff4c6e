//! The search tree: nodes in one `Vec` (an arena addressed by `u32` indices),
//! children of a node stored side by side, so a node is 24 bytes and expansion is
//! one `extend`. Positions are not stored; a search replays moves from the root.
//!
//! Moving the root after a move (tree reuse) copies the surviving subtree into a
//! second, reused buffer, so memory stays bounded by what is still useful.

use rand::Rng;
use uttt::rules::{Mark, Position, Rules, Square};

/// What is proven about a node, from the point of view of the player who made the
/// move into it (its "mover").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proof {
    /// Not proven.
    Unknown,
    /// The mover wins with best play.
    Win,
    /// The mover loses with best play.
    Loss,
    /// Best play draws.
    Draw,
}

impl Proof {
    /// The proof of a finished position for the player who just moved.
    pub fn of_finished(pos: &Position, mover: Mark) -> Proof {
        match pos.status().outcome() {
            None => Proof::Unknown,
            Some(outcome) => match outcome.winner() {
                Some(winner) if winner == mover => Proof::Win,
                Some(_) => Proof::Loss,
                None => Proof::Draw,
            },
        }
    }
}

/// Which static evaluation scores new children for the implicit minimax backups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Evaluation {
    /// [`crate::eval`], read as a chance through a logistic curve.
    Handmade,
    /// [`crate::learned`], fitted to self-play results (under rules no model
    /// serves, combinations of house rules, the hand-written one stands in).
    #[default]
    Learned,
    /// [`crate::net`], the network fitted to self-play (under rules it has no
    /// model for, the linear model, or failing that the hand-written one, stands
    /// in).
    Net,
}

impl Evaluation {
    /// The evaluation to use under `rules`: the network or the linear model only
    /// where one serves those rules ([`crate::net::NetModel::for_rules`],
    /// [`crate::learned::Model::for_rules`]), the next one down otherwise.
    pub fn for_rules(self, rules: Rules) -> Evaluation {
        match self {
            Evaluation::Net if crate::net::NetModel::for_rules(rules).is_some() => self,
            Evaluation::Net | Evaluation::Learned
                if crate::learned::Model::for_rules(rules).is_some() =>
            {
                Evaluation::Learned
            }
            _ => Evaluation::Handmade,
        }
    }

    /// The implicit-minimax weight tuned for this evaluation: the learned value is
    /// trusted more (0.7) than the hand-written one (0.3), which also stands in
    /// under house rules (bots/BENCHMARKS.md, "MCTS tuning" and "The learned value").
    pub fn weight(self) -> f32 {
        match self {
            Evaluation::Net => NET_WEIGHT,
            Evaluation::Learned => 0.7,
            Evaluation::Handmade => 0.3,
        }
    }

    /// What scores positions under `rules`: [`Evaluation::for_rules`], with
    /// `network` in place of the shipped network when given (for training).
    pub fn scorer(self, rules: Rules, network: Option<NetworkChoice>) -> Scorer {
        match (self, network) {
            (Evaluation::Net, Some(choice)) => Scorer::Net(choice.0),
            _ => match self.for_rules(rules) {
                Evaluation::Net => match crate::net::NetModel::for_rules(rules) {
                    Some(model) => Scorer::Net(model.network()),
                    None => Scorer::Handmade,
                },
                Evaluation::Learned => Scorer::Learned,
                Evaluation::Handmade => Scorer::Handmade,
            },
        }
    }

    /// The chance (0..1) that the side to move of `pos` wins, a draw counting
    /// half; exact for a finished position.
    #[inline]
    pub fn chance(self, pos: &Position) -> f32 {
        self.scorer(pos.rules(), None).chance(pos)
    }
}

/// A network given to a search in place of the shipped one (the training
/// pipeline plays games with the networks it fits).
#[derive(Clone, Copy)]
pub struct NetworkChoice(pub &'static crate::net::Network);

impl std::fmt::Debug for NetworkChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NetworkChoice(..)")
    }
}

impl PartialEq for NetworkChoice {
    fn eq(&self, other: &NetworkChoice) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

/// An evaluation resolved for one search: what scores new children.
#[derive(Clone, Copy, Debug)]
pub enum Scorer {
    /// The hand-written evaluation.
    Handmade,
    /// The linear model of the position's rules.
    Learned,
    /// This network.
    Net(&'static crate::net::Network),
}

impl Scorer {
    /// The implicit-minimax weight tuned for it.
    pub fn weight(self) -> f32 {
        match self {
            Scorer::Net(_) => Evaluation::Net.weight(),
            Scorer::Learned => Evaluation::Learned.weight(),
            Scorer::Handmade => Evaluation::Handmade.weight(),
        }
    }

    /// The chance (0..1) that the side to move of `pos` wins, a draw counting
    /// half; exact for a finished position.
    #[inline]
    pub fn chance(self, pos: &Position) -> f32 {
        match (self, pos.status().outcome()) {
            (Scorer::Net(net), None) => net.value(pos),
            (Scorer::Learned, None) => crate::learned::value(pos),
            _ => win_probability(evaluate_position(pos)),
        }
    }
}

/// The implicit-minimax weight of the network's value.
pub const NET_WEIGHT: f32 = 0.7;

/// An evaluation (for the side to move) as a win probability: a logistic squash
/// where a board's advantage (100 units) is about a 73% chance.
#[inline]
fn win_probability(score: i32) -> f32 {
    crate::learned::sigmoid(score as f32 / 100.0)
}

/// The static evaluation of a position for its side to move, or the exact value
/// of a finished one.
fn evaluate_position(pos: &Position) -> i32 {
    match pos.status().outcome() {
        None => crate::eval::evaluate(pos),
        Some(outcome) => match outcome.winner() {
            Some(w) if w == pos.side_to_move() => 100_000,
            Some(_) => -100_000,
            None => 0,
        },
    }
}

/// One node: a move and the statistics of the games that went through it.
#[derive(Clone, Copy, Debug)]
pub struct Node {
    /// Index of the first child; meaningful when `children > 0`.
    pub first_child: u32,
    /// Playouts through this node.
    pub visits: u32,
    /// Summed reward of the mover, each playout scoring 1 for a win and 0.5 for
    /// a draw. An `f32` keeps the node small; sums of halves stay exact up to
    /// 2^23 playouts, more than a game's searches add to one node.
    pub reward: f32,
    /// The move into this node (the root's is unused).
    pub square: Square,
    /// Number of children; 0 until expanded.
    pub children: u8,
    /// What is proven about the node.
    pub proof: Proof,
    /// The mover's value by the static evaluation, backed up by minimax over the
    /// expanded subtree (implicit minimax backups), in [0, 1]; 0.5 when unused.
    pub heuristic: f32,
    /// The selection prior in [0, 1] (PUCT): a softmax of the siblings' heuristic
    /// values when they were created, summing to 1 over them; 0 when unused. Fixed
    /// at creation: following the backed-up values instead costs an `exp` per child
    /// per step and measured weaker.
    pub prior: f32,
}

impl Node {
    fn new(square: Square, proof: Proof) -> Node {
        Node {
            first_child: 0,
            visits: 0,
            reward: 0.0,
            square,
            children: 0,
            proof,
            heuristic: match proof {
                Proof::Win => 1.0,
                Proof::Loss => 0.0,
                Proof::Draw | Proof::Unknown => 0.5,
            },
            prior: 0.0,
        }
    }

    /// The range of the node's children in the arena.
    #[inline]
    pub fn child_range(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + usize::from(self.children)
    }

    /// The mover's mean reward in [0, 1] (0.5 before any visit).
    pub fn mean(&self) -> f64 {
        if self.visits == 0 {
            0.5
        } else {
            f64::from(self.reward) / f64::from(self.visits)
        }
    }
}

/// The arena and the position at its root. The root is always node 0.
#[derive(Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    spare: Vec<Node>,
    capacity: usize,
    root_pos: Position,
    root_history: Vec<Square>,
}

/// The index of the root node.
pub const ROOT: usize = 0;

impl Tree {
    /// An empty tree for `root_pos` holding at most `capacity` nodes.
    ///
    /// Both buffers are reserved at full size now: growing a `Vec` of tens of
    /// megabytes during a search copies it, which costs milliseconds the move does
    /// not have. Reserving only maps address space; the system commits pages as the
    /// tree reaches them.
    pub fn new(root_pos: Position, history: &[Square], capacity: usize) -> Tree {
        let capacity = capacity.max(82);
        let mut tree = Tree {
            nodes: Vec::with_capacity(capacity),
            spare: Vec::with_capacity(capacity),
            capacity,
            root_pos,
            root_history: Vec::new(),
        };
        tree.reset(root_pos, history);
        tree
    }

    /// Forgets everything and starts over at `root_pos` (keeps the buffers).
    pub fn reset(&mut self, root_pos: Position, history: &[Square]) {
        self.nodes.clear();
        let placeholder = history
            .last()
            .copied()
            .unwrap_or(crate::tactics::square(4, 4));
        self.nodes.push(Node::new(placeholder, Proof::Unknown));
        self.root_pos = root_pos;
        self.root_history.clear();
        self.root_history.extend_from_slice(history);
    }

    /// The position at the root.
    pub fn root_pos(&self) -> &Position {
        &self.root_pos
    }

    /// The node at `index`.
    #[inline]
    pub fn node(&self, index: usize) -> &Node {
        &self.nodes[index]
    }

    /// The node at `index`, mutably.
    #[inline]
    pub fn node_mut(&mut self, index: usize) -> &mut Node {
        &mut self.nodes[index]
    }

    /// The children of `index`.
    #[inline]
    pub fn children(&self, index: usize) -> &[Node] {
        &self.nodes[self.nodes[index].child_range()]
    }

    /// Number of nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether only the root exists.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// Adds the children of `index`, whose position is `pos` (not over), in random
    /// order so untried moves are tried in random order. Children that end the
    /// game are proven at once; with `evaluate`, the others get the static
    /// evaluation as their heuristic value. With `prior_temperature`, each child's
    /// prior is the softmax of the children's heuristic values at that temperature
    /// (PUCT); without, priors stay 0. Returns false when the arena is full.
    pub fn expand(
        &mut self,
        index: usize,
        pos: &Position,
        evaluate: Option<Scorer>,
        prior_temperature: Option<f32>,
        rng: &mut impl Rng,
    ) -> bool {
        let moves = pos.legal_moves();
        if self.nodes.len() + moves.len() > self.capacity {
            return false;
        }
        let mover = pos.side_to_move();
        let first = self.nodes.len();
        // The network values every child from the parent's sums.
        let network = match evaluate {
            Some(Scorer::Net(net)) => Some((net, crate::net::Accumulators::of(net, pos))),
            _ => None,
        };
        for sq in moves {
            let after = pos.after_unchecked(sq);
            let mut node = Node::new(sq, Proof::of_finished(&after, mover));
            if node.proof == Proof::Unknown {
                if let Some((net, sums)) = &network {
                    let child = sums.child(net, pos, &after, sq);
                    node.heuristic = 1.0 - child.value(net, &after);
                } else if let Some(evaluation) = evaluate {
                    node.heuristic = 1.0 - evaluation.chance(&after);
                }
            }
            self.nodes.push(node);
        }
        let added = &mut self.nodes[first..];
        if let Some(temperature) = prior_temperature {
            let top = added.iter().map(|c| c.heuristic).fold(0.0f32, f32::max);
            let mut total = 0.0;
            for child in added.iter_mut() {
                child.prior = ((child.heuristic - top) / temperature).exp();
                total += child.prior;
            }
            for child in added.iter_mut() {
                child.prior /= total;
            }
        }
        for i in (1..added.len()).rev() {
            added.swap(i, rng.random_range(0..=i));
        }
        let node = &mut self.nodes[index];
        node.first_child = first as u32;
        node.children = moves.len() as u8;
        if evaluate.is_some() {
            self.back_up_heuristic(index);
        }
        true
    }

    /// Sets the heuristic value of `index` from its children's: the mover of the
    /// node gets what the best child leaves it.
    #[inline]
    pub fn back_up_heuristic(&mut self, index: usize) {
        let best = self
            .children(index)
            .iter()
            .map(|c| c.heuristic)
            .fold(0.0f32, f32::max);
        let node = &mut self.nodes[index];
        if node.children > 0 && node.proof == Proof::Unknown {
            node.heuristic = 1.0 - best;
        }
    }

    /// Recomputes the proof of `index` from its children (MCTS-solver): one child
    /// winning for its mover means the node's mover loses; all children losing
    /// means the node's mover wins; all proven with at least one draw is a draw.
    /// Returns whether the proof changed.
    pub fn update_proof(&mut self, index: usize) -> bool {
        let mut all_proven = true;
        let mut any_draw = false;
        for child in self.children(index) {
            match child.proof {
                Proof::Win => {
                    self.nodes[index].proof = Proof::Loss;
                    self.nodes[index].heuristic = 0.0;
                    return true;
                }
                Proof::Draw => any_draw = true,
                Proof::Unknown => all_proven = false,
                Proof::Loss => {}
            }
        }
        if !all_proven || self.nodes[index].children == 0 {
            return false;
        }
        let (proof, heuristic) = if any_draw {
            (Proof::Draw, 0.5)
        } else {
            (Proof::Win, 1.0)
        };
        self.nodes[index].proof = proof;
        self.nodes[index].heuristic = heuristic;
        true
    }

    /// Moves the root to the position after `history`, keeping the subtree of the
    /// moves played since the last root if they are in the tree; otherwise starts a
    /// new tree. Returns how many nodes were kept.
    pub fn advance(&mut self, pos: &Position, history: &[Square]) -> usize {
        let Some(since) = history.strip_prefix(self.root_history.as_slice()) else {
            self.reset(*pos, history);
            return 0;
        };
        let mut index = ROOT;
        let mut walked = self.root_pos;
        for &sq in since {
            let Some(offset) = self.children(index).iter().position(|c| c.square == sq) else {
                self.reset(*pos, history);
                return 0;
            };
            index = self.nodes[index].first_child as usize + offset;
            walked = walked.after_unchecked(sq);
        }
        if walked != *pos {
            self.reset(*pos, history);
            return 0;
        }
        if index != ROOT {
            self.rebase(index);
        }
        self.root_pos = *pos;
        self.root_history.clear();
        self.root_history.extend_from_slice(history);
        self.nodes.len()
    }

    /// Copies the subtree under `index` to the spare buffer (breadth first, children
    /// kept side by side) and makes it the tree.
    fn rebase(&mut self, index: usize) {
        let mut fresh = std::mem::take(&mut self.spare);
        fresh.clear();
        fresh.push(self.nodes[index]);
        let mut next = 0;
        while next < fresh.len() {
            let node = fresh[next];
            if node.children > 0 {
                let start = fresh.len();
                fresh.extend_from_slice(&self.nodes[node.child_range()]);
                fresh[next].first_child = start as u32;
            }
            next += 1;
        }
        self.spare = std::mem::replace(&mut self.nodes, fresh);
    }

    /// The most promising line from the root: most visited children.
    pub fn principal_variation(&self, limit: usize) -> Vec<Square> {
        let mut line = Vec::new();
        let mut index = ROOT;
        while line.len() < limit {
            let range = self.nodes[index].child_range();
            let Some(best) = range.max_by_key(|&i| self.nodes[i].visits) else {
                break;
            };
            if self.nodes[best].visits == 0 {
                break;
            }
            line.push(self.nodes[best].square);
            index = best;
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use uttt::rules::Rules;

    #[test]
    fn the_learned_value_is_used_only_under_rules_a_model_serves() {
        use uttt::rules::Variant;
        let mut rng = SmallRng::seed_from_u64(5);
        for rules in [
            Rules::STANDARD,
            Rules::STANDARD.with(Variant::MostBoards),
            Rules::STANDARD.with(Variant::OpenWonBoards),
            Rules::STANDARD.with(Variant::DrawsCountBoth),
            Rules::STANDARD
                .with(Variant::OpenWonBoards)
                .with(Variant::MostBoards),
        ] {
            let mut pos = Position::new(rules);
            for _ in 0..12 {
                pos.play_unchecked(crate::engine::random_legal(&pos, &mut rng));
            }
            let learned = Evaluation::Learned.chance(&pos);
            let handmade = Evaluation::Handmade.chance(&pos);
            let fitted = crate::learned::Model::for_rules(rules).is_some();
            assert_eq!(learned == handmade, !fitted, "{rules}");
            if fitted {
                assert_eq!(learned, crate::learned::value(&pos));
                assert_eq!(Evaluation::Learned.for_rules(rules), Evaluation::Learned);
            } else {
                assert_eq!(Evaluation::Learned.for_rules(rules), Evaluation::Handmade);
            }
        }
    }

    #[test]
    fn node_is_twenty_four_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 24);
    }

    #[test]
    fn priors_are_a_softmax_of_the_evaluations() {
        let mut rng = SmallRng::seed_from_u64(3);
        let pos = crate::fixtures::position(crate::fixtures::X_MUST_NOT_SEND_TO_BOARD_9);
        let mut tree = Tree::new(pos, &[], 1000);
        assert!(tree.expand(ROOT, &pos, Some(Scorer::Learned), Some(0.1), &mut rng));
        let children = tree.children(ROOT);
        let total: f32 = children.iter().map(|c| c.prior).sum();
        assert!((total - 1.0).abs() < 1e-5, "{total}");
        for a in children {
            for b in children {
                // p_a / p_b = exp((h_a - h_b) / T)
                let expected = ((a.heuristic - b.heuristic) / 0.1).exp();
                assert!((a.prior / b.prior / expected - 1.0).abs() < 1e-3);
                assert!(a.prior > 0.0);
            }
        }
        // Without a temperature, no priors.
        let mut plain = Tree::new(pos, &[], 1000);
        assert!(plain.expand(ROOT, &pos, Some(Scorer::Learned), None, &mut rng));
        assert!(plain.children(ROOT).iter().all(|c| c.prior == 0.0));
    }

    #[test]
    fn expansion_adds_every_legal_move_once() {
        let mut rng = SmallRng::seed_from_u64(1);
        let pos = Position::new(Rules::STANDARD);
        let mut tree = Tree::new(pos, &[], 1000);
        assert!(tree.expand(ROOT, &pos, None, None, &mut rng));
        let mut squares: Vec<Square> = tree.children(ROOT).iter().map(|c| c.square).collect();
        squares.sort();
        let legal: Vec<Square> = pos.legal_moves().iter().collect();
        assert_eq!(squares, legal);
        // The smallest arena still expands the root (1 + 81 nodes), then is full.
        let mut small = Tree::new(pos, &[], 0);
        assert!(small.expand(ROOT, &pos, None, None, &mut rng));
        let child = small.node(ROOT).first_child as usize;
        let after = pos.play(small.node(child).square).unwrap();
        assert!(
            !small.expand(child, &after, None, None, &mut rng),
            "arena full"
        );
        assert_eq!(small.len(), 82);
    }

    #[test]
    fn advancing_keeps_the_subtree_and_its_statistics() {
        let mut rng = SmallRng::seed_from_u64(1);
        let start = Position::new(Rules::STANDARD);
        let mut tree = Tree::new(start, &[], 10_000);
        tree.expand(ROOT, &start, None, None, &mut rng);
        let e5: Square = "e5".parse().unwrap();
        let offset = tree
            .children(ROOT)
            .iter()
            .position(|c| c.square == e5)
            .unwrap();
        let child = tree.node(ROOT).first_child as usize + offset;
        tree.node_mut(child).visits = 42;
        let after_e5 = start.play(e5).unwrap();
        tree.expand(child, &after_e5, None, None, &mut rng);
        let d4: Square = "d4".parse().unwrap();
        let grandchild = tree.node(child).first_child as usize
            + tree
                .children(child)
                .iter()
                .position(|c| c.square == d4)
                .unwrap();
        tree.node_mut(grandchild).visits = 7;

        let kept = tree.advance(&after_e5, &[e5]);
        assert_eq!(kept, 1 + 8);
        assert_eq!(tree.node(ROOT).visits, 42);
        assert_eq!(tree.node(ROOT).children, 8);
        let d4_node = tree.children(ROOT).iter().find(|c| c.square == d4).unwrap();
        assert_eq!(d4_node.visits, 7);

        // A history that does not extend the root's starts over.
        let c3: Square = "c3".parse().unwrap();
        let other = start.play(c3).unwrap();
        assert_eq!(tree.advance(&other, &[c3]), 0);
        assert_eq!(tree.len(), 1);
    }

    #[test]
    fn a_child_that_wins_proves_its_parent_lost() {
        let mut rng = SmallRng::seed_from_u64(1);
        let pos = crate::fixtures::position(crate::fixtures::X_WINS_WITH_I7);
        let mut tree = Tree::new(pos, &[], 1000);
        tree.expand(ROOT, &pos, None, None, &mut rng);
        let winning: Vec<Square> = tree
            .children(ROOT)
            .iter()
            .filter(|c| c.proof == Proof::Win)
            .map(|c| c.square)
            .collect();
        assert_eq!(winning, vec!["i7".parse::<Square>().unwrap()]);
        assert!(tree.update_proof(ROOT));
        assert_eq!(
            tree.node(ROOT).proof,
            Proof::Loss,
            "the root's mover (O) has lost"
        );
    }
}
