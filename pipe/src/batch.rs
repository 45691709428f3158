//! Batches, the tile-based way: draws to one framebuffer accumulate into one render; a
//! flush, a framebuffer change, a CPU access to a resource the batch uses, or a fence
//! request submits it. The batch tracks which tiles its draws and clears touch, so the render
//! loads and stores only those, and a clear covering the framebuffer loads nothing.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use sgx_hwdocs::{limits, ta_stream};
use sgx_winsys::{Access, Bo};

use crate::arena::Arena;
use crate::query::Query;
use crate::state::FramebufferState;

pub(crate) const TILE_PX: u32 = limits::TILE_W_PX as u32;

/// Batches made so far: `Batch::serial`.
static BATCHES: AtomicU64 = AtomicU64::new(0);

/// A render being recorded.
pub(crate) struct Batch {
    /// Distinct for every batch of the process (what the emit memo's addresses belong to).
    pub serial: u64,
    pub fb: FramebufferState,
    pub w_tl: u32,
    pub h_tl: u32,
    pub arena: Arena,
    /// Control stream dwords (without the final TERMINATE).
    pub stream: Vec<u32>,
    /// Buffers the render reads besides the arena's and the targets, each once
    /// (`Batch::read_bo`).
    pub bos: Vec<(Bo, Access)>,
    /// The ids of the buffers in `bos`.
    bo_ids: IdSet,
    /// Tiles a draw may touch, row-major.
    pub touched: Vec<bool>,
    /// The rectangle `touch` marked last.
    last_touch: (u32, u32, u32, u32),
    /// The whole framebuffer was cleared at the start: tiles start from the background.
    pub colour_cleared: bool,
    /// The colour buffer's contents were declared unneeded: touched tiles load nothing. Unlike
    /// a clear it writes nothing by itself, so a batch holding only an invalidation is empty
    /// (a pass that failed after invalidating its target must not store the background).
    pub colour_invalidated: bool,
    pub clear_colour: [f32; 4],
    pub depth_cleared: bool,
    /// The clear covered only depth (stencil comes from memory) or only stencil.
    pub keep_stencil: bool,
    pub keep_depth: bool,
    pub clear_depth: f32,
    pub clear_stencil: u8,
    pub draws: u32,
    /// Parameter memory the TA may need (hwdocs render.json parameter_memory rule).
    pub pb_need_B: u64,
    /// The address of the DrawState block draws use now, once one is written.
    pub state_va: Option<u32>,
    /// Where the DrawState's tables (attributes, textures, vertex and fragment constants)
    /// were last written in this batch's arena: a block written after a change of one table
    /// points at the others where they are (`EmitCache::upload`).
    pub table_va: [Option<u32>; 4],
    /// The last few tables of each kind (`TABLE_*`), polygon stipples and whole blocks written
    /// into this batch's arena, with their addresses: a state that comes back (alternating
    /// programs, vertex layouts, constants) points at its earlier copy instead of writing it
    /// again (`EmitCache::upload`). The arena only grows, so a copy stays valid for the batch.
    pub recent: [Recent; RECENT_KINDS],
    /// The block whose buffers `bos` and `reads` hold (`Context::take_state_uses`).
    pub uses_va: Option<u32>,
    /// The last few blocks whose buffers were taken (`Context::take_state_uses`): a block's
    /// words name its buffers' addresses, which stay theirs while the batch holds them, so
    /// a block that comes back (intermixed vertex layouts) lists nothing new.
    pub uses_taken: [Option<u32>; USES_TAKEN],
    pub uses_taken_next: usize,
    /// The index buffer `bos` got last (by buffer id).
    pub index_bo: Option<u64>,
    /// Query slots this render counts into: (query, GPU address of its u32).
    pub query_slots: Vec<(Arc<Query>, u32)>,
    /// Resources the render reads and writes (ids).
    pub reads: IdSet,
    pub writes: IdSet,
    /// Bytes of the distinct resources in `reads`: the batch keeps them alive until it runs.
    pub held_B: u64,
    /// User buffers uploaded in this batch, and where. The batch holds each one, so its
    /// address cannot be reused by a later buffer while the entry stands.
    pub user_uploads: Vec<(std::sync::Arc<[u8]>, u32)>,
}

/// A set of buffer or resource ids (the library's own counters, not an adversary's input),
/// hashed with one multiply: with the default SipHash, listing a draw's buffers in the batch
/// (`Batch::read_bo`) was about 5% of drawoverhead's intermixed-layout test.
pub(crate) type IdSet = HashSet<u64, BuildHasherDefault<IdHasher>>;

/// Fibonacci hashing of a u64 id.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

// The golden-ratio multiplier of Fibonacci hashing: a well-spread constant, not a hardware fact.
const GOLDEN_RATIO_U64: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(GOLDEN_RATIO_U64);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0 ^ i).wrapping_mul(GOLDEN_RATIO_U64);
    }
}

/// `Batch::recent` kinds: the four tables, then polygon stipples, then blocks, then the
/// copied elements of zero-stride vertex buffers (`Context::const_attr`).
pub(crate) const RECENT_KINDS: usize = 7;
pub(crate) const RECENT_STIPPLE: usize = 4;
pub(crate) const RECENT_BLOCK: usize = 5;
pub(crate) const RECENT_CONST_ATTR: usize = 6;

/// How many copies of each kind `Recent` remembers: enough for states that alternate between
/// a few values, few enough that a miss (every draw different) costs a few compares. A driver
/// choice, not a hardware fact.
const RECENT_COPIES: usize = 4;

/// The last `RECENT_COPIES` word runs of one kind written into a batch, and where.
#[derive(Default)]
pub(crate) struct Recent {
    copies: Vec<(Vec<u32>, u32)>,
    /// The slot `note` replaces next once all are used.
    next: usize,
}

