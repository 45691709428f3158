//! Reading and writing a pixel rectangle of one level of one face, or a box of slices of a
//! 3D level, whatever its tiling: the texture_subdata / transfer path over an allocation laid
//! out by [`Layout`]. A box is copied slice by slice with the 2D copies, since each slice is
//! laid out as a 2D level.

use crate::copy::{self, check_linear, Rect};
use crate::{Layout, LayoutError, LevelLayout};

/// A box of pixels: a rectangle of `d` consecutive slices from slice `z`. The unit of x, y,
/// w and h is named by the parameter that takes it; z and d count slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Box3 {
    /// Left column.
    pub x: u32,
    /// Top row.
    pub y: u32,
    /// First slice.
    pub z: u32,
    /// Width.
    pub w: u32,
    /// Height.
    pub h: u32,
    /// Slices.
    pub d: u32,
}

impl Box3 {
    /// A box from its corner and size.
    pub fn new(x: u32, y: u32, z: u32, w: u32, h: u32, d: u32) -> Self {
        Self { x, y, z, w, h, d }
    }

    /// The box covering a whole `w x h x d` level.
    pub fn full(w: u32, h: u32, d: u32) -> Self {
        Self::new(0, 0, 0, w, h, d)
    }

    /// A rectangle of `d` slices from slice `z`.
    pub fn from_rect(r: Rect, z: u32, d: u32) -> Self {
        Self::new(r.x, r.y, z, r.w, r.h, d)
    }

    /// The rectangle every slice of the box covers.
    pub fn rect(&self) -> Rect {
        Rect::new(self.x, self.y, self.w, self.h)
    }
}

/// A level's byte range in an allocation.
struct LevelBytes {
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

    /// Checks a box of a level: its rectangle as [`Layout::rect_px_to_el`], its slices inside
    /// the level's depth. Returns the rectangle in elements.
    fn box_px_to_el(&self, level: u32, box_px: Box3) -> Result<Rect, LayoutError> {
        let rect_el = self.rect_px_to_el(level, box_px.rect())?;
        let l = self.level(level)?;
        if u64::from(box_px.z) + u64::from(box_px.d) > u64::from(l.depth_px) {
            return Err(LayoutError::BoxOutOfRange {
                x_px: box_px.x,
                y_px: box_px.y,
                z_px: box_px.z,
                w_px: box_px.w,
                h_px: box_px.h,
                d_px: box_px.d,
                level_w_px: l.extent_px.w,
                level_h_px: l.extent_px.h,
                level_d_px: l.depth_px,
            });
        }
        Ok(rect_el)
    }

    fn resolve(
        &self,
        alloc_len_B: usize,
        face: u32,
        level: u32,
        box_px: Box3,
    ) -> Result<LevelBytes, LayoutError> {
        self.box_px_to_el(level, box_px)?;
        let r = self.level_range_B(face, level)?;
        LayoutError::check_len("allocation", alloc_len_B, r.end)?;
        Ok(LevelBytes {
            start_B: r.start as usize,
            end_B: r.end as usize,
        })
    }

