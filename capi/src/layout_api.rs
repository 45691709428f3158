//! The layout engine without a device, for an emulator's GL layer: where every level of a
//! texture lives, twiddle and untwiddle copies of rectangles, and the CPU mip generator.

use std::ffi::c_void;

use sgx_layout::{Layout, Rect, Target, Template, Tiling};
use sgx_pipe::ResourceTarget;

use crate::ffi::{bytes, bytes_mut, check_out, guard, read, write};
use crate::gallium;
use crate::resource::{SGX535_TILING_LINEAR, SGX535_TILING_TWIDDLED};
use crate::status::{
    invalid, sgx535_status, unsupported, Error, Result, SGX535_ERROR_INVALID_ARGUMENT,
};

/// Levels a `sgx535_layout` has room for: the ABI's capacity, above the GPU's 12-level limit
/// (hwdocs `limits.MAX_TEXTURE_LEVELS`), so the struct's size survives a bigger GPU.
pub const SGX535_MAX_LEVELS: usize = 16;

/// Where one level lives.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types, non_snake_case)]
pub struct sgx535_level_layout {
    /// Offset from the start of its face.
    pub offset_B: u64,
    /// Bytes the level spans (all slices); the next level starts at offset_B + size_B.
    pub size_B: u64,
    /// Bytes of texel data the level holds (smaller than size_B by linear row padding).
    pub footprint_B: u64,
    /// Bytes from one slice to the next (3D).
    pub slice_stride_B: u64,
    /// Width in pixels.
    pub width_px: u32,
    /// Height in pixels.
    pub height_px: u32,
    /// Depth in pixels (3D; else 1).
    pub depth_px: u32,
    /// Bytes between rows (linear); 0 for twiddled.
    pub stride_B: u32,
}

/// A texture's layout, as `sgx535_layout_compute` fills it.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types, non_snake_case)]
pub struct sgx535_layout {
    /// `PIPE_FORMAT_*`.
    pub format: u32,
    /// `PIPE_TEXTURE_2D`, `_3D` or `_CUBE` (`_1D` is stored as 2D of height 1).
    pub target: u32,
    /// Level 0 width.
    pub width_px: u32,
    /// Level 0 height.
    pub height_px: u32,
    /// Level 0 depth.
    pub depth_px: u32,
    /// Levels in the chain.
    pub levels: u32,
    /// 1, or 6 for a cube.
    pub faces: u32,
    /// `SGX535_TILING_LINEAR` or `_TWIDDLED` (every level alike).
    pub tiling: u32,
    /// Bytes bytes per element.
    pub bytes_per_el: u32,
    /// Zero.
    pub pad: u32,
    /// Distance between faces.
    pub face_stride_B: u64,
    /// Bytes of the whole allocation.
    pub total_size_B: u64,
    /// Per level, largest first (`levels` are filled).
    pub level: [sgx535_level_layout; SGX535_MAX_LEVELS],
}

fn template(target: u32, format: u32, w: u32, h: u32, d: u32, levels: u32) -> Result<Template> {
    let f = gallium::format(format)?;
    let t = match gallium::target(target)? {
        ResourceTarget::Buffer => return invalid("a buffer has no texture layout"),
        ResourceTarget::Texture1D | ResourceTarget::Texture2D => Template::new_2d(f, w, h),
        ResourceTarget::Texture3D => Template::new_3d(f, w, h, d),
        ResourceTarget::TextureCube => {
            if w != h {
                return invalid(format!("cube faces are square, not {w}x{h}"));
            }
            Template::new_cube(f, w)
        }
    };
    if levels as usize > SGX535_MAX_LEVELS {
        return invalid(format!("{levels} levels, at most {SGX535_MAX_LEVELS}"));
    }
    Ok(t.with_levels(levels))
}

fn fill(l: &Layout, format: u32, target: u32) -> sgx535_layout {
    let mut out = sgx535_layout {
        format,
        target,
        width_px: l.width_px,
        height_px: l.height_px,
        depth_px: l.depth_px,
        levels: l.levels.len() as u32,
        faces: l.faces,
        tiling: match l.tiling {
            Tiling::Linear => SGX535_TILING_LINEAR,
            Tiling::Twiddled => SGX535_TILING_TWIDDLED,
        },
        bytes_per_el: l.bytes_per_el,
        pad: 0,
        face_stride_B: l.face_stride_B,
        total_size_B: l.size_B,
        level: [sgx535_level_layout::default(); SGX535_MAX_LEVELS],
    };
    for (o, v) in out.level.iter_mut().zip(&l.levels) {
        *o = sgx535_level_layout {
            offset_B: v.offset_B,
            size_B: v.size_B,
            footprint_B: v.footprint_B,
            slice_stride_B: v.slice_stride_B,
            width_px: v.extent_px.w,
            height_px: v.extent_px.h,
            depth_px: v.depth_px,
            stride_B: v.stride_B as u32,
        };
    }
    out
}

/// The Layout a caller's struct describes, recomputed and checked against it (a struct the
/// caller changed is refused rather than trusted).
fn layout_of(p: *const sgx535_layout) -> Result<Layout> {
    // SAFETY: the caller's pointer, checked by read.
    let c = unsafe { read(p, "layout")? };
    let t = template(
        c.target,
        c.format,
        c.width_px,
        c.height_px,
        c.depth_px,
        c.levels,
    )?;
    let tiling = match c.tiling {
        SGX535_TILING_LINEAR => Tiling::Linear,
        SGX535_TILING_TWIDDLED => Tiling::Twiddled,
        v => return invalid(format!("layout.tiling {v}")),
    };
    let l = Layout::new(&t.with_tiling(tiling))?;
    if fill(&l, c.format, c.target) != c {
        return invalid("layout was not filled by sgx535_layout_compute (or was changed)");
    }
    Ok(l)
}

