//! The CPU mip generator: exact unorm rounding, packed formats, floats, sRGB, odd sizes,
//! twiddled and linear chains, cube faces, 3D volumes, level windows with everything outside
//! left untouched.

use half::f16;
use sgx_hwdocs::{Format, FormatKind};
use sgx_layout::mipgen::{
    can_generate, downsample, downsample_3d, generate_face_mipmaps, generate_mipmaps,
};
use sgx_layout::{Layout, LayoutError, Target, Template};

mod common;
use common::noise;

/// Channel (lo, bits) tables written out by hand, independent of hwdocs' channel data.
fn unorm_channels(f: Format) -> Option<&'static [(u32, u32)]> {
    Some(match f {
        Format::B8G8R8A8_UNORM
        | Format::B8G8R8X8_UNORM
        | Format::R8G8B8A8_UNORM
        | Format::B8G8R8A8_SRGB
        | Format::R8G8B8A8_SRGB => &[(0, 8), (8, 8), (16, 8), (24, 8)],
        Format::B5G6R5_UNORM => &[(0, 5), (5, 6), (11, 5)],
        Format::B4G4R4A4_UNORM => &[(0, 4), (4, 4), (8, 4), (12, 4)],
        Format::B5G5R5A1_UNORM => &[(0, 5), (5, 5), (10, 5), (15, 1)],
        Format::L8_UNORM | Format::A8_UNORM | Format::I8_UNORM => &[(0, 8)],
        Format::L8A8_UNORM => &[(0, 8), (8, 8)],
        Format::Z16_UNORM => &[(0, 16)],
        // The depth channel; stencil (bits 24..32) is the first tap (`stencil_of`).
        Format::Z24_UNORM_S8_UINT => &[(0, 24)],
        _ => return None,
    })
}

/// A depth-stencil format's stencil bits as the box's first tap keeps them (none otherwise).
fn stencil_of(f: Format, first_tap: u64) -> u64 {
    if f == Format::Z24_UNORM_S8_UINT {
        first_tap & 0xFF00_0000
    } else {
        0
    }
}

fn texel(img: &[u8], i: usize, bpe: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..bpe].copy_from_slice(&img[i * bpe..][..bpe]);
    u64::from_le_bytes(b)
}

/// The expected next level of a `w x h` level, computed the plain way: a 2D level is a volume
/// one slice deep ([`expected_3d`]).
fn expected(f: Format, img: &[u8], w: usize, h: usize) -> Vec<u8> {
    expected_3d(f, img, w, h, 1)
}

/// IEC 61966-2-1 decode of an 8-bit sRGB value.
fn srgb_decode(v: u64) -> f64 {
    let c = v as f64 / 255.0;
    if c > 0.04045 {
        ((c + 0.055) / 1.055).powf(2.4)
    } else {
        c / 12.92
    }
}

/// IEC 61966-2-1 encode to 8 bits, to nearest.
fn srgb_encode(l: f64) -> u64 {
    let c = if l > 0.0031308 {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    } else {
        12.92 * l
    };
    (c * 255.0).round() as u64
}

/// The expected next level of a `w x h x d` volume, the plain way: each destination texel is
/// the mean of the *distinct* source texels of its box (a side of 1 contributes one
/// coordinate, an odd side drops its last), per channel in f64: unorm and alpha rounded half
/// up, sRGB colour decoded, averaged and encoded, floats rounded into their format.
fn expected_3d(f: Format, img: &[u8], w: usize, h: usize, d: usize) -> Vec<u8> {
    let bpe = f.info().bytes_per_el as usize;
    let half = |n: usize| (n / 2).max(1);
    let taps = |n: usize, i: usize| {
        if n == 1 {
            vec![0]
        } else {
            vec![2 * i, 2 * i + 1]
        }
    };
    let mut out = Vec::new();
    for z in 0..half(d) {
        for y in 0..half(h) {
            for x in 0..half(w) {
                let mut t = Vec::new();
                for &zz in &taps(d, z) {
                    for &yy in &taps(h, y) {
                        for &xx in &taps(w, x) {
                            t.push(texel(img, (zz * h + yy) * w + xx, bpe));
                        }
                    }
                }
                let n = t.len() as f64;
                let v: u64 = match f {
                    Format::R16_FLOAT => {
                        let s: f64 = t.iter().map(|&v| f16::from_bits(v as u16).to_f64()).sum();
                        u64::from(f16::from_f64(s / n).to_bits())
                    }
                    Format::R32_FLOAT => {
                        let s: f64 = t.iter().map(|&v| f64::from(f32::from_bits(v as u32))).sum();
                        u64::from(((s / n) as f32).to_bits())
                    }
                    _ => {
                        unorm_channels(f)
                            .unwrap()
                            .iter()
                            .map(|&(lo, bits)| {
                                let m = (1u64 << bits) - 1;
                                let ch = t.iter().map(|v| (v >> lo) & m);
                                // B8G8R8A8_SRGB, R8G8B8A8_SRGB: alpha is the top byte.
                                let srgb =
                                    matches!(f, Format::B8G8R8A8_SRGB | Format::R8G8B8A8_SRGB);
                                let v = if srgb && lo != 24 {
                                    srgb_encode(ch.map(srgb_decode).sum::<f64>() / n)
                                } else {
                                    (ch.sum::<u64>() as f64 / n + 0.5).floor() as u64
                                };
                                v << lo
                            })
                            .sum::<u64>()
                            + stencil_of(f, t[0])
                    }
                };
                out.extend_from_slice(&v.to_le_bytes()[..bpe]);
            }
        }
    }
    out
}

