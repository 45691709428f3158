//! State entry points of the context: CSO create and bind, the `set_*` calls and the getters
//! the blitter saves and restores through (lima_state.c's role). Each setter marks its dirty
//! group; the draw repacks only what a marked group feeds (emit.rs).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::caps::ShaderStage;
use crate::context::{stage_index, Context, RenderCondition, MAX_VERTEX_BUFFERS};
use crate::dirty::Dirty;
use crate::error::{invalid, Result};
use crate::program::ShaderState;
use crate::state::*;
use sgx_hwdocs::{isp, Format};

static NEXT_SHADER_ID: AtomicU64 = AtomicU64::new(1);

/// The largest (exclusive) scissor bound: the ISP's inclusive Scissor fields hold
/// `SCISSOR_END_PX - 1` at most (hwdocs isp::Scissor).
const SCISSOR_END_PX: u32 =
    (isp::Scissor::XMAX_MASK >> isp::Scissor::XMAX_MASK.trailing_zeros()) + 1;

impl Context {
    // ---- CSOs: create is a plain Arc, delete is a drop; binding keeps a reference.

    /// `create_blend_state`.
    pub fn create_blend_state(&self, s: &BlendState) -> Arc<BlendState> {
        Arc::new(*s)
    }
    /// `bind_blend_state`.
    pub fn bind_blend_state(&mut self, s: Option<&Arc<BlendState>>) {
        self.blend = s.cloned();
        self.dirty |= Dirty::BLEND;
    }
    /// `create_depth_stencil_alpha_state`.
    pub fn create_depth_stencil_alpha_state(
        &self,
        s: &DepthStencilAlphaState,
    ) -> Arc<DepthStencilAlphaState> {
        Arc::new(*s)
    }
    /// `bind_depth_stencil_alpha_state`.
    pub fn bind_depth_stencil_alpha_state(&mut self, s: Option<&Arc<DepthStencilAlphaState>>) {
        self.dsa = s.cloned();
        self.dirty |= Dirty::DSA;
    }
    /// `create_rasterizer_state`.
    pub fn create_rasterizer_state(&self, s: &RasterizerState) -> Result<Arc<RasterizerState>> {
        if !(s.point_size.is_finite()
            && s.point_size >= 0.0
            && s.line_width.is_finite()
            && s.line_width >= 0.0)
        {
            return invalid("point size and line width must be finite and not negative");
        }
        // st/mesa's own pixel paths (glDrawPixels, glCopyPixels, glBitmap) leave both at 0, as
        // they draw no points or lines: 0 stands for GL's smallest size, 1.
        let mut s = *s;
        for v in [&mut s.point_size, &mut s.line_width] {
            if *v == 0.0 {
                *v = 1.0;
            }
        }
        Ok(Arc::new(s))
    }
    /// `bind_rasterizer_state`.
    pub fn bind_rasterizer_state(&mut self, s: Option<&Arc<RasterizerState>>) {
        self.rast = s.cloned();
        self.dirty |= Dirty::RASTERIZER;
    }
    /// `create_sampler_state`.
    pub fn create_sampler_state(&self, s: &SamplerState) -> Result<Arc<SamplerState>> {
        if !s.lod_bias.is_finite() {
            return invalid("LOD bias must be finite");
        }
        if s.min_lod.is_nan() || s.max_lod.is_nan() {
            return invalid("LOD clamp must not be NaN");
        }
        if !s.border_color.iter().all(|c| c.is_finite()) {
            return invalid("border colour must be finite");
        }
        Ok(Arc::new(*s))
    }
    /// `bind_sampler_states` for the fragment stage, from `start`.
    pub fn bind_sampler_states(
        &mut self,
        start: usize,
        s: &[Option<Arc<SamplerState>>],
    ) -> Result<()> {
        self.bind_stage_sampler_states(ShaderStage::Fragment, start, s)
    }
    /// `set_sampler_views` for the fragment stage, from `start`.
    pub fn set_sampler_views(&mut self, start: usize, v: &[Option<SamplerView>]) -> Result<()> {
        self.set_stage_sampler_views(ShaderStage::Fragment, start, v)
    }
    /// `bind_sampler_states` for `stage`, from `start`.
    pub fn bind_stage_sampler_states(
        &mut self,
        stage: ShaderStage,
        start: usize,
        s: &[Option<Arc<SamplerState>>],
    ) -> Result<()> {
        let slots = match stage {
            ShaderStage::Fragment => &mut self.samplers[..],
            ShaderStage::Vertex => &mut self.vs_samplers[..],
        };
        if start + s.len() > slots.len() {
            return invalid(format!(
                "{stage:?} samplers {start}..{} of {}",
                start + s.len(),
                slots.len()
            ));
        }
        for (i, v) in s.iter().enumerate() {
            slots[start + i] = v.clone();
        }
        self.dirty |= Dirty::SAMPLERS;
        Ok(())
    }
    /// `set_sampler_views` for `stage`, from `start`.
    pub fn set_stage_sampler_views(
        &mut self,
        stage: ShaderStage,
        start: usize,
        v: &[Option<SamplerView>],
    ) -> Result<()> {
        for view in v.iter().flatten() {
            check_view(view)?;
        }
        let slots = match stage {
            ShaderStage::Fragment => &mut self.views[..],
            ShaderStage::Vertex => &mut self.vs_views[..],
        };
        if start + v.len() > slots.len() {
            return invalid(format!(
                "{stage:?} sampler views {start}..{} of {}",
                start + v.len(),
                slots.len()
            ));
        }
        for (i, view) in v.iter().enumerate() {
            slots[start + i] = view.clone();
        }
        self.dirty |= Dirty::VIEWS;
        Ok(())
    }
    /// `create_vertex_elements_state`.
    pub fn create_vertex_elements_state(
        &self,
        e: &[VertexElement],
    ) -> Result<Arc<Vec<VertexElement>>> {
        if e.len() > MAX_VERTEX_BUFFERS {
            return invalid(format!(
                "{} vertex elements, at most {MAX_VERTEX_BUFFERS}",
                e.len()
            ));
        }
        if let Some(b) = e
            .iter()
            .find(|x| x.vertex_buffer_index as usize >= MAX_VERTEX_BUFFERS)
        {
            return invalid(format!("vertex buffer index {}", b.vertex_buffer_index));
        }
        Ok(Arc::new(e.to_vec()))
    }
    /// `bind_vertex_elements_state`.
    pub fn bind_vertex_elements_state(&mut self, e: Option<&Arc<Vec<VertexElement>>>) {
        self.velems = e.cloned();
        self.dirty |= Dirty::VERTEX_ELEMENTS;
        self.velems_converted = self.needs_translation();
    }
    /// `set_vertex_buffers` from `start`.
    pub fn set_vertex_buffers(&mut self, start: usize, b: &[Option<VertexBuffer>]) -> Result<()> {
        self.check_vertex_buffers(start, b)?;
        for (i, vb) in b.iter().enumerate() {
            self.vbufs[start + i] = vb.clone();
        }
        self.dirty |= Dirty::VBUF;
        Ok(())
    }

