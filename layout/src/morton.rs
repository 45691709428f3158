//! Twiddled (Morton) addressing of one level, in elements.
//!
//! Y sits in address bit 0 and X in bit 1; when the sides differ, only the shorter side's
//! bits interleave and the longer side's remaining bits sit above them (hwdocs pbe
//! MemLayout::TWIDDLED, INFERRED from the PowerVR SDK).

use crate::LayoutError;

/// Largest log2 side a twiddled geometry accepts (masks must fit 32-bit offsets).
pub const MAX_TWIDDLE_LOG2: u32 = 15;

/// The Morton geometry of a twiddled level of `2^log2_w x 2^log2_h` elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Twiddle {
    /// log2 of the width in elements.
    pub log2_w: u32,
    /// log2 of the height in elements.
    pub log2_h: u32,
    /// The address bits that X's bits land on.
    pub x_mask: u64,
    /// The address bits that Y's bits land on.
    pub y_mask: u64,
}

impl Twiddle {
    /// The geometry of a `2^log2_w x 2^log2_h` element level.
    pub fn new(log2_w: u32, log2_h: u32) -> Result<Self, LayoutError> {
        if log2_w > MAX_TWIDDLE_LOG2 || log2_h > MAX_TWIDDLE_LOG2 {
            return Err(LayoutError::TwiddleTooLarge { log2_w, log2_h });
        }
        let s = log2_w.min(log2_h);
        let (mut x_mask, mut y_mask) = (0u64, 0u64);
        for i in 0..s {
            y_mask |= 1 << (2 * i);
            x_mask |= 1 << (2 * i + 1);
        }
        for i in s..log2_w {
            x_mask |= 1 << (s + i);
        }
        for i in s..log2_h {
            y_mask |= 1 << (s + i);
        }
        Ok(Self {
            log2_w,
            log2_h,
            x_mask,
            y_mask,
        })
    }

    /// The geometry of a `w x h` element level; both must be powers of two.
    pub fn from_extent(w_el: u32, h_el: u32) -> Result<Self, LayoutError> {
        if !w_el.is_power_of_two() || !h_el.is_power_of_two() {
            return Err(LayoutError::TwiddleNeedsPowerOfTwo {
                width_px: w_el,
                height_px: h_el,
            });
        }
        Self::new(w_el.trailing_zeros(), h_el.trailing_zeros())
    }

    /// Width in elements.
    #[inline]
    pub fn w_el(&self) -> u32 {
        1 << self.log2_w
    }

    /// Height in elements.
    #[inline]
    pub fn h_el(&self) -> u32 {
        1 << self.log2_h
    }

    /// Elements in the level.
    #[inline]
    pub fn len_el(&self) -> u64 {
        1u64 << (self.log2_w + self.log2_h)
    }

    /// The element index of (x, y), by the obvious per-bit interleave. `None` outside.
    pub fn offset_el(&self, x_el: u32, y_el: u32) -> Option<u64> {
        if x_el >= self.w_el() || y_el >= self.h_el() {
            return None;
        }
        let s = self.log2_w.min(self.log2_h);
        let (x, y) = (u64::from(x_el), u64::from(y_el));
        let mut a = 0u64;
        for i in 0..s {
            a |= ((y >> i) & 1) << (2 * i);
            a |= ((x >> i) & 1) << (2 * i + 1);
        }
        // Only one of these has bits left: the longer side's.
        a |= (x >> s) << (2 * s);
        a |= (y >> s) << (2 * s);
        Some(a)
    }

    /// X's contribution to the address: `x`'s bits deposited on `x_mask`.
    #[inline]
    pub fn x_bits(&self, x_el: u32) -> u64 {
        deposit(u64::from(x_el), self.x_mask)
    }

    /// Y's contribution to the address.
    #[inline]
    pub fn y_bits(&self, y_el: u32) -> u64 {
        deposit(u64::from(y_el), self.y_mask)
    }
}

/// Scatters the low bits of `v` onto the set bits of `mask`, lowest first (software PDEP).
pub fn deposit(v: u64, mask: u64) -> u64 {
    let (mut out, mut m, mut bit) = (0u64, mask, 0);
    while m != 0 {
        let low = m & m.wrapping_neg();
        if (v >> bit) & 1 != 0 {
            out |= low;
        }
        m &= m - 1;
        bit += 1;
    }
    out
}

/// Adds one to a coordinate held in deposited form: filling the holes of `mask` with ones
/// makes the carry ripple across them, so `(bits - mask) & mask` is `deposit(x + 1)`.
#[inline(always)]
pub fn step(bits: u64, mask: u64) -> u64 {
    bits.wrapping_sub(mask) & mask
}

/// Adds `inc` (a deposited value) to a deposited coordinate, with the same carry trick.
#[inline(always)]
pub fn step_by(bits: u64, inc: u64, mask: u64) -> u64 {
    (bits | !mask).wrapping_add(inc) & mask
}

/// The twiddled index, within a tile of at most 4x4 blocks of 4x4 elements, of the block in
/// block column `bx` and block row `by` (Y in address bit 0): the copies' whole-tile bodies
/// place blocks with it.
#[inline(always)]
pub const fn block_of(bx: usize, by: usize) -> usize {
    (by & 1) | ((bx & 1) << 1) | ((by & 2) << 1) | ((bx & 2) << 2)
}

/// The twiddled index of (`x`, `y`) within an 8x8 square (`x`, `y` < 8; Y in bit 0).
pub const fn square8_index(x: usize, y: usize) -> usize {
    (y & 1) | ((x & 1) << 1) | ((y & 2) << 1) | ((x & 2) << 2) | ((y & 4) << 2) | ((x & 4) << 3)
}

