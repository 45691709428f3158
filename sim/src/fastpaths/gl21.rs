//! The GL 2.1 sampler features through both paths: volumes (every wrap, filter, mip filter
//! and TEX opcode), CLAMP_TO_BORDER on every format, shadow compare with every function
//! (2D and cube), and mipmapped sRGB and depth textures.

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, Swizzle, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::{
    all_done, chain_bytes, check, cube_strip, random_texture, rect, sample_fs, target, textured,
    Rng,
};
use crate::kit::*;

/// One render of `states` in horizontal strips of a 41 x 31 target, each strip a
/// perspective rect over texcoords `uv` with c.z and c.w varying per vertex in `zw`.
fn strips(
    name: &str,
    op: Opcode,
    states: &[TexState],
    uv: (f32, f32, f32, f32),
    zw: [(f32, f32); 6],
) {
    let r = check(name, |s| {
        let mut rng = Rng(0x00c0_ffee ^ states.len() as u32);
        let (rd, fb) = target(s, 41, 31);
        let mut bufs = vec![fb];
        let n = states.len() as f32;
        let mut draws = Vec::new();
        for (k, st) in states.iter().enumerate() {
            let mut st = *st;
            let size_B = chain_bytes(&st);
            bufs.push(random_texture(s, &mut rng, &mut st, size_B));
            let y0 = k as f32 * 31.0 / n;
            let mut verts = rect((0.0, y0, 41.0, y0 + 31.0 / n), uv, 41.0, 31.0, 0.5, 2.5);
            for (v, &(z, w)) in verts.iter_mut().zip(&zw) {
                (v.1[2], v.1[3]) = (z, w);
            }
            let d = textured(Topology::TRIANGLES, &verts, sample_fs(op), (41.0, 31.0), st);
            draws.push(d);
        }
        (vec![build(s, &rd, &draws)], bufs)
    });
    all_done(name, &r);
    assert!(r[0].counters.texels_fetched > 0, "{name}");
}

const OPS: [Opcode; 4] = [Opcode::TEX, Opcode::TEXB, Opcode::TEXL, Opcode::TEXD];

/// c.z from -0.3 to 1.4 over the rect, c.w (bias, LOD or nothing) from -1 to 3.
const ZW: [(f32, f32); 6] = [
    (-0.3, -1.0),
    (1.4, 2.0),
    (0.2, 0.5),
    (1.4, 2.0),
    (0.9, 3.0),
    (0.2, 0.5),
];

#[test]
fn volumes_every_wrap_filter_mip_and_opcode() {
    let wraps = [
        [
            AddrMode::REPEAT,
            AddrMode::MIRRORED_REPEAT,
            AddrMode::CLAMP_TO_BORDER,
        ],
        [
            AddrMode::CLAMP_TO_BORDER,
            AddrMode::CLAMP_TO_EDGE,
            AddrMode::REPEAT,
        ],
        [
            AddrMode::MIRRORED_REPEAT,
            AddrMode::CLAMP_TO_BORDER,
            AddrMode::MIRRORED_REPEAT,
        ],
        [
            AddrMode::CLAMP_TO_EDGE,
            AddrMode::REPEAT,
            AddrMode::CLAMP_TO_EDGE,
        ],
    ];
    for op in OPS {
        for mip in [MipFilter::NONE, MipFilter::NEAREST, MipFilter::LINEAR] {
            let mut states = Vec::new();
            for (k, layout) in [MemLayout::TWIDDLED, MemLayout::LINEAR]
                .into_iter()
                .enumerate()
            {
                for (j, &[ws, wt, wr]) in wraps.iter().enumerate() {
                    let f = |b: bool| if b { Filter::LINEAR } else { Filter::NEAREST };
                    states.push(TexState {
                        layout,
                        volume: true,
                        width_m1: 7,
                        height_m1: 3,
                        depth_m1: 5 + k as u32,
                        levels: 4,
                        base_level: (j % 2) as u32,
                        max_level: 3,
                        // j == 3: one filter and no mip choice, the fast path's LOD-free case.
                        min_filter: f(j != 0),
                        mag_filter: f(j == 1 || j == 3),
                        mip_filter: if j == 3 { MipFilter::NONE } else { mip },
                        lod_bias: 3 - 5 * j as i32,
                        wrap_s: ws,
                        wrap_t: wt,
                        wrap_r: wr,
                        border_r: 17,
                        border_g: 230,
                        border_b: 99,
                        border_a: 140,
                        ..TexState::default()
                    });
                }
            }
            strips(
                &format!("volume {op:?} {mip:?}"),
                op,
                &states,
                (-0.6, -0.4, 2.7, 1.9),
                ZW,
            );
        }
    }
}

