//! Clears that need a draw: a scissored clear of the bound framebuffer, and
//! clear_render_target / clear_depth_stencil of a rectangle of any surface (as Gallium drivers
//! route them through util_blitter). A whole-framebuffer clear stays the pipe's background
//! clear, which draws nothing.

use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::{clear_flags, Context, DrawInfo, PrimMode, Resource, ShaderStage};

use crate::blitter::Blitter;
use crate::error::{BlitError, Result};
use crate::save::SaveGuard;
use crate::shaders;

/// A rectangle (x, y, w, h) of one level and face (or 3D slice) of a texture.
#[derive(Debug, Clone, Copy)]
pub struct SurfaceRect<'a> {
    /// The texture.
    pub dst: &'a Arc<Resource>,
    /// Its level.
    pub level: u32,
    /// Cube face or 3D slice.
    pub face: u32,
    /// x, y, width, height in pixels.
    pub rect: [u32; 4],
}

impl Blitter {
    /// `clear` with a scissor rectangle: colour, depth and stencil inside it, by drawing.
    pub fn clear_scissored(
        &self,
        ctx: &mut Context,
        buffers: u32,
        scissor: &ScissorState,
        color: [f32; 4],
        depth: f64,
        stencil: u8,
    ) -> Result<()> {
        if color.iter().any(|c| !c.is_finite()) || !depth.is_finite() {
            return Err(BlitError::InvalidArgument(
                "clear values must be finite".into(),
            ));
        }
        let fb = ctx.framebuffer_state();
        let s = ScissorState {
            minx: scissor.minx.min(fb.width),
            miny: scissor.miny.min(fb.height),
            maxx: scissor.maxx.min(fb.width),
            maxy: scissor.maxy.min(fb.height),
        };
        if s.minx >= s.maxx || s.miny >= s.maxy {
            return Ok(());
        }
        let mut guard = SaveGuard::save_and_pause(ctx);
        let r = self.draw_clear(&mut guard, &fb, buffers, &s, color, depth, stencil);
        let restored = guard.restore();
        r?;
        restored?;
        Ok(())
    }

    /// `clear_render_target`: a rectangle of one colour surface.
    #[allow(clippy::too_many_arguments)] // Gallium's signature.
    pub fn clear_render_target(
        &self,
        ctx: &mut Context,
        dst: &Arc<Resource>,
        level: u32,
        color: [f32; 4],
        x: u32,
        y: u32,
        w: u32,
        h: u32,
    ) -> Result<()> {
        let target = SurfaceRect {
            dst,
            level,
            face: 0,
            rect: [x, y, w, h],
        };
        self.clear_surface(ctx, &target, clear_flags::COLOR0, color, 0.0, 0)
    }

    /// `clear_depth_stencil`: a rectangle of one depth/stencil surface (`buffers`: DEPTH
    /// and/or STENCIL of [`clear_flags`]).
    #[allow(clippy::too_many_arguments)] // Gallium's signature.
    pub fn clear_depth_stencil(
        &self,
        ctx: &mut Context,
        dst: &Arc<Resource>,
        level: u32,
        buffers: u32,
        depth: f64,
        stencil: u8,
        x: u32,
        y: u32,
        w: u32,
        h: u32,
    ) -> Result<()> {
        let zs = clear_flags::DEPTH | clear_flags::STENCIL;
        if buffers & !zs != 0 || buffers == 0 {
            return Err(BlitError::InvalidArgument(format!(
                "depth/stencil clear flags {buffers:#x}"
            )));
        }
        if !depth.is_finite() {
            return Err(BlitError::InvalidArgument(
                "clear depth must be finite".into(),
            ));
        }
        let target = SurfaceRect {
            dst,
            level,
            face: 0,
            rect: [x, y, w, h],
        };
        self.clear_surface(ctx, &target, buffers, [0.0; 4], depth, stencil)
    }

