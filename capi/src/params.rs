//! Parameter state: constants, framebuffer, viewport, scissor, stencil reference, blend
//! colour, sample mask, clip planes, stipple, vertex buffers.

use std::ffi::c_void;
use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::{map_flags, PipeBox, Resource, ResourceTarget, MAX_VERTEX_BUFFERS};

use crate::context::{self, sgx535_context};
use crate::ffi::{bytes, guard, read, read_opt, slice};
use crate::gallium;
use crate::handles::Lent;
use crate::resource::{self, sgx535_resource};
use crate::status::{invalid, sgx535_status, unsupported, Result};
use crate::views::{self, sgx535_surface};

/// `pipe_constant_buffer`: a buffer range, or user memory copied at the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_constant_buffer {
    /// A buffer resource, or id 0 with `user_buffer`.
    pub buffer: sgx535_resource,
    /// Byte offset into `buffer`.
    pub buffer_offset: u32,
    /// Bytes (a multiple of 4).
    pub buffer_size: u32,
    /// User memory of `buffer_size` bytes, when `buffer` is 0.
    pub user_buffer: *const c_void,
}

/// `pipe_framebuffer_state`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_framebuffer_state {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 0 or 1 (one colour target).
    pub nr_cbufs: u32,
    /// Colour surfaces (only [0] may be set).
    pub cbufs: [sgx535_surface; 8],
    /// Depth/stencil surface, or id 0.
    pub zsbuf: sgx535_surface,
}

/// `pipe_viewport_state`: window = ndc * scale + translate.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_viewport_state {
    /// x, y, z scale.
    pub scale: [f32; 3],
    /// x, y, z translate.
    pub translate: [f32; 3],
}

/// `pipe_scissor_state` (max exclusive).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_scissor_state {
    /// First column.
    pub minx: u32,
    /// First row.
    pub miny: u32,
    /// One past the last column.
    pub maxx: u32,
    /// One past the last row.
    pub maxy: u32,
}

/// `pipe_stencil_ref`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_stencil_ref {
    /// Front and back reference values.
    pub ref_value: [u8; 2],
}

/// `pipe_blend_color`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_blend_color {
    /// RGBA.
    pub color: [f32; 4],
}

/// `pipe_clip_state`: user clip planes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_clip_state {
    /// Plane equations.
    pub ucp: [[f32; 4]; 8],
}

/// `pipe_poly_stipple`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_poly_stipple {
    /// 32x32 bits.
    pub stipple: [u32; 32],
}

/// `pipe_vertex_buffer`: a buffer resource, or user memory copied at the call.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_vertex_buffer {
    /// Bytes between vertices.
    pub stride: u32,
    /// Byte offset of vertex 0.
    pub buffer_offset: u32,
    /// A buffer resource, or id 0 with `user_buffer`.
    pub buffer: sgx535_resource,
    /// User memory of `user_size` bytes, when `buffer` is 0.
    pub user_buffer: *const c_void,
    /// Bytes of `user_buffer`.
    pub user_size: u64,
}

fn constants(c: &context::Locked, cb: &sgx535_constant_buffer) -> Result<Arc<[u32]>> {
    if !cb.buffer_size.is_multiple_of(4) {
        return invalid(format!(
            "constant buffer of {} bytes: whole dwords",
            cb.buffer_size
        ));
    }
    let data: Vec<u8> = if cb.buffer.id != 0 {
        let r = resource::get(cb.buffer, c.owner.screen, "constant buffer")?;
        if r.target() != ResourceTarget::Buffer {
            return invalid("a constant buffer must be a buffer resource");
        }
        if cb.buffer_size == 0 {
            Vec::new()
        } else {
            let b = PipeBox::new(cb.buffer_offset, 0, cb.buffer_size, 1);
            c.lock()
                .ctx
                .transfer_map(&r, 0, 0, map_flags::READ, b)?
                .data
        }
    } else {
        // SAFETY: the caller's user memory of buffer_size bytes, checked by bytes.
        unsafe { bytes(cb.user_buffer, cb.buffer_size as usize, "user_buffer")? }.to_vec()
    };
    Ok(data
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect())
}

