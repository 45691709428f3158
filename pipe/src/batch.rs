//! Batches, the tile-based way: draws to one framebuffer accumulate into one render; a
//! flush, a framebuffer change, a CPU access to a resource the batch uses, or a fence
//! request submits it. The batch tracks which tiles its draws and clears touch, so the render
//! loads and stores only those, and a clear covering the framebuffer loads nothing.

use std::collections::HashSet;
use std::sync::Arc;

use sgx_hwdocs::{limits, pbe, regs, render, ta_stream, Format};
use sgx_winsys::{Access, Bo, BoDesc, Fence, Job};

use crate::arena::Arena;
use crate::context::Context;
use crate::error::Result;
use crate::query::Query;
use crate::state::FramebufferState;

pub(crate) const TILE_PX: u32 = limits::TILE_W_PX as u32;

/// A render being recorded.
pub(crate) struct Batch {
    pub fb: FramebufferState,
    pub w_tl: u32,
    pub h_tl: u32,
    pub arena: Arena,
    /// Control stream dwords (without the final TERMINATE).
    pub stream: Vec<u32>,
    /// Buffers the render uses besides the arena's and the targets.
    pub bos: Vec<(Bo, Access)>,
    /// Tiles a draw may touch, row-major.
    pub touched: Vec<bool>,
    /// The whole framebuffer was cleared at the start: tiles start from the background.
    pub colour_cleared: bool,
    pub clear_colour: [f32; 4],
    pub depth_cleared: bool,
    /// The clear covered only depth (stencil comes from memory) or only stencil.
    pub keep_stencil: bool,
    pub keep_depth: bool,
    pub clear_depth: f32,
    pub clear_stencil: u8,
    pub draws: u32,
    /// Parameter memory the TA may need (hwdocs render.json parameter_memory rule).
    pub pb_need_b: u64,
    /// The last DrawState key (words with table contents) and its block address.
    pub last_state: Option<(Vec<u32>, u32)>,
    /// Query slots this render counts into: (query, GPU address of its u32).
    pub query_slots: Vec<(Arc<Query>, u32)>,
    /// Resources the render reads and writes (ids).
    pub reads: HashSet<u64>,
    pub writes: HashSet<u64>,
    /// User buffers uploaded in this batch, and where. The batch holds each one, so its
    /// address cannot be reused by a later buffer while the entry stands.
    pub user_uploads: Vec<(std::sync::Arc<[u8]>, u32)>,
}

/// Largest parameter memory one render gets by default; a batch that would need more is split.
pub const DEFAULT_PB_BUDGET_B: u64 = 16 << 20;

impl Batch {
    pub fn new(fb: &FramebufferState) -> Batch {
        let w_tl = fb.width.div_ceil(TILE_PX).max(1);
        let h_tl = fb.height.div_ceil(TILE_PX).max(1);
        let mut b = Batch {
            fb: fb.clone(),
            w_tl,
            h_tl,
            arena: Arena::default(),
            stream: Vec::new(),
            bos: Vec::new(),
            touched: vec![false; (w_tl * h_tl) as usize],
            colour_cleared: false,
            clear_colour: [0.0; 4],
            depth_cleared: false,
            keep_stencil: false,
            keep_depth: false,
            clear_depth: 1.0,
            clear_stencil: 0,
            draws: 0,
            pb_need_b: 0,
            last_state: None,
            query_slots: Vec::new(),
            reads: HashSet::new(),
            writes: HashSet::new(),
            user_uploads: Vec::new(),
        };
        if let Some(c) = &fb.cbuf {
            b.writes.insert(c.resource.id());
        }
        if let Some(z) = &fb.zsbuf {
            b.writes.insert(z.resource.id());
        }
        b
    }

    /// Marks the tiles a pixel rectangle [x0, x1) x [y0, y1) covers; returns how many.
    pub fn touch(&mut self, x0: u32, y0: u32, x1: u32, y1: u32) -> u64 {
        if x1 <= x0 || y1 <= y0 {
            return 0;
        }
        let (tx0, ty0) = (x0 / TILE_PX, y0 / TILE_PX);
        let tx1 = x1.div_ceil(TILE_PX).min(self.w_tl);
        let ty1 = y1.div_ceil(TILE_PX).min(self.h_tl);
        let mut n = 0;
        for ty in ty0..ty1 {
            for tx in tx0..tx1 {
                self.touched[(ty * self.w_tl + tx) as usize] = true;
                n += 1;
            }
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.draws == 0 && !self.colour_cleared && !self.depth_cleared
    }

    /// Whether the batch reads or writes the resource (`write`: only if it writes).
    pub fn uses(&self, id: u64, write_only: bool) -> bool {
        self.writes.contains(&id) || (!write_only && self.reads.contains(&id))
    }

    /// Parameter memory for the tile headers plus what draws added.
    pub fn pb_size_b(&self) -> u64 {
        let tiles = u64::from(self.w_tl * self.h_tl);
        (self.pb_need_b + tiles * limits::PB_TILE_HEADER_B + limits::PAGE_B)
            .div_ceil(limits::PAGE_B)
            * limits::PAGE_B
    }
}

impl Context {
    /// The batch for the current framebuffer, created if there is none.
    pub(crate) fn batch(&mut self) -> &mut Batch {
        let fb = &self.fb;
        self.batch.get_or_insert_with(|| Batch::new(fb))
    }

