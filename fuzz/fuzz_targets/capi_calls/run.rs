//! One fuzzed sequence's state and how each call is made through the C ABI.

use std::ffi::CString;
use std::ptr::{null, null_mut};

use sgx535::*;

use crate::call::*;

pub(crate) struct Run {
    pub(crate) screen: sgx535_screen,
    pub(crate) ctx: sgx535_context,
    pub(crate) made: Vec<u64>,
}

/// The status of one call: anything but a caught panic.
#[track_caller]
fn ok_or_err(s: sgx535_status) -> bool {
    assert_ne!(
        s,
        SGX535_ERROR_INTERNAL,
        "{}",
        // SAFETY: the library returns a NUL-terminated string.
        unsafe { std::ffi::CStr::from_ptr(sgx535_last_error_message()) }.to_string_lossy()
    );
    s == SGX535_OK
}

/// A POD struct of the ABI (integers and floats only, no padding-sensitive invariants) filled
/// from fuzzed bytes.
fn pod<T: Copy>(bytes: &[u8]) -> T {
    // SAFETY: only called with the ABI's repr(C) structs of u8/u32/f32 fields (and arrays of
    // them), for which every bit pattern is a valid value; at most size_of::<T>() bytes are
    // copied into it.
    unsafe {
        let mut v: T = std::mem::zeroed();
        let n = bytes.len().min(std::mem::size_of::<T>());
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), (&mut v as *mut T).cast::<u8>(), n);
        v
    }
}

impl Run {
    pub(crate) fn h(&self, h: H) -> u64 {
        match h {
            H::Made(i) if !self.made.is_empty() => self.made[usize::from(i) % self.made.len()],
            H::Made(_) | H::Null => 0,
            H::Forged(v) => v,
        }
    }

    /// A context argument: `H::Null` stands for the sequence's first context, so most calls
    /// reach a real one.
    fn c(&self, h: H) -> sgx535_context {
        match h {
            H::Null => self.ctx,
            other => sgx535_context { id: self.h(other) },
        }
    }

    fn keep(&mut self, ok: bool, id: u64) {
        if ok && id != 0 {
            self.made.push(id);
        }
    }

