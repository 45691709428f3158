//! Streaming (non-temporal) copies to linear memory through a cache-resident staging buffer:
//! the rectangle goes by Morton squares 512 bytes wide (128x128 4-byte texels: 64 KiB),
//! each square's units (a tile, or for 1- and 2-byte elements the square of tiles one group
//! body row spans) read in twiddled address order and untwiddled into one half of the buffer
//! with ordinary stores, while the previous square's rows stream out of the other half, a
//! share of them before each unit.
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
//! tiles, taken in Morton order, are read in one ascending sweep. In scratch kernels (EPYC,
//! 2048x2048 B8G8R8A8) band order within a square, even with each next square prefetched into
//! L2 by software, ran at 0.36-0.40x of the best copy against 0.65-0.78x for address order:
//! presumably software prefetches stall with everything else when the store queue is full
//! of non-temporal stores, and the hardware prefetcher does not. `MADV_HUGEPAGE` on the
//! bench's buffers changed no ratio beyond noise (whether the kernel backed them with huge
//! pages was not checked), so the TLB is likely not the limit.
//!
//! Why interleaved: with a whole square untwiddled and then its rows streamed, the two phases
//! took the sum of their times (read alone 24-30 GB/s, write alone 20-22 GB/s, both 9-12); a
//! few rows streamed before each unit keep the non-temporal stores flowing while tiles are
//! read.
//!
//! What is left (`bench twiddle`, EPYC, load 1-2 on two cores, A/B against whole-width
//! strips in the same minutes): 0.39-0.58x of the best copy for 2048x2048 B8G8R8A8 (strips:
//! 0.25-0.31x); 16-bit 0.21-0.44x (0.23-0.31x) and 8-bit 0.27-0.31x (0.26-0.30x), no clear
//! gain. The narrow copies are bound by their bodies, which run at a third of a plain copy
//! even in cache. B8G8R8A8 is not bound by its body alone: the SSE2 bodies
//! (`SGX_TWIDDLE_ISA=sse2`) run it at 0.42-0.45x (strips: 0.16-0.20x), about as fast as
//! AVX2's. In a scratch harness (against its own streaming copy, load 1), a bare AVX2
//! kernel in the same walk ran at 0.55-0.68x (this walk: 0.44-0.51x); without its rows
//! streamed out it ran at 0.84-0.97x, with them but without the buffer's ordinary stores at
//! 0.62-0.74x: reading the squares and streaming the rows each go at about a plain copy's
//! speed alone, and together at two thirds of it, for a reason not found (two halves 1 or
//! 2 KiB apart in their low address bits rather than equal, and 1 KiB rows, changed nothing
//! beyond noise). The same pipeline linear->twiddled (rows copied into
//! the buffer, units twiddled out in address order with streaming stores) measured 0.26-0.30x
//! B8G8R8A8 and 0.30x 16-bit against 0.88-1.00x and 0.44-0.52x along rows of tiles; cached
//! stores from the buffer for the 4 and 8 MiB copies that fit L3 measured 0.15-0.24x
//! (`STREAM_MIN_B`). With the 32-byte bodies, 2048x2048 8-bit no longer comes here: cached stores
//! along rows of tile groups beat it (0.50-0.57x against 0.39-0.42x, `STAGED_CACHED_MAX_B`). Tried
//! after the 32-byte bodies and not kept (`bench_twiddle`, EPYC, A/B in the same minutes, load
//! 0.8-1.4; fast/best, 2048x2048): regions of two or four squares side by side with the same
//! 512-byte rows (half or a quarter of the buffer: a 1-byte buffer fills the 512 KiB L2) 16-bit
//! 0.29-0.55x and 0.33-0.46x against 0.33-0.55x, B8G8R8A8 0.46-0.54x and 0.33-0.38x against 0.59x;
//! wider rows from more squares side by side (2 KiB rows; whole 8 KiB rows, for DRAM row locality,
//! with a 1 MiB half) B8G8R8A8 0.49-0.50x and 0.39-0.40x against 0.53-0.56x, 16-bit 0.40-0.41x and
//! 0.30-0.32x against 0.41-0.48x; smaller squares (256-byte rows) or larger ones (1 KiB rows)
//! B8G8R8A8 0.26-0.52x against 0.55-0.58x, 16-bit 0.38-0.45x against 0.46-0.53x, 8-bit 0.35x
//! against 0.39-0.40x; streaming the previous square's rows two or four times as fast (done by the
//! middle or first quarter of the units) no change beyond noise (B8G8R8A8 0.57-0.61x, 16-bit
//! 0.45-0.50x against 0.57-0.58x, 0.43-0.50x); untwiddling the same squares in address order
//! straight into linear memory with cached stores (no buffer) 0.38-0.40x, 0.28-0.35x, 0.38x against
//! 0.59-0.64x, 0.47x, 0.52-0.53x, and in row order with squares of 32 to 256 texels 0.39-0.46x,
//! 0.32-0.40x, 0.35-0.39x against 0.47-0.53x, 0.40-0.51x, 0.54-0.56x; cached stores from the buffer
//! 16-bit 0.18x, 8-bit 0.28x. In the cached 8-bit walk, software prefetches of the next group's
//! tiles (one, two or four groups ahead) ran 0.45-0.59x against 0.56-0.59x, and slowed 256x256
//! 8-bit from 0.73x to 0.56-0.65x.
//!
//! The bare memory pattern, in a C scratch harness (EPYC, 2048x2048 B8G8R8A8, no shuffles,
//! rounds interleaved, against the harness's own non-temporal copy): squares read with plain
//! loads while the previous square's 512-byte rows stream out of the buffer ran at 0.79-0.85x,
//! with the loaded bytes also stored into the buffer (this walk's shape) at 0.54-0.81x, so the
//! buffer's ordinary stores cost about a fifth; regions 1 KiB wide (256x64) 0.69-0.85x, 2 KiB
//! (512x32) 0.50-0.66x, halves of 8 or 16 KiB that stay in L1 (128x16, 128x32) 0.51-0.66x;
//! no buffer at all, each square's 4x4 blocks going straight from registers to 4 rows 128 bytes
//! at a time, 0.35-0.38x; no buffer, each 512-byte row gathered from the square in place
//! (two 16-byte loads, one `vpermd` per 4x4 block, the square read ahead with plain loads)
//! 0.45-0.56x, and 0.35-0.45x with its stores left out, so gathering rows across tiles costs
//! more than the buffer does. On both cores (`parallel`) the pattern ran as fast as the two-core
//! plain copy in the harness (17.7 GB/s both); in `bench twiddle` this walk on the pool reaches
//! 0.66-0.79x of the pooled plain copy.

