//! Streaming (non-temporal) copies to linear memory through a small cache-resident staging
//! buffer: each strip of one row of tiles is untwiddled into the buffer with ordinary stores,
//! then its rows are streamed out whole, one after another.
//!
//! Why: streaming straight from the tile walk writes one 64-byte line into each of a tile's
//! 16 linear rows (8 KiB apart at 2048x2048 B8G8R8A8) before moving on, 16 interleaved
//! non-temporal streams. On the AMD EPYC of `bench twiddle` (AVX2, 512 KiB L2 per core, 32 MiB
//! L3) that ran at 3-5 GB/s against 15-21 GB/s for a sequential non-temporal copy, and
//! neither software prefetch of the twiddled side (1 to 8 tiles ahead), a walk in twiddled
//! order nor writing a row of tiles band by band (four rows at a time; 1 GB/s: the row's
//! tiles' lines then conflict in L2 between passes) helped. Through the buffer, every
//! non-temporal store continues the one before it, as in a plain streaming copy.

use super::{dispatch, Bodies, Isa, Sides, MAX_TILE_LOG2};
use crate::copy::Rect;
use crate::morton::Twiddle;

/// Most bytes of the staging buffer: a row of 16x16 tiles of a 2048-wide level of 4-byte
/// elements (16 rows of 8 KiB), well inside the 512 KiB L2 of the benchmark's core.
pub(super) const STAGE_MAX_B: usize = 128 << 10;

/// Columns of a strip, in elements, are a multiple of this: four 16x16 tiles, the widest
/// group of whole tiles the walk hands to one body (1-byte elements).
const STRIP_COLS_ALIGN_EL: u32 = 64;

/// Twiddled to linear (a checked, non-empty copy) with streaming stores through a staging
/// buffer of at most `b.stage_max_B` (or one strip of 64 columns), strip by strip; ends with a
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
    let tile_log2 = g.log2_w.min(g.log2_h).min(MAX_TILE_LOG2);
    let rows = 1u32 << tile_log2;
    let max_cols = (b.stage_max_B / (rows as usize * bpe)) as u32 / STRIP_COLS_ALIGN_EL;
    let cols = max_cols.max(1) * STRIP_COLS_ALIGN_EL;
    let mut stage = vec![0u8; rows as usize * cols.min(r.w) as usize * bpe];
    let cached = Bodies { stream: false, ..b };
    let (x1, y1) = (r.x + r.w, r.y + r.h);
    let mut y = r.y;
    while y < y1 {
        // Strips end on tile and column boundaries of the level, so whole tiles stay whole.
        let ye = (((y >> tile_log2) + 1) << tile_log2).min(y1);
        let mut x = r.x;
        while x < x1 {
            let xe = ((x / cols + 1) * cols).min(x1);
            let part = Rect::new(x, y, xe - x, ye - y);
            let row_B = part.w as usize * bpe;
            let mut m = Sides {
                tw,
                lin: &mut stage[..],
                stride: row_B,
                b: cached,
            };
            // Along rows of tiles: twiddled order within 128-row strips (whose twiddled side
            // is then read in sequence, the rows written 1 KiB at a time) measured slower
            // (0.17x of the best copy at 2048x2048 B8G8R8A8 against 0.25x).
            dispatch(&mut m, g, part, row_B, bpe, true);
            for k in 0..part.h as usize {
                let at = ((y - r.y) as usize + k) * stride + (x - r.x) as usize * bpe;
                stream_row(b.isa, &mut lin[at..][..row_B], &stage[k * row_B..][..row_B]);
            }
            x = xe;
        }
        y = ye;
    }
    super::fence();
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
