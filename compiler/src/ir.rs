//! The IR: USSE model instructions over virtual temporaries, with labels for flow.
//!
//! One `MInst` is one machine instruction; before register allocation `Temp` registers are
//! virtual (unbounded), after it they are physical. Flow targets are label ids before layout
//! and instruction indices after.

use sgx_hwdocs::usse::{InstrFormat, OpKind, Opcode, Pred, SourceCount, SrcMod};

/// Register files of operands (source banks plus the predicate and address destinations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// Temporaries (virtual before allocation).
    Temp,
    /// Primary attributes pa.
    Primary,
    /// Secondary attributes sa (constants).
    Secondary,
    /// sa[num + a0.x].
    SecondaryIndexed,
    /// Outputs o.
    Output,
    /// The IMMEDIATE bank: the number as an f32 in every lane.
    Immediate,
    /// Predicates p0..p2 (destination only).
    Predicate,
    /// Address register a0 (destination only).
    Address,
}

/// A register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// File.
    pub file: RegFile,
    /// Number.
    pub num: u32,
}

impl Reg {
    /// A temporary.
    pub const fn temp(num: u32) -> Reg {
        Reg {
            file: RegFile::Temp,
            num,
        }
    }
    /// An IMMEDIATE-bank register holding `v` as f32.
    pub const fn imm(v: u32) -> Reg {
        Reg {
            file: RegFile::Immediate,
            num: v,
        }
    }
}

/// Identity swizzle.
pub const SWZ_ID: [u8; 4] = [0, 1, 2, 3];

/// A source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Src {
    /// Register.
    pub reg: Reg,
    /// Lane i reads register lane swz[i].
    pub swz: [u8; 4],
    /// Modifier, applied after the swizzle.
    pub modi: SrcMod,
}

impl Src {
    /// An unmodified identity read.
    pub const fn of(reg: Reg) -> Src {
        Src {
            reg,
            swz: SWZ_ID,
            modi: SrcMod::NONE,
        }
    }
    /// The same register with every lane reading register lane `c`.
    pub fn splat(self, c: u8) -> Src {
        let l = self.swz[usize::from(c & 3)];
        Src {
            swz: [l; 4],
            ..self
        }
    }
    /// With the swizzle composed: lane i reads this operand's lane s[i].
    pub fn swizzled(self, s: [u8; 4]) -> Src {
        Src {
            swz: s.map(|i| self.swz[usize::from(i & 3)]),
            ..self
        }
    }
    /// Negated.
    pub fn neg(self) -> Src {
        Src {
            modi: compose_mod(SrcMod::NEG, self.modi),
            ..self
        }
    }
    /// The register lanes read when the operand's `lanes` are used.
    pub fn reg_lanes(&self, lanes: u8) -> u8 {
        let mut m = 0;
        for i in 0..4 {
            if lanes & (1 << i) != 0 {
                m |= 1 << self.swz[i];
            }
        }
        m
    }
}

/// `outer(inner(x))` as one modifier (modifiers act on bit 31).
pub fn compose_mod(outer: SrcMod, inner: SrcMod) -> SrcMod {
    match (outer, inner) {
        (SrcMod::NONE, m) => m,
        (SrcMod::ABS, _) => SrcMod::ABS,
        (SrcMod::NEG_ABS, _) => SrcMod::NEG_ABS,
        (SrcMod::NEG, SrcMod::NONE) => SrcMod::NEG,
        (SrcMod::NEG, SrcMod::NEG) => SrcMod::NONE,
        (SrcMod::NEG, SrcMod::ABS) => SrcMod::NEG_ABS,
        (SrcMod::NEG, SrcMod::NEG_ABS) => SrcMod::ABS,
    }
}

/// A destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dst {
    /// Register.
    pub reg: Reg,
    /// Write mask, bit i = lane i.
    pub mask: u8,
}

