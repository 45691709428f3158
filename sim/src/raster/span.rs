//! The span path of the rasteriser: a window with nothing to test or blend, shaded by the
//! precompiled `TEX; EMITPIX` program on a unit the sampler's span path takes ([`SpanTex`]),
//! eight pixels of a row at a time. Coverage (the window and the edges with their top-left
//! thresholds), the barycentric weights, the perspective divide and the texture coordinates
//! run in AVX2 lanes with the reference's exact edge values and its IEEE operations in its
//! order, so every pixel and every counter is the quad loop's (which `crate::fastpaths` checks
//! on whole renders against the reference).
//!
//! The span stops before the window's last covered quad, which the quad loop shades: that
//! leaves the machine's registers as the quad loop leaves them (a later program reading a
//! register this one did not write reads the same stale value on every path).

use sgx_hwdocs::tsp::Interp;

use super::span_win::{self, SPAN_PX};
use super::{Tile, T};
use crate::tsp::SpanTex;

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

/// A window with its coordinate varying.
pub(super) type Window = span_win::Window<Coord>;

/// The last quad of the window, in raster order, with a covered pixel (its top-left pixel),
/// by the reference's exact inside test; None when no pixel is covered.
pub(super) fn last_covered_quad(w: &Window) -> Option<(i64, i64)> {
    let (qx0, qy0) = (w.px0 & !1, w.py0 & !1);
    let mut qy = w.py1 & !1;
    while qy >= qy0 {
        let mut qx = w.px1 & !1;
        while qx >= qx0 {
            if (0..4).any(|i| w.inside(qx + (i & 1), qy + (i >> 1))) {
                return Some((qx, qy));
            }
            qx -= 2;
        }
        qy -= 2;
    }
    None
}

/// What the span shaded, for the draw's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Shaded {
    /// Covered pixels written.
    pub px: u64,
    /// Quads with a covered pixel (the program runs on all four of their pixels).
    pub quads: u64,
}

/// Shades the window's covered pixels into `tile` (tile `tx`, `ty`) in the quads before
/// `(qx_end, qy_end)` in raster order (the caller's last covered quad, which the quad loop
/// shades).
///
/// # Safety
/// AVX2 is available (a `SpanTex` is only made when it is).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn shade(
    w: &Window,
    tex: &SpanTex,
    tile: &mut Tile,
    (tx, ty): (u32, u32),
    (qx_end, qy_end): (i64, i64),
) -> Shaded {
    use std::arch::x86_64::*;

    let (ox, oy) = (i64::from(tx * T), i64::from(ty * T));
    let mut done = Shaded::default();
    // SAFETY: AVX2 is available per the contract.
    let lanes = unsafe { span_win::Lanes::new(w) };
    let c = &w.paint;
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    let (mut s, mut t) = ([0f32; SPAN_PX], [0f32; SPAN_PX]);
    let mut out = [[0f32; 4]; SPAN_PX];
    let mut qy = w.py0 & !1;
    while qy <= qy_end {
        // The last quad row stops short of the quad loop's quad.
        let x_end = if qy == qy_end { qx_end - 1 } else { w.px1 };
        let mut x = w.px0 & !1;
        while x <= x_end {
            // Lanes inside the window (and before the quad loop's quad), as a bit mask.
            let cols = span_win::Lanes::cols(w.px0 - x, x_end - x + 1);
            // Each row's edge values and covered lanes.
            let mut e = [[[_mm256_setzero_pd(); 2]; 3]; 2];
            let mut cov = [0u32; 2];
            for (r, (er, cr)) in e.iter_mut().zip(cov.iter_mut()).enumerate() {
                let y = qy + r as i64;
                if y < w.py0 || y > w.py1 {
                    continue;
                }
                // SAFETY: AVX2 is available per the contract.
                (*er, *cr) = unsafe { lanes.row(w, x, y, cols) };
            }
            // Quads are lane pairs (x is even).
            let q = cov[0] | cov[1];
            done.quads += u64::from((q | q >> 1) & 0x55).count_ones() as u64;
            for (r, (er, &m)) in e.iter().zip(cov.iter()).enumerate() {
                if m == 0 {
                    continue;
                }
                let y = qy + r as i64;
                // SAFETY: AVX2 is available per the contract.
                let lam = unsafe { lanes.lam(er) };
                let (sv, tv) = match c.interp {
                    Interp::FLAT => (_mm256_set1_ps(c.flat[0]), _mm256_set1_ps(c.flat[1])),
                    interp => {
                        let (w1, w2) = if interp == Interp::PERSPECTIVE {
                            // SAFETY: AVX2 is available per the contract.
                            unsafe { lanes.perspective(&lam) }
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
                if m == 0xff {
                    // Every lane covered (most of a large triangle's rows): the clamp below,
                    // two pixels per register.
                    let (zero8, one8) = (zero, one);
                    for j in (0..SPAN_PX).step_by(2) {
                        // SAFETY: the load reads `out[j]` and `out[j + 1]` (adjacent rows of
                        // one array); the store writes tile pixels at + j and at + j + 1,
                        // covered, so inside the window, so in the tile.
                        unsafe {
                            let v = _mm256_loadu_ps(out[j..].as_ptr() as *const f32);
                            let v = _mm256_min_ps(_mm256_max_ps(v, zero8), one8);
                            _mm256_storeu_ps(tile.colour[at + j..].as_mut_ptr() as *mut f32, v);
                        }
                    }
                    done.px += SPAN_PX as u64;
                    continue;
                }
                let mut bits = m;
                while bits != 0 {
                    let j = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    // SAFETY: the load reads the four floats of `out[j]`.
                    let v = unsafe { _mm_loadu_ps(out[j].as_ptr()) };
                    // The reference clamp (NaN to 0): max(x, 0) returns its second operand
                    // for a NaN, then min(c, 1).
                    let v = _mm_min_ps(
                        _mm_max_ps(v, _mm256_castps256_ps128(zero)),
                        _mm256_castps256_ps128(one),
                    );
                    // Pixel (x + j, y) is covered, so inside the window, so in the tile.
                    // SAFETY: the store writes the four floats of one tile pixel.
                    unsafe { _mm_storeu_ps(tile.colour[at + j].as_mut_ptr(), v) };
                }
                done.px += u64::from(m.count_ones());
            }
            x += SPAN_PX as i64;
        }
        qy += 2;
    }
    #[cfg(test)]
    span_win::TEX_SHADED_PX.with(|c| c.set(c.get() + done.px));
    done
}
