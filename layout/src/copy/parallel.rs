//! Large copies on the process's pool ([`sgx_pool::global`]): the copy is cut into pieces that
//! write disjoint bytes, and the caller and the pool's workers take pieces one at a time until
//! none is left, each piece going through the serial walk with the stores and bodies chosen for
//! the whole copy. The caller alone can finish (a late worker only takes fewer pieces), and the
//! result is the serial one byte for byte: pieces never write the same byte.
//!
//! Why: a copy of a large level is bound by how many cache misses one core keeps in flight,
//! not by memory. On the AMD EPYC of `bench twiddle` (2 cores) a plain non-temporal copy of
//! 16 MiB ran at 14.6 GB/s on one core and 17.7 GB/s on two, and the staged twiddled->linear
//! pattern (Morton squares read in address order, rows streamed out) reached the two-core
//! plain copy's speed on two cores (17.7 GB/s) where it stayed at 0.54-0.81x of the one-core
//! copy on one (a C scratch harness of the pattern, interleaved rounds, load 1). `bench
//! twiddle` holds the pooled copies against plain copies on as many threads
//! ([`crate::bench::Anchor`]'s pooled anchors).
//!
//! Pieces: to linear memory, bands of whole rows of the rectangle (the linear side splits
//! into disjoint row ranges; the twiddled side is only read); to twiddled memory, aligned
//! blocks of the level whose twiddled bytes are contiguous (the top address bits fixed), each a
//! twiddled level of its own ([`Twiddle::new`] of the block's sides, checked), so the
//! twiddled side splits into disjoint byte ranges. A piece is about [`PIECE_B`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use sgx_pool::Pool;

use super::Rect;
use crate::morton::Twiddle;
use crate::LayoutError;

/// Copies of at least this many bytes run on the pool: the copies that stream
/// (`STREAM_MIN_B`), bound by memory, not by their bodies.
pub(crate) const PARALLEL_MIN_B: u64 = 4 << 20;

/// Bytes a piece aims at: a few per thread for a 4 MiB copy, so that a late worker leaves
/// little for the others, and many staged squares per piece (a piece starts and drains the
/// staging pipeline once).
pub(crate) const PIECE_B: u64 = 1 << 20;

/// The pool a copy of `len_B` bytes runs on: the process's, for copies of at least
/// [`PARALLEL_MIN_B`], unless `SGX_THREADS=1` (the caller's thread only, for debugging: the
/// result is the same).
pub(crate) fn pool_for(len_B: u64) -> Option<std::sync::Arc<Pool>> {
    static SERIAL: OnceLock<bool> = OnceLock::new();
    let serial = *SERIAL.get_or_init(|| sgx_pool::threads_from_env() == Some(1));
    (len_B >= PARALLEL_MIN_B && !serial)
        .then(sgx_pool::global)
        .flatten()
}

