#![allow(non_snake_case)]
//! The layout table: offsets, spans, strides, cube faces, windows and errors.

use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::Format;
use sgx_layout::*;

fn bgra_64() -> Layout {
    Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 64, 64).with_full_chain()).unwrap()
}

#[test]
fn bgra8_64_chain_is_packed_largest_first() {
    let l = bgra_64();
    assert_eq!(
        l.level_offsets_B,
        vec![0, 16384, 20480, 21504, 21760, 21824, 21840, 21844]
    );
    assert_eq!(l.chain_B, 21844);
    assert_eq!(l.size_B, 21844);
    assert_eq!(l.tiling, Tiling::Twiddled);
    let sizes: Vec<u64> = l.levels.iter().map(|v| v.size_B).collect();
    assert_eq!(sizes, vec![16384, 4096, 1024, 256, 64, 16, 4]);
    // The 8x8, 4x4, 2x2 and 1x1 tail.
    assert_eq!(&sizes[3..], &[256, 64, 16, 4]);
    for v in &l.levels {
        assert_eq!(v.footprint_B, v.size_B);
        assert_eq!(v.offset_B, l.level_offsets_B[v.level as usize]);
        assert_eq!(v.stride_B, 0);
        assert_eq!((v.log2_w, v.log2_h), (6 - v.level, 6 - v.level));
        assert_eq!(
            v.extent_px,
            Extent {
                w: 64 >> v.level,
                h: 64 >> v.level
            }
        );
    }
    let tl: Vec<(u32, u32)> = l
        .levels
        .iter()
        .map(|v| (v.target_extent_tl.w, v.target_extent_tl.h))
        .collect();
    assert_eq!(
        tl,
        vec![(4, 4), (2, 2), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]
    );
    assert_eq!(
        l.levels[3].pbe_clip(),
        PbeClip {
            xmin: 0,
            ymin: 0,
            xmax: 7,
            ymax: 7
        }
    );
    assert_eq!(
        l.levels[6].pbe_clip(),
        PbeClip {
            xmin: 0,
            ymin: 0,
            xmax: 0,
            ymax: 0
        }
    );
}

#[test]
fn other_formats_and_shapes() {
    let l = Layout::new(&Template::new_2d(Format::L8_UNORM, 64, 64).with_full_chain()).unwrap();
    assert_eq!(
        l.level_offsets_B,
        vec![0, 4096, 5120, 5376, 5440, 5456, 5460, 5461]
    );
    let l = Layout::new(&Template::new_2d(Format::B5G6R5_UNORM, 64, 64).with_full_chain()).unwrap();
    assert_eq!(
        l.level_offsets_B,
        vec![0, 8192, 10240, 10752, 10880, 10912, 10920, 10922]
    );

    // Non-square: the shorter side reaches 1 first, then only the longer side halves.
    let l =
        Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 64, 16).with_full_chain()).unwrap();
    let shape: Vec<(u32, u32, u32, u32, u64)> = l
        .levels
        .iter()
        .map(|v| (v.extent_px.w, v.extent_px.h, v.log2_w, v.log2_h, v.size_B))
        .collect();
    assert_eq!(
        shape,
        vec![
            (64, 16, 6, 4, 4096),
            (32, 8, 5, 3, 1024),
            (16, 4, 4, 2, 256),
            (8, 2, 3, 1, 64),
            (4, 1, 2, 0, 16),
            (2, 1, 1, 0, 8),
            (1, 1, 0, 0, 4)
        ]
    );
    assert_eq!(l.levels[0].target_extent_tl, Extent { w: 4, h: 1 });
}

#[test]
fn npot_is_linear_with_aligned_strides() {
    let l =
        Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 48, 20).with_full_chain()).unwrap();
    assert_eq!(l.tiling, Tiling::Linear);
    let rows: Vec<(u32, u32, u64, u64, u64)> = l
        .levels
        .iter()
        .map(|v| {
            (
                v.extent_px.w,
                v.extent_px.h,
                v.stride_B,
                v.size_B,
                v.footprint_B,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (48, 20, 192, 3840, 3840),
            (24, 10, 96, 960, 960),
            (12, 5, 64, 320, 240),
            (6, 2, 32, 64, 48),
            (3, 1, 32, 32, 12),
            (1, 1, 32, 32, 4)
        ]
    );
    assert_eq!(
        l.level_offsets_B,
        vec![0, 3840, 4800, 5120, 5184, 5216, 5248]
    );
    assert!(l
        .levels
        .iter()
        .all(|v| v.log2_w == 0 && v.log2_h == 0 && v.offset_B % 32 == 0));
    // Depth formats are not twiddlable: linear even at power-of-two sizes.
    let z = Layout::new(&Template::new_2d(Format::Z16_UNORM, 64, 64)).unwrap();
    assert_eq!((z.tiling, z.levels[0].stride_B), (Tiling::Linear, 128));
    // A forced linear layout of a power-of-two texture.
    let f =
        Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 8, 8).with_tiling(Tiling::Linear))
            .unwrap();
    assert_eq!((f.levels[0].stride_B, f.levels[0].size_B), (32, 256));
}