/// Computes the layout the GPU's sampler expects of a texture (`levels` 1..=the full chain).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sgx535_layout_compute(
    pipe_texture_target: u32,
    pipe_format: u32,
    width_px: u32,
    height_px: u32,
    depth_px: u32,
    levels: u32,
    out: *mut sgx535_layout,
) -> sgx535_status {
    guard(|| {
        check_out(out, "out")?;
        let t = template(
            pipe_texture_target,
            pipe_format,
            width_px,
            height_px,
            depth_px,
            levels,
        )?;
        let l = Layout::new(&t)?;
        if l.target == Target::Tex3D && l.depth_px == 0 {
            return unsupported("depth 0");
        }
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", fill(&l, pipe_format, pipe_texture_target)) }
    })
}

fn len(n: u64, what: &str) -> Result<usize> {
    usize::try_from(n)
        .map_err(|_| Error::new(SGX535_ERROR_INVALID_ARGUMENT, format!("{what} too large")))
}

/// The caller's layout, and its allocation's size checked to hold it.
fn layout_and_alloc(p: *const sgx535_layout, alloc_size_B: u64) -> Result<(Layout, usize)> {
    let l = layout_of(p)?;
    if alloc_size_B < l.size_B {
        return invalid(format!(
            "alloc of {alloc_size_B} bytes, the layout needs {}",
            l.size_B
        ));
    }
    Ok((l, len(alloc_size_B, "alloc")?))
}

fn rect_bytes(l: &Layout, w: u32, h: u32, stride: u32) -> Result<usize> {
    let row = u64::from(w) * u64::from(l.bytes_per_el);
    if u64::from(stride) < row {
        return invalid(format!("stride {stride} < row of {row} bytes"));
    }
    len(
        u64::from(stride) * u64::from(h.saturating_sub(1)) + row,
        "rectangle",
    )
}

/// Writes a rectangle of linear texels (`src`, rows `src_stride_B` apart) into its place in the
/// allocation `alloc` (`alloc_size_B` bytes, at least the layout's total), twiddling it if the
/// level is twiddled. No byte of `alloc` outside the rectangle's texels changes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sgx535_layout_write_rect(
    layout: *const sgx535_layout,
    face: u32,
    level: u32,
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    src: *const c_void,
    src_stride_B: u32,
    alloc: *mut c_void,
    alloc_size_B: u64,
) -> sgx535_status {
    guard(|| {
        let (l, alloc_n) = layout_and_alloc(layout, alloc_size_B)?;
        let n = rect_bytes(&l, w, h, src_stride_B)?;
        // SAFETY: the caller's buffers of the sizes given, checked by bytes / bytes_mut.
        let (s, a) = unsafe { (bytes(src, n, "src")?, bytes_mut(alloc, alloc_n, "alloc")?) };
        l.write_rect(
            a,
            face,
            level,
            Rect::new(x, y, w, h),
            s,
            src_stride_B as usize,
        )?;
        Ok(())
    })
}

/// Reads a rectangle of a level of the allocation into linear memory (`dst`, rows
/// `dst_stride_B` apart), untwiddling it if the level is twiddled.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn sgx535_layout_read_rect(
    layout: *const sgx535_layout,
    face: u32,
    level: u32,
    x: u32,
    y: u32,
    w: u32,
    h: u32,
    alloc: *const c_void,
    alloc_size_B: u64,
    dst: *mut c_void,
    dst_stride_B: u32,
) -> sgx535_status {
    guard(|| {
        let (l, alloc_n) = layout_and_alloc(layout, alloc_size_B)?;
        let n = rect_bytes(&l, w, h, dst_stride_B)?;
        // SAFETY: the caller's buffers of the sizes given, checked by bytes / bytes_mut.
        let (a, d) = unsafe { (bytes(alloc, alloc_n, "alloc")?, bytes_mut(dst, n, "dst")?) };
        l.read_rect(
            a,
            face,
            level,
            Rect::new(x, y, w, h),
            d,
            dst_stride_B as usize,
        )?;
        Ok(())
    })
}

/// The CPU mip generator: levels `base_level + 1 ..= last_level` of one face from
/// `base_level`, in place; bytes outside those levels are left as they were.
#[no_mangle]
pub unsafe extern "C" fn sgx535_layout_generate_mipmap(
    layout: *const sgx535_layout,
    face: u32,
    base_level: u32,
    last_level: u32,
    alloc: *mut c_void,
    alloc_size_B: u64,
) -> sgx535_status {
    guard(|| {
        let l = layout_of(layout)?;
        if alloc_size_B < l.size_B {
            return invalid(format!(
                "alloc of {alloc_size_B} bytes, the layout needs {}",
                l.size_B
            ));
        }
        // SAFETY: the caller's buffer of alloc_size_B bytes, checked by bytes_mut.
        let a = unsafe { bytes_mut(alloc, len(alloc_size_B, "alloc")?, "alloc")? };
        sgx_layout::mipgen::generate_face_mipmaps(&l, a, face, base_level, last_level)?;
        Ok(())
    })
}
