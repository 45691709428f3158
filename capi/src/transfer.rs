//! CPU access: buffer and texture subdata, and map/unmap with a linear staging copy.

use std::ffi::c_void;
use std::sync::Mutex;

use sgx_pipe::{map_flags, ResourceTarget, Transfer};

use crate::box_::{self, sgx535_box};
use crate::context::{self, check_owner, sgx535_context};
use crate::ffi::{bytes, bytes_mut, check_out, guard, read, write};
use crate::gallium::map;
use crate::handles::{self, Kind};
use crate::resource::{self, sgx535_resource};
use crate::status::{invalid, sgx535_status, Error, Result, SGX535_ERROR_INVALID_ARGUMENT};

/// A mapped box of a resource.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_transfer {
    /// Opaque; 0 is none.
    pub id: u64,
}

/// A mapping: taken out at unmap. The staging bytes never move while mapped.
struct TransferObj(Mutex<Option<Transfer>>);

/// `buffer_subdata`: `size` bytes at `offset`. With PIPE_MAP_UNSYNCHRONIZED in `pipe_map_usage`
/// they are written at once, without waiting for GPU work that uses the buffer (the caller
/// promises none reads or writes these bytes, as an upload ring does); other flags are hints.
#[no_mangle]
pub unsafe extern "C" fn sgx535_buffer_subdata(
    ctx: sgx535_context,
    res: sgx535_resource,
    pipe_map_usage: u32,
    offset: u32,
    size: u32,
    data: *const c_void,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let r = resource::lend(res, c.owner.screen, "resource")?;
        // SAFETY: the caller's `size` bytes, checked by bytes.
        let d = unsafe { bytes(data, size as usize, "data")? };
        let usage = map::to_pipe(pipe_map_usage);
        let mut inner = c.lock();
        if usage & map_flags::UNSYNCHRONIZED != 0 {
            // An upload ring's per-draw write: the lent resource will do (no count change).
            inner.ctx.buffer_subdata_unsynchronized(&r, offset, d)?;
        } else {
            inner.ctx.buffer_subdata(&r.to_arc(), offset, d)?;
        }
        Ok(())
    })
}

fn box_bytes(bpe: u64, b: &sgx535_box, stride: u64, layer_stride: u64) -> Result<usize> {
    let (w, h, d) = (
        b.width.max(0) as u64,
        b.height.max(0) as u64,
        b.depth.max(0) as u64,
    );
    let need = (|| {
        let row = w.checked_mul(bpe)?;
        let slice = stride.checked_mul(h.checked_sub(1)?)?.checked_add(row)?;
        layer_stride
            .checked_mul(d.checked_sub(1)?)?
            .checked_add(slice)
    })();
    need.and_then(|n| usize::try_from(n).ok()).ok_or_else(|| {
        Error::new(
            SGX535_ERROR_INVALID_ARGUMENT,
            format!("box {b:?} with strides {stride}/{layer_stride}"),
        )
    })
}

/// `texture_subdata`: the box's texels from `data`, rows `stride` bytes apart, slices (or
/// cube faces, for a box of several faces) `layer_stride` apart.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // Gallium's signature.
pub unsafe extern "C" fn sgx535_texture_subdata(
    ctx: sgx535_context,
    res: sgx535_resource,
    level: u32,
    pipe_map_usage: u32,
    b: *const sgx535_box,
    data: *const c_void,
    stride: u32,
    layer_stride: u64,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let r = resource::get(res, c.owner.screen, "resource")?;
        let _ = pipe_map_usage;
        // SAFETY: the caller's pointer, checked by read.
        let bx = unsafe { read(b, "box")? };
        if r.target() == ResourceTarget::Buffer {
            return invalid("texture_subdata of a buffer");
        }
        if bx.width <= 0 || bx.height <= 0 || bx.depth <= 0 {
            return invalid(format!("empty box {bx:?}"));
        }
        let bpe = u64::from(r.format().info().bytes_per_el);
        let n = box_bytes(bpe, &bx, u64::from(stride), layer_stride)?;
        // SAFETY: the caller's data covering the box, checked by bytes.
        let d = unsafe { bytes(data, n, "data")? };
        let ls = usize::try_from(layer_stride).unwrap_or(usize::MAX);
        let mut inner = c.lock();
        if r.target() == ResourceTarget::TextureCube {
            // A box of several faces: one face at a time, layer_stride apart.
            for i in 0..bx.depth {
                let one = sgx535_box {
                    z: bx.z + i,
                    depth: 1,
                    ..bx
                };
                let (face, pb) = box_::split(&r, &one)?;
                let from = i as usize * ls;
                inner
                    .ctx
                    .texture_subdata(&r, level, face, pb, &d[from..], stride as usize, 0)?;
            }
        } else {
            let (face, pb) = box_::split(&r, &bx)?;
            inner
                .ctx
                .texture_subdata(&r, level, face, pb, d, stride as usize, ls)?;
        }
        Ok(())
    })
}

