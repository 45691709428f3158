//! The context: what is bound, in Gallium's shape, and the dirty groups since the last draw.
//! Its entry points live in files by concern, as Mesa drivers name them, each a further
//! `impl Context` block above this one: state_ops (CSOs, `set_*`, getters), emit (state
//! emission before a draw), draw, clear, transfer, query_ops and flush.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use sgx_winsys::{Device, Fence};

use crate::batch::{Batch, DEFAULT_PB_BUDGET_B, HELD_BUDGET_B};
use crate::caps::ShaderStage;
use crate::dirty::Dirty;
use crate::draw_state::EmitCache;
use crate::job_watch::{JobFailure, JobWatch};
use crate::program::{Program, ShaderState};
use crate::query::Query;
use crate::reset::{ResetCallback, ResetStatus, ResetWatch};
use crate::screen::Screen;
use crate::state::*;

/// How long CPU waits for the GPU may take before they fail with a timeout error.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Texture units.
pub const MAX_SAMPLERS: usize = sgx_hwdocs::limits::MAX_TEXTURE_UNITS as usize;
/// Sampler slots of the vertex stage (their table entries follow the fragment stage's).
pub const MAX_VERTEX_SAMPLERS: usize = sgx_hwdocs::limits::MAX_VERTEX_TEXTURE_UNITS as usize;
/// Vertex buffer slots.
pub const MAX_VERTEX_BUFFERS: usize = sgx_hwdocs::limits::MAX_VERTEX_ATTRIBS as usize;

/// Counters of what the context did (for tests and benches).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextStats {
    /// draw_vbo calls that drew.
    pub draws: u64,
    /// Draws skipped by the render condition.
    pub draws_skipped: u64,
    /// DrawState blocks written (a block is written only when its words change).
    pub state_blocks_emitted: u64,
    /// State dwords written into blocks and tables.
    pub state_words_emitted: u64,
    /// DrawState parts (a word group or a table) packed again because a state group they
    /// are packed from was dirty.
    pub state_parts_packed: u64,
    /// Jobs submitted.
    pub submissions: u64,
    /// Batches flushed early because parameter memory would run out.
    pub pb_splits: u64,
    /// Batches flushed early because they held more resource bytes than `HELD_BUDGET_B`.
    pub held_flushes: u64,
    /// Submitted jobs seen to end in an error (`Context::take_job_failures`).
    pub jobs_failed: u64,
}

/// Render condition: draws are skipped when the query's result is (non-zero) == condition.
#[derive(Debug, Clone)]
pub struct RenderCondition {
    /// The predicate query.
    pub query: Arc<Query>,
    /// Skip on a true (non-zero) result when set, on a false one when clear.
    pub condition: bool,
    /// Wait for the result; without it, an unavailable result draws.
    pub wait: bool,
}

