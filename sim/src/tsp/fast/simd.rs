//! SIMD forms of the 8-bit RGBA kinds' bilinear blend, each bit-identical to the scalar
//! blend in `fast.rs` (the tests in `fast/tests.rs` hold them to it, and whole renders in
//! `crate::fastpaths`): one pixel in SSE2 lanes, and a quad in AVX2 lanes, two pixels per
//! register.

/// 1/255 split in two, `HI` with its low 8 mantissa bits cleared (16 significant bits, so
/// `k * HI` is exact for every byte `k`) and `LO` the rest, rounded: `k * HI + k * LO` is the
/// correctly rounded `k / 255` for every byte, as a divide gives it (the test
/// `split_reciprocal_divides_every_byte` checks all 256) at the cost of two multiplies and an
/// add instead of a divide. Why it holds: `k / 255` in binary repeats `k`'s 8 bits forever,
/// so it lies at least 2^-9 of an ulp from a rounding midpoint, and the split's error is
/// below 2^-15 of an ulp.
pub(crate) const INV255_HI: f32 = f32::from_bits((1.0f32 / 255.0).to_bits() & 0xffff_ff00);
pub(crate) const INV255_LO: f32 = (1.0f64 / 255.0 - INV255_HI as f64) as f32;

/// SSE2 (part of every x86_64) forms of the 8-bit RGBA kinds' bilinear blend: a texel's four
/// bytes become four f32 lanes k / 255 (the IEEE quotient the UNORM table holds, through the
/// split reciprocal), and the blend runs lane-wise with the same operations in the same
/// order, so every lane is bit-identical to the scalar code.
#[cfg(target_arch = "x86_64")]
pub(crate) mod sse {
    use std::arch::x86_64::*;

    use super::{INV255_HI, INV255_LO};

    /// Bytes 0..4 at `p + off` as f32 lanes k / 255, lane 3 forced to 1.0 with `opaque`.
    ///
    /// # Safety
    /// `p + off .. p + off + 4` is readable.
    #[inline(always)]
    pub(crate) unsafe fn texel(p: *const u8, off: u32, opaque: bool) -> __m128 {
        // SAFETY: readable per the contract; SSE2 is in the x86_64 baseline.
        unsafe {
            let v = _mm_cvtsi32_si128(std::ptr::read_unaligned(p.add(off as usize) as *const i32));
            let z = _mm_setzero_si128();
            let w = _mm_unpacklo_epi16(_mm_unpacklo_epi8(v, z), z);
            let k = _mm_cvtepi32_ps(w);
            let f = _mm_add_ps(
                _mm_mul_ps(k, _mm_set1_ps(INV255_HI)),
                _mm_mul_ps(k, _mm_set1_ps(INV255_LO)),
            );
            if opaque {
                let rgb = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
                _mm_or_ps(_mm_and_ps(f, rgb), _mm_set_ps(1.0, 0.0, 0.0, 0.0))
            } else {
                f
            }
        }
    }

    /// The bilinear blend of four 32-bit texels in byte order; `SWAP_RB` returns lanes
    /// (2, 1, 0, 3) (B G R A bytes to R G B A), `OPAQUE` blends 1.0 in lane 3.
    ///
    /// # Safety
    /// Every `p + off[k] .. + 4` is readable.
    #[inline(always)]
    pub(crate) unsafe fn bilinear<const SWAP_RB: bool, const OPAQUE: bool>(
        p: *const u8,
        off: [u32; 4],
        ax: f32,
        ay: f32,
    ) -> [f32; 4] {
        // SAFETY: readable per the contract; SSE2 is in the x86_64 baseline.
        unsafe {
            let t00 = texel(p, off[0], OPAQUE);
            let t10 = texel(p, off[1], OPAQUE);
            let t01 = texel(p, off[2], OPAQUE);
            let t11 = texel(p, off[3], OPAQUE);
            let (ax, ay) = (_mm_set1_ps(ax), _mm_set1_ps(ay));
            let top = _mm_add_ps(t00, _mm_mul_ps(_mm_sub_ps(t10, t00), ax));
            let bot = _mm_add_ps(t01, _mm_mul_ps(_mm_sub_ps(t11, t01), ax));
            let mut o = _mm_add_ps(top, _mm_mul_ps(_mm_sub_ps(bot, top), ay));
            if SWAP_RB {
                o = _mm_shuffle_ps::<0b11_00_01_10>(o, o);
            }
            let mut out = [0f32; 4];
            _mm_storeu_ps(out.as_mut_ptr(), o);
            out
        }
    }
}