    /// `set_vertex_buffers` from `start`, as the C ABI's per-draw call gives it: a buffer the
    /// caller hands over is taken (no reference count changes), and a slot that holds its
    /// resource already keeps it at a new layout ([`VertexBufferSlot::Rebind`]: none either).
    /// Nothing changes when any slot is refused.
    pub fn set_vertex_buffer_slots(
        &mut self,
        start: usize,
        b: &mut [VertexBufferSlot],
    ) -> Result<()> {
        check_slots(start, b.len())?;
        for (i, slot) in b.iter().enumerate() {
            match slot {
                VertexBufferSlot::Unbound => {}
                VertexBufferSlot::Bind(vb) => check_vertex_buffer(vb)?,
                VertexBufferSlot::Rebind { stride, .. } => {
                    if !matches!(
                        self.vbufs[start + i],
                        Some(VertexBuffer {
                            buffer: BufferSource::Resource(_),
                            ..
                        })
                    ) {
                        return invalid(format!(
                            "vertex buffer {}: nothing bound to rebind",
                            start + i
                        ));
                    }
                    check_stride(*stride)?;
                }
            }
        }
        for (i, slot) in b.iter_mut().enumerate() {
            let dst = &mut self.vbufs[start + i];
            match std::mem::replace(slot, VertexBufferSlot::Unbound) {
                VertexBufferSlot::Unbound => *dst = None,
                VertexBufferSlot::Bind(vb) => *dst = Some(vb),
                VertexBufferSlot::Rebind {
                    stride,
                    buffer_offset,
                } => {
                    if let Some(vb) = dst {
                        vb.stride = stride;
                        vb.buffer_offset = buffer_offset;
                    }
                }
            }
        }
        self.dirty |= Dirty::VBUF;
        Ok(())
    }

