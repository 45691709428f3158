//! Draws, clears, blits, copies and mipmap generation.

use std::ffi::c_void;
use std::sync::Arc;

use sgx_blitter::{BlitInfo, SurfaceRect};
use sgx_pipe::state::{BufferSource, ScissorState};
use sgx_pipe::{clear_flags, DrawInfo, PipeBox, Resource, ResourceTarget};

use crate::blit_zs;
use crate::box_::{self, sgx535_box};
use crate::context::{self, sgx535_context};
use crate::ffi::{bytes, check_out, guard, read, read_opt, write};
use crate::gallium;
use crate::params::sgx535_scissor_state;
use crate::resource::{self, sgx535_resource};
use crate::status::{invalid, sgx535_status, unsupported, Result};
use crate::views::{self, sgx535_surface};

/// `pipe_draw_info` with its one `pipe_draw_start_count_bias`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_draw_info {
    /// `PIPE_PRIM_*`: POINTS to TRIANGLE_FAN (convert quads and polygons first).
    pub mode: u32,
    /// 0 (not indexed), 1, 2 or 4.
    pub index_size: u32,
    /// Index buffer, or id 0 with `index_user`.
    pub index_buffer: sgx535_resource,
    /// User index data: indices `start .. start + count` are read from it.
    pub index_user: *const c_void,
    /// First vertex, or first index.
    pub start: u32,
    /// Vertices or indices.
    pub count: u32,
    /// Added to every index.
    pub index_bias: i32,
    /// Smallest index used.
    pub min_index: u32,
    /// Largest index used.
    pub max_index: u32,
    /// Only 0.
    pub start_instance: u32,
    /// 0 or 1 (no instancing).
    pub instance_count: u32,
}

/// Four floats of a caller's colour.
///
/// # Safety
/// `p` is NULL or points to four readable floats.
unsafe fn rgba(p: *const f32) -> Result<[f32; 4]> {
    // SAFETY: forwarded to slice, which checks NULL and alignment.
    let s = unsafe { crate::ffi::slice(p, 4, "color")? };
    Ok([s[0], s[1], s[2], s[3]])
}

/// `draw_vbo`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_draw_vbo(
    ctx: sgx535_context,
    info: *const sgx535_draw_info,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointer, checked by read.
        let d = unsafe { read(info, "info")? };
        if d.instance_count > 1 || d.start_instance != 0 {
            return unsupported("instanced draws");
        }
        if !matches!(d.index_size, 0 | 1 | 2 | 4) {
            return invalid(format!("index_size {}", d.index_size));
        }
        let (lent, user) = if d.index_size == 0 {
            (None, None)
        } else if d.index_buffer.id != 0 {
            let r = resource::lend(d.index_buffer, c.owner.screen, "index buffer")?;
            (Some(r), None)
        } else {
            let end = (u64::from(d.start) + u64::from(d.count)) * u64::from(d.index_size);
            let n = usize::try_from(end).map_err(|_| {
                crate::status::Error::new(
                    crate::status::SGX535_ERROR_INVALID_ARGUMENT,
                    "index range too large",
                )
            })?;
            // SAFETY: the caller's user index data, (start + count) indices, checked by bytes.
            let data = unsafe { bytes(d.index_user, n, "index_user")? };
            (None, Some(BufferSource::User(Arc::from(data))))
        };
        let mode = gallium::prim(d.mode)?;
        let mut inner = c.lock();
        let index = match lent {
            Some(r) => Some(BufferSource::Resource(match inner.extra.index.take() {
                Some(kept) if std::ptr::eq(&*kept, &*r) => kept,
                _ => r.to_arc(),
            })),
            None => user,
        };
        let draw = DrawInfo {
            mode,
            index_size: d.index_size,
            index,
            start: d.start,
            count: d.count,
            index_bias: d.index_bias,
            min_index: d.min_index,
            max_index: d.max_index,
        };
        let drawn = inner.ctx.draw_vbo(&draw);
        if let Some(BufferSource::Resource(r)) = draw.index {
            inner.extra.index = Some(r);
        }
        drawn?;
        Ok(())
    })
}

