//! The fast copies' unit tests (beside `fast.rs`, which would otherwise pass 800 lines).

use super::*;

#[test]
fn block_tables_follow_morton_order() {
    let g = Twiddle::new(4, 4).unwrap();
    for (r, idx) in BLOCK_INDEX.iter().enumerate() {
        for (c, &i) in idx.iter().enumerate() {
            assert_eq!(g.offset_el(c as u32, r as u32), Some(i as u64));
        }
    }
    for by in 0..4 {
        for bx in 0..4 {
            assert_eq!(
                g.offset_el(4 * bx as u32, 4 * by as u32),
                Some(16 * block_of(bx, by) as u64)
            );
        }
    }
}

use super::test_common::noise;
use crate::copy::{reference, ELEMENT_SIZES_B};

/// Fast (cached and streamed) against reference, both directions, with the twiddled and
/// linear sides starting `skew_B` bytes into their buffers (so that 16-byte alignment
/// varies) and noise around them that must survive.
fn check(g: Twiddle, rect: Rect, bpe: usize, stride_extra: usize, skew_B: usize, seed: u64) {
    check_staged(
        g,
        rect,
        bpe,
        stride_extra,
        skew_B,
        seed,
        staged::STAGE_MAX_B,
    );
}

/// [`check`] with streaming copies to linear memory staged through at most `stage_B`.
fn check_staged(
    g: Twiddle,
    rect: Rect,
    bpe: usize,
    stride_extra: usize,
    skew_B: usize,
    seed: u64,
    stage_B: usize,
) {
    let tw_len = g.len_el() as usize * bpe;
    let stride = rect.w as usize * bpe + stride_extra;
    let lin_len = (rect.h as usize - 1) * stride + rect.w as usize * bpe;
    let pad = skew_B + 32;
    let (tw0, lin0) = (noise(tw_len + pad, seed), noise(lin_len + pad, seed + 1));
    let ctx = format!("{g:?}, {rect:?}, bpe {bpe}, stride {stride}, skew {skew_B}");
    let mut want = tw0.clone();
    let (tw_range, lin_range) = (skew_B..skew_B + tw_len, skew_B..skew_B + lin_len);
    reference::linear_to_twiddled(
        &mut want[tw_range.clone()],
        &g,
        rect,
        &lin0[lin_range.clone()],
        stride,
        bpe,
    )
    .unwrap();
    let mut back = lin0.clone();
    reference::twiddled_to_linear(
        &mut back[lin_range.clone()],
        stride,
        &tw0[tw_range.clone()],
        &g,
        rect,
        bpe,
    )
    .unwrap();
    for (stream, isa) in Isa::ALL.into_iter().flat_map(|i| [(false, i), (true, i)]) {
        if !isa.runs() {
            continue;
        }
        let bodies = Bodies {
            stream,
            isa,
            stage_max_B: stage_B,
        };
        // Serially, then on a pool in pieces from the smallest (bands of 16 rows, blocks of one
        // element) to a third of the level: the same bytes, and nothing outside the rectangle.
        for (pool, piece_B) in [
            (None, 0),
            (Some(test_pool()), 1),
            (Some(test_pool()), tw_len as u64 / 3),
        ] {
            let how = format!(
                "stream {stream}, {isa:?}, pool {}, {piece_B} B pieces",
                pool.is_some()
            );
            let mut got = tw0.clone();
            pooled_to_twiddled(
                pool,
                piece_B,
                &mut got[tw_range.clone()],
                &g,
                rect,
                &lin0[lin_range.clone()],
                stride,
                bpe,
                bodies,
            )
            .unwrap();
            assert!(got == want, "to twiddled, {how}: {ctx}");
            let mut got = lin0.clone();
            pooled_to_linear(
                pool,
                piece_B,
                &mut got[lin_range.clone()],
                stride,
                &tw0[tw_range.clone()],
                &g,
                rect,
                bpe,
                bodies,
            )
            .unwrap();
            assert!(got == back, "to linear, {how}: {ctx}");
        }
    }
}

/// A pool of three workers for the tests (the process's has one per core, none on one core).
fn test_pool() -> &'static sgx_pool::Pool {
    static POOL: std::sync::OnceLock<sgx_pool::Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| sgx_pool::Pool::new(3))
}

