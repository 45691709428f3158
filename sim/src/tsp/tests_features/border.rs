//! CLAMP_TO_BORDER: each tap outside the level reads the border colour, which stands in for
//! a decoded texel (no sRGB decode, (b, b, b, 1) for depth); cube faces clamp to the edge.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::texture::{AddrMode, Filter, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::*;

/// The CPU model of a 2D BGRA8 sample: `el` gives the element of (x, y).
fn sample2(
    st: &TexState,
    (w, h): (u32, u32),
    el: &dyn Fn(u32, u32) -> [f32; 4],
    border: [f32; 4],
    c: [f32; 4],
) -> [f32; 4] {
    let texel = |x: i64, y: i64| match (axis(x, w, st.wrap_s), axis(y, h, st.wrap_t)) {
        (Some(x), Some(y)) => el(x, y),
        _ => border,
    };
    filter_2d(st, (w, h), c, texel)
}

fn edge_probes() -> Vec<[f32; 4]> {
    // Inside, on and across every edge and corner, in steps of 1/16 of a 4-texel side.
    let mut v = Vec::new();
    for j in -4..=20 {
        for i in [-5, -1, 0, 1, 2, 7, 8, 9, 14, 15, 16, 17, 21] {
            v.push([i as f32 / 16.0 + 0.01, j as f32 / 16.0 - 0.005, 0.5, 0.0]);
        }
    }
    v
}

#[test]
fn border_taps_read_the_border_colour_per_axis() {
    let (w, h) = (4, 4);
    let code = |x: u32, y: u32| 0xff00_0000 | ((x * 60) << 16) | ((y * 80) << 8) | ((x + y) * 30);
    let img = Image::new(MemLayout::LINEAR, 4, (w, h, 1), 1, move |_, x, y, _| {
        code(x, y)
    });
    let mem = img.memory();
    let el = |x: u32, y: u32| {
        let b = code(x, y).to_le_bytes();
        [b[2], b[1], b[0], b[3]].map(|k| k as f32 / 255.0)
    };
    let coords = edge_probes();
    for (ws, wt) in [
        (AddrMode::CLAMP_TO_BORDER, AddrMode::CLAMP_TO_BORDER),
        (AddrMode::CLAMP_TO_BORDER, AddrMode::REPEAT),
        (AddrMode::MIRRORED_REPEAT, AddrMode::CLAMP_TO_BORDER),
        (AddrMode::CLAMP_TO_EDGE, AddrMode::CLAMP_TO_BORDER),
    ] {
        for f in [Filter::NEAREST, Filter::LINEAR] {
            let st = TexState {
                wrap_s: ws,
                wrap_t: wt,
                border_r: 200,
                border_g: 13,
                border_b: 255,
                border_a: 64,
                ..plain(w, h, f)
            };
            let border = [200.0, 13.0, 255.0, 64.0].map(|k: f32| k / 255.0);
            let got = check_tex(&format!("{ws:?}/{wt:?} {f:?}"), st, &mem, &coords, |c| {
                bytes_of(sample2(&st, (w, h), &el, border, c))
            });
            // The border shows up at all: some probe reads it whole.
            assert!(got.contains(&[200, 13, 255, 64]), "{ws:?}/{wt:?} {f:?}");
        }
    }
}

#[test]
fn the_border_stands_in_for_a_decoded_texel() {
    // Outside a 2x2 level every tap is border: the pixel is the border colour as given,
    // neither sRGB-decoded nor spread like a luminance texel.
    let c = [[-0.9, -0.9, 0.5, 0.0]];
    let g = || vec![Group::plain(c.to_vec())];
    for f in [
        Format::B8G8R8A8_SRGB,
        Format::L8_UNORM,
        Format::B5G6R5_UNORM,
    ] {
        let bpe = f.info().bytes_per_el;
        let mem = Image::new(MemLayout::LINEAR, bpe, (2, 2, 1), 1, |_, _, _, _| {
            0x1234_5678
        })
        .memory();
        let st = TexState {
            format: f,
            wrap_s: AddrMode::CLAMP_TO_BORDER,
            wrap_t: AddrMode::CLAMP_TO_BORDER,
            border_r: 11,
            border_g: 128,
            border_b: 201,
            border_a: 7,
            ..plain(2, 2, Filter::LINEAR)
        };
        assert_eq!(
            render(st, &mem, Opcode::TEX, &g()),
            [[11, 128, 201, 7]],
            "{f:?}"
        );
    }
    // A depth border is border_r / 255 as a depth: (b, b, b, 1).
    let mem = Image::new(MemLayout::LINEAR, 2, (2, 2, 1), 1, |_, _, _, _| 0x1234).memory();
    let st = TexState {
        format: Format::Z16_UNORM,
        wrap_s: AddrMode::CLAMP_TO_BORDER,
        wrap_t: AddrMode::CLAMP_TO_BORDER,
        border_r: 90,
        border_g: 1,
        border_b: 2,
        border_a: 3,
        ..plain(2, 2, Filter::NEAREST)
    };
    assert_eq!(render(st, &mem, Opcode::TEX, &g()), [[90, 90, 90, 255]]);
}

#[test]
fn cube_faces_clamp_to_the_edge_even_under_border() {
    let mut rng = Rng(41);
    let mem: Vec<u8> = (0..6 * 4096).map(|_| rng.next() as u8).collect();
    let run = |m: AddrMode| {
        let st = TexState {
            cube: true,
            width_m1: 3,
            height_m1: 3,
            wrap_s: m,
            wrap_t: m,
            border_r: 1,
            border_g: 2,
            border_b: 3,
            border_a: 4,
            ..plain(4, 4, Filter::LINEAR)
        };
        let coords: Vec<[f32; 4]> = (0..64)
            .map(|k| {
                let a = k as f32 * 0.37;
                [a.cos(), (a * 1.3).sin(), (a * 0.7).cos() - 0.2, 0.0]
            })
            .collect();
        render(st, &mem, Opcode::TEX, &[Group::plain(coords)])
    };
    let edge = run(AddrMode::CLAMP_TO_EDGE);
    assert_eq!(run(AddrMode::CLAMP_TO_BORDER), edge);
    assert!(!edge.contains(&[1, 2, 3, 4]));
}
