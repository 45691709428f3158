//! Saving and restoring the application's state around internal draws (after Mesa's
//! u_blitter: everything an internal draw binds is saved first and rebound after), and
//! pausing its queries so they count only the application's own samples.

use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::{Context, RenderCondition, ShaderStage, ShaderState};

/// Everything an internal draw may change.
#[derive(Debug, Clone)]
pub struct SavedState {
    fb: FramebufferState,
    viewport: ViewportState,
    scissor: ScissorState,
    blend: Option<Arc<BlendState>>,
    dsa: Option<Arc<DepthStencilAlphaState>>,
    rast: Option<Arc<RasterizerState>>,
    vs: Option<Arc<ShaderState>>,
    fs: Option<Arc<ShaderState>>,
    samplers: Vec<Option<Arc<SamplerState>>>,
    views: Vec<Option<SamplerView>>,
    vbufs: Vec<Option<VertexBuffer>>,
    velems: Option<Arc<Vec<VertexElement>>>,
    cb_vs: Option<ConstantBuffer>,
    cb_fs: Option<ConstantBuffer>,
    stencil_ref: StencilRef,
    sample_mask: u32,
    render_cond: Option<RenderCondition>,
    queries_enabled: bool,
}

impl SavedState {
    /// Saves the context's state and pauses its queries.
    pub fn save_and_pause(ctx: &mut Context) -> SavedState {
        let s = SavedState {
            fb: ctx.framebuffer_state(),
            viewport: ctx.viewport_state(),
            scissor: ctx.scissor_state(),
            blend: ctx.blend_state(),
            dsa: ctx.depth_stencil_alpha_state(),
            rast: ctx.rasterizer_state(),
            vs: ctx.vs_state(),
            fs: ctx.fs_state(),
            samplers: ctx.sampler_states(),
            views: ctx.sampler_views(),
            vbufs: ctx.vertex_buffers(),
            velems: ctx.vertex_elements_state(),
            cb_vs: ctx.constant_buffer(ShaderStage::Vertex),
            cb_fs: ctx.constant_buffer(ShaderStage::Fragment),
            stencil_ref: ctx.stencil_ref(),
            sample_mask: ctx.sample_mask(),
            render_cond: ctx.render_condition_state(),
            queries_enabled: ctx.active_query_state(),
        };
        ctx.set_active_query_state(false);
        // Internal draws are never conditional.
        let _ = ctx.render_condition(None);
        s
    }

    /// Rebinds everything saved and resumes queries as they were. Everything saved was
    /// accepted by the context once, so rebinding it cannot fail on validation; a failure to
    /// submit the internal batch on the framebuffer change is returned.
    pub fn restore(self, ctx: &mut Context) -> sgx_pipe::Result<()> {
        let fb = ctx.set_framebuffer_state(&self.fb);
        ctx.set_viewport_state(&self.viewport)?;
        ctx.set_scissor_state(&self.scissor)?;
        ctx.bind_blend_state(self.blend.as_ref());
        ctx.bind_depth_stencil_alpha_state(self.dsa.as_ref());
        ctx.bind_rasterizer_state(self.rast.as_ref());
        ctx.bind_vs_state(self.vs.as_ref())?;
        ctx.bind_fs_state(self.fs.as_ref())?;
        ctx.bind_sampler_states(0, &self.samplers)?;
        ctx.set_sampler_views(0, &self.views)?;
        ctx.set_vertex_buffers(0, &self.vbufs)?;
        ctx.bind_vertex_elements_state(self.velems.as_ref());
        ctx.set_constant_buffer(ShaderStage::Vertex, 0, self.cb_vs)?;
        ctx.set_constant_buffer(ShaderStage::Fragment, 0, self.cb_fs)?;
        ctx.set_stencil_ref(self.stencil_ref);
        ctx.set_sample_mask(self.sample_mask);
        ctx.render_condition(self.render_cond)?;
        ctx.set_active_query_state(self.queries_enabled);
        fb
    }
}
