//! Resources: buffers and textures, made on a screen and usable by any of its contexts.

use std::os::fd::{AsRawFd, BorrowedFd, IntoRawFd};
use std::sync::Arc;

use sgx_layout::Tiling;
use sgx_pipe::{HandleLayout, Resource, ResourceTarget, ResourceTemplate};

use crate::ffi::{check_out, guard, read, write};
use crate::gallium;
use crate::handles::{self, Kind, Owner};
use crate::screen::{self, sgx535_screen};
use crate::status::{invalid, sgx535_status, unsupported, Result};

/// A buffer or texture.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_resource {
    /// Opaque; 0 is no resource.
    pub id: u64,
}

/// `pipe_resource`'s template.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_resource_template {
    /// `PIPE_BUFFER`, `PIPE_TEXTURE_1D`, `_2D`, `_3D`, `_CUBE` (`_RECT` is stored as 2D).
    pub target: u32,
    /// `PIPE_FORMAT_*` (ignored for buffers).
    pub format: u32,
    /// Pixels, or bytes of a buffer.
    pub width: u32,
    /// Pixels (1 for buffers and 1D textures).
    pub height: u32,
    /// Pixels (1 except for 3D textures).
    pub depth: u32,
    /// 1 (a cube's faces are not layers here; 6 is accepted for a cube).
    pub array_size: u32,
    /// The last mip level.
    pub last_level: u32,
    /// 0 or 1.
    pub nr_samples: u32,
    /// `PIPE_BIND_*`.
    pub bind: u32,
    /// `PIPE_RESOURCE_FLAG_*` (ignored).
    pub flags: u32,
}

/// Linear rows.
pub const SGX535_TILING_LINEAR: u32 = 0;
/// Twiddled (Morton order, Y in address bit 0).
pub const SGX535_TILING_TWIDDLED: u32 = 1;
/// A buffer: no texel order.
pub const SGX535_TILING_NONE: u32 = 2;

/// `winsys_handle` for `WINSYS_HANDLE_TYPE_FD`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_winsys_handle {
    /// A dma-buf fd (get_handle: the caller owns it; from_handle: duplicated, the caller keeps
    /// its own).
    pub fd: i32,
    /// Bytes per row of level 0 (0 when twiddled).
    pub stride: u32,
    /// Offset of level 0 in the buffer.
    pub offset: u32,
    /// `SGX535_TILING_*` of level 0.
    pub tiling: u32,
    /// Bytes the resource occupies.
    pub size: u64,
}

/// The resource behind a handle, checked to belong to `screen` (0: any screen).
pub(crate) fn get(r: sgx535_resource, screen: u64, what: &str) -> Result<Arc<Resource>> {
    // The table holds the resource's own Arc: a lookup is one count change, not three.
    Ok(lend(r, screen, what)?.to_arc())
}

/// The resource behind a handle, lent (no count change), checked as [`get`] does.
#[inline]
pub(crate) fn lend(r: sgx535_resource, screen: u64, what: &str) -> Result<handles::Lent<Resource>> {
    let (res, owner) = handles::lend::<Resource>(r.id, Kind::Resource, what)?;
    if screen != 0 && owner.screen != screen {
        return Err(crate::status::Error::new(
            crate::status::SGX535_ERROR_INVALID_HANDLE,
            format!("{what} belongs to another screen"),
        ));
    }
    Ok(res)
}

pub(crate) fn template(t: &sgx535_resource_template) -> Result<ResourceTemplate> {
    let target = gallium::target(t.target)?;
    let format = if target == ResourceTarget::Buffer {
        sgx_pipe::Format::R32_FLOAT
    } else {
        gallium::format(t.format)?
    };
    let layers_ok =
        t.array_size <= 1 || (target == ResourceTarget::TextureCube && t.array_size == 6);
    if !layers_ok {
        return unsupported(format!("array_size {}: no array textures", t.array_size));
    }
    if t.nr_samples > 1 {
        return unsupported(format!("{} samples: no multisampling", t.nr_samples));
    }
    Ok(ResourceTemplate {
        target,
        format,
        width: t.width,
        height: t.height.max(u32::from(target == ResourceTarget::Buffer)),
        depth: t.depth.max(1),
        last_level: t.last_level,
        nr_samples: 1,
        bind: t.bind,
    })
}

fn insert(screen: u64, res: Arc<Resource>) -> u64 {
    handles::insert_arc(Kind::Resource, Owner { screen, ctx: 0 }, res)
}

