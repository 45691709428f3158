//! Volume textures: slices and levels addressed as the memory-layout spec says, NEAREST /
//! 8-tap LINEAR / mip filtering, wrap_r, LOD from three axes.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::*;

/// A BGRA8 colour of (level, x, y, z), distinct for every texel of the test volumes.
fn colour(l: usize, x: u32, y: u32, z: u32) -> u32 {
    let m = |a: u32, k: u32| a.wrapping_add(1).wrapping_mul(k);
    let v = m(l as u32, 0x9e37_79b9) ^ m(x, 0x85eb_ca6b) ^ m(y, 0xc2b2_ae35) ^ m(z, 0x27d4_eb2f);
    v ^ (v >> 15)
}

/// RGBA of a B8G8R8A8 element.
fn rgba(v: u32) -> [f32; 4] {
    let b = v.to_le_bytes();
    [b[2], b[1], b[0], b[3]].map(|k| k as f32 / 255.0)
}

/// The CPU model of one volume level's filter.
fn filter3(img: &Image, st: &TexState, l: usize, c: [f32; 4], f: Filter) -> [f32; 4] {
    let (w, h, d) = img.levels[l];
    let border = [st.border_r, st.border_g, st.border_b, st.border_a].map(|k| k as f32 / 255.0);
    let texel = |x: i64, y: i64, z: i64| match (
        axis(x, w, st.wrap_s),
        axis(y, h, st.wrap_t),
        axis(z, d, st.wrap_r),
    ) {
        (Some(x), Some(y), Some(z)) => rgba((img.el)(l, x, y, z)),
        _ => border,
    };
    match f {
        Filter::NEAREST => {
            let i = |c: f32, n: u32| (c * n as f32).floor() as i64;
            texel(i(c[0], w), i(c[1], h), i(c[2], d))
        }
        Filter::LINEAR => {
            let ((x, ax), (y, ay), (z, az)) = (foot(c[0], w), foot(c[1], h), foot(c[2], d));
            let slice = |z: i64| {
                let top = lerp(texel(x, y, z), texel(x + 1, y, z), ax);
                let bot = lerp(texel(x, y + 1, z), texel(x + 1, y + 1, z), ax);
                lerp(top, bot, ay)
            };
            lerp(slice(z), slice(z + 1), az)
        }
    }
}

/// The CPU model of a sample with explicit LOD `lod` (TEXL's c.w).
fn sample3(img: &Image, st: &TexState, c: [f32; 4], lod: f32) -> [f32; 4] {
    let lod_max = st.max_level.min(st.levels - 1) as f32;
    if lod <= 0.0 {
        return filter3(img, st, 0, c, st.mag_filter);
    }
    let lam = lod.min(lod_max);
    match st.mip_filter {
        MipFilter::NONE => filter3(img, st, 0, c, st.min_filter),
        MipFilter::NEAREST => {
            // GL: the level nearest to lambda, ties to the lower level.
            let l = if lam <= 0.5 {
                0
            } else {
                ((lam + 0.5).ceil() - 1.0) as usize
            };
            filter3(img, st, l, c, st.min_filter)
        }
        MipFilter::LINEAR => {
            let l0 = lam.floor();
            let a = filter3(img, st, l0 as usize, c, st.min_filter);
            if lam == l0 {
                return a;
            }
            let b = filter3(img, st, l0 as usize + 1, c, st.min_filter);
            lerp(a, b, lam - l0)
        }
    }
}

fn volume_state(layout: MemLayout, (w, h, d): (u32, u32, u32), levels: u32) -> TexState {
    TexState {
        format: Format::B8G8R8A8_UNORM,
        layout,
        volume: true,
        width_m1: w - 1,
        height_m1: h - 1,
        depth_m1: d - 1,
        levels,
        max_level: levels - 1,
        ..TexState::default()
    }
}

fn probes(rng: &mut Rng, n: usize, lo: f32, hi: f32, lod: (f32, f32)) -> Vec<[f32; 4]> {
    (0..n)
        .map(|_| {
            [
                rng.f(lo, hi),
                rng.f(lo, hi),
                rng.f(lo, hi),
                rng.f(lod.0, lod.1),
            ]
        })
        .collect()
}

