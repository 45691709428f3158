//! The fast texel paths against the decoder and the scalar reference.

use sgx_hwdocs::Format;

use super::super::twiddle;
use super::*;

/// 4 KiB of random texel bytes from `seed`, and the generator, left for offsets and weights.
fn random_texels(seed: u32) -> (Vec<u8>, crate::kit::Rng) {
    let mut rng = crate::kit::Rng(seed);
    let texels = (0..4096).map(|_| rng.next() as u8).collect();
    (texels, rng)
}

/// Blend weights at the edges of [0, 1] and past them, which the bilinear tests try first.
const BLEND_WEIGHTS: [f32; 7] = [0.0, -0.0, 0.5, 0.999_999_94, 1.0, -0.25, 1.5];

/// Two colours bit for bit equal, lane by lane, but that any NaN equals any NaN: NaN payloads
/// follow the operand order LLVM picks for commutative operations (Rust leaves them
/// unspecified, for the reference too), and any NaN colour stores as 0.
fn same(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter()
        .zip(&b)
        .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

#[test]
fn twiddle_splits_into_column_and_row() {
    for (lw, lh) in [
        (0, 0),
        (3, 3),
        (4, 1),
        (1, 4),
        (0, 5),
        (6, 0),
        (11, 11),
        (11, 3),
    ] {
        let (w, h) = (1u32 << lw, 1u32 << lh);
        for y in (0..h).step_by((h as usize / 64).max(1)) {
            for x in (0..w).step_by((w as usize / 64).max(1)) {
                assert_eq!(
                    twiddle_col(x, lw, lh) + twiddle_row(y, lw, lh),
                    twiddle(x, y, lw, lh),
                    "{x},{y} in {lw}x{lh}"
                );
            }
        }
    }
}

/// Elements to decode: every 16-bit value, then a spread of 32-bit ones.
fn elements() -> impl Iterator<Item = u32> {
    (0..=0xffffu32).chain((0..=u32::MAX / 65_521).map(|k| k.wrapping_mul(65_521) ^ 0x5a5a_5a5a))
}

#[test]
fn table_decoders_equal_the_decoder() {
    let mut tabled = 0;
    for &f in Format::ALL.iter().filter(|f| f.info().sampleable) {
        let dec = Decoder::new(f);
        let Some(lut) = Lut::new(&dec) else {
            let wide = dec.ch[..dec.nch].iter().any(|c| c.1 > 8);
            assert!(dec.float || wide, "{f:?} has no table decoder");
            continue;
        };
        tabled += 1;
        for v in elements() {
            let (a, b) = (lut.decode(v), dec.decode(v));
            assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{f:?} {v:#x}");
        }
    }
    assert!(tabled >= 8);
}

#[test]
fn kinds_read_like_the_decoder() {
    let mut seen = Vec::new();
    for &f in Format::ALL.iter().filter(|f| f.info().sampleable) {
        let info = f.info();
        let st = TexState {
            format: f,
            ..TexState::default()
        };
        let dec = Decoder::new(f);
        let fu = FastUnit::new(&st, &dec, info.bytes_per_el);
        seen.push(fu.kind);
        let kind = fu.kind;
        let mut u = TexUnit::blank(st);
        u.fast = fu;
        for v in elements() {
            let b = v.to_le_bytes();
            let p = b.as_ptr();
            // SAFETY: offset 0 of a 4-byte buffer holds any element of up to 4 bytes.
            let got = unsafe {
                match kind {
                    Kind::Bgra8 => Bgra8::at(&u, p, 0),
                    Kind::Rgba8 => Rgba8::at(&u, p, 0),
                    Kind::Bgrx8 => Bgrx8::at(&u, p, 0),
                    Kind::Table | Kind::Decoder => AnyTexel::at(&u, p, 0),
                }
            };
            let mask = if info.bytes_per_el == 4 {
                u32::MAX
            } else {
                (1 << (8 * info.bytes_per_el)) - 1
            };
            let want = dec.decode(v & mask);
            assert_eq!(
                got.map(f32::to_bits),
                want.map(f32::to_bits),
                "{f:?} {v:#x}"
            );
        }
    }
    for k in [
        Kind::Bgra8,
        Kind::Rgba8,
        Kind::Bgrx8,
        Kind::Table,
        Kind::Decoder,
    ] {
        assert!(seen.contains(&k), "no format takes {k:?}");
    }
}

#[test]
fn bilinear_kinds_equal_the_scalar_blend() {
    let (texels, mut rng) = random_texels(0x2545_f491);
    let mut next = move || rng.next();
    let p = texels.as_ptr();
    let u = TexUnit::blank(TexState::default());
    let weights = [
        &BLEND_WEIGHTS[..],
        &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-30],
    ]
    .concat();
    for k in 0..2000 {
        let off = [0, 1, 2, 3].map(|_| (next() % 1023) * 4);
        let ax = if k < 121 {
            weights[k % 11]
        } else {
            (next() >> 8) as f32 / 16_777_216.0
        };
        let ay = if k < 121 {
            weights[k / 11]
        } else {
            (next() >> 8) as f32 / 16_777_216.0
        };
        // SAFETY: every offset + 4 lies inside `texels`.
        unsafe {
            let (f, r) = (
                Bgra8::bilinear(&u, p, off, ax, ay),
                bilinear_scalar::<Bgra8>(&u, p, off, ax, ay),
            );
            assert!(same(f, r), "Bgra8 {off:?} {ax} {ay}: {f:?} vs {r:?}");
            let (f, r) = (
                Rgba8::bilinear(&u, p, off, ax, ay),
                bilinear_scalar::<Rgba8>(&u, p, off, ax, ay),
            );
            assert!(same(f, r), "Rgba8 {off:?} {ax} {ay}: {f:?} vs {r:?}");
            let (f, r) = (
                Bgrx8::bilinear(&u, p, off, ax, ay),
                bilinear_scalar::<Bgrx8>(&u, p, off, ax, ay),
            );
            assert!(
                same(f, r),
                "Bgrx8 {off:?} {ax} {ay}: {:x?} vs {:x?}",
                f.map(f32::to_bits),
                r.map(f32::to_bits)
            );
        }
    }
}

/// Coordinates at the edges of the footprint arithmetic: signed zeros, exact halves, just
/// below 1, a denormal, past 2^23 texels, NaN and the infinities.
#[cfg(target_arch = "x86_64")]
const SPECIAL_F32: [f32; 16] = [
    0.0,
    -0.0,
    0.5,
    1.0,
    -1.0,
    1.0 / 512.0,
    0.999_999_94,
    -0.000_001,
    2.5,
    -7.25,
    1e-40,
    16_384.0,
    1e9,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

/// Draw `k`'s level: the wrap mode pairs in turn; one time in four a power-of-two size below
/// `2^max_log2` (which REPEAT wraps with a mask), else any size up to 600.
#[cfg(target_arch = "x86_64")]
fn random_level<'a>(
    k: usize,
    next: &mut impl FnMut() -> u32,
    tables: &'a [u32],
    max_log2: u32,
    avx2: bool,
) -> Level<'a> {
    let modes = [
        AddrMode::CLAMP_TO_EDGE,
        AddrMode::REPEAT,
        AddrMode::MIRRORED_REPEAT,
    ];
    let (w, h) = if k.is_multiple_of(4) {
        (1 << (next() % max_log2), 1 << (next() % max_log2))
    } else {
        (1 + next() % 600, 1 + next() % 600)
    };
    Level {
        p: std::ptr::null(),
        w,
        h,
        ws: modes[k % 3],
        wt: modes[(k / 3) % 3],
        cols_B: tables,
        rows_B: tables,
        avx2,
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn packed_footprints_equal_the_scalar_ones() {
    let mut rng = crate::kit::Rng(0x7f4a_7c15);
    let mut next = move || rng.next();
    let special = SPECIAL_F32;
    let tables: Vec<u32> = (0..2048).collect();
    let (mut packed, mut total) = (0, 0);
    for k in 0..30_000usize {
        let lv = random_level(k, &mut next, &tables, 11, false);
        let mut pick = || {
            if next() % 4 == 0 {
                special[next() as usize % special.len()]
            } else {
                (next() >> 8) as f32 / 8_388_608.0 - 0.5
            }
        };
        let coord: [[f32; 4]; 4] = std::array::from_fn(|_| [pick(), pick(), 0.0, 1.0]);
        let ex: [bool; 4] = std::array::from_fn(|i| k % 7 == 0 || next() % 5 != i as u32);
        let r = footprints_scalar(&lv, &coord, ex);
        total += 1;
        let Some(f) = footprints_sse2(&lv, &coord, ex) else {
            continue;
        };
        packed += 1;
        for i in (0..4).filter(|&i| ex[i]) {
            let got = (f.xa[i], f.xb[i], f.ya[i], f.yb[i]);
            let want = (r.xa[i], r.xb[i], r.ya[i], r.yb[i]);
            assert_eq!(got, want, "{coord:?} {}x{} lane {i}", lv.w, lv.h);
            assert_eq!(f.ax[i].to_bits(), r.ax[i].to_bits(), "{coord:?} ax {i}");
            assert_eq!(f.ay[i].to_bits(), r.ay[i].to_bits(), "{coord:?} ay {i}");
        }
    }
    // Most quads take the packed path; those with huge or non-finite coordinates do not.
    assert!(packed > total / 4 && packed < total, "{packed} of {total}");
}

#[test]
fn swizzle_picks_like_the_reference() {
    let all = [
        Swizzle::R,
        Swizzle::G,
        Swizzle::B,
        Swizzle::A,
        Swizzle::ZERO,
        Swizzle::ONE,
    ];
    let o = [0.25, 0.5, 0.75, -2.0];
    for (k, &z) in all.iter().enumerate() {
        let st = TexState {
            swz_r: z,
            swz_g: all[(k + 1) % 6],
            swz_b: all[(k + 3) % 6],
            swz_a: all[(k + 5) % 6],
            ..TexState::default()
        };
        let fu = FastUnit::new(&st, &Decoder::new(st.format), 4);
        let pick = |z: Swizzle| match z {
            Swizzle::R => o[0],
            Swizzle::G => o[1],
            Swizzle::B => o[2],
            Swizzle::A => o[3],
            Swizzle::ZERO => 0.0,
            Swizzle::ONE => 1.0,
        };
        let want = [
            pick(st.swz_r),
            pick(st.swz_g),
            pick(st.swz_b),
            pick(st.swz_a),
        ];
        assert_eq!(fu.swizzle(o), want);
    }
}

#[test]
fn split_reciprocal_divides_every_byte() {
    for k in 0..=255u32 {
        let (kf, want) = (k as f32, UNORM[8][k as usize]);
        // The high product is exact, so only the add rounds.
        assert_eq!(
            f64::from(kf * INV255_HI),
            f64::from(kf) * f64::from(INV255_HI)
        );
        assert_eq!(
            (kf * INV255_HI + kf * INV255_LO).to_bits(),
            want.to_bits(),
            "{k}"
        );
    }
    // The SSE2 texel reader, every byte in every lane.
    #[cfg(target_arch = "x86_64")]
    for k in 0..=255u32 {
        let bytes = [k as u8, (k + 1) as u8, (k + 2) as u8, (k + 3) as u8];
        let mut got = [0f32; 4];
        // SAFETY: `bytes` holds the 4 bytes read; SSE2 is in the x86_64 baseline.
        unsafe {
            let v = sse::texel(bytes.as_ptr(), 0, false);
            std::arch::x86_64::_mm_storeu_ps(got.as_mut_ptr(), v);
        }
        let want = bytes.map(|b| UNORM[8][usize::from(b)]);
        assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{k}");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_quads_equal_the_scalar_blend() {
    if !avx2_available() {
        eprintln!("no AVX2 on this CPU: its quad blend is not taken, nothing to compare");
        return;
    }
    let (texels, mut rng) = random_texels(0x9e37_79b9);
    let mut next = move || rng.next();
    let p = texels.as_ptr();
    let u = TexUnit::blank(TexState::default());
    let special = [&BLEND_WEIGHTS[..], &[f32::INFINITY, 1e-30]].concat();
    for k in 0..3000usize {
        let off = [0; 4].map(|_: u32| [0; 4].map(|_: u32| (next() % 1023) * 4));
        let w = |n: usize, r: u32| {
            if k < 200 {
                special[n % special.len()]
            } else {
                (r >> 8) as f32 / 16_777_216.0
            }
        };
        let ax = [0, 1, 2, 3].map(|i| w(k + i, next()));
        let ay = [0, 1, 2, 3].map(|i| w(k / 3 + 2 * i, next()));
        macro_rules! check {
            ($kind:ty, $swap:literal, $opaque:literal) => {{
                let mut got = [[0f32; 4]; 4];
                // SAFETY: AVX2 was detected; every offset + 4 lies inside `texels`.
                unsafe { simd::avx2::quad::<$swap, $opaque>(p, &off, ax, ay, &mut got) };
                for i in 0..4 {
                    // SAFETY: as above.
                    let want = unsafe { bilinear_scalar::<$kind>(&u, p, off[i], ax[i], ay[i]) };
                    assert!(
                        same(got[i], want),
                        "{} pixel {i} {:?} {} {}: {:?} vs {:?}",
                        stringify!($kind),
                        off[i],
                        ax[i],
                        ay[i],
                        got[i],
                        want
                    );
                }
            }};
        }
        check!(Bgra8, true, false);
        check!(Rgba8, false, false);
        check!(Bgrx8, true, true);
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn span_footprints_equal_the_scalar_ones() {
    if !avx2_available() {
        eprintln!("no AVX2 on this CPU: the span path is not taken, nothing to compare");
        return;
    }
    let mut rng = crate::kit::Rng(0x51ed_270b);
    let mut next = move || rng.next();
    let special = SPECIAL_F32;
    let tables: Vec<u32> = (0..2048).collect();
    let (mut packed, mut total) = (0, 0);
    for k in 0..30_000usize {
        let lv = random_level(k, &mut next, &tables, 12, true);
        // Mostly ordinary coordinates (a special one in 1 of 64 lanes, so most spans are
        // packed), some far outside [0, 1].
        let spread = if k % 5 == 0 { 3000.0 } else { 1.0 };
        let mut pick = || {
            if next() % 64 == 0 {
                special[next() as usize % special.len()]
            } else {
                ((next() >> 8) as f32 / 8_388_608.0 - 0.5) * spread
            }
        };
        let s: [f32; span::SPAN_PX] = std::array::from_fn(|_| pick());
        let t: [f32; span::SPAN_PX] = std::array::from_fn(|_| pick());
        total += 1;
        let mut f = [Footprints::default(); 2];
        // SAFETY: AVX2 was detected.
        if !unsafe { span::footprints8(&lv, &s, &t, &mut f) } {
            continue;
        }
        packed += 1;
        for h in 0..2 {
            let c: [[f32; 4]; 4] = std::array::from_fn(|i| [s[4 * h + i], t[4 * h + i], 0.0, 1.0]);
            let r = footprints_scalar(&lv, &c, [true; 4]);
            let g = &f[h];
            for i in 0..4 {
                let got = (g.xa[i], g.xb[i], g.ya[i], g.yb[i]);
                let want = (r.xa[i], r.xb[i], r.ya[i], r.yb[i]);
                assert_eq!(got, want, "{c:?} {}x{} lane {i}", lv.w, lv.h);
                assert_eq!(g.ax[i].to_bits(), r.ax[i].to_bits(), "{c:?} ax {i}");
                assert_eq!(g.ay[i].to_bits(), r.ay[i].to_bits(), "{c:?} ay {i}");
            }
        }
    }
    // Most spans take the packed path; those with huge or non-finite coordinates do not.
    assert!(packed > total / 4 && packed < total, "{packed} of {total}");
}
