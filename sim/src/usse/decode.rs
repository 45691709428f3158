//! Decoding USSE words once into a compact, validated instruction list.

use sgx_hwdocs::usse::{
    DstBank, InstrFormat, OpKind, Opcode, Pred, SourceCount, SrcBank, SrcMod, UsseAlu, UsseFlow,
    UsseLimm, UsseTex, MAX_EXECUTED_PER_INSTANCE, MAX_INSTRUCTIONS, OUTPUT_REGS, PREDICATE_REGS,
    PRIMARY_REGS, SECONDARY_REGS, TEMP_REGS,
};

use super::{Stage, UsseError};

/// Where a source operand comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SrcReg {
    Temp(u8),
    Primary(u8),
    Secondary(u8),
    Output(u8),
    /// The register number as an f32, already as bits.
    Imm(u32),
    SecIndexed(u8),
}

/// A decoded source: register, swizzle (lane i reads `swz[i]`), modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Src {
    pub reg: SrcReg,
    pub swz: [u8; 4],
    pub modi: SrcMod,
}

/// A decoded destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dst {
    Temp(u8),
    Output(u8),
    Pred(u8),
    Addr,
}

/// One decoded instruction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instr {
    pub op: Opcode,
    pub pred: Pred,
    pub sat: bool,
    pub mask: u8,
    pub dst: Dst,
    pub s0: Src,
    pub s1: Src,
    /// LIMM immediate.
    pub imm: u32,
    /// BR/CALL target.
    pub target: u32,
    pub sampler: u8,
    pub grad: u8,
}

/// A USSE program decoded once; every instruction validated against hwdocs.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) ins: Vec<Instr>,
    pub(crate) stage: Stage,
    /// Temporaries the program touches (highest index + 1), so runs reset only those.
    pub(crate) temps_used: usize,
    /// Outputs the program touches (highest index + 1).
    pub(crate) outs_used: usize,
    /// Whether any KILL is present (the ISP then shades before depth/stencil updates).
    pub(crate) has_kill: bool,
    /// Whether any EMITDEPTH is present (the ISP then tests depth after the program runs).
    pub(crate) writes_depth: bool,
    /// A pixel program without control flow: no BR/CALL/RET/KILL/END before a final
    /// unpredicated END or RET, so every instance of a quad runs every instruction in order
    /// and the interpreter may skip per-instance scheduling.
    pub(crate) straight: bool,
    /// Whether any instruction reads or writes a predicate or the address register (a
    /// predicated instruction, a predicate or address destination, an indexed secondary
    /// source); runs of programs that don't skip resetting them, as nothing reads them.
    pub(crate) uses_pred_addr: bool,
    /// Temporaries (highest index + 1) some instruction may read, in program order, before
    /// an unpredicated whole-register write of them; a straight run need reset only those,
    /// as no other temporary's old contents are ever read.
    pub(crate) temps_read_first: usize,
}

const NO_SRC: Src = Src {
    reg: SrcReg::Imm(0),
    swz: [0, 1, 2, 3],
    modi: SrcMod::NONE,
};

fn illegal(pc: usize, reason: impl Into<String>) -> UsseError {
    UsseError::Illegal {
        pc: pc as u32,
        reason: reason.into(),
    }
}

fn swizzle(swz: u32) -> [u8; 4] {
    [
        (swz & 3) as u8,
        ((swz >> 2) & 3) as u8,
        ((swz >> 4) & 3) as u8,
        ((swz >> 6) & 3) as u8,
    ]
}

