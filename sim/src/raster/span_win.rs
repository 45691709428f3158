//! What the two span paths ([`super::span`], textured; [`super::span_z`], depth-tested colour
//! varyings) share: the window's edge set-up, made in one place from the rasteriser's edges,
//! and its AVX2 form, eight pixels of a row at a time: which lanes the edges cover (the
//! reference's exact edge values with their top-left thresholds), the barycentric weights
//! (each edge value rounded once to f32, times 1/area, as the quad loop forms them) and the
//! perspective weights (the reference's IEEE operations in its order).

use super::SUB;

/// Pixels a span step shades: one row of eight lanes, the sampler's span.
pub(super) use crate::tsp::SPAN_PX;

#[cfg(test)]
thread_local! {
    /// Pixels the textured span path shaded on this thread: tests check that their scenes
    /// take it.
    pub(crate) static TEX_SHADED_PX: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Pixels the depth span path shaded on this thread.
    pub(crate) static Z_SHADED_PX: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// One edge as the rasteriser sets it up: (dx, dy, x0, y0, threshold), in sub-pixels.
pub(super) type Edge = (i64, i64, i64, i64, i64);

/// A window's edge and interpolation set-up, with what the path `P` interpolates.
pub(super) struct Window<P> {
    /// Each edge's top-left threshold: covered where its value is at least this.
    pub th: [i64; 3],
    /// Pixel window, inclusive.
    pub px0: i64,
    pub py0: i64,
    pub px1: i64,
    pub py1: i64,
    /// Edge values at pixel (px0, py0)'s centre, and their steps per pixel in x and y (all
    /// exact: the caller checked the vertices are small).
    pub e0: [i64; 3],
    pub sx: [i64; 3],
    pub sy: [i64; 3],
    pub inv_area: f32,
    /// 1/w of the ordered vertices.
    pub rhw: [f32; 3],
    /// The path's own set-up.
    pub paint: P,
}

impl<P> Window<P> {
    /// The window (`px0`, `py0`)-(`px1`, `py1`) of the ordered edges `ea`, whose values at
    /// the first pixel's centre are `e0`.
    pub(super) fn new(
        ea: &[Edge; 3],
        (px0, py0, px1, py1): (i64, i64, i64, i64),
        e0: [i64; 3],
        inv_area: f32,
        rhw: [f32; 3],
        paint: P,
    ) -> Self {
        let sub = SUB as i64;
        Window {
            th: ea.map(|e| e.4),
            px0,
            py0,
            px1,
            py1,
            e0,
            sx: ea.map(|(_, dy, ..)| -dy * sub),
            sy: ea.map(|(dx, ..)| dx * sub),
            inv_area,
            rhw,
            paint,
        }
    }

    /// The edge value of pixel (`px`, `py`), exact in i64.
    fn edge(&self, k: usize, px: i64, py: i64) -> i64 {
        self.e0[k] + (px - self.px0) * self.sx[k] + (py - self.py0) * self.sy[k]
    }

    /// Whether pixel (`px`, `py`) is in the window and covered: the reference's exact test.
    pub(super) fn inside(&self, px: i64, py: i64) -> bool {
        (self.px0..=self.px1).contains(&px)
            && (self.py0..=self.py1).contains(&py)
            && (0..3).all(|k| self.edge(k, px, py) >= self.th[k])
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) use lanes::Lanes;

#[cfg(target_arch = "x86_64")]
mod lanes {
    use std::arch::x86_64::*;

    use super::{Window, SPAN_PX};

    /// A window's edge set-up in AVX2 registers.
    #[derive(Clone, Copy)]
    pub(in crate::raster) struct Lanes {
        /// Lanes 0..4 and 4..8 times each edge's x step, exact in f64 (|values| < 2^51).
        lo: [__m256d; 3],
        hi: [__m256d; 3],
        th: [__m256d; 3],
        k_area: __m256,
        rhw: [__m256; 3],
    }

    /// A row's edge values at eight pixels (two halves of four), per edge.
    pub(in crate::raster) type RowEdges = [[__m256d; 2]; 3];

    impl Lanes {
        /// # Safety
        /// AVX2 is available.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(in crate::raster) unsafe fn new<P>(w: &Window<P>) -> Lanes {
            let lane = |k: usize, from: i64| {
                _mm256_set_pd(
                    ((from + 3) * w.sx[k]) as f64,
                    ((from + 2) * w.sx[k]) as f64,
                    ((from + 1) * w.sx[k]) as f64,
                    (from * w.sx[k]) as f64,
                )
            };
            Lanes {
                lo: [lane(0, 0), lane(1, 0), lane(2, 0)],
                hi: [lane(0, 4), lane(1, 4), lane(2, 4)],
                th: w.th.map(|t| _mm256_set1_pd(t as f64)),
                k_area: _mm256_set1_ps(w.inv_area),
                rhw: w.rhw.map(|v| _mm256_set1_ps(v)),
            }
        }

        /// The lanes of `cols` (bit j: pixel `x + j`) in the window's columns from `lo`
        /// (inclusive) to `hi` (exclusive), relative to `x`.
        pub(in crate::raster) fn cols(lo: i64, hi: i64) -> u32 {
            let (lo, hi) = (lo.max(0), hi.min(SPAN_PX as i64));
            if lo < hi {
                (1u32 << hi) - (1u32 << lo)
            } else {
                0
            }
        }

        /// Row `y`'s edge values at pixels `x..x + 8` (e0 + (x - px0 + j) sx + (y - py0) sy,
        /// exact in i64 and in f64) and the lanes of `cols` they cover.
        ///
        /// # Safety
        /// AVX2 is available.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(in crate::raster) unsafe fn row<P>(
            &self,
            w: &Window<P>,
            x: i64,
            y: i64,
            cols: u32,
        ) -> (RowEdges, u32) {
            let mut m = cols;
            let mut er = [[_mm256_setzero_pd(); 2]; 3];
            for (k, e) in er.iter_mut().enumerate() {
                let b = _mm256_set1_pd(w.edge(k, x, y) as f64);
                *e = [_mm256_add_pd(b, self.lo[k]), _mm256_add_pd(b, self.hi[k])];
                let lo = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(e[0], self.th[k]));
                let hi = _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(e[1], self.th[k]));
                m &= (lo | hi << 4) as u32;
            }
            (er, m)
        }

        /// The barycentric weights of a row: each edge value to f32 (one rounding, as `v as
        /// f32`), times 1/area.
        ///
        /// # Safety
        /// AVX2 is available.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(in crate::raster) unsafe fn lam(&self, er: &RowEdges) -> [__m256; 3] {
            er.map(|e| {
                let v = _mm256_set_m128(_mm256_cvtpd_ps(e[1]), _mm256_cvtpd_ps(e[0]));
                _mm256_mul_ps(v, self.k_area)
            })
        }

        /// The perspective-correct weights of vertices 1 and 2 from `lam`: lam_k / w_k over
        /// their sum, as the reference forms them.
        ///
        /// # Safety
        /// AVX2 is available.
        #[inline]
        #[target_feature(enable = "avx2")]
        pub(in crate::raster) unsafe fn perspective(&self, lam: &[__m256; 3]) -> (__m256, __m256) {
            let q = [
                _mm256_mul_ps(lam[0], self.rhw[0]),
                _mm256_mul_ps(lam[1], self.rhw[1]),
                _mm256_mul_ps(lam[2], self.rhw[2]),
            ];
            let sum = _mm256_add_ps(_mm256_add_ps(q[0], q[1]), q[2]);
            let inv = _mm256_div_ps(_mm256_set1_ps(1.0), sum);
            (_mm256_mul_ps(q[1], inv), _mm256_mul_ps(q[2], inv))
        }
    }
}