impl Recent {
    /// The address of an earlier copy of `words`.
    pub fn find(&self, words: &[u32]) -> Option<u32> {
        self.copies
            .iter()
            .find(|(w, _)| w.as_slice() == words)
            .map(|&(_, va)| va)
    }

    /// Remembers that `words` were written at `va`, forgetting the oldest copy when full.
    pub fn note(&mut self, words: &[u32], va: u32) {
        if self.copies.len() < RECENT_COPIES {
            self.copies.push((words.to_vec(), va));
            return;
        }
        let slot = &mut self.copies[self.next];
        slot.0.clear();
        slot.0.extend_from_slice(words);
        slot.1 = va;
        self.next = (self.next + 1) % RECENT_COPIES;
    }
}

/// Blocks `Batch::uses_taken` remembers (twice `RECENT_COPIES`); a driver choice.
pub(crate) const USES_TAKEN: usize = 2 * RECENT_COPIES;

/// Largest parameter memory one render gets by default; a batch that would need more is split.
pub const DEFAULT_PB_BUDGET_B: u64 = 16 << 20;

/// Resource bytes a batch may hold before it is submitted. A batch keeps every buffer its
/// draws read; an app that draws with a new texture each time and deletes it (piglit's
/// streaming-texture-leak: 5000 textures of 4 MiB, no flush) would otherwise exhaust the GPU
/// address space before the frame ends. Below the model's buffer pool (winsys sim backing.rs),
/// so that one batch's freed buffers serve the next. A driver policy, not a hardware limit.
pub const HELD_BUDGET_B: u64 = 64 << 20;

impl Batch {
    /// Makes the draws from here on use the DrawState block at `va` (a STATE object in the
    /// stream unless they use it already).
    pub fn use_block(&mut self, va: u32) -> crate::error::Result<()> {
        if self.state_va != Some(va) {
            self.state_va = Some(va);
            self.stream.extend(
                ta_stream::CtrlState {
                    state_addr: va,
                    ..Default::default()
                }
                .pack()?,
            );
        }
        Ok(())
    }

    pub fn new(fb: &FramebufferState) -> Batch {
        let w_tl = fb.width.div_ceil(TILE_PX).max(1);
        let h_tl = fb.height.div_ceil(TILE_PX).max(1);
        let mut b = Batch {
            serial: BATCHES.fetch_add(1, Ordering::Relaxed) + 1,
            fb: fb.clone(),
            w_tl,
            h_tl,
            arena: Arena::default(),
            stream: Vec::new(),
            bos: Vec::new(),
            bo_ids: IdSet::default(),
            touched: vec![false; (w_tl * h_tl) as usize],
            last_touch: (0, 0, 0, 0),
            colour_cleared: false,
            colour_invalidated: false,
            clear_colour: [0.0; 4],
            depth_cleared: false,
            keep_stencil: false,
            keep_depth: false,
            clear_depth: 1.0,
            clear_stencil: 0,
            draws: 0,
            pb_need_B: 0,
            state_va: None,
            table_va: [None; 4],
            recent: Default::default(),
            uses_va: None,
            uses_taken: [None; USES_TAKEN],
            uses_taken_next: 0,
            index_bo: None,
            query_slots: Vec::new(),
            reads: IdSet::default(),
            writes: IdSet::default(),
            held_B: 0,
            user_uploads: Vec::new(),
        };
        for c in fb.cbuf.iter().chain(&fb.extra_cbufs) {
            b.writes.insert(c.resource.id());
        }
        if let Some(z) = &fb.zsbuf {
            b.writes.insert(z.resource.id());
        }
        b
    }

    /// Marks the tiles a pixel rectangle [x0, x1) x [y0, y1) covers.
    pub fn touch(&mut self, x0: u32, y0: u32, x1: u32, y1: u32) {
        // Draws in a row mostly share one viewport: its tiles are marked already.
        if x1 <= x0 || y1 <= y0 || self.last_touch == (x0, y0, x1, y1) {
            return;
        }
        self.last_touch = (x0, y0, x1, y1);
        let (tx0, ty0) = (x0 / TILE_PX, y0 / TILE_PX);
        let tx1 = x1.div_ceil(TILE_PX).min(self.w_tl);
        let ty1 = y1.div_ceil(TILE_PX).min(self.h_tl);
        for ty in ty0..ty1 {
            let row = (ty * self.w_tl) as usize;
            self.touched[row + tx0 as usize..row + tx1 as usize].fill(true);
        }
    }

    /// Lists a buffer the render reads (and its resource's id), once: a job's buffer list
    /// grows with the distinct buffers, not with the draws.
    pub fn read_bo(&mut self, bo: &Bo, res: Option<u64>) {
        if let Some(id) = res {
            if self.reads.insert(id) {
                self.held_B += bo.size_B();
            }
        }
        if self.bo_ids.insert(bo.id()) {
            self.bos.push((bo.clone(), Access::Read));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.draws == 0 && !self.colour_cleared && !self.depth_cleared
    }

    /// Whether the batch reads or writes the resource (`write`: only if it writes).
    pub fn uses(&self, id: u64, write_only: bool) -> bool {
        self.writes.contains(&id) || (!write_only && self.reads.contains(&id))
    }

    /// Parameter memory for the tile headers plus what draws added.
    pub fn pb_size_B(&self) -> u64 {
        let tiles = u64::from(self.w_tl * self.h_tl);
        (self.pb_need_B + tiles * limits::PB_TILE_HEADER_B + limits::PAGE_B)
            .div_ceil(limits::PAGE_B)
            * limits::PAGE_B
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
        QUADS => c / 4,
        QUAD_STRIP => c.saturating_sub(2) / 2,
        POLYGON => u64::from(c >= 3),
    }
}
