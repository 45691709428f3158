//! The precision the ISP tests and keeps depth at: the depth buffer's (MODEL, hwdocs
//! registers.json `ISP_ZLSCTL.format`; `hwdocs/guide/model-choices.md`).
//!
//! A fragment's depth is rounded to the nearest value the buffer can hold before the depth
//! test and the depth write, and so is the background depth a tile starts from. A tile's
//! depth is then always one of the values ZLS stores and loads back unchanged, so a depth test
//! gives the same answer whether the depth it compares with stayed on chip or went through
//! memory between two renders (GL's invariance: a surface redrawn at the depth it wrote, or
//! at the depth the buffer was cleared to, compares equal).
//!
//! [`Precision::quantise`] is the reference (libm's round, and a division); the ISP calls
//! [`Precision::quantise_fast`] on its fast paths, held equal to it by the tests below, which
//! also check both against exact integer arithmetic.

use sgx_hwdocs::Format;

/// What a depth is kept as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Precision {
    /// No depth buffer (ZLS off): the tile keeps the f32 depth as interpolated.
    F32,
    /// Z16_UNORM: codes 0..=65535, depth = code / 65535.
    Unorm16,
    /// Z24 of Z24_UNORM_S8_UINT: codes 0..=16777215, depth = code / 16777215.
    Unorm24,
}

impl Precision {
    /// The precision of a depth buffer of format `f` (None: no buffer). A format that is not
    /// a depth format has none; ZLS refuses it before a render starts.
    pub(crate) fn of(f: Option<Format>) -> Option<Precision> {
        match f {
            None => Some(Precision::F32),
            Some(Format::Z16_UNORM) => Some(Precision::Unorm16),
            Some(Format::Z24_UNORM_S8_UINT) => Some(Precision::Unorm24),
            Some(_) => None,
        }
    }

    /// The largest code of a unorm precision (2^bits - 1); 0 for F32, which has no codes.
    // The depth formats' own numbers (Z16: 16 bits; Z24S8: 24 bits of depth), as hwdocs's
    // formats define them.
    #[inline(always)]
    pub(crate) fn max_code(self) -> u32 {
        match self {
            Precision::F32 => 0,
            Precision::Unorm16 => 0xffff,
            Precision::Unorm24 => 0xff_ffff,
        }
    }

    /// The code a depth is stored as: clamped to [0, 1] (NaN to 0), times the largest code,
    /// rounded to nearest with halves up. In f64: `d * max` is exact there (24-bit by at most
    /// 24-bit mantissas), where in f32 `1.0 * 16777215 + 0.5` would round up to 2^24.
    pub(crate) fn encode(self, depth: f32) -> u32 {
        let d = f64::from(depth.clamp(0.0, 1.0));
        let max = self.max_code();
        ((d * f64::from(max)).round() as u32).min(max)
    }

    /// [`Self::encode`] without the libm call: `d * max` is exact in f64, and so is adding
    /// 0.5 below 2^24; the truncation of that is `round()` (half away from zero) for these
    /// non-negative values, and NaN goes to 0 in both (`clamp` keeps NaN, `as` maps it to 0).
    #[inline(always)]
    pub(crate) fn encode_fast(self, depth: f32) -> u32 {
        let d = f64::from(depth.clamp(0.0, 1.0));
        let max = self.max_code();
        ((d * f64::from(max) + 0.5) as u32).min(max)
    }

    /// The depth a code stands for: the f32 nearest to code / max (one IEEE division of two
    /// exact operands).
    #[inline(always)]
    pub(crate) fn decode(self, code: u32) -> f32 {
        code as f32 / self.max_code() as f32
    }

    /// The depth the buffer would hold for `depth` (the reference): F32 keeps the clamped
    /// depth; a unorm precision decodes its code.
    pub(crate) fn quantise(self, depth: f32) -> f32 {
        match self {
            Precision::F32 => {
                if depth >= 1.0 {
                    1.0
                } else if depth > 0.0 {
                    depth
                } else {
                    0.0
                }
            }
            p => p.decode(p.encode(depth)),
        }
    }

