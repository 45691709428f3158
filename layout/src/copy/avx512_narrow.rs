//! Groups of whole 16x16 tiles of 1- and 2-byte elements with AVX-512 (VBMI's byte permute for
//! 1-byte elements, BW's 16-bit permute for 2-byte ones), where the CPU has them; and whole
//! tiles of 4-byte elements with AVX-512F (the end of the file).
//!
//! Why this shape: `sse2_narrow` and `avx2_narrow` twiddle with unpack rounds, one address
//! bit per round, within 16-byte lanes, and are bound by those shuffles on cache-resident
//! levels (256x256 at under half of memcpy). Here the 64 bytes of one twiddled line, an 8x8
//! quadrant of a tile (1-byte) or half of one (2-byte), come from eight 16-byte row pieces:
//! four rows of a band and four of the next. Both directions meet in "band pieces" (one
//! 16-byte column of a band's four rows in one vector), and a 4x4 transpose of 16-byte lanes
//! turns a band's four whole 64-byte rows into its four band pieces, or back. The whole
//! reordering within 64 bytes is then one two-source permute (`vpermi2b`/`vpermi2w`). Going
//! to twiddled memory, whole-row loads and the transpose replaced gathering each band piece
//! from four 16-byte loads and three inserts (256x256 16- and 8-bit: 0.41-0.47x of the best
//! copy before, 0.67-0.70x after): per 512 bytes, eight 64-byte loads and sixteen lane
//! shuffles instead of thirty-two 16-byte loads and twenty-four inserts. Every store is a
//! whole, aligned 64-byte line in both directions, so streaming (non-temporal) stores
//! complete a line each.

use core::arch::x86_64::{
    __m512i, _mm512_permutex2var_epi16, _mm512_permutex2var_epi32, _mm512_permutex2var_epi8,
    _mm512_permutexvar_epi32, _mm512_shuffle_i64x2,
};

use super::rows::RowsMut;
use super::vector::{load, per_store, store_as, Stores};
use crate::morton::{block_of, square8_index};

/// Whether this CPU runs these bodies (the standard library caches the detection).
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
}

/// Permute indices, as the bytes of a vector of `n`-byte lanes, from a band-piece pair
/// (`a` rows 0-3, `b` rows 4-7 of an 8-row band pair, 16 bytes per row) to twiddled line `k`
/// (0 or 1) of that band pair's piece: for 1-byte elements the 8x8 quadrant in columns
/// 8k..8k + 8, for 2-byte elements half `k` of the piece's one 8x8 quadrant.
const fn to_twiddled_index(n: usize) -> [[u8; 64]; 2] {
    // A 512-bit register holds 64 bytes; a band-piece row, 16.
    let (lanes, row_el) = (64 / n, 16 / n);
    let mut t = [[0u8; 64]; 2];
    let mut k = 0;
    while k < 2 {
        let mut i = 0;
        while i < lanes {
            // The element's place in the quadrant (x, y < 8), then in the band piece pair.
            let j = if n == 1 { i } else { lanes * k + i };
            let (mut x, mut y, mut b) = (0, 0, 0);
            while b < 3 {
                y |= ((j >> (2 * b)) & 1) << b;
                x |= ((j >> (2 * b + 1)) & 1) << b;
                b += 1;
            }
            if n == 1 {
                x += 8 * k;
            }
            let idx = (y / 4) * lanes + (y % 4) * row_el + x;
            t[k][i * n] = idx as u8;
            i += 1;
        }
        k += 1;
    }
    t
}

/// The inverse of [`to_twiddled_index`]: from the two twiddled lines of a band pair's piece
/// to its band piece `s` (0: the upper band, 1: the lower).
const fn to_linear_index(n: usize) -> [[u8; 64]; 2] {
    // A 512-bit register holds 64 bytes; a band-piece row, 16.
    let (lanes, row_el) = (64 / n, 16 / n);
    let mut t = [[0u8; 64]; 2];
    let mut s = 0;
    while s < 2 {
        let mut e = 0;
        while e < lanes {
            let (r, c) = (e / row_el, e % row_el);
            let y = 4 * s + r;
            // 1-byte: columns 8k.. come from line k; 2-byte: the quadrant's index is the
            // line (bit 5) and the lane below it.
            let idx = if n == 1 {
                (c / 8) * lanes + square8_index(c % 8, y)
            } else {
                square8_index(c, y)
            };
            t[s][e * n] = idx as u8;
            e += 1;
        }
        s += 1;
    }
    t
}