/// `buffer_map` / `texture_map`: a linear staging copy of the box (read from the resource when
/// mapped with PIPE_MAP_READ, or for a write that does not discard), written back at
/// unmap when mapped with PIPE_MAP_WRITE. Waits for GPU work as dma-resv rules say, unless
/// PIPE_MAP_UNSYNCHRONIZED.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // Gallium's signature.
pub unsafe extern "C" fn sgx535_transfer_map(
    ctx: sgx535_context,
    res: sgx535_resource,
    level: u32,
    pipe_map_usage: u32,
    b: *const sgx535_box,
    out: *mut sgx535_transfer,
    ptr: *mut *mut c_void,
    stride: *mut u32,
    layer_stride: *mut u64,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let r = resource::get(res, c.owner.screen, "resource")?;
        check_out(out, "out")?;
        check_out(ptr, "ptr")?;
        // SAFETY: the caller's pointer, checked by read.
        let bx = unsafe { read(b, "box")? };
        let (face, pb) = if r.target() == ResourceTarget::Buffer {
            if bx.x < 0 || bx.width <= 0 {
                return invalid(format!("buffer box {bx:?}"));
            }
            (
                0,
                sgx_pipe::PipeBox::new(bx.x as u32, 0, bx.width as u32, 1),
            )
        } else {
            box_::split(&r, &bx)?
        };
        let mut t = c
            .lock()
            .ctx
            .transfer_map(&r, level, face, map::to_pipe(pipe_map_usage), pb)?;
        let (s, ls) = (t.stride_B, t.layer_stride_B);
        let p = t.data.as_mut_ptr().cast::<c_void>();
        let id = handles::insert(Kind::Transfer, c.owner, TransferObj(Mutex::new(Some(t))));
        // SAFETY: all checked by check_out / write.
        unsafe {
            write(out, "out", sgx535_transfer { id })?;
            write(ptr, "ptr", p)?;
            if !stride.is_null() {
                write(stride, "stride", u32::try_from(s).unwrap_or(u32::MAX))?;
            }
            if !layer_stride.is_null() {
                write(layer_stride, "layer_stride", ls as u64)?;
            }
        }
        Ok(())
    })
}

/// `transfer_unmap`: writes the staging copy back when mapped for writing; the pointer the map
/// returned is invalid after this call, even when it fails.
#[no_mangle]
pub extern "C" fn sgx535_transfer_unmap(ctx: sgx535_context, t: sgx535_transfer) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let (_, owner) = handles::get::<TransferObj>(t.id, Kind::Transfer, "transfer")?;
        check_owner(owner, &c.owner, "transfer")?;
        let (obj, _) = handles::remove::<TransferObj>(t.id, Kind::Transfer, "transfer")?;
        let tr = obj.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(tr) = tr {
            c.lock().ctx.transfer_unmap(tr)?;
        }
        Ok(())
    })
}

/// Reads a box of one level (one slice, or one cube face as `z`) into `dst`, rows `dst_stride`
/// bytes apart, `dst_size` bytes in all, after the GPU's writes to the resource: a read map,
/// a row copy and an unmap in one call, and one copy where the level is linear rows (a
/// window system's present).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sgx535_resource_read_box(
    ctx: sgx535_context,
    res: sgx535_resource,
    level: u32,
    b: *const sgx535_box,
    dst: *mut c_void,
    dst_stride: u32,
    dst_size: u64,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let r = resource::get(res, c.owner.screen, "resource")?;
        // SAFETY: the caller's pointer, checked by read.
        let bx = unsafe { read(b, "box")? };
        if r.target() == ResourceTarget::Buffer {
            return invalid("resource_read_box of a buffer");
        }
        let (face, pb) = box_::split(&r, &bx)?;
        let n = usize::try_from(dst_size)
            .map_err(|_| Error::new(SGX535_ERROR_INVALID_ARGUMENT, "dst_size too large"))?;
        // SAFETY: the caller's `dst_size` writable bytes, checked by bytes_mut.
        let d = unsafe { bytes_mut(dst.cast(), n, "dst")? };
        c.lock()
            .ctx
            .read_box_into(&r, level, face, pb, d, dst_stride as usize)?;
        Ok(())
    })
}