/// `clear` of the bound framebuffer (`PIPE_CLEAR_*`), within `scissor` when not NULL.
/// With more than one colour buffer bound, the colour bits clear all of them or none (the
/// render that clears them is replayed per buffer).
#[no_mangle]
pub unsafe extern "C" fn sgx535_clear(
    ctx: sgx535_context,
    pipe_clear_buffers: u32,
    scissor: *const sgx535_scissor_state,
    color: *const f32,
    depth: f64,
    stencil: u32,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointers, checked by rgba / read_opt.
        let (color, scissor) = unsafe { (rgba(color)?, read_opt(scissor, "scissor")?) };
        let mut inner = c.lock();
        let fb = inner.ctx.framebuffer_state();
        let bound = usize::from(fb.cbuf.is_some()) + fb.extra_cbufs.len();
        // PIPE_CLEAR_COLOR0 << i clears colour buffer i (Gallium's numbering).
        let all_colour = (0..bound.max(1)).fold(0, |m, i| m | clear_flags::COLOR0 << i);
        let colour = pipe_clear_buffers & all_colour;
        if bound > 1 && colour != 0 && colour != all_colour {
            return unsupported(format!(
                "clear flags {pipe_clear_buffers:#x}: some of {bound} colour buffers"
            ));
        }
        let mut buffers = pipe_clear_buffers & (clear_flags::DEPTH | clear_flags::STENCIL);
        if colour != 0 {
            buffers |= clear_flags::COLOR0;
        }
        match scissor {
            None => inner.ctx.clear(buffers, color, depth, stencil as u8)?,
            Some(s) => {
                let s = ScissorState {
                    minx: s.minx,
                    miny: s.miny,
                    maxx: s.maxx,
                    maxy: s.maxy,
                };
                let (ctx, b) = inner.blitter()?;
                b.clear_scissored(ctx, buffers, &s, color, depth, stencil as u8)?;
            }
        }
        Ok(())
    })
}

/// `clear_render_target`: a rectangle of a colour surface.
#[no_mangle]
pub unsafe extern "C" fn sgx535_clear_render_target(
    ctx: sgx535_context,
    dst: sgx535_surface,
    color: *const f32,
    x: u32,
    y: u32,
    w: u32,
    h: u32,
) -> sgx535_status {
    guard(|| {
        // SAFETY: the caller's pointer, checked by rgba.
        let color = unsafe { rgba(color)? };
        clear_rect(ctx, dst, [x, y, w, h], clear_flags::COLOR0, color, 0.0, 0)
    })
}

/// `clear_depth_stencil`: a rectangle of a depth/stencil surface (`PIPE_CLEAR_DEPTH` and/or
/// `PIPE_CLEAR_STENCIL`).
#[no_mangle]
#[allow(clippy::too_many_arguments)] // Gallium's signature.
pub extern "C" fn sgx535_clear_depth_stencil(
    ctx: sgx535_context,
    dst: sgx535_surface,
    pipe_clear_flags: u32,
    depth: f64,
    stencil: u32,
    x: u32,
    y: u32,
    w: u32,
    h: u32,
) -> sgx535_status {
    guard(|| {
        let zs = clear_flags::DEPTH | clear_flags::STENCIL;
        if pipe_clear_flags & !zs != 0 || pipe_clear_flags == 0 {
            return invalid(format!(
                "clear flags {pipe_clear_flags:#x}: depth and/or stencil"
            ));
        }
        if !depth.is_finite() {
            return invalid("clear depth must be finite");
        }
        let rect = [x, y, w, h];
        clear_rect(
            ctx,
            dst,
            rect,
            pipe_clear_flags,
            [0.0; 4],
            depth,
            stencil as u8,
        )
    })
}

/// Clears a rectangle of one surface by the blitter's scissored draw.
fn clear_rect(
    ctx: sgx535_context,
    dst: sgx535_surface,
    rect: [u32; 4],
    buffers: u32,
    color: [f32; 4],
    depth: f64,
    stencil: u8,
) -> Result<()> {
    let c = context::get(ctx)?;
    let Some(s) = views::surface(&c, dst, "dst")? else {
        return invalid("dst is a null handle");
    };
    let t = SurfaceRect {
        dst: &s.resource,
        level: s.level,
        face: s.face,
        rect,
    };
    let mut inner = c.lock();
    let (ctx, b) = inner.blitter()?;
    b.clear_surface(ctx, &t, buffers, color, depth, stencil)?;
    Ok(())
}

/// One side of a blit.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_blit_image {
    /// The texture.
    pub resource: sgx535_resource,
    /// Its level.
    pub level: u32,
    /// The rectangle (z: the cube face).
    pub r#box: sgx535_box,
    /// `PIPE_FORMAT_*`: the resource's.
    pub format: u32,
}

/// `pipe_blit_info`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[allow(non_camel_case_types)]
pub struct sgx535_blit_info {
    /// Destination.
    pub dst: sgx535_blit_image,
    /// Source.
    pub src: sgx535_blit_image,
    /// `PIPE_MASK_RGBA`, or `PIPE_MASK_Z`/`PIPE_MASK_S` (unscaled, one format: a CPU copy).
    pub mask: u32,
    /// `PIPE_TEX_FILTER_*`.
    pub filter: u32,
    /// Clip the destination to `scissor` (unscaled blits).
    pub scissor_enable: u8,
    /// Ignored (blits are not conditional here).
    pub render_condition_enable: u8,
    /// Zero.
    pub pad: [u8; 2],
    /// The scissor, when enabled.
    pub scissor: sgx535_scissor_state,
}