/// Runs `f` on every piece, each once, on the caller and whichever of `pool`'s workers join;
/// returns the first error a piece gave (none can, once the whole copy was checked).
pub(crate) fn run_pieces<P: Send>(
    pool: &Pool,
    pieces: Vec<P>,
    f: impl Fn(P) -> Result<(), LayoutError> + Sync,
) -> Result<(), LayoutError> {
    let slots: Vec<Mutex<Option<P>>> = pieces.into_iter().map(|p| Mutex::new(Some(p))).collect();
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<LayoutError>> = Mutex::new(None);
    let take = |_who: usize| loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = slots.get(i) else { break };
        // Each index is claimed once (the counter); the lock only moves the piece out.
        let piece = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(Err(e)) = piece.map(&f) {
            failed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(e);
        }
    };
    pool.run(&take, || take(0));
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Rows per band of a copy to linear memory: a power of two (so bands start on staged squares
/// and tiles of the level), about `piece_B` of `row_B`-byte rows, at least a tile's 16.
fn band_rows(row_B: u64, piece_B: u64) -> u32 {
    let rows = (piece_B / row_B.max(1)).clamp(16, 1 << 15);
    (rows as u32).next_power_of_two()
}

/// Twiddled to linear by bands of rows on `pool` (`copy` is the serial copy of one band:
/// its linear bytes, the band's rectangle). `lin` starts at `r`'s top-left, rows `stride_B`
/// apart.
pub(crate) fn to_linear(
    pool: &Pool,
    lin: &mut [u8],
    stride_B: usize,
    r: Rect,
    bytes_per_el: usize,
    piece_B: u64,
    copy: impl Fn(&mut [u8], Rect) -> Result<(), LayoutError> + Sync,
) -> Result<(), LayoutError> {
    let rows = band_rows(u64::from(r.w) * bytes_per_el as u64, piece_B);
    let mut pieces = Vec::new();
    let mut rest = lin;
    let mut y = r.y;
    while y < r.y + r.h {
        // Bands end on multiples of `rows` of the level, not of the rectangle.
        let end = ((y / rows + 1) * rows).min(r.y + r.h);
        let take_B = ((end - y) as usize * stride_B).min(rest.len());
        let (band, tail) = std::mem::take(&mut rest).split_at_mut(take_B);
        pieces.push((band, Rect::new(r.x, y, r.w, end - y)));
        rest = tail;
        y = end;
    }
    run_pieces(pool, pieces, |(band, br)| copy(band, br))
}

/// One block of [`to_twiddled`]: its geometry, its first element in the level, its top-left
/// element, and the part of the rectangle inside it (in the block's elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    geom: Twiddle,
    start_el: u64,
    origin: (u32, u32),
    part: Rect,
}

/// The blocks a level splits into when its top `k` address bits are fixed, keeping those the
/// rectangle reaches; None where a block's twiddled order is not that of a level of its own
/// size (then the copy stays serial).
fn blocks(g: &Twiddle, r: Rect, k: u32) -> Option<Vec<Block>> {
    let bits = g.log2_w + g.log2_h;
    let k = k.min(bits);
    let low = (1u64 << (bits - k)) - 1;
    let top_x = (g.x_mask & !low).count_ones();
    let top_y = (g.y_mask & !low).count_ones();
    let geom = Twiddle::new(g.log2_w - top_x, g.log2_h - top_y).ok()?;
    if geom.x_mask != g.x_mask & low || geom.y_mask != g.y_mask & low {
        return None;
    }
    let mut out = Vec::new();
    for c in 0..1u64 << k {
        let start_el = c << (bits - k);
        let (x0, y0) = (extract(start_el, g.x_mask), extract(start_el, g.y_mask));
        let (x1, y1) = (x0 + geom.w_el(), y0 + geom.h_el());
        let (px, py) = (x0.max(r.x), y0.max(r.y));
        let (qx, qy) = (x1.min(r.x + r.w), y1.min(r.y + r.h));
        if px < qx && py < qy {
            out.push(Block {
                geom,
                start_el,
                origin: (x0, y0),
                part: Rect::new(px - x0, py - y0, qx - px, qy - py),
            });
        }
    }
    Some(out)
}

/// The coordinate whose bits `mask` holds in `v` (software PEXT; a few calls per copy).
fn extract(v: u64, mask: u64) -> u32 {
    let (mut out, mut bit) = (0u32, 0u32);
    for i in 0..64 {
        if mask >> i & 1 == 1 {
            out |= ((v >> i & 1) as u32) << bit;
            bit += 1;
        }
    }
    out
}