    /// Whether vertex buffer `slot` holds resource `r` (the C ABI then rebinds it in place).
    pub fn vertex_buffer_holds(&self, slot: usize, r: &crate::resource::Resource) -> bool {
        matches!(
            self.vbufs.get(slot),
            Some(Some(VertexBuffer { buffer: BufferSource::Resource(held), .. })) if std::ptr::eq(&**held, r)
        )
    }

    fn check_vertex_buffers(&self, start: usize, b: &[Option<VertexBuffer>]) -> Result<()> {
        check_slots(start, b.len())?;
        b.iter().flatten().try_for_each(check_vertex_buffer)
    }

    /// Creates a shader from TGSI text (compiled once, cached by content).
    pub fn create_shader_state(&self, tgsi: &str) -> Result<Arc<ShaderState>> {
        let compiled = self.screen.shader_cache().get_or_compile(tgsi)?;
        let stage = crate::program::stage_of(&compiled);
        Ok(Arc::new(ShaderState {
            id: NEXT_SHADER_ID.fetch_add(1, Ordering::Relaxed),
            stage,
            tgsi: tgsi.into(),
            compiled,
        }))
    }
    /// `create_vs_state`: refuses fragment shaders.
    pub fn create_vs_state(&self, tgsi: &str) -> Result<Arc<ShaderState>> {
        let s = self.create_shader_state(tgsi)?;
        if s.stage != ShaderStage::Vertex {
            return invalid("create_vs_state was given a fragment shader");
        }
        Ok(s)
    }
    /// `create_fs_state`: refuses vertex shaders.
    pub fn create_fs_state(&self, tgsi: &str) -> Result<Arc<ShaderState>> {
        let s = self.create_shader_state(tgsi)?;
        if s.stage != ShaderStage::Fragment {
            return invalid("create_fs_state was given a vertex shader");
        }
        Ok(s)
    }
    /// `bind_vs_state`.
    pub fn bind_vs_state(&mut self, s: Option<&Arc<ShaderState>>) -> Result<()> {
        if s.is_some_and(|s| s.stage != ShaderStage::Vertex) {
            return invalid("bind_vs_state was given a fragment shader");
        }
        self.vs = s.cloned();
        self.dirty |= Dirty::SHADERS;
        Ok(())
    }
    /// `bind_fs_state`.
    pub fn bind_fs_state(&mut self, s: Option<&Arc<ShaderState>>) -> Result<()> {
        if s.is_some_and(|s| s.stage != ShaderStage::Fragment) {
            return invalid("bind_fs_state was given a vertex shader");
        }
        self.fs = s.cloned();
        self.dirty |= Dirty::SHADERS;
        Ok(())
    }

