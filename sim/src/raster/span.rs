//! The span path of the rasteriser: a window of whole quads lying wholly inside a triangle,
//! with nothing to test or blend, shaded by the precompiled `TEX; EMITPIX` program on a unit
//! the sampler's span path takes ([`SpanTex`]), eight pixels of a row at a time. The
//! barycentric weights, the perspective divide and the texture coordinates run in AVX2 lanes
//! with the reference's IEEE operations in its order, so every pixel is bit-identical to the
//! quad loop's (which `crate::fastpaths` checks on whole renders against the reference).

use sgx_hwdocs::tsp::Interp;

use super::{Tile, T};
use crate::tsp::{SpanTex, SPAN_PX};

#[cfg(test)]
thread_local! {
    /// Pixels the span path shaded on this thread: tests check that their scenes take it.
    pub(crate) static SHADED_PX: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How the program's coordinate varying is interpolated, with its two used components at the
/// three (ordered) vertices.
#[derive(Clone, Copy, Debug)]
pub(super) struct Coord {
    pub interp: Interp,
    /// Components s and t at vertices 0, 1, 2 (after the edge ordering).
    pub st: [[f32; 2]; 3],
    /// The provoking vertex's s and t, for FLAT.
    pub flat: [f32; 2],
}

/// A window's edge and interpolation set-up.
pub(super) struct Window {
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
    pub coord: Coord,
}

/// Shades the window's pixels into `tile` (tile `tx`, `ty`), all but its last quad (the caller
/// shades that one through the quad loop, which leaves the machine's registers as they were
/// before), and returns how many pixels it wrote.
///
/// # Safety
/// AVX2 is available (a `SpanTex` is only made when it is).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn shade(w: &Window, tex: &SpanTex, tile: &mut Tile, tx: u32, ty: u32) -> u64 {
    use std::arch::x86_64::*;

    let (ox, oy) = (i64::from(tx * T), i64::from(ty * T));
    let mut n = 0u64;
    let rows = w.py0..=w.py1;
    // Macros, not closures: a closure would not inherit the target feature, and the
    // intrinsics in it would stay out of line.
    // The lane offsets 0..8 times each edge's x step, exact in f64 (|values| < 2^51).
    macro_rules! lane {
        ($k:expr, $from:expr) => {
            _mm256_set_pd(
                (($from + 3) * w.sx[$k]) as f64,
                (($from + 2) * w.sx[$k]) as f64,
                (($from + 1) * w.sx[$k]) as f64,
                ($from * w.sx[$k]) as f64,
            )
        };
    }
    let lanes_lo = [lane!(0, 0), lane!(1, 0), lane!(2, 0)];
    let lanes_hi = [lane!(0, 4), lane!(1, 4), lane!(2, 4)];
    let k_area = _mm256_set1_ps(w.inv_area);
    let rhw = [
        _mm256_set1_ps(w.rhw[0]),
        _mm256_set1_ps(w.rhw[1]),
        _mm256_set1_ps(w.rhw[2]),
    ];
    let c = &w.coord;
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    let mut s = [0f32; SPAN_PX];
    let mut t = [0f32; SPAN_PX];
    let mut out = [[0f32; 4]; SPAN_PX];
    for y in rows {
        // The last quad is left to the quad loop: the last row stops short of it.
        let last_x = if y >= w.py1 - 1 { w.px1 - 2 } else { w.px1 };
        let mut x = w.px0;
        while x <= last_x {
            let count = ((last_x + 1 - x) as usize).min(SPAN_PX);
            // Edge value of pixel (x + j, y): e0 + (x - px0 + j) sx + (y - py0) sy, exact;
            // converted i64 -> f64 exactly and f64 -> f32 once, as `v as f32` rounds.
            let mut lam = [_mm256_setzero_ps(); 3];
            for (k, l) in lam.iter_mut().enumerate() {
                let base = w.e0[k] + (x - w.px0) * w.sx[k] + (y - w.py0) * w.sy[k];
                let b = _mm256_set1_pd(base as f64);
                let lo = _mm256_cvtpd_ps(_mm256_add_pd(b, lanes_lo[k]));
                let hi = _mm256_cvtpd_ps(_mm256_add_pd(b, lanes_hi[k]));
                *l = _mm256_mul_ps(_mm256_set_m128(hi, lo), k_area);
            }
            let (sv, tv) = match c.interp {
                Interp::FLAT => (_mm256_set1_ps(c.flat[0]), _mm256_set1_ps(c.flat[1])),
                interp => {
                    let (w1, w2) = if interp == Interp::PERSPECTIVE {
                        let q = [
                            _mm256_mul_ps(lam[0], rhw[0]),
                            _mm256_mul_ps(lam[1], rhw[1]),
                            _mm256_mul_ps(lam[2], rhw[2]),
                        ];
                        let sum = _mm256_add_ps(_mm256_add_ps(q[0], q[1]), q[2]);
                        let inv = _mm256_div_ps(one, sum);
                        (_mm256_mul_ps(q[1], inv), _mm256_mul_ps(q[2], inv))
                    } else {
                        (lam[1], lam[2])
                    };
                    // a + w1 (b - a) + w2 (c - a), relative to vertex 0 as `lerp3`.
                    macro_rules! lerp {
                        ($j:expr) => {{
                            let a = _mm256_set1_ps(c.st[0][$j]);
                            let db = _mm256_set1_ps(c.st[1][$j] - c.st[0][$j]);
                            let dc = _mm256_set1_ps(c.st[2][$j] - c.st[0][$j]);
                            _mm256_add_ps(
                                _mm256_add_ps(a, _mm256_mul_ps(w1, db)),
                                _mm256_mul_ps(w2, dc),
                            )
                        }};
                    }
                    (lerp!(0), lerp!(1))
                }
            };
            // SAFETY: the stores write the eight lanes of local arrays.
            unsafe {
                _mm256_storeu_ps(s.as_mut_ptr(), sv);
                _mm256_storeu_ps(t.as_mut_ptr(), tv);
            }
            // SAFETY: AVX2 is available per the contract.
            unsafe { tex.bilinear8(&s, &t, &mut out) };
            let at = ((y - oy) * i64::from(T) + x - ox) as usize;
            for (j, o) in out.iter().enumerate().take(count) {
                // SAFETY: the load reads the four floats of `o`.
                let v = unsafe { _mm_loadu_ps(o.as_ptr()) };
                // The reference clamp (NaN to 0): max(x, 0) returns its second operand for a
                // NaN, then min(c, 1).
                let v = _mm_min_ps(
                    _mm_max_ps(v, _mm256_castps256_ps128(zero)),
                    _mm256_castps256_ps128(one),
                );
                // SAFETY: pixel (x + j, y) lies in the tile: the window does.
                unsafe { _mm_storeu_ps(tile.colour[at + j].as_mut_ptr(), v) };
            }
            n += count as u64;
            x += SPAN_PX as i64;
        }
    }
    #[cfg(test)]
    SHADED_PX.with(|c| c.set(c.get() + n));
    n
}