    pub(crate) fn call(&mut self, call: &Call) {
        // SAFETY (every block below): each pointer passed points at a live local or a Vec that
        // covers what the call reads or writes, as the header documents.
        unsafe {
            match *call {
                Call::ContextCreate => {
                    let mut c = sgx535_context { id: 0 };
                    let r = ok_or_err(sgx535_context_create(self.screen, &mut c));
                    self.keep(r, c.id);
                }
                Call::ContextDestroy(h) => {
                    let c = sgx535_context { id: self.h(h) };
                    ok_or_err(sgx535_context_destroy(c));
                }
                Call::ResourceCreate {
                    target,
                    format,
                    w,
                    h,
                    d,
                    array,
                    last_level,
                    samples,
                    bind,
                } => {
                    let t = sgx535_resource_template {
                        target: u32::from(target % 10),
                        format: format.get(),
                        width: w.get(),
                        height: h.get(),
                        depth: u32::from(d % 9),
                        array_size: u32::from(array % 8),
                        last_level: u32::from(last_level % 14),
                        nr_samples: u32::from(samples % 5),
                        bind,
                        flags: 0,
                    };
                    let mut out = sgx535_resource { id: 0 };
                    let r = ok_or_err(sgx535_resource_create(self.screen, &t, &mut out));
                    self.keep(r, out.id);
                }
                Call::ResourceDestroy(h) => {
                    ok_or_err(sgx535_resource_destroy(sgx535_resource { id: self.h(h) }));
                }
                Call::ResourceGetTemplate(h) => {
                    let mut t: sgx535_resource_template = pod(&[]);
                    ok_or_err(sgx535_resource_get_template(
                        sgx535_resource { id: self.h(h) },
                        &mut t,
                    ));
                }
                Call::Surface {
                    ctx,
                    res,
                    format,
                    level,
                    first,
                    last,
                } => {
                    let t = sgx535_surface_template {
                        format: format.get(),
                        level: u32::from(level % 16),
                        first_layer: u32::from(first % 8),
                        last_layer: u32::from(last % 8),
                    };
                    let mut out = sgx535_surface { id: 0 };
                    let r = ok_or_err(sgx535_create_surface(
                        self.c(ctx),
                        sgx535_resource { id: self.h(res) },
                        &t,
                        &mut out,
                    ));
                    self.keep(r, out.id);
                }
                Call::SurfaceDestroy(ctx, s) => {
                    ok_or_err(sgx535_surface_destroy(
                        self.c(ctx),
                        sgx535_surface { id: self.h(s) },
                    ));
                }
                Call::SamplerView {
                    ctx,
                    res,
                    format,
                    first,
                    last,
                    swizzle,
                } => {
                    let t = sgx535_sampler_view_template {
                        format: format.get(),
                        first_level: u32::from(first % 16),
                        last_level: u32::from(last % 16),
                        swizzle_r: swizzle[0] % 8,
                        swizzle_g: swizzle[1] % 8,
                        swizzle_b: swizzle[2] % 8,
                        swizzle_a: swizzle[3] % 8,
                    };
                    let mut out = sgx535_sampler_view { id: 0 };
                    let r = ok_or_err(sgx535_create_sampler_view(
                        self.c(ctx),
                        sgx535_resource { id: self.h(res) },
                        &t,
                        &mut out,
                    ));
                    self.keep(r, out.id);
                }
                Call::SamplerViewDestroy(ctx, v) => {
                    ok_or_err(sgx535_sampler_view_destroy(
                        self.c(ctx),
                        sgx535_sampler_view { id: self.h(v) },
                    ));
                }
                Call::SetSamplerViews(ctx, start, ref views) => {
                    let v: Vec<sgx535_sampler_view> = views
                        .iter()
                        .take(20)
                        .map(|&h| sgx535_sampler_view { id: self.h(h) })
                        .collect();
                    ok_or_err(sgx535_set_sampler_views(
                        self.c(ctx),
                        4,
                        u32::from(start % 12),
                        v.len() as u32,
                        if v.is_empty() { null() } else { v.as_ptr() },
                    ));
                }
                Call::Shader {
                    ctx,
                    vertex,
                    which,
                    ref text,
                } => {
                    let src = match which % 4 {
                        0 if vertex => VS.as_bytes().to_vec(),
                        0 => FS_TEX.as_bytes().to_vec(),
                        1 => FS_CONST.as_bytes().to_vec(),
                        _ => text
                            .iter()
                            .copied()
                            .filter(|&b| b != 0)
                            .take(4096)
                            .collect(),
                    };
                    let Ok(t) = CString::new(src) else { return };
                    let mut out = sgx535_shader { id: 0 };
                    let r = ok_or_err(if vertex {
                        sgx535_create_vs_state(self.c(ctx), t.as_ptr(), &mut out)
                    } else {
                        sgx535_create_fs_state(self.c(ctx), t.as_ptr(), &mut out)
                    });
                    self.keep(r, out.id);
                }
                Call::BindShader(ctx, vertex, s) => {
                    let s = sgx535_shader { id: self.h(s) };
                    ok_or_err(if vertex {
                        sgx535_bind_vs_state(self.c(ctx), s)
                    } else {
                        sgx535_bind_fs_state(self.c(ctx), s)
                    });
                }
                Call::DeleteShader(ctx, vertex, s) => {
                    let s = sgx535_shader { id: self.h(s) };
                    ok_or_err(if vertex {
                        sgx535_delete_vs_state(self.c(ctx), s)
                    } else {
                        sgx535_delete_fs_state(self.c(ctx), s)
                    });
                }
                Call::Cso {
                    ctx,
                    kind,
                    ref bytes,
                } => {
                    let c = self.c(ctx);
                    let mut out = sgx535_cso { id: 0 };
                    let r = ok_or_err(match kind % 4 {
                        0 => sgx535_create_blend_state(c, &pod(bytes), &mut out),
                        1 => sgx535_create_depth_stencil_alpha_state(c, &pod(bytes), &mut out),
                        2 => sgx535_create_rasterizer_state(c, &pod(bytes), &mut out),
                        _ => sgx535_create_sampler_state(c, &pod(bytes), &mut out),
                    });
                    self.keep(r, out.id);
                }
                Call::BindCso(ctx, kind, h) => {
                    let (c, o) = (self.c(ctx), sgx535_cso { id: self.h(h) });
                    ok_or_err(match kind % 4 {
                        0 => sgx535_bind_blend_state(c, o),
                        1 => sgx535_bind_depth_stencil_alpha_state(c, o),
                        2 => sgx535_bind_rasterizer_state(c, o),
                        _ => sgx535_bind_vertex_elements_state(c, o),
                    });
                }
                Call::DeleteCso(ctx, kind, h) => {
                    let (c, o) = (self.c(ctx), sgx535_cso { id: self.h(h) });
                    ok_or_err(match kind % 5 {
                        0 => sgx535_delete_blend_state(c, o),
                        1 => sgx535_delete_depth_stencil_alpha_state(c, o),
                        2 => sgx535_delete_rasterizer_state(c, o),
                        3 => sgx535_delete_sampler_state(c, o),
                        _ => sgx535_delete_vertex_elements_state(c, o),
                    });
                }
                Call::BindSamplers(ctx, start, ref hs) => {
                    let v: Vec<sgx535_cso> = hs
                        .iter()
                        .take(20)
                        .map(|&h| sgx535_cso { id: self.h(h) })
                        .collect();
                    ok_or_err(sgx535_bind_sampler_states(
                        self.c(ctx),
                        4,
                        u32::from(start % 12),
                        v.len() as u32,
                        if v.is_empty() { null() } else { v.as_ptr() },
                    ));
                }
                Call::VertexElements(ctx, ref els) => {
                    let v: Vec<sgx535_vertex_element> = els
                        .iter()
                        .take(20)
                        .map(|&(off, vb, f)| sgx535_vertex_element {
                            src_offset: off % 256,
                            vertex_buffer_index: u32::from(vb % 20),
                            src_format: f.get(),
                            instance_divisor: 0,
                        })
                        .collect();
                    let mut out = sgx535_cso { id: 0 };
                    let r = ok_or_err(sgx535_create_vertex_elements_state(
                        self.c(ctx),
                        v.len() as u32,
                        if v.is_empty() { null() } else { v.as_ptr() },
                        &mut out,
                    ));
                    self.keep(r, out.id);
                }
                Call::Framebuffer {
                    ctx,
                    w,
                    h,
                    nr_cbufs,
                    cbuf,
                    zsbuf,
                } => {
                    let mut fb = sgx535_framebuffer_state {
                        width: w.get(),
                        height: h.get(),
                        nr_cbufs: u32::from(nr_cbufs % 10),
                        cbufs: [sgx535_surface { id: 0 }; 8],
                        zsbuf: sgx535_surface { id: self.h(zsbuf) },
                    };
                    fb.cbufs[0] = sgx535_surface { id: self.h(cbuf) };
                    ok_or_err(sgx535_set_framebuffer_state(self.c(ctx), &fb));
                }
                Call::Viewport(ctx, v) => {
                    let vp = sgx535_viewport_state {
                        scale: [v[0], v[1], v[2]],
                        translate: [v[3], v[4], v[5]],
                    };
                    ok_or_err(sgx535_set_viewport_states(self.c(ctx), 0, 1, &vp));
                }
                Call::Scissor(ctx, s) => {
                    let sc = sgx535_scissor_state {
                        minx: u32::from(s[0]),
                        miny: u32::from(s[1]),
                        maxx: u32::from(s[2]),
                        maxy: u32::from(s[3]),
                    };
                    ok_or_err(sgx535_set_scissor_states(self.c(ctx), 0, 1, &sc));
                }
                Call::SampleMask(ctx, m) => {
                    ok_or_err(sgx535_set_sample_mask(self.c(ctx), m));
                }
                Call::VertexBuffers {
                    ctx,
                    stride,
                    offset,
                    buffer,
                    ref user,
                } => {
                    let data = user.as_ref().map(|u| &u[..u.len().min(1 << 16)]);
                    let vb = sgx535_vertex_buffer {
                        stride: u32::from(stride),
                        buffer_offset: offset,
                        buffer: sgx535_resource {
                            id: if data.is_some() { 0 } else { self.h(buffer) },
                        },
                        user_buffer: data.map_or(null(), |d| d.as_ptr().cast()),
                        user_size: data.map_or(0, |d| d.len() as u64),
                    };
                    ok_or_err(sgx535_set_vertex_buffers(self.c(ctx), 0, 1, &vb));
                }
                Call::ConstantBuffer {
                    ctx,
                    stage,
                    index,
                    buffer,
                    offset,
                    ref user,
                } => {
                    let data = user.as_ref().map(|u| &u[..u.len().min(1 << 16)]);
                    let cb = sgx535_constant_buffer {
                        buffer: sgx535_resource {
                            id: if data.is_some() { 0 } else { self.h(buffer) },
                        },
                        buffer_offset: offset,
                        buffer_size: data.map_or(offset % 4096, |d| d.len() as u32),
                        user_buffer: data.map_or(null(), |d| d.as_ptr().cast()),
                    };
                    ok_or_err(sgx535_set_constant_buffer(
                        self.c(ctx),
                        u32::from(stage % 6),
                        u32::from(index % 4),
                        &cb,
                    ));
                }
                Call::Draw {
                    ctx,
                    mode,
                    index_size,
                    index_buffer,
                    user_indices,
                    start,
                    count,
                    bias,
                    instances,
                } => {
                    let index_size = [0u32, 1, 2, 4, 3][usize::from(index_size % 5)];
                    let (start, count) = (u32::from(start % 1024), u32::from(count % 1024));
                    // User indices: exactly the bytes the draw reads.
                    let need = (start + count) as usize * index_size as usize;
                    let idx: Vec<u8> = (0..need).map(|i| (i * 7 % 13) as u8).collect();
                    let info = sgx535_draw_info {
                        mode: u32::from(mode % 16),
                        index_size,
                        index_buffer: sgx535_resource {
                            id: if user_indices {
                                0
                            } else {
                                self.h(index_buffer)
                            },
                        },
                        index_user: if user_indices && index_size != 0 {
                            idx.as_ptr().cast()
                        } else {
                            null()
                        },
                        start,
                        count,
                        index_bias: i32::from(bias),
                        min_index: 0,
                        max_index: 12,
                        start_instance: 0,
                        instance_count: u32::from(instances % 3),
                    };
                    ok_or_err(sgx535_draw_vbo(self.c(ctx), &info));
                }
                Call::Clear {
                    ctx,
                    buffers,
                    color,
                    depth,
                    stencil,
                } => {
                    ok_or_err(sgx535_clear(
                        self.c(ctx),
                        u32::from(buffers % 16),
                        null(),
                        color.as_ptr(),
                        depth,
                        u32::from(stencil),
                    ));
                }
                Call::ClearRenderTarget {
                    ctx,
                    surface,
                    color,
                    rect,
                } => {
                    ok_or_err(sgx535_clear_render_target(
                        self.c(ctx),
                        sgx535_surface {
                            id: self.h(surface),
                        },
                        color.as_ptr(),
                        rect[0].get(),
                        rect[1].get(),
                        rect[2].get(),
                        rect[3].get(),
                    ));
                }
                Call::Blit {
                    ctx,
                    dst,
                    dst_level,
                    dst_box,
                    src,
                    src_level,
                    src_box,
                    format,
                    mask,
                    filter,
                } => {
                    let side = |res: H, level: u8, b: ABox| {
                        let id = self.h(res);
                        sgx535_blit_image {
                            resource: sgx535_resource { id },
                            level: u32::from(level % 16),
                            r#box: b.get(),
                            format: format.map_or_else(|| self.format_of(id), Fmt::get),
                        }
                    };
                    let info = sgx535_blit_info {
                        dst: side(dst, dst_level, dst_box),
                        src: side(src, src_level, src_box),
                        mask: u32::from(mask % 32),
                        filter: u32::from(filter % 3),
                        scissor_enable: 0,
                        render_condition_enable: 0,
                        pad: [0; 2],
                        scissor: sgx535_scissor_state {
                            minx: 0,
                            miny: 0,
                            maxx: 0,
                            maxy: 0,
                        },
                    };
                    ok_or_err(sgx535_blit(self.c(ctx), &info));
                }
                Call::CopyRegion {
                    ctx,
                    dst,
                    dst_level,
                    at,
                    src,
                    src_level,
                    src_box,
                } => {
                    ok_or_err(sgx535_resource_copy_region(
                        self.c(ctx),
                        sgx535_resource { id: self.h(dst) },
                        u32::from(dst_level % 16),
                        u32::from(at[0]),
                        u32::from(at[1]),
                        u32::from(at[2] % 8),
                        sgx535_resource { id: self.h(src) },
                        u32::from(src_level % 16),
                        &src_box.get(),
                    ));
                }
                Call::GenerateMipmap {
                    ctx,
                    res,
                    format,
                    base,
                    last,
                    first_layer,
                    last_layer,
                } => {
                    let id = self.h(res);
                    let mut generated = 0u8;
                    ok_or_err(sgx535_generate_mipmap(
                        self.c(ctx),
                        sgx535_resource { id },
                        format.map_or_else(|| self.format_of(id), Fmt::get),
                        u32::from(base % 16),
                        u32::from(last % 16),
                        u32::from(first_layer % 8),
                        u32::from(last_layer % 8),
                        &mut generated,
                    ));
                }
                Call::TextureSubdata {
                    ctx,
                    res,
                    level,
                    b,
                    stride,
                    layer_stride,
                } => {
                    let bx = b.get();
                    // What a correct caller passes: the box's bytes at the widest texel (16 B).
                    let (w, h, d) = (
                        bx.width.max(0) as u64,
                        bx.height.max(0) as u64,
                        bx.depth.max(0) as u64,
                    );
                    let stride = u64::from(stride);
                    let layer_stride = u64::from(layer_stride % (1 << 20));
                    let need = d.saturating_sub(1) * layer_stride
                        + h.saturating_sub(1) * stride.max(w * 16)
                        + w * 16;
                    if need > MAX_DATA_B {
                        return;
                    }
                    let data = vec![0x5au8; need as usize + 16];
                    ok_or_err(sgx535_texture_subdata(
                        self.c(ctx),
                        sgx535_resource { id: self.h(res) },
                        u32::from(level % 16),
                        2,
                        &bx,
                        data.as_ptr().cast(),
                        stride as u32,
                        layer_stride,
                    ));
                }
                Call::BufferSubdata {
                    ctx,
                    res,
                    offset,
                    size,
                } => {
                    let size = size % (MAX_DATA_B as u32);
                    let data = vec![0xa5u8; size as usize];
                    ok_or_err(sgx535_buffer_subdata(
                        self.c(ctx),
                        sgx535_resource { id: self.h(res) },
                        2,
                        offset,
                        size,
                        if data.is_empty() {
                            null()
                        } else {
                            data.as_ptr().cast()
                        },
                    ));
                }
                Call::TransferMap {
                    ctx,
                    res,
                    level,
                    usage,
                    b,
                } => {
                    let mut t = sgx535_transfer { id: 0 };
                    let mut ptr = null_mut();
                    let (mut stride, mut layer_stride) = (0u32, 0u64);
                    let r = ok_or_err(sgx535_transfer_map(
                        self.c(ctx),
                        sgx535_resource { id: self.h(res) },
                        u32::from(level % 16),
                        u32::from(usage % 8),
                        &b.get(),
                        &mut t,
                        &mut ptr,
                        &mut stride,
                        &mut layer_stride,
                    ));
                    if r && !ptr.is_null() {
                        // The first byte of the mapping is ours to touch.
                        ptr.cast::<u8>().write_volatile(0x33);
                    }
                    self.keep(r, t.id);
                }
                Call::TransferUnmap(ctx, t) => {
                    ok_or_err(sgx535_transfer_unmap(
                        self.c(ctx),
                        sgx535_transfer { id: self.h(t) },
                    ));
                }
                Call::Flush(ctx) => {
                    let mut f = sgx535_fence { id: 0 };
                    let r = ok_or_err(sgx535_flush(self.c(ctx), 0, &mut f));
                    self.keep(r, f.id);
                }
                Call::FenceFinish(f, ms) => {
                    let mut signalled = 0u8;
                    ok_or_err(sgx535_fence_finish(
                        self.screen,
                        sgx535_fence { id: self.h(f) },
                        u64::from(ms % 50) * 1_000_000,
                        &mut signalled,
                    ));
                }
                Call::FenceReference(f) => {
                    let mut out = sgx535_fence { id: 0 };
                    let r = ok_or_err(sgx535_fence_reference(
                        sgx535_fence { id: self.h(f) },
                        &mut out,
                    ));
                    self.keep(r, out.id);
                }
                Call::FenceDestroy(f) => {
                    ok_or_err(sgx535_fence_destroy(sgx535_fence { id: self.h(f) }));
                }
                Call::Query { ctx, kind } => {
                    let mut q = sgx535_query { id: 0 };
                    let r = ok_or_err(sgx535_create_query(
                        self.c(ctx),
                        u32::from(kind % 12),
                        0,
                        &mut q,
                    ));
                    self.keep(r, q.id);
                }
                Call::QueryOp(ctx, op, q) => {
                    let (c, q) = (self.c(ctx), sgx535_query { id: self.h(q) });
                    ok_or_err(match op % 5 {
                        0 => sgx535_begin_query(c, q),
                        1 => sgx535_end_query(c, q),
                        2 => {
                            let (mut ready, mut v) = (0u8, 0u64);
                            sgx535_get_query_result(c, q, 0, &mut ready, &mut v)
                        }
                        3 => sgx535_render_condition(c, q, op & 8, u32::from(op % 4)),
                        _ => sgx535_destroy_query(c, q),
                    });
                }
                Call::ResetStatus(ctx) => {
                    let mut s = 0u32;
                    ok_or_err(sgx535_get_device_reset_status(self.c(ctx), &mut s));
                }
            }
        }
    }

    /// A resource's own format (blits and generate_mipmap name it), or 0.
    fn format_of(&self, id: u64) -> u32 {
        let mut t: sgx535_resource_template = pod(&[]);
        // SAFETY: `t` is a live local.
        match unsafe { sgx535_resource_get_template(sgx535_resource { id }, &mut t) } {
            SGX535_OK => t.format,
            _ => 0,
        }
    }
}
