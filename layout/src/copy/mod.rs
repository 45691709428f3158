//! Copies between linear memory and a twiddled level, for whole levels and sub-rectangles.
//!
//! Both directions take the twiddled level's bytes (the whole level, from its first byte),
//! its [`Twiddle`] geometry, a rectangle in elements, and a linear buffer whose first byte is
//! the rectangle's top-left element, with rows `stride_B` apart. Elements are 1, 2, 4, 8 or
//! 16 bytes; a block format's element is its block (the caller converts pixels to blocks, as
//! [`crate::Layout::write_rect`] does). Bytes outside the rectangle are never written.
//!
//! [`mod@reference`] computes every texel's Morton address from scratch; the default functions
//! here are the fast tile walk of [`fast`]. Tests hold one against the other.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx2_narrow;
#[cfg(target_arch = "x86_64")]
mod avx512_narrow;
pub mod fast;
pub(crate) mod parallel;
pub mod reference;
#[cfg(target_arch = "x86_64")]
mod rows;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(target_arch = "x86_64")]
mod sse2_narrow;
#[cfg(target_arch = "x86_64")]
mod ssse3_narrow;
#[cfg(target_arch = "x86_64")]
mod unpack;
#[cfg(target_arch = "x86_64")]
mod vector;

use crate::morton::Twiddle;
use crate::LayoutError;

/// A rectangle; the unit (pixels or elements) is named by the parameter that takes it. The one
/// rectangle type of the workspace (winsys's 2D jobs take it too, as `sgx_winsys::twod::Rect`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Rect {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
}

impl Rect {
    /// A rectangle from its corner and size.
    pub const fn new(x: u32, y: u32, w: u32, h: u32) -> Self {
        Self { x, y, w, h }
    }

    /// The rectangle covering a whole `w x h` surface.
    pub fn full(w: u32, h: u32) -> Self {
        Self { x: 0, y: 0, w, h }
    }

    /// Whether it lies inside a `level_w x level_h` surface (or fails, naming both).
    pub fn check_inside(&self, level_w: u32, level_h: u32) -> Result<(), LayoutError> {
        let inside = u64::from(self.x) + u64::from(self.w) <= u64::from(level_w)
            && u64::from(self.y) + u64::from(self.h) <= u64::from(level_h);
        if inside {
            Ok(())
        } else {
            Err(LayoutError::RectOutOfRange {
                x: self.x,
                y: self.y,
                w: self.w,
                h: self.h,
                level_w,
                level_h,
            })
        }
    }
}

/// Element sizes the copies handle.
pub const ELEMENT_SIZES_B: [usize; 5] = [1, 2, 4, 8, 16];

/// Checks a linear buffer of `h` rows of `w` elements at `stride_B`. `false` when empty.
pub(crate) fn check_linear(
    what: &'static str,
    len_B: usize,
    stride_B: usize,
    w_el: u32,
    h_el: u32,
    bytes_per_el: usize,
) -> Result<bool, LayoutError> {
    if w_el == 0 || h_el == 0 {
        return Ok(false);
    }
    let row_B = w_el as usize * bytes_per_el;
    if stride_B < row_B {
        return Err(LayoutError::StrideTooSmall { stride_B, row_B });
    }
    let need_B = (u64::from(h_el) - 1) * stride_B as u64 + row_B as u64;
    LayoutError::check_len(what, len_B, need_B)?;
    Ok(true)
}

/// Validates a copy's arguments; `Ok(false)` for an empty rectangle (nothing to do).
pub(crate) fn check_copy(
    tw_len_B: usize,
    geom: &Twiddle,
    rect_el: Rect,
    lin_len_B: usize,
    lin_stride_B: usize,
    bytes_per_el: usize,
) -> Result<bool, LayoutError> {
    if !ELEMENT_SIZES_B.contains(&bytes_per_el) {
        return Err(LayoutError::UnsupportedElementSize { bytes_per_el });
    }
    rect_el.check_inside(geom.w_el(), geom.h_el())?;
    let need_B = geom.len_el() * bytes_per_el as u64;
    LayoutError::check_len("twiddled level", tw_len_B, need_B)?;
    check_linear(
        "linear",
        lin_len_B,
        lin_stride_B,
        rect_el.w,
        rect_el.h,
        bytes_per_el,
    )
}

/// The copies callers use are the fast ones; [`reference`](mod@reference) keeps the slow
/// obvious twins.
pub use fast::{linear_to_twiddled, twiddled_to_linear};
