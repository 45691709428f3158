//! Shared set-up of the pipe tests.

#![allow(dead_code)]

use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::*;
use sgx_winsys::{Device, SimDevice, TraceEntry};

// The blitter's internal shaders serve the tests too: the same TGSI, one copy. Not every
// test file uses all of them.
#[allow(unused_imports)]
pub use sgx_blitter::shaders::{
    FS_CONSTANT as FS_CONST, FS_TEXTURE as FS_TEX, VS_PASSTHROUGH as VS_POS_TEX,
    VS_POSITION as VS_POS,
};

pub struct Rig {
    pub dev: Arc<dyn Device>,
    pub screen: Screen,
    pub ctx: Context,
}

pub fn rig() -> Rig {
    let dev: Arc<dyn Device> = Arc::new(SimDevice::new().unwrap());
    let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
    let ctx = screen.context_create();
    Rig { dev, screen, ctx }
}

pub fn target(r: &Rig, format: Format, w: u32, h: u32) -> Arc<Resource> {
    r.screen
        .resource_create(&ResourceTemplate::texture_2d(
            format,
            w,
            h,
            0,
            bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        ))
        .unwrap()
}

pub fn fb(c: &Arc<Resource>, z: Option<&Arc<Resource>>) -> FramebufferState {
    FramebufferState {
        width: c.width(),
        height: c.height(),
        cbuf: Some(Surface::new(c, 0, 0)),
        zsbuf: z.map(|z| Surface::new(z, 0, 0)),
        extra_cbufs: Vec::new(),
    }
}

/// A `w`x`h` texture of `format` with levels 0..=`last_level`, bound for sampling only.
pub fn sampled_texture(r: &Rig, format: Format, w: u32, h: u32, last_level: u32) -> Arc<Resource> {
    r.screen
        .resource_create(&ResourceTemplate::texture_2d(
            format,
            w,
            h,
            last_level,
            bind::SAMPLER_VIEW,
        ))
        .unwrap()
}

/// A `w`x`h` depth/stencil buffer of `zf`, bound as DEPTH_STENCIL and `more_binds`.
pub fn depth_buffer(r: &Rig, zf: Format, w: u32, h: u32, more_binds: u32) -> Arc<Resource> {
    r.screen
        .resource_create(&ResourceTemplate::texture_2d(
            zf,
            w,
            h,
            0,
            bind::DEPTH_STENCIL | more_binds,
        ))
        .unwrap()
}

/// Binds a depth test with `func` and depth writes on (stencil off).
pub fn bind_depth(r: &mut Rig, func: CompareFunc) {
    let dsa = r
        .ctx
        .create_depth_stencil_alpha_state(&DepthStencilAlphaState {
            depth_enabled: true,
            depth_writemask: true,
            depth_func: func,
            ..Default::default()
        });
    r.ctx.bind_depth_stencil_alpha_state(Some(&dsa));
}

/// A vertex buffer resource of `size_B` bytes holding `data` from its start.
#[allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)
pub fn vertex_resource(r: &mut Rig, data: &[u8], size_B: u32) -> Arc<Resource> {
    let vb = r
        .screen
        .resource_create(&ResourceTemplate::buffer(size_B, bind::VERTEX_BUFFER))
        .unwrap();
    r.ctx.buffer_subdata(&vb, 0, data).unwrap();
    vb
}

/// Binds `vb` as vertex buffer 0, one vec4 of f32 per vertex.
pub fn bind_vertex_resource(r: &mut Rig, vb: &Arc<Resource>) {
    r.ctx
        .set_vertex_buffers(
            0,
            &[Some(VertexBuffer {
                stride: 16,
                buffer_offset: 0,
                buffer: BufferSource::Resource(vb.clone()),
            })],
        )
        .unwrap();
}

/// Binds a rasterizer state with the scissor test on (the rest default).
pub fn scissor_on(r: &mut Rig) {
    bind_rasterizer(
        r,
        &RasterizerState {
            scissor: true,
            ..Default::default()
        },
    );
}

/// Creates and binds rasterizer state `rs`.
pub fn bind_rasterizer(r: &mut Rig, rs: &RasterizerState) {
    let ras = r.ctx.create_rasterizer_state(rs).unwrap();
    r.ctx.bind_rasterizer_state(Some(&ras));
}

/// Creates and binds blend state `b`.
pub fn bind_blend(r: &mut Rig, b: &BlendState) {
    let blend = r.ctx.create_blend_state(b);
    r.ctx.bind_blend_state(Some(&blend));
}

/// Straight alpha blending of the colour (src * a + dst * (1 - a)), the source alpha kept.
pub fn alpha_blend() -> BlendState {
    BlendState {
        blend_enable: true,
        rgb_src_factor: BlendFactor::SRC_ALPHA,
        rgb_dst_factor: BlendFactor::INV_SRC_ALPHA,
        alpha_src_factor: BlendFactor::ONE,
        alpha_dst_factor: BlendFactor::ZERO,
        ..Default::default()
    }
}

/// The XOR logic op on all four channels.
pub fn xor_blend() -> BlendState {
    BlendState {
        logicop_enable: true,
        logicop_func: LogicOp::XOR,
        colormask: 0xF,
        ..Default::default()
    }
}