static TO_TWIDDLED: [[[u8; 64]; 2]; 2] = [to_twiddled_index(1), to_twiddled_index(2)];
static TO_LINEAR: [[[u8; 64]; 2]; 2] = [to_linear_index(1), to_linear_index(2)];

/// The two-source permute of `n`-byte lanes: lane i takes lane `idx[i]` of `a` then `b`.
#[inline(always)]
fn permute<const N: usize>(a: __m512i, idx: __m512i, b: __m512i) -> __m512i {
    // SAFETY: callers are functions with AVX-512 BW and VBMI enabled; touches no memory.
    unsafe {
        if N == 1 {
            _mm512_permutex2var_epi8(a, idx, b)
        } else {
            _mm512_permutex2var_epi16(a, idx, b)
        }
    }
}

/// Four vectors as a 4x4 matrix of 16-byte lanes, transposed: lane r of `v[p]` becomes lane
/// p of result r.
#[inline(always)]
fn transpose4(v: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: AVX-512F (callers enable it); touches no memory.
    unsafe {
        let t0 = _mm512_shuffle_i64x2::<0x44>(v[0], v[1]); // v0.0 v0.1 v1.0 v1.1
        let t1 = _mm512_shuffle_i64x2::<0xee>(v[0], v[1]); // v0.2 v0.3 v1.2 v1.3
        let t2 = _mm512_shuffle_i64x2::<0x44>(v[2], v[3]);
        let t3 = _mm512_shuffle_i64x2::<0xee>(v[2], v[3]);
        [
            _mm512_shuffle_i64x2::<0x88>(t0, t2),
            _mm512_shuffle_i64x2::<0xdd>(t0, t2),
            _mm512_shuffle_i64x2::<0x88>(t1, t3),
            _mm512_shuffle_i64x2::<0xdd>(t1, t3),
        ]
    }
}

/// Byte offset, in the tiles `ts`, of twiddled line `k` of piece `p` of band pair `bp`.
#[inline(always)]
fn line_at<const N: usize>(ts: [usize; 4], bp: usize, p: usize, k: usize) -> usize {
    if N == 1 {
        // Piece p is tile p; quadrant (Y bit 3, X bit 3) = (bp, k).
        ts[p] + 64 * (bp + 2 * k)
    } else {
        // Piece p is half p % 2 of tile p / 2 (X bit 3); its quadrant's two lines.
        ts[p / 2] + 128 * (bp + 2 * (p % 2)) + 64 * k
    }
}

/// The two twiddled lines of piece `p` of band pair `bp` (see [`line_at`]).
#[inline(always)]
fn lines<const N: usize>(tw: &[u8], ts: [usize; 4], bp: usize, p: usize) -> (__m512i, __m512i) {
    (
        load(&tw[line_at::<N>(ts, bp, p, 0)..]),
        load(&tw[line_at::<N>(ts, bp, p, 1)..]),
    )
}

/// A group of `4 / N` whole tiles side by side (twiddled starts `ts`, linear top-left
/// `lin[l..]`, rows `stride` apart) into twiddled memory, eight rows at a time.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn group_to_twiddled<const N: usize>(
    tw: &mut [u8],
    ts: [usize; 4],
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    let idx = &TO_TWIDDLED[N - 1];
    let (i0, i1) = (load(&idx[0]), load(&idx[1]));
    for bp in 0..2 {
        // The band pair's eight whole 64-byte rows, bounds-checked once as one slice. All
        // are read before any store: twiddled and linear buffers that both start on a page
        // put stores 4 KiB apart from the next loads (sse2_narrow's group_to_twiddled).
        let at = l + 8 * bp * stride;
        let rows = &lin[at..at + 7 * stride + 64];
        let row = |r: usize| load(&rows[r * stride..]);
        // transpose4 turns four rows into their four band pieces (lane p of each row).
        let upper = transpose4([row(0), row(1), row(2), row(3)]);
        let lower = transpose4([row(4), row(5), row(6), row(7)]);
        for (p, (a, b)) in upper.into_iter().zip(lower).enumerate() {
            store_as(
                how,
                &mut tw[line_at::<N>(ts, bp, p, 0)..],
                permute::<N>(a, i0, b),
            );
            store_as(
                how,
                &mut tw[line_at::<N>(ts, bp, p, 1)..],
                permute::<N>(a, i1, b),
            );
        }
    }
}

