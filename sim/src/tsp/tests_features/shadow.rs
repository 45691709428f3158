//! Shadow compare: reference c.z (2D) or c.w (cube) clamped to [0, 1], each tap compared,
//! then filtered (PCF), (c, c, c, 1) before the swizzle; stencil bits never take part.

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::texture::{AddrMode, Filter, Swizzle, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::*;

/// Depth codes of the test level (w x h), spread over the whole range.
fn z_of(x: u32, y: u32, bits: u32) -> u32 {
    let max = (1u64 << bits) - 1;
    ((u64::from(x * 5 + y * 3) * max) / 24) as u32
}

fn passes(f: CompareFunc, r: f32, d: f32) -> bool {
    match f {
        CompareFunc::NEVER => false,
        CompareFunc::LESS => r < d,
        CompareFunc::EQUAL => r == d,
        CompareFunc::LEQUAL => r <= d,
        CompareFunc::GREATER => r > d,
        CompareFunc::NOTEQUAL => r != d,
        CompareFunc::GEQUAL => r >= d,
        CompareFunc::ALWAYS => true,
    }
}

/// The CPU model of a compared 2D sample: per tap 1 or 0, bilinear weights, (c, c, c, 1).
fn model(
    st: &TexState,
    (w, h): (u32, u32),
    depth: &dyn Fn(u32, u32) -> f32,
    c: [f32; 4],
) -> [f32; 4] {
    let r = c[2].clamp(0.0, 1.0);
    let border = st.border_r as f32 / 255.0;
    let tap = |x: i64, y: i64| {
        let d = match (axis(x, w, st.wrap_s), axis(y, h, st.wrap_t)) {
            (Some(x), Some(y)) => depth(x, y),
            _ => border,
        };
        let v = if passes(st.compare_func, r, d) {
            1.0
        } else {
            0.0
        };
        [v, v, v, 1.0]
    };
    filter_2d(st, (w, h), c, tap)
}

#[test]
fn every_compare_func_nearest_and_pcf_match_the_cpu_model() {
    let (w, h) = (4, 4);
    let mut rng = Rng(0x5ad0);
    for (format, bits, bpe) in [
        (Format::Z16_UNORM, 16, 2),
        (Format::Z24_UNORM_S8_UINT, 24, 4),
    ] {
        let max = ((1u64 << bits) - 1) as f32;
        let depth = move |x: u32, y: u32| z_of(x, y, bits) as f32 / max;
        // Stencil bits set at random in Z24S8: they must not change a thing.
        let mut srng = Rng(7);
        let stencil: Vec<u32> = (0..16).map(|_| srng.next() & 0xff00_0000).collect();
        let img = Image::new(MemLayout::LINEAR, bpe, (w, h, 1), 1, move |_, x, y, _| {
            z_of(x, y, bits)
                | if bits == 24 {
                    stencil[(y * 4 + x) as usize]
                } else {
                    0
                }
        });
        let mem = img.memory();
        // References below, at and above texel depths (exactly equal ones included, for EQUAL),
        // and outside [0, 1] (clamped).
        let mut coords: Vec<[f32; 4]> = Vec::new();
        for k in 0..120 {
            let (s, t) = (rng.f(-0.2, 1.2), rng.f(-0.2, 1.2));
            let r = match k % 4 {
                0 => depth(rng.next() % 4, rng.next() % 4),
                1 => rng.f(0.0, 1.0),
                2 => rng.f(-0.5, 0.1),
                _ => rng.f(0.9, 1.6),
            };
            coords.push([s, t, r, 0.0]);
        }
        for func in CompareFunc::ALL.iter().copied() {
            for f in [Filter::NEAREST, Filter::LINEAR] {
                let st = TexState {
                    format,
                    compare: true,
                    compare_func: func,
                    wrap_s: AddrMode::CLAMP_TO_EDGE,
                    wrap_t: AddrMode::CLAMP_TO_BORDER,
                    border_r: 128,
                    ..plain(w, h, f)
                };
                let got = check_tex(
                    &format!("{format:?} {func:?} {f:?}"),
                    st,
                    &mem,
                    &coords,
                    |c| bytes_of(model(&st, (w, h), &depth, c)),
                );
                if f == Filter::LINEAR && func == CompareFunc::LEQUAL {
                    // PCF: some pixels are neither fully lit nor fully shadowed.
                    assert!(got.iter().any(|p| p[0] != 0 && p[0] != 255));
                }
            }
        }
    }
}

#[test]
fn compare_result_goes_through_the_swizzle_and_equal_ignores_stencil() {
    // Z24S8, every texel the same depth code with a different stencil byte: EQUAL against
    // exactly that depth passes for every tap.
    let z = 0x7a_bcdeu32;
    let d = z as f32 / 16_777_215.0;
    let img = Image::new(MemLayout::LINEAR, 4, (4, 4, 1), 1, move |_, x, y, _| {
        z | ((x * 4 + y + 1) * 15) << 24
    });
    let st = TexState {
        format: Format::Z24_UNORM_S8_UINT,
        compare: true,
        compare_func: CompareFunc::EQUAL,
        swz_r: Swizzle::A,
        swz_g: Swizzle::ZERO,
        swz_b: Swizzle::R,
        swz_a: Swizzle::G,
        ..plain(4, 4, Filter::LINEAR)
    };
    let coords = vec![
        [0.3, 0.7, d, 0.0],
        [0.3, 0.7, f32::from_bits(d.to_bits() + 1), 0.0],
    ];
    let got = render(st, &img.memory(), Opcode::TEX, &[Group::plain(coords)]);
    assert_eq!(got, [[255, 0, 255, 255], [255, 0, 0, 0]]);
}

#[test]
fn a_cube_compares_against_c_w() {
    // Z16 cube, every face 2x2 at depth 0.5: c.z is the direction, c.w the reference.
    let face_B = 4096;
    let mut mem = vec![0u8; 6 * face_B];
    for f in 0..6 {
        // Linear rows of 32 B: two rows cover the level.
        for k in 0..32 {
            mem[f * face_B + 2 * k..][..2].copy_from_slice(&0x8000u16.to_le_bytes());
        }
    }
    let st = TexState {
        format: Format::Z16_UNORM,
        cube: true,
        compare: true,
        compare_func: CompareFunc::LESS,
        ..plain(2, 2, Filter::NEAREST)
    };
    let coords = vec![
        [0.1, 0.2, 1.0, 0.25],
        [0.1, 0.2, 1.0, 0.75],
        [0.1, 0.2, -1.0, 0.25],
        [1.0, 0.2, 0.9, -3.0],
        [1.0, 0.2, 0.1, 2.0],
    ];
    let got = render(st, &mem, Opcode::TEX, &[Group::plain(coords)]);
    let (lit, dark) = ([255, 255, 255, 255], [0, 0, 0, 255]);
    assert_eq!(got, [lit, dark, lit, lit, dark]);
}

#[test]
fn compare_needs_a_depth_format() {
    for f in [
        Format::B8G8R8A8_UNORM,
        Format::R32_FLOAT,
        Format::B8G8R8A8_SRGB,
    ] {
        let st = TexState {
            format: f,
            compare: true,
            ..plain(4, 4, Filter::NEAREST)
        };
        match status_of(st) {
            JobStatus::BadState { reason, .. } => {
                assert!(reason.contains("not a depth format"), "{reason}")
            }
            other => panic!("{f:?}: {other:?}"),
        }
    }
    let st = TexState {
        format: Format::Z16_UNORM,
        compare: true,
        ..plain(4, 4, Filter::NEAREST)
    };
    assert_eq!(status_of(st), JobStatus::Done);
}