    /// Writes a pixel rectangle of one level of one face from linear memory (`src`'s first
    /// byte is the rectangle's top-left element, rows `src_stride_B` apart). Touches no byte
    /// of `alloc` outside the rectangle's texels. On a 3D level the rectangle is in slice 0
    /// (see [`Layout::write_box`]).
    pub fn write_rect(
        &self,
        alloc: &mut [u8],
        face: u32,
        level: u32,
        box_px: Rect,
        src: &[u8],
        src_stride_B: usize,
    ) -> Result<(), LayoutError> {
        self.write_box(
            alloc,
            face,
            level,
            Box3::from_rect(box_px, 0, 1),
            src,
            src_stride_B,
            0,
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
        self.write_box_in_level(
            level_bytes,
            level,
            Box3::from_rect(box_px, 0, 1),
            src,
            src_stride_B,
            0,
        )
    }

    /// Writes a pixel box of one level of one face from linear memory: `src`'s first byte is
    /// the box's top-left element of its first slice, rows `src_stride_B` apart, slices
    /// `src_slice_B` apart (unused when the box has one slice). Touches no byte of `alloc`
    /// outside the box's texels; an error writes nothing.
    #[allow(clippy::too_many_arguments)]
    pub fn write_box(
        &self,
        alloc: &mut [u8],
        face: u32,
        level: u32,
        box_px: Box3,
        src: &[u8],
        src_stride_B: usize,
        src_slice_B: usize,
    ) -> Result<(), LayoutError> {
        let t = self.resolve(alloc.len(), face, level, box_px)?;
        self.write_box_in_level(
            &mut alloc[t.start_B..t.end_B],
            level,
            box_px,
            src,
            src_stride_B,
            src_slice_B,
        )
    }

    /// As [`Layout::write_box`], on the bytes of one level alone (`level_bytes` starts at the
    /// level's first byte and holds at least its `size_B`, all slices).
    pub fn write_box_in_level(
        &self,
        level_bytes: &mut [u8],
        level: u32,
        box_px: Box3,
        src: &[u8],
        src_stride_B: usize,
        src_slice_B: usize,
    ) -> Result<(), LayoutError> {
        let linear = Linear::of("source", src, src_stride_B, src_slice_B);
        let len_B = level_bytes.len();
        self.each_slice(len_B, level, box_px, linear, |l, z, at_B, r, bpe| {
            let (dst, src) = (&mut level_bytes[z], &src[at_B..]);
            write_slice(l, dst, r, src, src_stride_B, bpe)
        })
    }

    /// Reads a pixel rectangle of one level of one face into linear memory (slice 0 of a 3D
    /// level; see [`Layout::read_box`]).
    pub fn read_rect(
        &self,
        alloc: &[u8],
        face: u32,
        level: u32,
        box_px: Rect,
        dst: &mut [u8],
        dst_stride_B: usize,
    ) -> Result<(), LayoutError> {
        self.read_box(
            alloc,
            face,
            level,
            Box3::from_rect(box_px, 0, 1),
            dst,
            dst_stride_B,
            0,
        )
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
        self.read_box_in_level(
            level_bytes,
            level,
            Box3::from_rect(box_px, 0, 1),
            dst,
            dst_stride_B,
            0,
        )
    }

    /// Reads a pixel box of one level of one face into linear memory: rows `dst_stride_B`
    /// apart, slices `dst_slice_B` apart (unused when the box has one slice).
    #[allow(clippy::too_many_arguments)]
    pub fn read_box(
        &self,
        alloc: &[u8],
        face: u32,
        level: u32,
        box_px: Box3,
        dst: &mut [u8],
        dst_stride_B: usize,
        dst_slice_B: usize,
    ) -> Result<(), LayoutError> {
        let t = self.resolve(alloc.len(), face, level, box_px)?;
        self.read_box_in_level(
            &alloc[t.start_B..t.end_B],
            level,
            box_px,
            dst,
            dst_stride_B,
            dst_slice_B,
        )
    }

    /// As [`Layout::read_box`], from the bytes of one level alone (`level_bytes` starts at
    /// the level's first byte and holds at least its `size_B`, all slices).
    pub fn read_box_in_level(
        &self,
        level_bytes: &[u8],
        level: u32,
        box_px: Box3,
        dst: &mut [u8],
        dst_stride_B: usize,
        dst_slice_B: usize,
    ) -> Result<(), LayoutError> {
        let linear = Linear::of("destination", dst, dst_stride_B, dst_slice_B);
        let len_B = level_bytes.len();
        self.each_slice(len_B, level, box_px, linear, |l, z, at_B, r, bpe| {
            let (src, dst) = (&level_bytes[z], &mut dst[at_B..]);
            read_slice(l, src, r, dst, dst_stride_B, bpe)
        })
    }

    /// Checks a box against its level and the linear side of a copy, then calls
    /// `slice(level, slice_bytes, linear_B, rect_el, bytes_per_el)` for each slice of the box
    /// (none when the box is empty): the range of the slice's bytes within the level's, and
    /// the offset of its first element on the linear side.
    fn each_slice(
        &self,
        level_len_B: usize,
        level: u32,
        box_px: Box3,
        linear: Linear,
        mut slice: impl FnMut(
            &LevelLayout,
            std::ops::Range<usize>,
            usize,
            Rect,
            usize,
        ) -> Result<(), LayoutError>,
    ) -> Result<(), LayoutError> {
        let (l, rect_el) = self.check_box(level_len_B, level, box_px)?;
        let bpe = self.bytes_per_el as usize;
        let Linear {
            what,
            len_B,
            stride_B,
            slice_B,
        } = linear;
        if !check_box_linear(what, len_B, stride_B, slice_B, rect_el, box_px.d, bpe)? {
            return Ok(());
        }
        for i in 0..box_px.d {
            slice(
                l,
                slice_bytes(l, box_px.z + i),
                i as usize * slice_B,
                rect_el,
                bpe,
            )?;
        }
        Ok(())
    }

    /// Checks a box against its level and the level bytes' length.
    fn check_box(
        &self,
        level_len_B: usize,
        level: u32,
        box_px: Box3,
    ) -> Result<(&LevelLayout, Rect), LayoutError> {
        let rect_el = self.box_px_to_el(level, box_px)?;
        let l = self.level(level)?;
        LayoutError::check_len("level", level_len_B, l.size_B)?;
        Ok((l, rect_el))
    }

    /// Reads a whole level of one face into a tightly packed linear image (rows of
    /// `extent_el.w * bytes_per_el`, then, for 3D, slices of `extent_el.h` rows).
    pub fn read_level(&self, alloc: &[u8], face: u32, level: u32) -> Result<Vec<u8>, LayoutError> {
        let l = self.level(level)?;
        let row_B = l.extent_el.w as usize * self.bytes_per_el as usize;
        let slice_B = row_B * l.extent_el.h as usize;
        let mut out = vec![0u8; slice_B * l.depth_px as usize];
        self.read_box(
            alloc,
            face,
            level,
            Box3::full(l.extent_px.w, l.extent_px.h, l.depth_px),
            &mut out,
            row_B,
            slice_B,
        )?;
        Ok(out)
    }

    /// Writes a whole level of one face (every slice) from a tightly packed linear image.
    pub fn write_level(
        &self,
        alloc: &mut [u8],
        face: u32,
        level: u32,
        src: &[u8],
    ) -> Result<(), LayoutError> {
        let l = self.level(level)?;
        let row_B = l.extent_el.w as usize * self.bytes_per_el as usize;
        let slice_B = row_B * l.extent_el.h as usize;
        self.write_box(
            alloc,
            face,
            level,
            Box3::full(l.extent_px.w, l.extent_px.h, l.depth_px),
            src,
            row_B,
            slice_B,
        )
    }
}

/// The linear side of a box copy: what it is called in errors, its length, row and slice
/// strides.
struct Linear {
    what: &'static str,
    len_B: usize,
    stride_B: usize,
    slice_B: usize,
}

impl Linear {
    /// The linear side `bytes`, rows `stride_B` and slices `slice_B` apart.
    fn of(what: &'static str, bytes: &[u8], stride_B: usize, slice_B: usize) -> Linear {
        Linear {
            what,
            len_B: bytes.len(),
            stride_B,
            slice_B,
        }
    }
}

/// Checks a linear buffer of `d` slices of `rect_el` at `stride_B` and `slice_B`: slices may
/// not overlap. `false` when the box is empty.
fn check_box_linear(
    what: &'static str,
    len_B: usize,
    stride_B: usize,
    slice_B: usize,
    rect_el: Rect,
    d: u32,
    bpe: usize,
) -> Result<bool, LayoutError> {
    if d == 0 || !check_linear(what, len_B, stride_B, rect_el.w, rect_el.h, bpe)? {
        return Ok(false);
    }
    let one_B = (rect_el.h as usize - 1) * stride_B + rect_el.w as usize * bpe;
    if d > 1 && slice_B < one_B {
        return Err(LayoutError::SliceStrideTooSmall {
            slice_stride_B: slice_B,
            slice_B: one_B,
        });
    }
    // Checked: the slice stride comes from the caller. Past u64 is too big for any buffer.
    let need_B = u64::from(d - 1)
        .checked_mul(slice_B as u64)
        .and_then(|b| b.checked_add(one_B as u64))
        .unwrap_or(u64::MAX);
    LayoutError::check_len(what, len_B, need_B)?;
    Ok(true)
}

/// The bytes of slice `z` within its level's bytes; the box was checked, so `z` is inside.
fn slice_bytes(l: &LevelLayout, z: u32) -> std::ops::Range<usize> {
    let start_B = (u64::from(z) * l.slice_stride_B) as usize;
    start_B..start_B + l.slice_stride_B as usize
}

/// Writes a checked rectangle of one slice (`dst` holds exactly the slice's bytes).
fn write_slice(
    l: &LevelLayout,
    dst: &mut [u8],
    r: Rect,
    src: &[u8],
    src_stride_B: usize,
    bpe: usize,
) -> Result<(), LayoutError> {
    match l.twiddle() {
        Some(g) => copy::linear_to_twiddled(dst, &g, r, src, src_stride_B, bpe),
        None => {
            let (row_B, stride_B) = (r.w as usize * bpe, l.stride_B as usize);
            for y in 0..r.h as usize {
                let d = (r.y as usize + y) * stride_B + r.x as usize * bpe;
                dst[d..d + row_B].copy_from_slice(&src[y * src_stride_B..][..row_B]);
            }
            Ok(())
        }
    }
}

/// Reads a checked rectangle of one slice (`src` holds exactly the slice's bytes).
fn read_slice(
    l: &LevelLayout,
    src: &[u8],
    r: Rect,
    dst: &mut [u8],
    dst_stride_B: usize,
    bpe: usize,
) -> Result<(), LayoutError> {
    match l.twiddle() {
        Some(g) => copy::twiddled_to_linear(dst, dst_stride_B, src, &g, r, bpe),
        None => {
            let (row_B, stride_B) = (r.w as usize * bpe, l.stride_B as usize);
            for y in 0..r.h as usize {
                let s = (r.y as usize + y) * stride_B + r.x as usize * bpe;
                dst[y * dst_stride_B..][..row_B].copy_from_slice(&src[s..s + row_B]);
            }
            Ok(())
        }
    }
}
