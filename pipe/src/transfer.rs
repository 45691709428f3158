//! CPU access to resources: transfers, subdata, CPU copies.
//!
//! GPU-newer data is synchronised before any CPU read of it: pending work that uses the
//! resource is submitted, then the buffer map waits by dma-resv rules (a read waits for the
//! writer, a write for everyone). Never earlier, never skipped — except with UNSYNCHRONIZED,
//! where the caller promised not to touch bytes in use.

use std::sync::Arc;

use sgx_layout::Box3;
use sgx_winsys::Access;

use crate::context::Context;
use crate::error::{invalid, Result};
use crate::resource::{Resource, ResourceTarget};

/// `PIPE_MAP_*` flags.
pub mod map_flags {
    /// The CPU reads.
    pub const READ: u32 = 1 << 0;
    /// The CPU writes.
    pub const WRITE: u32 = 1 << 1;
    /// The old contents of the box may be thrown away.
    pub const DISCARD_RANGE: u32 = 1 << 8;
    /// No waiting: the caller guarantees no conflict with GPU work.
    pub const UNSYNCHRONIZED: u32 = 1 << 10;
}

/// A box: x, y, width, height in pixels (bytes for buffers), and for 3D textures the slices
/// z..z + depth, of one level and face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipeBox {
    /// Left.
    pub x: u32,
    /// Top.
    pub y: u32,
    /// First slice (3D textures; 0 otherwise).
    pub z: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Slices (3D textures; 1 otherwise).
    pub depth: u32,
}

impl PipeBox {
    /// A rectangle of slice 0.
    pub fn new(x: u32, y: u32, width: u32, height: u32) -> PipeBox {
        PipeBox::new_3d(x, y, 0, width, height, 1)
    }

    /// A box of `depth` slices from slice `z`.
    pub fn new_3d(x: u32, y: u32, z: u32, width: u32, height: u32, depth: u32) -> PipeBox {
        PipeBox {
            x,
            y,
            z,
            width,
            height,
            depth,
        }
    }

    fn box3(self) -> Box3 {
        Box3::new(self.x, self.y, self.z, self.width, self.height, self.depth)
    }

    /// Checks that a caller's `len_B` bytes hold the box of `bpe`-byte elements with rows
    /// `stride_B` apart and slices `layer_stride_B` apart (ignored for one slice): the last
    /// row of the last slice ends within them, and neither stride overlaps what it steps over.
    /// Checked arithmetic, as the strides come from the caller. Returns a row's bytes.
    pub(crate) fn check_bytes(
        self,
        len_B: usize,
        bpe: usize,
        stride_B: usize,
        layer_stride_B: usize,
    ) -> Result<usize> {
        let row_B = self.width as usize * bpe;
        let (rows, slices) = (self.height as usize, self.depth as usize);
        let need_B = (|| {
            let slice_B = stride_B
                .checked_mul(rows.checked_sub(1)?)?
                .checked_add(row_B)?;
            if slices > 1 && layer_stride_B < slice_B {
                return None;
            }
            layer_stride_B
                .checked_mul(slices.checked_sub(1)?)?
                .checked_add(slice_B)
        })();
        match need_B {
            Some(n) if stride_B >= row_B && len_B >= n => Ok(row_B),
            _ => invalid(format!(
                "{len_B} bytes with strides {stride_B}/{layer_stride_B} for a {}x{}x{} box of \
                 {bpe}-byte elements",
                self.width, self.height, self.depth
            )),
        }
    }
}

/// A mapped region: a linear staging copy, written back at unmap when mapped for writing.
#[derive(Debug)]
pub struct Transfer {
    resource: Arc<Resource>,
    level: u32,
    face: u32,
    bbox: PipeBox,
    usage: u32,
    /// Bytes between rows of `data`.
    pub stride_B: usize,
    /// Bytes between slices of `data` (3D boxes).
    pub layer_stride_B: usize,
    /// The pixels (or bytes) of the box.
    pub data: Vec<u8>,
}

