//! Fingerprints of a token stream by winnowing (Schleimer, Wilkerson and Aiken,
//! "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003, the
//! method of MOSS): hash every run of `K` tokens, and keep the smallest hash of
//! every window of `W` consecutive runs. Any match of at least `K + W - 1` tokens
//! is guaranteed to share a fingerprint, and the fingerprints do not depend on
//! where in the file the code sits, so reordering functions keeps them.

use super::tokens::Token;

/// Tokens per hashed run: shorter runs match by accident (`for V in range ( V )
/// :` is in every program), longer ones miss copies edited every few lines.
pub const K: usize = 12;

/// Runs per window: a match of `K + W - 1` = 19 tokens (two or three lines) is
/// always found.
pub const W: usize = 8;

/// One fingerprint: a run's hash and where the run is (first and last line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Print {
    /// The run's hash.
    pub hash: u64,
    /// Its first line.
    pub first: u32,
    /// Its last line.
    pub last: u32,
}

/// FNV-1a of the run's token texts, with a separator between them.
fn hash(run: &[Token]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for token in run {
        for b in token.text.bytes().chain(std::iter::once(0)) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The winnowed fingerprints of `tokens`, in order (none for a file shorter than
/// one run).
pub fn winnow(tokens: &[Token]) -> Vec<Print> {
    if tokens.len() < K {
        return Vec::new();
    }
    let runs: Vec<Print> = tokens
        .windows(K)
        .map(|run| Print {
            hash: hash(run),
            first: run[0].line,
            last: run[K - 1].line,
        })
        .collect();
    let mut prints: Vec<Print> = Vec::new();
    let mut last_pick = usize::MAX;
    for start in 0..=runs.len().saturating_sub(W.min(runs.len())) {
        let window = &runs[start..(start + W).min(runs.len())];
        // The rightmost smallest hash, so a window sliding over a flat stretch
        // keeps one fingerprint rather than one per window.
        let mut pick = 0;
        for (i, p) in window.iter().enumerate() {
            if p.hash <= window[pick].hash {
                pick = i;
            }
        }
        let at = start + pick;
        if at != last_pick {
            prints.push(window[pick]);
            last_pick = at;
        }
    }
    prints
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(words: &[&str]) -> Vec<Token> {
        words
            .iter()
            .enumerate()
            .map(|(i, w)| Token {
                text: (*w).to_string(),
                line: u32::try_from(i).unwrap() + 1,
            })
            .collect()
    }

    #[test]
    fn a_shared_stretch_of_k_plus_w_minus_1_tokens_shares_a_fingerprint() {
        let shared: Vec<String> = (0..K + W - 1).map(|i| format!("t{i}")).collect();
        let mut a: Vec<String> = vec!["a".into(); 30];
        a.extend(shared.iter().cloned());
        let mut b: Vec<String> = shared.clone();
        b.extend(vec!["b".to_string(); 40]);
        let a = winnow(&toks(&a.iter().map(String::as_str).collect::<Vec<_>>()));
        let b = winnow(&toks(&b.iter().map(String::as_str).collect::<Vec<_>>()));
        assert!(a.iter().any(|p| b.iter().any(|q| q.hash == p.hash)));
    }

    #[test]
    fn fewer_tokens_than_a_run_have_no_fingerprint() {
        assert!(winnow(&toks(&["a"; K - 1])).is_empty());
        assert!(!winnow(&toks(&["a"; K])).is_empty());
    }
}
