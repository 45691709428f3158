//! Saving and restoring the application's state around internal draws (after Mesa's
//! u_blitter: everything an internal draw binds is saved first and rebound after), and
//! pausing its queries so they count only the application's own samples.
//!
//! [`SaveGuard`] holds the context while the internal draws run and restores on every exit:
//! an explicit [`SaveGuard::restore`] returns restore's result; an early `?` or a panic
//! restores in `Drop` (a failure there is logged, as there is no caller left to tell).

use std::ops::{Deref, DerefMut};
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

/// The context, borrowed while internal draws run on it, with the application's state saved.
pub struct SaveGuard<'a> {
    ctx: &'a mut Context,
    saved: Option<SavedState>,
}

impl<'a> SaveGuard<'a> {
    /// Saves the context's state and pauses its queries until the guard restores them.
    pub fn save_and_pause(ctx: &'a mut Context) -> SaveGuard<'a> {
        let saved = Some(SavedState::save_and_pause(ctx));
        SaveGuard { ctx, saved }
    }

    /// Restores now and says whether rebinding succeeded.
    pub fn restore(mut self) -> sgx_pipe::Result<()> {
        match self.saved.take() {
            Some(s) => s.restore(self.ctx),
            None => Ok(()),
        }
    }
}

impl Deref for SaveGuard<'_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        self.ctx
    }
}

impl DerefMut for SaveGuard<'_> {
    fn deref_mut(&mut self) -> &mut Context {
        self.ctx
    }
}

impl Drop for SaveGuard<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.saved.take() {
            if let Err(e) = s.restore(self.ctx) {
                log::warn!("blitter: restoring the application's state after an early exit: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use sgx_pipe::{Screen, ShaderCache};
    use sgx_winsys::SimDevice;

    use super::*;

    const APP_VIEWPORT: ViewportState = ViewportState {
        scale: [8.0, 8.0, 0.5],
        translate: [8.0, 8.0, 0.5],
    };
    const INTERNAL_VIEWPORT: ViewportState = ViewportState {
        scale: [1.0, 1.0, 1.0],
        translate: [0.0, 0.0, 0.0],
    };

    fn app_context() -> (Screen, Context) {
        let dev = Arc::new(SimDevice::new().expect("model"));
        let screen = Screen::with_shader_cache(dev, ShaderCache::in_memory());
        let mut ctx = screen.context_create();
        ctx.set_viewport_state(&APP_VIEWPORT).expect("viewport");
        ctx.set_sample_mask(0x5);
        ctx.set_active_query_state(true);
        (screen, ctx)
    }

    fn assert_app_state(ctx: &Context) {
        assert_eq!(ctx.viewport_state(), APP_VIEWPORT);
        assert_eq!(ctx.sample_mask(), 0x5);
        assert!(ctx.active_query_state(), "queries resumed");
    }

    /// An internal operation that changes state, then leaves early through `?`.
    fn leaves_early(ctx: &mut Context) -> Result<(), String> {
        let mut g = SaveGuard::save_and_pause(ctx);
        assert!(!g.active_query_state(), "queries paused");
        g.set_sample_mask(0xff);
        g.set_viewport_state(&INTERNAL_VIEWPORT)
            .map_err(|e| e.to_string())?;
        Err("a failure between save and restore".to_string())?;
        g.restore().map_err(|e| e.to_string())
    }

    #[test]
    fn an_early_return_through_question_mark_restores_the_application_state() {
        let (_s, mut ctx) = app_context();
        assert!(leaves_early(&mut ctx).is_err());
        assert_app_state(&ctx);
    }

    #[test]
    fn a_panic_between_save_and_restore_restores_the_application_state() {
        let (_s, mut ctx) = app_context();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut g = SaveGuard::save_and_pause(&mut ctx);
            g.set_sample_mask(0xff);
            g.set_viewport_state(&INTERNAL_VIEWPORT).expect("viewport");
            panic!("an internal draw panicked");
        }));
        assert!(r.is_err());
        assert_app_state(&ctx);
    }

    #[test]
    fn an_explicit_restore_restores_once() {
        let (_s, mut ctx) = app_context();
        let mut g = SaveGuard::save_and_pause(&mut ctx);
        g.set_sample_mask(0xff);
        g.restore().expect("restores");
        assert_app_state(&ctx);
    }
}
