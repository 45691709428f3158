//! The seed experiment's pattern: BGRA8 texels whose 2x2 averages are exact integers in every
//! channel at every level, so a GPU chain and the CPU reference must agree to the byte — any
//! difference is a real one, not rounding.
//!
//! A channel's value is `base + sum_k bit_k(x) * cx[k] + sum_k bit_k(y) * cy[k]` with even
//! weights: averaging the two texels that differ in bit k adds `c[k] / 2`, an integer, and the
//! weights of the higher bits carry through unchanged.

/// Per channel (B, G, R, A): base, x weights, y weights (bits 0..10, all even).
const CHANNELS: [(u32, [u32; 11], [u32; 11]); 4] = [
    (
        3,
        [2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12],
        [12, 10, 10, 8, 8, 6, 6, 4, 4, 2, 2],
    ),
    (
        1,
        [10, 2, 14, 6, 18, 22, 4, 8, 12, 16, 20],
        [2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12],
    ),
    (
        7,
        [4, 2, 6, 2, 8, 4, 10, 6, 12, 8, 14],
        [2, 6, 4, 8, 6, 10, 8, 12, 10, 14, 2],
    ),
    (
        40,
        [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
        [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4],
    ),
];

fn channel(c: usize, x: u32, y: u32) -> u8 {
    let (base, cx, cy) = &CHANNELS[c];
    let mut v = *base;
    for k in 0..11 {
        v += ((x >> k) & 1) * cx[k] + ((y >> k) & 1) * cy[k];
    }
    // Every channel's weights sum below 256 (checked by a test), so this never truncates.
    v as u8
}

/// Level 0 of a `size_px` square BGRA8 texture, linear rows.
pub fn level0(size_px: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity((size_px * size_px * 4) as usize);
    for y in 0..size_px {
        for x in 0..size_px {
            for c in 0..4 {
                out.push(channel(c, x, y));
            }
        }
    }
    out
}

/// The expected chain, computed by plain 2x2 averaging (independent of the layout crate's
/// generator); `Err` names the first block whose average is not an exact integer.
pub fn expected_chain(level0: &[u8], size_px: u32) -> Result<Vec<Vec<u8>>, String> {
    let mut levels = vec![level0.to_vec()];
    let mut s = size_px;
    while s > 1 {
        let src = levels.last().expect("level 0 is there");
        let d = s / 2;
        let mut next = vec![0u8; (d * d * 4) as usize];
        for y in 0..d {
            for x in 0..d {
                for c in 0..4 {
                    let at = |xx: u32, yy: u32| u32::from(src[((yy * s + xx) * 4 + c) as usize]);
                    let sum = at(2 * x, 2 * y)
                        + at(2 * x + 1, 2 * y)
                        + at(2 * x, 2 * y + 1)
                        + at(2 * x + 1, 2 * y + 1);
                    if sum % 4 != 0 {
                        return Err(format!(
                            "level {} texel ({x},{y}) channel {c}: sum {sum}",
                            levels.len()
                        ));
                    }
                    next[((y * d + x) * 4 + c) as usize] = (sum / 4) as u8;
                }
            }
        }
        levels.push(next);
        s = d;
    }
    Ok(levels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_in_a_byte_and_averages_are_exact() {
        for (c, (base, cx, cy)) in CHANNELS.iter().enumerate() {
            assert!(
                base + cx.iter().sum::<u32>() + cy.iter().sum::<u32>() < 256,
                "channel {c}"
            );
            assert!(cx.iter().chain(cy.iter()).all(|w| w % 2 == 0));
        }
        for s in [32, 64, 128] {
            let l = expected_chain(&level0(s), s).unwrap();
            assert_eq!(l.len() as u32, 32 - s.leading_zeros());
            assert_eq!(l.last().unwrap().len(), 4);
        }
    }

    #[test]
    fn the_check_catches_an_inexact_average() {
        let mut l0 = level0(4);
        l0[0] += 1;
        assert!(expected_chain(&l0, 4).is_err());
    }
}
