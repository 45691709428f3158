//! Shaded vertices remembered across the PRIMs of a job (the fast path): a draw repeated with
//! no state change (drawoverhead's DrawArrays and DrawElements, an object drawn twice) makes
//! the TA shade the same vertices of the same DrawState block again. Nothing writes memory
//! while the TA walks the stream (parameter memory is written after it; the same premise as
//! `ta::Decoded`), so within a job a vertex's attributes, the block's program and its
//! constants read the same at the second PRIM as at the first: shading again gives the same
//! clip-space vertices, and a fetch that did not fault the first time does not fault now.
//!
//! What the reference path would also change is the machine: after a run, output registers
//! below the program's `outs_used` hold the last vertex's final values (the program resets
//! them at every run, so they do not depend on what ran before), and a later program that
//! leaves such an output unwritten reads it. A hit restores those (`Machine::resume_vertex`)
//! and counts the instructions the run would have executed. A program whose clip-space
//! vertex reads an output at or past `outs_used` (one it never writes: the bank's old
//! contents) is not remembered: its vertices depend on what ran before.
//!
//! Entries are whole `shade4` groups (up to four vertices, in the order the TA met them),
//! keyed by the block's address and the vertex indices: a PRIM drawn again meets its
//! vertices in the same order, so its groups come again. A small direct-mapped table: a miss
//! costs one lookup and, after shading, one copy into it.

use super::slots::Slots;
use super::{CVert, Draw};
use crate::usse::OutBank;

/// Groups remembered per job: enough for the few draws a state change alternates between.
/// A model choice for speed (a power of two, as `Slots` needs), not a hardware fact.
const SLOTS: usize = 64;

struct Entry {
    state_addr: u32,
    ids: [u32; 4],
    n: u8,
    verts: [CVert; 4],
    /// The machine's instance-0 output bank after the group's run.
    fin: OutBank,
}

/// The table (empty until a group is stored: a job with no batched program allocates none).
#[derive(Default)]
pub(super) struct VertexMemo {
    slots: Slots<Entry, SLOTS>,
}

#[cfg(test)]
thread_local! {
    /// Groups taken from the table on this thread (tests check the fast path is taken).
    static HITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
pub(super) fn count_hit() {
    HITS.with(|h| h.set(h.get() + 1));
}

/// Groups the TA took from the table on this thread so far.
#[cfg(test)]
pub(crate) fn hits() -> u64 {
    HITS.with(|h| h.get())
}

/// Whether `d`'s clip-space vertices depend only on the vertex (see the module's text).
pub(super) fn memoizable(d: &Draw) -> bool {
    let used = d.vs.outs_used;
    let pso = d.ds.raster.point_size_output as usize;
    let efo = d.ds.poly.edge_flag_output as usize;
    d.batch && used > d.nvar && pso < used && efo < used
}

/// The table key of the group `ids` of the block at `state_addr`.
fn key(state_addr: u32, ids: &[u32]) -> u32 {
    state_addr ^ ids[0].rotate_left(16) ^ (ids.len() as u32).rotate_left(8)
}

impl VertexMemo {
    /// The remembered group of `ids` of the block at `state_addr`: its vertices and the
    /// machine's bank after it.
    pub(super) fn get(&self, state_addr: u32, ids: &[u32]) -> Option<(&[CVert], &OutBank)> {
        let e = self.slots.get(key(state_addr, ids))?;
        let n = usize::from(e.n);
        (e.state_addr == state_addr && n == ids.len() && e.ids[..n] == *ids)
            .then(|| (&e.verts[..n], &e.fin))
    }

    /// Remembers a group just shaded (replacing what shared its slot).
    pub(super) fn put(&mut self, state_addr: u32, ids: &[u32], verts: &[CVert], fin: &OutBank) {
        debug_assert!(ids.len() == verts.len() && (1..=4).contains(&ids.len()));
        let mut e = Entry {
            state_addr,
            ids: [0; 4],
            n: ids.len() as u8,
            verts: [verts[0]; 4],
            fin: *fin,
        };
        e.ids[..ids.len()].copy_from_slice(ids);
        e.verts[..verts.len()].copy_from_slice(verts);
        self.slots.put(key(state_addr, ids), e);
    }
}
