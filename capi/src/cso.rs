//! Constant state objects: create, bind, delete, in Gallium's shape. Fields use
//! Gallium's numbering; features the GPU lacks are refused at create with
//! SGX535_ERROR_UNSUPPORTED and a message naming the field, never ignored.

mod shader;
pub use shader::*;

use std::any::Any;
use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::Context;

use crate::context::{self, check_owner, sgx535_context, Locked};
use crate::ffi::{check_out, flag, guard, read, slice, write};
use crate::gallium;
use crate::handles::{self, Kind};
use crate::status::{invalid, sgx535_status, unsupported, Result};

/// A constant state object (blend, depth-stencil-alpha, rasterizer, sampler, vertex elements).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_cso {
    /// Opaque; 0 is none (bind 0 to unbind).
    pub id: u64,
}

/// `pipe_blend_state` (render target 0; the GPU has one colour target).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_blend_state {
    /// Blending on.
    pub blend_enable: u8,
    /// `PIPE_BLEND_*`.
    pub rgb_func: u8,
    /// `PIPE_BLENDFACTOR_*`.
    pub rgb_src_factor: u8,
    /// `PIPE_BLENDFACTOR_*`.
    pub rgb_dst_factor: u8,
    /// `PIPE_BLEND_*`.
    pub alpha_func: u8,
    /// `PIPE_BLENDFACTOR_*`.
    pub alpha_src_factor: u8,
    /// `PIPE_BLENDFACTOR_*`.
    pub alpha_dst_factor: u8,
    /// `PIPE_MASK_R | G | B | A`.
    pub colormask: u8,
    /// Logic op on (it replaces blending).
    pub logicop_enable: u8,
    /// `PIPE_LOGICOP_*`.
    pub logicop_func: u8,
    /// A hint; ignored.
    pub dither: u8,
    /// Unsupported (single-sampled).
    pub alpha_to_coverage: u8,
}

/// One face's stencil state.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_stencil_state {
    /// Test on.
    pub enabled: u8,
    /// `PIPE_FUNC_*`.
    pub func: u8,
    /// `PIPE_STENCIL_OP_*` on stencil fail.
    pub fail_op: u8,
    /// `PIPE_STENCIL_OP_*` on pass.
    pub zpass_op: u8,
    /// `PIPE_STENCIL_OP_*` on depth fail.
    pub zfail_op: u8,
    /// Compare mask.
    pub valuemask: u8,
    /// Write mask.
    pub writemask: u8,
    /// Zero.
    pub pad: u8,
}

/// `pipe_depth_stencil_alpha_state`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_depth_stencil_alpha_state {
    /// Depth test on.
    pub depth_enabled: u8,
    /// Depth writes on.
    pub depth_writemask: u8,
    /// `PIPE_FUNC_*`.
    pub depth_func: u8,
    /// Alpha test: unsupported (PIPE_CAP_ALPHA_TEST is 0: Mesa lowers it into the shader).
    pub alpha_enabled: u8,
    /// Front [0] and back [1].
    pub stencil: [sgx535_stencil_state; 2],
    /// `PIPE_FUNC_*` of the alpha test.
    pub alpha_func: u8,
    /// Zero.
    pub pad: [u8; 3],
    /// Alpha test reference.
    pub alpha_ref_value: f32,
}