/// A BGRA8 `s`x`s` target with the constant-colour pipeline bound, painted one colour
/// (0.2, 0.4, 0.6, 1): a background for logic ops to change.
pub fn patterned_target(r: &mut Rig, s: u32) -> Arc<Resource> {
    let t = const_target(r, s, s, [0.2, 0.4, 0.6, 1.0]);
    rect(r, 0, 0, s, s, 0.0);
    t
}

/// A BGRA8 `w`x`h` target with the constant-colour pipeline bound onto it, cleared to opaque
/// black.
pub fn black_target(r: &mut Rig, w: u32, h: u32) -> Arc<Resource> {
    let t = target(r, Format::B8G8R8A8_UNORM, w, h);
    bind_const(r, &fb(&t, None));
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    t
}

/// A BGRA8 `w`x`h` target with the constant-colour pipeline bound onto it, drawing colour `c`.
pub fn const_target(r: &mut Rig, w: u32, h: u32, c: [f32; 4]) -> Arc<Resource> {
    let t = target(r, Format::B8G8R8A8_UNORM, w, h);
    bind_const(r, &fb(&t, None));
    set_colour(r, c);
    t
}

/// The device trace's entry of the job whose out-fence is `fence_id`.
pub fn trace_entry(r: &Rig, fence_id: u64) -> TraceEntry {
    r.dev
        .trace()
        .entries
        .into_iter()
        .find(|e| e.fence == Some(fence_id))
        .expect("the trace has the job of that fence")
}

/// Clears the bound colour target to opaque black and the depth buffer to `depth`.
pub fn clear_black_and_depth(r: &mut Rig, depth: f64) {
    r.ctx
        .clear(
            clear_flags::COLOR0 | clear_flags::DEPTH,
            [0.0, 0.0, 0.0, 1.0],
            depth,
            0,
        )
        .unwrap();
}

/// Binds a constant-colour pipeline onto framebuffer `f`.
pub fn bind_const(r: &mut Rig, f: &FramebufferState) {
    let ctx = &mut r.ctx;
    ctx.set_framebuffer_state(f).unwrap();
    ctx.set_viewport_state(&ViewportState::rect(
        0.0,
        0.0,
        f.width as f32,
        f.height as f32,
    ))
    .unwrap();
    let vs = ctx.create_vs_state(VS_POS).unwrap();
    let fs = ctx.create_fs_state(FS_CONST).unwrap();
    ctx.bind_vs_state(Some(&vs)).unwrap();
    ctx.bind_fs_state(Some(&fs)).unwrap();
    let ve = ctx
        .create_vertex_elements_state(&VertexElement::packed(&[VertexFormat::R32G32B32A32_FLOAT]))
        .unwrap();
    ctx.bind_vertex_elements_state(Some(&ve));
}

pub fn set_colour(r: &mut Rig, c: [f32; 4]) {
    let data: Vec<u32> = c.iter().map(|f| f.to_bits()).collect();
    r.ctx
        .set_constant_buffer(
            ShaderStage::Fragment,
            0,
            Some(ConstantBuffer { data: data.into() }),
        )
        .unwrap();
}

/// Vertices (x, y, z, w) in pixels of a `w`x`h` target, converted to NDC.
pub fn verts_px(pts: &[(f32, f32, f32)], w: u32, h: u32) -> Vec<u8> {
    let mut v = Vec::new();
    for &(x, y, z) in pts {
        for f in [x / w as f32 * 2.0 - 1.0, y / h as f32 * 2.0 - 1.0, z, 1.0] {
            v.extend_from_slice(&f.to_le_bytes());
        }
    }
    v
}

/// Draws `pts` (pixels of the framebuffer, with NDC z) as `mode`.
pub fn draw_px(r: &mut Rig, mode: PrimMode, pts: &[(f32, f32, f32)]) {
    let (w, h) = (
        r.ctx.framebuffer_state().width,
        r.ctx.framebuffer_state().height,
    );
    let data = verts_px(pts, w, h);
    r.ctx
        .set_vertex_buffers(0, &[Some(VertexBuffer::user(16, data))])
        .unwrap();
    r.ctx
        .draw_vbo(&DrawInfo::arrays(mode, 0, pts.len() as u32))
        .unwrap();
}

/// Draws a rectangle of pixels [x0,x1) x [y0,y1) at depth z as a strip.
pub fn rect(r: &mut Rig, x0: u32, y0: u32, x1: u32, y1: u32, z: f32) {
    let (a, b, c, d) = (x0 as f32, x1 as f32, y0 as f32, y1 as f32);
    draw_px(
        r,
        PrimMode::TRIANGLE_STRIP,
        &[(a, c, z), (b, c, z), (a, d, z), (b, d, z)],
    );
}

pub fn pixel(data: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [data[i], data[i + 1], data[i + 2], data[i + 3]]
}