/// `resource_create`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_resource_create(
    screen: sgx535_screen,
    t: *const sgx535_resource_template,
    out: *mut sgx535_resource,
) -> sgx535_status {
    guard(|| {
        let s = screen::get(screen)?;
        check_out(out, "out")?;
        // SAFETY: the caller's pointer, checked by read.
        let t = template(&unsafe { read(t, "template")? })?;
        let res = s.screen.resource_create(&t)?;
        let id = insert(screen.id, res);
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_resource { id }) }
    })
}

/// `resource_destroy`: drops this handle. Jobs, views and surfaces that use the resource keep
/// its storage until they are done.
#[no_mangle]
pub extern "C" fn sgx535_resource_destroy(res: sgx535_resource) -> sgx535_status {
    guard(|| {
        handles::remove::<Resource>(res.id, Kind::Resource, "resource")?;
        Ok(())
    })
}

fn tiling_value(l: &HandleLayout) -> u32 {
    match l.tiling {
        None => SGX535_TILING_NONE,
        Some(Tiling::Linear) => SGX535_TILING_LINEAR,
        Some(Tiling::Twiddled) => SGX535_TILING_TWIDDLED,
    }
}

/// `resource_get_handle` (`WINSYS_HANDLE_TYPE_FD`): a dma-buf fd the caller owns. Fences do
/// not travel with it: flush and wait before another device reads.
#[no_mangle]
pub unsafe extern "C" fn sgx535_resource_get_handle(
    screen: sgx535_screen,
    res: sgx535_resource,
    out: *mut sgx535_winsys_handle,
) -> sgx535_status {
    guard(|| {
        let s = screen::get(screen)?;
        let r = get(res, screen.id, "resource")?;
        check_out(out, "out")?;
        let (fd, l) = s.screen.resource_get_handle(&r)?;
        let h = sgx535_winsys_handle {
            fd: -1,
            stride: u32::try_from(l.stride_B).unwrap_or(0),
            offset: u32::try_from(l.offset_B).unwrap_or(0),
            tiling: tiling_value(&l),
            size: l.size_B,
        };
        // Written only once nothing can fail, so the fd is never lost.
        // SAFETY: checked by check_out.
        unsafe {
            write(
                out,
                "out",
                sgx535_winsys_handle {
                    fd: fd.into_raw_fd(),
                    ..h
                },
            )
        }
    })
}

/// `resource_from_handle`: a resource of template `t` on the dma-buf `h->fd` (duplicated).
/// `h`'s stride, offset, tiling and size must be what this library lays `t` out as (0 size:
/// not checked).
#[no_mangle]
pub unsafe extern "C" fn sgx535_resource_from_handle(
    screen: sgx535_screen,
    t: *const sgx535_resource_template,
    h: *const sgx535_winsys_handle,
    out: *mut sgx535_resource,
) -> sgx535_status {
    guard(|| {
        let s = screen::get(screen)?;
        check_out(out, "out")?;
        // SAFETY: the caller's pointers, checked by read.
        let (t, h) = unsafe { (template(&read(t, "template")?)?, read(h, "handle")?) };
        if h.fd < 0 {
            return invalid(format!("handle fd {}", h.fd));
        }
        // SAFETY: the caller's open fd, borrowed for this call only (the library dups it).
        let fd = unsafe { BorrowedFd::borrow_raw(h.fd) };
        if fd.as_raw_fd() < 0 {
            return invalid("bad fd");
        }
        let expect = (h.size != 0).then(|| HandleLayout {
            offset_B: u64::from(h.offset),
            stride_B: u64::from(h.stride),
            size_B: h.size,
            tiling: match h.tiling {
                SGX535_TILING_LINEAR => Some(Tiling::Linear),
                SGX535_TILING_TWIDDLED => Some(Tiling::Twiddled),
                _ => None,
            },
        });
        let r = s.screen.resource_from_handle(&t, fd, expect.as_ref())?;
        let id = insert(screen.id, r);
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_resource { id }) }
    })
}

/// What a resource is (for the glue's own bookkeeping).
#[no_mangle]
pub unsafe extern "C" fn sgx535_resource_get_template(
    res: sgx535_resource,
    out: *mut sgx535_resource_template,
) -> sgx535_status {
    guard(|| {
        let r = get(res, 0, "resource")?;
        check_out(out, "out")?;
        let t = r.template();
        let v = sgx535_resource_template {
            target: gallium::target_value(t.target),
            format: if t.target == ResourceTarget::Buffer {
                0
            } else {
                gallium::format_value(t.format).unwrap_or(0)
            },
            width: t.width,
            height: t.height,
            depth: t.depth,
            array_size: 1,
            last_level: t.last_level,
            nr_samples: t.nr_samples,
            bind: t.bind,
            flags: 0,
        };
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", v) }
    })
}