/// `set_constant_buffer` of a stage (index 0: one constant buffer per stage). NULL unbinds.
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_constant_buffer(
    ctx: sgx535_context,
    pipe_shader_type: u32,
    index: u32,
    cb: *const sgx535_constant_buffer,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let stage = gallium::bound_stage(pipe_shader_type)?;
        // SAFETY: the caller's pointer, checked by read_opt.
        let cb = unsafe { read_opt(cb, "cb")? };
        let v = match cb {
            None => None,
            Some(cb) => Some(ConstantBuffer {
                data: constants(&c, &cb)?,
            }),
        };
        c.lock().ctx.set_constant_buffer(stage, index, v)?;
        Ok(())
    })
}

/// `set_framebuffer_state`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_framebuffer_state(
    ctx: sgx535_context,
    fb: *const sgx535_framebuffer_state,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointer, checked by read.
        let fb = unsafe { read(fb, "fb")? };
        if fb.nr_cbufs > 8 {
            return invalid(format!("nr_cbufs {}", fb.nr_cbufs));
        }
        // Every bound colour buffer takes colour output 0 (PIPE_CAP_MAX_RENDER_TARGETS is 1:
        // a second one is GL_FRONT_AND_BACK's front buffer); the library renders into each
        // (the pipe replays the render). Unbound slots (NULL surfaces) are skipped.
        let mut cbufs = Vec::new();
        for (i, s) in fb.cbufs[..fb.nr_cbufs as usize].iter().enumerate() {
            if let Some(s) = views::surface(&c, *s, &format!("cbufs[{i}]"))? {
                cbufs.push(s);
            }
        }
        let mut cbufs = cbufs.into_iter();
        let cbuf = cbufs.next();
        let state = FramebufferState {
            width: fb.width,
            height: fb.height,
            cbuf,
            zsbuf: views::surface(&c, fb.zsbuf, "zsbuf")?,
            extra_cbufs: cbufs.collect(),
        };
        c.lock().ctx.set_framebuffer_state(&state)?;
        Ok(())
    })
}

/// `set_viewport_states` (one viewport: `start` 0, `count` 1).
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_viewport_states(
    ctx: sgx535_context,
    start: u32,
    count: u32,
    v: *const sgx535_viewport_state,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        if start != 0 || count > 1 {
            return unsupported(format!("viewports {start}..+{count}: one viewport"));
        }
        // SAFETY: the caller's array of `count` viewports, checked by slice.
        if let Some(v) = unsafe { slice(v, count as usize, "viewports")? }.first() {
            c.lock().ctx.set_viewport_state(&ViewportState {
                scale: v.scale,
                translate: v.translate,
            })?;
        }
        Ok(())
    })
}

/// `set_scissor_states` (one scissor).
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_scissor_states(
    ctx: sgx535_context,
    start: u32,
    count: u32,
    s: *const sgx535_scissor_state,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        if start != 0 || count > 1 {
            return unsupported(format!("scissors {start}..+{count}: one scissor"));
        }
        // SAFETY: the caller's array of `count` scissors, checked by slice.
        if let Some(s) = unsafe { slice(s, count as usize, "scissors")? }.first() {
            c.lock().ctx.set_scissor_state(&ScissorState {
                minx: s.minx,
                miny: s.miny,
                maxx: s.maxx,
                maxy: s.maxy,
            })?;
        }
        Ok(())
    })
}

/// `set_stencil_ref`.
#[no_mangle]
pub extern "C" fn sgx535_set_stencil_ref(
    ctx: sgx535_context,
    r: sgx535_stencil_ref,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        c.lock().ctx.set_stencil_ref(StencilRef {
            ref_value: r.ref_value,
        });
        Ok(())
    })
}

/// `set_blend_color`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_blend_color(
    ctx: sgx535_context,
    color: *const sgx535_blend_color,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointer, checked by read.
        let col = unsafe { read(color, "color")? };
        if col.color.iter().any(|x| !x.is_finite()) {
            return invalid("blend colour must be finite");
        }
        c.lock()
            .ctx
            .set_blend_color(BlendColor { color: col.color });
        Ok(())
    })
}