use super::{border, Bodies, Isa, Mover, Sides, ToLinear, MAX_TILE_LOG2};
use crate::copy::Rect;
use crate::morton::{compact_even, square8_index, Twiddle};

/// Bytes of each staged row: a square is this wide. Rows streamed out in runs of 512 bytes
/// wrote at a plain streaming copy's speed where 256 bytes ran at 0.7x (the module comment);
/// measured with whole copies, 256-byte rows took 8-bit 2048x2048 from 0.28x of the best copy
/// to 0.15-0.25x, 512-byte rows kept it.
const RUN_B: usize = 512;

/// The staging buffer starts on a page boundary, like the GPU memory it streams into.
const PAGE_B: usize = 4096;

/// Most bytes of the staging buffer: two squares of [`RUN_B`]-byte rows of 1-byte elements
/// (256 KiB each; 64 KiB for 4-byte elements).
pub(super) const STAGE_MAX_B: usize = 2 * RUN_B * RUN_B;

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
        1 => squares_to_linear::<1>(lin, stride, tw, g, r, b),
        2 => squares_to_linear::<2>(lin, stride, tw, g, r, b),
        4 => squares_to_linear::<4>(lin, stride, tw, g, r, b),
        8 => squares_to_linear::<8>(lin, stride, tw, g, r, b),
        16 => squares_to_linear::<16>(lin, stride, tw, g, r, b),
        // check_copy admits only the sizes above.
        _ => unreachable!("element size checked"),
    }
    super::fence();
}

