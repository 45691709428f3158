//! Clears. A clear of the whole framebuffer becomes the render's background: its tiles start
//! from the clear values and load nothing. Anything drawn before it in the same batch is
//! submitted first, so the order of work stays as the application gave it.

use crate::context::Context;
use crate::error::{invalid, PipeError, Result};

/// `PIPE_CLEAR_*` flags.
pub mod clear_flags {
    /// Depth.
    pub const DEPTH: u32 = 1 << 0;
    /// Stencil.
    pub const STENCIL: u32 = 1 << 1;
    /// Colour buffer 0.
    pub const COLOR0: u32 = 1 << 2;
}

impl Context {
    /// Declares the bound colour buffer's contents unneeded: the next render loads nothing
    /// for the tiles its draws touch (the blitter calls this before drawing a whole mip
    /// level). It stores nothing by itself: without a draw after it, nothing is submitted.
    /// Work already recorded is submitted first.
    pub fn invalidate_colour_buffer(&mut self) -> Result<()> {
        if self.fb.cbuf.is_none() {
            return Ok(());
        }
        if self.batch.as_ref().is_some_and(|b| b.draws > 0) {
            self.flush_batch()?;
        }
        self.batch().colour_invalidated = true;
        Ok(())
    }

    /// `clear` of the whole framebuffer (`buffers`: [`clear_flags`]).
    pub fn clear(&mut self, buffers: u32, color: [f32; 4], depth: f64, stencil: u8) -> Result<()> {
        if buffers & !(clear_flags::DEPTH | clear_flags::STENCIL | clear_flags::COLOR0) != 0 {
            return invalid(format!("clear flags {buffers:#x}"));
        }
        if color.iter().any(|c| !c.is_finite()) || !depth.is_finite() {
            return invalid("clear values must be finite");
        }
        let colour = buffers & clear_flags::COLOR0 != 0 && self.fb.cbuf.is_some();
        let ds =
            buffers & (clear_flags::DEPTH | clear_flags::STENCIL) != 0 && self.fb.zsbuf.is_some();
        if !colour && !ds {
            return Ok(());
        }
        if self.fb.cbuf.is_none() && self.fb.zsbuf.is_none() {
            return Err(PipeError::NotBound("framebuffer"));
        }
        let z_has_stencil = self
            .fb
            .zsbuf
            .as_ref()
            .is_some_and(|z| z.resource.format().info().channel("s").is_some());
        // A stencil-only clear of a buffer without stencil clears nothing.
        let ds = ds && (buffers & clear_flags::DEPTH != 0 || z_has_stencil);
        if !colour && !ds {
            return Ok(());
        }
        // A clear after draws starts a new render, so order is kept; and a second partial
        // clear must see the first one's result.
        if self
            .batch
            .as_ref()
            .is_some_and(|b| b.draws > 0 || (ds && b.depth_cleared))
        {
            self.flush_batch()?;
        }
        let b = self.batch();
        if colour {
            b.colour_cleared = true;
            b.clear_colour = color;
        }
        if ds {
            // A clear of one half of a depth/stencil buffer keeps the other half: the tiles
            // take it from memory (TileCtrl keep_stencil / keep_depth).
            let both = clear_flags::DEPTH | clear_flags::STENCIL;
            let has_stencil = z_has_stencil;
            b.depth_cleared = true;
            b.keep_stencil = has_stencil && buffers & both == clear_flags::DEPTH;
            b.keep_depth = buffers & both == clear_flags::STENCIL;
            b.clear_depth = depth.clamp(0.0, 1.0) as f32;
            b.clear_stencil = stencil;
        }
        Ok(())
    }
}
