//! sRGB decode (per texel, before filtering, alpha linear) and depth decode ((d, d, d, 1),
//! stencil ignored) on whole renders.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::texture::{AddrMode, Filter, TexState};
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::*;

/// IEC 61966-2-1 sRGB -> linear of an 8-bit code, in f64, rounded once to f32.
fn iec(k: u32) -> f32 {
    let c = f64::from(k) / 255.0;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

/// B8G8R8A8 element of texel k of the 16x16 test image: R = k, G = 255 - k, B = 7k, A = k.
fn srgb_el(k: u32) -> u32 {
    let (r, g, b, a) = (k, 255 - k, (k * 7) & 0xff, k);
    b | g << 8 | r << 16 | a << 24
}

fn centres(w: u32, h: u32) -> Vec<[f32; 4]> {
    (0..w * h)
        .map(|k| {
            let (x, y) = (k % w, k / w);
            [
                (x as f32 + 0.5) / w as f32,
                (y as f32 + 0.5) / h as f32,
                0.0,
                0.0,
            ]
        })
        .collect()
}

#[test]
fn srgb_nearest_decodes_all_256_codes_by_the_formula() {
    for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
        let img = Image::new(layout, 4, (16, 16, 1), 1, |_, x, y, _| srgb_el(y * 16 + x));
        let st = TexState {
            format: Format::B8G8R8A8_SRGB,
            layout,
            ..plain(16, 16, Filter::NEAREST)
        };
        let coords = centres(16, 16);
        let got = render(
            st,
            &img.memory(),
            Opcode::TEX,
            &[Group::plain(coords.clone())],
        );
        let want: Vec<[u8; 4]> = (0..256u32)
            .map(|k| {
                let (r, g, b, a) = (k, 255 - k, (k * 7) & 0xff, k);
                bytes_of([iec(r), iec(g), iec(b), a as f32 / 255.0])
            })
            .collect();
        assert_pixels(&format!("sRGB {layout:?}"), &got, &want, &coords);
        // Alpha is linear: the byte comes back unchanged.
        assert!(got.iter().enumerate().all(|(k, p)| p[3] == k as u8));
    }
}

#[test]
fn srgb_is_decoded_before_filtering() {
    // A 2x1 level of black and white: halfway is linear 0.5 (byte 128), not the sRGB
    // midpoint's decode (0.212, byte 54).
    let img = Image::new(MemLayout::LINEAR, 4, (2, 1, 1), 1, |_, x, _, _| {
        if x == 0 {
            0x0000_0000
        } else {
            0xffff_ffff
        }
    });
    let st = TexState {
        format: Format::B8G8R8A8_SRGB,
        wrap_s: AddrMode::CLAMP_TO_EDGE,
        ..plain(2, 1, Filter::LINEAR)
    };
    let coords: Vec<[f32; 4]> = (0..=16)
        .map(|k| [0.25 + k as f32 / 32.0, 0.5, 0.0, 0.0])
        .collect();
    let got = check_tex("sRGB bilinear", st, &img.memory(), &coords, |c| {
        let (x, a) = foot(c[0], 2);
        let t = |x: i64| if x <= 0 { [0.0; 4] } else { [1.0; 4] };
        bytes_of(lerp(t(x), t(x + 1), a))
    });
    assert_eq!(got[8], [128; 4]);
}

#[test]
fn depth_formats_read_d_d_d_1_with_stencil_ignored() {
    let mut rng = Rng(99);
    let z16: Vec<u32> = (0..64).map(|_| rng.next() & 0xffff).collect();
    let z24: Vec<u32> = (0..64).map(|_| rng.next()).collect();
    for (format, bpe, els, mask, max) in [
        (Format::Z16_UNORM, 2, z16, 0xffff, 65_535.0f32),
        (Format::Z24_UNORM_S8_UINT, 4, z24, 0xff_ffff, 16_777_215.0),
    ] {
        let e = els.clone();
        let img = Image::new(MemLayout::LINEAR, bpe, (8, 8, 1), 1, move |_, x, y, _| {
            e[(y * 8 + x) as usize]
        });
        let d = |x: u32, y: u32| (els[(y * 8 + x) as usize] & mask) as f32 / max;
        for f in [Filter::NEAREST, Filter::LINEAR] {
            let st = TexState {
                format,
                ..plain(8, 8, f)
            };
            let mut coords = centres(8, 8);
            coords.extend((0..64).map(|_| [rng.f(-0.2, 1.2), rng.f(-0.2, 1.2), 0.0, 0.0]));
            check_tex(
                &format!("{format:?} {f:?}"),
                st,
                &img.memory(),
                &coords,
                |c| {
                    let t = |x: i64, y: i64| {
                        // REPEAT, the default wrap.
                        let v = d(x.rem_euclid(8) as u32, y.rem_euclid(8) as u32);
                        [v, v, v, 1.0]
                    };
                    bytes_of(if f == Filter::NEAREST {
                        t((c[0] * 8.0).floor() as i64, (c[1] * 8.0).floor() as i64)
                    } else {
                        let ((x, ax), (y, ay)) = (foot(c[0], 8), foot(c[1], 8));
                        let top = lerp(t(x, y), t(x + 1, y), ax);
                        let bot = lerp(t(x, y + 1), t(x + 1, y + 1), ax);
                        lerp(top, bot, ay)
                    })
                },
            );
        }
    }
}