/// `pipe_rasterizer_state`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_rasterizer_state {
    /// Flat shading.
    pub flatshade: u8,
    /// Two-sided lighting: unsupported (PIPE_CAP_TWO_SIDED_COLOR is 0: Mesa lowers it).
    pub light_twoside: u8,
    /// Counter-clockwise is front.
    pub front_ccw: u8,
    /// `PIPE_FACE_*` culled.
    pub cull_face: u8,
    /// `PIPE_POLYGON_MODE_*` of front faces: FILL, LINE or POINT.
    pub fill_front: u8,
    /// `PIPE_POLYGON_MODE_*` of back faces.
    pub fill_back: u8,
    /// Polygon offset for polygons drawn as points.
    pub offset_point: u8,
    /// Polygon offset for polygons drawn as lines.
    pub offset_line: u8,
    /// Polygon offset for polygons drawn filled.
    pub offset_tri: u8,
    /// Scissor test on.
    pub scissor: u8,
    /// Unsupported.
    pub poly_smooth: u8,
    /// Polygon stipple, with the pattern of `sgx535_set_polygon_stipple`.
    pub poly_stipple_enable: u8,
    /// Drawn aliased: the rasterizer has no coverage for smooth points, and GL programs that
    /// enable it (for looks) still get their points.
    pub point_smooth: u8,
    /// `PIPE_SPRITE_COORD_UPPER_LEFT` (0) or `_LOWER_LEFT` (1).
    pub sprite_coord_mode: u8,
    /// Point sprites.
    pub point_quad_rasterization: u8,
    /// The vertex shader writes the point size.
    pub point_size_per_vertex: u8,
    /// A hint; single-sampled.
    pub multisample: u8,
    /// Antialiased lines: each pixel's alpha is multiplied by the area of the pixel inside
    /// the line's width x length rectangle (GL 2.1 3.4.2).
    pub line_smooth: u8,
    /// Line stipple, with `line_stipple_factor` and `line_stipple_pattern`.
    pub line_stipple_enable: u8,
    /// Flat shading takes the first vertex of a primitive (GL's last-vertex rule otherwise).
    pub flatshade_first: u8,
    /// Pixel centres at .5 (GL): only 1.
    pub half_pixel_center: u8,
    /// Ignored (top-left rule).
    pub bottom_edge_rule: u8,
    /// Unsupported.
    pub rasterizer_discard: u8,
    /// Depth clipping (only on).
    pub depth_clip_near: u8,
    /// Depth clipping (only on).
    pub depth_clip_far: u8,
    /// Depth range [0, 1] in clip space (D3D style), else [-1, 1].
    pub clip_halfz: u8,
    /// Bit per clip distance in use. Without PIPE_CAP_CLIP_PLANES st/mesa lowers user clip
    /// planes into CLIPDIST outputs of exactly these planes, which the compiler discards on.
    pub clip_plane_enable: u8,
    /// Line stipple repeat factor minus one (`pipe_rasterizer_state`'s 0..=255).
    pub line_stipple_factor: u8,
    /// Bit n: GENERIC[n] reads the point coordinate.
    pub sprite_coord_enable: u16,
    /// Line stipple pattern: bit 0 first.
    pub line_stipple_pattern: u16,
    /// Line width in pixels.
    pub line_width: f32,
    /// Point size when the shader writes none.
    pub point_size: f32,
    /// Polygon offset units.
    pub offset_units: f32,
    /// Polygon offset scale.
    pub offset_scale: f32,
    /// Polygon offset clamp.
    pub offset_clamp: f32,
}

/// `pipe_sampler_state`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_sampler_state {
    /// `PIPE_TEX_WRAP_*`.
    pub wrap_s: u8,
    /// `PIPE_TEX_WRAP_*`.
    pub wrap_t: u8,
    /// `PIPE_TEX_WRAP_*`.
    pub wrap_r: u8,
    /// `PIPE_TEX_FILTER_*`.
    pub min_img_filter: u8,
    /// `PIPE_TEX_MIPFILTER_*`.
    pub min_mip_filter: u8,
    /// `PIPE_TEX_FILTER_*`.
    pub mag_img_filter: u8,
    /// `PIPE_TEX_COMPARE_NONE` (0) or `_R_TO_TEXTURE` (1).
    pub compare_mode: u8,
    /// `PIPE_FUNC_*`.
    pub compare_func: u8,
    /// Normalised coordinates; 0 (RECT textures) reads s and t in texels of the view's first
    /// level.
    pub normalized_coords: u8,
    /// 0 or 1 (no anisotropic filtering).
    pub max_anisotropy: u8,
    /// Ignored (cube edges are not filtered across faces).
    pub seamless_cube_map: u8,
    /// Zero.
    pub pad: u8,
    /// LOD bias.
    pub lod_bias: f32,
    /// Lower clamp of the biased LOD, in levels above the view's first level (not NaN).
    pub min_lod: f32,
    /// Upper clamp of the biased LOD, in levels above the view's first level (not NaN).
    pub max_lod: f32,
    /// RGBA border colour.
    pub border_color: [f32; 4],
}

/// `pipe_vertex_element`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_vertex_element {
    /// Byte offset within a vertex.
    pub src_offset: u32,
    /// Which vertex buffer.
    pub vertex_buffer_index: u32,
    /// `PIPE_FORMAT_*` of a vertex format.
    pub src_format: u32,
    /// Instancing: only 0.
    pub instance_divisor: u32,
}