    /// Clears a rectangle of any surface (`buffers`: COLOR0, or DEPTH and/or STENCIL) by a
    /// scissored draw with that surface as the whole framebuffer; the application's state is
    /// as it was after.
    pub fn clear_surface(
        &self,
        ctx: &mut Context,
        t: &SurfaceRect<'_>,
        buffers: u32,
        color: [f32; 4],
        depth: f64,
        stencil: u8,
    ) -> Result<()> {
        let (lw, lh) = t.dst.level_extent(t.level)?;
        let [x, y, w, h] = t.rect;
        let past = |a: u32, n: u32, end: u32| u64::from(a) + u64::from(n) > u64::from(end);
        if w == 0 || h == 0 || past(x, w, lw) || past(y, h, lh) {
            return Err(BlitError::InvalidArgument(format!(
                "rectangle {x},{y} {w}x{h} outside level {} ({lw}x{lh})",
                t.level
            )));
        }
        let surface = Some(Surface::new(t.dst, t.level, t.face));
        let colour = buffers & clear_flags::COLOR0 != 0;
        let fb = FramebufferState {
            width: lw,
            height: lh,
            cbuf: if colour { surface.clone() } else { None },
            zsbuf: if colour { None } else { surface },
            extra_cbufs: Vec::new(),
        };
        let s = ScissorState {
            minx: x,
            miny: y,
            maxx: x + w,
            maxy: y + h,
        };
        let mut guard = SaveGuard::save_and_pause(ctx);
        let r = guard
            .set_framebuffer_state(&fb)
            .map_err(BlitError::from)
            .and_then(|()| self.draw_clear(&mut guard, &fb, buffers, &s, color, depth, stencil));
        let restored = guard.restore();
        r?;
        restored?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_clear(
        &self,
        ctx: &mut Context,
        fb: &FramebufferState,
        buffers: u32,
        s: &ScissorState,
        color: [f32; 4],
        depth: f64,
        stencil: u8,
    ) -> Result<()> {
        let colour = buffers & clear_flags::COLOR0 != 0;
        let z = buffers & clear_flags::DEPTH != 0;
        let st = buffers & clear_flags::STENCIL != 0;
        ctx.set_viewport_state(&ViewportState::rect(
            0.0,
            0.0,
            fb.width as f32,
            fb.height as f32,
        ))?;
        ctx.set_scissor_state(s)?;
        ctx.bind_rasterizer_state(Some(&self.rast_scissor));
        let blend = ctx.create_blend_state(&BlendState {
            colormask: if colour { 0xF } else { 0 },
            ..Default::default()
        });
        ctx.bind_blend_state(Some(&blend));
        let replace = StencilState {
            enabled: st,
            func: CompareFunc::ALWAYS,
            fail_op: StencilOp::REPLACE,
            zfail_op: StencilOp::REPLACE,
            zpass_op: StencilOp::REPLACE,
            valuemask: 0xFF,
            writemask: 0xFF,
        };
        let dsa = ctx.create_depth_stencil_alpha_state(&DepthStencilAlphaState {
            depth_enabled: z,
            depth_writemask: z,
            depth_func: CompareFunc::ALWAYS,
            stencil: [replace, StencilState::default()],
        });
        ctx.bind_depth_stencil_alpha_state(Some(&dsa));
        ctx.set_stencil_ref(StencilRef {
            ref_value: [stencil, stencil],
        });
        ctx.bind_vs_state(Some(&self.vs_pos))?;
        ctx.bind_fs_state(Some(&self.fs_const))?;
        ctx.bind_vertex_elements_state(Some(&self.velems));
        let data: Vec<u32> = color.iter().map(|c| c.to_bits()).collect();
        ctx.set_constant_buffer(
            ShaderStage::Fragment,
            0,
            Some(ConstantBuffer { data: data.into() }),
        )?;
        // The viewport maps NDC z to depth * 0.5 + 0.5.
        let zn = (depth.clamp(0.0, 1.0) * 2.0 - 1.0) as f32;
        let mut v = shaders::quad(0.0, 0.0, 1.0, 1.0);
        for k in 0..4 {
            v[k * 24 + 8..k * 24 + 12].copy_from_slice(&zn.to_le_bytes());
        }
        ctx.set_vertex_buffers(0, &[Some(VertexBuffer::user(shaders::QUAD_STRIDE_B, v))])?;
        ctx.set_sample_mask(!0);
        ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))?;
        Ok(())
    }
}
