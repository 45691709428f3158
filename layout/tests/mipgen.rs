//! The CPU mip generator: exact unorm rounding, packed formats, floats, odd sizes, twiddled
//! and linear chains, cube faces, level windows with everything outside left untouched.

use half::f16;
use sgx_hwdocs::Format;
use sgx_layout::mipgen::{can_generate, downsample, generate_face_mipmaps, generate_mipmaps};
use sgx_layout::{Layout, LayoutError, Template};

fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// Channel (lo, bits) tables written out by hand, independent of hwdocs' channel data.
fn unorm_channels(f: Format) -> Option<&'static [(u32, u32)]> {
    Some(match f {
        Format::B8G8R8A8_UNORM | Format::B8G8R8X8_UNORM | Format::R8G8B8A8_UNORM => {
            &[(0, 8), (8, 8), (16, 8), (24, 8)]
        }
        Format::B5G6R5_UNORM => &[(0, 5), (5, 6), (11, 5)],
        Format::B4G4R4A4_UNORM => &[(0, 4), (4, 4), (8, 4), (12, 4)],
        Format::B5G5R5A1_UNORM => &[(0, 5), (5, 5), (10, 5), (15, 1)],
        Format::L8_UNORM | Format::A8_UNORM | Format::I8_UNORM => &[(0, 8)],
        Format::L8A8_UNORM => &[(0, 8), (8, 8)],
        _ => return None,
    })
}

fn texel(img: &[u8], i: usize, bpe: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..bpe].copy_from_slice(&img[i * bpe..][..bpe]);
    u64::from_le_bytes(b)
}

/// The expected next level, computed the plain way.
fn expected(f: Format, img: &[u8], w: usize, h: usize) -> Vec<u8> {
    let bpe = f.info().bytes_per_el as usize;
    let (dw, dh) = ((w / 2).max(1), (h / 2).max(1));
    let mut out = Vec::new();
    for y in 0..dh {
        for x in 0..dw {
            let xs = if w == 1 { [0, 0] } else { [2 * x, 2 * x + 1] };
            let ys = if h == 1 { [0, 0] } else { [2 * y, 2 * y + 1] };
            let t: Vec<u64> = ys
                .iter()
                .flat_map(|&yy| xs.iter().map(move |&xx| yy * w + xx))
                .map(|i| texel(img, i, bpe))
                .collect();
            let v: u64 = match f {
                Format::R16_FLOAT => {
                    let s: f32 = t.iter().map(|&v| f16::from_bits(v as u16).to_f32()).sum();
                    u64::from(f16::from_f32(s / 4.0).to_bits())
                }
                Format::R32_FLOAT => {
                    let s: f64 = t.iter().map(|&v| f64::from(f32::from_bits(v as u32))).sum();
                    u64::from(((s / 4.0) as f32).to_bits())
                }
                _ => unorm_channels(f)
                    .unwrap()
                    .iter()
                    .map(|&(lo, bits)| {
                        let m = (1u64 << bits) - 1;
                        ((t.iter().map(|v| (v >> lo) & m).sum::<u64>() + 2) / 4) << lo
                    })
                    .sum(),
            };
            out.extend_from_slice(&v.to_le_bytes()[..bpe]);
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
    let want: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().sampleable)
        .collect();
    assert_eq!(generatable(), want);
    assert_eq!(generatable().len(), 12);
    assert!(!can_generate(Format::Z16_UNORM));
    assert!(matches!(
        downsample(Format::Z16_UNORM, &[0; 8], 2, 2),
        Err(LayoutError::MipFormat { .. })
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
    assert_eq!(
        downsample(
            Format::B5G5R5A1_UNORM,
            &[a(1), a(1), a(0), a(0)].concat(),
            2,
            2
        )
        .unwrap(),
        a(1).to_vec()
    );
    assert_eq!(
        downsample(
            Format::B5G5R5A1_UNORM,
            &[a(1), a(0), a(0), a(0)].concat(),
            2,
            2
        )
        .unwrap(),
        a(0).to_vec()
    );
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
            let e = l.levels[level as usize].extent_px;
            l.write_level(
                &mut alloc,
                face,
                level,
                &source(f, (e.w * e.h) as usize, seed + u64::from(face * 16 + level)),
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
            let e = l.levels[level as usize - 1].extent_px;
            cur = expected(f, &cur, e.w as usize, e.h as usize);
            l.write_level(&mut want, face, level, &cur).unwrap();
        }
    }
    let ctx = format!(
        "{f:?} {}x{} {:?} window {base}..={last}",
        l.width_px, l.height_px, l.target
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
    let z = Layout::new(&Template::new_2d(Format::Z16_UNORM, 16, 16).with_full_chain()).unwrap();
    let mut za = vec![0u8; z.size_B as usize];
    assert!(matches!(
        generate_mipmaps(&z, &mut za, 0, 4),
        Err(LayoutError::MipFormat { .. })
    ));
}