/// A source image; float formats get finite values.
fn source(f: Format, n_px: usize, seed: u64) -> Vec<u8> {
    match f {
        Format::R16_FLOAT => (0..n_px)
            .flat_map(|i| {
                f16::from_f32(((i as u64 * 37 + seed) % 2001) as f32 / 64.0 - 10.0)
                    .to_bits()
                    .to_le_bytes()
            })
            .collect(),
        Format::R32_FLOAT => (0..n_px)
            .flat_map(|i| {
                (((i as u64 * 7919 + seed) % 100_003) as f32 / 3.0 - 1000.0)
                    .to_bits()
                    .to_le_bytes()
            })
            .collect(),
        _ => noise(n_px * f.info().bytes_per_el as usize, seed),
    }
}

fn generatable() -> Vec<Format> {
    Format::ALL
        .iter()
        .copied()
        .filter(|&f| can_generate(f))
        .collect()
}

#[test]
fn every_sampleable_uncompressed_format_is_generatable() {
    // Generatable = sampleable formats, depth ones included (filtered as unorm).
    let want: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().sampleable)
        .collect();
    assert_eq!(generatable(), want);
    // 10 unorm, 2 float, 2 sRGB, 2 depth.
    assert_eq!(generatable().len(), 16);
    assert!(can_generate(Format::B8G8R8A8_SRGB));
    assert!(can_generate(Format::Z16_UNORM));
}

/// Depth filters as unorm at its own width ((a + b + c + d + 2) / 4); stencil keeps the box's
/// top-left tap. An odd side drops its last column, as for colour.
#[test]
fn depth_filters_as_unorm_and_stencil_keeps_its_first_tap() {
    let z16: Vec<u8> = [0u16, 1, 0xFFFF, 7, 2, 3, 0xFFFE, 9, 100, 200, 300, 400]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    // 3x2 (rows 0 1 65535 / 7 2 3... laid as w = 3): columns 0-1 only.
    let out = downsample(Format::Z16_UNORM, &z16[..12], 3, 2).unwrap();
    // (0 + 1 + 7 + 2 + 2) / 4 = 3.
    assert_eq!(out, 3u16.to_le_bytes());
    let z24s8 = |z: u32, s: u32| (z | (s << 24)).to_le_bytes();
    let src: Vec<u8> = [
        z24s8(0x00FF_FFFF, 0xA5),
        z24s8(0x00FF_FFFE, 0x01),
        z24s8(0x0000_0001, 0x02),
        z24s8(0x0000_0000, 0x03),
    ]
    .concat();
    let out = downsample(Format::Z24_UNORM_S8_UINT, &src, 2, 2).unwrap();
    // (0xFFFFFF + 0xFFFFFE + 1 + 0 + 2) / 4 = 0x800000; stencil 0xA5 from the first tap.
    assert_eq!(out, z24s8(0x0080_0000, 0xA5));
    let f = Format::Z24_UNORM_S8_UINT;
    assert_eq!(
        downsample_3d(f, &[src.clone(), src].concat(), 2, 2, 2).unwrap(),
        out
    );
}