/// `blit`: a scaled, format-converting copy of a colour rectangle, by a draw.
#[no_mangle]
pub unsafe extern "C" fn sgx535_blit(
    ctx: sgx535_context,
    info: *const sgx535_blit_info,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        // SAFETY: the caller's pointer, checked by read.
        let b = unsafe { read(info, "info")? };
        let zs = blit_zs::MASK_Z | blit_zs::MASK_S;
        if b.mask & !(0xF | zs) != 0 || (b.mask & 0xF != 0 && b.mask & zs != 0) {
            return unsupported(format!("blit mask {:#x}: colour, or depth/stencil", b.mask));
        }
        if b.mask == 0 {
            return Ok(());
        }
        let dst = resource::get(b.dst.resource, c.owner.screen, "dst.resource")?;
        let src = resource::get(b.src.resource, c.owner.screen, "src.resource")?;
        let src_view = gallium::format(b.src.format)?;
        let dst_view = gallium::format(b.dst.format)?;
        check_blit_views(&src, src_view, &dst, dst_view, b.mask & zs != 0)?;
        let (df, mut dbox) = box_::split(&dst, &b.dst.r#box)?;
        let (sf, mut sbox) = box_::split(&src, &b.src.r#box)?;
        if b.scissor_enable != 0 && !clip_to_scissor(&mut sbox, &mut dbox, &b.scissor)? {
            return Ok(());
        }
        if sbox.depth != dbox.depth {
            return unsupported(format!(
                "blits that scale in depth: {:?} box {sbox:?} to {:?} box {dbox:?}",
                src.target(),
                dst.target()
            ));
        }
        let linear = gallium::filter(u8::try_from(b.filter).unwrap_or(u8::MAX))?
            == sgx_pipe::state::Filter::LINEAR;
        let mut inner = c.lock();
        // A box of several 3D slices is blitted slice by slice.
        for i in 0..sbox.depth {
            let one = |bx: PipeBox| PipeBox {
                z: bx.z + i,
                depth: 1,
                ..bx
            };
            let sides = BlitSides {
                src: (&src, b.src.level, sf, one(sbox)),
                dst: (&dst, b.dst.level, df, one(dbox)),
            };
            if b.mask & zs != 0 {
                blit_zs::blit(&mut inner.ctx, sides.src, sides.dst, b.mask)?;
                continue;
            }
            blit_one(&mut inner, &sides, src_view, linear)?;
        }
        Ok(())
    })
}

/// The views a blit may name: the resource's own format on both sides of a depth/stencil
/// blit; for colour, a source read through its format's sRGB or linear twin (the same bytes,
/// decoded or not: st/mesa reads an sRGB texture back through its UNORM twin), and a
/// destination written through its format or, for an sRGB one, its linear twin (the library
/// never encodes sRGB on writes: `sgx_pipe::render_format`). Anything else is unsupported.
fn check_blit_views(
    src: &Resource,
    src_view: sgx_pipe::Format,
    dst: &Resource,
    dst_view: sgx_pipe::Format,
    depth_stencil: bool,
) -> Result<()> {
    use sgx_pipe::render_format;
    let src_ok = src_view == src.format()
        || (!depth_stencil && render_format(src_view) == render_format(src.format()));
    let dst_ok =
        dst_view == dst.format() || (!depth_stencil && dst_view == render_format(dst.format()));
    for (ok, view, r, what) in [
        (dst_ok, dst_view, dst, "dst"),
        (src_ok, src_view, src, "src"),
    ] {
        if !ok {
            return unsupported(format!(
                "{what}.format {}: views in another format than the resource's {}",
                view.name(),
                r.format().name()
            ));
        }
    }
    Ok(())
}

/// Clips an unscaled blit to the scissor (the destination's pixels inside it, and the source
/// pixels that land there). `false` when nothing is left.
fn clip_to_scissor(s: &mut PipeBox, d: &mut PipeBox, sc: &sgx535_scissor_state) -> Result<bool> {
    if (s.width, s.height) != (d.width, d.height) {
        return unsupported("scaled scissored blits");
    }
    let (x0, y0) = (d.x.max(sc.minx), d.y.max(sc.miny));
    let x1 = (u64::from(d.x) + u64::from(d.width)).min(u64::from(sc.maxx));
    let y1 = (u64::from(d.y) + u64::from(d.height)).min(u64::from(sc.maxy));
    if u64::from(x0) >= x1 || u64::from(y0) >= y1 {
        return Ok(false);
    }
    let (w, h) = (x1 as u32 - x0, y1 as u32 - y0);
    s.x += x0 - d.x;
    s.y += y0 - d.y;
    (s.width, s.height) = (w, h);
    (d.x, d.y, d.width, d.height) = (x0, y0, w, h);
    Ok(true)
}

