//! Groups of whole 16x16 tiles of 1- and 2-byte elements, twiddled to linear, with AVX2.
//!
//! Why: `sse2_narrow`'s bodies are bound by their shuffles (two rounds per 16-byte vector).
//! Its rounds work within 16 bytes, so two independent 16-byte problems share one 32-byte
//! vector: the lanes are chosen so that each result row is 32 contiguous linear bytes (two
//! neighbouring tiles' rows for 1-byte elements, both halves of one tile's row for 2-byte),
//! halving the shuffles and stores.

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi128_si256,
    _mm256_castsi256_ps, _mm256_inserti128_si256, _mm256_packs_epi32, _mm256_packus_epi16,
    _mm256_set1_epi16, _mm256_shuffle_ps, _mm256_slli_epi32, _mm256_srai_epi32, _mm256_srli_epi16,
    _mm256_storeu_si256, _mm256_stream_si256, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64,
};

use super::sse2::{load, Stores};
use super::sse2_narrow::{group_of, tile16_B};
use crate::morton::block_of;

/// `lo` in lane 0, `hi` in lane 1.
#[inline(always)]
fn pair(lo: __m128i, hi: __m128i) -> __m256i {
    // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
    unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi) }
}

#[inline(always)]
fn store(how: Stores, b: &mut [u8], v: __m256i) {
    let b = &mut b[..32];
    // SAFETY: `b` is 32 writable bytes; streaming only when 32-byte aligned (VMOVNTDQ).
    unsafe {
        if how == Stores::Stream && b.as_ptr().align_offset(32) == 0 {
            _mm256_stream_si256(b.as_mut_ptr().cast(), v)
        } else {
            _mm256_storeu_si256(b.as_mut_ptr().cast(), v)
        }
    }
}

/// Per lane: even and odd 32-bit lanes of `a` then `b`.
#[inline(always)]
fn split32(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    // SAFETY: AVX; touches no memory.
    unsafe {
        let (fa, fb) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
        (
            _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(fa, fb)),
            _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(fa, fb)),
        )
    }
}

/// Per lane: even and odd bytes of `a` then `b`.
#[inline(always)]
fn split8(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    // SAFETY: AVX2; touches no memory.
    unsafe {
        let m = _mm256_set1_epi16(0x00ff);
        (
            _mm256_packus_epi16(_mm256_and_si256(a, m), _mm256_and_si256(b, m)),
            _mm256_packus_epi16(_mm256_srli_epi16::<8>(a), _mm256_srli_epi16::<8>(b)),
        )
    }
}

/// Per lane: even and odd 16-bit lanes of `a` then `b`.
#[inline(always)]
fn split16(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    // SAFETY: AVX2; touches no memory.
    unsafe {
        let lo = |x| _mm256_srai_epi32::<16>(_mm256_slli_epi32::<16>(x));
        (
            _mm256_packs_epi32(lo(a), lo(b)),
            _mm256_packs_epi32(_mm256_srai_epi32::<16>(a), _mm256_srai_epi32::<16>(b)),
        )
    }
}

/// Per lane as `sse2_narrow`'s blocks_to_band8 / blocks_to_band16.
#[inline(always)]
fn blocks_to_band<const N: usize>(w: [__m256i; 4]) -> [__m256i; 4] {
    let ((u0, v0), (u1, v1)) = if N == 1 {
        (split32(w[0], w[1]), split32(w[2], w[3]))
    } else {
        // SAFETY: AVX2; touches no memory.
        unsafe {
            (
                (
                    _mm256_unpacklo_epi64(w[0], w[1]),
                    _mm256_unpackhi_epi64(w[0], w[1]),
                ),
                (
                    _mm256_unpacklo_epi64(w[2], w[3]),
                    _mm256_unpackhi_epi64(w[2], w[3]),
                ),
            )
        }
    };
    let ((r0, r1), (r2, r3)) = if N == 1 {
        (split8(u0, u1), split8(v0, v1))
    } else {
        (split16(u0, u1), split16(v0, v1))
    };
    [r0, r1, r2, r3]
}

/// A group of `group_of(N)` whole tiles side by side (twiddled starts `ts`) into linear rows
/// `stride` apart from `lin[l..]`, band by band; 32 linear bytes per row and step.
///
/// # Safety
/// The CPU must have AVX2 (`avx2::available`).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn group_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    // Step p covers linear bytes 32p..32p + 32 of each row: for 1-byte elements tiles 2p and
    // 2p + 1 (one 16-byte vector column each), for 2-byte elements tile p's two columns.
    let lanes = |p: usize| -> [(usize, usize); 2] {
        if N == 1 {
            [(ts[2 * p], 0), (ts[2 * p + 1], 0)]
        } else {
            [(ts[p], 0), (ts[p], 1)]
        }
    };
    for by in 0..4 {
        for p in 0..group_of(N) * N / 2 {
            let [(ta, ha), (tb, hb)] = lanes(p);
            let (a, b) = (&tw[ta..][..tile16_B(N)], &tw[tb..][..tile16_B(N)]);
            let at = |i: usize| {
                let off = |h: usize| {
                    let (bx, half) = if N == 1 {
                        (i, 0)
                    } else {
                        (2 * h + i / 2, i % 2)
                    };
                    16 * N * block_of(bx, by) + 16 * half
                };
                pair(load(&a[off(ha)..]), load(&b[off(hb)..]))
            };
            let rows = blocks_to_band::<N>([at(0), at(1), at(2), at(3)]);
            for (r, v) in rows.into_iter().enumerate() {
                store(how, &mut lin[l + (4 * by + r) * stride + 32 * p..], v);
            }
        }
    }
}
