//! Bodies for 4-byte elements with SSE2 (baseline on x86_64): a 4x4 block is four 16-byte
//! loads, eight unpacks and four 16-byte stores instead of sixteen 4-byte moves.
//!
//! Whole 16x16 tiles go four rows (one band) at a time, so every 64-byte linear row segment
//! is read, or written, whole and at once; in twiddled block order the tile's 16 rows, which
//! share an L1 set at power-of-two strides, evicted each other between visits. On large
//! copies the stores may be non-temporal ([`Stores::Stream`]): the written side then skips
//! the read-for-ownership and does not evict the side being read.

use core::arch::x86_64::{__m128i, _mm_sfence, _mm_unpackhi_epi32, _mm_unpacklo_epi32};

use super::vector::{load, per_store, store, store_as, stream_copy, Stores};

/// Orders earlier non-temporal stores before any later store, as the end of a copy must.
#[inline]
pub(super) fn fence() {
    // SAFETY: SFENCE exists on every x86_64 (SSE) and touches no memory.
    unsafe { _mm_sfence() }
}

/// Interleaves the 32-bit lanes of `a` and `b`: (a0 b0 a1 b1), (a2 b2 a3 b3).
#[inline(always)]
fn unpack(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 is part of the x86_64 baseline, so these instructions always exist; they
    // touch no memory.
    unsafe { (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)) }
}

/// Four linear rows of one 4x4 block (`r0` top) as its 64 twiddled bytes, in four vectors.
#[inline(always)]
fn rows_to_block(r0: __m128i, r1: __m128i, r2: __m128i, r3: __m128i) -> [__m128i; 4] {
    // Twiddled order pairs rows 0/1 and 2/3 texel by texel: (r0c0 r1c0 r0c1 r1c1) ...
    let ((a, b), (c, d)) = (unpack(r0, r1), unpack(r2, r3));
    [a, c, b, d]
}

/// A 4x4 block's 64 twiddled bytes, in four vectors, as its four linear rows.
#[inline(always)]
fn block_to_rows(v: [__m128i; 4]) -> [__m128i; 4] {
    // v0 = (r0c0 r1c0 r0c1 r1c1), v2 = (r0c2 r1c2 r0c3 r1c3): two unpack rounds undo it.
    let ((a, b), (c, d)) = (unpack(v[0], v[2]), unpack(v[1], v[3]));
    let ((row0, row1), (row2, row3)) = (unpack(a, b), unpack(c, d));
    [row0, row1, row2, row3]
}

/// Rows `lin[l + r * stride..]` (4 texels each) into twiddled block `tw[t..t + 64]`.
#[inline(always)]
pub(super) fn block_to_twiddled(tw: &mut [u8], t: usize, lin: &[u8], l: usize, stride: usize) {
    let (r0, r1) = (load(&lin[l..]), load(&lin[l + stride..]));
    let (r2, r3) = (load(&lin[l + 2 * stride..]), load(&lin[l + 3 * stride..]));
    // One 4x4 block of 4-byte texels: 64 bytes.
    let dst: &mut [u8; 64] = (&mut tw[t..t + 64]).try_into().unwrap();
    for (i, v) in rows_to_block(r0, r1, r2, r3).into_iter().enumerate() {
        store(&mut dst[16 * i..], v);
    }
}

/// The four 16-byte vectors of a 64-byte block. Written out rather than with `array::map`,
/// which the compiler does not always inline here (it cost half the speed of a copy).
#[inline(always)]
fn load4(src: &[u8; 64]) -> [__m128i; 4] {
    [
        load(&src[..16]),
        load(&src[16..32]),
        load(&src[32..48]),
        load(&src[48..]),
    ]
}

/// Twiddled block `tw[t..t + 64]` into rows `lin[l + r * stride..]`.
#[inline(always)]
pub(super) fn block_to_linear(lin: &mut [u8], l: usize, stride: usize, tw: &[u8], t: usize) {
    // One 4x4 block of 4-byte texels: 64 bytes.
    let src: &[u8; 64] = tw[t..t + 64].try_into().unwrap();
    let v = load4(src);
    for (r, row) in block_to_rows(v).into_iter().enumerate() {
        store(&mut lin[l + r * stride..], row);
    }
}

/// Bytes of one 16x16 tile of 4-byte texels.
pub(super) const TILE16_B: usize = 1024;

/// Twiddled byte offset, within a 16x16 tile of 4-byte texels, of the 4x4 block in block
/// column `bx` and block row `by` (Y in address bit 0).
#[inline(always)]
const fn block_at(bx: usize, by: usize) -> usize {
    // 64 bytes: a 4x4 block of 4-byte texels, the copy's unit (not a hardware size).
    64 * crate::morton::block_of(bx, by)
}

/// A whole 16x16 tile of 4-byte texels, linear rows `stride` apart from `lin[l..]`, into
/// its 1 KiB of twiddled memory, one band of four rows at a time.
pub(super) fn tile16_to_twiddled(
    tw: &mut [u8; TILE16_B],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    per_store!(how, to_twiddled(tw, lin, l, stride))
}

/// [`tile16_to_twiddled`]'s body.
#[inline(always)]
fn to_twiddled(tw: &mut [u8; TILE16_B], lin: &[u8], l: usize, stride: usize, how: Stores) {
    for by in 0..4 {
        // A tile row: 16 texels of 4 bytes.
        let row =
            |r: usize| -> &[u8; 64] { lin[l + (4 * by + r) * stride..][..64].try_into().unwrap() };
        let rows = [row(0), row(1), row(2), row(3)];
        for bx in 0..4 {
            let c = 16 * bx;
            let (r0, r1) = (load(&rows[0][c..c + 16]), load(&rows[1][c..c + 16]));
            let (r2, r3) = (load(&rows[2][c..c + 16]), load(&rows[3][c..c + 16]));
            let dst = &mut tw[block_at(bx, by)..][..64];
            for (i, v) in rows_to_block(r0, r1, r2, r3).into_iter().enumerate() {
                store_as(how, &mut dst[16 * i..], v);
            }
        }
    }
}

/// A whole 16x16 tile's 1 KiB of twiddled memory into linear rows `stride` apart from
/// `lin[l..]`, one band of four rows at a time, each row's 64 bytes stored in sequence (so
/// that non-temporal stores fill whole lines).
pub(super) fn tile16_to_linear(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8; TILE16_B],
    how: Stores,
) {
    per_store!(how, to_linear(lin, l, stride, tw))
}

/// [`tile16_to_linear`]'s body.
#[inline(always)]
fn to_linear(lin: &mut [u8], l: usize, stride: usize, tw: &[u8; TILE16_B], how: Stores) {
    for by in 0..4 {
        // cols[bx][r]: row r of block column bx.
        let col = |bx: usize| -> [__m128i; 4] {
            let src: &[u8; 64] = tw[block_at(bx, by)..][..64].try_into().unwrap();
            block_to_rows(load4(src))
        };
        let cols = [col(0), col(1), col(2), col(3)];
        for r in 0..4 {
            let row: &mut [u8; 64] = (&mut lin[l + (4 * by + r) * stride..][..64])
                .try_into()
                .unwrap();
            for (bx, col) in cols.iter().enumerate() {
                store_as(how, &mut row[16 * bx..], col[r]);
            }
        }
    }
}

/// `src` into `dst` (equal lengths) with 16-byte non-temporal stores where `dst` is aligned
/// (`vector::stream_copy`); a fence must follow.
#[inline(always)]
pub(super) fn stream_copy16(dst: &mut [u8], src: &[u8]) {
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { stream_copy::<__m128i>(dst, src) }
}
