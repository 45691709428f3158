//! The fast copies: a walk over the rectangle's tiles (in the manner of isl's
//! tiled_memcpy), grouped into super-tiles. A tile is the largest aligned square of at most 16x16 elements whose texels
//! are contiguous in twiddled memory; a tile wholly inside the rectangle is moved by a
//! specialised body, 4x4 blocks at a time in twiddled order, so the twiddled side streams.
//! Partial tiles on the rectangle's borders take the generic per-texel path. Neither
//! interleaves bits per texel: X and Y are kept in deposited (Morton) form and advanced with
//! the carry trick of [`crate::morton::step`].

use super::{check_copy, Rect};
use crate::morton::{step, step_by, Twiddle};
use crate::LayoutError;

/// Largest tile side, log2: the pixel pipeline's 16x16 tile.
const MAX_TILE_LOG2: u32 = 4;

/// Largest super-tile side, log2: 128x128 elements keep both sides' working set in L2.
const SUPER_LOG2: u32 = 7;

/// Element index, within a 4x4 twiddled block, of each (row, column).
const BLOCK_INDEX: [[usize; 4]; 4] = [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]];

/// (column, row) of each 4x4 block of a 16x16 tile, in twiddled order; its prefixes of 1
/// and 4 entries are the orders of 4x4 and 8x8 tiles.
const TILE_BLOCKS: [(usize, usize); 16] = {
    let mut t = [(0, 0); 16];
    let mut b = 0;
    while b < 16 {
        t[b] = (
            ((b >> 1) & 1) | (((b >> 3) & 1) << 1),
            (b & 1) | (((b >> 2) & 1) << 1),
        );
        b += 1;
    }
    t
};

/// Moves elements of `N` bytes in one direction. `t` is a twiddled byte offset, `l` a
/// linear byte offset.
trait Mover<const N: usize> {
    /// One element.
    fn texel(&mut self, t: usize, l: usize);
    /// A 4x4 block: 16 contiguous twiddled elements from `t`, rows of 4 from `l`.
    fn block(&mut self, t: usize, l: usize);
}

struct ToLinear<'a> {
    tw: &'a [u8],
    lin: &'a mut [u8],
    stride: usize,
}

impl<const N: usize> Mover<N> for ToLinear<'_> {
    #[inline(always)]
    fn texel(&mut self, t: usize, l: usize) {
        self.lin[l..l + N].copy_from_slice(&self.tw[t..t + N]);
    }

    #[inline(always)]
    fn block(&mut self, t: usize, l: usize) {
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            return super::sse2::block_to_linear(self.lin, l, self.stride, self.tw, t);
        }
        let src = &self.tw[t..t + 16 * N];
        for (r, idx) in BLOCK_INDEX.iter().enumerate() {
            let row = &mut self.lin[l + r * self.stride..][..4 * N];
            for (c, &i) in idx.iter().enumerate() {
                row[c * N..][..N].copy_from_slice(&src[i * N..][..N]);
            }
        }
    }
}

struct ToTwiddled<'a> {
    tw: &'a mut [u8],
    lin: &'a [u8],
    stride: usize,
}

impl<const N: usize> Mover<N> for ToTwiddled<'_> {
    #[inline(always)]
    fn texel(&mut self, t: usize, l: usize) {
        self.tw[t..t + N].copy_from_slice(&self.lin[l..l + N]);
    }

    #[inline(always)]
    fn block(&mut self, t: usize, l: usize) {
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            return super::sse2::block_to_twiddled(self.tw, t, self.lin, l, self.stride);
        }
        let mut blk = [[0u8; N]; 16];
        for (r, idx) in BLOCK_INDEX.iter().enumerate() {
            let mut row = [[0u8; N]; 4];
            row.as_flattened_mut()
                .copy_from_slice(&self.lin[l + r * self.stride..][..4 * N]);
            for (c, &i) in idx.iter().enumerate() {
                blk[i] = row[c];
            }
        }
        self.tw[t..t + 16 * N].copy_from_slice(blk.as_flattened());
    }
}

/// Per-texel path for the part `xs x ys` of the rectangle whose origin is (`x0`, `y0`).
#[inline(always)]
fn border<const N: usize, M: Mover<N>>(
    m: &mut M,
    g: &Twiddle,
    (x0, y0): (u32, u32),
    xs: std::ops::Range<u32>,
    ys: std::ops::Range<u32>,
    stride: usize,
) {
    let xb0 = g.x_bits(xs.start);
    let mut yb = g.y_bits(ys.start);
    for y in ys {
        let mut l = (y - y0) as usize * stride + (xs.start - x0) as usize * N;
        let mut xb = xb0;
        for _ in xs.clone() {
            m.texel((xb | yb) as usize * N, l);
            xb = step(xb, g.x_mask);
            l += N;
        }
        yb = step(yb, g.y_mask);
    }
}

/// Whole-tile body: `blocks` 4x4 blocks from twiddled byte `t`, linear top-left byte `l`.
#[inline(always)]
fn whole_tile<const N: usize, M: Mover<N>>(
    m: &mut M,
    t: usize,
    l: usize,
    blocks: usize,
    stride: usize,
) {
    for (b, &(bx, by)) in TILE_BLOCKS[..blocks].iter().enumerate() {
        m.block(t + b * 16 * N, l + by * 4 * stride + bx * 4 * N);
    }
}

