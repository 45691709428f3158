//! Edge-function arithmetic of the rasteriser: stepping edge values, barycentric weights
//! (reference and packed forms), varying interpolation, and whole-window accept / reject
//! tests, each fast form tested against its reference below.

use super::SUB;

/// Three edge values advanced by their steps (wrapping, as the fast path's stepping is).
#[inline(always)]
pub(super) fn step3(e: [i64; 3], step: [i64; 3]) -> [i64; 3] {
    [
        e[0].wrapping_add(step[0]),
        e[1].wrapping_add(step[1]),
        e[2].wrapping_add(step[2]),
    ]
}

/// The reference's barycentric weights: each edge value as f32, times 1/area.
#[inline(always)]
pub(super) fn lam_scalar(ev: &[[i64; 3]; 4], inv_area: f32) -> [[f32; 3]; 4] {
    ev.map(|e| e.map(|v| v as f32 * inv_area))
}

/// `lam_scalar` for edge values in [-2^51, 2^51), twelve conversions in packed form: an i64
/// that small is exact as an f64 (built by adding it to the mantissa of 1.5 * 2^52 and
/// subtracting that again), and rounding that f64 to f32 rounds the integer once, exactly as
/// the direct conversion does. SSE2 has no packed i64 -> f32 conversion, and the scalar one
/// is slow.
///
/// The edge values are taken as `here[k] + off[i][k]` (wrapping), the fast path's form, and
/// added here in vector registers: storing them one by one and loading them back as vectors
/// stalled on store forwarding (the hottest spot of the rasteriser's profile).
#[inline(always)]
pub(super) fn lam_packed(here: [i64; 3], off: &[[i64; 3]; 4], inv_area: f32) -> [[f32; 3]; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let flat: &[i64] = off.as_flattened();
        let mut lam = [[0f32; 3]; 4];
        let out = lam.as_flattened_mut();
        // SAFETY: SSE2 is in the x86_64 baseline; loads read pairs inside `flat` (12 long),
        // stores write quads inside `out` (12 long).
        unsafe {
            const MAGIC: i64 = 0x4338_0000_0000_0000; // the bits of 1.5 * 2^52
            let magic_i = _mm_set1_epi64x(MAGIC);
            let magic_d = _mm_set1_pd(f64::from_bits(MAGIC as u64));
            // Flat index j holds edge j % 3: the pairs (0, 1), (2, 0), (1, 2) repeat.
            let h = [
                _mm_set_epi64x(here[1], here[0]),
                _mm_set_epi64x(here[0], here[2]),
                _mm_set_epi64x(here[2], here[1]),
            ];
            let pair = |j: usize| {
                let o = _mm_loadu_si128(flat.as_ptr().add(j) as *const __m128i);
                let v = _mm_add_epi64(o, h[(j / 2) % 3]);
                let d = _mm_sub_pd(_mm_castsi128_pd(_mm_add_epi64(v, magic_i)), magic_d);
                _mm_cvtpd_ps(d)
            };
            let k = _mm_set1_ps(inv_area);
            for q in 0..3 {
                let f = _mm_movelh_ps(pair(4 * q), pair(4 * q + 2));
                _mm_storeu_ps(out.as_mut_ptr().add(4 * q), _mm_mul_ps(f, k));
            }
        }
        lam
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        lam_scalar(&off.map(|o| step3(here, o)), inv_area)
    }
}

/// `(a[j] + w[1] * (b[j] - a[j]) + w[2] * (c[j] - a[j])).to_bits()` for every lane j, as the
/// reference interpolates a varying, four lanes at once: the same IEEE operations in the same
/// order, so each lane is bit-identical to the scalar form.
///
/// Relative to vertex 0, as a plane equation is (the model's choice, hwdocs tsp.json `Interp`):
/// a varying equal at the three vertices comes out exactly equal at every pixel. The weighted
/// sum `w0 a + w1 b + w2 c` does not, as the weights' sum is 1 only to rounding, and GLSL
/// programs compare such varyings with `==` (piglit's matrix varyings, `literal-varyings`).
/// `w[0]` is implied (1 - w1 - w2) and not read.
#[inline(always)]
pub(super) fn lerp3(w: [f32; 3], a: &[f32; 4], b: &[f32; 4], c: &[f32; 4]) -> [u32; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is in the x86_64 baseline; the loads read the four floats of a, b, c.
        unsafe {
            let a = _mm_loadu_ps(a.as_ptr());
            let d = |k: f32, v: &[f32; 4]| {
                _mm_mul_ps(_mm_set1_ps(k), _mm_sub_ps(_mm_loadu_ps(v.as_ptr()), a))
            };
            let o = _mm_add_ps(_mm_add_ps(a, d(w[1], b)), d(w[2], c));
            let mut out = [0u32; 4];
            _mm_storeu_si128(out.as_mut_ptr() as *mut __m128i, _mm_castps_si128(o));
            out
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        lerp3_scalar(w, a, b, c)
    }
}