fn new_cso<T: Any + Send + Sync>(c: &Locked, kind: Kind, v: T, out: *mut sgx535_cso) -> Result<()> {
    let id = handles::insert(kind, c.owner, v);
    // SAFETY: the caller checked `out` with check_out before doing any work.
    unsafe { write(out, "out", sgx535_cso { id }) }
}

/// The state object behind `h` (None for 0), lent: no reference count changes, so a bind
/// that the pipe context keeps by its own reference pays for that one alone.
#[inline]
fn lent<T: Any + Send + Sync>(
    c: &Locked,
    h: u64,
    kind: Kind,
    what: &str,
) -> Result<Option<handles::Lent<T>>> {
    if h == 0 {
        return Ok(None);
    }
    let (v, owner) = handles::lend::<T>(h, kind, what)?;
    check_owner(owner, &c.owner, what)?;
    Ok(Some(v))
}

/// The state object behind `h` (None for 0), owned.
fn bound<T: Any + Send + Sync + Clone>(
    c: &Locked,
    h: u64,
    kind: Kind,
    what: &str,
) -> Result<Option<T>> {
    Ok(lent::<T>(c, h, kind, what)?.map(|v| (*v).clone()))
}

fn delete<T: Any + Send + Sync>(c: &Locked, h: u64, kind: Kind, what: &str) -> Result<()> {
    let (_, owner) = handles::lend::<T>(h, kind, what)?;
    check_owner(owner, &c.owner, what)?;
    handles::remove::<T>(h, kind, what)?;
    Ok(())
}

fn blend(s: &sgx535_blend_state) -> Result<BlendState> {
    if flag(s.alpha_to_coverage) {
        return unsupported("blend.alpha_to_coverage: single-sampled only");
    }
    if s.colormask > 0xF {
        return invalid(format!("blend.colormask {:#x}", s.colormask));
    }
    // Gallium leaves the op unset (zero) when logic ops are off.
    let (logicop_enable, logicop_func) = if flag(s.logicop_enable) {
        (true, gallium::logicop(s.logicop_func)?)
    } else {
        (false, LogicOp::COPY)
    };
    if !flag(s.blend_enable) {
        // Gallium leaves the equation unset (zero) when blending is off.
        return Ok(BlendState {
            colormask: s.colormask,
            logicop_enable,
            logicop_func,
            ..BlendState::default()
        });
    }
    Ok(BlendState {
        logicop_enable,
        logicop_func,
        blend_enable: true,
        rgb_func: gallium::blend_func(s.rgb_func)?,
        rgb_src_factor: gallium::blend_factor(s.rgb_src_factor)?,
        rgb_dst_factor: gallium::blend_factor(s.rgb_dst_factor)?,
        alpha_func: gallium::blend_func(s.alpha_func)?,
        alpha_src_factor: gallium::blend_factor(s.alpha_src_factor)?,
        alpha_dst_factor: gallium::blend_factor(s.alpha_dst_factor)?,
        colormask: s.colormask,
    })
}

fn stencil(s: &sgx535_stencil_state) -> Result<StencilState> {
    Ok(StencilState {
        enabled: flag(s.enabled),
        func: gallium::func(s.func)?,
        fail_op: gallium::stencil_op(s.fail_op)?,
        zfail_op: gallium::stencil_op(s.zfail_op)?,
        zpass_op: gallium::stencil_op(s.zpass_op)?,
        valuemask: s.valuemask,
        writemask: s.writemask,
    })
}

fn dsa(s: &sgx535_depth_stencil_alpha_state) -> Result<DepthStencilAlphaState> {
    if flag(s.alpha_enabled) {
        return unsupported(
            "dsa.alpha_enabled: no fixed-function alpha test (PIPE_CAP_ALPHA_TEST is 0)",
        );
    }
    Ok(DepthStencilAlphaState {
        depth_enabled: flag(s.depth_enabled),
        depth_writemask: flag(s.depth_writemask),
        depth_func: gallium::func(s.depth_func)?,
        stencil: [stencil(&s.stencil[0])?, stencil(&s.stencil[1])?],
    })
}

