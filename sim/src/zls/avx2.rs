//! Z24S8 rows eight elements at a time (AVX2): the encoder of a tile row's depth and stencil,
//! and the stencil half of the decoder, each equal element for element to the scalar row
//! loops in [`super`] (tested below against them).

use std::arch::x86_64::*;

/// Elements per step.
const LANES: usize = 8;

/// `encode_row` for Z24S8: each element `code(depth) | stencil << 24`, the code as
/// [`crate::depth::Precision::encode_fast`] makes it: the depth clamped to [0, 1] (NaN to 0),
/// times 2^24 - 1 in f64 (exact), plus 1/2 (exact below 2^24), truncated.
///
/// # Safety
/// AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn encode_z24s8(depth: &[f32], stencil: &[u8], b: &mut [u8]) {
    let n = depth.len().min(stencil.len()).min(b.len() / 4);
    let max = _mm256_set1_pd(f64::from(crate::depth::Precision::Unorm24.max_code()));
    let half = _mm256_set1_pd(0.5);
    let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
    let mut i = 0;
    while i + LANES <= n {
        // SAFETY: i + 8 <= n, so the eight floats, the eight stencil bytes and the 32
        // element bytes lie inside their slices.
        unsafe {
            let d = _mm256_loadu_ps(depth.as_ptr().add(i));
            // max(d, 0) returns its second operand for a NaN: NaN to 0, as `clamp` then `as`.
            let d = _mm256_min_ps(_mm256_max_ps(d, zero), one);
            // A macro, not a closure: the intrinsics stay inline.
            macro_rules! code {
                ($v:expr) => {
                    _mm256_cvttpd_epi32(_mm256_add_pd(
                        _mm256_mul_pd(_mm256_cvtps_pd($v), max),
                        half,
                    ))
                };
            }
            let lo = code!(_mm256_castps256_ps128(d));
            let hi = code!(_mm256_extractf128_ps::<1>(d));
            let codes = _mm256_set_m128i(hi, lo);
            let s = _mm_loadl_epi64(stencil.as_ptr().add(i) as *const __m128i);
            let s = _mm256_slli_epi32::<24>(_mm256_cvtepu8_epi32(s));
            let v = _mm256_or_si256(codes, s);
            _mm256_storeu_si256(b.as_mut_ptr().add(4 * i) as *mut __m256i, v);
        }
        i += LANES;
    }
    for k in i..n {
        let e = super::encode_fast(crate::depth::Precision::Unorm24, depth[k], stencil[k]);
        b[4 * k..4 * k + 4].copy_from_slice(&e.to_le_bytes());
    }
}

/// The stencil half of `decode_row` for Z24S8: each element's bits 31:24.
///
/// # Safety
/// AVX2 is available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn stencil_z24s8(b: &[u8], stencil: &mut [u8]) {
    let n = stencil.len().min(b.len() / 4);
    let mut i = 0;
    while i + LANES <= n {
        // SAFETY: i + 8 <= n, so the 32 element bytes and the eight stencil bytes lie inside
        // their slices.
        unsafe {
            let v = _mm256_loadu_si256(b.as_ptr().add(4 * i) as *const __m256i);
            let s = _mm256_srli_epi32::<24>(v);
            // Eight 32-bit lanes to eight bytes: pack to 16 bits, then to 8 (values < 256).
            let w = _mm_packus_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
            let by = _mm_packus_epi16(w, w);
            _mm_storel_epi64(stencil.as_mut_ptr().add(i) as *mut __m128i, by);
        }
        i += LANES;
    }
    for k in i..n {
        stencil[k] = b[4 * k + 3];
    }
}

#[cfg(test)]
mod tests {
    use crate::depth::Precision::Unorm24;

    /// Every row length up to a tile's and every offset of the eight-lane steps, over depths
    /// around code halfway points, the ends, out of range, NaN and -0, and every stencil
    /// byte kind: equal to the scalar row loops.
    #[test]
    fn rows_equal_the_scalar_loops() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut vals = vec![
            0.0f32,
            -0.0,
            1.0,
            2.0,
            -1.0,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
        ];
        vals.push(f32::NEG_INFINITY);
        vals.push(1e-30);
        for code in (0..16_777_215u32).step_by(65_537) {
            let half = ((f64::from(code) + 0.5) / 16_777_215.0) as f32;
            for d in -2i32..=2 {
                vals.push(f32::from_bits(half.to_bits().wrapping_add_signed(d)));
            }
        }
        let stencils: Vec<u8> = (0..vals.len()).map(|i| (i * 37 + 11) as u8).collect();
        let mut n = 0;
        for start in 0..vals.len().saturating_sub(16) {
            for len in 0..=16 {
                let (d, s) = (&vals[start..start + len], &stencils[start..start + len]);
                let mut want = vec![0xa5u8; 4 * len];
                let mut got = want.clone();
                super::super::encode_row(Unorm24, d, s, &mut want);
                // SAFETY: AVX2 was detected above.
                unsafe { super::encode_z24s8(d, s, &mut got) };
                assert_eq!(got, want, "encode at {start}, {len} elements");
                let mut want_s = vec![0x77u8; len];
                let mut got_s = want_s.clone();
                super::super::decode_row(Unorm24, &want, None, Some(&mut want_s));
                // SAFETY: AVX2 was detected above.
                unsafe { super::stencil_z24s8(&want, &mut got_s) };
                assert_eq!(got_s, want_s, "stencil at {start}, {len} elements");
                assert_eq!(got_s, s, "stencil round trip at {start}, {len} elements");
                n += 1;
            }
        }
        assert!(n > 10_000, "{n} rows");
    }
}