/// The twiddled lines of band pair `bp` of the group whose tiles start at `ts`: each piece's
/// two (see [`line_at`]).
#[inline(always)]
fn group_lines<const N: usize>(tw: &[u8], ts: [usize; 4], bp: usize) -> [(__m512i, __m512i); 4] {
    [
        lines::<N>(tw, ts, bp, 0),
        lines::<N>(tw, ts, bp, 1),
        lines::<N>(tw, ts, bp, 2),
        lines::<N>(tw, ts, bp, 3),
    ]
}

/// One band's four 64-byte rows from its band pair's lines (`i`: the index of
/// [`to_linear_index`] for the upper or lower band).
#[inline(always)]
fn band_of<const N: usize>(src: &[(__m512i, __m512i); 4], i: __m512i) -> [__m512i; 4] {
    transpose4([
        permute::<N>(src[0].0, i, src[0].1),
        permute::<N>(src[1].0, i, src[1].1),
        permute::<N>(src[2].0, i, src[2].1),
        permute::<N>(src[3].0, i, src[3].1),
    ])
}

/// A group of `4 / N` whole tiles side by side from twiddled memory into linear rows, eight
/// rows at a time, each row's 64 bytes stored as one vector.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn group_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    let idx = &TO_LINEAR[N - 1];
    let (i0, i1) = (load(&idx[0]), load(&idx[1]));
    for bp in 0..2 {
        let src = group_lines::<N>(tw, ts, bp);
        for (s, i) in [i0, i1].into_iter().enumerate() {
            let b = 2 * bp + s;
            for (r, v) in band_of::<N>(&src, i).into_iter().enumerate() {
                store_as(how, &mut lin[l + (4 * b + r) * stride..], v);
            }
        }
    }
}

/// Two groups side by side (twiddled starts `ts[0]`, then `ts[1]`), as [`group_to_linear`]
/// of each but with each row's 128 bytes stored together.
///
/// Why: a row's two lines written one after the other. In a C scratch harness of the bare
/// memory pattern (256x256 1-byte, no shuffles; Emerald Rapids, 2 MiB L2), one group's 64-byte
/// rows at a time ran at 23-25 GB/s, two groups' 128 bytes per row at 27-30 GB/s, the same rows
/// stored in address order at 27-30 GB/s, memcpy at 34-39 GB/s. The same pairing going to
/// twiddled memory (each row's 128 bytes loaded together) was tried and not kept: 256x256 8-bit
/// 0.62-0.67x against 0.66-0.69x of memcpy, 16-bit 0.67-0.70x against 0.65-0.66x, 2048x2048 8-bit
/// 0.59-0.70x against 0.75-0.88x of the pooled plain copy (`bench_twiddle`, A/B, three rounds).
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn group_pair_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [[usize; 4]; 2],
    how: Stores,
) {
    per_store!(how, pair_to_linear::<N>(lin, l, stride, tw, ts))
}

/// [`group_pair_to_linear`]'s body, compiled inside it.
#[inline(always)]
fn pair_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [[usize; 4]; 2],
    how: Stores,
) {
    let idx = &TO_LINEAR[N - 1];
    let (i0, i1) = (load(&idx[0]), load(&idx[1]));
    for bp in 0..2 {
        let src = [
            group_lines::<N>(tw, ts[0], bp),
            group_lines::<N>(tw, ts[1], bp),
        ];
        for (s, i) in [i0, i1].into_iter().enumerate() {
            let (left, right) = (band_of::<N>(&src[0], i), band_of::<N>(&src[1], i));
            // Two groups' rows: 128 bytes (the copy's unit, not a hardware size).
            let mut rows = RowsMut::<4, 128>::new(lin, l + 4 * (2 * bp + s) * stride, stride);
            for r in 0..4 {
                let row = rows.row(r);
                store_as(how, row, left[r]);
                store_as(how, &mut row[64..], right[r]);
            }
        }
    }
}