/// Whether this CPU runs [`avx2`] (std caches the answer; the check is a load and a test).
#[inline(always)]
pub(crate) fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// AVX2 form of a whole quad's blend: two pixels per 256-bit register, each in its own
/// 128-bit half with the lanes [`sse::bilinear`] gives it, so the decode (bytes widened to
/// dwords in one instruction, the split reciprocal) and the blend run for two pixels per
/// instruction with the same operations in the same order, lane by lane.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    use super::{INV255_HI, INV255_LO};

    /// The texels at `p + a` and `p + b` as f32 lanes k / 255 (a's in lanes 0..4), lanes 3
    /// and 7 forced to 1.0 with `opaque`.
    ///
    /// # Safety
    /// AVX2 is available; `p + a .. + 4` and `p + b .. + 4` are readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn pair(p: *const u8, a: u32, b: u32, opaque: bool) -> __m256 {
        // SAFETY: readable per the contract.
        let (ta, tb) = unsafe {
            (
                std::ptr::read_unaligned(p.add(a as usize) as *const i32),
                std::ptr::read_unaligned(p.add(b as usize) as *const i32),
            )
        };
        let k = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_set_epi32(0, 0, tb, ta)));
        let f = _mm256_add_ps(
            _mm256_mul_ps(k, _mm256_set1_ps(INV255_HI)),
            _mm256_mul_ps(k, _mm256_set1_ps(INV255_LO)),
        );
        if opaque {
            _mm256_blend_ps::<0b1000_1000>(f, _mm256_set1_ps(1.0))
        } else {
            f
        }
    }

    /// The bilinear blends of a quad's four pixels into `out`: pixel `i` reads its taps
    /// (t00, t10, t01, t11) at `off[i]` with weights `ax[i]`, `ay[i]`. `SWAP_RB` and
    /// `OPAQUE` as in [`super::sse::bilinear`].
    ///
    /// # Safety
    /// AVX2 is available; every `p + off[i][k] .. + 4` is readable.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn quad<const SWAP_RB: bool, const OPAQUE: bool>(
        p: *const u8,
        off: &[[u32; 4]; 4],
        ax: [f32; 4],
        ay: [f32; 4],
        out: &mut [[f32; 4]; 4],
    ) {
        for h in 0..2 {
            let (i, j) = (2 * h, 2 * h + 1);
            let (a, b) = (&off[i], &off[j]);
            // Called one by one: a closure (`map`) would not inherit the target feature, and
            // `pair` would stay out of line.
            // SAFETY: forwarded contract.
            let (t00, t10, t01, t11) = unsafe {
                (
                    pair(p, a[0], b[0], OPAQUE),
                    pair(p, a[1], b[1], OPAQUE),
                    pair(p, a[2], b[2], OPAQUE),
                    pair(p, a[3], b[3], OPAQUE),
                )
            };
            let wx = _mm256_set_m128(_mm_set1_ps(ax[j]), _mm_set1_ps(ax[i]));
            let wy = _mm256_set_m128(_mm_set1_ps(ay[j]), _mm_set1_ps(ay[i]));
            let top = _mm256_add_ps(t00, _mm256_mul_ps(_mm256_sub_ps(t10, t00), wx));
            let bot = _mm256_add_ps(t01, _mm256_mul_ps(_mm256_sub_ps(t11, t01), wx));
            let mut o = _mm256_add_ps(top, _mm256_mul_ps(_mm256_sub_ps(bot, top), wy));
            if SWAP_RB {
                o = _mm256_permute_ps::<0b11_00_01_10>(o);
            }
            // SAFETY: rows i and j of `out` are adjacent: 8 writable f32 from row i on (the
            // pointer is taken from the whole array, so it may cover both).
            unsafe { _mm256_storeu_ps((out.as_mut_ptr() as *mut f32).add(4 * i), o) };
        }
    }
}