fn src(
    pc: usize,
    bank: SrcBank,
    num: u32,
    swz: u32,
    modi: SrcMod,
    temps: &mut usize,
) -> Result<Src, UsseError> {
    let check = |limit: u64, name: &str| -> Result<u8, UsseError> {
        if u64::from(num) >= limit {
            Err(illegal(
                pc,
                format!("source {name}{num} past the {limit} registers of its bank"),
            ))
        } else {
            Ok(num as u8)
        }
    };
    let reg = match bank {
        SrcBank::TEMP => {
            let n = check(TEMP_REGS, "r")?;
            *temps = (*temps).max(usize::from(n) + 1);
            SrcReg::Temp(n)
        }
        SrcBank::PRIMARY => SrcReg::Primary(check(PRIMARY_REGS, "pa")?),
        SrcBank::SECONDARY => SrcReg::Secondary(check(SECONDARY_REGS, "sa")?),
        SrcBank::OUTPUT => SrcReg::Output(check(OUTPUT_REGS, "o")?),
        SrcBank::IMMEDIATE => SrcReg::Imm((num as f32).to_bits()),
        SrcBank::SECONDARY_INDEXED => SrcReg::SecIndexed(num as u8),
    };
    Ok(Src {
        reg,
        swz: swizzle(swz),
        modi,
    })
}

fn dst(pc: usize, bank: DstBank, num: u32, temps: &mut usize) -> Result<Dst, UsseError> {
    let bad = |limit: u64, name: &str| {
        illegal(
            pc,
            format!("destination {name}{num} past the {limit} registers of its bank"),
        )
    };
    Ok(match bank {
        DstBank::TEMP => {
            if u64::from(num) >= TEMP_REGS {
                return Err(bad(TEMP_REGS, "r"));
            }
            *temps = (*temps).max(num as usize + 1);
            Dst::Temp(num as u8)
        }
        DstBank::OUTPUT => {
            if u64::from(num) >= OUTPUT_REGS {
                return Err(bad(OUTPUT_REGS, "o"));
            }
            Dst::Output(num as u8)
        }
        DstBank::PREDICATE => {
            if u64::from(num) >= PREDICATE_REGS {
                return Err(bad(PREDICATE_REGS, "p"));
            }
            Dst::Pred(num as u8)
        }
        DstBank::ADDRESS => {
            if num != 0 {
                return Err(bad(1, "a"));
            }
            Dst::Addr
        }
    })
}