/// The bytes of one level the slices `z..z + depth` of a box lie in: a buffer the size of
/// the whole level (what the layout's level copies take), holding the level's bytes only in
/// `range` (relative to the level's start); `level_start` is the level's offset in the
/// allocation. Only the box's slices are read, and a box covering whole slices reads
/// nothing when `fill` is false.
struct LevelWindow {
    bytes: Vec<u8>,
    level_start: u64,
    range: std::ops::Range<usize>,
}

impl LevelWindow {
    /// Mesa maps a 3D upload one slice at a time: copying the whole level in and out for each
    /// slice made a 512x512x512 upload copy 64 GiB (tex3d-maxsize timed out). The zeroed
    /// buffer is the allocator's untouched pages, so only the slices read or written cost.
    fn new(
        map: &sgx_winsys::Mapping,
        l: &sgx_layout::Layout,
        face: u32,
        level: u32,
        b: PipeBox,
        fill: bool,
    ) -> Result<LevelWindow> {
        let whole = l.level_range_B(face, level)?;
        let first = l.slice_range_B(face, level, b.z)?;
        let last = l.slice_range_B(face, level, b.z + b.depth - 1)?;
        let range = (first.start - whole.start) as usize..(last.end - whole.start) as usize;
        let mut bytes = vec![0u8; (whole.end - whole.start) as usize];
        if fill {
            map.read_at(first.start, &mut bytes[range.clone()])?;
        }
        Ok(LevelWindow {
            bytes,
            level_start: whole.start,
            range,
        })
    }
}

/// Whether writing a box replaces every byte of its slices: it covers each slice's pixels
/// and the slice has no padding (row ends of a stride texture, a twiddled level's unused
/// corner) that the write would otherwise zero.
fn covers_slices(l: &sgx_layout::Layout, level: u32, b: PipeBox) -> Result<bool> {
    let lv = l.level(level)?;
    let texels_B =
        u64::from(lv.extent_el.w) * u64::from(lv.extent_el.h) * u64::from(l.bytes_per_el);
    Ok(b.x == 0
        && b.y == 0
        && b.width == lv.extent_px.w
        && b.height == lv.extent_px.h
        && lv.slice_stride_B == texels_B)
}

impl Context {
    pub(crate) fn check_box(&self, r: &Resource, level: u32, face: u32, b: PipeBox) -> Result<()> {
        if b.width == 0 || b.height == 0 || b.depth == 0 {
            return invalid("empty box");
        }
        if r.target() == ResourceTarget::Buffer {
            if level != 0 || face != 0 || b.y != 0 || b.height != 1 || b.z != 0 || b.depth != 1 {
                return invalid("a buffer box is one row of level 0");
            }
            if u64::from(b.x) + u64::from(b.width) > u64::from(r.width()) {
                return invalid(format!(
                    "bytes {}..{} of a {}-byte buffer",
                    b.x,
                    b.x + b.width,
                    r.width()
                ));
            }
            return Ok(());
        }
        if face >= r.faces() {
            return invalid(format!("face {face} of {}", r.faces()));
        }
        let (w, h) = r.level_extent(level)?;
        if u64::from(b.x) + u64::from(b.width) > u64::from(w)
            || u64::from(b.y) + u64::from(b.height) > u64::from(h)
        {
            return invalid(format!("box {b:?} outside level {level} ({w}x{h})"));
        }
        let d = r.level_depth(level)?;
        if u64::from(b.z) + u64::from(b.depth) > u64::from(d) {
            return invalid(format!(
                "slices {}..{} of level {level}, which has {d}",
                b.z,
                u64::from(b.z) + u64::from(b.depth)
            ));
        }
        Ok(())
    }

