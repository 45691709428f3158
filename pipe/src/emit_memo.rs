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

use sgx_winsys::{Bo, WinsysError};

use crate::batch::Batch;
use crate::dirty::Dirty;
use crate::draw_state::{EmitCache, Use, TABLE_ATTRS};
use crate::error::Result;
use crate::state::{BufferSource, VertexBuffer, VertexElement};

/// The dirty groups a memo hit may stand in for.
pub(crate) const MEMO_DIRTY: Dirty = Dirty::VERTEX_ELEMENTS.union(Dirty::VBUF);

/// Entries kept (the layouts a batch alternates between); a driver choice, not hardware.
const MEMO_ENTRIES: usize = 4;

const PROGRAM_DW: usize = render::ProgramState::DWORDS;

/// Largest zero-stride element copied (four 32-bit components); smaller elements of whole
/// dwords are copied too.
pub(crate) const MAX_ELEM_B: u32 = 16;

/// The words of the `elem_B` bytes at `offset_B` of `bo` (zeros past them); None when the
/// element is not whole dwords or lies outside the buffer.
pub(crate) fn element_words(bo: &Bo, offset_B: u32, elem_B: u32) -> Result<Option<[u32; 4]>> {
    if elem_B == 0 || elem_B > MAX_ELEM_B || !elem_B.is_multiple_of(4) {
        return Ok(None);
    }
    let mut bytes = [0u8; MAX_ELEM_B as usize];
    let bytes = &mut bytes[..elem_B as usize];
    // Unsynchronized: no job writes a buffer resource (see const_attr.rs). An element past
    // the buffer's end is not copied by value.
    match bo.read_unsynchronized(u64::from(offset_B), bytes) {
        Err(WinsysError::InvalidArgument(_)) => return Ok(None),
        r => r?,
    }
    let mut words = [0u32; (MAX_ELEM_B / 4) as usize];
    for (w, c) in words.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Ok(Some(words))
}

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

impl EmitMemo {
    /// Fills the sources for the bound vertex elements and buffers; false when the draw
    /// cannot be memoized (a user buffer, an unbound slot, no elements).
    pub fn fill_sources(
        &mut self,
        velems: Option<&[VertexElement]>,
        vbufs: &[Option<VertexBuffer>],
    ) -> Result<bool> {
        let srcs = &mut self.srcs;
        srcs.clear();
        let Some(velems) = velems.filter(|v| !v.is_empty()) else {
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
                let elem_B = e.src_format.size_B();
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

    /// Points `b` at the block an entry matching the sources has, restoring the emit
    /// cache's attribute table and program words; false when none matches.
    pub fn hit(
        &self,
        velems: &Arc<Vec<VertexElement>>,
        emit: &mut EmitCache,
        b: &mut Batch,
    ) -> Result<bool> {
        let Some(e) = self
            .entries
            .iter()
            .find(|e| Arc::ptr_eq(&e.velems, velems) && e.srcs == self.srcs)
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
        b.table_va[TABLE_ATTRS] = Some(e.attr_va);
        b.use_block(e.block_va)?;
        Ok(true)
    }

    /// Remembers the block the full pass just made in `b` for the sources.
    pub fn record(&mut self, velems: &Arc<Vec<VertexElement>>, emit: &EmitCache, b: &Batch) {
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
            srcs: self.srcs.clone(),
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
        } = self;
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
}
