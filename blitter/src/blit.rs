//! blit: a scaled, format-converting copy of a rectangle, nearest or linear, as one internal
//! textured-quad draw; and the GPU resource_copy_region built on it. The draw reads and writes
//! 1D/2D levels: a cube face, a 3D slice, or a copy within one image (glCopyPixels on one
//! framebuffer: the quad cannot sample the target it renders to) goes through 2D temporaries,
//! copied in and out with `resource_copy_region`. The source may be read through a view in
//! its format's sRGB or linear twin (`blit_src_view`): the same bytes, decoded or not.

use std::sync::Arc;

use sgx_pipe::{
    bind, render_format, Context, Format, PipeBox, Resource, ResourceTarget, ResourceTemplate,
};

use crate::blitter::{Blitter, QuadDraw};
use crate::error::{BlitError, Result};
use crate::save::SaveGuard;

/// `pipe_blit_info` for one colour rectangle.
#[derive(Debug, Clone)]
pub struct BlitInfo {
    /// Destination texture.
    pub dst: Arc<Resource>,
    /// Destination level.
    pub dst_level: u32,
    /// Destination cube face (0 for other targets).
    pub dst_face: u32,
    /// Destination rectangle; `z` is the slice of a 3D or array texture.
    pub dst_box: PipeBox,
    /// Source texture.
    pub src: Arc<Resource>,
    /// Source level.
    pub src_level: u32,
    /// Source cube face (0 for other targets).
    pub src_face: u32,
    /// Source rectangle; `z` is the slice of a 3D or array texture.
    pub src_box: PipeBox,
    /// Linear filtering (else nearest).
    pub linear: bool,
}

fn check(r: &Resource, level: u32, b: &PipeBox, what: &str) -> Result<()> {
    // A 1D texture is stored as a 2D one of height 1.
    if !matches!(
        r.target(),
        ResourceTarget::Texture2D | ResourceTarget::Texture1D
    ) {
        return Err(BlitError::InvalidArgument(format!(
            "{what} is not a 1D or 2D texture"
        )));
    }
    let (w, h) = r.level_extent(level)?;
    let past = |a: u32, n: u32, end: u32| u64::from(a) + u64::from(n) > u64::from(end);
    if b.width == 0 || b.height == 0 || past(b.x, b.width, w) || past(b.y, b.height, h) {
        return Err(BlitError::InvalidArgument(format!(
            "{what} box {b:?} outside level {level} ({w}x{h})"
        )));
    }
    Ok(())
}

/// A 1D or 2D texture: what the quad draws from and into directly.
fn is_2d(r: &Resource) -> bool {
    matches!(
        r.target(),
        ResourceTarget::Texture1D | ResourceTarget::Texture2D
    )
}

/// A 2D texture of `like`'s format, `w` x `h`, one level: the quad's stand-in for a face,
/// a slice or an image it also reads.
fn temp(ctx: &Context, like: &Resource, w: u32, h: u32) -> Result<Arc<Resource>> {
    let t = ResourceTemplate::texture_2d(
        like.format(),
        w,
        h,
        0,
        bind::SAMPLER_VIEW | bind::RENDER_TARGET,
    );
    Ok(ctx.screen().resource_create(&t)?)
}

/// Whether `view` reads `resource`'s bytes: its own format, or its sRGB or linear twin (an
/// sRGB texture read through its UNORM twin is not decoded; a UNORM one read through its
/// sRGB twin is).
pub(crate) fn is_twin_view(view: Format, resource: Format) -> bool {
    view == resource || render_format(view) == render_format(resource)
}

impl Blitter {
    /// `blit`: submitted with the next flush; the application's state is as it was after.
    pub fn blit(&self, ctx: &mut Context, info: &BlitInfo) -> Result<()> {
        self.blit_src_view(ctx, info, info.src.format())
    }

    /// `blit` reading the source through a view in `src_view`, the source's format or its
    /// sRGB/linear twin (Gallium's `pipe_blit_info.src.format`; st/mesa reads an sRGB texture
    /// back through its UNORM twin, undecoded). Any other format is an invalid argument.
    pub fn blit_src_view(
        &self,
        ctx: &mut Context,
        info: &BlitInfo,
        src_view: Format,
    ) -> Result<()> {
        if !is_twin_view(src_view, info.src.format()) {
            return Err(BlitError::InvalidArgument(format!(
                "source view format {} does not read {}'s bytes",
                src_view.name(),
                info.src.format().name()
            )));
        }
        let same_image = Arc::ptr_eq(&info.src, &info.dst)
            && info.src_level == info.dst_level
            && info.src_face == info.dst_face
            && info.src_box.z == info.dst_box.z;
        if same_image || !is_2d(&info.src) || !is_2d(&info.dst) {
            return self.blit_staged(ctx, info, same_image, src_view);
        }
        self.blit_2d(ctx, info, src_view)
    }

