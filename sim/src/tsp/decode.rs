//! Texel decoding: one element of any sampleable format to RGBA f32 (unorm, sRGB, float,
//! depth), as the filters see it.

use std::sync::LazyLock;

use sgx_hwdocs::{Format, FormatKind};

/// k / 255 for every byte k (the same values a division gives, without dividing per texel).
pub(crate) static UNORM8: [f32; 256] = {
    // One entry per byte value: a property of bytes, not of the hardware.
    let mut t = [0.0f32; 256];
    let mut k = 0;
    while k < 256 {
        t[k] = k as f32 / 255.0;
        k += 1;
    }
    t
};

/// sRGB -> linear of one 8-bit code, the IEC 61966-2-1 formula evaluated in f64 and rounded
/// once to f32.
pub(crate) fn srgb_to_linear(k: u8) -> f32 {
    let c = f64::from(k) / 255.0;
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// [`srgb_to_linear`] of every byte.
pub(crate) static SRGB8: LazyLock<[f32; 256]> =
    LazyLock::new(|| std::array::from_fn(|k| srgb_to_linear(k as u8)));

/// How to turn one element into RGBA: per channel (shift, width, destination lanes, 2^width - 1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decoder {
    pub(crate) ch: [(u32, u32, u8, f32); 4],
    pub(crate) nch: usize,
    pub(crate) float: bool,
    /// R, G and B are sRGB-encoded bytes (alpha stays linear).
    pub(crate) srgb: bool,
    /// Every channel is an 8-bit unorm byte.
    bytes8: bool,
    /// For `bytes8`: the byte shift feeding each of r, g, b, a (None: 0 for colour, 1 for alpha).
    map8: [Option<u32>; 4],
}

impl Decoder {
    pub(crate) fn new(f: Format) -> Decoder {
        let info = f.info();
        let mut ch = [(0, 0, 0u8, 0.0f32); 4];
        let mut nch = 0;
        for c in info.channels {
            let lanes = match c.name {
                "r" => 0b0001,
                "g" => 0b0010,
                "b" => 0b0100,
                "a" => 0b1000,
                "l" => 0b0111,
                "i" => 0b1111,
                // A depth texel reads (d, d, d, 1); stencil bits ("s") are not sampled.
                "z" => 0b0111,
                _ => 0,
            };
            if lanes != 0 && nch < 4 {
                ch[nch] = (c.lo, c.bits, lanes, ((1u64 << c.bits) - 1) as f32);
                nch += 1;
            }
        }
        let float = info.kind == FormatKind::Float;
        let srgb = info.kind == FormatKind::Srgb;
        let bytes8 = !float && ch[..nch].iter().all(|c| c.1 == 8 && c.0 % 8 == 0);
        let mut map8 = [None; 4];
        for c in &ch[..nch] {
            for (l, m) in map8.iter_mut().enumerate() {
                if c.2 & (1 << l) != 0 {
                    *m = Some(c.0);
                }
            }
        }
        Decoder {
            ch,
            nch,
            float,
            srgb,
            bytes8,
            map8,
        }
    }

    /// RGBA of one element (missing colour channels 0, missing alpha 1).
    #[inline(always)]
    pub(crate) fn decode(&self, v: u32) -> [f32; 4] {
        if self.bytes8 {
            let m = &self.map8;
            let srgb = if self.srgb { Some(&*SRGB8) } else { None };
            let get = |l: usize, d: f32| match (m[l], srgb) {
                (Some(lo), Some(t)) if l < 3 => t[((v >> lo) & 0xff) as usize],
                (Some(lo), _) => UNORM8[((v >> lo) & 0xff) as usize],
                (None, _) => d,
            };
            return [get(0, 0.0), get(1, 0.0), get(2, 0.0), get(3, 1.0)];
        }
        let mut o = [0.0, 0.0, 0.0, 1.0];
        for &(lo, bits, lanes, max) in &self.ch[..self.nch] {
            let raw = if bits == 32 {
                v
            } else {
                (v >> lo) & ((1 << bits) - 1)
            };
            let x = if self.float {
                if bits == 16 {
                    half_to_f32(raw as u16)
                } else {
                    f32::from_bits(raw)
                }
            } else if bits == 1 {
                raw as f32
            } else if self.srgb && bits == 8 && lanes != 0b1000 {
                SRGB8[raw as usize]
            } else {
                // Exact below 2^24 (every unorm width here), so one rounding: the quotient.
                raw as f32 / max
            };
            for (l, ol) in o.iter_mut().enumerate() {
                if lanes & (1 << l) != 0 {
                    *ol = x;
                }
            }
        }
        o
    }
}

