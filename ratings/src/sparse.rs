//! The rating fit's information matrix (the negative Hessian of its
//! log-likelihood) kept as its terms, and the solver that takes Newton steps
//! with it without ever writing it out.
//!
//! Each seat pair that played adds `w·a·aᵀ`, with `a = e_x − e_o + e_η` over the
//! free parameters (a fixed bot's entry left out) and `w = games·p·(1 − p)`; each
//! pairing's virtual draws add the same along `e_a − e_b`, the X advantage's along
//! `e_η`. So the matrix has one term per seat pair: with 5,000 bots and 100,000
//! games it is 25,000,000 cells written out, but at most 100,000 terms, and a
//! product with a vector costs one pass over them.
//!
//! Newton's step `H·s = g` is solved by the conjugate gradient method with the
//! diagonal as preconditioner (Hestenes & Stiefel 1952, "Methods of conjugate
//! gradients for solving linear systems", J. Res. Nat. Bur. Standards 49(6);
//! Nocedal & Wright, *Numerical Optimization*, 2nd ed., 2006, Algorithm 5.3 and
//! §7.1, where the Newton step is found this way). It is run to a relative
//! residual of [`CG_TOLERANCE`], so the steps, and the maximum they lead to, are
//! those of the dense factorisation to within rounding.

/// The conjugate gradient stops once `‖H·s − g‖ ≤ CG_TOLERANCE·‖g‖`.
pub(crate) const CG_TOLERANCE: f64 = 1e-12;

/// One term `w·a·aᵀ` of the information (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Term {
    /// The parameter with coefficient +1 in `a`, if free.
    pub(crate) plus: Option<usize>,
    /// The parameter with coefficient −1 in `a`, if free.
    pub(crate) minus: Option<usize>,
    /// Whether `a` has the X advantage (coefficient +1).
    pub(crate) eta: bool,
    /// The weight `w`, positive.
    pub(crate) weight: f64,
}

/// The information matrix over `size` parameters, the X advantage last.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Information {
    size: usize,
    terms: Vec<Term>,
}

/// Why a solve failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolveFailure {
    /// A direction with no curvature: the matrix is singular.
    Singular,
    /// The iterations ran out before the residual was small enough.
    NoConvergence,
}

