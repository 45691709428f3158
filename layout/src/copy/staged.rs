//! Streaming (non-temporal) copies to linear memory through a cache-resident staging buffer:
//! the rectangle goes by Morton squares (128x128 4-byte texels: 64 KiB each), each square's
//! tiles read in twiddled address order and untwiddled into one half of the buffer with
//! ordinary stores, while the previous square's rows stream out of the other half, a few rows
//! after each tile.
//!
//! Why a buffer: streaming straight from the tile walk writes one 64-byte line into each of a
//! tile's 16 linear rows (8 KiB apart at 2048x2048 B8G8R8A8) before moving on, 16 interleaved
//! non-temporal streams. On the AMD EPYC of `bench twiddle` (AVX2, 512 KiB L2 per core, 32 MiB
//! L3) that ran at 3-5 GB/s against 15-21 GB/s for a sequential non-temporal copy. Rows of a
//! square go out as runs of whole lines instead: runs of 512 bytes or more (a 128-wide square
//! of 4-byte texels) wrote at a plain streaming copy's speed, 256 bytes at 0.7x of it, 64 at
//! 0.4x (EPYC, rows copied unchanged in the same pattern).
//!
//! Why squares in address order: a row of tiles is not contiguous in twiddled memory. At
//! 2048x2048 B8G8R8A8 a whole-width band reads 1 KiB tiles spread over the 16 MiB level, and
//! the hardware prefetchers, which follow ascending addresses, then leave every tile a cold
//! miss: untwiddling band by band ran at 6 GB/s with no linear stores at all, while the same
//! lines read in address order ran at 26-57 GB/s (EPYC). A Morton square is contiguous, so its
//! tiles, taken in Morton order, are read in one ascending sweep. Band order within a square,
//! even with each next square prefetched into L2 by software, measured 0.36-0.40x of the best
//! copy (2048x2048 B8G8R8A8) against 0.58-0.78x for address order: software prefetches stall
//! with everything else when the store queue is full of non-temporal stores, the hardware
//! prefetcher does not.
//!
//! Why interleaved: with a whole square untwiddled and then its rows streamed, the two phases
//! took the sum of their times (read alone 24-30 GB/s, write alone 20-22 GB/s, both 9-12); a
//! few rows streamed after each tile keep the non-temporal stores flowing while tiles are read.

use super::{border, Bodies, Isa, Mover, Sides, ToLinear, MAX_TILE_LOG2};
use crate::copy::Rect;
use crate::morton::{compact_even, Twiddle};

/// Most bytes of one Morton square the walk stages (the buffer holds two): 128x128 4-byte
/// texels, 256x256 1-byte ones (why: the module comment).
pub(super) const SQUARE_MAX_B: usize = 64 << 10;

/// The staging buffer starts on a page boundary, like the GPU memory it streams into.
const PAGE_B: usize = 4096;

/// Most bytes of the staging buffer: two squares.
pub(super) const STAGE_MAX_B: usize = 2 * SQUARE_MAX_B;

/// Twiddled to linear (a checked, non-empty copy) with streaming stores through a staging
/// buffer of at most `b.stage_max_B` (or two 4x4 squares), square by square; ends with a
/// fence.
pub(super) fn to_linear(
    lin: &mut [u8],
    stride: usize,
    tw: &[u8],
    g: &Twiddle,
    r: Rect,
    bpe: usize,
    b: Bodies,
) {
    match bpe {
        1 => squares::<1>(lin, stride, tw, g, r, b),
        2 => squares::<2>(lin, stride, tw, g, r, b),
        4 => squares::<4>(lin, stride, tw, g, r, b),
        8 => squares::<8>(lin, stride, tw, g, r, b),
        16 => squares::<16>(lin, stride, tw, g, r, b),
        // check_copy admits only the sizes above.
        _ => unreachable!("element size checked"),
    }
    super::fence();
}

/// Log2 of the side of the squares a copy of `N`-byte elements stages: the largest whose
/// bytes fit `stage_max_B / 2`, at most the level's shorter side, at least 4x4 (or the level's
/// side if shorter).
fn square_log2(g: &Twiddle, n: usize, stage_max_B: usize) -> u32 {
    let s = g.log2_w.min(g.log2_h);
    let mut q = s;
    while q > 2 && (n << (2 * q)) > stage_max_B / 2 {
        q -= 1;
    }
    q
}

