//! Straight-line vertex programs on four vertices at once: the TA shades a PRIM's vertices
//! four to a run, each vertex one instance of the quad machine, so an instruction is decoded
//! and dispatched once per four vertices instead of once per vertex. Equal to `run_vertex`
//! vertex by vertex (registers, outputs and instruction counts; the reference paths take
//! `run_vertex`, and `crate::fastpaths` compares whole renders).

// Instance index `i` addresses several parallel per-instance arrays at once.
#![allow(clippy::needless_range_loop)]

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, MAX_EXECUTED_PER_INSTANCE};

use super::super::decode::Program;
use super::super::{NoTextures, Stage, UsseError};
use super::Machine;

/// An output bank: o0..o15, raw bits.
pub(crate) type OutBank = [[u32; 4]; 16];

/// Whether [`Machine::run_vertex4`] takes `p`: a vertex program with no flow but one
/// unpredicated EMITVTX and a final unpredicated END or RET, and nothing that reads another
/// instance or memory (no TEX, FDDX or FDDY). Such a program cannot fail at run time, so
/// running four vertices in lockstep reports what running them one by one would.
pub(crate) fn batches_vertices(p: &Program) -> bool {
    let Some((last, body)) = p.ins.split_last() else {
        return false;
    };
    let mut emits = 0;
    let body_ok = body.iter().all(|i| match i.op {
        Opcode::EMITVTX => {
            emits += 1;
            i.pred == Pred::ALWAYS
        }
        Opcode::NOP => true,
        Opcode::TEX | Opcode::TEXB | Opcode::TEXL | Opcode::TEXD => false,
        Opcode::FDDX | Opcode::FDDY | Opcode::EMITPIX | Opcode::EMITDEPTH => false,
        op => op.format() != InstrFormat::FLOW,
    });
    p.stage == Stage::Vertex
        && body_ok
        && emits == 1
        && matches!(last.op, Opcode::END | Opcode::RET)
        && last.pred == Pred::ALWAYS
        && p.ins.len() as u64 <= MAX_EXECUTED_PER_INSTANCE
}

impl Machine {
    /// Runs a program [`batches_vertices`] admits on vertices `0..n` (n in 1..=4) of `pa`,
    /// writing each one's output bank at EMITVTX to `out`; returns the instructions each
    /// vertex executed (`run_vertex` counts the same). Instances past `n` run on copies of
    /// vertex 0 and are discarded.
    ///
    /// Outputs a program never writes keep what the machine held, as in `run_vertex`: every
    /// instance starts from instance 0's bank, and instance 0 ends with vertex n-1's, as if
    /// the vertices had run one after another on instance 0.
    pub(crate) fn run_vertex4(
        &mut self,
        p: &Program,
        pa: &mut [[[u32; 4]; 16]; 4],
        n: usize,
        sa: &[[u32; 4]],
        out: &mut [OutBank; 4],
    ) -> Result<u64, UsseError> {
        debug_assert!(batches_vertices(p) && (1..=4).contains(&n));
        for i in n..4 {
            pa[i] = pa[0];
        }
        self.reset(p, 4, p.temps_read_first);
        for r in &mut self.outs {
            r[1] = r[0];
            r[2] = r[0];
            r[3] = r[0];
        }
        let body = p.ins.split_last().map_or(&[][..], |(_, body)| body);
        let mut colour = [[0u32; 4]; 4];
        for ins in body {
            if ins.op == Opcode::EMITVTX {
                for (i, o) in out.iter_mut().enumerate() {
                    for (k, r) in self.outs.iter().enumerate() {
                        o[k] = r[i];
                    }
                }
                continue;
            }
            // No TEX, EMITPIX or flow reaches step4 (batches_vertices): neither the texture
            // units nor the colours are used.
            self.step4(p, ins, &mut colour, &pa[..], sa, &mut NoTextures)?;
        }
        for r in &mut self.outs {
            r[0] = r[n - 1];
        }
        Ok(p.ins.len() as u64)
    }

    /// Instance 0's output bank: after [`Machine::run_vertex4`], the last vertex's final
    /// outputs (those below the program's `outs_used`; the rest are what the bank held).
    pub(crate) fn out_bank0(&self) -> OutBank {
        std::array::from_fn(|k| self.outs[k][0])
    }

    /// Leaves the machine as a run of `p` whose last vertex ended with bank `fin` would
    /// (`fin` from [`Machine::out_bank0`] after such a run): the outputs below `outs_used`,
    /// which every run of `p` resets, on instance 0. Instances 1..3 are not read by the next
    /// run (`run_vertex4` starts them from instance 0; `run_vertex` uses instance 0 only),
    /// nor are temporaries, predicates or the address register (reset or written first).
    pub(crate) fn resume_vertex(&mut self, p: &Program, fin: &OutBank) {
        for (r, f) in self.outs.iter_mut().zip(fin).take(p.outs_used) {
            r[0] = *f;
        }
    }
}
