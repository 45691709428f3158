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

use core::arch::x86_64::__m128i;

use super::rows::{Rows, RowsMut};
use super::unpack::{blocks_to_band, blocks_to_band_pshufb, rows_index_of};
use super::vector::{load, per_store, store_as, Stores};
use crate::morton::block_of;

/// A band of four rows of `N`-byte elements, one 16-byte vector column of each, as its
/// twiddled vectors (in [`vector_at`] order).
#[inline(always)]
fn band_to_blocks<const N: usize>(r: [__m128i; 4]) -> [__m128i; 4] {
    super::unpack::band_to_blocks::<__m128i, N>(r)
}

/// Twiddled byte offset, within a 16x16 tile of `N`-byte texels, of vector `i` (0..4) of
/// vector column `h` (0..N) of band `by`: for 1-byte elements vector i is block i; for 2-byte
/// ones it is half i % 2 of block 2h + i / 2.
#[inline(always)]
pub(super) fn vector_at<const N: usize>(h: usize, i: usize, by: usize) -> usize {
    let (bx, half) = if N == 1 {
        (i, 0)
    } else {
        (2 * h + i / 2, i % 2)
    };
    16 * N * block_of(bx, by) + 16 * half
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
        for (i, o) in band_to_blocks::<N>(v).into_iter().enumerate() {
            store_as(how, &mut tw[vector_at::<N>(h, i, by)..], o);
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
        let at = |i: usize| load(&tw[vector_at::<N>(h, i, by)..]);
        let rows = blocks_to_band::<N>([at(0), at(1), at(2), at(3)]);
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
pub(super) fn group_to_twiddled<const N: usize>(
    tw: &mut [u8],
    ts: [usize; 4],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    per_store!(how, to_twiddled::<N>(tw, ts, lin, l, stride))
}

/// [`group_to_twiddled`]'s body, compiled inside it.
#[inline(always)]
fn to_twiddled<const N: usize>(
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
        let lines = Rows::<4, 64>::new(lin, l + 4 * by * stride, stride);
        let row = |r: usize| -> [__m128i; 4] {
            let line = lines.row(r);
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
                for (i, o) in band_to_blocks::<N>(v).into_iter().enumerate() {
                    store_as(how, &mut tw[vector_at::<N>(h, i, by)..], o);
                }
            }
        }
    }
}

/// A group of whole tiles side by side from twiddled memory into linear rows, band by band
/// across the group, so each band writes four whole 64-byte lines (why: [`group_to_twiddled`]).
pub(super) fn group_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    per_store!(how, to_linear::<N, false>(lin, l, stride, tw, ts))
}

/// [`group_to_linear`]'s body, undoing the unpack rounds by masking and packing, or with
/// `pshufb` where `PSHUFB` (for `ssse3_narrow`, whose callers compile it with SSSE3).
#[inline(always)]
pub(super) fn to_linear<const N: usize, const PSHUFB: bool>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    let idx = if PSHUFB {
        rows_index_of::<__m128i, N>()
    } else {
        load(&[0u8; 16])
    };
    // Loading the whole band before storing (as group_to_twiddled does) measured slower
    // here: sixteen live vectors spill on SSE2's sixteen registers.
    for by in 0..4 {
        // The band's four rows of the group's 64 bytes.
        let mut rows = RowsMut::<4, 64>::new(lin, l + 4 * by * stride, stride);
        for (g, &t) in ts.iter().enumerate().take(group_of(N)) {
            let tile = &tw[t..][..tile16_B(N)];
            for h in 0..N {
                let at = |i: usize| load(&tile[vector_at::<N>(h, i, by)..]);
                let w = [at(0), at(1), at(2), at(3)];
                let band = if PSHUFB {
                    blocks_to_band_pshufb(w, idx)
                } else {
                    blocks_to_band::<N>(w)
                };
                for (r, v) in band.into_iter().enumerate() {
                    store_as(how, &mut rows.row(r)[16 * N * g + 16 * h..], v);
                }
            }
        }
    }
}
