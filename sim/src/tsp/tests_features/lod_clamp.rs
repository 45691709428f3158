//! TexState.min_lod / max_lod: GL's TEXTURE_MIN_LOD / MAX_LOD clamp of the biased LOD, applied
//! before the magnification test and before the level range (base_level..=max_level) clamps
//! the level.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::texture::{Filter, MipFilter, TexState, LOD_BIAS_STEPS};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::*;

/// Level l of the chain: one flat colour per level, none alike.
pub(super) fn level_colour(l: usize) -> u32 {
    [
        0xff20_40c0u32,
        0xff40_c020,
        0xffc0_2040,
        0xff80_8080,
        0xff10_f0f0,
    ][l]
}

pub(super) fn bytes_of_el(v: u32) -> [u8; 4] {
    let b = v.to_le_bytes();
    [b[2], b[1], b[0], b[3]]
}

/// 16x16 BGRA8, five flat levels, nearest mip selection.
pub(super) fn chain() -> (TexState, Vec<u8>) {
    let img = Image::new(MemLayout::TWIDDLED, 4, (16, 16, 1), 5, |l, _, _, _| {
        level_colour(l)
    });
    let st = TexState {
        format: Format::B8G8R8A8_UNORM,
        layout: MemLayout::TWIDDLED,
        width_m1: 15,
        height_m1: 15,
        levels: 5,
        max_level: 4,
        min_filter: Filter::NEAREST,
        mag_filter: Filter::NEAREST,
        mip_filter: MipFilter::NEAREST,
        ..TexState::default()
    };
    (st, img.memory())
}

/// GL 2.1 section 3.8.8 for a flat-levelled chain: lambda' = clamp(lambda, min, max); at or
/// below 0 the base level; else the nearest level (ties down), at most `last`.
pub(super) fn gl_level(lambda: f32, min: f32, max: f32, base: u32, last: u32) -> usize {
    let lam = lambda.max(min).min(max);
    if lam <= 0.0 {
        return base as usize;
    }
    let l = if lam <= 0.5 {
        0
    } else {
        ((lam + 0.5).ceil() - 1.0) as u32
    };
    (base + l).min(last) as usize
}

#[test]
fn explicit_lods_are_clamped_to_min_and_max_lod() {
    let (st0, mem) = chain();
    let steps = LOD_BIAS_STEPS as f32;
    let lods = [-3.0, 0.0, 0.3, 0.5, 0.75, 1.0, 1.5, 2.2, 3.6, 9.0];
    for (base, min_lod, max_lod) in [
        (0, 0, 255),
        (0, 0, 0),
        (0, 16, 255),
        (0, 24, 40),
        (0, 40, 40),
        (1, 8, 16),
        (1, 0, 255),
        (2, 32, 255),
    ] {
        let st = TexState {
            base_level: base,
            min_lod,
            max_lod,
            ..st0
        };
        let coords: Vec<[f32; 4]> = lods.iter().map(|&l| [0.3, 0.6, 0.0, l]).collect();
        let group = Group::plain(coords.clone());
        let got = render(st, &mem, Opcode::TEXL, &[group]);
        let want: Vec<[u8; 4]> = lods
            .iter()
            .map(|&l| {
                let lvl = gl_level(l, min_lod as f32 / steps, max_lod as f32 / steps, base, 4);
                bytes_of_el(level_colour(lvl))
            })
            .collect();
        let name = format!("base {base} min_lod {min_lod} max_lod {max_lod}");
        assert_pixels(&name, &got, &want, &coords);
    }
}

/// A flat varying has zero derivatives: LOD -inf, which MIN_LOD alone lifts into the chain.
#[test]
fn min_lod_lifts_a_magnified_sample_into_the_chain() {
    let (st0, mem) = chain();
    for (min_lod, level) in [(0, 0), (8, 0), (9, 1), (16, 1), (40, 2), (255, 4)] {
        let st = TexState { min_lod, ..st0 };
        let coords = vec![[0.4, 0.4, 0.0, 0.0]];
        let got = check_tex(&format!("min_lod {min_lod}"), st, &mem, &coords, |_| {
            bytes_of_el(level_colour(level))
        });
        assert_eq!(got.len(), 1);
    }
}

/// MAX_LOD 0 makes a minified sample a magnified one: the mag filter, not the min filter.
#[test]
fn max_lod_zero_selects_the_magnification_filter() {
    // Level 0: a 2x2 checker of black and white, so LINEAR between texels is grey.
    let img = Image::new(MemLayout::LINEAR, 4, (2, 2, 1), 2, |l, x, y, _| {
        if l == 0 && (x + y) % 2 == 0 {
            0xffff_ffff
        } else {
            0xff00_0000
        }
    });
    let st = TexState {
        format: Format::B8G8R8A8_UNORM,
        layout: MemLayout::LINEAR,
        width_m1: 1,
        height_m1: 1,
        levels: 2,
        max_level: 0,
        min_filter: Filter::LINEAR,
        mag_filter: Filter::NEAREST,
        mip_filter: MipFilter::NEAREST,
        ..TexState::default()
    };
    // At the centre the four texels weigh alike: LINEAR gives 127.5 -> 128, NEAREST white.
    let coords = vec![[0.5, 0.5, 0.0, 2.0]];
    for (max_lod, want) in [(255, [128, 128, 128, 255]), (0, [255; 4])] {
        let group = Group::plain(coords.clone());
        let got = render(
            TexState { max_lod, ..st },
            &img.memory(),
            Opcode::TEXL,
            &[group],
        );
        assert_pixels(&format!("max_lod {max_lod}"), &got, &[want], &coords);
    }
}
