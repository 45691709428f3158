//! Sampler views and surfaces: a resource seen as a texture, or one level (and face or slice)
//! of it as a render target.

use std::sync::Arc;

use sgx_pipe::state::{SamplerView, Surface};
use sgx_pipe::{Resource, ResourceTarget};

use crate::context::{self, check_owner, sgx535_context, Locked};
use crate::ffi::{check_out, guard, read, slice, write};
use crate::gallium;
use crate::handles::{self, Kind};
use crate::resource::{self, sgx535_resource};
use crate::status::{invalid, sgx535_status, unsupported, Result};

/// A resource as a shader samples it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_sampler_view {
    /// Opaque; 0 is none.
    pub id: u64,
}

/// One level of a resource as a render or depth target.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_surface {
    /// Opaque; 0 is none.
    pub id: u64,
}

/// `pipe_sampler_view`'s template.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_sampler_view_template {
    /// `PIPE_FORMAT_*`: the resource's, or its sRGB/UNORM twin.
    pub format: u32,
    /// First level sampled.
    pub first_level: u32,
    /// Last level sampled.
    pub last_level: u32,
    /// `PIPE_SWIZZLE_*` of red.
    pub swizzle_r: u8,
    /// `PIPE_SWIZZLE_*` of green.
    pub swizzle_g: u8,
    /// `PIPE_SWIZZLE_*` of blue.
    pub swizzle_b: u8,
    /// `PIPE_SWIZZLE_*` of alpha.
    pub swizzle_a: u8,
}

/// `pipe_surface`'s template.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
#[allow(non_camel_case_types)]
pub struct sgx535_surface_template {
    /// `PIPE_FORMAT_*`: the resource's.
    pub format: u32,
    /// The level.
    pub level: u32,
    /// The cube face or 3D slice.
    pub first_layer: u32,
    /// Must equal `first_layer` (one layer per surface).
    pub last_layer: u32,
}

/// Removes a view or surface made on this context.
fn destroy<T: std::any::Any + Send + Sync>(
    ctx: sgx535_context,
    h: u64,
    kind: Kind,
    what: &str,
) -> Result<()> {
    let c = context::get(ctx)?;
    let (_, owner) = handles::get::<T>(h, kind, what)?;
    check_owner(owner, &c.owner, what)?;
    handles::remove::<T>(h, kind, what)?;
    Ok(())
}

/// What creating a view or surface starts with: the context, its screen's resource and the
/// template, with the output pointer checked before any work.
///
/// # Safety
/// `t` is NULL or points to a readable template; `out` is NULL or writable (NULL and
/// misalignment are errors).
unsafe fn create_inputs<T: Copy, O>(
    ctx: sgx535_context,
    res: sgx535_resource,
    t: *const T,
    out: *mut O,
) -> Result<(Locked, Arc<Resource>, T)> {
    let c = context::get(ctx)?;
    let r = resource::get(res, c.owner.screen, "resource")?;
    check_out(out, "out")?;
    // SAFETY: the caller's pointer, checked by read.
    let t = unsafe { read(t, "template")? };
    Ok((c, r, t))
}

/// Creates a sampler view of a resource.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_sampler_view(
    ctx: sgx535_context,
    res: sgx535_resource,
    t: *const sgx535_sampler_view_template,
    out: *mut sgx535_sampler_view,
) -> sgx535_status {
    guard(|| {
        // SAFETY: the caller's pointers, checked by create_inputs.
        let (c, r, t) = unsafe { create_inputs(ctx, res, t, out)? };
        if r.target() == ResourceTarget::Buffer {
            return unsupported("buffer textures (a sampler view of a buffer)");
        }
        let view = SamplerView {
            resource: r,
            format: gallium::format(t.format)?,
            first_level: t.first_level,
            last_level: t.last_level,
            swizzle: [
                gallium::swizzle(t.swizzle_r)?,
                gallium::swizzle(t.swizzle_g)?,
                gallium::swizzle(t.swizzle_b)?,
                gallium::swizzle(t.swizzle_a)?,
            ],
        };
        view.check_levels()?;
        let id = handles::insert(Kind::SamplerView, c.owner, view);
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_sampler_view { id }) }
    })
}