#[test]
fn cube_faces_are_aligned_and_the_allocation_holds_six() {
    let t = Template::new_cube(Format::B8G8R8A8_UNORM, 64).with_full_chain();
    let l = Layout::new(&t).unwrap();
    assert_eq!(
        (l.faces, l.chain_B, l.face_stride_B, l.size_B),
        (6, 21844, 24576, 147456)
    );
    // Six unpadded chains would end at 131064: the last face's read would cross it.
    assert!(l.size_B >= 5 * l.face_stride_B + l.chain_B);
    for f in 0..6 {
        assert_eq!(l.face_offset_B(f).unwrap(), u64::from(f) * 24576);
    }
    assert_eq!(l.texel_offset_B(5, 6, 0, 0).unwrap(), 5 * 24576 + 21840);
    assert_eq!(
        l.level_range_B(2, 3).unwrap(),
        2 * 24576 + 21504..2 * 24576 + 21760
    );
    let one = Layout::new(&Template::new_cube(Format::B8G8R8A8_UNORM, 16)).unwrap();
    assert_eq!(
        (one.chain_B, one.face_stride_B, one.size_B),
        (1024, 4096, 24576)
    );
    let big =
        Layout::new(&Template::new_cube(Format::B8G8R8A8_UNORM, 2048).with_full_chain()).unwrap();
    assert_eq!(big.chain_B, 22369620);
    assert_eq!(big.face_stride_B, 22372352);
    assert_eq!(big.size_B, 6 * 22372352);
}

#[test]
fn windows_cover_exactly_their_levels() {
    let l = bgra_64();
    let w = l.window(2, 4).unwrap();
    assert_eq!(w.ranges_B, vec![20480..21824]);
    assert!(w.contains_B(20480) && w.contains_B(21823));
    assert!(!w.contains_B(20479) && !w.contains_B(21824));
    assert_eq!(l.window(0, 6).unwrap().ranges_B, vec![0..21844]);
    let c = Layout::new(&Template::new_cube(Format::B8G8R8A8_UNORM, 64).with_full_chain()).unwrap();
    let w = c.window(1, 1).unwrap();
    assert_eq!(w.ranges_B.len(), 6);
    assert_eq!(w.ranges_B[5], 5 * 24576 + 16384..5 * 24576 + 20480);
    assert!(matches!(l.window(3, 2), Err(LayoutError::BadWindow { .. })));
    assert!(matches!(l.window(0, 7), Err(LayoutError::BadWindow { .. })));
}

#[test]
fn texel_addresses() {
    let l = bgra_64();
    assert_eq!(l.texel_offset_B(0, 0, 0, 1).unwrap(), 4); // Y in address bit 0
    assert_eq!(l.texel_offset_B(0, 0, 1, 0).unwrap(), 8);
    assert_eq!(l.texel_offset_B(0, 1, 1, 1).unwrap(), 16384 + 12);
    assert_eq!(l.texel_offset_B(0, 0, 63, 63).unwrap(), 16380);
    assert!(matches!(
        l.texel_offset_B(0, 6, 1, 0),
        Err(LayoutError::RectOutOfRange { .. })
    ));
    assert!(matches!(
        l.texel_offset_B(1, 0, 0, 0),
        Err(LayoutError::FaceOutOfRange { face: 1, faces: 1 })
    ));
    let n = Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 48, 20).with_levels(3)).unwrap();
    assert_eq!(n.texel_offset_B(0, 2, 1, 2).unwrap(), 4800 + 2 * 64 + 4);
    // A linear level has an address formula past its edges too: each side is checked on its
    // own (level 2 is 12x5), in the layout's query and in the level's.
    for (x, y) in [(12, 0), (0, 5), (11, 5), (12, 4)] {
        assert!(
            matches!(
                n.texel_offset_B(0, 2, x, y),
                Err(LayoutError::RectOutOfRange { .. })
            ),
            "({x}, {y})"
        );
        assert_eq!(n.levels[2].texel_offset_B(x, y, 4), None, "({x}, {y})");
    }
}

