//! Whole 16x16 tiles of 1- and 2-byte elements with SSE2 (baseline on x86_64).
//!
//! Why this shape: a linear row of a tile is then one (1-byte) or two (2-byte) 16-byte
//! vectors, so a band of four rows is four or eight loads, and twiddling it is two rounds of
//! unpacks, each round one address bit of Y: rows 2j and 2j+1 interleave element by element
//! (Y bit 0), then the row pairs interleave in units of two pairs (X bit 0 sits between, Y
//! bit 1 above). After the second round every vector is a whole 4x4 block (1-byte) or half of
//! one (2-byte), stored whole at its block's place. Per-texel moves of one or two bytes (what
//! the generic body does) spend an instruction per byte or two; here it is about one per 8.
//! The reverse direction undoes the rounds: even/odd 32- or 64-bit lanes, then even/odd
//! elements by mask-and-pack (SSE2 has no byte shuffle; `pshufb` would need SSSE3).

use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps, _mm_packs_epi32, _mm_packus_epi16,
    _mm_set1_epi16, _mm_shuffle_ps, _mm_slli_epi32, _mm_srai_epi32, _mm_srli_epi16,
    _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpackhi_epi8,
    _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_unpacklo_epi8,
};

use super::sse2::{load, store_as, Stores};
use crate::morton::block_of;

/// A band of four 16-texel rows of 1-byte elements as its four twiddled 4x4 blocks (16 bytes
/// each), left to right.
#[inline(always)]
fn band8_to_blocks(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 is part of the x86_64 baseline; these touch no memory.
    unsafe {
        let (u0, u1) = (_mm_unpacklo_epi8(r[0], r[1]), _mm_unpackhi_epi8(r[0], r[1]));
        let (v0, v1) = (_mm_unpacklo_epi8(r[2], r[3]), _mm_unpackhi_epi8(r[2], r[3]));
        [
            _mm_unpacklo_epi32(u0, v0),
            _mm_unpackhi_epi32(u0, v0),
            _mm_unpacklo_epi32(u1, v1),
            _mm_unpackhi_epi32(u1, v1),
        ]
    }
}

/// Even and odd 32-bit lanes of `a` then `b`: the inverse of unpacklo/hi_epi32.
#[inline(always)]
fn split32(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE (baseline); touches no memory.
    unsafe {
        let (fa, fb) = (_mm_castsi128_ps(a), _mm_castsi128_ps(b));
        (
            _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(fa, fb)),
            _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(fa, fb)),
        )
    }
}

/// Even and odd bytes of `a` then `b`: the inverse of unpacklo/hi_epi8.
#[inline(always)]
fn split8(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 (baseline); touches no memory.
    unsafe {
        let m = _mm_set1_epi16(0x00ff);
        (
            _mm_packus_epi16(_mm_and_si128(a, m), _mm_and_si128(b, m)),
            _mm_packus_epi16(_mm_srli_epi16::<8>(a), _mm_srli_epi16::<8>(b)),
        )
    }
}

/// Four twiddled 4x4 blocks of 1-byte elements, left to right, as their band's four rows.
#[inline(always)]
fn blocks_to_band8(w: [__m128i; 4]) -> [__m128i; 4] {
    let ((u0, v0), (u1, v1)) = (split32(w[0], w[1]), split32(w[2], w[3]));
    let ((r0, r1), (r2, r3)) = (split8(u0, u1), split8(v0, v1));
    [r0, r1, r2, r3]
}

/// A band of four 8-texel rows of 2-byte elements as two twiddled 4x4 blocks (two vectors
/// each), left to right.
#[inline(always)]
fn band16_to_blocks(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 (baseline); touches no memory.
    unsafe {
        let (u0, u1) = (
            _mm_unpacklo_epi16(r[0], r[1]),
            _mm_unpackhi_epi16(r[0], r[1]),
        );
        let (v0, v1) = (
            _mm_unpacklo_epi16(r[2], r[3]),
            _mm_unpackhi_epi16(r[2], r[3]),
        );
        [
            _mm_unpacklo_epi64(u0, v0),
            _mm_unpackhi_epi64(u0, v0),
            _mm_unpacklo_epi64(u1, v1),
            _mm_unpackhi_epi64(u1, v1),
        ]
    }
}

/// Even and odd 16-bit lanes of `a` then `b`: the inverse of unpacklo/hi_epi16 (sign
/// extension first, so the signed saturating pack keeps every value).
#[inline(always)]
fn split16(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 (baseline); touches no memory.
    unsafe {
        let lo = |x| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(x));
        (
            _mm_packs_epi32(lo(a), lo(b)),
            _mm_packs_epi32(_mm_srai_epi32::<16>(a), _mm_srai_epi32::<16>(b)),
        )
    }
}

/// Two twiddled 4x4 blocks of 2-byte elements (two vectors each) as their band's four rows.
#[inline(always)]
fn blocks_to_band16(w: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 (baseline); touches no memory.
    let (u0, v0, u1, v1) = unsafe {
        (
            _mm_unpacklo_epi64(w[0], w[1]),
            _mm_unpackhi_epi64(w[0], w[1]),
            _mm_unpacklo_epi64(w[2], w[3]),
            _mm_unpackhi_epi64(w[2], w[3]),
        )
    };
    let ((r0, r1), (r2, r3)) = (split16(u0, u1), split16(v0, v1));
    [r0, r1, r2, r3]
}

/// Bytes of one 16x16 tile of `N`-byte texels.
pub(super) const fn tile16_B(n: usize) -> usize {
    // 16 x 16 texels.
    256 * n
}