/// A rendering context.
pub struct Context {
    pub(crate) screen: Screen,
    pub(crate) blend: Option<Arc<BlendState>>,
    pub(crate) dsa: Option<Arc<DepthStencilAlphaState>>,
    pub(crate) rast: Option<Arc<RasterizerState>>,
    pub(crate) samplers: [Option<Arc<SamplerState>>; MAX_SAMPLERS],
    pub(crate) views: [Option<SamplerView>; MAX_SAMPLERS],
    pub(crate) vs_samplers: [Option<Arc<SamplerState>>; MAX_VERTEX_SAMPLERS],
    pub(crate) vs_views: [Option<SamplerView>; MAX_VERTEX_SAMPLERS],
    pub(crate) vs: Option<Arc<ShaderState>>,
    pub(crate) fs: Option<Arc<ShaderState>>,
    pub(crate) velems: Option<Arc<Vec<VertexElement>>>,
    pub(crate) vbufs: [Option<VertexBuffer>; MAX_VERTEX_BUFFERS],
    pub(crate) constants: [Option<ConstantBuffer>; 2],
    pub(crate) fb: FramebufferState,
    pub(crate) viewport: ViewportState,
    pub(crate) scissor: ScissorState,
    pub(crate) stencil_ref: StencilRef,
    pub(crate) blend_color: BlendColor,
    /// `set_polygon_stipple`: rows top first (Gallium's order).
    pub(crate) poly_stipple: [u32; 32],
    pub(crate) sample_mask: u32,
    pub(crate) render_cond: Option<RenderCondition>,
    pub(crate) queries_enabled: bool,
    pub(crate) active_queries: Vec<Arc<Query>>,
    pub(crate) batch: Option<Batch>,
    /// Linked programs by (vertex shader, fragment shader, replaced sprite inputs).
    pub(crate) programs: HashMap<(u64, u64, u16), Arc<Program>>,
    /// The entry of `programs` the last draw used.
    pub(crate) last_program: Option<((u64, u64, u16), Arc<Program>)>,
    pub(crate) last_fence: Option<Fence>,
    pub(crate) stats: ContextStats,
    pub(crate) timeout: Duration,
    pub(crate) pb_budget_B: u64,
    pub(crate) held_budget_B: u64,
    pub(crate) reset: ResetWatch,
    /// The fences of submitted jobs, and the failures among them not yet taken.
    pub(crate) jobs: JobWatch,
    /// State groups changed since the last draw packed them.
    pub(crate) dirty: Dirty,
    /// The DrawState parts as last packed.
    pub(crate) emit: EmitCache,
    /// The batch's blocks by vertex layout and buffers (`emit_memo.rs`).
    pub(crate) memo: crate::emit_memo::EmitMemo,
    /// Point at a batch's earlier copy of a table or block instead of writing it again
    /// (`Context::set_state_reuse`).
    pub(crate) reuse_state: bool,
    /// The index buffer drawn from last: resource id, `storage_moves()` when looked up, its
    /// buffer object's id and GPU address (a draw from it again locks and clones nothing).
    pub(crate) index_src: Option<(u64, u64, u64, u32)>,
    /// Convert every vertex format on the CPU (`Context::set_translate_all_vertex_formats`).
    pub(crate) translate_all: bool,
    /// Whether a bound vertex element is converted on the CPU (`needs_translation`).
    pub(crate) velems_converted: bool,
    /// The vertex ids of the draw being emitted, when an attribute is converted on the CPU
    /// (vertex_translate.rs).
    pub(crate) translate_range: Option<(u32, u32)>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Context {
    pub(crate) fn new(screen: Screen) -> Context {
        let screen_resets = screen.device().resets().len();
        Context {
            screen,
            blend: None,
            dsa: None,
            rast: None,
            samplers: Default::default(),
            views: Default::default(),
            vs_samplers: Default::default(),
            vs_views: Default::default(),
            vs: None,
            fs: None,
            velems: None,
            vbufs: Default::default(),
            constants: Default::default(),
            fb: FramebufferState::default(),
            viewport: ViewportState::default(),
            scissor: ScissorState::default(),
            stencil_ref: StencilRef::default(),
            blend_color: BlendColor::default(),
            poly_stipple: [0; 32],
            sample_mask: !0,
            render_cond: None,
            queries_enabled: true,
            active_queries: Vec::new(),
            batch: None,
            programs: HashMap::new(),
            last_program: None,
            last_fence: None,
            stats: ContextStats::default(),
            timeout: DEFAULT_TIMEOUT,
            pb_budget_B: DEFAULT_PB_BUDGET_B,
            held_budget_B: HELD_BUDGET_B,
            reset: ResetWatch::new(screen_resets),
            jobs: JobWatch::default(),
            dirty: Dirty::all(),
            emit: EmitCache::default(),
            memo: Default::default(),
            reuse_state: true,
            translate_all: false,
            velems_converted: false,
            translate_range: None,
            index_src: None,
        }
    }

    /// The screen.
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    pub(crate) fn dev(&self) -> Arc<dyn Device> {
        self.screen.device().clone()
    }

    /// Counters so far.
    pub fn stats(&self) -> ContextStats {
        self.stats
    }

    /// Sets the parameter memory one render may use; a batch that would need more is submitted
    /// and recording continues in a new one (hwdocs render.json's parameter-memory rule).
    pub fn set_parameter_memory_budget(&mut self, bytes: u64) {
        self.pb_budget_B = bytes.max(sgx_hwdocs::limits::PAGE_B);
    }

    /// Sets how many bytes of resources a batch may keep alive before it is submitted
    /// ([`crate::HELD_BUDGET_B`] by default).
    pub fn set_held_budget(&mut self, bytes: u64) {
        self.held_budget_B = bytes;
    }

    /// Whether a DrawState table or block equal to one of the last few written into the batch
    /// is pointed at again (on by default; drawoverhead's alternating programs and vertex
    /// layouts then write nothing after their first two draws). Off, every changed part is
    /// written anew, and an index buffer's address is looked up under its lock at every draw:
    /// the reference the reuse is tested against.
    pub fn set_state_reuse(&mut self, on: bool) {
        self.reuse_state = on;
    }

    /// Whether every vertex format is converted to floats on the CPU at draw time, as the
    /// formats the model's fetch does not convert are (off by default). On, the model fetches
    /// only floats: the reference its own conversions are tested against.
    pub fn set_translate_all_vertex_formats(&mut self, on: bool) {
        self.translate_all = on;
        self.velems_converted = self.needs_translation();
        self.dirty |= crate::dirty::Dirty::VBUF;
    }

    /// Sets how long CPU waits on the GPU may take.
    pub fn set_timeout(&mut self, t: Duration) {
        self.timeout = t;
    }

    /// The fence of the last submission.
    pub fn last_fence(&self) -> Option<Fence> {
        self.last_fence.clone()
    }

    /// The batch for the current framebuffer, created if there is none.
    pub(crate) fn batch(&mut self) -> &mut Batch {
        if self.batch.is_none() {
            // Addresses packed for the previous batch point into its memory.
            self.dirty |= Dirty::NEW_BATCH;
        }
        let fb = &self.fb;
        self.batch.get_or_insert_with(|| Batch::new(fb))
    }

    /// The id the winsys knows this context's jobs by.
    pub fn id(&self) -> u64 {
        self.reset.id
    }

    /// `get_device_reset_status`: whether the device was reset since the last call, and
    /// whether this context's job caused it.
    pub fn get_device_reset_status(&mut self) -> ResetStatus {
        self.reset.query(&self.dev().resets())
    }

    /// `set_device_reset_callback`: called with the status of each reset this context
    /// notices (on a later flush), before the application queries it.
    pub fn set_device_reset_callback(&mut self, callback: Option<ResetCallback>) {
        self.reset.callback = callback;
    }

    /// Tells the callback of resets it has not heard of.
    pub(crate) fn notice_resets(&mut self) {
        self.reset.notice(&self.dev().resets());
    }

    /// Looks at the fences of the context's submitted jobs; counts those that failed.
    pub(crate) fn poll_jobs(&mut self) {
        self.stats.jobs_failed += self.jobs.poll();
    }

    /// The jobs of this context that ended in an error (their pixels are lost) since the
    /// last call, oldest first, whether or not anything waited on their fences; at most
    /// [`crate::MAX_KEPT_FAILURES`], the count of all in `stats().jobs_failed`. Jobs still
    /// running are reported by a later call (after `fence_finish`, every submitted one is
    /// seen).
    pub fn take_job_failures(&mut self) -> Vec<JobFailure> {
        self.poll_jobs();
        self.jobs.take()
    }

    /// The oldest of [`Context::take_job_failures`]'s failures, one at a time.
    pub fn take_job_failure(&mut self) -> Option<JobFailure> {
        self.poll_jobs();
        self.jobs.take_one()
    }

    /// Submitted jobs not yet seen to end.
    pub fn jobs_pending(&mut self) -> usize {
        self.poll_jobs();
        self.jobs.pending()
    }
}

pub(crate) fn stage_index(s: ShaderStage) -> usize {
    match s {
        ShaderStage::Vertex => 0,
        ShaderStage::Fragment => 1,
    }
}

impl Screen {
    /// `context_create`.
    pub fn context_create(&self) -> Context {
        Context::new(self.clone())
    }
}
