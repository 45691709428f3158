//! Whole 16x16 tiles of 4-byte texels with AVX2, where the CPU has it (detected at run time).
//!
//! Why: the SSE2 bodies (`sse2`) spend two unpacks per 16-byte vector, and cache-resident
//! copies are then bound by the shuffle ports and by 16-byte stores (256x256 at half of a
//! 32/64-byte memcpy). Here a 32-byte vector holds two 4-texel row pieces of two neighbouring
//! blocks; the unpacks work within its 128-bit lanes, so one round of unpacks serves two
//! blocks, and one cross-lane permute per 32 bytes puts each block's halves together.

use core::arch::x86_64::__m256i;

use super::rows::{Rows, RowsMut};
use super::sse2::TILE16_B;
use super::unpack::{lanes_of, Unpack};
use super::vector::{load, per_store, store_as, stream_copy, Stores};
use crate::morton::block_of;

/// Whether this CPU runs these bodies (the standard library caches the detection).
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Twiddled byte offset, within a 16x16 tile of 4-byte texels, of block (`bx`, `by`).
#[inline(always)]
const fn block_at(bx: usize, by: usize) -> usize {
    // 64 bytes: a 4x4 block of 4-byte texels, the copy's unit (not a hardware size).
    64 * block_of(bx, by)
}

/// A whole 16x16 tile of 4-byte texels, linear rows `stride` apart from `lin[l..]`, into its
/// 1 KiB of twiddled memory, band by band.
///
/// # Safety
/// The CPU must have AVX2 ([`available`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile16_to_twiddled(
    tw: &mut [u8; TILE16_B],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    per_store!(how, to_twiddled(tw, lin, l, stride))
}

/// [`tile16_to_twiddled`]'s body, compiled inside it.
#[inline(always)]
fn to_twiddled(tw: &mut [u8; TILE16_B], lin: &[u8], l: usize, stride: usize, how: Stores) {
    for by in 0..4 {
        // The band's four lines are loaded before any store (4 KiB aliasing between
        // page-aligned buffers: sse2_narrow's group_to_twiddled). A tile row: 64 bytes.
        let lines = Rows::<4, 64>::new(lin, l + 4 * by * stride, stride);
        let r = |k: usize, hx: usize| load(&lines.row(k)[32 * hx..]);
        let rows = [
            [r(0, 0), r(1, 0), r(2, 0), r(3, 0)],
            [r(0, 1), r(1, 1), r(2, 1), r(3, 1)],
        ];
        for (hx, &[r0, r1, r2, r3]) in rows.iter().enumerate() {
            // Per lane as sse2's rows_to_block: a block is (a, c, b, d).
            let (a, b) = __m256i::unpack32(r0, r1);
            let (c, d) = __m256i::unpack32(r2, r3);
            let left = &mut tw[block_at(2 * hx, by)..][..64];
            store_as(how, left, lanes_of::<false>(a, c));
            store_as(how, &mut left[32..], lanes_of::<false>(b, d));
            let right = &mut tw[block_at(2 * hx + 1, by)..][..64];
            store_as(how, right, lanes_of::<true>(a, c));
            store_as(how, &mut right[32..], lanes_of::<true>(b, d));
        }
    }
}

/// A whole 16x16 tile's 1 KiB of twiddled memory into linear rows `stride` apart from
/// `lin[l..]`, band by band, each row's 64 bytes stored in sequence (whole lines when
/// streaming).
///
/// # Safety
/// The CPU must have AVX2 ([`available`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn tile16_to_linear(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8; TILE16_B],
    how: Stores,
) {
    per_store!(how, to_linear(lin, l, stride, tw))
}

/// [`tile16_to_linear`]'s body, compiled inside it.
#[inline(always)]
fn to_linear(lin: &mut [u8], l: usize, stride: usize, tw: &[u8; TILE16_B], how: Stores) {
    for by in 0..4 {
        let (left, right) = (band_rows(tw, by, 0), band_rows(tw, by, 1));
        // A tile row: 16 texels of 4 bytes (the copy's unit, not a hardware size).
        let mut lines = RowsMut::<4, 64>::new(lin, l + 4 * by * stride, stride);
        for r in 0..4 {
            let row = lines.row(r);
            store_as(how, row, left[r]);
            store_as(how, &mut row[32..], right[r]);
        }
    }
}

/// Rows 0-3 of block columns 2hx and 2hx + 1 of band `by`. A function, not a closure: a
/// closure here was not inlined into the AVX2 body and ran at a fiftieth of the speed.
#[inline(always)]
fn band_rows(tw: &[u8; TILE16_B], by: usize, hx: usize) -> [__m256i; 4] {
    let (left, right) = (block_at(2 * hx, by), block_at(2 * hx + 1, by));
    let (x0, x1) = (load(&tw[left..]), load(&tw[left + 32..]));
    let (y0, y1) = (load(&tw[right..]), load(&tw[right + 32..]));
    let v0 = lanes_of::<false>(x0, y0);
    let v1 = lanes_of::<true>(x0, y0);
    let v2 = lanes_of::<false>(x1, y1);
    let v3 = lanes_of::<true>(x1, y1);
    // Per lane as sse2's block_to_rows.
    let (a, b) = __m256i::unpack32(v0, v2);
    let (c, d) = __m256i::unpack32(v1, v3);
    let ((r0, r1), (r2, r3)) = (__m256i::unpack32(a, b), __m256i::unpack32(c, d));
    [r0, r1, r2, r3]
}

/// `src` into `dst` (equal lengths) with 32-byte non-temporal stores where `dst` is aligned
/// (`vector::stream_copy`); a fence must follow.
///
/// # Safety
/// The CPU must have AVX2 ([`available`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn stream_copy32(dst: &mut [u8], src: &[u8]) {
    // SAFETY: this function has AVX2 (the caller's contract).
    unsafe { stream_copy::<__m256i>(dst, src) }
}