#[test]
fn srgb_averages_in_linear_space() {
    // Black and white: linear mean 0.5 encodes to 0.7354 * 255 = 187.5 -> 188 (unorm would give
    // 128); alpha is linear: (0 + 255 + 0 + 255 + 2) / 4 = 128.
    let img = [0, 0, 0, 0, 255, 255, 255, 255];
    assert_eq!(
        downsample(Format::B8G8R8A8_SRGB, &img, 2, 1).unwrap(),
        vec![188, 188, 188, 128]
    );
    assert_eq!(
        downsample(Format::B8G8R8A8_UNORM, &img, 2, 1).unwrap(),
        vec![128, 128, 128, 128]
    );
    // The same through the 2x2x2 box: eight texels, four black and four white.
    let vol: Vec<u8> = (0..8).flat_map(|i| [255 * (i & 1) as u8; 4]).collect();
    assert_eq!(
        downsample_3d(Format::B8G8R8A8_SRGB, &vol, 2, 2, 2).unwrap(),
        vec![188, 188, 188, 128]
    );
    // A uniform box is a fixed point for every value (decode then encode round-trips).
    for v in 0..=255u8 {
        let img = [v, v, v, v].repeat(4);
        assert_eq!(
            downsample(Format::B8G8R8A8_SRGB, &img, 2, 2).unwrap(),
            vec![v; 4]
        );
    }
}

#[test]
fn volumes_match_the_plain_computation() {
    let sizes = [
        (2, 2, 2),
        (5, 3, 7),
        (1, 1, 6),
        (4, 1, 3),
        (1, 5, 1),
        (7, 7, 2),
        (3, 2, 1),
        (1, 1, 1),
        (2, 1, 2),
        (9, 4, 5),
    ];
    for f in generatable() {
        for (w, h, d) in sizes {
            let img = source(f, w * h * d, (w * 1000 + h * 10 + d) as u64);
            let got = downsample_3d(f, &img, w as u32, h as u32, d as u32).unwrap();
            assert_eq!(got, expected_3d(f, &img, w, h, d), "{f:?} {w}x{h}x{d}");
            if d == 1 {
                // A volume of one slice is the 2D box.
                assert_eq!(got, downsample(f, &img, w as u32, h as u32).unwrap());
            }
        }
    }
    // 1x1x2: two slices of one L8 texel average; 2x1x2 averages four.
    assert_eq!(
        downsample_3d(Format::L8_UNORM, &[10, 13], 1, 1, 2).unwrap(),
        vec![12]
    );
    assert_eq!(
        downsample_3d(Format::L8_UNORM, &[1, 2, 3, 5], 2, 1, 2).unwrap(),
        vec![3]
    );
    // An odd depth drops its last slice.
    assert_eq!(
        downsample_3d(Format::L8_UNORM, &[4, 8, 255], 1, 1, 3).unwrap(),
        vec![6]
    );
    assert!(matches!(
        downsample_3d(Format::L8_UNORM, &[0; 7], 2, 2, 2),
        Err(LayoutError::BufferTooSmall { .. })
    ));
    assert!(matches!(
        downsample_3d(Format::L8_UNORM, &[0; 8], 2, 2, 0),
        Err(LayoutError::ZeroDepth { .. })
    ));
}