/// Lane `i` of a row-order 4x4 block for twiddled lane `i`.
const fn rows_block_index() -> [u32; 16] {
    let mut t = [0u32; 16];
    let mut i = 0;
    while i < 16 {
        t[square8_index(i % 4, i / 4)] = i as u32;
        i += 1;
    }
    t
}

static ROWS_TO_BLOCK: [u32; 16] = rows_block_index();

/// A whole 16x16 tile of 4-byte texels, linear rows `stride` apart from `lin[l..]`, into its
/// 1 KiB of twiddled memory, band by band: the band's four whole 64-byte rows, loaded as
/// vectors, are transposed (16-byte lanes) into its four 4x4 blocks in row order, and one
/// permute twiddles each block into one 64-byte line. (The reverse direction is
/// [`tile16_to_linear`], by another shape.)
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn tile16_to_twiddled(
    tw: &mut [u8; 1024], // a 16x16 tile of 4-byte texels
    lin: &[u8],
    l: usize,
    stride: usize,
    how: Stores,
) {
    let idx = load(bytemuck::bytes_of(&ROWS_TO_BLOCK));
    for by in 0..4 {
        let at = l + 4 * by * stride;
        let blocks = transpose4([
            load(&lin[at..]),
            load(&lin[at + stride..]),
            load(&lin[at + 2 * stride..]),
            load(&lin[at + 3 * stride..]),
        ]);
        for (bx, v) in blocks.into_iter().enumerate() {
            let v = _mm512_permutexvar_epi32(idx, v);
            // Each 4x4 block of 4-byte texels is 64 bytes.
            store_as(how, &mut tw[64 * block_of(bx, by)..], v);
        }
    }
}

/// Lanes of the first permute of [`tile16_to_linear`]: rows `r` and `r + 1` of two 4x4 blocks
/// of 4-byte texels `a` and `b` (lanes 16.. of the permute), as `a`'s row r, `b`'s row r, `a`'s
/// row r + 1, `b`'s row r + 1.
const fn two_rows_index(r: usize) -> [u32; 16] {
    let mut t = [0u32; 16];
    let mut i = 0;
    while i < 16 {
        // 16-byte lane i / 4 of the result: block (b if odd), row r + (1 if in the upper half).
        let (lane, c) = (i / 4, i % 4);
        let from_b = 16 * (lane % 2);
        t[i] = (from_b + square8_index(c, r + lane / 2)) as u32;
        i += 1;
    }
    t
}

static TWO_ROWS: [[u32; 16]; 2] = [two_rows_index(0), two_rows_index(2)];

/// A whole 16x16 tile's 1 KiB of twiddled memory (4-byte texels) into linear rows `stride`
/// apart from `lin[l..]`, band by band, each row one 64-byte store (a whole line when
/// streaming).
///
/// Why this shape: a band's four rows take one 16-byte row piece from each of its four 4x4
/// blocks. Two-source permutes (`vpermt2d`) gather rows 0-1 and rows 2-3 of two blocks into
/// one vector each, and one 128-bit lane shuffle of two of those makes a whole row: eight
/// shuffles per 256 bytes, where AVX2's unpacks (`avx2::tile16_to_linear`) take 24 and the
/// inverse of [`tile16_to_twiddled`] (a permute per block, then a 16-byte-lane transpose) 12.
/// In a C scratch harness of 256x256 B8G8R8A8 (Xeon with AVX-512, 2 MiB L2 per core), the
/// AVX2 body ran at 20-22 GB/s and this one at 33 GB/s, memcpy at 38-40.
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn tile16_to_linear(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8; 1024], // a 16x16 tile of 4-byte texels
    how: Stores,
) {
    per_store!(how, tile_to_linear(lin, l, stride, tw))
}