fn rasterizer(s: &sgx535_rasterizer_state) -> Result<RasterizerState> {
    let refuse = [
        (s.light_twoside, "light_twoside"),
        (s.poly_smooth, "poly_smooth"),
        (s.rasterizer_discard, "rasterizer_discard"),
    ];
    if let Some((_, name)) = refuse.iter().find(|(v, _)| flag(*v)) {
        return unsupported(format!(
            "rasterizer.{name}: not a feature of this GPU or library"
        ));
    }
    let offset = flag(s.offset_point) || flag(s.offset_line) || flag(s.offset_tri);
    if offset
        && ![s.offset_units, s.offset_scale, s.offset_clamp]
            .iter()
            .all(|v| v.is_finite())
    {
        return invalid("rasterizer offset_units, offset_scale and offset_clamp must be finite");
    }
    if !flag(s.half_pixel_center) {
        return unsupported("rasterizer.half_pixel_center = 0: pixel centres are at .5");
    }
    if !flag(s.depth_clip_near) || !flag(s.depth_clip_far) {
        return unsupported("rasterizer depth_clip off (PIPE_CAP_DEPTH_CLIP_DISABLE is 0)");
    }
    if s.sprite_coord_mode > 1 {
        return invalid(format!(
            "rasterizer.sprite_coord_mode {}",
            s.sprite_coord_mode
        ));
    }
    Ok(RasterizerState {
        cull_face: gallium::cull(s.cull_face)?,
        front_ccw: flag(s.front_ccw),
        scissor: flag(s.scissor),
        flatshade: flag(s.flatshade),
        point_size: s.point_size,
        line_width: s.line_width,
        line_smooth: flag(s.line_smooth),
        point_quad_rasterization: flag(s.point_quad_rasterization),
        sprite_coord_enable: s.sprite_coord_enable,
        sprite_coord_lower_left: s.sprite_coord_mode == 1,
        flatshade_first: flag(s.flatshade_first),
        poly_stipple: flag(s.poly_stipple_enable),
        // Gallium's factor is the repeat count minus one.
        line_stipple: flag(s.line_stipple_enable)
            .then_some((u16::from(s.line_stipple_factor) + 1, s.line_stipple_pattern)),
        fill_front: gallium::fill(s.fill_front)?,
        fill_back: gallium::fill(s.fill_back)?,
        offset_tri: flag(s.offset_tri),
        offset_line: flag(s.offset_line),
        offset_point: flag(s.offset_point),
        offset_units: if offset { s.offset_units } else { 0.0 },
        offset_scale: if offset { s.offset_scale } else { 0.0 },
        offset_clamp: if offset { s.offset_clamp } else { 0.0 },
    })
}

fn sampler(s: &sgx535_sampler_state) -> Result<SamplerState> {
    if s.max_anisotropy > 1 {
        return unsupported(format!(
            "sampler.max_anisotropy {}: no anisotropic filtering",
            s.max_anisotropy
        ));
    }
    if s.compare_mode > 1 {
        return invalid(format!("sampler.compare_mode {}", s.compare_mode));
    }
    if !s.lod_bias.is_finite() {
        return invalid("sampler.lod_bias must be finite");
    }
    if s.min_lod.is_nan() || s.max_lod.is_nan() {
        return invalid("sampler.min_lod and max_lod must not be NaN");
    }
    Ok(SamplerState {
        wrap_s: gallium::wrap(s.wrap_s)?,
        wrap_t: gallium::wrap(s.wrap_t)?,
        wrap_r: gallium::wrap(s.wrap_r)?,
        min_img_filter: gallium::filter(s.min_img_filter)?,
        mag_img_filter: gallium::filter(s.mag_img_filter)?,
        min_mip_filter: gallium::mip_filter(s.min_mip_filter)?,
        lod_bias: s.lod_bias,
        min_lod: s.min_lod,
        max_lod: s.max_lod,
        border_color: s.border_color,
        compare_mode: s.compare_mode == 1,
        compare_func: gallium::func(s.compare_func)?,
        unnormalized_coords: !flag(s.normalized_coords),
    })
}

/// Reads a caller's state struct, makes the state object on the context, returns its handle.
fn create<S: Copy, T: Any + Send + Sync>(
    ctx: sgx535_context,
    state: *const S,
    out: *mut sgx535_cso,
    kind: Kind,
    make: impl FnOnce(&Context, &S) -> Result<T>,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        check_out(out, "out")?;
        // SAFETY: the caller's pointer, checked by read.
        let s = unsafe { read(state, "state")? };
        let v = make(&c.lock().ctx, &s)?;
        new_cso(&c, kind, v, out)
    })
}

