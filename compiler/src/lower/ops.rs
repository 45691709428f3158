//! TGSI opcodes -> USSE model instructions.
//!
//! Multi-instruction expansions compute into a fresh temporary and end with a MOV to the
//! destination; the coalescing pass folds that MOV away when the destination is not read in
//! between, so aliasing between destination and sources never needs special cases here.

use sgx_hwdocs::usse::{Opcode, Pred, SrcMod};

use super::{imm_src, Lower};
use crate::error::Result;
use crate::ir::{compose_mod, Dst, MInst, Reg, RegFile, Src};
use crate::tgsi::{File, Instruction, ShaderStage};

/// Float opcodes applied lane by lane; `true` when TGSI replicates the result of `src.x`.
fn float_unary(op: &str) -> Option<(Opcode, bool)> {
    Some(match op {
        "FRC" => (Opcode::FFRC, false),
        "FLR" => (Opcode::FFLR, false),
        "CEIL" => (Opcode::FCEIL, false),
        "TRUNC" => (Opcode::FTRC, false),
        "ROUND" => (Opcode::FRND, false),
        "SSG" => (Opcode::FSGN, false),
        "DDX" => (Opcode::FDDX, false),
        "DDY" => (Opcode::FDDY, false),
        "RCP" => (Opcode::FRCP, true),
        "RSQ" => (Opcode::FRSQ, true),
        "EX2" => (Opcode::FEXP, true),
        "LG2" => (Opcode::FLOG, true),
        "SIN" => (Opcode::FSIN, true),
        "COS" => (Opcode::FCOS, true),
        _ => return None,
    })
}

/// Two-source float opcodes; `true` when the operands are swapped (SGT = SLT(b, a)).
fn float_binary(op: &str) -> Option<(Opcode, bool)> {
    Some(match op {
        "ADD" => (Opcode::FADD, false),
        "MUL" => (Opcode::FMUL, false),
        "MIN" => (Opcode::FMIN, false),
        "MAX" => (Opcode::FMAX, false),
        "DP2" => (Opcode::FDP2, false),
        "DP3" => (Opcode::FDP3, false),
        "DP4" => (Opcode::FDP4, false),
        "SLT" => (Opcode::FSLT, false),
        "SGE" => (Opcode::FSGE, false),
        "SEQ" => (Opcode::FSEQ, false),
        "SNE" => (Opcode::FSNE, false),
        "SGT" => (Opcode::FSLT, true),
        "SLE" => (Opcode::FSGE, true),
        // Float compares with integer (all-ones) booleans.
        "FSEQ" => (Opcode::FCEQ, false),
        "FSNE" => (Opcode::FCNE, false),
        "FSLT" => (Opcode::FCLT, false),
        "FSGE" => (Opcode::FCGE, false),
        _ => return None,
    })
}

fn int_binary(op: &str) -> Option<Opcode> {
    Some(match op {
        "AND" => Opcode::AND,
        "OR" => Opcode::OR,
        "XOR" => Opcode::XOR,
        "SHL" => Opcode::SHL,
        "ISHR" => Opcode::ISHR,
        "USHR" => Opcode::USHR,
        "UADD" => Opcode::IADD,
        "UMUL" => Opcode::IMUL,
        "IDIV" => Opcode::IDIV,
        "UDIV" => Opcode::UDIV,
        "UMOD" => Opcode::UMOD,
        "USEQ" => Opcode::ICEQ,
        "USNE" => Opcode::ICNE,
        "ISLT" => Opcode::ICLT,
        "ISGE" => Opcode::ICGE,
        "USLT" => Opcode::UCLT,
        "USGE" => Opcode::UCGE,
        "IMAX" => Opcode::IMAX,
        "IMIN" => Opcode::IMIN,
        "UMAX" => Opcode::UMAX,
        "UMIN" => Opcode::UMIN,
        _ => return None,
    })
}

/// One-source conversions and integer ops; `true` when the source is an integer.
fn unary_other(op: &str) -> Option<(Opcode, bool)> {
    Some(match op {
        "NOT" => (Opcode::NOT, true),
        "INEG" => (Opcode::INEG, true),
        "I2F" => (Opcode::I2F, true),
        "U2F" => (Opcode::U2F, true),
        "F2I" => (Opcode::F2I, false),
        "F2U" => (Opcode::F2U, false),
        _ => return None,
    })
}

const P0: Reg = Reg {
    file: RegFile::Predicate,
    num: 0,
};

