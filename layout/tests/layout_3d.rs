//! 3D layouts: levels of stacked slices, each slice laid out as the 2D level of its size,
//! packed largest first; slice addressing; errors; JSON and table.

use sgx_hwdocs::Format;
use sgx_layout::*;

const B: Format = Format::B8G8R8A8_UNORM;

#[test]
fn bgra8_16x16x8_chain_is_packed_slice_by_slice() {
    let l = Layout::new(&Template::new_3d(B, 16, 16, 8).with_full_chain()).unwrap();
    assert_eq!(l.target, Target::Tex3D);
    assert_eq!((l.width_px, l.height_px, l.depth_px), (16, 16, 8));
    assert_eq!(l.tiling, Tiling::Twiddled);
    // 16x16x8, 8x8x4, 4x4x2, 2x2x1, 1x1x1 at 4 B: 1024 * 8, 256 * 4, 64 * 2, 16, 4.
    assert_eq!(l.level_offsets_B, vec![0, 8192, 9216, 9344, 9360, 9364]);
    let depths: Vec<u32> = l.levels.iter().map(|v| v.depth_px).collect();
    assert_eq!(depths, vec![8, 4, 2, 1, 1]);
    let slices: Vec<u64> = l.levels.iter().map(|v| v.slice_stride_B).collect();
    assert_eq!(slices, vec![1024, 256, 64, 16, 4]);
    assert_eq!(
        (l.chain_B, l.faces, l.face_stride_B, l.size_B),
        (9364, 1, 9364, 9364)
    );
    for v in &l.levels {
        assert_eq!(v.size_B, v.slice_stride_B * u64::from(v.depth_px));
        assert_eq!(v.footprint_B, v.size_B);
    }
    // A depth larger than the sides keeps halving after the slices are 1x1.
    let t = Layout::new(&Template::new_3d(B, 4, 4, 32).with_full_chain()).unwrap();
    let shape: Vec<(u32, u32, u32)> = t
        .levels
        .iter()
        .map(|v| (v.extent_px.w, v.extent_px.h, v.depth_px))
        .collect();
    assert_eq!(
        shape,
        vec![
            (4, 4, 32),
            (2, 2, 16),
            (1, 1, 8),
            (1, 1, 4),
            (1, 1, 2),
            (1, 1, 1)
        ]
    );
    assert_eq!(chain_levels_3d(4, 4, 32), 6);
    assert_eq!(chain_levels_3d(512, 1, 1), chain_levels(512, 1));
    // A zero side anywhere (not only all of them) means no chain.
    for (w, h, d) in [(4, 4, 0), (0, 4, 4), (4, 0, 4), (0, 0, 4)] {
        assert_eq!(chain_levels_3d(w, h, d), 0, "{w}x{h}x{d}");
    }
    assert_eq!((chain_levels(0, 8), chain_levels(8, 0)), (0, 0));
}

#[test]
fn every_slice_is_the_2d_level_of_its_size() {
    for f in [
        B,
        Format::L8_UNORM,
        Format::B5G6R5_UNORM,
        Format::B8G8R8A8_SRGB,
    ] {
        for (w, h, d) in [(16, 8, 5), (20, 12, 5), (1, 1, 9), (6, 64, 3), (32, 32, 1)] {
            let l = Layout::new(&Template::new_3d(f, w, h, d).with_full_chain()).unwrap();
            // Tiling follows the width and height alone; the depth need not be a power of two.
            let pot = w.is_power_of_two() && h.is_power_of_two();
            let want_tiling = if pot {
                Tiling::Twiddled
            } else {
                Tiling::Linear
            };
            assert_eq!(l.tiling, want_tiling, "{f:?} {w}x{h}x{d}");
            let mut end = 0;
            for v in &l.levels {
                let flat = Layout::new(
                    &Template::new_2d(f, v.extent_px.w, v.extent_px.h).with_tiling(l.tiling),
                )
                .unwrap();
                let f0 = flat.levels[0];
                assert_eq!(v.depth_px, (d >> v.level).max(1));
                assert_eq!(v.offset_B, end, "levels are packed");
                assert_eq!(v.slice_stride_B, f0.size_B);
                assert_eq!(v.size_B, f0.size_B * u64::from(v.depth_px));
                assert_eq!(v.footprint_B, f0.footprint_B * u64::from(v.depth_px));
                assert_eq!(
                    (v.stride_B, v.log2_w, v.log2_h, v.extent_el),
                    (f0.stride_B, f0.log2_w, f0.log2_h, f0.extent_el)
                );
                // Slice z of the volume starts z slice strides into the level, and each texel
                // sits where the 2D level has it.
                for z in [0, v.depth_px / 2, v.depth_px - 1] {
                    let r = l.slice_range_B(0, v.level, z).unwrap();
                    assert_eq!(r.start, v.offset_B + u64::from(z) * f0.size_B);
                    assert_eq!(r.end - r.start, f0.size_B);
                    let (x, y) = (v.extent_px.w - 1, v.extent_px.h / 2);
                    assert_eq!(
                        l.texel_offset_xyz_B(0, v.level, x, y, z).unwrap(),
                        r.start + flat.texel_offset_B(0, 0, x, y).unwrap()
                    );
                    // The level's own query, relative to the level, by elements.
                    let (xe, ye, bpe) = (v.extent_el.w - 1, v.extent_el.h / 2, l.bytes_per_el);
                    assert_eq!(
                        v.texel_offset_xyz_B(xe, ye, z, bpe),
                        Some(u64::from(z) * f0.size_B + f0.texel_offset_B(xe, ye, bpe).unwrap())
                    );
                    assert_eq!(v.texel_offset_xyz_B(xe + 1, ye, z, bpe), None);
                }
                assert_eq!(v.texel_offset_xyz_B(0, 0, v.depth_px, l.bytes_per_el), None);
                assert!(matches!(
                    l.slice_range_B(0, v.level, v.depth_px),
                    Err(LayoutError::SliceOutOfRange { .. })
                ));
                assert_eq!(v.slice_offset_B(v.depth_px), None);
                end = v.offset_B + v.size_B;
            }
            assert_eq!(end, l.chain_B);
            assert_eq!(l.size_B, l.chain_B);
        }
    }
}