/// Every pixel (x, y) of the `w`x`h` BGRA8 image `px` is `want(x, y)`; `what` names the case.
pub fn assert_pixels(px: &[u8], w: u32, h: u32, what: &str, want: impl Fn(u32, u32) -> [u8; 4]) {
    for y in 0..h {
        for x in 0..w {
            assert_eq!(pixel(px, w, x, y), want(x, y), "{what} at ({x},{y})");
        }
    }
}

/// A fragment shader sampling unit 0 through `target` with `op` (TEX or TXP).
pub fn fs_sample(op: &str, target: &str) -> String {
    format!(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\n  0: {op} OUT[0], IN[0], SAMP[0], {target}\n  1: END\n"
    )
}

/// Draws a full-target quad into a fresh `w`x`h` B8G8R8A8 target, texture coordinates
/// `tc[corner]` at the corners top-left, top-right, bottom-left, bottom-right, sampling
/// `view` with `sampler` through `fs`. Returns the target's bytes.
pub fn draw_sampled(
    r: &mut Rig,
    (w, h): (u32, u32),
    fs: &str,
    view: SamplerView,
    sampler: SamplerState,
    tc: [[f32; 4]; 4],
) -> Result<Vec<u8>> {
    let t = target(r, Format::B8G8R8A8_UNORM, w, h);
    let ctx = &mut r.ctx;
    ctx.set_framebuffer_state(&fb(&t, None))?;
    ctx.set_viewport_state(&ViewportState::rect(0.0, 0.0, w as f32, h as f32))?;
    let vs = ctx.create_vs_state(VS_POS_TEX)?;
    let fs = ctx.create_fs_state(fs)?;
    ctx.bind_vs_state(Some(&vs))?;
    ctx.bind_fs_state(Some(&fs))?;
    let ve = ctx.create_vertex_elements_state(&VertexElement::packed(&[
        VertexFormat::R32G32B32A32_FLOAT,
        VertexFormat::R32G32B32A32_FLOAT,
    ]))?;
    ctx.bind_vertex_elements_state(Some(&ve));
    let s = ctx.create_sampler_state(&sampler)?;
    ctx.bind_sampler_states(0, &[Some(s)])?;
    ctx.set_sampler_views(0, &[Some(view)])?;
    let mut v = Vec::new();
    for (i, (x, y)) in [(-1.0f32, -1.0f32), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
        .into_iter()
        .enumerate()
    {
        for q in [x, y, 0.0, 1.0].into_iter().chain(tc[i]) {
            v.push(q);
        }
    }
    ctx.set_vertex_buffers(0, &[Some(VertexBuffer::user_f32(8, &v))])?;
    ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))?;
    ctx.read_level(&t, 0, 0)
}

/// Corners spanning (s0, t0)..(s1, t1) with r and q fixed.
pub fn corners(s0: f32, t0: f32, s1: f32, t1: f32, r: f32, q: f32) -> [[f32; 4]; 4] {
    [
        [s0, t0, r, q],
        [s1, t0, r, q],
        [s0, t1, r, q],
        [s1, t1, r, q],
    ]
}

/// 16 triangles of 4x4 pixels in two rows of eight (triangle k: vertices 3k..3k+3, its
/// corner at (4 * (k % 8), 4 * (k / 8))), as a vertex buffer resource for a `w`x`h` target.
pub fn triangle_grid(r: &mut Rig, w: u32, h: u32) -> Arc<Resource> {
    let pts: Vec<(f32, f32, f32)> = (0..16)
        .flat_map(|k| {
            let (x, y) = ((k % 8) as f32 * 4.0, (k / 8) as f32 * 4.0);
            [(x, y, 0.0), (x + 4.0, y, 0.0), (x, y + 4.0, 0.0)]
        })
        .collect();
    let data = verts_px(&pts, w, h);
    vertex_resource(r, &data, data.len() as u32)
}

/// Draws triangle `k` of `triangle_grid`.
pub fn draw_grid_triangle(r: &mut Rig, k: u32) {
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 3 * k, 3))
        .unwrap();
}

/// Submits the batch; the target's level 0 and the context's counters.
pub fn flush_and_read(r: &mut Rig, t: &Arc<Resource>) -> (Vec<u8>, ContextStats) {
    r.ctx.flush().unwrap();
    let stats = r.ctx.stats();
    (r.ctx.read_level(t, 0, 0).unwrap(), stats)
}

/// A colour per vertex (IN[1]) carried to the pixels.
pub const VS_COLOUR: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n";
pub const FS_COLOUR: &str =
    "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

/// A black `w`x`w` target, the colour pipeline (`VS_COLOUR`, `FS_COLOUR`) and
/// `triangle_grid`'s positions.
pub fn colour_grid(r: &mut Rig, w: u32) -> (Arc<Resource>, Arc<Resource>) {
    let t = black_target(r, w, w);
    bind_const(r, &fb(&t, None));
    let vs = r.ctx.create_vs_state(VS_COLOUR).unwrap();
    let fs = r.ctx.create_fs_state(FS_COLOUR).unwrap();
    r.ctx.bind_vs_state(Some(&vs)).unwrap();
    r.ctx.bind_fs_state(Some(&fs)).unwrap();
    let pos = triangle_grid(r, w, w);
    (t, pos)
}