    /// `set_constant_buffer` for a stage (index 0 only: one constant buffer per stage).
    pub fn set_constant_buffer(
        &mut self,
        stage: ShaderStage,
        index: u32,
        cb: Option<ConstantBuffer>,
    ) -> Result<()> {
        if index != 0 {
            return invalid(format!("constant buffer {index}: only buffer 0"));
        }
        if let Some(c) = &cb {
            // Constant memory (MaxConstBufferSize): the bank and what LDC reaches past it.
            let max = sgx_hwdocs::usse::CONST_MEMORY_REGS as usize * 4;
            if c.data.len() > max {
                return invalid(format!("{} constants, at most {max} dwords", c.data.len()));
            }
        }
        self.constants[stage_index(stage)] = cb;
        self.dirty |= match stage {
            ShaderStage::Vertex => Dirty::CONSTBUF_VS,
            ShaderStage::Fragment => Dirty::CONSTBUF_FS,
        };
        Ok(())
    }

    /// `set_framebuffer_state`: a different framebuffer submits the pending batch.
    pub fn set_framebuffer_state(&mut self, fb: &FramebufferState) -> Result<()> {
        check_framebuffer(fb)?;
        if *fb != self.fb {
            // The new framebuffer is bound even if submitting the old batch fails, so callers
            // restoring state always get it back; the submission error is returned.
            let r = self.flush_batch();
            if crate::poly::depth_mrd(fb) != crate::poly::depth_mrd(&self.fb) {
                self.dirty |= Dirty::DEPTH_FORMAT;
            }
            self.fb = fb.clone();
            r?;
        }
        Ok(())
    }
    /// `set_viewport_states` (one viewport).
    pub fn set_viewport_state(&mut self, v: &ViewportState) -> Result<()> {
        if v.scale.iter().chain(&v.translate).any(|x| !x.is_finite()) {
            return invalid("viewport values must be finite");
        }
        self.viewport = *v;
        self.dirty |= Dirty::VIEWPORT;
        Ok(())
    }
    /// `set_scissor_states` (one scissor).
    pub fn set_scissor_state(&mut self, s: &ScissorState) -> Result<()> {
        if s.minx > s.maxx || s.miny > s.maxy || s.maxx > SCISSOR_END_PX || s.maxy > SCISSOR_END_PX
        {
            return invalid(format!("scissor {s:?}"));
        }
        self.scissor = *s;
        self.dirty |= Dirty::SCISSOR;
        Ok(())
    }
    /// `set_stencil_ref`.
    pub fn set_stencil_ref(&mut self, r: StencilRef) {
        self.stencil_ref = r;
        self.dirty |= Dirty::STENCIL_REF;
    }
    /// `set_blend_color`.
    pub fn set_blend_color(&mut self, c: BlendColor) {
        self.blend_color = c;
        self.dirty |= Dirty::BLEND_COLOR;
    }
    /// `set_polygon_stipple`: the pattern a rasterizer state with `poly_stipple` applies;
    /// row `y % 32` of the framebuffer's row `y` (Gallium's y-down rows), bit `31 - x % 32`.
    pub fn set_polygon_stipple(&mut self, rows: [u32; 32]) {
        self.poly_stipple = rows;
        self.dirty |= Dirty::STIPPLE;
    }
    /// `set_sample_mask` (single-sampled: bit 0 decides whether anything is drawn).
    pub fn set_sample_mask(&mut self, m: u32) {
        self.sample_mask = m;
    }
    /// `render_condition`.
    pub fn render_condition(&mut self, c: Option<RenderCondition>) -> Result<()> {
        if let Some(rc) = &c {
            if !rc.query.kind().is_occlusion()
                && rc.query.kind() != crate::query::QueryType::GpuFinished
            {
                return invalid("a render condition needs an occlusion or GPU_FINISHED query");
            }
        }
        self.render_cond = c;
        Ok(())
    }
    /// `set_active_query_state`: pauses (false) or resumes (true) counting of active queries,
    /// around internal draws.
    pub fn set_active_query_state(&mut self, enable: bool) {
        self.queries_enabled = enable;
    }

