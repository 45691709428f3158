//! The blitter: the context objects its internal draws use, and one internal textured-quad
//! draw into a surface.

use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::{Context, DrawInfo, Format, PrimMode, Resource, ShaderState};

use crate::admission::Admission;
use crate::error::Result;
use crate::shaders;

/// Internal-draw objects of one context.
pub struct Blitter {
    pub(crate) vs: Arc<ShaderState>,
    pub(crate) fs: Arc<ShaderState>,
    pub(crate) vs_pos: Arc<ShaderState>,
    pub(crate) fs_const: Arc<ShaderState>,
    pub(crate) velems: Arc<Vec<VertexElement>>,
    pub(crate) blend: Arc<BlendState>,
    pub(crate) dsa: Arc<DepthStencilAlphaState>,
    pub(crate) rast: Arc<RasterizerState>,
    pub(crate) rast_scissor: Arc<RasterizerState>,
    pub(crate) linear: Arc<SamplerState>,
    pub(crate) nearest: Arc<SamplerState>,
    /// What the GPU mip route admits.
    pub admission: Admission,
}

impl std::fmt::Debug for Blitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blitter").finish_non_exhaustive()
    }
}

/// One textured quad: which level of which texture is sampled, into which rectangle of which
/// surface.
pub(crate) struct QuadDraw<'a> {
    pub src: &'a Arc<Resource>,
    /// The format `src` is read as: its own, or its sRGB/linear twin.
    pub src_format: Format,
    pub src_level: u32,
    /// Texture coordinates of the quad's corners.
    pub st: [f32; 4],
    pub dst: &'a Arc<Resource>,
    pub dst_level: u32,
    /// Destination rectangle x, y, w, h in pixels.
    pub rect: [u32; 4],
    pub linear: bool,
}

impl Blitter {
    /// Creates the internal objects on a context, with the admission table from the
    /// environment (built-in, extended by `SGX_MIPGEN_ADMIT`).
    pub fn new(ctx: &Context) -> Result<Blitter> {
        Self::with_admission(ctx, Admission::from_env()?)
    }

    /// As `new`, with an explicit admission table.
    pub fn with_admission(ctx: &Context, admission: Admission) -> Result<Blitter> {
        let vs = ctx.create_vs_state(shaders::VS_PASSTHROUGH)?;
        let fs = ctx.create_fs_state(shaders::FS_TEXTURE)?;
        let velems = ctx.create_vertex_elements_state(&VertexElement::packed(&[
            VertexFormat::R32G32B32A32_FLOAT,
            VertexFormat::R32G32_FLOAT,
        ]))?;
        let clamp = |f: Filter| SamplerState {
            wrap_s: AddrMode::CLAMP_TO_EDGE,
            wrap_t: AddrMode::CLAMP_TO_EDGE,
            min_img_filter: f,
            mag_img_filter: f,
            min_mip_filter: MipFilter::NONE,
            ..Default::default()
        };
        Ok(Blitter {
            vs,
            fs,
            vs_pos: ctx.create_vs_state(shaders::VS_POSITION)?,
            fs_const: ctx.create_fs_state(shaders::FS_CONSTANT)?,
            velems,
            blend: ctx.create_blend_state(&BlendState::default()),
            dsa: ctx.create_depth_stencil_alpha_state(&DepthStencilAlphaState::default()),
            rast: ctx.create_rasterizer_state(&RasterizerState::default())?,
            rast_scissor: ctx.create_rasterizer_state(&RasterizerState {
                scissor: true,
                ..Default::default()
            })?,
            linear: ctx.create_sampler_state(&clamp(Filter::LINEAR))?,
            nearest: ctx.create_sampler_state(&clamp(Filter::NEAREST))?,
            admission,
        })
    }

    /// Binds everything for one quad and draws it (not flushed). State must have been saved.
    pub(crate) fn draw_quad(&self, ctx: &mut Context, q: &QuadDraw<'_>) -> sgx_pipe::Result<()> {
        let (w, h) = q.dst.level_extent(q.dst_level)?;
        ctx.set_framebuffer_state(&FramebufferState::colour(
            Surface::new(q.dst, q.dst_level, 0),
            w,
            h,
        ))?;
        let [x, y, rw, rh] = q.rect;
        if x == 0 && y == 0 && rw == w && rh == h {
            // The quad covers the whole level: its old contents need not be loaded.
            ctx.invalidate_colour_buffer()?;
        }
        ctx.set_viewport_state(&ViewportState::rect(
            x as f32, y as f32, rw as f32, rh as f32,
        ))?;
        let whole = x == 0 && y == 0 && rw == w && rh == h;
        ctx.set_scissor_state(&ScissorState {
            minx: x,
            miny: y,
            maxx: x + rw,
            maxy: y + rh,
        })?;
        ctx.bind_blend_state(Some(&self.blend));
        ctx.bind_depth_stencil_alpha_state(Some(&self.dsa));
        ctx.bind_rasterizer_state(Some(if whole {
            &self.rast
        } else {
            &self.rast_scissor
        }));
        ctx.bind_vs_state(Some(&self.vs))?;
        ctx.bind_fs_state(Some(&self.fs))?;
        let samp = if q.linear {
            &self.linear
        } else {
            &self.nearest
        };
        ctx.bind_sampler_states(0, &[Some(samp.clone())])?;
        let view = SamplerView {
            format: q.src_format,
            ..SamplerView::new(q.src).levels(q.src_level, q.src_level)
        };
        ctx.set_sampler_views(0, &[Some(view)])?;
        ctx.bind_vertex_elements_state(Some(&self.velems));
        let [s0, t0, s1, t1] = q.st;
        ctx.set_vertex_buffers(
            0,
            &[Some(VertexBuffer::user(
                shaders::QUAD_STRIDE_B,
                shaders::quad(s0, t0, s1, t1),
            ))],
        )?;
        ctx.set_constant_buffer(sgx_pipe::ShaderStage::Vertex, 0, None)?;
        ctx.set_constant_buffer(sgx_pipe::ShaderStage::Fragment, 0, None)?;
        ctx.set_sample_mask(!0);
        ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
    }
}