/// No format in hwdocs has blocks larger than a pixel yet (PVRTC would be 4x4 or 8x4), so a
/// layout is given 4x4 blocks by hand: the pixel-to-block arithmetic keeps its contract for
/// when one does (every mutant of it survived with 1x1 blocks only).
#[test]
fn block_rectangles_start_and_end_on_block_edges() {
    let mut l = Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 18, 10)).unwrap();
    (l.block_w_px, l.block_h_px) = (4, 4);
    assert_eq!(
        l.rect_px_to_el(0, Rect::new(4, 4, 8, 4)).unwrap(),
        Rect::new(1, 1, 2, 1)
    );
    // An end on the level's edge need not be on a block edge (18 and 10 are not).
    assert_eq!(
        l.rect_px_to_el(0, Rect::new(16, 8, 2, 2)).unwrap(),
        Rect::new(4, 2, 1, 1)
    );
    // Each of the four edges off a block edge, the others on one.
    for r in [
        Rect::new(2, 0, 2, 4),
        Rect::new(0, 1, 4, 3),
        Rect::new(0, 0, 6, 4),
        Rect::new(0, 0, 4, 5),
    ] {
        assert!(
            matches!(
                l.rect_px_to_el(0, r),
                Err(LayoutError::RectNotBlockAligned {
                    block_w_px: 4,
                    block_h_px: 4,
                    ..
                })
            ),
            "{r:?}"
        );
    }
    // A pixel's element is its block's.
    let bpe = l.bytes_per_el;
    assert_eq!(
        l.texel_offset_B(0, 0, 9, 6).unwrap(),
        l.levels[0].texel_offset_B(2, 1, bpe).unwrap()
    );
}

#[test]
fn pbe_state_confines_a_tail_level() {
    let l = bgra_64();
    let s = l.pbe_state(0, 3, 0x10000).unwrap();
    let want = PbeState {
        base_addr: 0x10000 + 21504,
        format: Format::B8G8R8A8_UNORM,
        layout: MemLayout::TWIDDLED,
        log2_w: 3,
        log2_h: 3,
        stride_B: 0,
        extent_w_tl: 1,
        extent_h_tl: 1,
        clip_xmin: 0,
        clip_ymin: 0,
        clip_xmax: 7,
        clip_ymax: 7,
    };
    assert_eq!(s, want);
    assert_eq!(
        PbeState::unpack(&s.pack().unwrap()).unwrap(),
        s,
        "packs and unpacks to itself"
    );
    let n = Layout::new(&Template::new_2d(Format::B8G8R8A8_UNORM, 48, 20)).unwrap();
    let s = n.pbe_state(0, 0, 0).unwrap();
    assert_eq!(
        (
            s.layout,
            s.stride_B,
            s.extent_w_tl,
            s.extent_h_tl,
            s.clip_xmax
        ),
        (MemLayout::LINEAR, 192, 3, 2, 47)
    );
    assert_eq!(
        PbeState::unpack(&s.pack().unwrap()).unwrap(),
        s,
        "packs and unpacks to itself"
    );
    let a8 = Layout::new(&Template::new_2d(Format::A8_UNORM, 8, 8)).unwrap();
    assert!(matches!(
        a8.pbe_state(0, 0, 0),
        Err(LayoutError::FormatCannot { .. })
    ));
    assert!(matches!(
        l.pbe_state(0, 1, u32::MAX),
        Err(LayoutError::AddressOverflow { .. })
    ));
}

#[test]
fn impossible_templates_are_errors() {
    use LayoutError::*;
    let b = Format::B8G8R8A8_UNORM;
    let err = |t: Template| Layout::new(&t).unwrap_err();
    assert!(matches!(err(Template::new_2d(b, 0, 4)), ZeroSize { .. }));
    assert!(matches!(err(Template::new_2d(b, 4096, 4)), TooLarge { .. }));
    assert!(matches!(err(Template::new_2d(b, 4, 2049)), TooLarge { .. }));
    assert!(matches!(
        err(Template::new_2d(b, 64, 64).with_levels(0)),
        BadLevelCount { .. }
    ));
    assert!(matches!(
        err(Template::new_2d(b, 64, 64).with_levels(8)),
        BadLevelCount { max: 7, .. }
    ));
    assert!(matches!(
        err(Template::new_2d(b, 64, 16).with_levels(8)),
        BadLevelCount { max: 7, .. }
    ));
    let mut cube = Template::new_cube(b, 64);
    cube.height_px = 32;
    assert!(matches!(err(cube), NonSquareCube { .. }));
    assert!(matches!(
        err(Template::new_cube(Format::Z16_UNORM, 64)),
        FormatCannot { .. }
    ));
    assert!(matches!(
        err(Template::new_2d(Format::Z16_UNORM, 64, 64).with_tiling(Tiling::Twiddled)),
        FormatCannot { .. }
    ));
    assert!(matches!(
        err(Template::new_2d(b, 48, 64).with_tiling(Tiling::Twiddled)),
        TwiddleNeedsPowerOfTwo { .. }
    ));
    assert!(matches!(
        err(Template {
            samples: 4,
            ..Template::new_2d(b, 64, 64)
        }),
        UnsupportedSamples { samples: 4 }
    ));
    assert!(matches!(
        bgra_64().level(7),
        Err(LevelOutOfRange {
            level: 7,
            levels: 7
        })
    ));
    // Largest legal texture.
    let l = Layout::new(&Template::new_2d(b, 2048, 2048).with_full_chain()).unwrap();
    assert_eq!(l.level_count(), 12);
    assert_eq!(chain_levels(2048, 1), 12);
}