#[test]
fn volume_filters_wraps_and_mips_match_the_cpu_model() {
    let size = (8, 4, 5);
    let wraps = [
        (
            AddrMode::REPEAT,
            AddrMode::MIRRORED_REPEAT,
            AddrMode::CLAMP_TO_EDGE,
        ),
        (
            AddrMode::CLAMP_TO_EDGE,
            AddrMode::REPEAT,
            AddrMode::MIRRORED_REPEAT,
        ),
        (
            AddrMode::MIRRORED_REPEAT,
            AddrMode::CLAMP_TO_EDGE,
            AddrMode::REPEAT,
        ),
        (
            AddrMode::CLAMP_TO_EDGE,
            AddrMode::CLAMP_TO_EDGE,
            AddrMode::CLAMP_TO_BORDER,
        ),
    ];
    let mut rng = Rng(0x3d_5eed);
    for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
        // 8 x 4 x 5: the chain is 8x4x5, 4x2x2, 2x1x1, 1x1x1 (depth is not a power of two).
        let img = Image::new(layout, 4, size, 4, colour);
        let mem = img.memory();
        for (k, &(ws, wt, wr)) in wraps.iter().enumerate() {
            for (min, mag, mip) in [
                (Filter::NEAREST, Filter::NEAREST, MipFilter::NONE),
                (Filter::LINEAR, Filter::LINEAR, MipFilter::NONE),
                (Filter::LINEAR, Filter::NEAREST, MipFilter::NEAREST),
                (Filter::LINEAR, Filter::NEAREST, MipFilter::LINEAR),
                (Filter::NEAREST, Filter::LINEAR, MipFilter::LINEAR),
            ] {
                let mut st = volume_state(layout, size, 4);
                (st.wrap_s, st.wrap_t, st.wrap_r) = (ws, wt, wr);
                (st.min_filter, st.mag_filter, st.mip_filter) = (min, mag, mip);
                (st.border_r, st.border_g, st.border_b, st.border_a) = (9, 250, 77, 128);
                let coords = probes(&mut rng, 96, -0.4, 1.4, (-0.6, 3.7));
                let got = render(st, &mem, Opcode::TEXL, &[Group::plain(coords.clone())]);
                let want: Vec<[u8; 4]> = coords
                    .iter()
                    .map(|&c| bytes_of(sample3(&img, &st, c, c[3])))
                    .collect();
                let name = format!("{layout:?} wraps {k} {min:?}/{mag:?}/{mip:?}");
                assert_pixels(&name, &got, &want, &coords);
            }
        }
    }
}

#[test]
fn volume_lod_comes_from_all_three_axes() {
    // Every level one flat colour, so the pixel names the level chosen.
    let flat = [0xff10_2030u32, 0xff40_5060, 0xff70_8090, 0xffa0_b0c0];
    let img = Image::new(MemLayout::LINEAR, 4, (8, 8, 8), 4, move |l, _, _, _| {
        flat[l]
    });
    let mem = img.memory();
    let mut st = volume_state(MemLayout::LINEAR, (8, 8, 8), 4);
    (st.min_filter, st.mag_filter, st.mip_filter) =
        (Filter::NEAREST, Filter::NEAREST, MipFilter::NEAREST);
    let c = [0.3, 0.6, 0.45, 0.0];
    // Texels per pixel along one axis at a time (and along a diagonal), then the level GL 2.1's
    // approximate rho = max(|d/dx|, |d/dy|) over the axes, in texels, picks: nearest to
    // log2(rho).
    let cases: [([f32; 3], usize); 8] = [
        ([0.0, 0.0, 1.0], 0),
        ([0.0, 0.0, 2.0], 1),
        ([0.0, 0.0, 4.5], 2),
        ([0.0, 0.0, 8.0], 3),
        ([2.0, 0.0, 0.0], 1),
        ([0.0, 4.0, 0.0], 2),
        // The largest axis, not the vector's length: 1.5 (log2 0.58) -> level 1; 3.5 (log2
        // 1.81) -> level 2, where |(3.5, 3.5, 3.5)| = 6.1 would pick level 3.
        ([1.5, 1.5, 1.5], 1),
        ([3.5, 3.5, 3.5], 2),
    ];
    let groups: Vec<Group> = cases
        .iter()
        .map(|&(t, _)| Group {
            coords: vec![c; 4],
            grads: Some(([t[0] / 8.0, t[1] / 8.0, t[2] / 8.0, 0.0], [0.0; 4])),
        })
        .collect();
    let got = render(st, &mem, Opcode::TEXD, &groups);
    for (k, &(t, level)) in cases.iter().enumerate() {
        let want = bytes_of(rgba(flat[level]));
        for p in 0..4 {
            assert_eq!(got[4 * k + p], want, "texels/pixel {t:?}");
        }
    }
    // The same r derivative on a 2D texture does not count: r is no axis of it.
    let img2 = Image::new(MemLayout::LINEAR, 4, (8, 8, 1), 4, move |l, _, _, _| {
        flat[l]
    });
    let st2 = TexState {
        volume: false,
        depth_m1: 0,
        ..st
    };
    let got = render(st2, &img2.memory(), Opcode::TEXD, &groups[3..4]);
    assert_eq!(got[0], bytes_of(rgba(flat[0])));
}

