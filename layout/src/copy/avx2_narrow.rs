//! Groups of whole 16x16 tiles of 1- and 2-byte elements, in both directions, with AVX2.
//!
//! Why this shape: SSE2's unpack rounds work within 16 bytes, so two independent 16-byte
//! problems share one 32-byte vector. Every load and store is 32 bytes: linear rows are read
//! or written 32 contiguous bytes at a time (two neighbouring tiles' rows for 1-byte
//! elements, one tile's row for 2-byte), and one cross-lane permute (`vperm2i128`) per 32
//! twiddled bytes pairs what belongs together there (1-byte: a block with the one below it,
//! half of an 8x8 quadrant's line, the upper band's in one lane and the lower band's in the
//! other; 2-byte: a block's two halves). Going to twiddled memory the rounds are SSE2's
//! unpacks; going back, one `vpshufb` per vector puts it in row order and a transpose of
//! 4-byte pieces makes the rows (`unpack::blocks_to_band_pshufb`).
//!
//! What bounds them (AMD EPYC, Zen 3 assumed from family 25: two 256-bit shuffle pipes, which
//! also carry the vector store data; three loads per cycle): per 64 bytes, 4 unpacks, 2
//! permutes and 2 stores going to twiddled memory, 6 shuffles, 2 permutes and 2 stores back.
//! With the shuffles taken out (wrong bytes, same loads and stores) 256x256 16-bit
//! linear->twiddled ran at 0.92x of memcpy against 0.60x with them, at the time when the
//! per-store bounds checks and store-type branches were still there; those cost as much
//! again ([`super::rows`], and one copy of each body per store type). That copy is made by
//! the macro `vector::per_store` (a helper taking the body as a closure measured 0.53x against
//! 0.77x of memcpy, 256x256 8-bit linear->twiddled, the closure not being inlined). Going to linear memory, fewer shuffles
//! by blends did not pay: 2-byte blocks byte-shuffled so that each row sits rotated by its
//! block, three `vpblendd` per row and one `vpermd` to undo the rotation and interleave the
//! lanes (8 shuffles and 12 blends per 128 bytes against 16 shuffles) measured 0.52-0.61x
//! against 0.75-0.79x of memcpy (256x256 16-bit).

use core::arch::x86_64::__m256i;

use super::rows::{Rows, RowsMut};
use super::unpack::{band_to_blocks, blocks_to_band_pshufb, lanes_of, rows_index_of};
use super::vector::{load, per_store, store_as, Stores};
use crate::morton::block_of;

/// A group of `group_of(N)` whole tiles side by side (twiddled starts `ts`) into linear rows
/// `stride` apart from `lin[l..]`, with 32-byte loads and stores: the inverse of
/// [`group_to_twiddled`] (a cross-lane permute per 32 bytes loaded, then the inverse rounds
/// per lane).
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
    per_store!(how, to_linear::<N>(lin, l, stride, tw, ts))
}

/// Band pair `bp` of two 16x16 tiles of 1-byte texels side by side, `a` left: its eight
/// rows as 32-byte vectors, upper band then lower. A function rather than a closure inside the
/// loop over the tile pairs (as [`halves_to_tile`]).
#[inline(always)]
fn pair_to_rows(a: &[u8; 256], b: &[u8; 256], bp: usize, idx: __m256i) -> [[__m256i; 4]; 2] {
    let mut upper = [idx; 4];
    let mut lower = [idx; 4];
    for bx in 0..4 {
        // Block column bx's half line in tiles a and b: its upper and lower blocks.
        let off = 64 * (bp + 2 * (bx / 2)) + 32 * (bx % 2);
        let (x, y): (__m256i, __m256i) = (load(&a[off..]), load(&b[off..]));
        (upper[bx], lower[bx]) = (lanes_of::<false>(x, y), lanes_of::<true>(x, y));
    }
    [
        blocks_to_band_pshufb(upper, idx),
        blocks_to_band_pshufb(lower, idx),
    ]
}

/// [`group_to_linear`]'s body, compiled inside it; every tile is bounds-checked once as a
/// fixed-size array.
#[inline(always)]
fn to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    let idx = rows_index_of::<__m256i, N>();
    if N == 1 {
        // A 16x16 tile of 1-byte texels is 256 bytes, and a group's row 64 bytes (the
        // copy's units, not hardware sizes).
        let tile = |k: usize| -> &[u8; 256] { tw[ts[k]..][..256].try_into().unwrap() };
        let tiles = [tile(0), tile(1), tile(2), tile(3)];
        for bp in 0..2 {
            // Eight rows of the group's 64 bytes.
            let mut rows = RowsMut::<8, 64>::new(lin, l + 8 * bp * stride, stride);
            for q in 0..2 {
                let [upper, lower] = pair_to_rows(tiles[2 * q], tiles[2 * q + 1], bp, idx);
                // (Not `chain`: its state went through the stack, at half the speed.)
                for r in 0..4 {
                    store_as(how, &mut rows.row(r)[32 * q..], upper[r]);
                    store_as(how, &mut rows.row(r + 4)[32 * q..], lower[r]);
                }
            }
        }
    } else {
        let tile = |k: usize| -> &[u8; 512] { tw[ts[k]..][..512].try_into().unwrap() };
        let tiles = [tile(0), tile(1)];
        for by in 0..4 {
            for (q, t) in tiles.iter().enumerate() {
                let blk = |bx: usize| -> __m256i { load(&t[32 * block_of(bx, by)..]) };
                let [b0, b1, b2, b3] = [blk(0), blk(1), blk(2), blk(3)];
                // Lane 0 takes blocks 0 and 1 of the band, lane 1 blocks 2 and 3.
                let w = [
                    lanes_of::<false>(b0, b2),
                    lanes_of::<true>(b0, b2),
                    lanes_of::<false>(b1, b3),
                    lanes_of::<true>(b1, b3),
                ];
                let mut rows = RowsMut::<4, 64>::new(lin, l + 4 * by * stride, stride);
                for (r, v) in blocks_to_band_pshufb(w, idx).into_iter().enumerate() {
                    store_as(how, &mut rows.row(r)[32 * q..], v);
                }
            }
        }
    }
}

