//! The fast copies against the per-texel reference: every element size, odd sizes and
//! offsets, strides unlike the width, both directions, and no byte outside the rectangle.

use proptest::prelude::*;
use sgx_hwdocs::Format;
use sgx_layout::copy::{self, fast, reference, ELEMENT_SIZES_B};
use sgx_layout::{Layout, LayoutError, Rect, Template, Tiling, Twiddle};

mod common;
use common::noise;

/// Runs both directions through fast and reference, and checks every byte independently.
fn check_case(g: Twiddle, rect: Rect, bpe: usize, stride_extra: usize, seed: u64) {
    let tw_len = g.len_el() as usize * bpe + 7;
    let stride = rect.w as usize * bpe + stride_extra;
    let lin_len = if rect.w == 0 || rect.h == 0 {
        3
    } else {
        (rect.h as usize - 1) * stride + rect.w as usize * bpe + 5
    };
    let (tw0, lin0) = (noise(tw_len, seed), noise(lin_len, seed + 1));
    let ctx = format!(
        "{}x{} el, bpe {bpe}, rect {rect:?}, stride {stride}",
        g.w_el(),
        g.h_el()
    );

    // Which twiddled bytes belong to which rectangle texel.
    let mut owner = vec![None; tw_len];
    for y in 0..rect.h {
        for x in 0..rect.w {
            let t = g.offset_el(rect.x + x, rect.y + y).unwrap() as usize * bpe;
            for k in 0..bpe {
                owner[t + k] = Some(y as usize * stride + x as usize * bpe + k);
            }
        }
    }

    // linear -> twiddled
    let mut f = tw0.clone();
    fast::linear_to_twiddled(&mut f, &g, rect, &lin0, stride, bpe).unwrap();
    let mut r = tw0.clone();
    reference::linear_to_twiddled(&mut r, &g, rect, &lin0, stride, bpe).unwrap();
    assert!(f == r, "to twiddled: fast != reference, {ctx}");
    for (i, o) in owner.iter().enumerate() {
        let want = o.map_or(tw0[i], |l| lin0[l]);
        assert_eq!(r[i], want, "to twiddled byte {i}, {ctx}");
    }

    // twiddled -> linear
    let mut f = lin0.clone();
    fast::twiddled_to_linear(&mut f, stride, &tw0, &g, rect, bpe).unwrap();
    let mut r = lin0.clone();
    reference::twiddled_to_linear(&mut r, stride, &tw0, &g, rect, bpe).unwrap();
    assert!(f == r, "to linear: fast != reference, {ctx}");
    let mut want = lin0.clone();
    for (t, o) in owner.iter().enumerate() {
        if let Some(l) = o {
            want[*l] = tw0[t];
        }
    }
    assert!(r == want, "to linear: wrong bytes, {ctx}");
}

#[test]
fn every_small_geometry_and_element_size() {
    let mut seed = 1;
    for lw in 0..=5 {
        for lh in 0..=5 {
            let g = Twiddle::new(lw, lh).unwrap();
            let (w, h) = (g.w_el(), g.h_el());
            let mut rects = vec![
                Rect::full(w, h),
                Rect::new(w / 3, h / 5, w - w / 3, h - h / 5),
            ];
            if w > 2 && h > 2 {
                rects.push(Rect::new(1, 1, w - 2, h - 2));
                rects.push(Rect::new(w / 2 - 1, h / 2 - 1, w / 2 + 1, 2));
            }
            rects.push(Rect::new(w - 1, h - 1, 1, 1));
            rects.push(Rect::new(0, 0, 0, h));
            for rect in rects {
                for bpe in ELEMENT_SIZES_B {
                    for extra in [0, 3] {
                        check_case(g, rect, bpe, extra, seed);
                        seed += 1;
                    }
                }
            }
        }
    }
}

#[test]
fn large_levels_with_odd_rectangles() {
    let cases = [
        (6, 6, Rect::new(3, 5, 50, 41)),
        (8, 7, Rect::new(17, 9, 200, 100)),
        (7, 9, Rect::new(0, 16, 128, 480)),
        (9, 4, Rect::new(31, 0, 450, 16)),
        (11, 1, Rect::new(5, 0, 2000, 2)),
    ];
    for (i, (lw, lh, rect)) in cases.into_iter().enumerate() {
        for bpe in ELEMENT_SIZES_B {
            check_case(
                Twiddle::new(lw, lh).unwrap(),
                rect,
                bpe,
                13 * (i % 2),
                i as u64 * 31 + bpe as u64,
            );
        }
    }
}

