//! blit: a scaled, format-converting copy of a rectangle, nearest or linear, as one internal
//! textured-quad draw; and the GPU resource_copy_region built on it.

use std::sync::Arc;

use sgx_pipe::{Context, PipeBox, Resource, ResourceTarget};

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
    /// Destination rectangle.
    pub dst_box: PipeBox,
    /// Source texture.
    pub src: Arc<Resource>,
    /// Source level.
    pub src_level: u32,
    /// Source rectangle.
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

impl Blitter {
    /// `blit`: submitted with the next flush; the application's state is as it was after.
    pub fn blit(&self, ctx: &mut Context, info: &BlitInfo) -> Result<()> {
        check(&info.src, info.src_level, &info.src_box, "source")?;
        check(&info.dst, info.dst_level, &info.dst_box, "destination")?;
        if Arc::ptr_eq(&info.src, &info.dst) && info.src_level == info.dst_level {
            return Err(BlitError::InvalidArgument("blit within one level".into()));
        }
        let (sw, sh) = info.src.level_extent(info.src_level)?;
        let sb = info.src_box;
        let q = QuadDraw {
            src: &info.src,
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
                dst_box: PipeBox::new(dx, dy, src_box.width, src_box.height),
                src: src.clone(),
                src_level,
                src_box,
                linear: false,
            },
        )
    }
}
