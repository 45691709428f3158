//! The span path of depth-tested colour varyings: a window whose program is `EMITPIX paK;
//! END` ([`crate::usse::VaryEmit`]), with or without the depth test and its write, no stencil,
//! blend, logic op, colour mask, stipple or KILL, eight pixels of a row at a time. Coverage,
//! the barycentric weights, z, the depth compare, the perspective divide and the colour's
//! interpolation run in AVX2 lanes with the reference's exact edge values and its IEEE
//! operations in its order (no fused multiply-adds), so every pixel and every counter is the
//! quad loop's (`crate::fastpaths` compares whole renders with the reference).
//!
//! Unlike [`super::span`], it shades the whole window: the program writes no register, so the
//! only state the quad loop would leave behind is the primary attributes of its last shaded
//! quad, which the caller fills in from [`Shaded::last_live`].

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::tsp::Interp;

use super::span_win::{self, SPAN_PX};
use super::{Tile, T};
use crate::depth::Precision;

/// The colour varying at the three (ordered) vertices and how it is interpolated, with the
/// depth set-up.
#[derive(Clone, Copy, Debug)]
pub(super) struct Colour {
    pub interp: Interp,
    pub v: [[f32; 4]; 3],
    /// The provoking vertex's, for FLAT.
    pub flat: [f32; 4],
    /// z of the ordered vertices.
    pub z: [f32; 3],
    /// The depth test's function and whether a passing pixel writes its depth; None when
    /// the test is off (every covered pixel passes, nothing is written).
    pub depth: Option<(CompareFunc, bool)>,
    /// The precision the depth is tested and written at (the depth buffer's).
    pub prec: Precision,
}

/// A window with its depth and colour set-up.
pub(super) type Window = span_win::Window<Colour>;

/// What the span shaded, for the draw's counters and the primary attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Shaded {
    /// Pixels that passed (shaded and written).
    pub px: u64,
    /// Quads with a passing pixel (the program runs on all four of their pixels).
    pub quads: u64,
    /// The last such quad in raster order (its top-left pixel).
    pub last_live: Option<(i64, i64)>,
}

