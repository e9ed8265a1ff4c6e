//! The little dense linear algebra the rating fit needs: a Cholesky factorisation of a
//! symmetric positive-definite matrix, to take Newton steps and to invert the
//! information matrix. The matrices have one row per bot, so a straightforward
//! O(m³) factorisation is plenty; statrs builds without nalgebra here and one more
//! crate for this would not earn its place.

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
    pub(crate) fn new(a: &Matrix) -> Result<Cholesky, NotPositiveDefinite> {
        let m = a.size();
        let scale = (0..m).map(|i| a.get(i, i).abs()).fold(0.0, f64::max);
        let tiny = 1e-10 * scale.max(f64::MIN_POSITIVE);
        let mut l = Matrix::zeros(m);
        for j in 0..m {
            let mut d = a.get(j, j);
            for k in 0..j {
                d -= l.get(j, k).powi(2);
            }
            if d.is_nan() || d <= tiny {
                return Err(NotPositiveDefinite);
            }
            let d = d.sqrt();
            l.set(j, j, d);
            for i in j + 1..m {
                let mut s = a.get(i, j);
                for k in 0..j {
                    s -= l.get(i, k) * l.get(j, k);
                }
                l.set(i, j, s / d);
            }
        }
        Ok(Cholesky { lower: l })
    }

    /// Solves `A·x = b`.
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let l = &self.lower;
        let m = l.size();
        let mut y = b.to_vec();
        for i in 0..m {
            for k in 0..i {
                y[i] -= l.get(i, k) * y[k];
            }
            y[i] /= l.get(i, i);
        }
        for i in (0..m).rev() {
            for k in i + 1..m {
                y[i] -= l.get(k, i) * y[k];
            }
            y[i] /= l.get(i, i);
        }
        y
    }

    /// `A⁻¹`, column by column.
    pub(crate) fn inverse(&self) -> Matrix {
        let m = self.lower.size();
        let mut inv = Matrix::zeros(m);
        let mut e = vec![0.0; m];
        for j in 0..m {
            e.iter_mut().for_each(|v| *v = 0.0);
            e[j] = 1.0;
            for (i, v) in self.solve(&e).into_iter().enumerate() {
                inv.set(i, j, v);
            }
        }
        inv
    }
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
}
