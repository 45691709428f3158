//! Sampling through both paths: every sampleable format in each layout with both filters and
//! three wrap pairs, mip chains under every mip filter and TEX opcode (bias, explicit LOD,
//! derivatives), and a cube map sampled across all its faces.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::{
    all_done, chain_bytes, check, cube_strip, random_texture, rect, sample_fs, swizzle_b1r0,
    target, textured, TEX_FS,
};
use crate::kit::*;

#[test]
fn every_texture_format_layout_filter_and_wrap() {
    let wraps = [
        (AddrMode::REPEAT, AddrMode::CLAMP_TO_EDGE),
        (AddrMode::MIRRORED_REPEAT, AddrMode::REPEAT),
        (AddrMode::CLAMP_TO_EDGE, AddrMode::MIRRORED_REPEAT),
    ];
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().sampleable)
        .collect();
    assert!(formats.len() >= 10);
    for &f in &formats {
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            if layout == MemLayout::TWIDDLED && !f.info().twiddlable {
                continue;
            }
            let r = check(&format!("{f:?} {layout:?}"), |s| {
                let mut rng = Rng(0x1234_5678 ^ f.raw());
                let (rd, fb) = target(s, 37, 23);
                let (w, h) = if layout == MemLayout::TWIDDLED {
                    (16, 4)
                } else {
                    (13, 7)
                };
                let mut draws = Vec::new();
                let mut bufs = vec![fb];
                for (k, &(ws, wt)) in wraps.iter().enumerate() {
                    for (j, filter) in [Filter::NEAREST, Filter::LINEAR].into_iter().enumerate() {
                        let mut st = TexState {
                            format: f,
                            layout,
                            width_m1: w - 1,
                            height_m1: h - 1,
                            min_filter: filter,
                            mag_filter: filter,
                            wrap_s: ws,
                            wrap_t: wt,
                            ..TexState::default()
                        };
                        if k == 1 {
                            swizzle_b1r0(&mut st);
                        }
                        let size_B = chain_bytes(&st);
                        bufs.push(random_texture(s, &mut rng, &mut st, size_B));
                        // Six strips of the window, each its own texture and state.
                        let y0 = (k * 2 + j) as f32 * 23.0 / 6.0;
                        let verts = rect(
                            (0.0, y0, 37.0, y0 + 23.0 / 6.0),
                            (-1.3, -0.7, 2.2, 1.9),
                            37.0,
                            23.0,
                            0.5,
                            1.0 + k as f32 * 0.7,
                        );
                        let d = textured(
                            Topology::TRIANGLES,
                            &verts,
                            TEX_FS(Opcode::TEX),
                            (37.0, 23.0),
                            st,
                        );
                        draws.push(d);
                    }
                }
                (vec![build(s, &rd, &draws)], bufs)
            });
            all_done(&format!("{f:?}"), &r);
            assert!(r[0].counters.texels_fetched > 0);
        }
    }
}

#[test]
fn mipmaps_lod_and_every_tex_opcode() {
    for op in [Opcode::TEX, Opcode::TEXB, Opcode::TEXL, Opcode::TEXD] {
        for mip in [MipFilter::NONE, MipFilter::NEAREST, MipFilter::LINEAR] {
            let r = check(&format!("{op:?} {mip:?}"), |s| {
                let mut rng = Rng(0x9e37_79b9);
                let (rd, fb) = target(s, 45, 29);
                let mut bufs = vec![fb];
                let mut draws = Vec::new();
                for (k, layout) in [MemLayout::TWIDDLED, MemLayout::LINEAR]
                    .into_iter()
                    .enumerate()
                {
                    let mut st = TexState {
                        layout,
                        width_m1: 31,
                        height_m1: 15,
                        levels: 6,
                        base_level: k as u32,
                        max_level: 5,
                        min_filter: if k == 0 {
                            Filter::LINEAR
                        } else {
                            Filter::NEAREST
                        },
                        mag_filter: if k == 0 {
                            Filter::NEAREST
                        } else {
                            Filter::LINEAR
                        },
                        mip_filter: mip,
                        lod_bias: 5 - 11 * k as i32,
                        wrap_s: AddrMode::REPEAT,
                        wrap_t: AddrMode::MIRRORED_REPEAT,
                        ..TexState::default()
                    };
                    let size_B = chain_bytes(&st);
                    bufs.push(random_texture(s, &mut rng, &mut st, size_B));
                    let y0 = k as f32 * 14.0;
                    // Texcoords spanning many texels per pixel, with perspective, so the LOD
                    // varies over the draw.
                    let mut verts = rect(
                        (0.0, y0, 45.0, y0 + 15.0),
                        (0.0, 0.0, 9.0, 3.5),
                        45.0,
                        29.0,
                        0.5,
                        3.0,
                    );
                    for (i, v) in verts.iter_mut().enumerate() {
                        v.1[3] = (i as f32 - 2.0) * 0.9; // bias / explicit LOD
                    }
                    draws.push(textured(
                        Topology::TRIANGLES,
                        &verts,
                        sample_fs(op),
                        (45.0, 29.0),
                        st,
                    ));
                }
                (vec![build(s, &rd, &draws)], bufs)
            });
            all_done(&format!("{op:?} {mip:?}"), &r);
        }
    }
}

#[test]
fn cube_maps() {
    let r = check("cube", |s| {
        let st = TexState {
            cube: true,
            width_m1: 7,
            height_m1: 7,
            levels: 4,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            mip_filter: MipFilter::LINEAR,
            ..TexState::default()
        };
        cube_strip(s, &mut Rng(77), st, chain_bytes(&st), [0.0; 4])
    });
    all_done("cube", &r);
}
