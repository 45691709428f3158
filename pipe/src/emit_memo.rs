//! The emit memo (fast path): a draw that changed only its vertex layout and vertex buffers
//! (drawoverhead's intermixed layouts: bind the vertex elements, set the buffers, draw) finds
//! the DrawState block an earlier draw of the same batch wrote for the same layout and
//! buffers, and points at it without repacking the attribute table and program words or
//! searching the batch's recent copies (`EmitCache::upload`: about a fifth of that test's
//! app thread).
//!
//! An entry is keyed by the vertex elements (the same `Arc`, which the entry holds, so its
//! address is not reused) and, per element, what the attribute table is packed from: the
//! buffer's resource id, offset and stride, and for a zero-stride element its words (which
//! `const_attr` copies by value). It is valid while every other input of the block is what
//! it was when the entry was made: the memo is emptied by a pass that packs any other group
//! (or a new program or query slot), by a new batch (its addresses are the batch's) and by a
//! storage move (a resource's buffer, and so its address, changed). User buffers are not
//! memoized (each is a new upload). `Context::set_emit_memo(false)` packs every time: the
//! reference, compared in `pipe/tests/const_attr.rs`.

use std::sync::Arc;

use sgx_hwdocs::render;

use crate::const_attr::element_words;
use crate::context::Context;
use crate::dirty::Dirty;
use crate::draw_state::{Use, TABLE_ATTRS};
use crate::error::Result;
use crate::state::{BufferSource, VertexElement};

/// The dirty groups a memo hit may stand in for.
pub(crate) const MEMO_DIRTY: Dirty = Dirty::VERTEX_ELEMENTS.union(Dirty::VBUF);

/// Entries kept (the layouts a batch alternates between); a driver choice, not hardware.
const MEMO_ENTRIES: usize = 4;

const PROGRAM_DW: usize = render::ProgramState::DWORDS;

/// What one vertex element's attribute is packed from.
#[derive(Clone, Copy, PartialEq, Eq)]
struct AttrSrc {
    res_id: u64,
    stride_B: u32,
    /// The buffer's offset; 0 when the stride is 0 (the element is copied by value).
    offset_B: u32,
    /// The element's words when the stride is 0 (zeros past its size), else zeros.
    elem: [u32; 4],
}

struct Entry {
    velems: Arc<Vec<VertexElement>>,
    srcs: Vec<AttrSrc>,
    block_va: u32,
    attr_va: u32,
    attrs: Vec<u32>,
    program: [u32; PROGRAM_DW],
    uses: Arc<[Use]>,
    consts: Vec<u64>,
}

/// The blocks of one batch by vertex layout and buffers (see the module's comment).
#[derive(Default)]
pub(crate) struct EmitMemo {
    /// Off: every draw packs (the reference).
    pub disabled: bool,
    /// `Batch::serial` and `storage_moves()` the entries are valid for.
    batch: u64,
    moves: u64,
    entries: Vec<Entry>,
    next: usize,
    /// The sources of the draw being emitted, when `Context::memo_sources` found them.
    srcs: Vec<AttrSrc>,
}

impl EmitMemo {
    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.next = 0;
    }

    /// Forgets the entries unless they belong to this batch and no storage moved since.
    pub fn sync(&mut self, batch: u64, moves: u64) {
        if self.batch != batch || self.moves != moves {
            self.clear();
            self.batch = batch;
            self.moves = moves;
        }
    }
}