/// Destroys a sampler view (where bound it stays in use until replaced).
#[no_mangle]
pub extern "C" fn sgx535_sampler_view_destroy(
    ctx: sgx535_context,
    view: sgx535_sampler_view,
) -> sgx535_status {
    guard(|| destroy::<SamplerView>(ctx, view.id, Kind::SamplerView, "sampler view"))
}

pub(crate) fn view(c: &Locked, v: sgx535_sampler_view) -> Result<Option<SamplerView>> {
    if v.id == 0 {
        return Ok(None);
    }
    let (view, owner) = handles::get::<SamplerView>(v.id, Kind::SamplerView, "sampler view")?;
    check_owner(owner, &c.owner, "sampler view")?;
    Ok(Some((*view).clone()))
}

/// `set_sampler_views` for a stage: `count` views from slot `start` (id 0, or `views` NULL,
/// unbinds).
#[no_mangle]
pub unsafe extern "C" fn sgx535_set_sampler_views(
    ctx: sgx535_context,
    pipe_shader_type: u32,
    start: u32,
    count: u32,
    views: *const sgx535_sampler_view,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let stage = gallium::bound_stage(pipe_shader_type)?;
        let list: Vec<Option<SamplerView>> = if views.is_null() {
            vec![None; count as usize]
        } else {
            // SAFETY: the caller's array of `count` handles, checked by slice.
            unsafe { slice(views, count as usize, "views")? }
                .iter()
                .map(|v| view(&c, *v))
                .collect::<Result<_>>()?
        };
        c.lock()
            .ctx
            .set_stage_sampler_views(stage, start as usize, &list)?;
        Ok(())
    })
}

/// Creates a surface: one level and layer of a texture as a target.
#[no_mangle]
pub unsafe extern "C" fn sgx535_create_surface(
    ctx: sgx535_context,
    res: sgx535_resource,
    t: *const sgx535_surface_template,
    out: *mut sgx535_surface,
) -> sgx535_status {
    guard(|| {
        // SAFETY: the caller's pointers, checked by create_inputs.
        let (c, r, t) = unsafe { create_inputs(ctx, res, t, out)? };
        if r.target() == ResourceTarget::Buffer {
            return invalid("a surface of a buffer");
        }
        let format = gallium::format(t.format)?;
        // st/mesa renders to an sRGB texture through its linear format (the screen offers
        // no sRGB rendering); the surface is the resource's, rendered as render_format says.
        if format != r.format() && format != sgx_pipe::render_format(r.format()) {
            return unsupported(format!(
                "a {} surface of a {} resource: no format reinterpretation",
                format.name(),
                r.format().name()
            ));
        }
        if format != sgx_pipe::render_format(format) {
            return unsupported(format!(
                "a {} surface: sRGB rendering is not offered (render through {})",
                format.name(),
                sgx_pipe::render_format(format).name()
            ));
        }
        if t.last_layer != t.first_layer {
            return unsupported("layered rendering (a surface of several layers)");
        }
        let layers = match r.target() {
            ResourceTarget::TextureCube => 6,
            ResourceTarget::Texture3D => r.level_depth(t.level)?,
            _ => 1,
        };
        r.level_extent(t.level)?;
        if t.first_layer >= layers {
            return invalid(format!("layer {} of {layers}", t.first_layer));
        }
        let s = Surface::new(&r, t.level, t.first_layer);
        let id = handles::insert(Kind::Surface, c.owner, s);
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_surface { id }) }
    })
}

/// Destroys a surface (where bound it stays in use until replaced).
#[no_mangle]
pub extern "C" fn sgx535_surface_destroy(ctx: sgx535_context, s: sgx535_surface) -> sgx535_status {
    guard(|| destroy::<Surface>(ctx, s.id, Kind::Surface, "surface"))
}

/// The surface behind a handle (id 0: None).
pub(crate) fn surface(c: &Locked, s: sgx535_surface, what: &str) -> Result<Option<Surface>> {
    if s.id == 0 {
        return Ok(None);
    }
    let (v, owner) = handles::get::<Surface>(s.id, Kind::Surface, what)?;
    check_owner(owner, &c.owner, what)?;
    Ok(Some((*v).clone()))
}
