//! Sequences of C ABI calls, structure-aware: resources, contexts, CSOs, shaders, views,
//! surfaces, state, draws, clears, blits, generate_mipmap, transfers, fences and queries, with
//! handles that may be null, destroyed, forged or of another kind, and sizes, levels and boxes
//! that may be out of range. Every call returns a status; none may be
//! `SGX535_ERROR_INTERNAL` (a panic caught at the ABI). Destroying the screen frees every
//! handle made on it: the library's live count is back where it started.
//!
//! The harness passes memory the way a correct C caller would (every pointer covers what the
//! call's sizes say it reads), so what is fuzzed is the library's checking, not the caller's.
#![no_main]

use std::ffi::CString;
use std::ptr::{null, null_mut};

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sgx535::*;

/// Gallium formats worth hitting often; `Fmt::Raw` reaches the rest and the nonsense.
const FORMATS: [u32; 12] = [54, 53, 14, 16, 130, 132, 133, 134, 136, 140, 143, 144];
const VS: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n";
const FS_TEX: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n  0: TEX OUT[0], IN[0], SAMP[0], 2D\n  1: END\n";
const FS_CONST: &str =
    "FRAG\nDCL OUT[0], COLOR\nDCL CONST[0]\n  0: MOV OUT[0], CONST[0]\n  1: END\n";
/// Bytes the harness is willing to hand a call (bigger requests are not made).
const MAX_DATA_B: u64 = 4 << 20;

/// A handle argument: one the sequence made (of any kind, maybe destroyed), none, or forged.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum H {
    Made(u8),
    Null,
    Forged(u64),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Fmt {
    Known(u8),
    Raw(u32),
}

impl Fmt {
    fn get(self) -> u32 {
        match self {
            Fmt::Known(i) => FORMATS[usize::from(i) % FORMATS.len()],
            Fmt::Raw(v) => v,
        }
    }
}

/// A size: usually small (fast on the model), sometimes anything.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Dim {
    Small(u8),
    Any(u32),
}

impl Dim {
    fn get(self) -> u32 {
        match self {
            Dim::Small(v) => u32::from(v % 64),
            Dim::Any(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct ABox {
    x: i8,
    y: i8,
    z: i8,
    w: Dim,
    h: Dim,
    d: i8,
}

impl ABox {
    fn get(self) -> sgx535_box {
        let c = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
        sgx535_box {
            x: i32::from(self.x),
            y: i32::from(self.y),
            z: i32::from(self.z),
            width: c(self.w.get()),
            height: c(self.h.get()),
            depth: i32::from(self.d),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Call {
    ContextCreate,
    ContextDestroy(H),
    ResourceCreate {
        target: u8,
        format: Fmt,
        w: Dim,
        h: Dim,
        d: u8,
        array: u8,
        last_level: u8,
        samples: u8,
        bind: u32,
    },
    ResourceDestroy(H),
    ResourceGetTemplate(H),
    Surface {
        ctx: H,
        res: H,
        format: Fmt,
        level: u8,
        first: u8,
        last: u8,
    },
    SurfaceDestroy(H, H),
    SamplerView {
        ctx: H,
        res: H,
        format: Fmt,
        first: u8,
        last: u8,
        swizzle: [u8; 4],
    },
    SamplerViewDestroy(H, H),
    SetSamplerViews(H, u8, Vec<H>),
    Shader {
        ctx: H,
        vertex: bool,
        which: u8,
        text: Vec<u8>,
    },
    BindShader(H, bool, H),
    DeleteShader(H, bool, H),
    Cso {
        ctx: H,
        kind: u8,
        bytes: Vec<u8>,
    },
    BindCso(H, u8, H),
    DeleteCso(H, u8, H),
    BindSamplers(H, u8, Vec<H>),
    VertexElements(H, Vec<(u32, u8, Fmt)>),
    Framebuffer {
        ctx: H,
        w: Dim,
        h: Dim,
        nr_cbufs: u8,
        cbuf: H,
        zsbuf: H,
    },
    Viewport(H, [f32; 6]),
    Scissor(H, [u16; 4]),
    SampleMask(H, u32),
    VertexBuffers {
        ctx: H,
        stride: u16,
        offset: u32,
        buffer: H,
        user: Option<Vec<u8>>,
    },
    ConstantBuffer {
        ctx: H,
        stage: u8,
        index: u8,
        buffer: H,
        offset: u32,
        user: Option<Vec<u8>>,
    },
    Draw {
        ctx: H,
        mode: u8,
        index_size: u8,
        index_buffer: H,
        user_indices: bool,
        start: u16,
        count: u16,
        bias: i8,
        instances: u8,
    },
    Clear {
        ctx: H,
        buffers: u8,
        color: [f32; 4],
        depth: f64,
        stencil: u8,
    },
    ClearRenderTarget {
        ctx: H,
        surface: H,
        color: [f32; 4],
        rect: [Dim; 4],
    },
    Blit {
        ctx: H,
        dst: H,
        dst_level: u8,
        dst_box: ABox,
        src: H,
        src_level: u8,
        src_box: ABox,
        format: Option<Fmt>,
        mask: u8,
        filter: u8,
    },
    CopyRegion {
        ctx: H,
        dst: H,
        dst_level: u8,
        at: [u8; 3],
        src: H,
        src_level: u8,
        src_box: ABox,
    },
    GenerateMipmap {
        ctx: H,
        res: H,
        format: Option<Fmt>,
        base: u8,
        last: u8,
        first_layer: u8,
        last_layer: u8,
    },
    TextureSubdata {
        ctx: H,
        res: H,
        level: u8,
        b: ABox,
        stride: u16,
        layer_stride: u32,
    },
    BufferSubdata {
        ctx: H,
        res: H,
        offset: u32,
        size: u32,
    },
    TransferMap {
        ctx: H,
        res: H,
        level: u8,
        usage: u8,
        b: ABox,
    },
    TransferUnmap(H, H),
    Flush(H),
    FenceFinish(H, u8),
    FenceReference(H),
    FenceDestroy(H),
    Query {
        ctx: H,
        kind: u8,
    },
    QueryOp(H, u8, H),
    ResetStatus(H),
}

struct Run {
    screen: sgx535_screen,
    ctx: sgx535_context,
    made: Vec<u64>,
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
    fn h(&self, h: H) -> u64 {
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

    fn call(&mut self, call: &Call) {
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

fuzz_target!(|calls: Vec<Call>| {
    let start = live_handles();
    let desc = sgx535_device_desc {
        kind: SGX535_DEVICE_MODEL,
        fd: -1,
        path: null(),
    };
    let mut run = Run {
        screen: sgx535_screen { id: 0 },
        ctx: sgx535_context { id: 0 },
        made: Vec::new(),
    };
    // SAFETY: valid pointers to locals.
    unsafe {
        assert_eq!(sgx535_screen_create(&desc, &mut run.screen), SGX535_OK);
        assert_eq!(sgx535_context_create(run.screen, &mut run.ctx), SGX535_OK);
    }
    run.made.push(run.ctx.id);
    for c in calls.iter().take(64) {
        run.call(c);
    }
    assert_eq!(sgx535_screen_destroy(run.screen), SGX535_OK);
    assert_eq!(live_handles(), start, "handles left after screen_destroy");
});