    // ---- Getters: what is bound (the blitter saves and restores through these).

    /// Bound blend state.
    pub fn blend_state(&self) -> Option<Arc<BlendState>> {
        self.blend.clone()
    }
    /// Bound depth-stencil-alpha state.
    pub fn depth_stencil_alpha_state(&self) -> Option<Arc<DepthStencilAlphaState>> {
        self.dsa.clone()
    }
    /// Bound rasterizer state.
    pub fn rasterizer_state(&self) -> Option<Arc<RasterizerState>> {
        self.rast.clone()
    }
    /// Bound fragment samplers.
    pub fn sampler_states(&self) -> Vec<Option<Arc<SamplerState>>> {
        self.samplers.to_vec()
    }
    /// Bound fragment sampler views.
    pub fn sampler_views(&self) -> Vec<Option<SamplerView>> {
        self.views.to_vec()
    }
    /// Bound vertex shader.
    pub fn vs_state(&self) -> Option<Arc<ShaderState>> {
        self.vs.clone()
    }
    /// Bound fragment shader.
    pub fn fs_state(&self) -> Option<Arc<ShaderState>> {
        self.fs.clone()
    }
    /// Bound vertex elements.
    pub fn vertex_elements_state(&self) -> Option<Arc<Vec<VertexElement>>> {
        self.velems.clone()
    }
    /// Bound vertex buffers.
    pub fn vertex_buffers(&self) -> Vec<Option<VertexBuffer>> {
        self.vbufs.to_vec()
    }
    /// Constant buffer 0 of a stage.
    pub fn constant_buffer(&self, stage: ShaderStage) -> Option<ConstantBuffer> {
        self.constants[stage_index(stage)].clone()
    }
    /// Framebuffer.
    pub fn framebuffer_state(&self) -> FramebufferState {
        self.fb.clone()
    }
    /// Viewport.
    pub fn viewport_state(&self) -> ViewportState {
        self.viewport
    }
    /// Scissor.
    pub fn scissor_state(&self) -> ScissorState {
        self.scissor
    }
    /// Stencil reference.
    pub fn stencil_ref(&self) -> StencilRef {
        self.stencil_ref
    }
    /// Blend colour.
    pub fn blend_color(&self) -> BlendColor {
        self.blend_color
    }
    /// Sample mask.
    pub fn sample_mask(&self) -> u32 {
        self.sample_mask
    }
    /// Render condition.
    pub fn render_condition_state(&self) -> Option<RenderCondition> {
        self.render_cond.clone()
    }
    /// Whether active queries count (set_active_query_state).
    pub fn active_query_state(&self) -> bool {
        self.queries_enabled
    }
}

/// Whether a view may read a resource's texels as `view`: the same format, or its sRGB or
/// linear twin (EXT_texture_sRGB_decode reads sRGB bytes undecoded through a UNORM view).
fn same_bytes(view: Format, resource: Format) -> bool {
    use crate::resource::render_format as linear;
    view == resource || linear(view) == linear(resource)
}

fn check_view(v: &SamplerView) -> Result<()> {
    let r = &v.resource;
    if r.target() == crate::resource::ResourceTarget::Buffer {
        return invalid("a sampler view of a buffer");
    }
    if !same_bytes(v.format, r.format()) {
        return invalid(format!(
            "view format {} differs from the resource's {}",
            v.format.name(),
            r.format().name()
        ));
    }
    v.check_levels()?;
    if !v.format.info().sampleable {
        return Err(crate::error::PipeError::UnsupportedFormat {
            format: v.format,
            what: "for sampling",
        });
    }
    Ok(())
}

