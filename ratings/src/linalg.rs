//! The little dense linear algebra the rating fit needs: a Cholesky factorisation of a
//! symmetric positive-definite matrix, to invert the information matrix for the
//! exact intervals. The matrices have one row per bot and are inverted only up to
//! [`super::covariance::EXACT_MAX_BOTS`] bots, so a straightforward O(m³)
//! factorisation, written so its inner loops run over contiguous memory, is
//! plenty; statrs builds without nalgebra here and one more crate for this would
//! not earn its place.

/// A square matrix, row-major.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Matrix {
    size: usize,
    data: Vec<f64>,
}

impl Matrix {
    pub(crate) fn zeros(size: usize) -> Matrix {
        Matrix {
            size,
            data: vec![0.0; size * size],
        }
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.size + j]
    }

    pub(crate) fn add(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.size + j] += value;
    }

    pub(crate) fn set(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.size + j] = value;
    }
}

/// The lower-triangular factor `L` of `A = L·Lᵀ`.
#[derive(Clone, Debug)]
pub(crate) struct Cholesky {
    lower: Matrix,
}

/// The matrix is not (numerically) positive definite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotPositiveDefinite;

impl Cholesky {
    /// Factorises `a`, which must be symmetric; only its lower triangle is read.
    ///
    /// A pivot below `1e-10` times the largest diagonal entry counts as zero: such a
    /// matrix is singular for our purpose (a direction the data cannot pin down).
    ///
    /// Row by row (Cholesky–Banachiewicz): every entry is one dot product of two
    /// row prefixes, contiguous in memory.
    pub(crate) fn new(a: &Matrix) -> Result<Cholesky, NotPositiveDefinite> {
        let m = a.size();
        let scale = (0..m).map(|i| a.get(i, i).abs()).fold(0.0, f64::max);
        let tiny = 1e-10 * scale.max(f64::MIN_POSITIVE);
        let mut l = Matrix::zeros(m);
        for i in 0..m {
            let (done, rest) = l.data.split_at_mut(i * m);
            let row_i = &mut rest[..m];
            for j in 0..i {
                let row_j = &done[j * m..j * m + m];
                let s = a.get(i, j) - dot(&row_i[..j], &row_j[..j]);
                row_i[j] = s / row_j[j];
            }
            let d = a.get(i, i) - dot(&row_i[..i], &row_i[..i]);
            if d.is_nan() || d <= tiny {
                return Err(NotPositiveDefinite);
            }
            row_i[i] = d.sqrt();
        }
        Ok(Cholesky { lower: l })
    }

    /// Solves `A·x = b` (the Newton steps of the tests' dense reference).
    #[cfg(test)]
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let l = &self.lower;
        let m = l.size();
        let mut y = b.to_vec();
        for i in 0..m {
            let row = &l.data[i * m..i * m + i];
            y[i] = (y[i] - dot(row, &y[..i])) / l.get(i, i);
        }
        for i in (0..m).rev() {
            for k in i + 1..m {
                y[i] -= l.get(k, i) * y[k];
            }
            y[i] /= l.get(i, i);
        }
        y
    }

    /// `A⁻¹ = L⁻ᵀ·L⁻¹`. Row `j` of `V = L⁻ᵀ` is column `j` of `L⁻¹`, found by
    /// forward substitution from `L·w = e_j`; then `(A⁻¹)_ij` is the dot product of
    /// rows `i` and `j` of `V` past their diagonals: about m³/3 multiply-adds in
    /// all, each loop over contiguous memory.
    pub(crate) fn inverse(&self) -> Matrix {
        let l = &self.lower;
        let m = l.size();
        // v[j·m + i] = (L⁻¹)_ij, zero for i < j.
        let mut v = vec![0.0; m * m];
        for j in 0..m {
            let w = &mut v[j * m..j * m + m];
            w[j] = 1.0 / l.get(j, j);
            for i in j + 1..m {
                let row = &l.data[i * m + j..i * m + i];
                w[i] = -dot(row, &w[j..i]) / l.get(i, i);
            }
        }
        let mut inv = Matrix::zeros(m);
        for i in 0..m {
            let vi = &v[i * m + i..i * m + m];
            for j in 0..=i {
                let x = dot(vi, &v[j * m + i..j * m + m]);
                inv.set(i, j, x);
                inv.set(j, i, x);
            }
        }
        inv
    }
}

/// `Σ aᵢ·bᵢ` over the shorter of the two, in eight independent sums (so the
/// compiler may keep them in vector registers), added at the end.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut sums = [0.0; 8];
    let mut chunks_a = a.chunks_exact(8);
    let mut chunks_b = b.chunks_exact(8);
    for (ca, cb) in (&mut chunks_a).zip(&mut chunks_b) {
        for k in 0..8 {
            sums[k] += ca[k] * cb[k];
        }
    }
    let tail: f64 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    sums.iter().sum::<f64>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: &[&[f64]]) -> Matrix {
        let mut m = Matrix::zeros(rows.len());
        for (i, row) in rows.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                m.set(i, j, *v);
            }
        }
        m
    }

    #[test]
    fn inverts_a_known_matrix() {
        // [[2, −0.4], [−0.4, 2]]⁻¹ = [[2, 0.4], [0.4, 2]] / 3.84.
        let a = matrix(&[&[2.0, -0.4], &[-0.4, 2.0]]);
        let inv = Cholesky::new(&a).unwrap().inverse();
        assert!((inv.get(0, 0) - 2.0 / 3.84).abs() < 1e-15);
        assert!((inv.get(0, 1) - 0.4 / 3.84).abs() < 1e-15);
    }

    #[test]
    fn solves_a_three_by_three_system() {
        let a = matrix(&[&[4.0, 2.0, 0.0], &[2.0, 5.0, 1.0], &[0.0, 1.0, 3.0]]);
        let x = [1.0, -2.0, 0.5];
        let b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| a.get(i, j) * x[j]).sum())
            .collect();
        let solved = Cholesky::new(&a).unwrap().solve(&b);
        for (s, x) in solved.iter().zip(x) {
            assert!((s - x).abs() < 1e-12);
        }
    }

    #[test]
    fn refuses_singular_matrices() {
        let a = matrix(&[&[1.0, 1.0], &[1.0, 1.0]]);
        assert_eq!(Cholesky::new(&a).err(), Some(NotPositiveDefinite));
    }

    #[test]
    fn the_inverse_times_the_matrix_is_the_identity() {
        // A = BᵀB + I for a fixed B with entries in (−1, 1): symmetric, positive
        // definite, 19 rows so the dot products have a remainder past 8.
        let m = 19;
        let b = |i: usize, j: usize| (((i * 31 + j * 17) % 23) as f64 - 11.0) / 12.0;
        let mut a = Matrix::zeros(m);
        for i in 0..m {
            for j in 0..m {
                let x: f64 = (0..m).map(|k| b(k, i) * b(k, j)).sum();
                a.set(i, j, x + if i == j { 1.0 } else { 0.0 });
            }
        }
        let inv = Cholesky::new(&a).unwrap().inverse();
        for i in 0..m {
            for j in 0..m {
                let x: f64 = (0..m).map(|k| a.get(i, k) * inv.get(k, j)).sum();
                let identity = if i == j { 1.0 } else { 0.0 };
                assert!((x - identity).abs() < 1e-10, "({i}, {j}): {x}");
            }
        }
    }

    #[test]
    fn dot_adds_every_product_whatever_the_length() {
        for n in 0..30 {
            let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..n).map(|i| (i % 3) as f64 - 1.0).collect();
            let expected: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert_eq!(dot(&a, &b), expected, "length {n}");
        }
    }
}
