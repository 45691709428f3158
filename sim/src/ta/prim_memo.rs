//! Whole PRIMs remembered within a job (the fast path): a display list or a draw repeated
//! with no state change (drawoverhead's glCallList tests) sends the TA the same PRIM object
//! for the same DrawState block again and again. Nothing writes memory while the TA walks
//! the stream (the premise of `ta::Decoded` and `memo.rs`), so the same PRIM words (topology,
//! index type, count, index address, base vertex) under the same block fetch the same
//! vertices, shade them to the same clip-space vertices and set up the same triangles: the
//! second time, the TA appends the triangles the first one binned (each with its vertices
//! and covered pixels, numbered anew by `Binner::add_in` as they come), adds what the first
//! one added to the counters (the vertex program's instructions) and leaves the machine's outputs as its last
//! vertex did, without fetching, shading, clipping or setting anything up.
//!
//! Only PRIMs whose effects are exactly those are remembered: triangle topologies (not
//! points or lines, whose stipple counter carries from PRIM to PRIM) of a block whose
//! polygons are filled plainly (`poly::plain`) and whose vertex groups `memo.rs` would
//! remember (`memo::memoizable`: shaded in fours, clip-space vertices that depend on the
//! vertex alone), at most `MAX_VERTICES` indices and `MAX_RECORDS` triangles, that did not
//! fail. Everything they bin goes through `Binner::add_in`, which logs it.

use sgx_hwdocs::ta_stream::{CtrlPrim, Topology};

use super::binner::Logged;
use super::slots::Slots;
use super::{memo, poly, Draw, JobErr, Ta};
use crate::usse::OutBank;
use crate::Counters;

/// Largest PRIM remembered, in indices. A model choice for speed, not a hardware fact.
const MAX_VERTICES: u32 = 64;
/// Most triangles a remembered PRIM may bin. A model choice for speed.
const MAX_RECORDS: usize = 32;
/// PRIMs remembered per job (a power of two, as `Slots` needs). A model choice for speed.
const SLOTS: usize = 16;

struct Entry {
    state_addr: u32,
    words: [u32; 4],
    /// What processing the PRIM added to each counter (`Counters::to_array`).
    counted: [u64; 9],
    /// The machine's instance-0 output bank after the PRIM's last vertex (None: no vertex).
    fin: Option<OutBank>,
    records: Vec<Logged>,
}

/// The table (empty until a PRIM is stored).
#[derive(Default)]
pub(super) struct PrimMemo {
    slots: Slots<Entry, SLOTS>,
}

#[cfg(test)]
thread_local! {
    /// PRIMs taken from the table on this thread (tests check the fast path is taken).
    static HITS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
thread_local! {
    /// Off: the TA on this thread remembers no PRIM (tests of `memo.rs`, whose groups the
    /// PRIM memo would take over).
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Turns the PRIM memo off or on for the TA on this thread.
#[cfg(test)]
pub(crate) fn set_off(off: bool) {
    OFF.with(|o| o.set(off));
}

/// PRIMs the TA took from the table on this thread so far.
#[cfg(test)]
pub(crate) fn hits() -> u64 {
    HITS.with(|h| h.get())
}

/// Whether the PRIM `p` of draw `d` may be remembered (see the module's text).
fn rememberable(d: &Draw, p: &CtrlPrim) -> bool {
    let triangles = !matches!(
        p.topology,
        Topology::POINTS | Topology::LINES | Topology::LINE_STRIP | Topology::LINE_LOOP
    );
    #[cfg(test)]
    if OFF.with(|o| o.get()) {
        return false;
    }
    triangles && p.count <= MAX_VERTICES && poly::plain(&d.ds.poly) && memo::memoizable(d)
}

/// The table key of the PRIM `words` under the block at `state_addr`.
fn key(state_addr: u32, words: &[u32; 4]) -> u32 {
    state_addr ^ words[2].rotate_left(7) ^ words[1].rotate_left(19) ^ words[3]
}

impl Ta<'_> {
    /// Processes the PRIM `p` (its stream words `words`) of draw `d`: from the table when it
    /// was processed before in this job, else as `prim` does, remembering it when it may.
    pub(super) fn prim_remembered(
        &mut self,
        d: &Draw,
        p: &CtrlPrim,
        words: &[u32; 4],
    ) -> Result<(), JobErr> {
        if !(self.fast && rememberable(d, p)) {
            return self.prim(d, p);
        }
        let k = key(d.state_addr, words);
        let hit = self.prim_memo.slots.get(k);
        if let Some(e) = hit.filter(|e| e.state_addr == d.state_addr && e.words == *words) {
            let now = self.c.to_array();
            *self.c = Counters::from_array(std::array::from_fn(|k| now[k] + e.counted[k]));
            if let Some(fin) = &e.fin {
                self.machine.resume_vertex(&d.vs, fin);
            }
            #[cfg(test)]
            HITS.with(|h| h.set(h.get() + 1));
            for r in &e.records {
                self.bin
                    .add_in(d, r.kind, r.back, [&r.v[0], &r.v[1], &r.v[2]], r.rect)?;
            }
            return Ok(());
        }
        let before = self.c.to_array();
        self.bin.start_log();
        let r = self.prim(d, p);
        let records = self.bin.take_log();
        r?;
        let Some(records) = records.filter(|l| l.len() <= MAX_RECORDS) else {
            return Ok(());
        };
        self.prim_memo.slots.put(
            k,
            Entry {
                state_addr: d.state_addr,
                words: *words,
                counted: {
                    let now = self.c.to_array();
                    std::array::from_fn(|k| now[k] - before[k])
                },
                fin: (p.count > 0).then(|| self.machine.out_bank0()),
                records,
            },
        );
        Ok(())
    }
}
