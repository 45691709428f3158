//! Zero-stride vertex attributes (fast path): every vertex reads the same element, so the
//! attribute table may point at a copy of it in the batch's arena instead of into the buffer.
//! st/mesa uploads GL's current attribute values this way before every draw whose vertex
//! layout changed, each time at a fresh offset of its upload buffer: pointing into the buffer
//! made every such draw's attribute table, and so its DrawState block, new (drawoverhead's
//! intermixed layouts wrote a block per draw and the model's TA decoded and shaded each one
//! again). Copies are found again by their words (`Batch::recent`), so equal values give equal
//! tables and blocks. `Context::set_state_reuse(false)` points into the buffer: the reference.
//!
//! Sound because a buffer's bytes are written only by the CPU (`buffer_subdata`, transfer maps,
//! the CPU's `resource_copy_region`; no job writes a buffer resource), so the bytes read at
//! draw time are those a job would read, and a write through this context to a buffer whose
//! element was copied marks the attribute table dirty (`Context::note_buffer_write`), so later
//! draws copy it again.

use sgx_winsys::{Bo, Device};

use crate::batch::{Batch, RECENT_CONST_ATTR};
use crate::context::Context;
use crate::dirty::Dirty;
use crate::emit_memo::{element_words, MAX_ELEM_B};
use crate::error::Result;

/// The address of a copy, in `b`'s arena, of the `elem_B` bytes at `offset_B` of `bo`; None
/// (point into the buffer, as the reference does) when the element is not whole dwords or
/// lies outside the buffer.
pub(crate) fn const_attr(
    b: &mut Batch,
    dev: &dyn Device,
    bo: &Bo,
    offset_B: u32,
    elem_B: u32,
) -> Result<Option<u32>> {
    let Some(words) = element_words(bo, offset_B, elem_B)? else {
        return Ok(None);
    };
    let words = &words[..(elem_B / 4) as usize];
    let recent = &mut b.recent[RECENT_CONST_ATTR];
    if let Some(va) = recent.find(words) {
        return Ok(Some(va));
    }
    let va = b.arena.push_dwords(dev, words, MAX_ELEM_B as usize)?;
    b.recent[RECENT_CONST_ATTR].note(words, va);
    Ok(Some(va))
}

impl Context {
    /// Notes a CPU write to buffer `id` through this context: an attribute table holding a
    /// copy of one of its elements is packed again at the next draw.
    pub(crate) fn note_buffer_write(&mut self, id: u64) {
        if self.emit.const_srcs.contains(&id) {
            self.dirty |= Dirty::VBUF;
        }
    }
}