/// Binds a state object of this context (id 0 unbinds).
fn bind<T: Any + Send + Sync>(
    ctx: sgx535_context,
    cso: sgx535_cso,
    kind: Kind,
    what: &str,
    apply: impl FnOnce(&mut Context, Option<&T>),
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let v = lent::<T>(&c, cso.id, kind, what)?;
        apply(&mut c.lock().ctx, v.as_deref());
        Ok(())
    })
}

/// Deletes a state object of this context.
fn delete_cso<T: Any + Send + Sync>(
    ctx: sgx535_context,
    cso: sgx535_cso,
    kind: Kind,
    what: &str,
) -> sgx535_status {
    guard(|| delete::<T>(&context::get(ctx)?, cso.id, kind, what))
}

/// Creates a blend state on a context.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_blend_state(
    ctx: sgx535_context,
    state: *const sgx535_blend_state,
    out: *mut sgx535_cso,
) -> sgx535_status {
    create(ctx, state, out, Kind::Blend, |c, s| {
        Ok(c.create_blend_state(&blend(s)?))
    })
}

/// Binds a blend state (id 0 unbinds).
#[no_mangle]
pub extern "C" fn sgx535_bind_blend_state(ctx: sgx535_context, cso: sgx535_cso) -> sgx535_status {
    bind(
        ctx,
        cso,
        Kind::Blend,
        "blend state",
        |c, v: Option<&Arc<BlendState>>| c.bind_blend_state(v),
    )
}

/// Deletes a blend state; where it is bound it stays in use until replaced.
#[no_mangle]
pub extern "C" fn sgx535_delete_blend_state(ctx: sgx535_context, cso: sgx535_cso) -> sgx535_status {
    delete_cso::<Arc<BlendState>>(ctx, cso, Kind::Blend, "blend state")
}

/// Creates a depth-stencil-alpha state on a context.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_depth_stencil_alpha_state(
    ctx: sgx535_context,
    state: *const sgx535_depth_stencil_alpha_state,
    out: *mut sgx535_cso,
) -> sgx535_status {
    create(ctx, state, out, Kind::DepthStencilAlpha, |c, s| {
        Ok(c.create_depth_stencil_alpha_state(&dsa(s)?))
    })
}

/// Binds a depth-stencil-alpha state (id 0 unbinds).
#[no_mangle]
pub extern "C" fn sgx535_bind_depth_stencil_alpha_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    let what = "depth-stencil-alpha state";
    bind(
        ctx,
        cso,
        Kind::DepthStencilAlpha,
        what,
        |c, v: Option<&Arc<DepthStencilAlphaState>>| c.bind_depth_stencil_alpha_state(v),
    )
}

/// Deletes a depth-stencil-alpha state; where it is bound it stays in use until replaced.
#[no_mangle]
pub extern "C" fn sgx535_delete_depth_stencil_alpha_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    let what = "depth-stencil-alpha state";
    delete_cso::<Arc<DepthStencilAlphaState>>(ctx, cso, Kind::DepthStencilAlpha, what)
}

/// Creates a rasterizer state on a context.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_rasterizer_state(
    ctx: sgx535_context,
    state: *const sgx535_rasterizer_state,
    out: *mut sgx535_cso,
) -> sgx535_status {
    create(ctx, state, out, Kind::Rasterizer, |c, s| {
        Ok(c.create_rasterizer_state(&rasterizer(s)?)?)
    })
}

/// Binds a rasterizer state (id 0 unbinds).
#[no_mangle]
pub extern "C" fn sgx535_bind_rasterizer_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    bind(
        ctx,
        cso,
        Kind::Rasterizer,
        "rasterizer state",
        |c, v: Option<&Arc<RasterizerState>>| c.bind_rasterizer_state(v),
    )
}

/// Deletes a rasterizer state; where it is bound it stays in use until replaced.
#[no_mangle]
pub extern "C" fn sgx535_delete_rasterizer_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    delete_cso::<Arc<RasterizerState>>(ctx, cso, Kind::Rasterizer, "rasterizer state")
}

/// Creates a sampler state on a context.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_sampler_state(
    ctx: sgx535_context,
    state: *const sgx535_sampler_state,
    out: *mut sgx535_cso,
) -> sgx535_status {
    create(ctx, state, out, Kind::Sampler, |c, s| {
        Ok(c.create_sampler_state(&sampler(s)?)?)
    })
}