#[test]
fn unorm_rounds_exactly() {
    // (1 + 2 + 2 + 2 + 2) / 4 = 1.75 -> 2; (0 + 0 + 1 + 1 + 2) / 4 = 0.5 -> 1; 1 + 0 + 0 + 0 -> 0.
    let b = [1, 0, 1, 255, 2, 0, 0, 255, 2, 1, 0, 255, 2, 1, 0, 254];
    assert_eq!(
        downsample(Format::B8G8R8A8_UNORM, &b, 2, 2).unwrap(),
        vec![2, 1, 0, 255]
    );
    // 565: red 31,31,31,30 -> 31 (123 + 2) / 4; green 63,0,0,0 -> 16; blue 1,1,0,0 -> 1.
    let px = |r: u16, g: u16, b: u16| (b | g << 5 | r << 11).to_le_bytes();
    let img: Vec<u8> = [px(31, 63, 1), px(31, 0, 1), px(31, 0, 0), px(30, 0, 0)].concat();
    assert_eq!(
        downsample(Format::B5G6R5_UNORM, &img, 2, 2).unwrap(),
        px(31, 16, 1).to_vec()
    );
    // 1555 alpha: two of four set -> (2 + 2) / 4 = 1; one set -> 0.
    let a = |v: u16| (v << 15).to_le_bytes();
    let quad = |alphas: [u16; 4]| {
        let img = alphas.map(a).concat();
        downsample(Format::B5G5R5A1_UNORM, &img, 2, 2).unwrap()
    };
    assert_eq!(quad([1, 1, 0, 0]), a(1).to_vec());
    assert_eq!(quad([1, 0, 0, 0]), a(0).to_vec());
    // Floats average.
    let h: Vec<u8> = [1.0f32, 2.0, 3.0, 4.5]
        .iter()
        .flat_map(|&v| f16::from_f32(v).to_bits().to_le_bytes())
        .collect();
    assert_eq!(
        downsample(Format::R16_FLOAT, &h, 2, 2).unwrap(),
        f16::from_f32(2.625).to_bits().to_le_bytes()
    );
    let f: Vec<u8> = [1.0f32, -2.0, 0.5, 8.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(
        downsample(Format::R32_FLOAT, &f, 2, 2).unwrap(),
        1.875f32.to_le_bytes()
    );
}

#[test]
fn every_format_and_odd_size_matches_the_plain_computation() {
    for f in generatable() {
        for (w, h) in [
            (2, 2),
            (8, 8),
            (5, 3),
            (7, 1),
            (1, 6),
            (1, 1),
            (33, 17),
            (16, 4),
        ] {
            let img = source(f, w * h, (w * 100 + h) as u64);
            let got = downsample(f, &img, w as u32, h as u32).unwrap();
            assert_eq!(got, expected(f, &img, w, h), "{f:?} {w}x{h}");
        }
    }
    // A 1-wide side averages two texels: rows 0+1 and 2+3 of an L8 column.
    assert_eq!(
        downsample(Format::L8_UNORM, &[10, 13, 200, 0], 1, 4).unwrap(),
        vec![12, 100]
    );
    assert_eq!(
        downsample(Format::L8_UNORM, &[10, 13, 200, 0], 4, 1).unwrap(),
        vec![12, 100]
    );
    // An odd side drops its last column.
    assert_eq!(
        downsample(Format::L8_UNORM, &[4, 8, 255, 4, 8, 255], 3, 2).unwrap(),
        vec![6]
    );
}

/// Generates `base..=last` over a noisy allocation and checks every byte of it.
fn check_chain(t: Template, base: u32, last: u32, seed: u64) {
    let l = Layout::new(&t).unwrap();
    let f = l.format;
    let mut alloc = noise(l.size_B as usize + 64, seed);
    for face in 0..l.faces {
        for level in 0..l.level_count() {
            let lv = &l.levels[level as usize];
            let e = lv.extent_px;
            l.write_level(
                &mut alloc,
                face,
                level,
                &source(
                    f,
                    (e.w * e.h * lv.depth_px) as usize,
                    seed + u64::from(face * 16 + level),
                ),
            )
            .unwrap();
        }
    }
    let before = alloc.clone();
    generate_mipmaps(&l, &mut alloc, base, last).unwrap();

    let mut want = before.clone();
    for face in 0..l.faces {
        let mut cur = l.read_level(&before, face, base).unwrap();
        for level in base + 1..=last {
            let lv = &l.levels[level as usize - 1];
            let e = lv.extent_px;
            cur = if l.target == Target::Tex3D {
                expected_3d(f, &cur, e.w as usize, e.h as usize, lv.depth_px as usize)
            } else {
                expected(f, &cur, e.w as usize, e.h as usize)
            };
            l.write_level(&mut want, face, level, &cur).unwrap();
        }
    }
    let ctx = format!(
        "{f:?} {}x{}x{} {:?} window {base}..={last}",
        l.width_px, l.height_px, l.depth_px, l.target
    );
    // `want` differs from `before` only in the generated levels' texels: everything else (other
    // levels, row padding, face padding, bytes past the allocation) must be unchanged.
    let window = l
        .window(base + 1, last.max(base + 1).min(l.level_count() - 1))
        .unwrap();
    for i in 0..alloc.len() {
        assert_eq!(alloc[i], want[i], "byte {i}, {ctx}");
        if want[i] != before[i] {
            assert!(
                base < last && window.contains_B(i as u64),
                "expected change outside the window at {i}, {ctx}"
            );
        }
    }
}

#[test]
fn twiddled_linear_and_cube_chains() {
    let b = Format::B8G8R8A8_UNORM;
    check_chain(Template::new_2d(b, 64, 64).with_full_chain(), 0, 6, 1);
    check_chain(Template::new_2d(b, 64, 16).with_full_chain(), 0, 6, 2);
    check_chain(Template::new_2d(b, 48, 20).with_full_chain(), 0, 5, 3);
    check_chain(Template::new_2d(b, 1, 37).with_full_chain(), 0, 5, 4);
    check_chain(Template::new_cube(b, 32).with_full_chain(), 0, 5, 5);
    check_chain(Template::new_cube(b, 24).with_full_chain(), 0, 4, 6);
    for (i, f) in generatable().into_iter().enumerate() {
        check_chain(
            Template::new_2d(f, 32, 8).with_full_chain(),
            0,
            5,
            10 + i as u64,
        );
        check_chain(
            Template::new_2d(f, 20, 12).with_full_chain(),
            0,
            4,
            30 + i as u64,
        );
    }
}

#[test]
fn volume_chains() {
    let b = Format::B8G8R8A8_UNORM;
    // Twiddled slices; depth below, equal to and above the sides; linear slices.
    check_chain(Template::new_3d(b, 16, 16, 8).with_full_chain(), 0, 4, 41);
    check_chain(Template::new_3d(b, 8, 8, 8).with_full_chain(), 0, 3, 42);
    check_chain(Template::new_3d(b, 4, 4, 32).with_full_chain(), 0, 5, 43);
    check_chain(Template::new_3d(b, 1, 1, 9).with_full_chain(), 0, 3, 44);
    check_chain(Template::new_3d(b, 20, 12, 5).with_full_chain(), 0, 4, 45);
    check_chain(Template::new_3d(b, 1, 7, 3).with_full_chain(), 0, 2, 46);
    // Windows: levels outside them untouched.
    check_chain(Template::new_3d(b, 16, 16, 8).with_full_chain(), 1, 3, 47);
    check_chain(Template::new_3d(b, 20, 12, 5).with_full_chain(), 2, 2, 48);
    // Depth formats have no volumes.
    let colour = generatable()
        .into_iter()
        .filter(|f| !matches!(f.info().kind, FormatKind::Depth | FormatKind::DepthStencil));
    for (i, f) in colour.enumerate() {
        check_chain(
            Template::new_3d(f, 8, 4, 6).with_full_chain(),
            0,
            3,
            60 + i as u64,
        );
        check_chain(
            Template::new_3d(f, 6, 5, 3).with_full_chain(),
            0,
            2,
            80 + i as u64,
        );
    }
}

#[test]
fn srgb_chains() {
    let s = Format::B8G8R8A8_SRGB;
    check_chain(Template::new_2d(s, 32, 32).with_full_chain(), 0, 5, 91);
    check_chain(Template::new_2d(s, 19, 10).with_full_chain(), 1, 4, 92);
    check_chain(Template::new_cube(s, 8).with_full_chain(), 0, 3, 93);
}

#[test]
fn windows_leave_other_levels_untouched() {
    let b = Format::B8G8R8A8_UNORM;
    check_chain(Template::new_2d(b, 64, 64).with_full_chain(), 2, 4, 7);
    check_chain(Template::new_2d(b, 256, 256).with_full_chain(), 4, 8, 8);
    check_chain(Template::new_cube(b, 64).with_full_chain(), 1, 3, 9);
    check_chain(Template::new_2d(b, 64, 64).with_full_chain(), 3, 3, 10);
}

#[test]
fn one_face_and_errors() {
    let l = Layout::new(&Template::new_cube(Format::B8G8R8A8_UNORM, 16).with_full_chain()).unwrap();
    let mut alloc = noise(l.size_B as usize, 3);
    let before = alloc.clone();
    generate_face_mipmaps(&l, &mut alloc, 4, 0, 4).unwrap();
    let face4 = l.window(1, 4).unwrap().ranges_B[4].clone();
    for i in 0..alloc.len() {
        if !face4.contains(&(i as u64)) {
            assert_eq!(alloc[i], before[i]);
        }
    }
    assert_ne!(alloc, before);
    assert!(matches!(
        generate_face_mipmaps(&l, &mut alloc, 6, 0, 4),
        Err(LayoutError::FaceOutOfRange { .. })
    ));
    assert!(matches!(
        generate_mipmaps(&l, &mut alloc, 0, 5),
        Err(LayoutError::BadWindow { .. })
    ));
    assert!(matches!(
        generate_mipmaps(&l, &mut alloc[..100], 0, 4),
        Err(LayoutError::BufferTooSmall { .. })
    ));
    let z = Layout::new(&Template::new_2d(Format::A8_UNORM, 16, 16).with_full_chain()).unwrap();
    let mut za = vec![0u8; z.size_B as usize];
    assert!(generate_mipmaps(&z, &mut za, 0, 4).is_ok());
}