/// One slice's blit: (resource, level, face, box) of each side.
struct BlitSides<'a> {
    src: (&'a Arc<Resource>, u32, u32, PipeBox),
    dst: (&'a Arc<Resource>, u32, u32, PipeBox),
}

/// One slice's blit through the blitter (which stages faces, slices and copies within one
/// image through 2D temporaries).
fn blit_one(
    inner: &mut crate::context::CtxInner,
    s: &BlitSides<'_>,
    src_view: sgx_pipe::Format,
    linear: bool,
) -> Result<()> {
    let (src, src_level, src_face, src_box) = s.src;
    let (dst, dst_level, dst_face, dst_box) = s.dst;
    let info = BlitInfo {
        dst: dst.clone(),
        dst_level,
        dst_face,
        dst_box,
        src: src.clone(),
        src_level,
        src_face,
        src_box,
        linear,
    };
    let (ctx, bl) = inner.blitter()?;
    bl.blit_src_view(ctx, &info, src_view)?;
    Ok(())
}

/// `resource_copy_region`: bytes of a box copied unconverted (buffers: x is the byte offset).
#[no_mangle]
#[allow(clippy::too_many_arguments)] // Gallium's signature.
pub unsafe extern "C" fn sgx535_resource_copy_region(
    ctx: sgx535_context,
    dst: sgx535_resource,
    dst_level: u32,
    dstx: u32,
    dsty: u32,
    dstz: u32,
    src: sgx535_resource,
    src_level: u32,
    src_box: *const sgx535_box,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let d = resource::get(dst, c.owner.screen, "dst")?;
        let s = resource::get(src, c.owner.screen, "src")?;
        // SAFETY: the caller's pointer, checked by read.
        let b = unsafe { read(src_box, "src_box")? };
        let (src_face, sbox) = if s.target() == ResourceTarget::Buffer {
            let v = [b.x, b.y, b.z, b.width, b.height, b.depth];
            if v.iter().any(|x| *x < 0) {
                return invalid(format!("box {b:?}"));
            }
            (0, sgx_pipe::PipeBox::new(b.x as u32, 0, b.width as u32, 1))
        } else {
            box_::split(&s, &b)?
        };
        let (dst_face, dz) = match d.target() {
            ResourceTarget::TextureCube => (dstz, 0),
            _ => (0, dstz),
        };
        c.lock().ctx.resource_copy_region(
            &d, dst_level, dst_face, dstx, dsty, dz, &s, src_level, src_face, sbox,
        )?;
        Ok(())
    })
}

/// `generate_mipmap`: levels `base_level + 1 ..= last_level` from `base_level`, by the
/// blitter's fenced per-level GPU passes where admitted, else by its CPU route. `*generated`
/// is 1 when the levels were made. `format` must be the resource's; every layer (all six
/// faces of a cube) is generated at once.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // Gallium's signature.
pub unsafe extern "C" fn sgx535_generate_mipmap(
    ctx: sgx535_context,
    res: sgx535_resource,
    format: u32,
    base_level: u32,
    last_level: u32,
    first_layer: u32,
    last_layer: u32,
    generated: *mut u8,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        let r = resource::get(res, c.owner.screen, "resource")?;
        check_out(generated, "generated")?;
        let f = gallium::format(format)?;
        if f != r.format() {
            return unsupported(format!(
                "generate_mipmap as {} of a {} resource",
                f.name(),
                r.format().name()
            ));
        }
        // Gallium's layers are a cube's faces, or a 3D texture's slices of the base level.
        let layers = match r.target() {
            ResourceTarget::TextureCube => 6,
            ResourceTarget::Texture3D => r.level_depth(base_level)?,
            _ => 1,
        };
        if first_layer != 0 || last_layer + 1 != layers {
            return unsupported(format!(
                "layers {first_layer}..={last_layer} of {layers}: every layer at once"
            ));
        }
        let mut inner = c.lock();
        let (ctx, b) = inner.blitter()?;
        let report = b.generate_mipmap(ctx, &r, base_level, last_level)?;
        log::debug!(
            "generate_mipmap: {:?}, {} passes",
            report.route,
            report.passes.len()
        );
        // SAFETY: checked by check_out.
        unsafe { write(generated, "generated", 1) }
    })
}
