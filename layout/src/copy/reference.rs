//! The obvious copies: for every texel, compute its Morton address from scratch.

use super::{check_copy, Rect};
use crate::morton::Twiddle;
use crate::LayoutError;

/// Checks the copy (`check_copy`), then calls `f(twiddled_B, linear_B)` with the byte offsets
/// of each texel of `rect_el` on both sides, row by row.
fn for_each_texel(
    (tw_len_B, lin_len_B): (usize, usize),
    geom: &Twiddle,
    rect_el: Rect,
    stride_B: usize,
    bpe: usize,
    mut f: impl FnMut(usize, usize),
) -> Result<(), LayoutError> {
    if !check_copy(tw_len_B, geom, rect_el, lin_len_B, stride_B, bpe)? {
        return Ok(());
    }
    for y in 0..rect_el.h {
        for x in 0..rect_el.w {
            // check_copy put the rectangle inside the level.
            let t = geom
                .offset_el(rect_el.x + x, rect_el.y + y)
                .expect("texel inside the level") as usize;
            f(t * bpe, y as usize * stride_B + x as usize * bpe);
        }
    }
    Ok(())
}

/// Copies a linear rectangle into a twiddled level, one texel at a time.
pub fn linear_to_twiddled(
    tw: &mut [u8],
    geom: &Twiddle,
    rect_el: Rect,
    lin: &[u8],
    lin_stride_B: usize,
    bytes_per_el: usize,
) -> Result<(), LayoutError> {
    let (lens_B, n) = ((tw.len(), lin.len()), bytes_per_el);
    for_each_texel(lens_B, geom, rect_el, lin_stride_B, n, |t, l| {
        tw[t..t + n].copy_from_slice(&lin[l..l + n])
    })
}

/// Copies a rectangle of a twiddled level into linear memory, one texel at a time.
pub fn twiddled_to_linear(
    lin: &mut [u8],
    lin_stride_B: usize,
    tw: &[u8],
    geom: &Twiddle,
    rect_el: Rect,
    bytes_per_el: usize,
) -> Result<(), LayoutError> {
    let (lens_B, n) = ((tw.len(), lin.len()), bytes_per_el);
    for_each_texel(lens_B, geom, rect_el, lin_stride_B, n, |t, l| {
        lin[l..l + n].copy_from_slice(&tw[t..t + n])
    })
}
