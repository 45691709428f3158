//! Straight-line pixel programs on a quad (decode's `straight`: no flow but the final END or
//! RET, no KILL, no EMITDEPTH): each instruction runs once for the four instances, operands
//! read and results written for the quad at once. Equal to the scheduling interpreter in
//! `exec.rs`, which the reference paths take (whole renders in `crate::fastpaths` compare).

// Instance index `i` addresses several parallel per-instance arrays at once.
#![allow(clippy::needless_range_loop)]

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

use super::super::decode::{Dst, Instr, Program, Src, SrcReg};
use super::super::{Lod, Textures, UsseError};
use super::{alu, b, fdiff, ftz, ldc, Machine};

impl Machine {
    /// `exec` of a straight-line pixel program on a quad: all four instances sit at the same
    /// pc throughout, so each instruction runs once for all of them without scheduling; the
    /// watchdog cannot fire (len <= its limit) and the final END or RET only stops them.
    /// EMITPIX lands in `colour`. Returns the instructions executed.
    pub(super) fn exec_straight(
        &mut self,
        p: &Program,
        colour: &mut [[u32; 4]; 4],
        pa: &[[[u32; 4]; 16]],
        sa: &[[u32; 4]],
        tex: &mut dyn Textures,
    ) -> Result<u64, UsseError> {
        self.reset(p, 4, p.temps_read_first);
        // The final END or RET only stops the instances (decode's `straight` guarantees it is
        // there), and an unpredicated EMITPIX of a whole temporary is a plain copy: neither
        // needs `step4`'s call and dispatch.
        let body = p.ins.split_last().map_or(&[][..], |(_, body)| body);
        for ins in body {
            if let (Opcode::EMITPIX, Pred::ALWAYS, SrcReg::Temp(n), [0, 1, 2, 3], SrcMod::NONE) =
                (ins.op, ins.pred, ins.s0.reg, ins.s0.swz, ins.s0.modi)
            {
                *colour = self.temps[usize::from(n)];
                continue;
            }
            self.step4(p, ins, colour, pa, sa, tex)?;
        }
        Ok(4 * p.ins.len() as u64)
    }

    /// `step` with all four instances of a straight program executing: operands read and
    /// results written for the quad at once (one dispatch on register kinds per instruction,
    /// not per instance). Equal to `step`: an instance's results land only in its own
    /// registers, and FDDX/FDDY and TEX read every instance's source before any write, as
    /// `step` does.
    pub(super) fn step4(
        &mut self,
        p: &Program,
        ins: &Instr,
        colour: &mut [[u32; 4]; 4],
        pa: &[[[u32; 4]; 16]],
        sa: &[[u32; 4]],
        tex: &mut dyn Textures,
    ) -> Result<(), UsseError> {
        match ins.op {
            Opcode::TEX | Opcode::TEXB | Opcode::TEXL | Opcode::TEXD => {
                let c: [[f32; 4]; 4] = bytemuck::cast(self.read4(&ins.s0, pa, sa));
                let mut lod = [Lod::Explicit(0.0); 4];
                if tex.needs_lod(u32::from(ins.sampler)) {
                    for (i, l) in lod.iter_mut().enumerate() {
                        *l = self.lod_of(ins, p.stage, &c, i);
                    }
                }
                if let (Dst::Temp(n), Pred::ALWAYS, 0b1111, false) =
                    (ins.dst, ins.pred, ins.mask, ins.sat)
                {
                    // A plain write of the whole temporary: sample straight into it (all four
                    // pixels execute, so a success writes every one; after a fault the run
                    // ends and the next run resets what it reads).
                    let dst: &mut [[f32; 4]; 4] =
                        bytemuck::cast_mut(&mut self.temps[usize::from(n)]);
                    return tex
                        .sample_quad(u32::from(ins.sampler), &c, &lod, [true; 4], dst)
                        .map_err(UsseError::Fault);
                }
                let mut r = [[0f32; 4]; 4];
                tex.sample_quad(u32::from(ins.sampler), &c, &lod, [true; 4], &mut r)
                    .map_err(UsseError::Fault)?;
                let mut v = [[0u32; 4]; 4];
                for i in 0..4 {
                    for l in 0..4 {
                        v[i][l] = b(r[i][l]);
                    }
                }
                self.write4(ins, v);
            }
            Opcode::EMITPIX if ins.pred == Pred::ALWAYS => *colour = self.read4(&ins.s0, pa, sa),
            Opcode::EMITPIX => {
                let a = self.read4(&ins.s0, pa, sa);
                for i in 0..4 {
                    let pl = self.pred_lanes(ins.pred, i);
                    for l in 0..4 {
                        if pl[l] {
                            colour[i][l] = a[i][l];
                        }
                    }
                }
            }
            Opcode::LIMM => self.write4(ins, [[ins.imm; 4]; 4]),
            Opcode::FDDX | Opcode::FDDY => {
                let a = self.read4(&ins.s0, pa, sa);
                let bit = if ins.op == Opcode::FDDX { 1 } else { 2 };
                let mut v = [[0u32; 4]; 4];
                for i in 0..4 {
                    v[i] = fdiff(a[i | bit], a[i & !bit]);
                }
                self.write4(ins, v);
            }
            // The program's final END or RET (decode's `straight` admits no other flow).
            op if op.format() == InstrFormat::FLOW => {}
            op => {
                let a = self.read4(&ins.s0, pa, sa);
                let c = self.read4(&ins.s1, pa, sa);
                let mut d = [[0; 4]; 4];
                if op == Opcode::FMAD {
                    for (i, di) in d.iter_mut().enumerate() {
                        *di = self.dst_value(ins.dst, i);
                    }
                }
                let mut r = [[0; 4]; 4];
                // The commonest operations with the opcode dispatched once for the quad's 16
                // lanes (each lane as `alu` computes it), the others instance by instance.
                match op {
                    Opcode::FMUL | Opcode::FADD | Opcode::FMAD => {
                        for i in 0..4 {
                            for l in 0..4 {
                                let x = f32::from_bits(ftz(a[i][l]));
                                let y = f32::from_bits(ftz(c[i][l]));
                                r[i][l] = ftz(match op {
                                    Opcode::FMUL => (x * y).to_bits(),
                                    Opcode::FADD => (x + y).to_bits(),
                                    _ => (x * y + f32::from_bits(ftz(d[i][l]))).to_bits(),
                                });
                            }
                        }
                    }
                    Opcode::LDC => {
                        for i in 0..4 {
                            r[i] = ldc(a[i], sa);
                        }
                    }
                    _ => {
                        for i in 0..4 {
                            r[i] = alu(op, a[i], c[i], d[i]);
                        }
                    }
                }
                self.write4(ins, r);
            }
        }
        Ok(())
    }