impl Lower<'_> {
    pub(super) fn counts(&self, ins: &Instruction, ndst: usize, nsrc: usize) -> Result<()> {
        if ins.dst.len() != ndst || ins.src.len() != nsrc {
            return Err(self.semantic(format!(
                "{} takes {ndst} destination(s) and {nsrc} source(s), found {} and {}",
                ins.opcode,
                ins.dst.len(),
                ins.src.len()
            )));
        }
        Ok(())
    }

    fn no_sat(&self, ins: &Instruction) -> Result<()> {
        if ins.sat {
            return Err(self.unsupported(format!("{}_SAT", ins.opcode)));
        }
        Ok(())
    }

    /// `SHL x, IMM` whose count is a `FLT32` immediate: integers held in floats. Mesa 22.3's
    /// nir_opt_algebraic turns `i * 2` into `ishl i, 1` before nir_lower_int_to_float, which
    /// has no case for ishl, so a screen without native integers is sent
    /// `SHL TEMP[7].x, TEMP[0].xxxx, IMM[0].zzzz` with IMM[0].z = 1.0 (piglit
    /// `fs-function-inout-array-of-structs`). An integer shift by a float's bits means
    /// nothing (1.0 shifts by 0), so this is `x * 2^count`: the lanes' factors, as read
    /// through the source's swizzle and modifiers.
    fn float_held_shift(&self, ins: &Instruction) -> Option<[u32; 4]> {
        let s = ins.src.get(1)?;
        if s.reg.file != crate::tgsi::File::Imm || s.reg.indirect.is_some() {
            return None;
        }
        let imm = self.sh.imms.get(usize::try_from(s.reg.index).ok()?)?;
        if imm.ty != crate::tgsi::ImmType::Flt32 {
            return None;
        }
        Some(s.swz.map(|c| {
            let mut n = f32::from_bits(imm.bits[usize::from(c)]);
            if s.abs {
                n = n.abs();
            }
            if s.neg {
                n = -n;
            }
            n.exp2().to_bits()
        }))
    }

    /// Emits `op dst, a, b`, saturating through an extra FMUL when the opcode cannot.
    fn emit(&mut self, op: Opcode, dst: Dst, a: Src, b: Src, sat: bool) {
        let mut i = MInst::alu(op, dst, a, b);
        if sat && !i.allows_sat() {
            let t = self.scratch();
            i.dst.reg = t;
            self.push(i);
            self.finish(t, dst, true);
        } else {
            i.sat = sat;
            self.push(i);
        }
    }

    /// Moves the masked lanes of `t` to `dst` (saturating through FMUL by 1.0 when asked).
    fn finish(&mut self, t: Reg, dst: Dst, sat: bool) {
        if sat {
            let mut i = MInst::alu(Opcode::FMUL, dst, Src::of(t), imm_src(1));
            i.sat = true;
            self.push(i);
        } else {
            self.push(MInst::alu(Opcode::MOV, dst, Src::of(t), Src::of(t)));
        }
    }

    fn srcs(&mut self, ins: &Instruction, int: bool) -> Result<Vec<Src>> {
        ins.src.iter().map(|s| self.src(s, int)).collect()
    }

    /// Lowers one TGSI instruction.
    pub(super) fn instruction(&mut self, ins: &Instruction) -> Result<()> {
        let op = ins.opcode.as_str();
        let sat = ins.sat;
        if let Some((uop, scalar)) = float_unary(op) {
            self.counts(ins, 1, 1)?;
            let d = self.dst(&ins.dst[0])?;
            let mut a = self.src(&ins.src[0], false)?;
            if scalar {
                a = a.splat(0);
            }
            if matches!(uop, Opcode::FDDX | Opcode::FDDY) {
                self.info.derivatives = true;
            }
            self.emit(uop, d, a, a, sat);
            return Ok(());
        }
        if let Some((bop, swap)) = float_binary(op) {
            self.counts(ins, 1, 2)?;
            let d = self.dst(&ins.dst[0])?;
            let s = self.srcs(ins, false)?;
            let (a, b) = if swap { (s[1], s[0]) } else { (s[0], s[1]) };
            self.emit(bop, d, a, b, sat);
            return Ok(());
        }
        if op == "SHL" {
            if let Some(scale) = self.float_held_shift(ins) {
                self.counts(ins, 1, 2)?;
                self.no_sat(ins)?;
                let d = self.dst(&ins.dst[0])?;
                let a = self.src(&ins.src[0], false)?;
                let k = self.materialize(scale, [0, 1, 2, 3]);
                self.push(MInst::alu(Opcode::FMUL, d, a, k));
                return Ok(());
            }
        }
        if let Some(iop) = int_binary(op) {
            self.counts(ins, 1, 2)?;
            self.no_sat(ins)?;
            let d = self.dst(&ins.dst[0])?;
            let s = self.srcs(ins, true)?;
            self.push(MInst::alu(iop, d, s[0], s[1]));
            return Ok(());
        }
        if let Some((uop, int)) = unary_other(op) {
            self.counts(ins, 1, 1)?;
            self.no_sat(ins)?;
            let d = self.dst(&ins.dst[0])?;
            let a = self.src(&ins.src[0], int)?;
            self.push(MInst::alu(uop, d, a, a));
            return Ok(());
        }
        match op {
            "MOV" => {
                self.counts(ins, 1, 1)?;
                let d = self.dst(&ins.dst[0])?;
                let a = self.src(&ins.src[0], false)?;
                if sat {
                    self.emit(Opcode::FMUL, d, a, imm_src(1), true);
                } else {
                    self.push(MInst::alu(Opcode::MOV, d, a, a));
                }
            }
            "MAD" => {
                self.counts(ins, 1, 3)?;
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, false)?;
                let c = s[2];
                let in_place = c.reg == d.reg
                    && c.modi == SrcMod::NONE
                    && (0..4).all(|i| d.mask & (1 << i) == 0 || usize::from(c.swz[i]) == i);
                let mut i = MInst::alu(Opcode::FMAD, d, s[0], s[1]);
                i.sat = sat;
                if in_place {
                    self.push(i);
                } else if s[0].reg == d.reg || s[1].reg == d.reg {
                    // FMAD's addend is its destination, which a factor reads here: the
                    // product then the sum, rounded the same way as FMAD.
                    let t = self.scratch();
                    self.push(MInst::alu(
                        Opcode::FMUL,
                        Dst {
                            reg: t,
                            mask: d.mask,
                        },
                        s[0],
                        s[1],
                    ));
                    self.emit(Opcode::FADD, d, Src::of(t), c, sat);
                } else {
                    let t = self.scratch();
                    let td = Dst {
                        reg: t,
                        mask: d.mask,
                    };
                    self.push(MInst::alu(Opcode::MOV, td, c, c));
                    i.dst = td;
                    self.push(i);
                    self.finish(t, d, false);
                }
            }
            "DPH" => {
                self.counts(ins, 1, 2)?;
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, false)?;
                let t = self.scratch();
                self.push(MInst::alu(
                    Opcode::MOV,
                    Dst {
                        reg: t,
                        mask: 0b0111,
                    },
                    s[0],
                    s[0],
                ));
                self.push(MInst::alu(
                    Opcode::MOV,
                    Dst {
                        reg: t,
                        mask: 0b1000,
                    },
                    imm_src(1),
                    imm_src(1),
                ));
                self.emit(Opcode::FDP4, d, Src::of(t), s[1], sat);
            }
            "SQRT" => {
                self.counts(ins, 1, 1)?;
                let d = self.dst(&ins.dst[0])?;
                let a = self.src(&ins.src[0], false)?.splat(0);
                let t = self.scratch();
                // sqrt(x) as 1 / rsq(x): exact at 0 and infinity, two roundings elsewhere.
                self.push(MInst::alu(Opcode::FRSQ, Dst { reg: t, mask: 1 }, a, a));
                self.emit(Opcode::FRCP, d, Src::of(t).splat(0), Src::of(t), sat);
            }
            "POW" => {
                self.counts(ins, 1, 2)?;
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, false)?;
                let t = self.scratch();
                let tx = Dst { reg: t, mask: 1 };
                self.push(MInst::alu(Opcode::FLOG, tx, s[0].splat(0), s[0]));
                self.push(MInst::alu(Opcode::FMUL, tx, Src::of(t), s[1].splat(0)));
                // x^0 is 1 for every x (ARB_vertex_program's POW; fixed-function spot lights
                // raise 0 to a zero exponent), but log2(0) * 0 is NaN: a zero exponent
                // zeroes the product instead.
                let p = Dst { reg: P0, mask: 1 };
                self.push(MInst::alu(Opcode::FCEQ, p, s[1].splat(0), imm_src(0)));
                let mut z = MInst::alu(Opcode::MOV, tx, imm_src(0), imm_src(0));
                z.pred = Pred::P0;
                self.push(z);
                self.emit(Opcode::FEXP, d, Src::of(t).splat(0), Src::of(t), sat);
            }
            "DIV" => {
                self.counts(ins, 1, 2)?;
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, false)?;
                let t = self.scratch();
                self.push(MInst::alu(
                    Opcode::FRCP,
                    Dst {
                        reg: t,
                        mask: d.mask,
                    },
                    s[1],
                    s[1],
                ));
                self.emit(Opcode::FMUL, d, s[0], Src::of(t), sat);
            }
            "LRP" => {
                self.counts(ins, 1, 3)?;
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, false)?;
                let t = self.scratch();
                let td = Dst {
                    reg: t,
                    mask: d.mask,
                };
                // a*b + (1-a)*c, in the order TGSI states it.
                self.push(MInst::alu(Opcode::FADD, td, imm_src(1), s[0].neg()));
                self.push(MInst::alu(Opcode::FMUL, td, Src::of(t), s[2]));
                let mut m = MInst::alu(Opcode::FMAD, td, s[0], s[1]);
                m.sat = sat;
                self.push(m);
                self.finish(t, d, false);
            }
            "XPD" => {
                self.counts(ins, 1, 2)?;
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, false)?;
                let t = self.scratch();
                let xyz = d.mask & 0b0111;
                if xyz != 0 {
                    let td = Dst { reg: t, mask: xyz };
                    let yzx = [1, 2, 0, 3];
                    let zxy = [2, 0, 1, 3];
                    self.push(MInst::alu(
                        Opcode::FMUL,
                        td,
                        s[1].swizzled(yzx),
                        s[0].swizzled(zxy).neg(),
                    ));
                    self.push(MInst::alu(
                        Opcode::FMAD,
                        td,
                        s[0].swizzled(yzx),
                        s[1].swizzled(zxy),
                    ));
                }
                if d.mask & 0b1000 != 0 {
                    self.push(MInst::alu(
                        Opcode::MOV,
                        Dst {
                            reg: t,
                            mask: 0b1000,
                        },
                        imm_src(1),
                        imm_src(1),
                    ));
                }
                self.finish(t, d, sat);
            }
            "EXP" => {
                self.counts(ins, 1, 1)?;
                let d = self.dst(&ins.dst[0])?;
                let a = self.src(&ins.src[0], false)?.splat(0);
                let t = self.scratch();
                let u = self.scratch();
                let lane = |m: u8| Dst { reg: t, mask: m };
                if d.mask & 1 != 0 {
                    self.push(MInst::alu(Opcode::FFLR, Dst { reg: u, mask: 1 }, a, a));
                    self.push(MInst::alu(Opcode::FEXP, lane(1), Src::of(u).splat(0), a));
                }
                if d.mask & 2 != 0 {
                    self.push(MInst::alu(Opcode::FFRC, lane(2), a, a));
                }
                if d.mask & 4 != 0 {
                    self.push(MInst::alu(Opcode::FEXP, lane(4), a, a));
                }
                if d.mask & 8 != 0 {
                    self.push(MInst::alu(Opcode::MOV, lane(8), imm_src(1), imm_src(1)));
                }
                self.finish(t, d, sat);
            }
            "LOG" => {
                self.counts(ins, 1, 1)?;
                let d = self.dst(&ins.dst[0])?;
                let mut a = self.src(&ins.src[0], false)?.splat(0);
                a.modi = compose_mod(SrcMod::ABS, a.modi);
                let t = self.scratch();
                let v = self.scratch();
                let lane = |m: u8| Dst { reg: t, mask: m };
                self.push(MInst::alu(Opcode::FLOG, lane(4), a, a));
                self.push(MInst::alu(Opcode::FFLR, lane(1), Src::of(t).splat(2), a));
                if d.mask & 2 != 0 {
                    let vx = Dst { reg: v, mask: 1 };
                    self.push(MInst::alu(Opcode::FEXP, vx, Src::of(t).splat(0), a));
                    self.push(MInst::alu(Opcode::FRCP, vx, Src::of(v).splat(0), a));
                    self.push(MInst::alu(Opcode::FMUL, lane(2), a, Src::of(v).splat(0)));
                }
                if d.mask & 8 != 0 {
                    self.push(MInst::alu(Opcode::MOV, lane(8), imm_src(1), imm_src(1)));
                }
                self.finish(t, d, sat);
            }
            "CMP" | "UCMP" => {
                self.counts(ins, 1, 3)?;
                let int = op == "UCMP";
                if int {
                    self.no_sat(ins)?;
                }
                let d = self.dst(&ins.dst[0])?;
                let s = self.srcs(ins, int)?;
                let p = Dst {
                    reg: P0,
                    mask: d.mask,
                };
                if int {
                    self.push(MInst::alu(Opcode::MOV, p, s[0], s[0]));
                } else {
                    self.push(MInst::alu(Opcode::FCLT, p, s[0], imm_src(0)));
                }
                let t = self.scratch();
                let td = Dst {
                    reg: t,
                    mask: d.mask,
                };
                self.push(MInst::alu(Opcode::MOV, td, s[2], s[2]));
                let mut m = MInst::alu(Opcode::MOV, td, s[1], s[1]);
                m.pred = Pred::P0;
                self.push(m);
                self.finish(t, d, sat);
            }
            "ARL" | "UARL" => {
                self.counts(ins, 1, 1)?;
                self.no_sat(ins)?;
                let dr = ins.dst[0].reg;
                let k = u32::try_from(dr.index).ok();
                let shadow = match (dr.file, dr.indirect, k) {
                    (File::Addr, None, Some(k)) => {
                        self.addr_shadows.get(&k).copied().ok_or_else(|| {
                            self.semantic(format!("{op}: ADDR[{k}] is not declared"))
                        })?
                    }
                    _ => return Err(self.semantic(format!("{op} writes ADDR[n]"))),
                };
                let mask = ins.dst[0].mask;
                // a0 mirrors ADDR[0]; the other ADDR registers are only their copies.
                let a0 = (k == Some(0)).then_some(Dst {
                    reg: Reg {
                        file: RegFile::Address,
                        num: 0,
                    },
                    mask,
                });
                let (conv, a) = if op == "ARL" {
                    let a = self.src(&ins.src[0], false)?;
                    let t = self.scratch();
                    self.push(MInst::alu(Opcode::FFLR, Dst { reg: t, mask }, a, a));
                    (Opcode::F2I, Src::of(t))
                } else {
                    (Opcode::MOV, self.src(&ins.src[0], true)?)
                };
                if let Some(d) = a0 {
                    self.push(MInst::alu(conv, d, a, a));
                }
                self.push(MInst::alu(conv, Dst { reg: shadow, mask }, a, a));
            }
            "KILL" | "KILL_IF" => {
                if self.sh.stage == ShaderStage::Vertex {
                    return Err(self.unsupported(format!("{op} in a vertex shader")));
                }
                self.info.discards = true;
                let mut k = MInst::new(Opcode::KILL);
                if op == "KILL_IF" {
                    self.counts(ins, 0, 1)?;
                    let a = self.src(&ins.src[0], false)?;
                    // Any lane < 0 <=> minNum over the lanes < 0 (NaN lanes compare false
                    // either way), so two FMINs gather the lanes into x for the flow test.
                    let lane_x = if a.swz.iter().all(|c| *c == a.swz[0]) {
                        a.splat(0)
                    } else {
                        let t = self.scratch();
                        self.push(MInst::alu(
                            Opcode::FMIN,
                            Dst { reg: t, mask: 3 },
                            a,
                            a.swizzled([2, 3, 2, 3]),
                        ));
                        self.push(MInst::alu(
                            Opcode::FMIN,
                            Dst { reg: t, mask: 1 },
                            Src::of(t).splat(0),
                            Src::of(t).splat(1),
                        ));
                        Src::of(t).splat(0)
                    };
                    self.push(MInst::alu(
                        Opcode::FCLT,
                        Dst { reg: P0, mask: 1 },
                        lane_x,
                        imm_src(0),
                    ));
                    k.pred = Pred::P0;
                } else {
                    self.counts(ins, 0, 0)?;
                }
                self.push(k);
            }
            "TEX" | "TXB" | "TXL" | "TXP" | "TXD" => self.texture(ins)?,
            "IF" | "UIF" => {
                self.counts(ins, 0, 1)?;
                let int = op == "UIF";
                let a = self.src(&ins.src[0], int)?;
                self.pred_zero(a, int);
                let else_label = self.code.label();
                let end_label = self.code.label();
                self.branch(Opcode::BR, Pred::P0, else_label);
                self.flow.push(super::Flow::If {
                    else_label,
                    end_label,
                    has_else: false,
                });
            }
            "CAL" => {
                self.counts(ins, 0, 0)?;
                let t = ins.label.unwrap_or(0) as usize;
                let lab = self.call_labels.get(&t).copied().unwrap_or(self.epilogue);
                self.branch(Opcode::CALL, Pred::ALWAYS, lab);
            }
            "ELSE" | "ENDIF" | "BGNLOOP" | "ENDLOOP" | "BRK" | "CONT" | "BGNSUB" | "ENDSUB"
            | "RET" | "END" | "NOP" => {
                self.counts(ins, 0, 0)?;
                self.flow_instruction(op)?;
            }
            _ => return Err(self.unsupported(format!("opcode {op}"))),
        }
        Ok(())
    }
}