    /// `transfer_map`.
    pub fn transfer_map(
        &mut self,
        r: &Arc<Resource>,
        level: u32,
        face: u32,
        usage: u32,
        b: PipeBox,
    ) -> Result<Transfer> {
        if usage & (map_flags::READ | map_flags::WRITE) == 0 {
            return invalid("a map reads, writes or both");
        }
        self.check_box(r, level, face, b)?;
        let writes = usage & map_flags::WRITE != 0;
        // A write that does not discard keeps what it does not overwrite, buffers included:
        // glMapBuffer(GL_WRITE_ONLY) updating part of a vertex buffer (glmark2's buffer scene)
        // lost the rest to zeros when the staging copy started empty.
        let reads =
            usage & map_flags::READ != 0 || (writes && usage & map_flags::DISCARD_RANGE == 0);
        let unsync = usage & map_flags::UNSYNCHRONIZED != 0;
        if !unsync {
            self.flush_for_cpu_access(r.id(), writes)?;
        }
        let bpe = if r.target() == ResourceTarget::Buffer {
            1
        } else {
            r.format().info().bytes_per_el as usize
        };
        let stride_B = b.width as usize * bpe;
        let layer_stride_B = stride_B * b.height as usize;
        let mut data = vec![0u8; layer_stride_B * b.depth as usize];
        if reads {
            let (bo, layout) = {
                let st = r.storage();
                (st.bo.clone(), st.layout.clone())
            };
            let access = Access::Read;
            let map = if unsync {
                bo.map_unsynchronized(access)?
            } else {
                bo.map(access, self.timeout)?
            };
            match layout {
                None => map.read_at(u64::from(b.x), &mut data)?,
                Some(l) => {
                    let win = LevelWindow::new(&map, &l, face, level, b, true)?;
                    l.read_box_in_level(
                        &win.bytes,
                        level,
                        b.box3(),
                        &mut data,
                        stride_B,
                        layer_stride_B,
                    )?;
                }
            }
        }
        Ok(Transfer {
            resource: r.clone(),
            level,
            face,
            bbox: b,
            usage,
            stride_B,
            layer_stride_B,
            data,
        })
    }

    /// `transfer_unmap`: writes the staging data back when mapped for writing.
    pub fn transfer_unmap(&mut self, t: Transfer) -> Result<()> {
        if t.usage & map_flags::WRITE == 0 {
            return Ok(());
        }
        self.note_buffer_write(t.resource.id());
        let r = &t.resource;
        let unsync = t.usage & map_flags::UNSYNCHRONIZED != 0;
        if !unsync {
            self.flush_for_cpu_access(r.id(), true)?;
        }
        let (bo, layout) = {
            let st = r.storage();
            (st.bo.clone(), st.layout.clone())
        };
        let access = if layout.is_some() {
            Access::ReadWrite
        } else {
            Access::Write
        };
        let map = if unsync {
            bo.map_unsynchronized(access)?
        } else {
            bo.map(access, self.timeout)?
        };
        match layout {
            None => map.write_at(u64::from(t.bbox.x), &t.data)?,
            Some(l) => {
                let b = t.bbox;
                // A twiddled or partial box shares bytes with pixels it does not write: those
                // are read first, so the write-back keeps them.
                let fill = !covers_slices(&l, t.level, b)?;
                let mut win = LevelWindow::new(&map, &l, t.face, t.level, b, fill)?;
                l.write_box_in_level(
                    &mut win.bytes,
                    t.level,
                    b.box3(),
                    &t.data,
                    t.stride_B,
                    t.layer_stride_B,
                )?;
                let start = win.level_start + win.range.start as u64;
                map.write_at(start, &win.bytes[win.range])?;
            }
        }
        Ok(())
    }