/// `set_sample_mask` (single-sampled: bit 0 decides whether anything is drawn).
#[no_mangle]
pub extern "C" fn sgx535_set_sample_mask(ctx: sgx535_context, mask: u32) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        c.lock().ctx.set_sample_mask(mask);
        Ok(())
    })
}

/// `set_clip_state`: stored only. Without PIPE_CAP_CLIP_PLANES st/mesa lowers clip planes
/// into the vertex shader (CLIPDIST outputs), so the planes never reach the GPU from here.
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_clip_state(
    ctx: sgx535_context,
    clip: *const sgx535_clip_state,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointer, checked by read.
        let cl = unsafe { read(clip, "clip")? };
        if cl.ucp.iter().flatten().any(|x| !x.is_finite()) {
            return invalid("clip planes must be finite");
        }
        c.lock().extra.clip_planes = cl.ucp;
        Ok(())
    })
}

/// `set_polygon_stipple`: the pattern of rasterizer states with `poly_stipple_enable`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_polygon_stipple(
    ctx: sgx535_context,
    s: *const sgx535_poly_stipple,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointer, checked by read.
        let st = unsafe { read(s, "stipple")? };
        c.lock().ctx.set_polygon_stipple(st.stipple);
        Ok(())
    })
}

/// `set_vertex_buffers`: `count` buffers from slot `start` (`buffers` NULL unbinds them).
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_vertex_buffers(
    ctx: sgx535_context,
    start: u32,
    count: u32,
    buffers: *const sgx535_vertex_buffer,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // On the stack (a heap Vec per call was measurable in drawoverhead's per-draw calls);
        // more slots than the pipe has is the pipe's error, made here.
        let n = count as usize;
        if n > MAX_VERTEX_BUFFERS {
            return invalid(format!(
                "vertex buffers {start}..{}: {MAX_VERTEX_BUFFERS} slots",
                u64::from(start) + u64::from(count)
            ));
        }
        let given = if buffers.is_null() {
            &[][..]
        } else {
            // SAFETY: the caller's array of `count` buffers, checked by slice.
            unsafe { slice(buffers, n, "buffers")? }
        };
        // Looked up before the context's lock (a lend may drop what the thread's cache let go).
        let mut lent: [Option<Lent<Resource>>; MAX_VERTEX_BUFFERS] = Default::default();
        for (l, b) in lent.iter_mut().zip(given) {
            if b.buffer.id != 0 {
                *l = Some(resource::lend(b.buffer, c.owner.screen, "vertex buffer")?);
            }
        }
        let mut list: [VertexBufferSlot; MAX_VERTEX_BUFFERS] =
            std::array::from_fn(|_| VertexBufferSlot::Unbound);
        let mut inner = c.lock();
        for (i, ((slot, b), l)) in list.iter_mut().zip(given).zip(&lent).enumerate() {
            let (stride, buffer_offset) = (b.stride, b.buffer_offset);
            let source = if let Some(r) = l {
                // Drawoverhead's intermixed attributes rebind one vertex buffer every draw: kept,
                // its reference count is left alone (a count change per draw was measurable).
                if inner.ctx.vertex_buffer_holds(start as usize + i, r) {
                    *slot = VertexBufferSlot::Rebind {
                        stride,
                        buffer_offset,
                    };
                    continue;
                }
                BufferSource::Resource(r.to_arc())
            } else if b.user_buffer.is_null() {
                continue;
            } else {
                let size_B = usize::try_from(b.user_size).map_err(|_| {
                    crate::status::Error::new(
                        crate::status::SGX535_ERROR_INVALID_ARGUMENT,
                        "user_size",
                    )
                })?;
                // SAFETY: the caller's user memory of user_size bytes, checked by bytes.
                BufferSource::User(Arc::from(unsafe {
                    bytes(b.user_buffer, size_B, "user_buffer")?
                }))
            };
            *slot = VertexBufferSlot::Bind(VertexBuffer {
                stride,
                buffer_offset,
                buffer: source,
            });
        }
        inner
            .ctx
            .set_vertex_buffer_slots(start as usize, &mut list[..n])?;
        Ok(())
    })
}