/// Band `by` (rows 4by..4by+4) of a 16x16 tile of `N`-byte texels (`N` 1 or 2), linear rows
/// `stride` apart from `lin[l..]`, into the tile's twiddled bytes `tw`.
#[inline(always)]
fn band_to_twiddled<const N: usize>(
    tw: &mut [u8],
    lin: &[u8],
    l: usize,
    stride: usize,
    by: usize,
    how: Stores,
) {
    let tw = &mut tw[..tile16_B(N)];
    let row = |r: usize| &lin[l + (4 * by + r) * stride..][..16 * N];
    let rows = [row(0), row(1), row(2), row(3)];
    // One vector column (16 bytes of each row) at a time: 4 blocks (1-byte) or 2.
    for h in 0..N {
        let v = rows.map(|r| load(&r[16 * h..]));
        let out = if N == 1 {
            band8_to_blocks(v)
        } else {
            band16_to_blocks(v)
        };
        for (i, o) in out.into_iter().enumerate() {
            // 1-byte: vector i is block i; 2-byte: vector i is half i % 2 of block i / 2.
            let (bx, half) = if N == 1 {
                (i, 0)
            } else {
                (2 * h + i / 2, i % 2)
            };
            store_as(how, &mut tw[16 * N * block_of(bx, by) + 16 * half..], o);
        }
    }
}

/// Band `by` of a 16x16 tile's twiddled bytes `tw` of `N`-byte texels into linear rows.
#[inline(always)]
fn band_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    by: usize,
    how: Stores,
) {
    let tw = &tw[..tile16_B(N)];
    for h in 0..N {
        let at = |i: usize| {
            let (bx, half) = if N == 1 {
                (i, 0)
            } else {
                (2 * h + i / 2, i % 2)
            };
            load(&tw[16 * N * block_of(bx, by) + 16 * half..])
        };
        let v = [at(0), at(1), at(2), at(3)];
        let rows = if N == 1 {
            blocks_to_band8(v)
        } else {
            blocks_to_band16(v)
        };
        for (r, v) in rows.into_iter().enumerate() {
            store_as(how, &mut lin[l + (4 * by + r) * stride + 16 * h..], v);
        }
    }
}

/// A whole 16x16 tile of `N`-byte texels (`N` 1 or 2), linear rows `stride` apart from
/// `lin[l..]`, into its twiddled bytes `tw`, one band of four rows at a time.
#[inline(always)]
pub(super) fn tile16_to_twiddled<const N: usize>(
    tw: &mut [u8],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    for by in 0..4 {
        band_to_twiddled::<N>(tw, lin, l, stride, by, how);
    }
}

/// A whole 16x16 tile's twiddled bytes `tw` of `N`-byte texels (`N` 1 or 2) into linear rows
/// `stride` apart from `lin[l..]`, one band of four rows at a time.
#[inline(always)]
pub(super) fn tile16_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    how: Stores,
) {
    for by in 0..4 {
        band_to_linear::<N>(lin, l, stride, tw, by, how);
    }
}

/// Tiles side by side in a group: together their rows are one 64-byte line.
pub(super) const fn group_of(n: usize) -> usize {
    4 / n
}

/// A group of [`group_of`]`(N)` whole tiles side by side (twiddled starts `ts`, linear
/// top-left `lin[l..]`) into twiddled memory, band by band across the group: at a
/// power-of-two stride a tile's 16 rows share one L1 set, so a tile alone leaves its rows'
/// lines half read and evicted before its neighbour comes back for the rest; across the
/// group each band reads four whole lines once.
#[inline(always)]
pub(super) fn group_to_twiddled<const N: usize>(
    tw: &mut [u8],
    ts: [usize; 4],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    for by in 0..4 {
        // The band's four lines are loaded before any store: twiddled and linear buffers
        // that both start on a page put a tile's stores 4 KiB apart from the next loads
        // (measured: 256x256 8-bit at a third of the speed when loads followed stores).
        let row = |r: usize| -> [__m128i; 4] {
            let line: &[u8; 64] = lin[l + (4 * by + r) * stride..][..64].try_into().unwrap();
            [
                load(&line[..16]),
                load(&line[16..32]),
                load(&line[32..48]),
                load(&line[48..]),
            ]
        };
        let rows = [row(0), row(1), row(2), row(3)];
        for (k, &t) in ts.iter().enumerate().take(group_of(N)) {
            let tw = &mut tw[t..][..tile16_B(N)];
            for h in 0..N {
                let c = N * k + h;
                let v = [rows[0][c], rows[1][c], rows[2][c], rows[3][c]];
                let out = if N == 1 {
                    band8_to_blocks(v)
                } else {
                    band16_to_blocks(v)
                };
                for (i, o) in out.into_iter().enumerate() {
                    let (bx, half) = if N == 1 {
                        (i, 0)
                    } else {
                        (2 * h + i / 2, i % 2)
                    };
                    store_as(how, &mut tw[16 * N * block_of(bx, by) + 16 * half..], o);
                }
            }
        }
    }
}

/// A group of whole tiles side by side from twiddled memory into linear rows, band by band
/// across the group, so each band writes four whole 64-byte lines (why: [`group_to_twiddled`]).
#[inline(always)]
pub(super) fn group_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    // Loading the whole band before storing (as group_to_twiddled does) measured slower
    // here: sixteen live vectors spill on SSE2's sixteen registers.
    for by in 0..4 {
        for (g, &t) in ts.iter().enumerate().take(group_of(N)) {
            band_to_linear::<N>(lin, l + 16 * N * g, stride, &tw[t..], by, how);
        }
    }
}