/// Shades the window's covered pixels that pass the depth test into `tile` (tile `tx`,
/// `ty`), in raster order.
///
/// # Safety
/// AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn shade(w: &Window, tile: &mut Tile, (tx, ty): (u32, u32)) -> Shaded {
    use std::arch::x86_64::*;

    let (ox, oy) = (i64::from(tx * T), i64::from(ty * T));
    let mut done = Shaded::default();
    let c = &w.paint;
    // SAFETY: AVX2 is available per the contract.
    let lanes = unsafe { span_win::Lanes::new(w) };
    // z0, z1 - z0 and z2 - z0: z on the plane through vertex 0, as the quad loop forms it.
    let zv = [c.z[0], c.z[1] - c.z[0], c.z[2] - c.z[0]].map(|v| _mm256_set1_ps(v));
    let zmax = _mm256_set1_pd(f64::from(c.prec.max_code()));
    let zmax_ps = _mm256_set1_ps(c.prec.max_code() as f32);
    let half = _mm256_set1_pd(0.5);
    // a, b - a and c - a of each channel, as `lerp3` forms them.
    let ca: [__m256; 4] = [0, 1, 2, 3].map(|j| _mm256_set1_ps(c.v[0][j]));
    let cb: [__m256; 4] = [0, 1, 2, 3].map(|j| _mm256_set1_ps(c.v[1][j] - c.v[0][j]));
    let cc: [__m256; 4] = [0, 1, 2, 3].map(|j| _mm256_set1_ps(c.v[2][j] - c.v[0][j]));
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    // The reference clamp (NaN to 0): max(x, 0) returns its second operand for a NaN (and
    // +0 for -0), then min(c, 1).
    macro_rules! clamp01 {
        ($v:expr) => {
            _mm256_min_ps(_mm256_max_ps($v, zero), one)
        };
    }
    // `compare(func, z, stored)` of the quad loop, lane by lane.
    macro_rules! passes {
        ($f:expr, $z:expr, $d:expr) => {
            match $f {
                CompareFunc::NEVER => zero,
                CompareFunc::LESS => _mm256_cmp_ps::<_CMP_LT_OQ>($z, $d),
                CompareFunc::EQUAL => _mm256_cmp_ps::<_CMP_EQ_OQ>($z, $d),
                CompareFunc::LEQUAL => _mm256_cmp_ps::<_CMP_LE_OQ>($z, $d),
                CompareFunc::GREATER => _mm256_cmp_ps::<_CMP_GT_OQ>($z, $d),
                // Rust's `!=` is true when either side is NaN.
                CompareFunc::NOTEQUAL => _mm256_cmp_ps::<_CMP_NEQ_UQ>($z, $d),
                CompareFunc::GEQUAL => _mm256_cmp_ps::<_CMP_GE_OQ>($z, $d),
                CompareFunc::ALWAYS => _mm256_castsi256_ps(_mm256_set1_epi32(-1)),
            }
        };
    }
    // Lane j's bit as a vector mask, for the masked loads and stores of tile depth.
    let lane_bits = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
    macro_rules! mask_of {
        ($m:expr) => {{
            let b = _mm256_and_si256(_mm256_set1_epi32($m as i32), lane_bits);
            _mm256_cmpeq_epi32(b, lane_bits)
        }};
    }
    let mut qy = w.py0 & !1;
    while qy <= w.py1 {
        let mut x = w.px0 & !1;
        while x <= w.px1 {
            // Lanes inside the window, as a bit mask.
            let cols = span_win::Lanes::cols(w.px0 - x, w.px1 - x + 1);
            let mut live = [0u32; 2];
            for (r, lv) in live.iter_mut().enumerate() {
                let y = qy + r as i64;
                if y < w.py0 || y > w.py1 {
                    continue;
                }
                // SAFETY: AVX2 is available per the contract.
                let (er, mut m) = unsafe { lanes.row(w, x, y, cols) };
                if m == 0 {
                    continue;
                }
                // SAFETY: AVX2 is available per the contract.
                let lam = unsafe { lanes.lam(&er) };
                // Pixel (x + j, y) for a lane j of `cols` lies in the window, so in the tile;
                // the lanes past the window are masked off.
                let at = ((y - oy) * i64::from(T) + x - ox) as usize;
                // SAFETY: `at` indexes the tile's pixel (x, y) (x >= the tile's first column,
                // y within its rows), so the pointer is inside the depth array.
                let dp = unsafe { tile.depth.as_mut_ptr().add(at) };
                if let Some((func, write)) = c.depth {
                    let z = _mm256_add_ps(
                        _mm256_add_ps(zv[0], _mm256_mul_ps(lam[1], zv[1])),
                        _mm256_mul_ps(lam[2], zv[2]),
                    );
                    let z = clamp01!(z);
                    // `Precision::quantise_fast` of the clamped z: the code d * max + 1/2
                    // (exact in f64) truncated, back to f32 (exact below 2^24) over max.
                    let z = if c.prec == Precision::F32 {
                        z
                    } else {
                        macro_rules! code {
                            ($d:expr) => {
                                _mm256_cvttpd_epi32(_mm256_add_pd(_mm256_mul_pd($d, zmax), half))
                            };
                        }
                        let lo = code!(_mm256_cvtps_pd(_mm256_castps256_ps128(z)));
                        let hi = code!(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(z)));
                        let codes = _mm256_set_m128i(hi, lo);
                        _mm256_div_ps(_mm256_cvtepi32_ps(codes), zmax_ps)
                    };
                    let mk = mask_of!(m);
                    // SAFETY: only the lanes of `m`, pixels of this tile row, are read.
                    let d = unsafe { _mm256_maskload_ps(dp, mk) };
                    m &= _mm256_movemask_ps(passes!(func, z, d)) as u32;
                    if write && m != 0 {
                        // SAFETY: only the lanes of `m`, pixels of this tile row, are written.
                        unsafe { _mm256_maskstore_ps(dp, mask_of!(m), z) };
                    }
                }
                if m == 0 {
                    continue;
                }
                *lv = m;
                let (w1, w2) = match c.interp {
                    Interp::FLAT => (zero, zero),
                    // SAFETY: AVX2 is available per the contract.
                    Interp::PERSPECTIVE => unsafe { lanes.perspective(&lam) },
                    Interp::LINEAR => (lam[1], lam[2]),
                };
                // A loop, not `map`: a closure's intrinsics would stay out of line.
                let mut ch = [zero; 4];
                for (j, v) in ch.iter_mut().enumerate() {
                    *v = if c.interp == Interp::FLAT {
                        _mm256_set1_ps(c.flat[j])
                    } else {
                        // a + w1 (b - a) + w2 (c - a), relative to vertex 0 as `lerp3`.
                        _mm256_add_ps(
                            _mm256_add_ps(ca[j], _mm256_mul_ps(w1, cb[j])),
                            _mm256_mul_ps(w2, cc[j]),
                        )
                    };
                    *v = clamp01!(*v);
                }
                // Channels in lanes to pixels: px[j] holds pixel j in its low half and pixel
                // j + 4 in its high half (a 4x4 transpose in each half).
                let (t0, t1) = (
                    _mm256_unpacklo_ps(ch[0], ch[1]),
                    _mm256_unpackhi_ps(ch[0], ch[1]),
                );
                let (t2, t3) = (
                    _mm256_unpacklo_ps(ch[2], ch[3]),
                    _mm256_unpackhi_ps(ch[2], ch[3]),
                );
                let px = [
                    _mm256_shuffle_ps::<0x44>(t0, t2),
                    _mm256_shuffle_ps::<0xee>(t0, t2),
                    _mm256_shuffle_ps::<0x44>(t1, t3),
                    _mm256_shuffle_ps::<0xee>(t1, t3),
                ];
                let out = tile.colour[at..].as_mut_ptr() as *mut f32;
                if m == 0xff {
                    // Pixels (0, 1), (2, 3), (4, 5), (6, 7) as four 32-byte stores.
                    let pairs = [
                        _mm256_permute2f128_ps::<0x20>(px[0], px[1]),
                        _mm256_permute2f128_ps::<0x20>(px[2], px[3]),
                        _mm256_permute2f128_ps::<0x31>(px[0], px[1]),
                        _mm256_permute2f128_ps::<0x31>(px[2], px[3]),
                    ];
                    for (k, v) in pairs.into_iter().enumerate() {
                        // SAFETY: all eight lanes are covered, so pixels at..at + 8 lie in
                        // the tile's row; pair k is pixels 2k and 2k + 1.
                        unsafe { _mm256_storeu_ps(out.add(8 * k), v) };
                    }
                } else {
                    let mut bits = m;
                    while bits != 0 {
                        let j = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        let v = if j < 4 {
                            _mm256_castps256_ps128(px[j])
                        } else {
                            _mm256_extractf128_ps::<1>(px[j - 4])
                        };
                        // SAFETY: lane j is covered, so pixel at + j lies in the tile.
                        unsafe { _mm_storeu_ps(out.add(4 * j), v) };
                    }
                }
                done.px += u64::from(m.count_ones());
            }
            // Quads are lane pairs (x is even).
            let q = live[0] | live[1];
            let quads = (q | q >> 1) & 0x55;
            if quads != 0 {
                done.quads += u64::from(quads.count_ones());
                let last = 31 - quads.leading_zeros() as i64;
                done.last_live = Some((x + last, qy));
            }
            x += SPAN_PX as i64;
        }
        qy += 2;
    }
    #[cfg(test)]
    span_win::Z_SHADED_PX.with(|c| c.set(c.get() + done.px));
    done
}
