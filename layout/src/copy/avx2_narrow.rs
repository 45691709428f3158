//! Groups of whole 16x16 tiles of 1- and 2-byte elements, twiddled to linear, with AVX2.
//!
//! Why: `sse2_narrow`'s bodies are bound by their shuffles (two rounds per 16-byte vector).
//! Its rounds work within 16 bytes, so two independent 16-byte problems share one 32-byte
//! vector: the lanes are chosen so that each result row is 32 contiguous linear bytes (two
//! neighbouring tiles' rows for 1-byte elements, both halves of one tile's row for 2-byte),
//! halving the shuffles and stores.

use core::arch::x86_64::{__m128i, __m256i, _mm256_castsi128_si256, _mm256_inserti128_si256};

use super::sse2_narrow::{group_of, tile16_B, vector_at};
use super::unpack::blocks_to_band;
use super::vector::{load, store_as, Stores};

/// `lo` in lane 0, `hi` in lane 1.
#[inline(always)]
fn pair(lo: __m128i, hi: __m128i) -> __m256i {
    // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
    unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi) }
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
                let off = |h: usize| vector_at::<N>(h, i, by);
                pair(load(&a[off(ha)..]), load(&b[off(hb)..]))
            };
            let rows = blocks_to_band::<__m256i, N>([at(0), at(1), at(2), at(3)]);
            for (r, v) in rows.into_iter().enumerate() {
                store_as(how, &mut lin[l + (4 * by + r) * stride + 32 * p..], v);
            }
        }
    }
}