/// Log2 of the side of the squares a copy of `N`-byte elements stages: rows of [`RUN_B`]
/// (why: the module comment), at most the level's shorter side, smaller where two squares
/// would outgrow `stage_max_B` (down to 4x4, or the level's side if shorter).
fn square_log2(g: &Twiddle, n: usize, stage_max_B: usize) -> u32 {
    let s = g.log2_w.min(g.log2_h);
    let mut q = s.min((RUN_B / n).trailing_zeros());
    while q > 2 && (n << (2 * q)) > stage_max_B / 2 {
        q -= 1;
    }
    q.min(s)
}

/// How a copy goes through the buffer: its squares, and their units in address order.
struct Plan {
    /// The rectangle.
    r: Rect,
    /// Log2 of a square's side.
    q: u32,
    /// Log2 of a tile's side.
    tile_log2: u32,
    /// Log2 of a unit's side: `group x group` tiles.
    unit_log2: u32,
    /// Tiles along a unit's side.
    group: u32,
    /// Bytes of one staged row (a square's width).
    row_B: usize,
    /// Bytes of one half of the buffer (a square).
    sq_B: usize,
}

/// One square of the walk: its part of the rectangle and its first twiddled element.
#[derive(Clone, Copy)]
struct Square {
    sx: u32,
    sy: u32,
    part: Rect,
    base_el: usize,
}

impl Plan {
    /// Units are squares of `GROUP x GROUP` whole tiles where the bodies take `GROUP` tiles
    /// side by side (1- and 2-byte elements: each row of tiles in the unit is then one body's
    /// group), else tiles.
    fn new(g: &Twiddle, r: Rect, n: usize, stage_max_B: usize, body_group: usize) -> Self {
        let q = square_log2(g, n, stage_max_B);
        let tile_log2 = q.min(MAX_TILE_LOG2);
        let group = if tile_log2 == MAX_TILE_LOG2 {
            body_group as u32
        } else {
            1
        };
        let unit_log2 = (tile_log2 + group.trailing_zeros()).min(q);
        let row_B = n << q;
        Self {
            r,
            q,
            tile_log2,
            unit_log2,
            group: 1 << (unit_log2 - tile_log2),
            row_B,
            sq_B: row_B << q,
        }
    }

    /// Units in a square.
    fn units(&self) -> u32 {
        1 << (2 * (self.q - self.unit_log2))
    }

    /// The squares covering the rectangle, row by row.
    fn squares<'a>(&'a self, g: &'a Twiddle) -> impl Iterator<Item = Square> + 'a {
        let (q, r) = (self.q, self.r);
        let (x1, y1) = (r.x + r.w, r.y + r.h);
        ((r.y >> q)..=((y1 - 1) >> q)).flat_map(move |sy| {
            ((r.x >> q)..=((x1 - 1) >> q)).map(move |sx| {
                let (px, py) = ((sx << q).max(r.x), (sy << q).max(r.y));
                let part = Rect::new(
                    px,
                    py,
                    ((sx + 1) << q).min(x1) - px,
                    ((sy + 1) << q).min(y1) - py,
                );
                let base_el = (g.x_bits(sx << q) | g.y_bits(sy << q)) as usize;
                Square {
                    sx,
                    sy,
                    part,
                    base_el,
                }
            })
        })
    }

    /// Unit `j` of square `s` in Morton order (its twiddled elements follow unit `j - 1`'s):
    /// its top-left element and its first twiddled element.
    #[inline(always)]
    fn unit_at(&self, s: &Square, j: u32) -> ((u32, u32), usize) {
        let (q, u) = (self.q, self.unit_log2);
        let ux = (s.sx << q) + (compact_even(j >> 1) << u);
        let uy = (s.sy << q) + (compact_even(j) << u);
        ((ux, uy), s.base_el + ((j as usize) << (2 * u)))
    }

    /// Moves unit `j` of square `s` between twiddled memory and the staged square, rows
    /// `row_B` apart.
    #[inline(always)]
    fn unit<const N: usize, M: Mover<N>>(&self, m: &mut M, g: &Twiddle, s: &Square, j: u32) {
        let ((ux, uy), ue) = self.unit_at(s, j);
        stage_unit::<N, M>(
            m,
            g,
            s.part,
            self.row_B,
            self.tile_log2,
            self.group,
            (ux, uy),
            ue,
        );
    }