    /// Submits the pending batch, if any; returns its fence.
    pub(crate) fn flush_batch(&mut self) -> Result<Option<Fence>> {
        let Some(b) = self.batch.take() else {
            return Ok(None);
        };
        if b.is_empty() {
            return Ok(None);
        }
        let fence = self.submit_batch(b)?;
        self.stats.submissions += 1;
        self.last_fence = Some(fence.clone());
        Ok(Some(fence))
    }

    /// `flush`: submits pending work and returns a fence for everything submitted so far.
    pub fn flush(&mut self) -> Result<Option<Fence>> {
        self.flush_batch()?;
        self.notice_resets();
        Ok(self.last_fence.clone())
    }

    /// Submits pending work that reads or writes the resource, so that waiting on its buffer's
    /// fences covers it (before a CPU access, or before another context uses it).
    pub fn flush_resource(&mut self, res: &crate::Resource) -> Result<()> {
        self.flush_for_cpu_access(res.id(), true)
    }

    /// Submits pending work that reads or writes `res` (for a CPU access to it).
    pub(crate) fn flush_for_cpu_access(&mut self, id: u64, cpu_writes: bool) -> Result<()> {
        if self.batch.as_ref().is_some_and(|b| b.uses(id, !cpu_writes)) {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn submit_batch(&mut self, mut b: Batch) -> Result<Fence> {
        let dev = self.dev();
        let timeout = self.timeout;
        let mut stream = std::mem::take(&mut b.stream);
        stream.extend(ta_stream::CtrlTerminate::default().pack()?);
        let stream_va = b.arena.push_dwords(&*dev, &stream, 16)?;

        // Tile control: load only tiles that draws touch and no clear covered, store the
        // touched and cleared ones, skip the rest.
        let has_c = b.fb.cbuf.is_some();
        let has_z = b.fb.zsbuf.is_some();
        let mut ctrl = Vec::with_capacity(b.touched.len());
        let mut any_colour_load = false;
        let mut any_depth_load = false;
        for &t in &b.touched {
            let colour_store = has_c && (t || b.colour_cleared);
            let colour_load = has_c && t && !b.colour_cleared;
            let depth_store = has_z && (t || b.depth_cleared);
            let depth_load = has_z && t && !b.depth_cleared;
            let keep_stencil = depth_store && b.keep_stencil;
            let keep_depth = depth_store && b.keep_depth;
            any_colour_load |= colour_load;
            any_depth_load |= depth_load || keep_stencil || keep_depth;
            let w = render::TileCtrl {
                colour_load,
                colour_store,
                depth_load,
                depth_store,
                keep_stencil,
                keep_depth,
            }
            .pack()?[0];
            ctrl.push(w as u8);
        }
        let ctrl_va = b.arena.push_bytes(&*dev, &ctrl, 16)?;

        let pb = dev.create_bo(&BoDesc::new(b.pb_size_b()))?;
        let screen = regs::TeScreen {
            w_tl: b.w_tl,
            h_tl: b.h_tl,
        }
        .pack()?[0];
        let pb_base = regs::DpmPbBase {
            addr: pb.gpu_addr(),
        }
        .pack()?[0];
        let pb_size = u32::try_from(pb.size_b()).unwrap_or(u32::MAX);
        let ta_regs = vec![
            (
                regs::VDM_CTRL_STREAM_BASE,
                regs::VdmCtrlStreamBase { addr: stream_va }.pack()?[0],
            ),
            (regs::TE_SCREEN, screen),
            (regs::DPM_PB_BASE, pb_base),
            (regs::DPM_PB_SIZE, pb_size),
            (regs::VDM_START, regs::VdmStart { start: true }.pack()?[0]),
        ];
        let mut td = vec![
            (regs::TE_SCREEN, screen),
            (regs::DPM_PB_BASE, pb_base),
            (regs::DPM_PB_SIZE, pb_size),
        ];

        let mut job_bos: Vec<(Bo, Access)> = Vec::new();
        // Colour target.
        let pbe_state = match &b.fb.cbuf {
            Some(s) => {
                let (bo, layout) = {
                    let st = s.resource.storage();
                    (st.bo.clone(), st.layout.clone())
                };
                let layout = layout.ok_or_else(|| {
                    crate::PipeError::InvalidArgument("colour buffer has no layout".into())
                })?;
                // A 3D texture's surface names a slice where a cube's names a face.
                let mut p = if s.resource.target() == crate::ResourceTarget::Texture3D {
                    layout.pbe_state_slice(0, s.level, s.face, bo.gpu_addr())?
                } else {
                    layout.pbe_state(s.face, s.level, bo.gpu_addr())?
                };
                // The framebuffer may be smaller than the level.
                p.clip_xmax = p.clip_xmax.min(b.fb.width - 1);
                p.clip_ymax = p.clip_ymax.min(b.fb.height - 1);
                p.extent_w_tl = b.w_tl;
                p.extent_h_tl = b.h_tl;
                job_bos.push((
                    bo,
                    if any_colour_load {
                        Access::ReadWrite
                    } else {
                        Access::Write
                    },
                ));
                p
            }
            // No colour buffer: nothing is stored, but the clip still bounds the render, and
            // the depth buffer's loads and stores with it.
            None => pbe::PbeState {
                format: Format::B8G8R8A8_UNORM,
                extent_w_tl: b.w_tl,
                extent_h_tl: b.h_tl,
                clip_xmax: b.fb.width - 1,
                clip_ymax: b.fb.height - 1,
                ..Default::default()
            },
        };
        for (i, w) in pbe_state.pack()?.iter().enumerate() {
            td.push((regs::PBE_STATE + regs::PBE_STATE_STRIDE * i as u32, *w));
        }
        for (i, c) in b.clear_colour.iter().enumerate() {
            td.push((
                regs::BGOBJ_COLOUR + regs::BGOBJ_COLOUR_STRIDE * i as u32,
                c.to_bits(),
            ));
        }
        td.push((
            regs::ISP_BGOBJDEPTH,
            regs::IspBgobjdepth {
                depth: b.clear_depth,
            }
            .pack()?[0],
        ));
        td.push((
            regs::BGOBJ_STENCIL,
            regs::BgobjStencil {
                value: u32::from(b.clear_stencil),
            }
            .pack()?[0],
        ));
        td.push((
            regs::TILE_CTRL_BASE,
            regs::TileCtrlBase { addr: ctrl_va }.pack()?[0],
        ));
        if let Some(z) = &b.fb.zsbuf {
            let (bo, layout) = {
                let st = z.resource.storage();
                (st.bo.clone(), st.layout.clone())
            };
            let layout = layout.ok_or_else(|| {
                crate::PipeError::InvalidArgument("depth buffer has no layout".into())
            })?;
            let lvl = layout.level(z.level)?;
            let base = bo.gpu_addr() + layout.level_range_B(z.face, z.level)?.start as u32;
            td.push((
                regs::ISP_ZLSCTL,
                regs::IspZlsctl {
                    enable: 1,
                    format: z.resource.format(),
                }
                .pack()?[0],
            ));
            td.push((regs::ZLS_ZBASE, regs::ZlsZbase { addr: base }.pack()?[0]));
            td.push((
                regs::ZLS_STRIDE,
                regs::ZlsStride {
                    stride_b: lvl.stride_B as u32,
                }
                .pack()?[0],
            ));
            job_bos.push((
                bo,
                if any_depth_load {
                    Access::ReadWrite
                } else {
                    Access::Write
                },
            ));
        }
        td.push((
            regs::ISP_START_RENDER,
            regs::IspStartRender { start: true }.pack()?[0],
        ));

        let mut job = Job::render(ta_regs, td).in_context(self.reset.id);
        job.bos.extend(b.arena.finish(timeout)?);
        job.bos.push((pb, Access::Write));
        job.bos.append(&mut job_bos);
        job.bos.append(&mut b.bos);
        for (q, _) in &b.query_slots {
            if let Some(bo) = &q.st().bo {
                job.bos.push((bo.clone(), Access::ReadWrite));
            }
        }
        let fence = dev.submit(job)?;
        for (q, _) in &b.query_slots {
            q.st().end_fence = Some(fence.clone());
        }
        Ok(fence)
    }
}

/// Primitives a draw of `count` vertices makes.
pub(crate) fn prim_count(mode: ta_stream::Topology, count: u32) -> u64 {
    use ta_stream::Topology::*;
    let c = u64::from(count);
    match mode {
        POINTS => c,
        LINES => c / 2,
        LINE_STRIP => c.saturating_sub(1),
        LINE_LOOP => {
            if c >= 2 {
                c
            } else {
                0
            }
        }
        TRIANGLES => c / 3,
        TRIANGLE_STRIP | TRIANGLE_FAN => c.saturating_sub(2),
    }
}