    /// A blit with a side that is not a 1D/2D level, or within one image: the source box is
    /// copied into a temporary first (when it is not a distinct 2D level), the quad draws
    /// into a temporary when the destination is a face or slice, which is then copied back.
    /// The temporary holds the source's bytes in the source's format, so `src_view` reads it
    /// as it would the source.
    fn blit_staged(
        &self,
        ctx: &mut Context,
        info: &BlitInfo,
        same_image: bool,
        src_view: Format,
    ) -> Result<()> {
        let (sb, db) = (info.src_box, info.dst_box);
        let mut flat = info.clone();
        (flat.src_face, flat.dst_face) = (0, 0);
        if same_image || !is_2d(&info.src) {
            let t = temp(ctx, &info.src, sb.width, sb.height)?;
            let level = info.src_level;
            ctx.resource_copy_region(&t, 0, 0, 0, 0, 0, &info.src, level, info.src_face, sb)?;
            (flat.src, flat.src_level) = (t, 0);
            flat.src_box = PipeBox::new(0, 0, sb.width, sb.height);
        }
        if is_2d(&info.dst) {
            return self.blit_2d(ctx, &flat, src_view);
        }
        let t = temp(ctx, &info.dst, db.width, db.height)?;
        (flat.dst, flat.dst_level) = (t.clone(), 0);
        flat.dst_box = PipeBox::new(0, 0, db.width, db.height);
        self.blit_2d(ctx, &flat, src_view)?;
        let (face, dz) = match info.dst.target() {
            ResourceTarget::TextureCube => (info.dst_face, 0),
            _ => (0, db.z),
        };
        let whole = PipeBox::new(0, 0, db.width, db.height);
        let level = info.dst_level;
        ctx.resource_copy_region(&info.dst, level, face, db.x, db.y, dz, &t, 0, 0, whole)?;
        Ok(())
    }

    /// The quad draw between two distinct 1D/2D levels.
    fn blit_2d(&self, ctx: &mut Context, info: &BlitInfo, src_view: Format) -> Result<()> {
        check(&info.src, info.src_level, &info.src_box, "source")?;
        check(&info.dst, info.dst_level, &info.dst_box, "destination")?;
        let (sw, sh) = info.src.level_extent(info.src_level)?;
        let sb = info.src_box;
        let q = QuadDraw {
            src: &info.src,
            src_format: src_view,
            src_level: info.src_level,
            st: [
                sb.x as f32 / sw as f32,
                sb.y as f32 / sh as f32,
                (sb.x + sb.width) as f32 / sw as f32,
                (sb.y + sb.height) as f32 / sh as f32,
            ],
            dst: &info.dst,
            dst_level: info.dst_level,
            rect: [
                info.dst_box.x,
                info.dst_box.y,
                info.dst_box.width,
                info.dst_box.height,
            ],
            linear: info.linear,
        };
        let mut guard = SaveGuard::save_and_pause(ctx);
        let r = self.draw_quad(&mut guard, &q);
        let restored = guard.restore();
        r?;
        restored?;
        Ok(())
    }

    /// `resource_copy_region` through a draw: same-size, nearest.
    #[allow(clippy::too_many_arguments)]
    pub fn copy_region(
        &self,
        ctx: &mut Context,
        dst: &Arc<Resource>,
        dst_level: u32,
        dx: u32,
        dy: u32,
        src: &Arc<Resource>,
        src_level: u32,
        src_box: PipeBox,
    ) -> Result<()> {
        if dst.format() != src.format() {
            return Err(BlitError::InvalidArgument(format!(
                "copy from {} to {}",
                src.format().name(),
                dst.format().name()
            )));
        }
        self.blit(
            ctx,
            &BlitInfo {
                dst: dst.clone(),
                dst_level,
                dst_face: 0,
                dst_box: PipeBox::new(dx, dy, src_box.width, src_box.height),
                src: src.clone(),
                src_level,
                src_face: 0,
                src_box,
                linear: false,
            },
        )
    }
}
