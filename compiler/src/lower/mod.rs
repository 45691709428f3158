//! TGSI syntax tree -> IR: registers, operands and control flow; opcodes are in `ops`.

mod array;
mod colour_clamp;
mod constants;
mod ops;
mod structure;
mod texture;

use std::collections::{BTreeMap, HashMap};

use sgx_hwdocs::limits;
use sgx_hwdocs::usse::{self, Opcode, Pred, SrcMod};

use crate::error::{CompileError, Result};
use crate::io::{InputLoc, IoLayout, OutputLoc};
use crate::ir::{Code, Dst, Item, MInst, Reg, RegFile, Src};
use crate::tgsi::{DstOperand, File, Shader, ShaderStage, SrcOperand, TexTarget};

/// What lowering learnt about the shader, for the compiled metadata.
#[derive(Debug, Clone, Default)]
pub struct LowerInfo {
    /// Texture units sampled, with their targets.
    pub samplers: BTreeMap<u32, TexTarget>,
    /// KILL or KILL_IF present.
    pub discards: bool,
    /// Constant buffers: buffer -> (first, count, sa base).
    pub const_ranges: Vec<(u32, u32, u32, u32)>,
    /// Secondary registers the program may read (sa0..const_regs).
    pub const_regs: u32,
    /// Uses derivatives (DDX/DDY or implicit-LOD texturing).
    pub derivatives: bool,
}

enum Flow {
    If {
        else_label: u32,
        end_label: u32,
        has_else: bool,
    },
    Loop {
        top: u32,
        end: u32,
    },
}

/// The lowering state of one shader.
pub struct Lower<'a> {
    sh: &'a Shader,
    io: &'a IoLayout,
    code: Code,
    temps: HashMap<u32, Reg>,
    outs: HashMap<u32, Reg>,
    color: Option<Reg>,
    /// The fragment depth output's register (`gl_FragDepth`), emitted at the end.
    depth: Option<Reg>,
    const_base: HashMap<u32, (u32, u32, u32)>,
    flow: Vec<Flow>,
    call_labels: HashMap<usize, u32>,
    epilogue: u32,
    in_sub: bool,
    main_ended: bool,
    line: u32,
    info: LowerInfo,
    /// TEMP declarations, for indexed accesses.
    temp_ranges: Vec<array::TempRange>,
    /// Per declared ADDR register, the temporary that indexed operands read: ADDR[0] is
    /// mirrored in a0 too (a0 is write-only); ADDR[1..] exist only as these temporaries.
    addr_shadows: BTreeMap<u32, Reg>,
    /// The indexed destination of the instruction being lowered.
    scatter: Option<array::Scatter>,
    /// A packed output written by the instruction being lowered: (value, output, lanes
    /// of the value, first lane in the output).
    packed_write: Option<(Reg, Reg, u8, u8)>,
}

/// Lowers a parsed shader with the given input/output layout.
pub fn lower(sh: &Shader, io: &IoLayout) -> Result<(Code, LowerInfo)> {
    structure::check(sh)?;
    let mut code = Code::default();
    let epilogue = code.label();
    let mut l = Lower {
        sh,
        io,
        code,
        temps: HashMap::new(),
        outs: HashMap::new(),
        color: None,
        depth: None,
        const_base: HashMap::new(),
        flow: Vec::new(),
        call_labels: HashMap::new(),
        epilogue,
        in_sub: false,
        main_ended: false,
        line: 0,
        info: LowerInfo::default(),
        temp_ranges: Vec::new(),
        addr_shadows: BTreeMap::new(),
        scatter: None,
        packed_write: None,
    };
    l.declare()?;
    for ins in &sh.instrs {
        if ins.opcode == "CAL" {
            let Some(t) = ins.label else {
                return Err(CompileError::Semantic {
                    line: ins.line,
                    msg: "CAL without a :label".into(),
                });
            };
            let t = t as usize;
            if t >= sh.instrs.len() {
                return Err(CompileError::Semantic {
                    line: ins.line,
                    msg: format!("CAL target {t} is past the last instruction"),
                });
            }
            if !l.call_labels.contains_key(&t) {
                let lab = l.code.label();
                l.call_labels.insert(t, lab);
            }
        }
    }
    for (idx, ins) in sh.instrs.iter().enumerate() {
        if let Some(lab) = l.call_labels.get(&idx) {
            l.code.items.push(Item::Label(*lab));
        }
        l.line = ins.line;
        l.instruction(ins)?;
        l.flush_scatter();
        l.flush_packed_write();
    }
    if let Some(f) = l.flow.last() {
        let what = match f {
            Flow::If { .. } => "IF without ENDIF",
            Flow::Loop { .. } => "BGNLOOP without ENDLOOP",
        };
        return Err(CompileError::Semantic {
            line: l.line,
            msg: what.into(),
        });
    }
    if !l.main_ended {
        l.epilogue_code();
    }
    Ok((l.code, l.info))
}

