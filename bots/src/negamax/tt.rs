//! Position keys (Zobrist hashing, updated per move) and the transposition table of
//! the `hard` level: a fixed-size array of entries indexed by the low key bits,
//! allocated once per engine.

use uttt::rules::{Mark, Position, Square};

/// Random words for each (mark, square), each required board (index 9: free
/// move) and the side to move. Generated at compile time by SplitMix64 so keys
/// are the same in every build.
struct Keys {
    squares: [[u64; 81]; 2],
    next: [u64; 10],
    side: u64,
}

const fn splitmix(state: u64) -> (u64, u64) {
    (
        state.wrapping_add(0x9E37_79B9_7F4A_7C15),
        crate::engine::mix(state),
    )
}

static KEYS: Keys = {
    let mut keys = Keys {
        squares: [[0; 81]; 2],
        next: [0; 10],
        side: 0,
    };
    let mut state = 0x5EED_0F0A_11AB_u64;
    let mut mark = 0;
    while mark < 2 {
        let mut sq = 0;
        while sq < 81 {
            let (s, word) = splitmix(state);
            state = s;
            keys.squares[mark][sq] = word;
            sq += 1;
        }
        mark += 1;
    }
    let mut b = 0;
    while b < 10 {
        let (s, word) = splitmix(state);
        state = s;
        keys.next[b] = word;
        b += 1;
    }
    keys.side = splitmix(state).1;
    keys
};

fn next_index(pos: &Position) -> usize {
    pos.required_board().map_or(9, |b| b.index())
}

/// The key of `pos`, computed from scratch (once per search, at the root).
pub fn key_of(pos: &Position) -> u64 {
    let mut key = KEYS.next[next_index(pos)];
    if pos.side_to_move() == Mark::O {
        key ^= KEYS.side;
    }
    for sq in Square::all() {
        if let Some(mark) = pos.mark_at(sq) {
            key ^= KEYS.squares[mark.index()][sq.index()];
        }
    }
    key
}

/// The key of `after`, reached from `before` (whose key is `key`) by playing `sq`.
#[inline]
pub fn key_after(key: u64, before: &Position, sq: Square, after: &Position) -> u64 {
    key ^ KEYS.squares[before.side_to_move().index()][sq.index()]
        ^ KEYS.next[next_index(before)]
        ^ KEYS.next[next_index(after)]
        ^ KEYS.side
}

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Bound {
    /// Not a stored entry.
    #[default]
    Empty,
    /// The exact value.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (every move failed low).
    Upper,
}

/// One remembered search result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Entry {
    /// The full key, to tell collisions apart.
    pub key: u64,
    /// The score, with win distances relative to this node (see [`Table::store`]).
    pub score: i32,
    /// The best or refuting move, as a square index; 255 for none.
    pub best: u8,
    /// The depth searched below this node.
    pub depth: u8,
    /// What `score` bounds.
    pub bound: Bound,
}

impl Entry {
    /// The stored move, if any.
    pub fn best_move(&self) -> Option<Square> {
        Square::try_from_index(self.best)
    }
}

/// A transposition table of `2^bits` entries (16 bytes each).
#[derive(Debug)]
pub struct Table {
    entries: Vec<Entry>,
    mask: u64,
}

impl Table {
    /// An empty table of `2^bits` entries.
    pub fn new(bits: u32) -> Table {
        Table {
            entries: vec![Entry::default(); 1 << bits],
            mask: (1 << bits) - 1,
        }
    }

    /// Empties every slot.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    /// The entry for `key`, if stored.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.entries[(key & self.mask) as usize];
        (entry.bound != Bound::Empty && entry.key == key).then_some(entry)
    }

    /// Stores a result, replacing the slot unless it holds a deeper result for the
    /// same position.
    #[inline]
    pub fn store(&mut self, entry: Entry) {
        let slot = &mut self.entries[(entry.key & self.mask) as usize];
        if slot.key != entry.key || entry.depth >= slot.depth || slot.bound == Bound::Empty {
            *slot = entry;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use std::collections::{HashMap, HashSet};
    use uttt::notation::parse_move_list;
    use uttt::rules::Rules;

    #[test]
    fn incremental_keys_match_keys_from_scratch() {
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..50 {
            let mut pos = Position::new(Rules::STANDARD);
            let mut key = key_of(&pos);
            while !pos.is_over() {
                let sq = crate::engine::random_legal(&pos, &mut rng);
                let after = pos.play(sq).unwrap();
                key = key_after(key, &pos, sq, &after);
                assert_eq!(key, key_of(&after));
                pos = after;
            }
        }
    }

    /// Walks every line of `depth` plies, keyed incrementally, and records each
    /// position's key.
    fn walk(
        pos: &Position,
        key: u64,
        depth: u32,
        seen: &mut HashMap<Position, u64>,
        paths: &mut u32,
    ) {
        if let Some(&known) = seen.get(pos) {
            assert_eq!(known, key, "two keys for {pos}");
            *paths += 1;
        } else {
            seen.insert(*pos, key);
        }
        if depth == 0 {
            return;
        }
        for sq in pos.legal_moves() {
            let after = pos.after_unchecked(sq);
            walk(
                &after,
                key_after(key, pos, sq, &after),
                depth - 1,
                seen,
                paths,
            );
        }
    }

    #[test]
    fn transpositions_share_a_key_and_different_positions_do_not() {
        let start =
            Position::from_moves(Rules::STANDARD, parse_move_list("e5 e4 e2").unwrap()).unwrap();
        let mut seen = HashMap::new();
        let mut transpositions = 0;
        walk(&start, key_of(&start), 4, &mut seen, &mut transpositions);
        assert!(
            transpositions > 0,
            "the walk must reach some position twice"
        );
        let keys: HashSet<u64> = seen.values().copied().collect();
        assert_eq!(
            keys.len(),
            seen.len(),
            "a key collision among {} positions",
            seen.len()
        );
    }

    #[test]
    fn table_keeps_the_deeper_result() {
        let mut table = Table::new(4);
        let deep = Entry {
            key: 17,
            score: 5,
            best: 3,
            depth: 6,
            bound: Bound::Exact,
        };
        table.store(deep);
        table.store(Entry { depth: 2, ..deep });
        assert_eq!(table.probe(17).map(|e| e.depth), Some(6));
        assert!(table.probe(1).is_none(), "same slot, other key");
        table.store(Entry { key: 1, ..deep });
        assert!(table.probe(17).is_none(), "replaced by another position");
    }
}