/// Linear to twiddled by blocks of the level on `pool`, or `Ok(false)` where the level does
/// not split (the caller then copies serially). `copy` is the serial copy of one block: its
/// twiddled bytes, geometry and rectangle, and the linear bytes from that rectangle's
/// top-left. `tw` holds at least the level; `lin` starts at `r`'s top-left.
#[allow(clippy::too_many_arguments)]
pub(crate) fn to_twiddled(
    pool: &Pool,
    tw: &mut [u8],
    g: &Twiddle,
    r: Rect,
    lin: &[u8],
    stride_B: usize,
    bytes_per_el: usize,
    piece_B: u64,
    copy: impl Fn(&mut [u8], &Twiddle, Rect, &[u8]) -> Result<(), LayoutError> + Sync,
) -> Result<bool, LayoutError> {
    let level_B = g.len_el() * bytes_per_el as u64;
    let k = (level_B / piece_B.max(1)).max(1).ilog2();
    let Some(blocks) = blocks(g, r, k) else {
        return Ok(false);
    };
    let block_B = (g.len_el() >> k.min(g.log2_w + g.log2_h)) as usize * bytes_per_el;
    let Some(level) = tw.get_mut(..level_B as usize) else {
        return Ok(false);
    };
    let mut chunks: Vec<Option<&mut [u8]>> = level.chunks_mut(block_B).map(Some).collect();
    let mut pieces = Vec::with_capacity(blocks.len());
    for b in blocks {
        let Some(chunk) = chunks
            .get_mut((b.start_el as usize * bytes_per_el) / block_B)
            .and_then(Option::take)
        else {
            return Ok(false);
        };
        let (px, py) = (b.origin.0 + b.part.x, b.origin.1 + b.part.y);
        let at = (py - r.y) as usize * stride_B + (px - r.x) as usize * bytes_per_el;
        let Some(src) = lin.get(at..) else {
            return Ok(false);
        };
        pieces.push((chunk, b, src));
    }
    run_pieces(pool, pieces, |(chunk, b, src)| {
        copy(chunk, &b.geom, b.part, src)
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_levels_of_their_own_and_tile_the_rectangle() {
        for (lw, lh) in [(5, 5), (6, 3), (2, 7), (4, 4)] {
            let g = Twiddle::new(lw, lh).unwrap();
            let (w, h) = (g.w_el(), g.h_el());
            for r in [Rect::full(w, h), Rect::new(1, 2, w - 3, h - 2)] {
                for k in 0..=4 {
                    let bs = blocks(&g, r, k).expect("Morton levels split by top bits");
                    let mut covered = 0u64;
                    for b in &bs {
                        // Every element of the block: the level's offset is the block's start
                        // plus the block's own offset.
                        for y in 0..b.geom.h_el() {
                            for x in 0..b.geom.w_el() {
                                let whole = g.offset_el(b.origin.0 + x, b.origin.1 + y);
                                let own = b.geom.offset_el(x, y).map(|o| o + b.start_el);
                                assert_eq!(whole, own, "{g:?} k={k} {b:?} ({x},{y})");
                            }
                        }
                        covered += u64::from(b.part.w) * u64::from(b.part.h);
                    }
                    assert_eq!(
                        covered,
                        u64::from(r.w) * u64::from(r.h),
                        "{g:?} {r:?} k={k}"
                    );
                }
            }
        }
    }

    #[test]
    fn bands_are_powers_of_two_of_at_least_a_tile() {
        assert_eq!(band_rows(8192, 1 << 20), 128);
        assert_eq!(band_rows(8192 * 3, 1 << 20), 64);
        assert_eq!(band_rows(1 << 20, 1 << 20), 16);
        assert_eq!(band_rows(1, 1 << 40), 1 << 15);
    }

    #[test]
    fn every_piece_runs_once_whoever_takes_it() {
        let pool = Pool::new(3);
        for n in [0usize, 1, 7, 100] {
            let counts: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let pieces: Vec<usize> = (0..n).collect();
            run_pieces(&pool, pieces, |i| {
                counts[i].fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .unwrap();
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        }
        let e = run_pieces(&pool, vec![1u32, 2, 3], |i| {
            if i == 2 {
                Err(LayoutError::UnsupportedElementSize { bytes_per_el: 3 })
            } else {
                Ok(())
            }
        });
        assert!(matches!(
            e,
            Err(LayoutError::UnsupportedElementSize { bytes_per_el: 3 })
        ));
    }
}