impl Lower<'_> {
    fn semantic(&self, msg: String) -> CompileError {
        CompileError::Semantic {
            line: self.line,
            msg,
        }
    }

    fn unsupported(&self, what: impl Into<String>) -> CompileError {
        CompileError::Unsupported {
            line: self.line,
            what: what.into(),
        }
    }

    fn declare(&mut self) -> Result<()> {
        let mut sa_next = 0u32;
        let mut buffers: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
        for d in &self.sh.decls {
            self.line = d.line;
            match d.file {
                File::Temp => {
                    let n = u64::from(d.last) - u64::from(d.first) + 1 + self.temps.len() as u64;
                    // Virtual temporaries are unbounded, but a declaration far past the
                    // physical file cannot be a real shader.
                    io_limit("usse::TEMP_REGS (declared)", n, 16 * usse::TEMP_REGS)?;
                    for i in d.first..=d.last {
                        let r = self.code.vreg();
                        self.temps.entry(i).or_insert(r);
                    }
                    self.temp_ranges.push(array::TempRange {
                        first: d.first,
                        last: d.last,
                        id: d.array_id,
                    });
                }
                File::Const => {
                    let e = buffers.entry(d.dim).or_insert((d.first, d.last));
                    e.0 = e.0.min(d.first);
                    e.1 = e.1.max(d.last);
                }
                File::Addr => {
                    // Only ADDR[0] has a hardware register (a0); st/mesa indexes samplers
                    // with ADDR[2], which lives in a temporary like every shadow.
                    io_limit("TGSI ADDR registers", u64::from(d.last) + 1, TGSI_ADDR_REGS)?;
                    for k in d.first..=d.last {
                        if self.addr_shadows.contains_key(&k) {
                            continue;
                        }
                        // a0 starts at 0 in every lane; so does every copy.
                        let s = self.code.vreg();
                        let mut z = MInst::new(Opcode::LIMM);
                        z.dst = Dst { reg: s, mask: 0xF };
                        self.code.push(z);
                        self.addr_shadows.insert(k, s);
                    }
                }
                File::Sampler => io_limit(
                    "limits::MAX_TEXTURE_UNITS",
                    u64::from(d.last) + 1,
                    limits::MAX_TEXTURE_UNITS,
                )?,
                File::SamplerView => {
                    if let Some(t) = d.target.filter(|t| texture::plan(*t).is_none()) {
                        return Err(self
                            .target_error(d.target_col, texture::unsupported_target("SVIEW", t)));
                    }
                }
                File::Output => {
                    for i in d.first..=d.last.min(d.first.saturating_add(64)) {
                        let r = match self.io.outputs.get(&i) {
                            Some(OutputLoc::Output(n)) => Reg {
                                file: RegFile::Output,
                                num: *n,
                            },
                            Some(OutputLoc::Color) => {
                                *self.color.get_or_insert_with(|| self.code.vreg())
                            }
                            Some(OutputLoc::Depth) => {
                                *self.depth.get_or_insert_with(|| self.code.vreg())
                            }
                            Some(OutputLoc::Discard) | None => self.code.vreg(),
                        };
                        self.outs.insert(i, r);
                    }
                }
                File::Input | File::SystemValue | File::Imm => {}
            }
        }
        // Constant buffers are packed one after another into constant memory, in buffer
        // order, each starting at its first declared register's offset from 0 (memory vec4 =
        // base + index); the first usse::SECONDARY_REGS of it are the sa bank.
        for (buf, (first, last)) in buffers {
            let count = last - first + 1;
            let base = sa_next;
            sa_next = sa_next.saturating_add(last.saturating_add(1));
            self.const_base.insert(buf, (base, first, last));
            self.info.const_ranges.push((buf, first, count, base));
        }
        io_limit(
            "usse::CONST_MEMORY_REGS",
            u64::from(sa_next),
            usse::CONST_MEMORY_REGS,
        )?;
        self.info.const_regs = sa_next;
        Ok(())
    }

    fn epilogue_code(&mut self) {
        self.code.items.push(Item::Label(self.epilogue));
        match self.sh.stage {
            ShaderStage::Vertex => {
                self.clamp_colours();
                self.code.push(MInst::new(Opcode::EMITVTX));
            }
            ShaderStage::Fragment => {
                if let Some(c) = self.color {
                    let mut e = MInst::new(Opcode::EMITPIX);
                    e.src[0] = Src::of(c);
                    self.code.push(e);
                }
                if let Some(d) = self.depth {
                    // TGSI's fragment POSITION output carries the depth in z.
                    let mut e = MInst::new(Opcode::EMITDEPTH);
                    e.src[0] = Src::of(d);
                    e.src[0].swz = [2; 4];
                    self.code.push(e);
                }
            }
        }
        self.code.push(MInst::new(Opcode::END));
    }

    /// A source operand; `int` selects integer semantics for `-` and `|..|`.
    fn src(&mut self, s: &SrcOperand, int: bool) -> Result<Src> {
        let reg = self.src_reg(s)?;
        let shift = self.first_lane(&s.reg);
        let mut out = match reg {
            SrcReg::Reg(r) => Src {
                reg: r,
                // A packed varying's lanes start at its first lane; lanes it does not have
                // are undefined in GL and read some lane of the slot.
                swz: s.swz.map(|c| (c + shift).min(3)),
                modi: SrcMod::NONE,
            },
            SrcReg::Imm(bits) => self.materialize(bits, s.swz),
        };
        if !int {
            out.modi = match (s.neg, s.abs) {
                (false, false) => SrcMod::NONE,
                (true, false) => SrcMod::NEG,
                (false, true) => SrcMod::ABS,
                (true, true) => SrcMod::NEG_ABS,
            };
            return Ok(out);
        }
        if s.abs {
            // |x| for integers: max(x, -x).
            let n = self.alu_to_vreg(Opcode::INEG, out, out);
            out = self.alu_to_vreg(Opcode::IMAX, out, n);
        }
        if s.neg {
            out = self.alu_to_vreg(Opcode::INEG, out, out);
        }
        Ok(out)
    }

    /// Emits `op a, b` into all four lanes of a new virtual register; returns it as a source.
    fn alu_to_vreg(&mut self, op: Opcode, a: Src, b: Src) -> Src {
        let r = self.code.vreg();
        self.code
            .push(MInst::alu(op, Dst { reg: r, mask: 0xF }, a, b));
        Src::of(r)
    }

    /// LIMMs the lanes of an immediate that `swz` reads into a fresh temporary.
    fn materialize(&mut self, bits: [u32; 4], swz: [u8; 4]) -> Src {
        let t = self.code.vreg();
        let mut done = 0u8;
        for &c in &swz {
            if done & (1 << c) != 0 {
                continue;
            }
            let v = bits[usize::from(c)];
            let mut mask = 0u8;
            for &c2 in &swz {
                if bits[usize::from(c2)] == v {
                    mask |= 1 << c2;
                }
            }
            done |= mask;
            let mut i = MInst::new(Opcode::LIMM);
            i.dst = Dst { reg: t, mask };
            i.imm = v;
            self.code.push(i);
        }
        Src {
            reg: t,
            swz,
            modi: SrcMod::NONE,
        }
    }

    fn src_reg(&mut self, s: &SrcOperand) -> Result<SrcReg> {
        let r = &s.reg;
        if r.indirect.is_some() && r.file == File::Temp {
            return Ok(SrcReg::Reg(self.array_read(r)?));
        }
        if r.indirect.is_some() && r.file != File::Const {
            return Err(self.unsupported(format!("indirect addressing of {}", r.file.name())));
        }
        let idx = u32::try_from(r.index).ok();
        let need = |me: &Self, what: &str| {
            me.semantic(format!(
                "{}[{}] is not declared {what}",
                r.file.name(),
                r.index
            ))
        };
        Ok(match r.file {
            File::Temp => SrcReg::Reg(
                *idx.and_then(|i| self.temps.get(&i))
                    .ok_or_else(|| need(self, ""))?,
            ),
            File::Output => SrcReg::Reg(
                *idx.and_then(|i| self.outs.get(&i))
                    .ok_or_else(|| need(self, ""))?,
            ),
            File::Input | File::SystemValue => {
                let map = if r.file == File::Input {
                    &self.io.inputs
                } else {
                    &self.io.sysvals
                };
                match idx.and_then(|i| map.get(&i)) {
                    Some(InputLoc::Primary(n)) => SrcReg::Reg(Reg {
                        file: RegFile::Primary,
                        num: *n,
                    }),
                    Some(InputLoc::Zero) => SrcReg::Reg(Reg::imm(0)),
                    None => return Err(need(self, "")),
                }
            }
            File::Imm => {
                let imm = idx
                    .and_then(|i| self.sh.imms.get(i as usize))
                    .ok_or_else(|| self.semantic(format!("IMM[{}] is not defined", r.index)))?;
                SrcReg::Imm(imm.bits)
            }
            File::Const => {
                let &(base, first, last) = self.const_base.get(&r.dim).ok_or_else(|| {
                    self.semantic(format!("constant buffer {} is not declared", r.dim))
                })?;
                match r.indirect {
                    None => {
                        let i = idx.filter(|i| (first..=last).contains(i)).ok_or_else(|| {
                            self.semantic(format!(
                                "CONST[{}][{}] is outside the declared range",
                                r.dim, r.index
                            ))
                        })?;
                        let num = base + i;
                        if u64::from(num) < usse::SECONDARY_REGS {
                            SrcReg::Reg(Reg {
                                file: RegFile::Secondary,
                                num,
                            })
                        } else {
                            // Past the secondary bank: loaded from constant memory.
                            let at = self.materialize([num; 4], [0; 4]);
                            SrcReg::Reg(self.load_const(at))
                        }
                    }
                    Some(_) => SrcReg::Reg(self.indexed_const(r, base, first, last)?),
                }
            }
            File::Addr | File::Sampler | File::SamplerView => {
                return Err(self.semantic(format!("{} cannot be a source here", r.file.name())))
            }
        })
    }

    /// A destination operand (TEMP or OUT; ARL/UARL write ADDR themselves).
    fn dst(&mut self, d: &DstOperand) -> Result<Dst> {
        let r = &d.reg;
        if r.indirect.is_some() && r.file == File::Temp {
            return self.array_write(r, d.mask);
        }
        if r.indirect.is_some() {
            return Err(self.unsupported(format!("indirect destination {}", r.file.name())));
        }
        let idx = u32::try_from(r.index).unwrap_or(u32::MAX);
        let reg = match r.file {
            File::Temp => self.temps.get(&idx).copied(),
            File::Output => self.outs.get(&idx).copied(),
            _ => {
                return Err(self.semantic(format!(
                    "{}[{}] cannot be a destination",
                    r.file.name(),
                    r.index
                )))
            }
        };
        let reg = reg.ok_or_else(|| {
            self.semantic(format!("{}[{}] is not declared", r.file.name(), r.index))
        })?;
        if let (File::Output, Some(&(shift, lanes))) = (r.file, self.io.output_lanes.get(&idx)) {
            let mask = d.mask & ((1u8 << lanes.min(4)) - 1);
            if shift != 0 || mask != d.mask {
                let value = self.code.vreg();
                self.packed_write = Some((value, reg, mask, shift));
                return Ok(Dst {
                    reg: value,
                    mask: d.mask,
                });
            }
        }
        Ok(Dst { reg, mask: d.mask })
    }

    /// The first lane of a packed varying (0 for everything else).
    fn first_lane(&self, r: &crate::tgsi::RegRef) -> u8 {
        let Ok(i) = u32::try_from(r.index) else {
            return 0;
        };
        let lanes = match (r.file, r.indirect) {
            (File::Input, None) => self.io.input_lanes.get(&i),
            (File::Output, None) => self.io.output_lanes.get(&i),
            _ => None,
        };
        lanes.map_or(0, |l| l.0)
    }

    /// Moves a packed output's value to its lanes.
    fn flush_packed_write(&mut self) {
        let Some((value, out, mask, shift)) = self.packed_write.take() else {
            return;
        };
        if mask == 0 {
            return;
        }
        let mut swz = [0u8; 4];
        for (j, c) in swz.iter_mut().enumerate() {
            *c = (j as u8).saturating_sub(shift);
        }
        let v = Src {
            reg: value,
            swz,
            modi: SrcMod::NONE,
        };
        let d = Dst {
            reg: out,
            mask: (mask << shift) & 0xF,
        };
        self.code.push(MInst::alu(Opcode::MOV, d, v, v));
    }

    fn branch(&mut self, op: Opcode, pred: Pred, label: u32) {
        let mut i = MInst::new(op);
        i.pred = pred;
        i.target = label;
        self.code.push(i);
    }

    /// Sets p0.x when lane x of `a` is zero (float or integer compare).
    fn pred_zero(&mut self, a: Src, int: bool) {
        let op = if int { Opcode::ICEQ } else { Opcode::FSEQ };
        let p0 = Dst {
            reg: Reg {
                file: RegFile::Predicate,
                num: 0,
            },
            mask: 0b0001,
        };
        self.code
            .push(MInst::alu(op, p0, a.splat(0), Src::of(Reg::imm(0))));
    }

    fn flow_instruction(&mut self, op: &str) -> Result<()> {
        match op {
            "IF" | "UIF" => unreachable!("handled with operands"),
            "ELSE" => match self.flow.last_mut() {
                Some(Flow::If {
                    else_label,
                    end_label,
                    has_else,
                }) if !*has_else => {
                    *has_else = true;
                    let (e, end) = (*else_label, *end_label);
                    self.branch(Opcode::BR, Pred::ALWAYS, end);
                    self.code.items.push(Item::Label(e));
                }
                _ => return Err(self.semantic("ELSE without IF".into())),
            },
            "ENDIF" => match self.flow.pop() {
                Some(Flow::If {
                    else_label,
                    end_label,
                    has_else,
                }) => {
                    self.code.items.push(Item::Label(if has_else {
                        end_label
                    } else {
                        else_label
                    }));
                }
                _ => return Err(self.semantic("ENDIF without IF".into())),
            },
            "BGNLOOP" => {
                let top = self.code.label();
                let end = self.code.label();
                self.code.items.push(Item::Label(top));
                self.flow.push(Flow::Loop { top, end });
            }
            "ENDLOOP" => match self.flow.pop() {
                Some(Flow::Loop { top, end }) => {
                    self.branch(Opcode::BR, Pred::ALWAYS, top);
                    self.code.items.push(Item::Label(end));
                }
                _ => return Err(self.semantic("ENDLOOP without BGNLOOP".into())),
            },
            "BRK" | "CONT" => {
                let target = self.flow.iter().rev().find_map(|f| match f {
                    Flow::Loop { top, end } => Some(if op == "BRK" { *end } else { *top }),
                    Flow::If { .. } => None,
                });
                let t = target.ok_or_else(|| self.semantic(format!("{op} outside a loop")))?;
                self.branch(Opcode::BR, Pred::ALWAYS, t);
            }
            "BGNSUB" => self.in_sub = true,
            "ENDSUB" => {
                if !self.in_sub {
                    return Err(self.semantic("ENDSUB without BGNSUB".into()));
                }
                self.code.push(MInst::new(Opcode::RET));
                self.in_sub = false;
            }
            "RET" => {
                if self.in_sub {
                    self.code.push(MInst::new(Opcode::RET));
                } else {
                    // Returning from main ends the shader, through the epilogue that emits
                    // the vertex or the colour.
                    self.branch(Opcode::BR, Pred::ALWAYS, self.epilogue);
                }
            }
            "END" => {
                if self.in_sub || self.main_ended {
                    self.branch(Opcode::BR, Pred::ALWAYS, self.epilogue);
                } else {
                    self.main_ended = true;
                    self.epilogue_code();
                }
            }
            "NOP" => {}
            _ => return Err(self.unsupported(format!("opcode {op}"))),
        }
        Ok(())
    }

    fn push(&mut self, i: MInst) {
        self.code.push(i);
    }

    fn scratch(&mut self) -> Reg {
        self.code.vreg()
    }
}

enum SrcReg {
    Reg(Reg),
    Imm([u32; 4]),
}

/// ADDR registers a TGSI shader may declare: st/mesa's nir_to_tgsi uses ADDR[0] (arrays),
/// ADDR[1] (constant buffers) and ADDR[2] (samplers).
const TGSI_ADDR_REGS: u64 = 3;

fn io_limit(limit: &'static str, need: u64, max: u64) -> Result<()> {
    crate::io::check_limit(limit, need, max)
}

/// `Src` of the IMMEDIATE bank value `v` (0..=127).
pub(crate) fn imm_src(v: u32) -> Src {
    Src::of(Reg::imm(v))
}