/// The reference's scalar form of [`lerp3`].
pub(super) fn lerp3_scalar(w: [f32; 3], a: &[f32; 4], b: &[f32; 4], c: &[f32; 4]) -> [u32; 4] {
    [0, 1, 2, 3].map(|j| (a[j] + w[1] * (b[j] - a[j]) + w[2] * (c[j] - a[j])).to_bits())
}

/// Whether one edge (dx, dy, ax, ay, threshold) of `ea` is below its threshold at all four
/// corner pixel centres of the window, so at none of its pixels (edge values are linear). Only
/// claimed when every product stays inside i64 at the corners, hence everywhere in the window,
/// so the reference's arithmetic is exact there too.
pub(super) fn window_rejected(ea: &[(i64, i64, i64, i64, i64); 3], win: [i64; 4]) -> bool {
    let outside = |e: (i64, i64, i64, i64, i64), (px, py)| {
        edge_exact(e, px, py).is_some_and(|v| v < i128::from(e.4))
    };
    ea.iter()
        .any(|&e| corners(win).into_iter().all(|c| outside(e, c)))
}

/// The centres of the four corner pixels of the window `[px0, py0, px1, py1]` (its first and
/// last pixel in each direction).
fn corners([px0, py0, px1, py1]: [i64; 4]) -> [(i64, i64); 4] {
    [(px0, py0), (px1, py0), (px0, py1), (px1, py1)]
}

/// Whether the edge value at pixel (px, py) of one edge (dx, dy, ax, ay, threshold), computed
/// exactly, fits i64 at every step and is at least the threshold.
pub(super) fn corner_inside(e: (i64, i64, i64, i64, i64), px: i64, py: i64) -> bool {
    edge_exact(e, px, py).is_some_and(|v| v >= i128::from(e.4))
}

/// The value of one edge (dx, dy, ax, ay, _) at the centre of pixel (px, py), computed in
/// i128; None when any step of it leaves i64.
fn edge_exact(e: (i64, i64, i64, i64, i64), px: i64, py: i64) -> Option<i128> {
    let (dx, dy, ax, ay, _) = e;
    let sub = i128::from(SUB as i64);
    let (cx, cy) = (
        i128::from(px) * sub + sub / 2,
        i128::from(py) * sub + sub / 2,
    );
    let (dcx, dcy) = (cx - i128::from(ax), cy - i128::from(ay));
    let (p, q) = (i128::from(dx) * dcy, i128::from(dy) * dcx);
    let v = p - q;
    [cx, cy, dcx, dcy, p, q, v]
        .iter()
        .all(|&x| i64::try_from(x).is_ok())
        .then_some(v)
}