#[test]
fn border_on_every_format_and_filter() {
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().sampleable)
        .collect();
    for &f in &formats {
        let layout = if f.info().twiddlable {
            MemLayout::TWIDDLED
        } else {
            MemLayout::LINEAR
        };
        let mut states = Vec::new();
        for (ws, wt) in [
            (AddrMode::CLAMP_TO_BORDER, AddrMode::CLAMP_TO_BORDER),
            (AddrMode::CLAMP_TO_BORDER, AddrMode::REPEAT),
            (AddrMode::MIRRORED_REPEAT, AddrMode::CLAMP_TO_BORDER),
        ] {
            for (filter, mip) in [
                (Filter::NEAREST, MipFilter::NONE),
                (Filter::LINEAR, MipFilter::NONE),
                (Filter::LINEAR, MipFilter::LINEAR),
            ] {
                states.push(TexState {
                    format: f,
                    layout,
                    width_m1: 7,
                    height_m1: 3,
                    levels: 4,
                    max_level: 3,
                    min_filter: filter,
                    mag_filter: filter,
                    mip_filter: mip,
                    wrap_s: ws,
                    wrap_t: wt,
                    border_r: 250,
                    border_g: 3,
                    border_b: 128,
                    border_a: 77,
                    swz_r: Swizzle::G,
                    swz_g: Swizzle::R,
                    ..TexState::default()
                });
            }
        }
        strips(
            &format!("border {f:?}"),
            Opcode::TEX,
            &states,
            (-0.8, -0.6, 1.9, 1.7),
            ZW,
        );
    }
}

#[test]
fn shadow_compare_every_function() {
    for op in [Opcode::TEX, Opcode::TEXB, Opcode::TEXL] {
        for format in [Format::Z16_UNORM, Format::Z24_UNORM_S8_UINT] {
            let mut states = Vec::new();
            for (k, &func) in CompareFunc::ALL.iter().enumerate() {
                let f = |b: bool| if b { Filter::LINEAR } else { Filter::NEAREST };
                states.push(TexState {
                    format,
                    layout: MemLayout::LINEAR,
                    width_m1: 8,
                    height_m1: 5,
                    levels: 3,
                    max_level: 2,
                    min_filter: f(k % 2 == 0),
                    mag_filter: f(k % 3 != 0),
                    mip_filter: [MipFilter::NONE, MipFilter::NEAREST, MipFilter::LINEAR][k % 3],
                    wrap_s: [AddrMode::CLAMP_TO_BORDER, AddrMode::REPEAT][k % 2],
                    wrap_t: AddrMode::CLAMP_TO_BORDER,
                    border_r: 120,
                    compare: true,
                    compare_func: func,
                    swz_a: if k == 5 { Swizzle::R } else { Swizzle::A },
                    ..TexState::default()
                });
            }
            strips(
                &format!("shadow {op:?} {format:?}"),
                op,
                &states,
                (-0.3, -0.2, 1.3, 1.2),
                ZW,
            );
        }
    }
}

#[test]
fn shadow_compare_on_a_cube() {
    let r = check("shadow cube", |s| {
        let st = TexState {
            format: Format::Z16_UNORM,
            layout: MemLayout::LINEAR,
            cube: true,
            width_m1: 7,
            height_m1: 7,
            levels: 4,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            mip_filter: MipFilter::LINEAR,
            wrap_s: AddrMode::CLAMP_TO_BORDER,
            compare: true,
            compare_func: CompareFunc::LEQUAL,
            ..TexState::default()
        };
        let refs = [-0.1, 0.4, 0.7, 1.2];
        cube_strip(s, &mut Rng(5), st, chain_bytes(&st), refs)
    });
    all_done("shadow cube", &r);
}

#[test]
fn mipmapped_srgb_and_depth_textures() {
    for op in OPS {
        let mut states = Vec::new();
        for (format, layout) in [
            (Format::B8G8R8A8_SRGB, MemLayout::TWIDDLED),
            (Format::B8G8R8A8_SRGB, MemLayout::LINEAR),
            (Format::Z16_UNORM, MemLayout::LINEAR),
            (Format::Z24_UNORM_S8_UINT, MemLayout::LINEAR),
        ] {
            for (min, mag, mip) in [
                (Filter::LINEAR, Filter::LINEAR, MipFilter::LINEAR),
                (Filter::NEAREST, Filter::LINEAR, MipFilter::NEAREST),
                (Filter::LINEAR, Filter::LINEAR, MipFilter::NONE),
            ] {
                states.push(TexState {
                    format,
                    layout,
                    width_m1: 15,
                    height_m1: 7,
                    levels: 5,
                    max_level: 4,
                    min_filter: min,
                    mag_filter: mag,
                    mip_filter: mip,
                    wrap_t: AddrMode::MIRRORED_REPEAT,
                    ..TexState::default()
                });
            }
        }
        strips(
            &format!("sRGB and depth {op:?}"),
            op,
            &states,
            (0.0, 0.0, 5.0, 2.5),
            ZW,
        );
    }
}
