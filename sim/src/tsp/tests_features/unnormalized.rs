//! TexState.unnormalized (RECT textures): s and t are in texels of the base level. A CPU
//! model written from the field's doc (nearest and bilinear at texel coordinates, wrap as
//! CLAMP_TO_EDGE) checks the pixels, and the same probes through a normalised unit at
//! (s/w, t/h) must give the same bytes, with the implicit LOD and with explicit derivatives.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::texture::{AddrMode, Filter, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::*;

/// (w, h) of the NPOT rectangle: linear, as NPOT textures are.
const W: u32 = 13;
const H: u32 = 7;

fn el(x: u32, y: u32) -> u32 {
    0xff00_0000 | (x * 19 + 3) << 16 | (y * 37 + 5) << 8 | ((x * 7 + y * 11) % 256)
}

fn rect(f: Filter, unnormalized: bool) -> (TexState, Vec<u8>) {
    let img = Image::new(MemLayout::LINEAR, 4, (W, H, 1), 1, |_, x, y, _| el(x, y));
    let st = TexState {
        format: Format::B8G8R8A8_UNORM,
        layout: MemLayout::LINEAR,
        width_m1: W - 1,
        height_m1: H - 1,
        min_filter: f,
        mag_filter: f,
        wrap_s: AddrMode::CLAMP_TO_EDGE,
        wrap_t: AddrMode::CLAMP_TO_EDGE,
        unnormalized,
        ..TexState::default()
    };
    (st, img.memory())
}

/// RGBA of texel (x, y), clamped to the edge, as floats.
fn texel(x: i64, y: i64) -> [f32; 4] {
    let (x, y) = (x.clamp(0, i64::from(W) - 1), y.clamp(0, i64::from(H) - 1));
    let v = el(x as u32, y as u32).to_le_bytes();
    [v[2], v[1], v[0], v[3]].map(|b| f32::from(b) / 255.0)
}

/// The model's pixel for texel coordinate (s, t).
fn model(f: Filter, s: f32, t: f32) -> [u8; 4] {
    let c = match f {
        Filter::NEAREST => texel(s.floor() as i64, t.floor() as i64),
        Filter::LINEAR => {
            let (fx, fy) = (s - 0.5, t - 0.5);
            let (x0, y0) = (fx.floor(), fy.floor());
            let (ax, ay) = (fx - x0, fy - y0);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let top = lerp(texel(x0, y0), texel(x0 + 1, y0), ax);
            let bot = lerp(texel(x0, y0 + 1), texel(x0 + 1, y0 + 1), ax);
            lerp(top, bot, ay)
        }
    };
    bytes_of(c)
}

/// Texel coordinates: centres, edges, between texels, outside on both sides.
fn coords() -> Vec<[f32; 4]> {
    let mut v = Vec::new();
    for &s in &[0.5, 1.0, 2.25, 6.5, 6.75, 12.5, 13.0, 14.5, -1.0] {
        for &t in &[0.5, 3.0, 3.6, 6.5, 8.0, -0.5] {
            v.push([s, t, 0.0, 0.0]);
        }
    }
    v
}

#[test]
fn unnormalized_coordinates_sample_texels_of_the_base_level() {
    for f in [Filter::NEAREST, Filter::LINEAR] {
        let (st, mem) = rect(f, true);
        let cs = coords();
        check_tex(&format!("{f:?}"), st, &mem, &cs, |c| model(f, c[0], c[1]));
    }
}

#[test]
fn an_unnormalized_sample_equals_the_normalized_one_at_s_over_w() {
    for f in [Filter::NEAREST, Filter::LINEAR] {
        let (unnorm, mem) = rect(f, true);
        let (norm, _) = rect(f, false);
        let cs = coords();
        let scaled: Vec<[f32; 4]> = cs
            .iter()
            .map(|c| [c[0] / W as f32, c[1] / H as f32, c[2], c[3]])
            .collect();
        // Explicit derivatives of a minifying footprint in texels, and the same normalised.
        let grads = ([3.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]);
        let ngrads = (
            [3.0 / W as f32, 0.0, 0.0, 0.0],
            [0.0, 2.0 / H as f32, 0.0, 0.0],
        );
        for op in [Opcode::TEX, Opcode::TEXD] {
            let (g, ng) = if op == Opcode::TEXD {
                (Some(grads), Some(ngrads))
            } else {
                (None, None)
            };
            let a = render(
                unnorm,
                &mem,
                op,
                &[Group {
                    coords: cs.clone(),
                    grads: g,
                }],
            );
            let b = render(
                norm,
                &mem,
                op,
                &[Group {
                    coords: scaled.clone(),
                    grads: ng,
                }],
            );
            assert_pixels(&format!("{f:?} {op:?}"), &a, &b, &cs);
        }
    }
}

#[test]
fn unnormalized_cubes_and_volumes_are_invalid_states() {
    let (st, _) = rect(Filter::NEAREST, true);
    let cube = TexState {
        cube: true,
        width_m1: 7,
        height_m1: 7,
        ..st
    };
    let volume = TexState {
        volume: true,
        depth_m1: 1,
        ..st
    };
    for bad in [cube, volume] {
        assert_ne!(status_of(bad), crate::JobStatus::Done, "{bad:?}");
    }
    assert_eq!(status_of(st), crate::JobStatus::Done);
}