/// Gathers the even bits of `v` (bits 0, 2, 4, ...) into its low bits: the Y coordinate of a
/// square Morton index (and, of `v >> 1`, the X coordinate).
#[inline(always)]
pub const fn compact_even(v: u32) -> u32 {
    // The standard bit-gather masks (pairs, nibbles, bytes, halves): arithmetic, not hardware.
    let mut v = v & 0x5555_5555;
    v = (v | (v >> 1)) & 0x3333_3333;
    v = (v | (v >> 2)) & 0x0f0f_0f0f;
    v = (v | (v >> 4)) & 0x00ff_00ff;
    (v | (v >> 8)) & 0x0000_ffff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_order_has_y_in_bit_0() {
        let t = Twiddle::new(2, 2).unwrap();
        assert_eq!(t.offset_el(0, 1), Some(1));
        assert_eq!(t.offset_el(1, 0), Some(2));
        assert_eq!(t.offset_el(1, 1), Some(3));
        assert_eq!(t.offset_el(0, 2), Some(4));
        assert_eq!(t.offset_el(2, 0), Some(8));
        assert_eq!(t.offset_el(3, 3), Some(15));
        assert_eq!(t.offset_el(4, 0), None);
        assert_eq!(t.offset_el(0, 4), None);
        assert_eq!(t.offset_el(3, 4), None);
        // Non-square: each side's own bound.
        let t = Twiddle::new(3, 1).unwrap();
        assert_eq!(t.offset_el(7, 1), Some(15));
        assert_eq!((t.offset_el(8, 0), t.offset_el(0, 2)), (None, None));
    }

    #[test]
    fn non_square_puts_longer_side_on_top() {
        // 8 wide, 2 high: one interleaved bit pair, then x's two remaining bits.
        let t = Twiddle::new(3, 1).unwrap();
        assert_eq!(t.offset_el(1, 0), Some(2));
        assert_eq!(t.offset_el(0, 1), Some(1));
        assert_eq!(t.offset_el(2, 0), Some(4));
        assert_eq!(t.offset_el(4, 1), Some(9));
        assert_eq!(t.offset_el(7, 1), Some(15));
        // 2 wide, 8 high: y's remaining bits on top.
        let t = Twiddle::new(1, 3).unwrap();
        assert_eq!(t.offset_el(0, 2), Some(4));
        assert_eq!(t.offset_el(1, 7), Some(15));
        // 1 wide: the address is y.
        let t = Twiddle::new(0, 4).unwrap();
        assert_eq!(t.offset_el(0, 9), Some(9));
    }

    #[test]
    fn offsets_are_a_permutation_and_masks_agree() {
        for lw in 0..=5 {
            for lh in 0..=5 {
                let t = Twiddle::new(lw, lh).unwrap();
                assert_eq!(t.x_mask & t.y_mask, 0);
                assert_eq!(t.x_mask | t.y_mask, t.len_el() - 1);
                let mut seen = vec![false; t.len_el() as usize];
                for y in 0..t.h_el() {
                    for x in 0..t.w_el() {
                        let a = t.offset_el(x, y).unwrap();
                        assert_eq!(a, t.x_bits(x) | t.y_bits(y));
                        assert!(!seen[a as usize]);
                        seen[a as usize] = true;
                    }
                }
            }
        }
    }

    #[test]
    fn carry_trick_steps() {
        let t = Twiddle::new(6, 3).unwrap();
        let (mut xb, mut yb) = (0, 0);
        for i in 0..t.w_el() {
            assert_eq!(xb, t.x_bits(i));
            xb = step(xb, t.x_mask);
        }
        for i in 0..t.h_el() {
            assert_eq!(yb, t.y_bits(i));
            yb = step(yb, t.y_mask);
        }
        let inc = t.x_bits(4);
        let mut xb = t.x_bits(4);
        for i in (4..t.w_el()).step_by(4) {
            assert_eq!(xb, t.x_bits(i));
            xb = step_by(xb, inc, t.x_mask);
        }
    }

    #[test]
    fn square_helpers_agree_with_the_geometry() {
        let t = Twiddle::new(4, 4).unwrap();
        for y in 0..16u32 {
            for x in 0..16u32 {
                let a = t.offset_el(x, y).unwrap();
                assert_eq!(compact_even(a as u32), y);
                assert_eq!(compact_even((a >> 1) as u32), x);
                if x < 8 && y < 8 {
                    assert_eq!(square8_index(x as usize, y as usize) as u64, a);
                }
                if x % 4 == 0 && y % 4 == 0 {
                    let b = block_of(x as usize / 4, y as usize / 4) as u64;
                    assert_eq!(16 * b, a);
                }
            }
        }
    }

    #[test]
    fn rejects_bad_geometry() {
        assert!(matches!(
            Twiddle::new(16, 0),
            Err(LayoutError::TwiddleTooLarge {
                log2_w: 16,
                log2_h: 0
            })
        ));
        assert!(matches!(
            Twiddle::new(0, MAX_TWIDDLE_LOG2 + 1),
            Err(LayoutError::TwiddleTooLarge { .. })
        ));
        // The largest side is accepted, and its masks cover every address bit once.
        let t = Twiddle::new(MAX_TWIDDLE_LOG2, MAX_TWIDDLE_LOG2).unwrap();
        assert_eq!(t.x_mask | t.y_mask, t.len_el() - 1);
        assert_eq!(t.x_mask & t.y_mask, 0);
        assert!(matches!(
            Twiddle::from_extent(4, 3),
            Err(LayoutError::TwiddleNeedsPowerOfTwo {
                width_px: 4,
                height_px: 3
            })
        ));
        assert!(Twiddle::from_extent(3, 4).is_err());
        assert_eq!(
            Twiddle::from_extent(8, 2).unwrap(),
            Twiddle::new(3, 1).unwrap()
        );
    }
}