impl Program {
    /// Decodes `words` (instruction k in words[2k], words[2k+1]) for `stage`; any illegal
    /// instruction (unknown opcode, reserved bits, register past its bank, a modifier or
    /// saturate the opcode's kind forbids, a stage-only opcode in the other stage, a branch
    /// past the end) is an `Err`.
    pub fn decode(words: &[u32], stage: Stage) -> Result<Program, UsseError> {
        if words.is_empty() {
            return Err(illegal(0, "empty program"));
        }
        if words.len() & 1 != 0 {
            return Err(illegal(
                words.len() / 2,
                "odd number of dwords: instructions are 64-bit",
            ));
        }
        let n = words.len() / 2;
        if n as u64 > MAX_INSTRUCTIONS {
            return Err(illegal(
                MAX_INSTRUCTIONS as usize,
                format!("{n} instructions exceed MAX_INSTRUCTIONS"),
            ));
        }
        let mut ins = Vec::with_capacity(n);
        let mut temps = 0usize;
        let mut has_kill = false;
        let mut writes_depth = false;
        for pc in 0..n {
            let w = &words[2 * pc..2 * pc + 2];
            let raw = w[0] & UsseFlow::OPCODE_MASK;
            let op = Opcode::from_raw(raw)
                .ok_or_else(|| illegal(pc, format!("unknown opcode {raw}")))?;
            let dec = |e: sgx_hwdocs::DecodeError| illegal(pc, e.to_string());
            let mut i = Instr {
                op,
                pred: Pred::ALWAYS,
                sat: false,
                mask: 0,
                dst: Dst::Temp(0),
                s0: NO_SRC,
                s1: NO_SRC,
                imm: 0,
                target: 0,
                sampler: 0,
                grad: 0,
            };
            match op.format() {
                InstrFormat::ALU => {
                    let a = UsseAlu::unpack(w).map_err(dec)?;
                    i.pred = a.pred;
                    i.sat = a.sat;
                    i.mask = a.dst_mask as u8;
                    let kind = op.kind();
                    if a.sat && kind != OpKind::FLOAT {
                        return Err(illegal(pc, format!("{} takes no saturate", op.name())));
                    }
                    let mods_ok = match kind {
                        OpKind::INT | OpKind::INTCMP => false,
                        OpKind::CONV => matches!(op, Opcode::F2I | Opcode::F2U),
                        _ => true,
                    };
                    let nsrc = match op.sources() {
                        SourceCount::NONE => 0,
                        SourceCount::ONE => 1,
                        SourceCount::TWO => 2,
                    };
                    if !mods_ok
                        && (a.src0_mod != SrcMod::NONE || (nsrc > 1 && a.src1_mod != SrcMod::NONE))
                    {
                        return Err(illegal(
                            pc,
                            format!("{} takes no source modifier", op.name()),
                        ));
                    }
                    let mut operand =
                        |bank, num, swz, modi| src(pc, bank, num, swz, modi, &mut temps);
                    if nsrc >= 1 {
                        i.s0 = operand(a.src0_bank, a.src0_num, a.src0_swz, a.src0_mod)?;
                    }
                    if nsrc >= 2 {
                        i.s1 = operand(a.src1_bank, a.src1_num, a.src1_swz, a.src1_mod)?;
                    }
                    if matches!(op, Opcode::EMITPIX | Opcode::EMITDEPTH) {
                        if stage != Stage::Pixel {
                            return Err(illegal(pc, format!("{} in a vertex program", op.name())));
                        }
                        writes_depth |= op == Opcode::EMITDEPTH;
                    } else {
                        i.dst = dst(pc, a.dst_bank, a.dst_num, &mut temps)?;
                    }
                }
                InstrFormat::TEX => {
                    let t = UsseTex::unpack(w).map_err(dec)?;
                    i.pred = t.pred;
                    i.sat = t.sat;
                    i.mask = t.dst_mask as u8;
                    i.s0 = src(
                        pc,
                        t.coord_bank,
                        t.coord_num,
                        t.coord_swz,
                        SrcMod::NONE,
                        &mut temps,
                    )?;
                    i.dst = dst(pc, t.dst_bank, t.dst_num, &mut temps)?;
                    i.sampler = t.sampler as u8;
                    if op == Opcode::TEXD {
                        if u64::from(t.grad) + 1 >= TEMP_REGS {
                            return Err(illegal(
                                pc,
                                format!(
                                    "TEXD gradient r{} needs r{} too: past TEMP_REGS",
                                    t.grad,
                                    t.grad + 1
                                ),
                            ));
                        }
                        temps = temps.max(t.grad as usize + 2);
                    } else if t.grad != 0 {
                        return Err(illegal(
                            pc,
                            format!("{} with a gradient register (grad = {})", op.name(), t.grad),
                        ));
                    }
                    i.grad = t.grad as u8;
                }
                InstrFormat::FLOW => {
                    let f = UsseFlow::unpack(w).map_err(dec)?;
                    i.pred = f.pred;
                    i.target = f.target;
                    match op {
                        Opcode::BR | Opcode::CALL if f.target as usize >= n => {
                            return Err(illegal(
                                pc,
                                format!(
                                    "{} target {} past the end ({n} instructions)",
                                    op.name(),
                                    f.target
                                ),
                            ));
                        }
                        Opcode::KILL if stage != Stage::Pixel => {
                            return Err(illegal(pc, "KILL in a vertex program"))
                        }
                        Opcode::EMITVTX if stage != Stage::Vertex => {
                            return Err(illegal(pc, "EMITVTX in a pixel program"))
                        }
                        Opcode::KILL => has_kill = true,
                        _ => {}
                    }
                }
                InstrFormat::LIMM => {
                    let l = UsseLimm::unpack(w).map_err(dec)?;
                    i.pred = l.pred;
                    i.mask = l.dst_mask as u8;
                    i.imm = l.imm;
                    i.dst = dst(pc, l.dst_bank, l.dst_num, &mut temps)?;
                }
            }
            ins.push(i);
        }
        let mut outs_used = 0usize;
        for i in &ins {
            for s in [i.s0, i.s1] {
                if let SrcReg::Output(n) = s.reg {
                    outs_used = outs_used.max(usize::from(n) + 1);
                }
            }
            if let Dst::Output(n) = i.dst {
                outs_used = outs_used.max(usize::from(n) + 1);
            }
        }
        // The straight path returns colours only: a program with EMITDEPTH takes `exec`.
        let straight = stage == Stage::Pixel
            && !writes_depth
            && n as u64 <= MAX_EXECUTED_PER_INSTANCE
            && ins.split_last().is_some_and(|(last, body)| {
                matches!(last.op, Opcode::END | Opcode::RET)
                    && last.pred == Pred::ALWAYS
                    && body
                        .iter()
                        .all(|i| i.op == Opcode::NOP || i.op.format() != InstrFormat::FLOW)
            });
        let uses_pred_addr = ins.iter().any(|i| {
            i.pred != Pred::ALWAYS
                || matches!(i.dst, Dst::Pred(_) | Dst::Addr)
                || [i.s0, i.s1]
                    .iter()
                    .any(|s| matches!(s.reg, SrcReg::SecIndexed(_)))
        });
        let mut written = [false; TEMP_REGS as usize];
        let mut temps_read_first = 0usize;
        for i in &ins {
            let mut reads: Vec<usize> = Vec::new();
            for s in [i.s0, i.s1] {
                if let SrcReg::Temp(n) = s.reg {
                    reads.push(usize::from(n));
                }
            }
            if i.op == Opcode::TEXD {
                reads.extend([usize::from(i.grad), usize::from(i.grad) + 1]);
            }
            // A partial, predicated or accumulating write keeps (reads) the old contents;
            // EMITPIX, EMITDEPTH, EMITVTX and flow instructions write no destination.
            let writes = i.op.format() != InstrFormat::FLOW
                && !matches!(i.op, Opcode::EMITPIX | Opcode::EMITDEPTH | Opcode::EMITVTX);
            let whole =
                writes && i.pred == Pred::ALWAYS && i.mask == 0b1111 && i.op != Opcode::FMAD;
            if let Dst::Temp(n) = i.dst {
                if !whole {
                    reads.push(usize::from(n));
                }
            }
            for r in reads {
                if !written[r] {
                    temps_read_first = temps_read_first.max(r + 1);
                }
            }
            if let (Dst::Temp(n), true) = (i.dst, whole) {
                written[usize::from(n)] = true;
            }
        }
        Ok(Program {
            ins,
            stage,
            temps_used: temps,
            outs_used,
            has_kill,
            writes_depth,
            straight,
            uses_pred_addr,
            temps_read_first,
        })
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.ins.len()
    }