/// IEEE half to f32.
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let s = u32::from(h >> 15) << 31;
    // IEEE 754 binary16: sign, 5 exponent bits, 10 mantissa bits.
    let e = u32::from((h >> 10) & 0x1f);
    let m = u32::from(h & 0x3ff);
    let bits = match (e, m) {
        (0, 0) => s,
        (0, _) => {
            // Subnormal: m * 2^-24.
            return f32::from_bits(s)
                + (if s != 0 { -1.0 } else { 1.0 }) * m as f32 * (1.0 / 16_777_216.0);
        }
        (31, 0) => s | 0x7f80_0000,
        (31, _) => s | 0x7fc0_0000 | (m << 13),
        _ => s | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoders() {
        let d = Decoder::new(Format::B8G8R8A8_UNORM);
        assert_eq!(
            d.decode(u32::from_le_bytes([0, 51, 255, 102])),
            [1.0, 0.2, 0.0, 0.4]
        );
        assert_eq!(
            Decoder::new(Format::L8_UNORM).decode(255),
            [1.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::A8_UNORM).decode(255),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(Decoder::new(Format::I8_UNORM).decode(0), [0.0; 4]);
        assert_eq!(
            Decoder::new(Format::B5G6R5_UNORM).decode(0xf800),
            [1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::B5G5R5A1_UNORM).decode(0x8000),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::R16_FLOAT).decode(0x3c00),
            [1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::R32_FLOAT).decode(2.5f32.to_bits()),
            [2.5, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::L8A8_UNORM).decode(0xff00),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(half_to_f32(0xc000), -2.0);
    }

    /// Every unorm quotient equals k / (2^bits - 1) computed in f64 and rounded once.
    #[test]
    fn unorm_channels_are_correctly_rounded_quotients() {
        let d = Decoder::new(Format::B5G6R5_UNORM);
        for k in 0..32u32 {
            assert_eq!(d.decode(k << 11)[0], (f64::from(k) / 31.0) as f32);
        }
        for k in 0..256u32 {
            assert_eq!(UNORM8[k as usize], (f64::from(k) / 255.0) as f32);
        }
    }

    #[test]
    fn depth_reads_d_d_d_1_and_ignores_stencil() {
        let z16 = Decoder::new(Format::Z16_UNORM);
        for z in [0u32, 1, 2, 0x7fff, 0x8000, 0xfffe, 0xffff, 12_345] {
            let d = (f64::from(z) / 65_535.0) as f32;
            assert_eq!(z16.decode(z), [d, d, d, 1.0], "Z16 {z:#x}");
        }
        let z24 = Decoder::new(Format::Z24_UNORM_S8_UINT);
        for z in [
            0u32, 1, 0x7f_ffff, 0x80_0000, 0xff_fffe, 0xff_ffff, 0x12_3456,
        ] {
            let d = (f64::from(z) / 16_777_215.0) as f32;
            for s in [0u32, 1, 0x80, 0xff] {
                let v = z | (s << 24);
                assert_eq!(z24.decode(v), [d, d, d, 1.0], "Z24S8 {v:#x}");
            }
        }
        assert_eq!(z24.decode(0xffff_ffff)[0], 1.0);
        assert_eq!(z24.decode(0xff00_0000)[0], 0.0);
    }

    /// IEC 61966-2-1, written out here independently of `srgb_to_linear`.
    fn iec(k: u32) -> f64 {
        let c = f64::from(k) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    }

    #[test]
    fn srgb_decodes_rgb_by_the_exact_formula_and_alpha_linearly() {
        let d = Decoder::new(Format::B8G8R8A8_SRGB);
        for k in 0..256u32 {
            let want = iec(k);
            // The nearest f32: no other f32 is closer to the f64 value.
            let got = SRGB8[k as usize];
            let err = (f64::from(got) - want).abs();
            let ulp = f64::from(f32::from_bits(got.to_bits() + 1) - got);
            assert!(err <= ulp / 2.0, "sRGB {k}: {got} vs {want}");
            // Bytes B G R A: every colour lane the same code, alpha the complement.
            let v = k | (k << 8) | (k << 16) | ((255 - k) << 24);
            let o = d.decode(v);
            assert_eq!(o[..3], [got; 3], "sRGB {k}");
            assert_eq!(o[3], UNORM8[255 - k as usize], "alpha of {k}");
        }
        // The curve's ends and its linear segment.
        assert_eq!(SRGB8[0], 0.0);
        assert_eq!(SRGB8[255], 1.0);
        assert_eq!(SRGB8[10], (10.0 / 255.0 / 12.92) as f32);
        // Channel order: bytes B G R A.
        let o = d.decode(u32::from_le_bytes([10, 100, 200, 50]));
        assert_eq!(o, [SRGB8[200], SRGB8[100], SRGB8[10], UNORM8[50]]);
    }
}