    /// `read` for the four instances of a quad.
    #[inline(always)]
    fn read4(&self, s: &Src, pa: &[[[u32; 4]; 16]], sa: &[[u32; 4]]) -> [[u32; 4]; 4] {
        let r: [[u32; 4]; 4] = match s.reg {
            SrcReg::Temp(n) => self.temps[usize::from(n)],
            SrcReg::Primary(n) => {
                let n = usize::from(n);
                [pa[0][n], pa[1][n], pa[2][n], pa[3][n]]
            }
            SrcReg::Output(n) => self.outs[usize::from(n)],
            SrcReg::Imm(bits) => [[bits; 4]; 4],
            // A plain secondary is the same vec4 for every instance (`read`'s lookup, once).
            SrcReg::Secondary(n) => [sa.get(usize::from(n)).copied().unwrap_or([0; 4]); 4],
            SrcReg::SecIndexed(_) => {
                let mut r = [[0; 4]; 4];
                for (i, ri) in r.iter_mut().enumerate() {
                    let raw = Src {
                        swz: [0, 1, 2, 3],
                        modi: SrcMod::NONE,
                        ..*s
                    };
                    *ri = self.read(&raw, i, pa, sa);
                }
                r
            }
        };
        let w = s.swz;
        if w == [0, 1, 2, 3] && s.modi == SrcMod::NONE {
            return r;
        }
        let (and, or, xor) = match s.modi {
            SrcMod::NONE => (u32::MAX, 0, 0),
            SrcMod::NEG => (u32::MAX, 0, 0x8000_0000),
            SrcMod::ABS => (0x7fff_ffff, 0, 0),
            SrcMod::NEG_ABS => (u32::MAX, 0x8000_0000, 0),
        };
        let mut v = [[0; 4]; 4];
        for i in 0..4 {
            for l in 0..4 {
                v[i][l] = ((r[i][usize::from(w[l] & 3)] & and) | or) ^ xor;
            }
        }
        v
    }

    /// `write` for the four instances of a quad.
    #[inline(always)]
    fn write4(&mut self, ins: &Instr, v: [[u32; 4]; 4]) {
        if let (Dst::Temp(n), Pred::ALWAYS, 0b1111, false) = (ins.dst, ins.pred, ins.mask, ins.sat)
        {
            self.temps[usize::from(n)] = v;
            return;
        }
        for (i, vi) in v.into_iter().enumerate() {
            self.write(ins, i, vi);
        }
    }
}