/// [`tile16_to_linear`]'s body, compiled inside it.
#[inline(always)]
fn tile_to_linear(lin: &mut [u8], l: usize, stride: usize, tw: &[u8; 1024], how: Stores) {
    let idx = two_rows();
    for by in 0..4 {
        let rows = band4_rows(tw, by, idx);
        // A tile row: 16 texels of 4 bytes (the copy's unit, not a hardware size).
        let mut lines = RowsMut::<4, 64>::new(lin, l + 4 * by * stride, stride);
        for (r, v) in rows.into_iter().enumerate() {
            store_as(how, lines.row(r), v);
        }
    }
}

/// Two whole tiles side by side, as [`tile16_to_linear`] of each but with each row's 128
/// bytes stored together (why: [`group_pair_to_linear`]).
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn tile_pair_to_linear(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: [&[u8; 1024]; 2], // two 16x16 tiles of 4-byte texels
    how: Stores,
) {
    per_store!(how, pair4_to_linear(lin, l, stride, tw))
}

/// [`tile_pair_to_linear`]'s body, compiled inside it.
#[inline(always)]
fn pair4_to_linear(lin: &mut [u8], l: usize, stride: usize, tw: [&[u8; 1024]; 2], how: Stores) {
    let idx = two_rows();
    for by in 0..4 {
        let (left, right) = (band4_rows(tw[0], by, idx), band4_rows(tw[1], by, idx));
        // Two tiles' rows: 128 bytes (the copy's unit, not a hardware size).
        let mut lines = RowsMut::<4, 128>::new(lin, l + 4 * by * stride, stride);
        for r in 0..4 {
            let row = lines.row(r);
            store_as(how, row, left[r]);
            store_as(how, &mut row[64..], right[r]);
        }
    }
}

/// [`TWO_ROWS`] as vectors.
#[inline(always)]
fn two_rows() -> [__m512i; 2] {
    [
        load(bytemuck::bytes_of(&TWO_ROWS[0])),
        load(bytemuck::bytes_of(&TWO_ROWS[1])),
    ]
}

/// The four 64-byte rows of band `by` of a tile of 4-byte texels (`idx`: [`two_rows`]).
#[inline(always)]
fn band4_rows(tw: &[u8; 1024], by: usize, idx: [__m512i; 2]) -> [__m512i; 4] {
    let [i01, i23] = idx;
    // Each 4x4 block of 4-byte texels is 64 bytes.
    let blk = |bx: usize| -> __m512i { load(&tw[64 * block_of(bx, by)..]) };
    let [b0, b1, b2, b3] = [blk(0), blk(1), blk(2), blk(3)];
    // SAFETY: AVX-512F (callers are compiled with it); touches no memory.
    unsafe {
        let (a, b) = (
            _mm512_permutex2var_epi32(b0, i01, b1),
            _mm512_permutex2var_epi32(b0, i23, b1),
        );
        let (c, d) = (
            _mm512_permutex2var_epi32(b2, i01, b3),
            _mm512_permutex2var_epi32(b2, i23, b3),
        );
        // Lanes 0-1 of the first source then 0-1 of the second (0x44), or lanes 2-3 (0xee).
        [
            _mm512_shuffle_i64x2::<0x44>(a, c),
            _mm512_shuffle_i64x2::<0xee>(a, c),
            _mm512_shuffle_i64x2::<0x44>(b, d),
            _mm512_shuffle_i64x2::<0xee>(b, d),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_tables_are_inverse_permutations() {
        for n in [1usize, 2] {
            let lanes = 64 / n;
            let (fwd, inv) = (to_twiddled_index(n), to_linear_index(n));
            let lane = |t: &[u8; 64], i: usize| t[i * n] as usize;
            // Forward: every one of the pair's 2 * lanes sources is used once.
            let mut seen = vec![false; 2 * lanes];
            for t in &fwd {
                for i in 0..lanes {
                    assert!(!seen[lane(t, i)], "n {n}: source used twice");
                    seen[lane(t, i)] = true;
                }
            }
            // Inverse: band piece s, lane e came from line k lane i, and forward line k
            // lane i names band piece s lane e.
            for (s, t) in inv.iter().enumerate() {
                for e in 0..lanes {
                    let src = lane(t, e);
                    let (k, i) = (src / lanes, src % lanes);
                    assert_eq!(lane(&fwd[k], i), s * lanes + e, "n {n} s {s} e {e}");
                }
            }
        }
    }
}