/// A group of `group_of(N)` whole tiles side by side (twiddled starts `ts`, linear top-left
/// `lin[l..]`, rows `stride` apart) into twiddled memory, with 32-byte loads and stores.
///
/// Each 32-byte linear row piece holds two 16-byte problems in its lanes (two tiles' rows
/// for 1-byte elements, the two block pairs of one tile row for 2-byte ones), so SSE2's two
/// unpack rounds twiddle both at once; one cross-lane permute per 32 bytes stored then pairs
/// what belongs together in twiddled memory (1-byte: a block of the upper band with the one
/// below it, which is half of an 8x8 quadrant's line; 2-byte: a block's two halves).
///
/// # Safety
/// The CPU must have AVX2 (`avx2::available`).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn group_to_twiddled<const N: usize>(
    tw: &mut [u8],
    ts: [usize; 4],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    per_store!(how, to_twiddled::<N>(tw, ts, lin, l, stride))
}

/// The four 32-byte half lines of band pair `bp` of one 16x16 tile of 1-byte texels, from
/// the low (`HI` false) or high lanes of the upper and lower bands' blocks. A function
/// rather than a loop over the two tiles, which the compiler left rolled (at 0.64-0.67x of
/// the best copy, 256x256).
#[inline(always)]
fn halves_to_tile<const HI: bool>(
    // A 16x16 tile of 1-byte texels (the copy's unit, not a hardware size).
    dst: &mut [u8; 256],
    bp: usize,
    upper: &[__m256i; 4],
    lower: &[__m256i; 4],
    how: Stores,
) {
    for bx in 0..4 {
        // Quadrant (Y bit 3, X bit 3) = (bp, bx / 2); X bit 2 picks the half.
        let off = 64 * (bp + 2 * (bx / 2)) + 32 * (bx % 2);
        store_as(
            how,
            &mut dst[off..off + 32],
            lanes_of::<HI>(upper[bx], lower[bx]),
        );
    }
}

/// [`group_to_twiddled`]'s body, compiled inside it. Every row and tile is bounds-checked
/// once as a fixed-size array, so the stores' offsets are constants after unrolling.
#[inline(always)]
fn to_twiddled<const N: usize>(
    tw: &mut [u8],
    ts: [usize; 4],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    if N == 1 {
        for bp in 0..2 {
            // A band pair (eight rows of the group's 64 bytes), all loaded before any store
            // (4 KiB aliasing between page-aligned buffers: sse2_narrow's group_to_twiddled).
            let rows = Rows::<8, 64>::new(lin, l + 8 * bp * stride, stride);
            let v = |r: usize, q: usize| -> __m256i { load(&rows.row(r)[32 * q..]) };
            for q in 0..2 {
                let upper = band_to_blocks::<__m256i, 1>([v(0, q), v(1, q), v(2, q), v(3, q)]);
                let lower = band_to_blocks::<__m256i, 1>([v(4, q), v(5, q), v(6, q), v(7, q)]);
                // Tile 2q from the vectors' low lanes, tile 2q + 1 from their high lanes.
                let (ta, tb) = (ts[2 * q], ts[2 * q + 1]);
                let dst = (&mut tw[ta..][..256]).try_into().unwrap();
                halves_to_tile::<false>(dst, bp, &upper, &lower, how);
                let dst = (&mut tw[tb..][..256]).try_into().unwrap();
                halves_to_tile::<true>(dst, bp, &upper, &lower, how);
            }
        }
    } else {
        for by in 0..4 {
            let rows = Rows::<4, 64>::new(lin, l + 4 * by * stride, stride);
            for (q, &t) in ts[..2].iter().enumerate() {
                let v = |r: usize| -> __m256i { load(&rows.row(r)[32 * q..]) };
                let [b0, b1, b2, b3] = band_to_blocks::<__m256i, 2>([v(0), v(1), v(2), v(3)]);
                // Lane 0 holds blocks 0 and 1 of the band, lane 1 blocks 2 and 3.
                let dst: &mut [u8; 512] = (&mut tw[t..][..512]).try_into().unwrap();
                let at = |bx: usize| 32 * block_of(bx, by);
                store_as(how, &mut dst[at(0)..][..32], lanes_of::<false>(b0, b1));
                store_as(how, &mut dst[at(2)..][..32], lanes_of::<true>(b0, b1));
                store_as(how, &mut dst[at(1)..][..32], lanes_of::<false>(b2, b3));
                store_as(how, &mut dst[at(3)..][..32], lanes_of::<true>(b2, b3));
            }
        }
    }
}
