//! The polygon stipple (PrimState.poly_stipple, MODEL): a 32x32 window-aligned bit pattern
//! that drops the pixels of triangles whose bit is clear, before any test or shading.

use sgx_hwdocs::render::PrimState;

use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::Unit;

/// Pattern rows: row `y % 32` of window row `y`, bit `31 - x % 32` for pixel `x`.
pub(super) type Rows = [u32; 32];

/// Reads the draw's pattern when its polygon stipple is on.
pub(super) fn load(mmu: &Mmu, p: &PrimState) -> Result<Option<Rows>, JobErr> {
    if !p.poly_stipple {
        return Ok(None);
    }
    let mut rows = [0u32; 32];
    mmu.read_dwords(Unit::Isp, p.stipple_addr, &mut rows)?;
    Ok(Some(rows))
}

/// Whether the pattern keeps window pixel (x, y) (both non-negative).
#[inline]
pub(super) fn keeps(rows: &Rows, x: i64, y: i64) -> bool {
    // GL's 32x32 pattern, leftmost pixel in bit 31 (Gallium's order), not a hardware number.
    rows[(y & 31) as usize] & (0x8000_0000 >> (x & 31)) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_31_is_the_leftmost_pixel_and_the_pattern_repeats_every_32() {
        let mut rows = [0u32; 32];
        rows[1] = 0x8000_0001;
        assert!(keeps(&rows, 0, 1));
        assert!(keeps(&rows, 31, 1));
        assert!(keeps(&rows, 32, 33));
        assert!(!keeps(&rows, 1, 1));
        assert!(!keeps(&rows, 0, 0));
        assert!(!keeps(&rows, 0, 2));
    }
}