    /// How many of `part`'s rows should have moved along with unit `j` of the other square:
    /// an even share per unit (units are a power of two: a shift, not a division, in
    /// the walk's inner loop).
    #[inline(always)]
    fn rows_after(&self, part: Rect, j: u32) -> usize {
        let units_log2 = 2 * (self.q - self.unit_log2);
        (part.h as usize * (j as usize + 1) + (1 << units_log2) - 1) >> units_log2
    }
}

thread_local! {
    /// The staging buffer, kept between copies: allocated afresh, its pages were faulted in
    /// again on every copy (a 512 KiB buffer for a 4 MiB copy).
    static STAGE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A page-aligned slice of `len_B` bytes inside `raw`, grown if need be (why aligned:
/// `squares_to_linear`).
fn page_aligned(raw: &mut Vec<u8>, len_B: usize) -> &mut [u8] {
    if raw.len() < len_B + PAGE_B {
        *raw = vec![0u8; len_B + PAGE_B];
    }
    let at = raw.as_ptr().align_offset(PAGE_B);
    &mut raw[at..at + len_B]
}

/// [`to_linear`] for `N`-byte elements. The buffer starts on a page: 16 bytes past one (as
/// the allocator left it) the copy ran at 0.41x of the best plain copy against 0.57-0.60x
/// (2048x2048 B8G8R8A8), the staged rows' loads then waiting on the streamed rows' stores to
/// addresses equal in their low 12 bits.
fn squares_to_linear<const N: usize>(
    lin: &mut [u8],
    stride: usize,
    tw: &[u8],
    g: &Twiddle,
    r: Rect,
    b: Bodies,
) where
    for<'a> ToLinear<'a>: Mover<N>,
{
    let p = Plan::new(g, r, N, b.stage_max_B, <ToLinear as Mover<N>>::GROUP);
    STAGE.with_borrow_mut(|raw| {
        let stage = page_aligned(raw, 2 * p.sq_B);
        walk_squares::<N>(lin, stride, tw, g, &p, b, stage);
    });
}

/// The walk of [`squares_to_linear`] through `stage` (two squares).
fn walk_squares<const N: usize>(
    lin: &mut [u8],
    stride: usize,
    tw: &[u8],
    g: &Twiddle,
    p: &Plan,
    b: Bodies,
    stage: &mut [u8],
) where
    for<'a> ToLinear<'a>: Mover<N>,
{
    let r = p.r;
    let cached = Bodies { stream: false, ..b };
    // The square last staged, waiting to stream out, its half of the buffer, and how many
    // of its rows have gone.
    let mut prev: Option<(Square, usize, usize)> = None;
    let mut half = 0;
    // Squares in address order too, so that a whole level is read in one ascending sweep
    // (B8G8R8A8 2048x2048: 0.53-0.56x of the best copy against 0.45-0.53x row by row).
    let mut order: Vec<Square> = p.squares(g).collect();
    order.sort_unstable_by_key(|s| s.base_el);
    for s in order {
        let (cur, other) = stage.split_at_mut(p.sq_B);
        let (cur, other) = if half == 0 {
            (cur, &*other)
        } else {
            (other, &*cur)
        };
        let mut m = Sides {
            tw,
            lin: cur,
            stride: p.row_B,
            b: cached,
        };
        for j in 0..p.units() {
            // The previous square's next share of rows first, then unit j: the streaming
            // stores drain while the unit's tiles are read (0.46-0.56x against 0.46-0.52x the
            // other way round, B8G8R8A8 2048x2048).
            if let Some((ps, _, done)) = prev.as_mut() {
                let upto = p.rows_after(ps.part, j);
                stream_rows::<N>(lin, stride, r, other, p.row_B, ps.part, done, upto, b.isa);
            }
            p.unit::<N, _>(&mut m, g, &s, j);
        }
        if let Some((ps, _, done)) = prev.as_mut() {
            let all = ps.part.h as usize;
            stream_rows::<N>(lin, stride, r, other, p.row_B, ps.part, done, all, b.isa);
        }
        prev = Some((s, half, 0));
        half ^= 1;
    }
    if let Some((ps, h, mut done)) = prev {
        let last = &stage[h * p.sq_B..][..p.sq_B];
        let all = ps.part.h as usize;
        stream_rows::<N>(
            lin, stride, r, last, p.row_B, ps.part, &mut done, all, b.isa,
        );
    }
}

/// Untwiddles a unit of `group x group` tiles with top-left element (`ux`, `uy`) and twiddled
/// start element `ue`, clipped to `part`: a row of tiles at a time through [`Mover::group`]
/// where the unit is whole and `group` is the bodies' group, else tile by tile.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn stage_unit<const N: usize, M: Mover<N>>(
    m: &mut M,
    g: &Twiddle,
    part: Rect,
    stride: usize,
    tile_log2: u32,
    group: u32,
    (ux, uy): (u32, u32),
    ue: usize,
) {
    let tile_el = 1usize << (2 * tile_log2);
    let side = group << tile_log2;
    let whole = ux >= part.x
        && uy >= part.y
        && ux + side <= part.x + part.w
        && uy + side <= part.y + part.h;
    if whole && group > 1 && group as usize == M::GROUP {
        let l0 = (uy - part.y) as usize * stride + (ux - part.x) as usize * N;
        for ty in 0..group {
            let mut ts = [0usize; 4];
            for (tx, t) in ts.iter_mut().enumerate().take(group as usize) {
                let k = square8_index(tx, ty as usize);
                *t = (ue + k * tile_el) * N;
            }
            m.group(ts, l0 + ((ty as usize) << tile_log2) * stride, stride);
        }
        return;
    }
    for k in 0..group * group {
        let tx = ux + (compact_even(k >> 1) << tile_log2);
        let ty = uy + (compact_even(k) << tile_log2);
        stage_tile::<N, M>(
            m,
            g,
            part,
            stride,
            tile_log2,
            (tx, ty),
            ue + k as usize * tile_el,
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_tile_the_rectangle_and_units_go_in_address_order() {
        // Square and oblong levels, whole and odd rectangles, buffers from the least (4x4
        // squares) to the default; units of 1, 2 and 4 tiles a side (GROUP 1, 2, 4).
        for (lw, lh) in [(5, 5), (8, 5), (4, 9), (9, 8)] {
            let g = Twiddle::new(lw, lh).unwrap();
            let (w, h) = (g.w_el(), g.h_el());
            for r in [
                Rect::full(w, h),
                Rect::new(3, 1, w - 5, h - 2),
                Rect::new(w - 1, 0, 1, h),
            ] {
                for (n, stage_B, group) in [
                    (4, 1, 1),
                    (1, 1 << 13, 4),
                    (2, 1 << 14, 2),
                    (4, STAGE_MAX_B, 1),
                    (1, STAGE_MAX_B, 4),
                ] {
                    let p = Plan::new(&g, r, n, stage_B, group);
                    let unit_el = 1usize << (2 * p.unit_log2);
                    assert_eq!(p.sq_B, n << (2 * p.q));
                    assert!(2 * p.sq_B <= stage_B.max(2 * 16 * n), "{g:?} {n} {stage_B}");
                    let mut covered = 0u64;
                    for s in p.squares(&g) {
                        let sq = Rect::new(s.sx << p.q, s.sy << p.q, 1 << p.q, 1 << p.q);
                        assert_eq!(g.offset_el(sq.x, sq.y), Some(s.base_el as u64));
                        assert!(
                            s.part.x >= sq.x.max(r.x)
                                && s.part.x + s.part.w <= (sq.x + sq.w).min(r.x + r.w)
                        );
                        assert!(
                            s.part.y >= sq.y.max(r.y)
                                && s.part.y + s.part.h <= (sq.y + sq.h).min(r.y + r.h)
                        );
                        covered += u64::from(s.part.w) * u64::from(s.part.h);
                        for j in 0..p.units() {
                            let ((ux, uy), ue) = p.unit_at(&s, j);
                            assert_eq!(ue, s.base_el + j as usize * unit_el, "units contiguous");
                            assert_eq!(g.offset_el(ux, uy), Some(ue as u64), "{g:?} unit {j}");
                        }
                    }
                    assert_eq!(covered, u64::from(r.w) * u64::from(r.h), "{g:?} {r:?}");
                }
            }
        }
    }
}