#[test]
fn volume_slices_past_the_mapping_fault_at_their_address() {
    // 4 x 4 x 4 linear BGRA8: slice stride 4 rows x 32 B = 128 B. Map 3 slices only: a
    // sample of slice 3 must fault at base + 3 * 128 + row/column offset on both paths.
    let st = TexState {
        mag_filter: Filter::NEAREST,
        min_filter: Filter::NEAREST,
        ..volume_state(MemLayout::LINEAR, (4, 4, 4), 1)
    };
    for (r, ok) in [(0.6, true), (0.9, false)] {
        let mut statuses = Vec::new();
        for reference in [false, true] {
            let mut s = Scene::new();
            let fb = Mem::filled(128, 0);
            let va = s.alloc_with(fb, Perm::RW);
            let rd = RenderDesc::linear(va, 4, 4, 32);
            let mut st = st;
            // The page ends after slice 2 when the level starts 3 * 128 B before the end.
            let (page, _) = s.alloc(4096);
            st.base_addr = page + 4096 - 3 * 128;
            let c = [0.4, 0.3, r, 0.0];
            let verts = [
                (clip_xy(0.0, 0.0, 4.0, 4.0, 0.5), c),
                (clip_xy(4.0, 0.0, 4.0, 4.0, 0.5), c),
                (clip_xy(0.0, 4.0, 4.0, 4.0, 0.5), c),
            ];
            let mut d = DrawDesc::new(
                Topology::TRIANGLES,
                &verts,
                program(Opcode::TEX),
                viewport(4.0, 4.0),
            );
            d.tsp.v0_interp = Interp::FLAT;
            d.textures = vec![st];
            s.gpu.set_reference_paths(reference);
            let status = s.render(&rd, &[d]).status;
            let want_addr = st.base_addr + 3 * 128 + 32 + 4; // slice 3, row 1, column 1
            match (&status, ok) {
                (JobStatus::Done, true) => {}
                (JobStatus::Fault(f), false) => assert_eq!(f.addr, want_addr, "{f:?}"),
                other => panic!("r {r}: {other:?}"),
            }
            statuses.push(status);
        }
        assert_eq!(statuses[0], statuses[1]);
    }
}

#[test]
fn bad_volume_states_are_refused() {
    let ok = volume_state(MemLayout::LINEAR, (4, 4, 4), 3);
    assert_eq!(status_of(ok), JobStatus::Done);
    let cases = [
        (TexState { cube: true, ..ok }, "volume and cube"),
        (
            TexState {
                volume: false,
                ..ok
            },
            "not a volume",
        ),
        (
            TexState {
                compare: true,
                format: Format::Z16_UNORM,
                ..ok
            },
            "compare on a volume",
        ),
        (
            TexState {
                format: Format::Z24_UNORM_S8_UINT,
                ..ok
            },
            "cannot be a volume",
        ),
        (
            TexState {
                width_m1: 1023,
                ..ok
            },
            "over 512",
        ),
        (TexState { levels: 4, ..ok }, "levels for 4x4x4"),
    ];
    for (st, why) in cases {
        match status_of(st) {
            JobStatus::BadState { reason, .. } => assert!(reason.contains(why), "{reason}"),
            other => panic!("{why}: {other:?}"),
        }
    }
    // A deep, thin volume keeps the levels its depth gives it: 2 x 2 x 16 has 5.
    let deep = volume_state(MemLayout::LINEAR, (2, 2, 16), 5);
    assert_eq!(status_of(deep), JobStatus::Done);
}