/// [`to_linear`] for `N`-byte elements.
fn squares<const N: usize>(
    lin: &mut [u8],
    stride: usize,
    tw: &[u8],
    g: &Twiddle,
    r: Rect,
    b: Bodies,
) where
    for<'a> ToLinear<'a>: Mover<N>,
{
    let q = square_log2(g, N, b.stage_max_B);
    let tile_log2 = q.min(MAX_TILE_LOG2);
    let side = 1u32 << q;
    let row_B = side as usize * N;
    let sq_B = row_B * side as usize;
    let mut raw = vec![0u8; 2 * sq_B + PAGE_B];
    let at = raw.as_ptr().align_offset(PAGE_B);
    let stage = &mut raw[at..at + 2 * sq_B];
    let cached = Bodies { stream: false, ..b };
    let (x1, y1) = (r.x + r.w, r.y + r.h);
    let units = 1u32 << (2 * (q - tile_log2));
    // The square last staged, waiting to stream out: its part of the rectangle, its half of
    // the buffer, and how many of its rows have gone.
    let mut prev: Option<(Rect, usize, usize)> = None;
    let mut half = 0;
    for sy in (r.y >> q)..=((y1 - 1) >> q) {
        for sx in (r.x >> q)..=((x1 - 1) >> q) {
            let (px, py) = ((sx << q).max(r.x), (sy << q).max(r.y));
            let part = Rect::new(
                px,
                py,
                ((sx + 1) << q).min(x1) - px,
                ((sy + 1) << q).min(y1) - py,
            );
            let base_el = (g.x_bits(sx << q) | g.y_bits(sy << q)) as usize;
            let (cur, other) = stage.split_at_mut(sq_B);
            let (cur, other) = if half == 0 { (cur, &*other) } else { (other, &*cur) };
            let mut m = Sides {
                tw,
                lin: cur,
                stride: row_B,
                b: cached,
            };
            for j in 0..units {
                // Tile j of the square in Morton order: its twiddled bytes follow tile j - 1's.
                let tx = (sx << q) + (compact_even(j >> 1) << tile_log2);
                let ty = (sy << q) + (compact_even(j) << tile_log2);
                let te = base_el + ((j as usize) << (2 * tile_log2));
                stage_tile::<N, _>(&mut m, g, part, row_B, tile_log2, (tx, ty), te);
                if let Some((pr, _, done)) = prev.as_mut() {
                    let upto = (pr.h as usize * (j as usize + 1)).div_ceil(units as usize);
                    stream_rows::<N>(lin, stride, r, other, row_B, *pr, done, upto, b.isa);
                }
            }
            if let Some((pr, _, done)) = prev.as_mut() {
                stream_rows::<N>(lin, stride, r, other, row_B, *pr, done, pr.h as usize, b.isa);
            }
            prev = Some((part, half, 0));
            half ^= 1;
        }
    }
    if let Some((pr, h, mut done)) = prev {
        let last = &stage[h * sq_B..][..sq_B];
        stream_rows::<N>(lin, stride, r, last, row_B, pr, &mut done, pr.h as usize, b.isa);
    }
}

/// Untwiddles the tile with top-left element (`tx`, `ty`) and twiddled start element `te`,
/// clipped to `part`, into the stage (rows `stride` apart from `part`'s top-left).
#[inline(always)]
fn stage_tile<const N: usize, M: Mover<N>>(
    m: &mut M,
    g: &Twiddle,
    part: Rect,
    stride: usize,
    tile_log2: u32,
    (tx, ty): (u32, u32),
    te: usize,
) {
    let tile = 1u32 << tile_log2;
    let (x1, y1) = (part.x + part.w, part.y + part.h);
    if tile_log2 >= 2 && tx >= part.x && ty >= part.y && tx + tile <= x1 && ty + tile <= y1 {
        let l = (ty - part.y) as usize * stride + (tx - part.x) as usize * N;
        m.tile(te * N, l, 1 << (tile_log2 - 2), stride);
    } else {
        let xs = tx.max(part.x)..(tx + tile).min(x1);
        let ys = ty.max(part.y)..(ty + tile).min(y1);
        if !xs.is_empty() && !ys.is_empty() {
            border::<N, _>(m, g, (part.x, part.y), xs, ys, stride);
        }
    }
}

/// Streams rows `*done..upto` of the staged `part` (rows `row_B` apart in `staged`) to their
/// place in the linear rectangle `r`, and counts them done.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn stream_rows<const N: usize>(
    lin: &mut [u8],
    stride: usize,
    r: Rect,
    staged: &[u8],
    row_B: usize,
    part: Rect,
    done: &mut usize,
    upto: usize,
    isa: Isa,
) {
    let len_B = part.w as usize * N;
    for k in *done..upto {
        let at = ((part.y - r.y) as usize + k) * stride + (part.x - r.x) as usize * N;
        stream_row(isa, &mut lin[at..][..len_B], &staged[k * row_B..][..len_B]);
    }
    *done = upto.max(*done);
}

/// One staged row out with the widest non-temporal stores the bodies may use.
fn stream_row(isa: Isa, dst: &mut [u8], src: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        if isa >= Isa::Avx2 {
            // SAFETY: `isa` is Avx2 or above only where avx2::available() said so.
            return unsafe { crate::copy::avx2::stream_copy32(dst, src) };
        }
        crate::copy::sse2::stream_copy16(dst, src)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        dst.copy_from_slice(src)
    }
}