#[test]
fn pbe_state_of_a_slice() {
    let l = Layout::new(&Template::new_3d(B, 16, 16, 8).with_full_chain()).unwrap();
    let s = l.pbe_state_slice(0, 1, 3, 0x10_0000).unwrap();
    assert_eq!(s.base_addr, 0x10_0000 + 8192 + 3 * 256);
    assert_eq!((s.log2_w, s.log2_h), (3, 3));
    assert_eq!(
        l.pbe_state(0, 1, 0x10_0000).unwrap().base_addr,
        0x10_0000 + 8192
    );
    assert!(matches!(
        l.pbe_state_slice(0, 1, 4, 0),
        Err(LayoutError::SliceOutOfRange { z: 4, depth_px: 4 })
    ));
}

#[test]
fn impossible_volumes_are_errors() {
    use LayoutError::*;
    let err = |t: Template| Layout::new(&t).unwrap_err();
    assert!(matches!(
        err(Template::new_3d(B, 4, 4, 0)),
        ZeroDepth { .. }
    ));
    let mut flat = Template::new_2d(B, 4, 4);
    flat.depth_px = 0;
    assert!(matches!(err(flat), ZeroDepth { .. }));
    flat.depth_px = 2;
    assert!(matches!(
        err(flat),
        DepthNot3D {
            target: Target::Tex2D,
            depth_px: 2
        }
    ));
    let mut cube = Template::new_cube(B, 4);
    cube.depth_px = 6;
    assert!(matches!(
        err(cube),
        DepthNot3D {
            target: Target::Cube,
            ..
        }
    ));
    // MAX_TEXTURE_3D_PX = 512 on every side; 2D keeps its 2048.
    Layout::new(&Template::new_3d(B, 512, 1, 512)).unwrap();
    for (w, h, d) in [(513, 1, 1), (1, 513, 1), (1, 1, 513), (1024, 1024, 1)] {
        assert!(
            matches!(
                err(Template::new_3d(B, w, h, d)),
                TooLarge3D { max_px: 512, .. }
            ),
            "{w}x{h}x{d}"
        );
    }
    assert!(matches!(
        err(Template::new_3d(B, 4096, 1, 1)),
        TooLarge { .. }
    ));
    for z in [Format::Z16_UNORM, Format::Z24_UNORM_S8_UINT] {
        assert!(matches!(
            err(Template::new_3d(z, 8, 8, 8)),
            FormatCannot { .. }
        ));
    }
    assert!(matches!(
        err(Template::new_3d(B, 4, 4, 16).with_levels(6)),
        BadLevelCount { max: 5, .. }
    ));
    Layout::new(&Template::new_3d(B, 4, 4, 16).with_levels(5)).unwrap();
    assert!(matches!(
        err(Template::new_3d(Format::L8_UNORM, 6, 8, 2).with_tiling(Tiling::Twiddled)),
        TwiddleNeedsPowerOfTwo { .. }
    ));
    // A non-power-of-two depth does not stop twiddling.
    let l = Layout::new(&Template::new_3d(B, 8, 8, 3).with_tiling(Tiling::Twiddled)).unwrap();
    assert_eq!(l.tiling, Tiling::Twiddled);
}

#[test]
fn json_and_table_show_depth_and_slices() {
    let l = Layout::new(&Template::new_3d(B, 16, 16, 8).with_full_chain()).unwrap();
    let j = serde_json::to_value(&l).unwrap();
    assert_eq!(j["target"], "3d");
    assert_eq!(j["depth_px"], 8);
    assert_eq!(j["levels"][1]["depth_px"], 4);
    assert_eq!(j["levels"][1]["slice_stride_B"], 256);
    assert_eq!(j["levels"][1]["size_B"], 1024);
    let t = level_table(&l);
    assert!(t.starts_with("B8G8R8A8_UNORM 16x16x8 3D, 5 levels"), "{t}");
    assert!(t.lines().nth(1).unwrap().contains("slice_stride_B"), "{t}");
    let row1: Vec<&str> = t.lines().nth(3).unwrap().split_whitespace().collect();
    assert_eq!(
        &row1[..6],
        &["1", "8x8x4", "twiddled", "8192", "1024", "256"],
        "{t}"
    );
    // 2D tables have no slice column.
    let flat = level_table(&Layout::new(&Template::new_2d(B, 16, 16)).unwrap());
    assert!(!flat.contains("slice_stride_B"), "{flat}");
}
