//! Reading and writing a pixel rectangle of one level of one face, whatever its tiling:
//! the texture_subdata / transfer path over an allocation laid out by [`Layout`].

use crate::copy::{self, check_linear, Rect};
use crate::{Layout, LayoutError};

/// A level's byte range in an allocation.
struct Target {
    start_B: usize,
    end_B: usize,
}

impl Layout {
    /// Converts a pixel rectangle of a level to elements (blocks), checking that it lies in
    /// the level and starts and ends on block edges (or at the level's edge).
    pub fn rect_px_to_el(&self, level: u32, box_px: Rect) -> Result<Rect, LayoutError> {
        let l = self.level(level)?;
        box_px.check_inside(l.extent_px.w, l.extent_px.h)?;
        let (bw, bh) = (self.block_w_px, self.block_h_px);
        let (x1, y1) = (box_px.x + box_px.w, box_px.y + box_px.h);
        let aligned = box_px.x.is_multiple_of(bw)
            && box_px.y.is_multiple_of(bh)
            && (x1.is_multiple_of(bw) || x1 == l.extent_px.w)
            && (y1.is_multiple_of(bh) || y1 == l.extent_px.h);
        if !aligned {
            return Err(LayoutError::RectNotBlockAligned {
                x_px: box_px.x,
                y_px: box_px.y,
                w_px: box_px.w,
                h_px: box_px.h,
                block_w_px: bw,
                block_h_px: bh,
            });
        }
        let (x, y) = (box_px.x / bw, box_px.y / bh);
        Ok(Rect {
            x,
            y,
            w: x1.div_ceil(bw) - x,
            h: y1.div_ceil(bh) - y,
        })
    }

    fn resolve(
        &self,
        alloc_len_B: usize,
        face: u32,
        level: u32,
        box_px: Rect,
    ) -> Result<Target, LayoutError> {
        self.rect_px_to_el(level, box_px)?;
        let r = self.level_range_B(face, level)?;
        if (alloc_len_B as u64) < r.end {
            return Err(LayoutError::BufferTooSmall {
                what: "allocation",
                len_B: alloc_len_B,
                need_B: r.end,
            });
        }
        Ok(Target {
            start_B: r.start as usize,
            end_B: r.end as usize,
        })
    }

    /// Writes a pixel rectangle of one level of one face from linear memory (`src`'s first
    /// byte is the rectangle's top-left element, rows `src_stride_B` apart). Touches no byte
    /// of `alloc` outside the rectangle's texels.
    pub fn write_rect(
        &self,
        alloc: &mut [u8],
        face: u32,
        level: u32,
        box_px: Rect,
        src: &[u8],
        src_stride_B: usize,
    ) -> Result<(), LayoutError> {
        let t = self.resolve(alloc.len(), face, level, box_px)?;
        self.write_rect_in_level(
            &mut alloc[t.start_B..t.end_B],
            level,
            box_px,
            src,
            src_stride_B,
        )
    }

    /// As [`Layout::write_rect`], on the bytes of one level alone (`level_bytes` starts at the
    /// level's first byte and holds at least its `size_B`): a large chain need not be present
    /// to write one small level.
    pub fn write_rect_in_level(
        &self,
        level_bytes: &mut [u8],
        level: u32,
        box_px: Rect,
        src: &[u8],
        src_stride_B: usize,
    ) -> Result<(), LayoutError> {
        let rect_el = self.rect_px_to_el(level, box_px)?;
        let l = self.level(level)?;
        if (level_bytes.len() as u64) < l.size_B {
            return Err(LayoutError::BufferTooSmall {
                what: "level",
                len_B: level_bytes.len(),
                need_B: l.size_B,
            });
        }
        let bpe = self.bytes_per_el as usize;
        let dst = &mut level_bytes[..l.size_B as usize];
        match l.twiddle() {
            Some(g) => copy::linear_to_twiddled(dst, &g, rect_el, src, src_stride_B, bpe),
            None => {
                let r = rect_el;
                if check_linear("source", src.len(), src_stride_B, r.w, r.h, bpe)? {
                    let (row_B, stride_B) = (r.w as usize * bpe, l.stride_B as usize);
                    for y in 0..r.h as usize {
                        let d = (r.y as usize + y) * stride_B + r.x as usize * bpe;
                        dst[d..d + row_B].copy_from_slice(&src[y * src_stride_B..][..row_B]);
                    }
                }
                Ok(())
            }
        }
    }

    /// Reads a pixel rectangle of one level of one face into linear memory.
    pub fn read_rect(
        &self,
        alloc: &[u8],
        face: u32,
        level: u32,
        box_px: Rect,
        dst: &mut [u8],
        dst_stride_B: usize,
    ) -> Result<(), LayoutError> {
        let t = self.resolve(alloc.len(), face, level, box_px)?;
        self.read_rect_in_level(&alloc[t.start_B..t.end_B], level, box_px, dst, dst_stride_B)
    }

    /// As [`Layout::read_rect`], from the bytes of one level alone (`level_bytes` starts at
    /// the level's first byte and holds at least its `size_B`).
    pub fn read_rect_in_level(
        &self,
        level_bytes: &[u8],
        level: u32,
        box_px: Rect,
        dst: &mut [u8],
        dst_stride_B: usize,
    ) -> Result<(), LayoutError> {
        let rect_el = self.rect_px_to_el(level, box_px)?;
        let l = self.level(level)?;
        if (level_bytes.len() as u64) < l.size_B {
            return Err(LayoutError::BufferTooSmall {
                what: "level",
                len_B: level_bytes.len(),
                need_B: l.size_B,
            });
        }
        let bpe = self.bytes_per_el as usize;
        let src = &level_bytes[..l.size_B as usize];
        match l.twiddle() {
            Some(g) => copy::twiddled_to_linear(dst, dst_stride_B, src, &g, rect_el, bpe),
            None => {
                let r = rect_el;
                if check_linear("destination", dst.len(), dst_stride_B, r.w, r.h, bpe)? {
                    let (row_B, stride_B) = (r.w as usize * bpe, l.stride_B as usize);
                    for y in 0..r.h as usize {
                        let s = (r.y as usize + y) * stride_B + r.x as usize * bpe;
                        dst[y * dst_stride_B..][..row_B].copy_from_slice(&src[s..s + row_B]);
                    }
                }
                Ok(())
            }
        }
    }

    /// Reads a whole level of one face into a tightly packed linear image (rows of
    /// `extent_el.w * bytes_per_el`).
    pub fn read_level(&self, alloc: &[u8], face: u32, level: u32) -> Result<Vec<u8>, LayoutError> {
        let l = self.level(level)?;
        let row_B = l.extent_el.w as usize * self.bytes_per_el as usize;
        let mut out = vec![0u8; row_B * l.extent_el.h as usize];
        self.read_rect(
            alloc,
            face,
            level,
            Rect::full(l.extent_px.w, l.extent_px.h),
            &mut out,
            row_B,
        )?;
        Ok(out)
    }

    /// Writes a whole level of one face from a tightly packed linear image.
    pub fn write_level(
        &self,
        alloc: &mut [u8],
        face: u32,
        level: u32,
        src: &[u8],
    ) -> Result<(), LayoutError> {
        let l = self.level(level)?;
        let row_B = l.extent_el.w as usize * self.bytes_per_el as usize;
        self.write_rect(
            alloc,
            face,
            level,
            Rect::full(l.extent_px.w, l.extent_px.h),
            src,
            row_B,
        )
    }
}