/// `bind_sampler_states` for a stage: `count` handles from slot `start` (id 0 unbinds a slot;
/// `samplers` NULL unbinds `count` slots).
#[no_mangle]
pub unsafe extern "C" fn sgx535_bind_sampler_states(
    ctx: sgx535_context,
    pipe_shader_type: u32,
    start: u32,
    count: u32,
    samplers: *const sgx535_cso,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let stage = gallium::bound_stage(pipe_shader_type)?;
        let ids: Vec<u64> = if samplers.is_null() {
            vec![0; count as usize]
        } else {
            // SAFETY: the caller's array of `count` handles, checked by slice.
            unsafe { slice(samplers, count as usize, "samplers")? }
                .iter()
                .map(|s| s.id)
                .collect()
        };
        let list = ids
            .iter()
            .map(|&id| bound::<Arc<SamplerState>>(&c, id, Kind::Sampler, "sampler state"))
            .collect::<Result<Vec<_>>>()?;
        c.lock()
            .ctx
            .bind_stage_sampler_states(stage, start as usize, &list)?;
        Ok(())
    })
}

/// Deletes a sampler state.
#[no_mangle]
pub extern "C" fn sgx535_delete_sampler_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        delete::<Arc<SamplerState>>(&c, cso.id, Kind::Sampler, "sampler state")
    })
}

/// `create_vertex_elements_state` from `count` elements.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_vertex_elements_state(
    ctx: sgx535_context,
    count: u32,
    elements: *const sgx535_vertex_element,
    out: *mut sgx535_cso,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        check_out(out, "out")?;
        // SAFETY: the caller's array of `count` elements, checked by slice.
        let els = unsafe { slice(elements, count as usize, "elements")? };
        let list = els
            .iter()
            .enumerate()
            .map(|(i, e)| {
                if e.instance_divisor != 0 {
                    return unsupported(format!("element {i}: instancing (instance_divisor)"));
                }
                Ok(VertexElement {
                    src_offset: e.src_offset,
                    vertex_buffer_index: e.vertex_buffer_index,
                    src_format: gallium::vertex_format(e.src_format)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let v = c.lock().ctx.create_vertex_elements_state(&list)?;
        new_cso(&c, Kind::VertexElements, v, out)
    })
}

/// Binds a vertex elements state (id 0 unbinds).
#[no_mangle]
pub extern "C" fn sgx535_bind_vertex_elements_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    let what = "vertex elements state";
    bind(
        ctx,
        cso,
        Kind::VertexElements,
        what,
        |c, v: Option<&Arc<Vec<VertexElement>>>| c.bind_vertex_elements_state(v),
    )
}

/// Deletes a vertex elements state.
#[no_mangle]
pub extern "C" fn sgx535_delete_vertex_elements_state(
    ctx: sgx535_context,
    cso: sgx535_cso,
) -> sgx535_status {
    let what = "vertex elements state";
    delete_cso::<Arc<Vec<VertexElement>>>(ctx, cso, Kind::VertexElements, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> sgx535_rasterizer_state {
        sgx535_rasterizer_state {
            half_pixel_center: 1,
            depth_clip_near: 1,
            depth_clip_far: 1,
            ..Default::default()
        }
    }

    #[test]
    fn stipples_the_provoking_vertex_and_clip_distances_are_accepted() {
        let r = rasterizer(&sgx535_rasterizer_state {
            flatshade_first: 1,
            poly_stipple_enable: 1,
            line_stipple_enable: 1,
            // Gallium's factor 255 is GL's repeat 256.
            line_stipple_factor: 255,
            line_stipple_pattern: 0xF0F3,
            clip_plane_enable: 0x3F,
            ..base()
        })
        .unwrap();
        assert!(r.flatshade_first && r.poly_stipple);
        assert_eq!(r.line_stipple, Some((256, 0xF0F3)));
        let r = rasterizer(&sgx535_rasterizer_state {
            line_stipple_factor: 3,
            line_stipple_pattern: 0xFFFF,
            ..base()
        })
        .unwrap();
        // The factor and pattern mean nothing while the stipple is off.
        assert_eq!(r.line_stipple, None);
        assert!(!r.flatshade_first && !r.poly_stipple);
    }
}
