//! Where a texel lies: twiddled (Morton) offsets, the wrap modes' texel indices, and the cube
//! face a direction hits. Computed here, independently of `layout`: the model is the reference
//! the driver's addressing is tested against.

use sgx_hwdocs::texture::AddrMode;

/// The low 16 bits of `v` spread into its even bits (bit i to bit 2i): a coordinate's part of a
/// square Morton index. The model keeps its own copy of this rather than using the driver's
/// (layout's): the model is the independent reference the driver's twiddling is tested against.
#[inline(always)]
pub(crate) fn spread_even(v: u32) -> u32 {
    // The bit-spreading masks of a Morton interleave (arithmetic, not hardware numbers).
    let mut v = v & 0xffff;
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    (v | (v << 1)) & 0x5555_5555
}

/// Twiddled (Morton) offset in elements: Y in bit 0, X in bit 1; on a non-square level the
/// longer side's remaining bits sit above the interleaved ones.
pub(crate) fn twiddle(x: u32, y: u32, log2_w: u32, log2_h: u32) -> u32 {
    let m = log2_w.min(log2_h);
    let lo = (1u32 << m) - 1;
    let inter = spread_even(y & lo) | (spread_even(x & lo) << 1);
    let rest = if log2_w > log2_h { x >> m } else { y >> m };
    inter | (rest << (2 * m))
}

/// What [`wrap`] gives for a CLAMP_TO_BORDER coordinate outside the level: the tap reads the
/// border colour.
pub(super) const BORDER: u32 = u32::MAX;

/// Texel index `i` on an axis of `n` texels under mode `m`, or [`BORDER`].
#[inline(always)]
pub(super) fn wrap(i: i32, n: u32, m: AddrMode) -> u32 {
    let n = n as i32;
    (match m {
        AddrMode::REPEAT => i.rem_euclid(n),
        AddrMode::CLAMP_TO_EDGE => i.clamp(0, n - 1),
        AddrMode::CLAMP_TO_BORDER => {
            if (0..n).contains(&i) {
                i
            } else {
                return BORDER;
            }
        }
        AddrMode::MIRRORED_REPEAT => {
            let k = i.rem_euclid(2 * n);
            if k >= n {
                2 * n - 1 - k
            } else {
                k
            }
        }
    }) as u32
}

/// Cube face and face coordinates (s, t in [0, 1]) for a direction; faces +X -X +Y -Y +Z -Z.
pub(super) fn cube_face(c: [f32; 4]) -> (u32, f32, f32) {
    let [x, y, z, _] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    let ma = if ma == 0.0 { 1.0 } else { ma };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

pub(super) fn cube_st_on(face: u32, c: [f32; 4]) -> (f32, f32) {
    let [x, y, z, _] = c;
    let (sc, tc, ma) = match face {
        0 => (-z, -y, x),
        1 => (z, -y, -x),
        2 => (x, z, y),
        3 => (x, -z, -y),
        4 => (x, -y, z),
        _ => (-x, -y, -z),
    };
    let ma = if ma == 0.0 { 1.0 } else { ma.abs() };
    ((sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiddle_order() {
        // Y in bit 0, X in bit 1.
        assert_eq!(twiddle(0, 1, 3, 3), 1);
        assert_eq!(twiddle(1, 0, 3, 3), 2);
        assert_eq!(twiddle(1, 1, 3, 3), 3);
        assert_eq!(twiddle(2, 0, 3, 3), 8);
        assert_eq!(twiddle(7, 7, 3, 3), 63);
        // 4x2: one interleaved bit pair, then X's remaining bit on top.
        assert_eq!(twiddle(2, 0, 2, 1), 4);
        assert_eq!(twiddle(3, 1, 2, 1), 7);
        // 1x4: no interleave; Y alone.
        assert_eq!(twiddle(0, 3, 0, 2), 3);
    }

    #[test]
    fn cube_faces() {
        assert_eq!(cube_face([1.0, 0.0, 0.0, 0.0]).0, 0);
        assert_eq!(cube_face([-1.0, 0.2, 0.0, 0.0]).0, 1);
        assert_eq!(cube_face([0.0, 1.0, 0.5, 0.0]).0, 2);
        assert_eq!(cube_face([0.0, -1.0, 0.5, 0.0]).0, 3);
        assert_eq!(cube_face([0.0, 0.0, 1.0, 0.0]), (4, 0.5, 0.5));
        assert_eq!(cube_face([0.5, 0.0, -1.0, 0.0]), (5, 0.25, 0.5));
    }
}
