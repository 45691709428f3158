//! Branch-free forms of small float operations the fast paths use, each bit-identical to the
//! obvious form it replaces (held by the tests below over special values and bit-pattern sweeps).

/// `x.floor()` without the libm call (`floorf` is out of line without SSE4.1): bit-identical
/// for every input, including -0.0, NaN and infinities.
#[inline(always)]
pub(crate) fn floor_fast(x: f32) -> f32 {
    floor_i(x).0
}

/// `(x.floor(), x.floor() as i32)` (saturating, NaN to 0) in one go.
#[inline(always)]
pub(crate) fn floor_i(x: f32) -> (f32, i32) {
    // From 2^23 up every f32 is an integer (or inf/NaN) and is its own floor.
    if x.abs() < 8_388_608.0 {
        // SAFETY: |x| < 2^23, so its truncation fits an i32.
        let i: i32 = unsafe { x.to_int_unchecked() };
        let t = i as f32;
        let (i, r) = if t > x { (i - 1, t - 1.0) } else { (i, t) };
        // A zero result keeps x's sign (floor(-0.0) = -0.0); other results already have it.
        (r.copysign(x), i)
    } else {
        (x, x as i32)
    }
}

/// The reference clamp to [0, 1] (NaN to 0) of the ISP and PBE:
/// `if x >= 1 { 1 } else if x > 0 { x } else { 0 }`, as two selects that compile to
/// max/min instructions.
#[inline(always)]
pub(crate) fn clamp01_fast(x: f32) -> f32 {
    let c = if x > 0.0 { x } else { 0.0 };
    if c < 1.0 {
        c
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Vec<f32> {
        let mut v: Vec<f32> = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            -1.5,
            1.0 - f32::EPSILON,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            -8_388_609.0,
            2.5e9,
            -2.5e9,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        // Every 509th bit pattern: all exponents, both signs, many mantissas.
        v.extend((0..=u32::MAX / 509).map(|k| f32::from_bits(k * 509)));
        v
    }

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn floor_i_is_floor() {
        for x in values() {
            let (f, i) = floor_i(x);
            assert!(same(f, x.floor()), "{x:e} ({:#x}): {f:e}", x.to_bits());
            assert_eq!(i, x.floor() as i32, "{x:e}");
            assert!(same(floor_fast(x), x.floor()));
        }
    }

    #[test]
    fn clamp01_fast_is_clamp01() {
        let reference = |x: f32| {
            if x >= 1.0 {
                1.0
            } else if x > 0.0 {
                x
            } else {
                0.0
            }
        };
        for x in values() {
            let (a, b) = (clamp01_fast(x), reference(x));
            assert_eq!(a.to_bits(), b.to_bits(), "{x:e} ({:#x})", x.to_bits());
        }
    }
}