impl Context {
    /// Fills the memo's sources for the bound vertex elements and buffers; false when the
    /// draw cannot be memoized (a user buffer, an unbound slot, no elements).
    pub(crate) fn memo_sources(&mut self) -> Result<bool> {
        let Context {
            velems,
            vbufs,
            emit,
            ..
        } = self;
        let srcs = &mut emit.memo.srcs;
        srcs.clear();
        let Some(velems) = velems.as_deref().filter(|v| !v.is_empty()) else {
            return Ok(false);
        };
        for e in velems {
            let Some(vb) = vbufs
                .get(e.vertex_buffer_index as usize)
                .and_then(Option::as_ref)
            else {
                return Ok(false);
            };
            let BufferSource::Resource(r) = &vb.buffer else {
                return Ok(false);
            };
            let mut src = AttrSrc {
                res_id: r.id(),
                offset_B: vb.buffer_offset,
                stride_B: vb.stride,
                elem: [0; 4],
            };
            if vb.stride == 0 {
                // Copied by value (const_attr): where it was read does not matter (st/mesa
                // uploads current values at a fresh offset before each such draw).
                let (_, _, elem_B) = e.src_format.hw();
                let at_B = vb.buffer_offset.wrapping_add(e.src_offset);
                // Borrowed under the storage lock: a clone is two more count changes.
                match element_words(&r.storage().bo, at_B, elem_B)? {
                    Some(w) => src.elem = w,
                    None => return Ok(false),
                }
                src.offset_B = 0;
            }
            srcs.push(src);
        }
        Ok(true)
    }

    /// Points the batch at the block an entry matching the memo's sources has, restoring
    /// the emit cache's attribute table and program words; false when none matches.
    pub(crate) fn memo_hit(&mut self) -> Result<bool> {
        let Context {
            velems,
            emit,
            batch,
            ..
        } = self;
        let velems = velems.as_ref().expect("memo_sources found them");
        let m = &emit.memo;
        let Some(e) = m
            .entries
            .iter()
            .find(|e| Arc::ptr_eq(&e.velems, velems) && e.srcs == m.srcs)
        else {
            return Ok(false);
        };
        emit.attrs.clear();
        emit.attrs.extend_from_slice(&e.attrs);
        emit.attr_uses = e.uses.clone();
        emit.const_srcs.clear();
        emit.const_srcs.extend_from_slice(&e.consts);
        let at = render::DRAW_STATE_PROGRAM_DW as usize;
        emit.block[at..at + PROGRAM_DW].copy_from_slice(&e.program);
        let b = batch.as_mut().expect("batch exists");
        b.table_va[TABLE_ATTRS] = Some(e.attr_va);
        let block_va = e.block_va;
        b.use_block(block_va)?;
        Ok(true)
    }

    /// Remembers the block the full pass just made for the memo's sources.
    pub(crate) fn memo_record(&mut self) {
        let Context {
            velems,
            emit,
            batch,
            ..
        } = self;
        let (Some(velems), Some(b)) = (velems.as_ref(), batch.as_ref()) else {
            return;
        };
        let (Some(block_va), Some(attr_va)) = (b.state_va, b.table_va[TABLE_ATTRS]) else {
            return;
        };
        if emit.changed {
            return;
        }
        let at = render::DRAW_STATE_PROGRAM_DW as usize;
        let mut program = [0u32; PROGRAM_DW];
        program.copy_from_slice(&emit.block[at..at + PROGRAM_DW]);
        let entry = Entry {
            velems: velems.clone(),
            srcs: emit.memo.srcs.clone(),
            block_va,
            attr_va,
            attrs: emit.attrs.clone(),
            program,
            uses: emit.attr_uses.clone(),
            consts: emit.const_srcs.clone(),
        };
        let EmitMemo {
            entries,
            next,
            srcs,
            ..
        } = &mut emit.memo;
        if let Some(old) = entries
            .iter_mut()
            .find(|e| Arc::ptr_eq(&e.velems, velems) && e.srcs == *srcs)
        {
            *old = entry;
        } else if entries.len() < MEMO_ENTRIES {
            entries.push(entry);
        } else {
            entries[*next] = entry;
            *next = (*next + 1) % MEMO_ENTRIES;
        }
    }

    /// Turns the emit memo on (the default) or off (every draw packs its state: the
    /// reference the memo is tested against). Off with `set_state_reuse(false)` too.
    #[doc(hidden)]
    pub fn set_emit_memo(&mut self, on: bool) {
        self.emit.memo.disabled = !on;
        self.emit.memo.clear();
    }

    /// The address of the DrawState block the batch's draws use now (tests compare the
    /// blocks a fast path points at with the reference's).
    #[doc(hidden)]
    pub fn state_block_va(&self) -> Option<u32> {
        self.batch.as_ref().and_then(|b| b.state_va)
    }
}