    /// [`Self::quantise`] for the fast paths.
    #[inline(always)]
    pub(crate) fn quantise_fast(self, depth: f32) -> f32 {
        match self {
            Precision::F32 => crate::num::clamp01_fast(depth),
            p => p.decode(p.encode_fast(depth)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Precision::{self, *};

    const UNORMS: [Precision; 2] = [Unorm16, Unorm24];

    /// The code of `d` by exact integer arithmetic, independent of the f64 forms: a finite
    /// f32 in (0, 1) is m / 2^s exactly (m < 2^24); its code is floor(d * max + 1/2) =
    /// floor((2 m max + 2^s) / 2^(s + 1)), in u128. Below 2^-40 every code is 0.
    fn exact_code(p: Precision, d: f32) -> u32 {
        if d.is_nan() || d <= 0.0 {
            return 0;
        }
        if d >= 1.0 {
            return p.max_code();
        }
        let bits = d.to_bits();
        let exp = ((bits >> 23) & 0xff) as i32;
        let frac = bits & 0x7f_ffff;
        // d = m * 2^(e - 150) for a normal (implicit bit set), m * 2^-149 for a subnormal.
        let (m, s) = if exp == 0 {
            (frac, 149)
        } else {
            (frac | 0x80_0000, 150 - exp)
        };
        if s > 64 {
            return 0;
        }
        let (m, max, s) = (u128::from(m), u128::from(p.max_code()), s as u32);
        ((2 * m * max + (1u128 << s)) >> (s + 1)) as u32
    }

    /// Depths around every rounding edge of `p` (each code's halfway point, two f32 steps
    /// either side; every code for Z16, every 61st for Z24), the ends, and special values.
    fn edge_values(p: Precision) -> Vec<f32> {
        let mut v = vec![
            0.0f32,
            -0.0,
            1.0,
            2.0,
            -1.0,
            0.5,
            1e-30,
            -1e-30,
            f32::MIN_POSITIVE,
            1e-45,
            1.0 - f32::EPSILON / 2.0,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let max = p.max_code();
        let step = if p == Unorm16 { 1 } else { 61 };
        for code in (0..max).step_by(step).chain([max - 1]) {
            let half = ((f64::from(code) + 0.5) / f64::from(max)) as f32;
            for d in -2i32..=2 {
                v.push(f32::from_bits(half.to_bits().wrapping_add_signed(d)));
            }
        }
        v
    }

    #[test]
    fn encode_and_its_fast_form_round_to_the_nearest_code() {
        for p in UNORMS {
            for d in edge_values(p) {
                let want = exact_code(p, d);
                assert_eq!(p.encode(d), want, "{p:?} {d:e} ({:#x})", d.to_bits());
                assert_eq!(p.encode_fast(d), want, "{p:?} fast {d:e}");
            }
        }
    }

    /// The rounding edges by hand: 0.5 is exactly halfway between two codes of both formats
    /// (32767.5 and 8388607.5 steps) and rounds up; the f32 just below it rounds down.
    #[test]
    fn halfway_depths_round_up_and_the_depth_below_rounds_down() {
        let below = f32::from_bits(0.5f32.to_bits() - 1);
        for (p, up) in [(Unorm16, 32768), (Unorm24, 8_388_608)] {
            assert_eq!(p.encode(0.5), up, "{p:?}");
            assert_eq!(p.encode_fast(0.5), up, "{p:?}");
            assert_eq!(p.encode(below), up - 1, "{p:?}");
            assert_eq!(p.encode_fast(below), up - 1, "{p:?}");
            assert!(
                p.quantise(0.5) > 0.5,
                "{p:?}: the code above 0.5 decodes above it"
            );
            // (Z24: the code below decodes to `below` itself, the f32 nearest to it.)
            assert!(p.quantise(below) <= below, "{p:?}");
        }
        assert_eq!(Unorm24.encode(1.0), 16_777_215);
        assert_eq!(Unorm16.encode(1.0), 65_535);
        assert_eq!(Unorm24.encode(f32::NAN), 0);
        assert_eq!(Unorm16.encode(-3.0), 0);
    }

    /// Every code decodes to a depth that encodes back to it, and codes decode in order: a
    /// quantised depth is a fixed point, and depth compares on quantised depths order as the
    /// codes do.
    #[test]
    fn every_code_round_trips_and_decodes_in_order() {
        for p in UNORMS {
            let mut last = -1.0f32;
            for code in 0..=p.max_code() {
                let d = p.decode(code);
                assert!(d > last, "{p:?} code {code}: {d:e} after {last:e}");
                last = d;
                assert_eq!(p.encode(d), code, "{p:?} code {code}");
                assert_eq!(p.encode_fast(d), code, "{p:?} fast, code {code}");
                assert_eq!(p.quantise_fast(d).to_bits(), d.to_bits(), "{p:?} {code}");
            }
            assert_eq!(p.decode(0), 0.0);
            assert_eq!(p.decode(p.max_code()), 1.0);
        }
    }

    #[test]
    fn quantise_fast_equals_the_reference() {
        for p in [F32, Unorm16, Unorm24] {
            let src = if p == F32 { Unorm24 } else { p };
            let mut vals = edge_values(src);
            // Every 4099th bit pattern: all exponents, both signs.
            vals.extend((0..=u32::MAX / 4099).map(|k| f32::from_bits(k * 4099)));
            for d in vals {
                let (a, b) = (p.quantise_fast(d), p.quantise(d));
                assert_eq!(a.to_bits(), b.to_bits(), "{p:?} {d:e} ({:#x})", d.to_bits());
                if p != F32 {
                    assert_eq!(b.to_bits(), p.decode(exact_code(p, d)).to_bits(), "{d:e}");
                }
            }
        }
    }

    /// F32 keeps every depth in [0, 1] as it is: two depths an f32 step apart stay apart.
    #[test]
    fn f32_keeps_depths_and_clamps() {
        let below = f32::from_bits(0.5f32.to_bits() - 1);
        assert_eq!(F32.quantise(0.5), 0.5);
        assert_eq!(F32.quantise(below), below);
        assert_eq!(F32.quantise(1.5), 1.0);
        assert_eq!(F32.quantise(-0.5), 0.0);
        assert_eq!(F32.quantise(f32::NAN), 0.0);
        assert_eq!(F32.quantise(-0.0).to_bits(), 0.0f32.to_bits());
    }

    #[test]
    fn formats_map_to_their_precision() {
        use sgx_hwdocs::Format;
        assert_eq!(Precision::of(None), Some(F32));
        assert_eq!(Precision::of(Some(Format::Z16_UNORM)), Some(Unorm16));
        assert_eq!(
            Precision::of(Some(Format::Z24_UNORM_S8_UINT)),
            Some(Unorm24)
        );
        assert_eq!(Precision::of(Some(Format::B8G8R8A8_UNORM)), None);
    }
}