/// Gathers the even bits of `v` (bits 0, 2, 4, ...) into its low bits.
#[inline(always)]
fn compact_even(v: u32) -> u32 {
    let mut v = v & 0x5555_5555;
    v = (v | (v >> 1)) & 0x3333_3333;
    v = (v | (v >> 2)) & 0x0f0f_0f0f;
    v = (v | (v >> 4)) & 0x00ff_00ff;
    (v | (v >> 8)) & 0x0000_ffff
}

fn walk<const N: usize, M: Mover<N>>(m: &mut M, g: &Twiddle, r: Rect, stride: usize) {
    let (x0, y0, x1, y1) = (r.x, r.y, r.x + r.w, r.y + r.h);
    let s = g.log2_w.min(g.log2_h);
    let tile_log2 = s.min(MAX_TILE_LOG2);
    if tile_log2 < 2 {
        // One or two elements thick: no 4x4 block fits.
        border::<N, M>(m, g, (x0, y0), x0..x1, y0..y1, stride);
        return;
    }
    let blocks = 1usize << (2 * (tile_log2 - 2));
    let tile_el = 1usize << (2 * tile_log2);
    // Super-tiles are walked row by row, their tiles in twiddled order: the twiddled side
    // streams through each super-tile while the linear side stays within a band of rows.
    let super_log2 = s.min(SUPER_LOG2);
    let tiles_per_super = 1u32 << (2 * (super_log2 - tile_log2));
    let (sx0, sx1) = (x0 >> super_log2, (x1 - 1) >> super_log2);
    let (sy0, sy1) = (y0 >> super_log2, (y1 - 1) >> super_log2);
    let side = 1u32 << super_log2;
    let (x_inc, y_inc) = (g.x_bits(side), g.y_bits(side));
    let mut yb = g.y_bits(sy0 << super_log2);
    for sy in sy0..=sy1 {
        let mut xb = g.x_bits(sx0 << super_log2);
        for sx in sx0..=sx1 {
            let super_base = (xb | yb) as usize;
            for k in 0..tiles_per_super {
                let tx_start = (sx << super_log2) + (compact_even(k >> 1) << tile_log2);
                let ty_start = (sy << super_log2) + (compact_even(k) << tile_log2);
                let (tx_end, ty_end) = (tx_start + (1 << tile_log2), ty_start + (1 << tile_log2));
                let xs = tx_start.max(x0)..tx_end.min(x1);
                let ys = ty_start.max(y0)..ty_end.min(y1);
                if xs.is_empty() || ys.is_empty() {
                    continue;
                }
                if xs.start == tx_start
                    && xs.end == tx_end
                    && ys.start == ty_start
                    && ys.end == ty_end
                {
                    let t = (super_base + k as usize * tile_el) * N;
                    let l = (ty_start - y0) as usize * stride + (tx_start - x0) as usize * N;
                    whole_tile::<N, M>(m, t, l, blocks, stride);
                } else {
                    border::<N, M>(m, g, (x0, y0), xs, ys, stride);
                }
            }
            xb = step_by(xb, x_inc, g.x_mask);
        }
        yb = step_by(yb, y_inc, g.y_mask);
    }
}

fn dispatch<M>(m: &mut M, g: &Twiddle, r: Rect, stride: usize, bpe: usize)
where
    M: Mover<1> + Mover<2> + Mover<4> + Mover<8> + Mover<16>,
{
    match bpe {
        1 => walk::<1, M>(m, g, r, stride),
        2 => walk::<2, M>(m, g, r, stride),
        4 => walk::<4, M>(m, g, r, stride),
        8 => walk::<8, M>(m, g, r, stride),
        16 => walk::<16, M>(m, g, r, stride),
        // check_copy admits only the sizes above.
        _ => unreachable!("element size checked"),
    }
}

/// Copies a linear rectangle into a twiddled level by the tile walk.
pub fn linear_to_twiddled(
    tw: &mut [u8],
    geom: &Twiddle,
    rect_el: Rect,
    lin: &[u8],
    lin_stride_B: usize,
    bytes_per_el: usize,
) -> Result<(), LayoutError> {
    if check_copy(
        tw.len(),
        geom,
        rect_el,
        lin.len(),
        lin_stride_B,
        bytes_per_el,
    )? {
        let mut m = ToTwiddled {
            tw,
            lin,
            stride: lin_stride_B,
        };
        dispatch(&mut m, geom, rect_el, lin_stride_B, bytes_per_el);
    }
    Ok(())
}

/// Copies a rectangle of a twiddled level into linear memory by the tile walk.
pub fn twiddled_to_linear(
    lin: &mut [u8],
    lin_stride_B: usize,
    tw: &[u8],
    geom: &Twiddle,
    rect_el: Rect,
    bytes_per_el: usize,
) -> Result<(), LayoutError> {
    if check_copy(
        tw.len(),
        geom,
        rect_el,
        lin.len(),
        lin_stride_B,
        bytes_per_el,
    )? {
        let mut m = ToLinear {
            tw,
            lin,
            stride: lin_stride_B,
        };
        dispatch(&mut m, geom, rect_el, lin_stride_B, bytes_per_el);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_tables_follow_morton_order() {
        let g = Twiddle::new(4, 4).unwrap();
        for (r, idx) in BLOCK_INDEX.iter().enumerate() {
            for (c, &i) in idx.iter().enumerate() {
                assert_eq!(g.offset_el(c as u32, r as u32), Some(i as u64));
            }
        }
        for (b, &(bx, by)) in TILE_BLOCKS.iter().enumerate() {
            assert_eq!(
                g.offset_el(4 * bx as u32, 4 * by as u32),
                Some(16 * b as u64)
            );
        }
    }
}