#[test]
fn json_and_table_show_the_offsets() {
    let l = bgra_64();
    let j = serde_json::to_value(&l).unwrap();
    assert_eq!(j["format"], "B8G8R8A8_UNORM");
    assert_eq!(j["target"], "2d");
    assert_eq!(j["levels"][6]["offset_B"], 21840);
    assert_eq!(j["levels"][6]["tiling"], "twiddled");
    assert_eq!(j["level_offsets_B"][7], 21844);
    let t = level_table(&l);
    for off in [
        "16384", "20480", "21504", "21760", "21824", "21840", "21844",
    ] {
        assert!(t.contains(off), "{off} missing from\n{t}");
    }
    assert_eq!(t.lines().count(), 2 + 7 + 2);
    let c = Layout::new(&Template::new_cube(Format::B8G8R8A8_UNORM, 64).with_full_chain()).unwrap();
    let t = level_table(&c);
    assert!(
        t.contains("face_stride_B 24576") && t.contains("-Z@122880") && t.contains("size_B 147456"),
        "{t}"
    );
}

#[test]
fn level_relative_rect_copies_equal_the_allocation_ones() {
    use sgx_layout::{Layout, Rect, Template};
    for t in [
        Template::new_2d(Format::B8G8R8A8_UNORM, 64, 32).with_full_chain(),
        Template::new_2d(Format::B5G6R5_UNORM, 40, 24).with_full_chain(),
        Template::new_cube(Format::L8_UNORM, 16).with_full_chain(),
    ] {
        let l = Layout::new(&t).unwrap();
        let alloc: Vec<u8> = (0..l.size_B).map(|i| (i * 31 + i / 7) as u8).collect();
        let bpe = l.bytes_per_el as usize;
        for face in 0..l.faces {
            for level in 0..l.level_count() {
                let e = l.level(level).unwrap().extent_px;
                let r = Rect::new(e.w / 3, e.h / 4, e.w - e.w / 3, e.h - e.h / 4);
                let stride = r.w as usize * bpe + 3;
                let mut a = vec![0u8; stride * r.h as usize];
                let mut b = a.clone();
                l.read_rect(&alloc, face, level, r, &mut a, stride).unwrap();
                let range = l.level_range_B(face, level).unwrap();
                let lvl = &alloc[range.start as usize..range.end as usize];
                l.read_rect_in_level(lvl, level, r, &mut b, stride).unwrap();
                assert_eq!(a, b, "read face {face} level {level}");
                // New data written through either path lands on the same bytes of the level,
                // reads back, and leaves the rest of the allocation alone.
                let new: Vec<u8> = a.iter().map(|v| !v).collect();
                let mut whole = alloc.clone();
                l.write_rect(&mut whole, face, level, r, &new, stride)
                    .unwrap();
                let mut part = lvl.to_vec();
                l.write_rect_in_level(&mut part, level, r, &new, stride)
                    .unwrap();
                let (lo, hi) = (range.start as usize, range.end as usize);
                assert_eq!(&whole[lo..hi], &part[..], "write face {face} level {level}");
                assert_eq!((&whole[..lo], &whole[hi..]), (&alloc[..lo], &alloc[hi..]));
                let mut c = vec![0u8; a.len()];
                l.read_rect_in_level(&part, level, r, &mut c, stride)
                    .unwrap();
                let row_B = r.w as usize * bpe;
                for (got, want) in c.chunks(stride).zip(new.chunks(stride)) {
                    assert_eq!(got[..row_B], want[..row_B], "face {face} level {level}");
                }
                if !lvl.is_empty() {
                    assert!(l
                        .read_rect_in_level(&lvl[..lvl.len() - 1], level, r, &mut b, stride)
                        .is_err());
                }
            }
        }
    }
}