    /// `texture_subdata`: writes `data` into a box of a level: rows `stride_B` bytes apart
    /// and, for a box of more than one slice, slices `layer_stride_B` bytes apart (ignored for
    /// one slice).
    #[allow(clippy::too_many_arguments)] // Gallium's signature, kept so the C glue stays thin.
    pub fn texture_subdata(
        &mut self,
        r: &Arc<Resource>,
        level: u32,
        face: u32,
        b: PipeBox,
        data: &[u8],
        stride_B: usize,
        layer_stride_B: usize,
    ) -> Result<()> {
        if r.target() == ResourceTarget::Buffer {
            return invalid("texture_subdata of a buffer");
        }
        let bpe = r.format().info().bytes_per_el as usize;
        let row_B = b.check_bytes(data.len(), bpe, stride_B, layer_stride_B)?;
        let (rows, slices) = (b.height as usize, b.depth as usize);
        self.check_box(r, level, face, b)?;
        self.flush_for_cpu_access(r.id(), true)?;
        let (bo, layout) = {
            let st = r.storage();
            (st.bo.clone(), st.layout.clone())
        };
        if let Some(l) = layout {
            // Straight from the caller's rows into the buffer: a staging copy and a level
            // window per upload (fresh pages each time) made an app streaming a new 4 MiB
            // texture per frame (piglit's streaming-texture-leak) four times slower than
            // softpipe.
            let map = bo.map(Access::ReadWrite, self.timeout)?;
            let range = l.level_range_B(face, level)?;
            // SAFETY: the map waited for every job using the buffer, and the pending batch
            // that used it was submitted first (flush_for_cpu_access), so no job touches it;
            // this context is the only one writing it, synchronously, while the slice lives.
            let all = unsafe { map.as_mut_slice() };
            let level_bytes = &mut all[range.start as usize..range.end as usize];
            l.write_box_in_level(level_bytes, level, b.box3(), data, stride_B, layer_stride_B)?;
            return Ok(());
        }
        let mut t = self.transfer_map(
            r,
            level,
            face,
            map_flags::WRITE | map_flags::DISCARD_RANGE,
            b,
        )?;
        for z in 0..slices {
            for y in 0..rows {
                let to = z * t.layer_stride_B + y * row_B;
                let from = z * layer_stride_B + y * stride_B;
                t.data[to..to + row_B].copy_from_slice(&data[from..from + row_B]);
            }
        }
        self.transfer_unmap(t)
    }

    /// `buffer_subdata`.
    pub fn buffer_subdata(&mut self, r: &Arc<Resource>, offset: u32, data: &[u8]) -> Result<()> {
        if r.target() != ResourceTarget::Buffer {
            return invalid("buffer_subdata of a texture");
        }
        let len = u32::try_from(data.len())
            .map_err(|_| crate::PipeError::InvalidArgument("data too long".into()))?;
        let mut t = self.transfer_map(
            r,
            0,
            0,
            map_flags::WRITE | map_flags::DISCARD_RANGE,
            PipeBox::new(offset, 0, len, 1),
        )?;
        t.data.copy_from_slice(data);
        self.transfer_unmap(t)
    }

    /// Reads a whole level as linear rows (width * bytes per element apart), slice after
    /// slice for a 3D level.
    pub fn read_level(&mut self, r: &Arc<Resource>, level: u32, face: u32) -> Result<Vec<u8>> {
        let (w, h) = r.level_extent(level)?;
        let d = r.level_depth(level)?;
        let b = PipeBox::new_3d(0, 0, 0, w, h, d);
        Ok(self.transfer_map(r, level, face, map_flags::READ, b)?.data)
    }

    /// `resource_copy_region` on the CPU: same format, a box of one level (and face) into
    /// another at (dx, dy, dz); dz is the first destination slice of a 3D texture.
    #[allow(clippy::too_many_arguments)] // Gallium's signature, kept so the C glue stays thin.
    pub fn resource_copy_region(
        &mut self,
        dst: &Arc<Resource>,
        dst_level: u32,
        dst_face: u32,
        dx: u32,
        dy: u32,
        dz: u32,
        src: &Arc<Resource>,
        src_level: u32,
        src_face: u32,
        b: PipeBox,
    ) -> Result<()> {
        if dst.target() == ResourceTarget::Buffer || src.target() == ResourceTarget::Buffer {
            if dst.target() != src.target() {
                return invalid("copy between a buffer and a texture");
            }
            if dst_level | dst_face | dy | dz | src_level | src_face != 0 {
                return invalid("a buffer copy has level 0, face 0 and only an x offset");
            }
            let mut t = self.transfer_map(src, 0, 0, map_flags::READ, b)?;
            let data = std::mem::take(&mut t.data);
            return self.buffer_subdata(dst, dx, &data);
        }
        if dst.format() != src.format() {
            return invalid(format!(
                "copy from {} to {}",
                src.format().name(),
                dst.format().name()
            ));
        }
        let t = self.transfer_map(src, src_level, src_face, map_flags::READ, b)?;
        self.texture_subdata(
            dst,
            dst_level,
            dst_face,
            PipeBox::new_3d(dx, dy, dz, b.width, b.height, b.depth),
            &t.data,
            t.stride_B,
            t.layer_stride_B,
        )
    }
}
