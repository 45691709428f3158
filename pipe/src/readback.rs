//! Reading a box of a texture level into the caller's memory, and writing buffer bytes
//! without a wait: the copies a window system's present and an upload ring make, done once.
//! A read map hands out a staging copy (zeroed, filled, then copied again by the caller); a
//! linear level's rows go from the buffer straight into the caller's rows here.

use std::sync::Arc;

use sgx_layout::Tiling;
use sgx_winsys::Access;

use crate::context::Context;
use crate::error::{invalid, Result};
use crate::resource::{Resource, ResourceTarget};
use crate::transfer::{map_flags, PipeBox};

impl Context {
    /// Reads the box `b` (one slice) of `level` and `face` into `dst`, rows `dst_stride_B`
    /// apart, after the GPU's writes to the resource (as a read map waits). A linear level is
    /// copied row by row from the buffer; other layouts go through a read map.
    pub fn read_box_into(
        &mut self,
        r: &Arc<Resource>,
        level: u32,
        face: u32,
        b: PipeBox,
        dst: &mut [u8],
        dst_stride_B: usize,
    ) -> Result<()> {
        if r.target() == ResourceTarget::Buffer {
            return invalid("read_box_into of a buffer");
        }
        if b.depth != 1 {
            return invalid(format!(
                "read_box_into of {} slices: one at a time",
                b.depth
            ));
        }
        let bpe = r.format().info().bytes_per_el as usize;
        // One slice: no slice stride.
        let row_B = b.check_bytes(dst.len(), bpe, dst_stride_B, 0)?;
        let (bo, layout) = {
            let st = r.storage();
            (st.bo.clone(), st.layout.clone())
        };
        let Some(l) = layout else {
            return invalid("read_box_into of a resource without a layout");
        };
        let lv = *l.level(level)?;
        if lv.tiling != Tiling::Linear || lv.extent_el != lv.extent_px {
            let t = self.transfer_map(r, level, face, map_flags::READ, b)?;
            for (y, row) in t.data.chunks(t.stride_B).enumerate() {
                dst[y * dst_stride_B..][..row_B].copy_from_slice(&row[..row_B]);
            }
            return Ok(());
        }
        // The box is checked against the level as a map checks it, before any flush.
        self.check_box(r, level, face, b)?;
        self.flush_for_cpu_access(r.id(), false)?;
        let map = bo.map(Access::Read, self.timeout)?;
        let start = l.slice_range_B(face, level, b.z)?.start;
        for y in 0..b.height as usize {
            let at = start + (b.y as u64 + y as u64) * lv.stride_B + u64::from(b.x) * bpe as u64;
            map.read_at(at, &mut dst[y * dst_stride_B..][..row_B])?;
        }
        Ok(())
    }

    /// `buffer_subdata` with `PIPE_MAP_*` usage: with UNSYNCHRONIZED the bytes are written
    /// straight into the buffer without submitting or waiting for work that uses it (the
    /// caller promised none touches them, as an upload ring does); otherwise as
    /// [`Context::buffer_subdata`].
    pub fn buffer_subdata_usage(
        &mut self,
        r: &Arc<Resource>,
        usage: u32,
        offset: u32,
        data: &[u8],
    ) -> Result<()> {
        if usage & map_flags::UNSYNCHRONIZED == 0 {
            return self.buffer_subdata(r, offset, data);
        }
        self.buffer_subdata_unsynchronized(r, offset, data)
    }

    /// `buffer_subdata_usage` with UNSYNCHRONIZED: needs no reference of its own on `r`.
    pub fn buffer_subdata_unsynchronized(
        &mut self,
        r: &Resource,
        offset: u32,
        data: &[u8],
    ) -> Result<()> {
        if r.target() != ResourceTarget::Buffer {
            return invalid("buffer_subdata of a texture");
        }
        if data.is_empty() {
            return Ok(());
        }
        let len = u32::try_from(data.len())
            .map_err(|_| crate::PipeError::InvalidArgument("data too long".into()))?;
        self.check_box(r, 0, 0, PipeBox::new(offset, 0, len, 1))?;
        self.note_buffer_write(r.id());
        // Under the storage's lock, so the buffer cannot be replaced while its bytes are written.
        r.storage()
            .bo
            .write_unsynchronized(u64::from(offset), data)?;
        Ok(())
    }
}