#[test]
fn whole_aligned_tiles_match_reference() {
    // Whole levels and tile-aligned windows: every tile takes the whole-tile body (the
    // SSE2 16x16 one for 4-byte elements), in both store modes.
    let mut seed = 1;
    for bpe in ELEMENT_SIZES_B {
        for (lw, lh) in [
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (6, 6),
            (4, 6),
            (7, 5),
            (6, 3),
        ] {
            let g = Twiddle::new(lw, lh).unwrap();
            let (w, h) = (g.w_el(), g.h_el());
            let tile = w.min(h).min(16);
            let mut rects = vec![Rect::full(w, h)];
            if w >= 2 * tile && h >= 2 * tile {
                rects.push(Rect::new(tile, tile, w - tile, h - tile));
                rects.push(Rect::new(0, tile, tile, tile));
            }
            for rect in rects {
                for (stride_extra, skew_B) in [(0, 0), (0, 4), (16, 0), (12, 8), (4, 1)] {
                    check(g, rect, bpe, stride_extra, skew_B, seed);
                    seed += 2;
                }
            }
        }
    }
}

#[test]
fn partial_tiles_match_reference_in_both_store_modes() {
    let mut seed = 100;
    for bpe in ELEMENT_SIZES_B {
        // (8, 6): odd rectangles that hold whole groups of 16x16 tiles (the 1- and 2-byte
        // group bodies) away from the level's origin.
        for (lw, lh) in [(5, 5), (6, 4), (4, 6), (8, 6)] {
            let g = Twiddle::new(lw, lh).unwrap();
            let (w, h) = (g.w_el(), g.h_el());
            for rect in [
                Rect::new(3, 5, w - 4, h - 7),
                Rect::new(1, 0, w - 1, h),
                Rect::new(w / 2 - 1, 1, w / 2, h - 2),
                Rect::new(w - 1, h - 1, 1, 1),
            ] {
                check(g, rect, bpe, 4, 4, seed);
                check(g, rect, bpe, 0, 0, seed + 1);
                seed += 2;
            }
        }
    }
}

#[test]
fn staged_squares_of_every_size_match_reference() {
    // Staging buffers from the least (4x4 squares) through one tile a square and 64x64
    // squares (whole group units of 1- and 2-byte elements) to the default, over oblong
    // levels, whole and odd rectangles that start and end inside squares, single rows and
    // columns: every square is partial somewhere, and rows of the last square stream out
    // after the walk.
    let mut seed = 500;
    for bpe in ELEMENT_SIZES_B {
        for (lw, lh) in [(8, 5), (5, 8)] {
            let g = Twiddle::new(lw, lh).unwrap();
            let (w, h) = (g.w_el(), g.h_el());
            for stage_B in [1, 2 * 16 * 16 * bpe, 2 * 64 * 64 * bpe, staged::STAGE_MAX_B] {
                for rect in [
                    Rect::full(w, h),
                    Rect::new(3, 5, w - 6, h - 6),
                    Rect::new(w / 4 - 4, 0, w / 2 + 2, h),
                    Rect::new(1, h / 2 + 1, w - 1, 1),
                    Rect::new(w / 2 + 3, 2, 1, h - 2),
                ] {
                    check_staged(g, rect, bpe, 4, 4, seed, stage_B);
                    check_staged(g, rect, bpe, 0, 0, seed + 1, stage_B);
                    seed += 2;
                }
            }
        }
    }
}

#[test]
fn only_large_copies_stream() {
    let x86 = cfg!(target_arch = "x86_64");
    assert!(!streams(Rect::full(1024, 512), 4));
    assert!(!streams(Rect::full(1024, 1024), 2));
    assert!(!streams(Rect::full(2048, 2047), 1));
    assert_eq!(streams(Rect::full(1024, 1024), 4), x86);
    assert_eq!(streams(Rect::full(2048, 2048), 1), x86);
    assert_eq!(streams(Rect::full(1024, 512), 8), x86);
}

#[test]
fn narrow_copies_to_linear_that_would_stage_stay_cached_up_to_8_mib() {
    let x86 = cfg!(target_arch = "x86_64");
    let staged = stages(Bodies::best(Rect::full(1, 1), 1));
    let streams_to_linear = |w, h, n| Bodies::best_to_linear(Rect::full(w, h), n).stream;
    assert_eq!(streams_to_linear(2048, 2048, 1), x86 && !staged);
    assert_eq!(streams_to_linear(4096, 2048, 1), x86 && !staged);
    assert_eq!(streams_to_linear(4097, 2048, 1), x86);
    assert_eq!(streams_to_linear(2048, 2048, 2), x86 && !staged);
    assert_eq!(streams_to_linear(2048, 2049, 2), x86);
    assert_eq!(streams_to_linear(1024, 1024, 4), x86);
    assert_eq!(streams_to_linear(2048, 2048, 4), x86);
    assert!(!streams_to_linear(1024, 1024, 2));
}