fn check_surface(s: &Surface, what: &str) -> Result<(u32, u32)> {
    let r = &s.resource;
    if r.target() == crate::resource::ResourceTarget::Buffer {
        return invalid(format!("{what} is a buffer"));
    }
    // `face` is the slice of a 3D texture (Gallium's first_layer).
    let layers = if r.target() == crate::resource::ResourceTarget::Texture3D {
        r.level_depth(s.level)?
    } else {
        r.faces()
    };
    if s.face >= layers {
        return invalid(format!("{what}: layer {} of {layers}", s.face));
    }
    r.level_extent(s.level)
}

/// Colour buffers a framebuffer may bind: Gallium's `PIPE_MAX_COLOR_BUFS`, not a hardware
/// limit (the PBE stores one; more are replays of the render).
pub(crate) const MAX_COLOUR_BUFFERS: usize = 8;

fn check_framebuffer(fb: &FramebufferState) -> Result<()> {
    if fb.width == 0 || fb.height == 0 {
        if fb.cbuf.is_some() || fb.zsbuf.is_some() {
            return invalid("a framebuffer with surfaces has a size");
        }
        return Ok(());
    }
    let max = sgx_hwdocs::limits::MAX_TARGET_PX as u32;
    if fb.width > max || fb.height > max {
        return invalid(format!(
            "framebuffer {}x{} exceeds {max}",
            fb.width, fb.height
        ));
    }
    if !fb.extra_cbufs.is_empty() && fb.cbuf.is_none() {
        return invalid("further colour buffers without a first one");
    }
    // One replay per colour buffer (flush.rs): a bound limit, as Gallium's 8 cbufs.
    if fb.extra_cbufs.len() + 1 > MAX_COLOUR_BUFFERS {
        return invalid(format!(
            "{} colour buffers (at most {MAX_COLOUR_BUFFERS})",
            fb.extra_cbufs.len() + 1
        ));
    }
    for c in fb.cbuf.iter().chain(&fb.extra_cbufs) {
        let (w, h) = check_surface(c, "colour buffer")?;
        if w < fb.width || h < fb.height {
            return invalid(format!(
                "colour buffer {w}x{h} is smaller than the framebuffer"
            ));
        }
        // An sRGB texture renders through its linear twin (resource::render_format).
        let f = crate::resource::render_format(c.resource.format());
        if !f.info().renderable
            || matches!(
                f.info().kind,
                sgx_hwdocs::FormatKind::Depth | sgx_hwdocs::FormatKind::DepthStencil
            )
        {
            return Err(crate::error::PipeError::UnsupportedFormat {
                format: f,
                what: "as a colour buffer",
            });
        }
    }
    if let Some(z) = &fb.zsbuf {
        let (w, h) = check_surface(z, "depth buffer")?;
        if w < fb.width || h < fb.height {
            return invalid(format!(
                "depth buffer {w}x{h} is smaller than the framebuffer"
            ));
        }
        if !matches!(
            z.resource.format().info().kind,
            sgx_hwdocs::FormatKind::Depth | sgx_hwdocs::FormatKind::DepthStencil
        ) {
            return Err(crate::error::PipeError::UnsupportedFormat {
                format: z.resource.format(),
                what: "as a depth buffer",
            });
        }
    }
    Ok(())
}

fn check_slots(start: usize, len: usize) -> Result<()> {
    if start + len > MAX_VERTEX_BUFFERS {
        return invalid(format!("vertex buffers {start}..{}", start + len));
    }
    Ok(())
}

fn check_vertex_buffer(vb: &VertexBuffer) -> Result<()> {
    check_stride(vb.stride)?;
    if let BufferSource::Resource(r) = &vb.buffer {
        if r.target() != crate::resource::ResourceTarget::Buffer {
            return invalid("a vertex buffer must be a buffer resource");
        }
    }
    Ok(())
}

fn check_stride(stride: u32) -> Result<()> {
    if stride > 4095 {
        return invalid(format!("vertex stride {stride} exceeds 4095"));
    }
    Ok(())
}