#[test]
fn copies_large_enough_for_the_pool_match_reference() {
    // At least 4 MiB moved: the copies run in pieces on the process's pool (one worker per
    // other core; on one core, on the caller alone). Odd rectangles that start and end inside
    // bands and blocks, an oblong level, a stride unlike the width.
    let cases = [
        (10, 10, 4, Rect::full(1024, 1024)),
        (11, 10, 4, Rect::new(3, 7, 2041, 1011)),
        (11, 11, 2, Rect::new(129, 1, 1900, 1200)),
        (10, 13, 1, Rect::new(0, 5, 1024, 8000)),
        (10, 9, 16, Rect::new(1, 2, 1020, 510)),
    ];
    for (i, (lw, lh, bpe, rect)) in cases.into_iter().enumerate() {
        let moved_bytes = u64::from(rect.w) * u64::from(rect.h) * bpe as u64;
        assert!(moved_bytes >= 4 << 20, "case {i} too small for the pool");
        check_case(
            Twiddle::new(lw, lh).unwrap(),
            rect,
            bpe,
            24 * (i % 2),
            900 + i as u64,
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    #[test]
    fn fast_matches_reference(
        lw in 0u32..=7, lh in 0u32..=7, bpe_i in 0usize..5,
        a in any::<u32>(), b in any::<u32>(), c in any::<u32>(), d in any::<u32>(),
        extra in 0usize..40, seed in any::<u64>(),
    ) {
        let g = Twiddle::new(lw, lh).unwrap();
        let (w, h) = (g.w_el(), g.h_el());
        let x = a % w;
        let y = b % h;
        let rect = Rect::new(x, y, c % (w - x + 1), d % (h - y + 1));
        check_case(g, rect, ELEMENT_SIZES_B[bpe_i], extra, seed);
    }
}

#[test]
fn bad_arguments_are_errors() {
    let g = Twiddle::new(3, 3).unwrap();
    let mut tw = vec![0u8; 256];
    let lin = vec![0u8; 256];
    let r = Rect::full(8, 8);
    assert!(matches!(
        copy::linear_to_twiddled(&mut tw, &g, r, &lin, 32, 3),
        Err(LayoutError::UnsupportedElementSize { bytes_per_el: 3 })
    ));
    assert!(matches!(
        copy::linear_to_twiddled(&mut tw, &g, Rect::new(4, 0, 5, 1), &lin, 32, 4),
        Err(LayoutError::RectOutOfRange { .. })
    ));
    assert!(matches!(
        copy::linear_to_twiddled(&mut tw, &g, r, &lin, 28, 4),
        Err(LayoutError::StrideTooSmall { .. })
    ));
    assert!(matches!(
        copy::linear_to_twiddled(&mut tw, &g, r, &lin[..255], 32, 4),
        Err(LayoutError::BufferTooSmall { .. })
    ));
    assert!(matches!(
        copy::linear_to_twiddled(&mut tw[..128], &g, Rect::full(1, 1), &lin, 32, 4),
        Err(LayoutError::BufferTooSmall { .. })
    ));
    let mut out = vec![0u8; 10];
    assert!(matches!(
        reference::twiddled_to_linear(&mut out, 32, &tw, &g, r, 4),
        Err(LayoutError::BufferTooSmall { .. })
    ));
    // An empty rectangle needs no linear bytes.
    copy::twiddled_to_linear(&mut [], 0, &tw, &g, Rect::new(8, 8, 0, 0), 4).unwrap();
}

#[test]
fn layout_rectangles_round_trip_on_both_tilings() {
    for (w, h) in [(64, 32), (48, 20)] {
        let l =
            Layout::new(&Template::new_2d(Format::B5G6R5_UNORM, w, h).with_full_chain()).unwrap();
        let alloc0 = noise(l.size_B as usize + 9, 5);
        let mut alloc = alloc0.clone();
        let rect = Rect::new(3, 1, 13, 7);
        let src = noise(7 * 40, 6);
        l.write_rect(&mut alloc, 0, 1, rect, &src, 40).unwrap();
        let mut back = vec![0u8; 7 * 26];
        l.read_rect(&alloc, 0, 1, rect, &mut back, 26).unwrap();
        for y in 0..7 {
            assert_eq!(&back[y * 26..][..26], &src[y * 40..][..26]);
        }
        // Only the rectangle's texels changed.
        let mut touched = vec![false; alloc.len()];
        for y in rect.y..rect.y + rect.h {
            for x in rect.x..rect.x + rect.w {
                let o = l.texel_offset_B(0, 1, x, y).unwrap() as usize;
                touched[o] = true;
                touched[o + 1] = true;
            }
        }
        for i in 0..alloc.len() {
            if !touched[i] {
                assert_eq!(alloc[i], alloc0[i], "byte {i} of {w}x{h} changed");
            }
        }
        let whole = l.read_level(&alloc, 0, 1).unwrap();
        assert_eq!(whole.len(), (w / 2 * h / 2 * 2) as usize);
        assert_eq!(
            l.tiling,
            if w == 64 {
                Tiling::Twiddled
            } else {
                Tiling::Linear
            }
        );
        assert!(matches!(
            l.write_rect(&mut alloc, 0, 1, Rect::new(30, 0, 3, 1), &src, 40),
            Err(LayoutError::RectOutOfRange { .. })
        ));
        assert!(matches!(
            l.write_rect(&mut alloc[..10], 0, 1, rect, &src, 40),
            Err(LayoutError::BufferTooSmall { .. })
        ));
        assert!(matches!(
            l.read_rect(&alloc, 0, 1, rect, &mut back, 20),
            Err(LayoutError::StrideTooSmall { .. })
        ));
    }
}