impl Information {
    pub(crate) fn new(size: usize) -> Information {
        Information {
            size,
            terms: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, term: Term) {
        self.terms.push(term);
    }

    fn eta(&self) -> usize {
        self.size - 1
    }

    /// `(a·v)` for a term's `a`.
    fn along(&self, t: &Term, v: &[f64]) -> f64 {
        let mut s = 0.0;
        if let Some(p) = t.plus {
            s += v[p];
        }
        if let Some(q) = t.minus {
            s -= v[q];
        }
        if t.eta {
            s += v[self.eta()];
        }
        s
    }

    /// `out = H·v`.
    pub(crate) fn apply(&self, v: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        let eta = self.eta();
        for t in &self.terms {
            let s = t.weight * self.along(t, v);
            if let Some(p) = t.plus {
                out[p] += s;
            }
            if let Some(q) = t.minus {
                out[q] -= s;
            }
            if t.eta {
                out[eta] += s;
            }
        }
    }

    /// The diagonal of `H`.
    pub(crate) fn diagonal(&self) -> Vec<f64> {
        let mut d = vec![0.0; self.size];
        let eta = self.eta();
        for t in &self.terms {
            for p in [t.plus, t.minus, t.eta.then_some(eta)]
                .into_iter()
                .flatten()
            {
                d[p] += t.weight;
            }
        }
        d
    }

    /// `H` written out, for the exact intervals of a few bots.
    pub(crate) fn dense(&self) -> super::linalg::Matrix {
        let mut m = super::linalg::Matrix::zeros(self.size);
        let eta = self.eta();
        for t in &self.terms {
            let entries = [(t.plus, 1.0), (t.minus, -1.0), (t.eta.then_some(eta), 1.0)];
            for &(i, si) in &entries {
                let Some(i) = i else { continue };
                for &(j, sj) in &entries {
                    if let Some(j) = j {
                        m.add(i, j, si * sj * t.weight);
                    }
                }
            }
        }
        m
    }

    /// Solves `H·x = b` by the preconditioned conjugate gradient (see the module
    /// docs), from `x = 0`.
    ///
    /// # Errors
    /// [`SolveFailure::Singular`] when a search direction has no curvature (or a
    /// parameter none at all); [`SolveFailure::NoConvergence`] when `10·size + 100`
    /// iterations do not reach [`CG_TOLERANCE`].
    pub(crate) fn solve(&self, b: &[f64]) -> Result<Vec<f64>, SolveFailure> {
        let n = self.size;
        let diagonal = self.diagonal();
        let scale = diagonal.iter().fold(0.0f64, |a, &d| a.max(d));
        if diagonal
            .iter()
            .any(|&d| d.is_nan() || d <= 1e-300 + 1e-14 * scale)
        {
            return Err(SolveFailure::Singular);
        }
        let mut x = vec![0.0; n];
        let b_norm = norm(b);
        if b_norm == 0.0 {
            return Ok(x);
        }
        let mut r = b.to_vec();
        let mut z: Vec<f64> = r.iter().zip(&diagonal).map(|(r, d)| r / d).collect();
        let mut p = z.clone();
        let mut hp = vec![0.0; n];
        let mut rz = dot(&r, &z);
        for _ in 0..10 * n + 100 {
            self.apply(&p, &mut hp);
            let curvature = dot(&p, &hp);
            // pᵀHp against the preconditioner's pᵀDp: relative to the diagonal a
            // vanishing curvature is a direction the data do not pin down.
            let weighted: f64 = p.iter().zip(&diagonal).map(|(p, d)| p * p * d).sum();
            if curvature.is_nan() || curvature <= 1e-13 * weighted {
                return Err(SolveFailure::Singular);
            }
            let alpha = rz / curvature;
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * hp[i];
            }
            if norm(&r) <= CG_TOLERANCE * b_norm {
                return Ok(x);
            }
            for i in 0..n {
                z[i] = r[i] / diagonal[i];
            }
            let rz_next = dot(&r, &z);
            let beta = rz_next / rz;
            rz = rz_next;
            for i in 0..n {
                p[i] = z[i] + beta * p[i];
            }
        }
        Err(SolveFailure::NoConvergence)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    super::linalg::dot(a, b)
}

fn norm(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

#[cfg(test)]
mod tests {
    use super::super::linalg::Cholesky;
    use super::*;

    /// Three bots (the first fixed) and the X advantage: three free parameters.
    fn three_bots() -> Information {
        let mut h = Information::new(3);
        for (plus, minus, weight) in [
            (None, Some(0), 2.0),
            (Some(0), Some(1), 1.5),
            (Some(1), None, 0.5),
        ] {
            h.push(Term {
                plus,
                minus,
                eta: true,
                weight,
            });
        }
        h.push(Term {
            plus: None,
            minus: None,
            eta: true,
            weight: 0.25,
        });
        h
    }

    #[test]
    fn the_product_is_the_dense_matrix_times_the_vector() {
        let h = three_bots();
        let dense = h.dense();
        // By hand: a = (−1, 0, 1)·2, (1, −1, 1)·1.5, (0, 1, 1)·0.5, (0, 0, 1)·0.25.
        assert_eq!(dense.get(0, 0), 2.0 + 1.5);
        assert_eq!(dense.get(0, 1), -1.5);
        assert_eq!(dense.get(0, 2), -2.0 + 1.5);
        assert_eq!(dense.get(2, 2), 2.0 + 1.5 + 0.5 + 0.25);
        let v = [0.3, -1.2, 2.0];
        let mut out = [0.0; 3];
        h.apply(&v, &mut out);
        for (i, got) in out.iter().enumerate() {
            let expected: f64 = (0..3).map(|j| dense.get(i, j) * v[j]).sum();
            assert!((got - expected).abs() < 1e-14);
        }
        assert_eq!(h.diagonal(), vec![3.5, 2.0, 4.25]);
    }

    #[test]
    fn the_conjugate_gradient_solves_as_the_factorisation_does() {
        let h = three_bots();
        let b = [1.0, -2.0, 0.5];
        let cg = h.solve(&b).unwrap();
        let exact = Cholesky::new(&h.dense()).unwrap().solve(&b);
        for (c, e) in cg.iter().zip(&exact) {
            assert!((c - e).abs() < 1e-12, "{cg:?} vs {exact:?}");
        }
    }

    #[test]
    fn a_direction_without_curvature_is_singular() {
        // Two free bots that only ever met each other, with no fixed bot and no
        // X advantage term: their common shift is not pinned down.
        let mut h = Information::new(3);
        h.push(Term {
            plus: Some(0),
            minus: Some(1),
            eta: false,
            weight: 1.0,
        });
        h.push(Term {
            plus: None,
            minus: None,
            eta: true,
            weight: 1.0,
        });
        assert_eq!(h.solve(&[1.0, 1.0, 0.0]), Err(SolveFailure::Singular));
    }
}