/// Whether every edge of `ea` is at or above its threshold at all four corner pixel centres
/// of the window, so at every one of its pixels (edge values are linear). As for
/// [`window_rejected`], only claimed when the corners' products fit i64, so the window's
/// edge values are exact on both paths.
pub(super) fn window_accepted(ea: &[(i64, i64, i64, i64, i64); 3], win: [i64; 4]) -> bool {
    let inside = |e, (px, py)| corner_inside(e, px, py);
    ea.iter()
        .all(|&e| corners(win).into_iter().all(|c| inside(e, c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An accepted window has every pixel centre inside every edge (exact arithmetic), and
    /// windows straddling an edge are not accepted.
    #[test]
    fn accepted_windows_lie_wholly_inside() {
        let mut rng = crate::kit::Rng(0x2545_f491);
        let mut next = move || rng.next();
        let (mut accepted, mut refused) = (0, 0);
        for n in 0..3000 {
            // Vertices in sub-pixels around a 48x48 area; a huge one now and then.
            let mut v = [[0i64; 2]; 3];
            for p in &mut v {
                for c in p.iter_mut() {
                    *c = i64::from(next() % (64 * 256)) - 8 * 256;
                    if n % 97 == 0 {
                        *c *= 1 << 40;
                    }
                }
            }
            let w = |p: [i64; 2]| p.map(i128::from);
            let (a, b, c) = (w(v[0]), w(v[1]), w(v[2]));
            let area = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);
            if area == 0 {
                continue;
            }
            let ord = if area > 0 { [0, 1, 2] } else { [0, 2, 1] };
            let ea: [(i64, i64, i64, i64, i64); 3] = std::array::from_fn(|k| {
                let (a, b) = (v[ord[(k + 1) % 3]], v[ord[(k + 2) % 3]]);
                let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                let th = if (dy == 0 && dx > 0) || dy < 0 { 0 } else { 1 };
                (dx, dy, a[0], a[1], th)
            });
            let px0 = i64::from(next() % 40);
            let py0 = i64::from(next() % 40);
            let (px1, py1) = (px0 + i64::from(next() % 16), py0 + i64::from(next() % 16));
            let every = (px0..=px1).all(|px| {
                (py0..=py1).all(|py| {
                    ea.iter().all(|&(dx, dy, ax, ay, th)| {
                        let (cx, cy) = (i128::from(px) * 256 + 128, i128::from(py) * 256 + 128);
                        i128::from(dx) * (cy - i128::from(ay))
                            - i128::from(dy) * (cx - i128::from(ax))
                            >= i128::from(th)
                    })
                })
            });
            if window_accepted(&ea, [px0, py0, px1, py1]) {
                assert!(every, "{v:?} ({px0},{py0})-({px1},{py1})");
                accepted += 1;
            } else if !every {
                refused += 1;
            }
        }
        assert!(accepted > 100 && refused > 100, "{accepted} {refused}");
    }

    #[test]
    fn packed_lam_equals_the_scalar_conversion() {
        let mut seed = 0x1234_5677u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let lim = 1i64 << 51;
        // Edges of the range, ties between f32 neighbours at several magnitudes, and spread.
        let mut vals: Vec<i64> = vec![0, 1, -1, lim - 1, -lim, (1 << 24) + 1, -(1 << 24) - 1];
        for sh in 24..51 {
            for d in [-3i64, -1, 0, 1, 3] {
                let t = (1i64 << sh) + (1i64 << (sh - 24)) + d; // near a halfway point
                vals.extend([t, -t, (3i64 << (sh - 1)) + d, -(3i64 << (sh - 1)) - d]);
            }
        }
        for _ in 0..20_000 {
            let v = (next() as i64) >> (13 + next() % 50);
            vals.push(v.clamp(-lim, lim - 1));
        }
        let invs = [1.0, 1.0 / 3.0, 1e-12, 7.5e-6, -0.0];
        for (n, chunk) in vals.chunks(12).enumerate() {
            let ev: [[i64; 3]; 4] = std::array::from_fn(|i| {
                std::array::from_fn(|k| chunk.get(3 * i + k).copied().unwrap_or(5))
            });
            let inv = invs[n % invs.len()];
            // Split each value into a per-edge base and a per-pixel offset, as the
            // rasteriser does.
            let here: [i64; 3] = std::array::from_fn(|_| (next() as i64) >> (next() % 64));
            let off = ev.map(|e| [0, 1, 2].map(|k| e[k].wrapping_sub(here[k])));
            let (f, r) = (lam_packed(here, &off, inv), lam_scalar(&ev, inv));
            assert_eq!(
                f.map(|a| a.map(f32::to_bits)),
                r.map(|a| a.map(f32::to_bits)),
                "{ev:?} * {inv}"
            );
        }
    }

    #[test]
    fn a_varying_equal_at_the_three_vertices_interpolates_to_itself() {
        let mut rng = crate::kit::Rng(0x5eed_1234);
        for k in 0..20_000u32 {
            // Weights as the rasteriser makes them: positive, summing to 1 only to rounding.
            let q = [0; 3].map(|_| (rng.next() % 1_000_000 + 1) as f32 / 997.0);
            let inv = 1.0 / (q[0] + q[1] + q[2]);
            let w = q.map(|x| x * inv);
            let v = f32::from_bits(rng.next() & 0x7f7f_ffff);
            let v = if k % 2 == 0 { v } else { -(k as f32) * 0.1 };
            let a = [v, 3.0, 4.0, 1.0 / 3.0];
            for out in [lerp3(w, &a, &a, &a), lerp3_scalar(w, &a, &a, &a)] {
                assert_eq!(out, a.map(f32::to_bits), "{w:?} {a:?}");
            }
        }
    }

    #[test]
    fn lerp3_equals_the_scalar_interpolation() {
        let mut rng = crate::kit::Rng(0x9e37_79b9);
        let mut next = move || rng.next();
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.333_333_34,
            1e-38,
            1e-45,
            3.4e38,
            -3.4e38,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for k in 0..20_000 {
            let mut pick = |i: usize| {
                if k < 2000 {
                    special[(k * 7 + i * 5) % special.len()]
                } else {
                    f32::from_bits(next() & 0xbfff_ffff) // finite-heavy spread
                }
            };
            let w = [pick(0), pick(1), pick(2)];
            let a = [pick(3), pick(4), pick(5), pick(6)];
            let b = [pick(7), pick(8), pick(9), pick(10)];
            let c = [pick(11), pick(12), pick(13), pick(14)];
            let (f, r) = (lerp3(w, &a, &b, &c), lerp3_scalar(w, &a, &b, &c));
            // NaN payloads are left to LLVM's operand order (unspecified in Rust for the
            // reference too); every other lane must match bit for bit.
            for j in 0..4 {
                let (x, y) = (f32::from_bits(f[j]), f32::from_bits(r[j]));
                assert!(
                    f[j] == r[j] || (x.is_nan() && y.is_nan()),
                    "{w:?} {a:?} {b:?} {c:?} lane {j}: {:#x} vs {:#x}",
                    f[j],
                    r[j]
                );
            }
        }
    }
}