/// One machine instruction (fields unused by the opcode's format stay at their defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MInst {
    /// Opcode.
    pub op: Opcode,
    /// Guard.
    pub pred: Pred,
    /// Saturate.
    pub sat: bool,
    /// Destination (ALU, TEX, LIMM).
    pub dst: Dst,
    /// Sources (ALU: by `op.sources()`; TEX: src[0] is the coordinate).
    pub src: [Src; 2],
    /// LIMM immediate bits.
    pub imm: u32,
    /// TEX sampler.
    pub sampler: u32,
    /// TEXD gradient temporary.
    pub grad: u32,
    /// BR/CALL target: a label id before layout, an instruction index after.
    pub target: u32,
    /// TEX: the coordinate lanes the sample reads (analysis only, not encoded).
    pub coord_lanes: u8,
}

impl MInst {
    /// An instruction with every field at its encoding default.
    pub fn new(op: Opcode) -> MInst {
        MInst {
            op,
            pred: Pred::ALWAYS,
            sat: false,
            dst: Dst {
                reg: Reg::temp(0),
                mask: 0xF,
            },
            src: [Src::of(Reg::temp(0)); 2],
            imm: 0,
            sampler: 0,
            grad: 0,
            target: 0,
            coord_lanes: 0xF,
        }
    }

    /// An ALU instruction.
    pub fn alu(op: Opcode, dst: Dst, a: Src, b: Src) -> MInst {
        let mut m = MInst::new(op);
        m.dst = dst;
        m.src[0] = a;
        // Unused source fields stay at their defaults, so listings stay clean.
        if m.nsrc() > 1 {
            m.src[1] = b;
        }
        m
    }

    /// True for instructions that write `dst`.
    pub fn has_dst(&self) -> bool {
        match self.op.format() {
            InstrFormat::ALU => !matches!(self.op, Opcode::EMITPIX | Opcode::EMITDEPTH),
            InstrFormat::TEX | InstrFormat::LIMM => true,
            InstrFormat::FLOW => false,
        }
    }

    /// How many of `src` the instruction reads.
    pub fn nsrc(&self) -> usize {
        match self.op.format() {
            InstrFormat::ALU => match self.op.sources() {
                SourceCount::NONE => 0,
                SourceCount::ONE => 1,
                SourceCount::TWO => 2,
            },
            InstrFormat::TEX => 1,
            _ => 0,
        }
    }

    /// The operand lanes source `i` contributes to the result.
    pub fn src_lanes(&self, i: usize) -> u8 {
        match self.op {
            Opcode::FDP2 => 0b0011,
            Opcode::FDP3 => 0b0111,
            Opcode::FDP4 | Opcode::EMITPIX => 0xF,
            Opcode::EMITDEPTH => 0b0001,
            _ if self.op.format() == InstrFormat::TEX => self.coord_lanes,
            _ if i < self.nsrc() => self.dst.mask,
            _ => 0,
        }
    }

    /// True when the destination's prior value is an input (FMAD).
    pub fn reads_dst(&self) -> bool {
        self.op == Opcode::FMAD
    }

    /// Whether source modifiers are legal on source `i`.
    pub fn allows_mod(&self) -> bool {
        match self.op.kind() {
            OpKind::FLOAT | OpKind::CMP | OpKind::MOVE => true,
            OpKind::CONV => matches!(self.op, Opcode::F2I | Opcode::F2U),
            _ => false,
        }
    }

    /// Whether saturate is legal.
    pub fn allows_sat(&self) -> bool {
        matches!(self.op.kind(), OpKind::FLOAT | OpKind::TEX)
    }
}

/// An IR item: a machine instruction or a label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item {
    /// A branch target.
    Label(u32),
    /// An instruction.
    I(MInst),
}

/// The code of one shader before allocation.
#[derive(Debug, Clone, Default)]
pub struct Code {
    /// Items in program order.
    pub items: Vec<Item>,
    /// Next free virtual temporary.
    pub next_vreg: u32,
    /// Next free label id.
    pub next_label: u32,
}

impl Code {
    /// A fresh virtual temporary.
    pub fn vreg(&mut self) -> Reg {
        let r = Reg::temp(self.next_vreg);
        self.next_vreg += 1;
        r
    }
    /// A fresh label id.
    pub fn label(&mut self) -> u32 {
        let l = self.next_label;
        self.next_label += 1;
        l
    }
    /// Appends an instruction.
    pub fn push(&mut self, i: MInst) {
        self.items.push(Item::I(i));
    }
}