    /// True for a program without instructions (never produced by `decode`).
    pub fn is_empty(&self) -> bool {
        self.ins.is_empty()
    }

    /// The stage it was decoded for.
    pub fn stage(&self) -> Stage {
        self.stage
    }
}

/// How many instructions a program stored at some address spans: the shortest prefix that
/// ends in an unconditional END or RET and that no BR/CALL in it jumps past. `peek(k)` gives
/// instruction k's two dwords (None when it cannot be read); returns the count, or None when
/// no such prefix exists within MAX_INSTRUCTIONS or the memory ends first.
pub(crate) fn program_extent(mut peek: impl FnMut(usize) -> Option<[u32; 2]>) -> Option<usize> {
    let mut reach = 0usize;
    for k in 0..MAX_INSTRUCTIONS as usize {
        let w = peek(k)?;
        // Every format keeps the opcode and the predicate where FLOW does.
        let op = Opcode::from_raw(w[0] & UsseFlow::OPCODE_MASK);
        let pred = w[0] & UsseFlow::PRED_MASK;
        match op {
            Some(Opcode::BR) | Some(Opcode::CALL) => {
                reach = reach.max((w[1] & UsseFlow::TARGET_MASK) as usize)
            }
            Some(Opcode::END) | Some(Opcode::RET) if pred == 0 /* ALWAYS */ && reach <= k => {
                return Some(k + 1)
            }
            // An undecodable word: stop here so decode reports it.
            None => return Some(k + 1),
            _ => {}
        }
    }
    None
}
