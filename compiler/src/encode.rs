//! Machine instructions <-> words, through hwdocs' packers.

use sgx_hwdocs::usse::{
    DstBank, InstrFormat, Opcode, SrcBank, UsseAlu, UsseFlow, UsseLimm, UsseTex, OPCODE_MASK,
};

use crate::error::{CompileError, Result};
use crate::ir::{Dst, MInst, Reg, RegFile, Src};

fn src_bank(f: RegFile) -> Option<SrcBank> {
    Some(match f {
        RegFile::Temp => SrcBank::TEMP,
        RegFile::Primary => SrcBank::PRIMARY,
        RegFile::Secondary => SrcBank::SECONDARY,
        RegFile::SecondaryIndexed => SrcBank::SECONDARY_INDEXED,
        RegFile::Output => SrcBank::OUTPUT,
        RegFile::Immediate => SrcBank::IMMEDIATE,
        RegFile::Predicate | RegFile::Address => return None,
    })
}

fn dst_bank(f: RegFile) -> Option<DstBank> {
    Some(match f {
        RegFile::Temp => DstBank::TEMP,
        RegFile::Output => DstBank::OUTPUT,
        RegFile::Predicate => DstBank::PREDICATE,
        RegFile::Address => DstBank::ADDRESS,
        _ => return None,
    })
}

/// The register file of a source bank.
pub fn src_file(b: SrcBank) -> RegFile {
    match b {
        SrcBank::TEMP => RegFile::Temp,
        SrcBank::PRIMARY => RegFile::Primary,
        SrcBank::SECONDARY => RegFile::Secondary,
        SrcBank::SECONDARY_INDEXED => RegFile::SecondaryIndexed,
        SrcBank::OUTPUT => RegFile::Output,
        SrcBank::IMMEDIATE => RegFile::Immediate,
    }
}

/// The register file of a destination bank.
pub fn dst_file(b: DstBank) -> RegFile {
    match b {
        DstBank::TEMP => RegFile::Temp,
        DstBank::OUTPUT => RegFile::Output,
        DstBank::PREDICATE => RegFile::Predicate,
        DstBank::ADDRESS => RegFile::Address,
    }
}

/// Packs a swizzle: lane i in bits 2i+1:2i.
pub fn pack_swz(s: [u8; 4]) -> u32 {
    s.iter()
        .enumerate()
        .map(|(i, c)| u32::from(c & 3) << (2 * i))
        .sum()
}

/// Unpacks a swizzle.
pub fn unpack_swz(v: u32) -> [u8; 4] {
    [0, 1, 2, 3].map(|i| ((v >> (2 * i)) & 3) as u8)
}

fn bad(index: usize, msg: String) -> CompileError {
    CompileError::Semantic {
        line: 0,
        msg: format!("internal: instruction {index}: {msg}"),
    }
}

/// Encodes one instruction.
pub fn encode(m: &MInst, index: usize) -> Result<[u32; 2]> {
    let enc = |e| CompileError::Encode { index, source: e };
    let sb = |s: &Src| {
        src_bank(s.reg.file)
            .ok_or_else(|| bad(index, format!("{:?} is not a source bank", s.reg.file)))
    };
    let db = |d: &Dst| {
        dst_bank(d.reg.file)
            .ok_or_else(|| bad(index, format!("{:?} is not a destination bank", d.reg.file)))
    };
    Ok(match m.op.format() {
        InstrFormat::ALU => UsseAlu {
            opcode: m.op,
            pred: m.pred,
            sat: m.sat,
            dst_mask: u32::from(m.dst.mask),
            dst_bank: db(&m.dst)?,
            dst_num: m.dst.reg.num,
            src0_swz: pack_swz(m.src[0].swz),
            src0_bank: sb(&m.src[0])?,
            src0_num: m.src[0].reg.num,
            src0_mod: m.src[0].modi,
            src1_bank: sb(&m.src[1])?,
            src1_num: m.src[1].reg.num,
            src1_mod: m.src[1].modi,
            src1_swz: pack_swz(m.src[1].swz),
        }
        .pack()
        .map_err(enc)?,
        InstrFormat::TEX => {
            if m.src[0].modi != sgx_hwdocs::usse::SrcMod::NONE {
                return Err(bad(index, "TEX coordinate with a modifier".into()));
            }
            UsseTex {
                opcode: m.op,
                pred: m.pred,
                sat: m.sat,
                dst_mask: u32::from(m.dst.mask),
                dst_bank: db(&m.dst)?,
                dst_num: m.dst.reg.num,
                coord_swz: pack_swz(m.src[0].swz),
                coord_bank: sb(&m.src[0])?,
                coord_num: m.src[0].reg.num,
                sampler: m.sampler,
                grad: m.grad,
            }
            .pack()
            .map_err(enc)?
        }
        InstrFormat::FLOW => UsseFlow {
            opcode: m.op,
            pred: m.pred,
            target: m.target,
        }
        .pack()
        .map_err(enc)?,
        InstrFormat::LIMM => UsseLimm {
            opcode: m.op,
            pred: m.pred,
            dst_mask: u32::from(m.dst.mask),
            dst_bank: db(&m.dst)?,
            dst_num: m.dst.reg.num,
            imm: m.imm,
        }
        .pack()
        .map_err(enc)?,
    })
}

/// Encodes a program (instruction k in words 2k, 2k+1).
pub fn encode_all(code: &[MInst]) -> Result<Vec<u32>> {
    let mut w = Vec::with_capacity(code.len() * 2);
    for (i, m) in code.iter().enumerate() {
        w.extend_from_slice(&encode(m, i)?);
    }
    Ok(w)
}

fn src(bank: SrcBank, num: u32, swz: u32, modi: sgx_hwdocs::usse::SrcMod) -> Src {
    Src {
        reg: Reg {
            file: src_file(bank),
            num,
        },
        swz: unpack_swz(swz),
        modi,
    }
}

fn dst(bank: DstBank, num: u32, mask: u32) -> Dst {
    Dst {
        reg: Reg {
            file: dst_file(bank),
            num,
        },
        mask: (mask & 0xF) as u8,
    }
}

/// Decodes one instruction, or says why it does not decode.
pub fn decode(w: [u32; 2]) -> std::result::Result<MInst, String> {
    let raw = w[0] & OPCODE_MASK as u32;
    let op = Opcode::from_raw(raw).ok_or_else(|| format!("unknown opcode {raw}"))?;
    let mut m = MInst::new(op);
    match op.format() {
        InstrFormat::ALU => {
            let a = UsseAlu::unpack(&w).map_err(|e| e.to_string())?;
            m.pred = a.pred;
            m.sat = a.sat;
            m.dst = dst(a.dst_bank, a.dst_num, a.dst_mask);
            m.src[0] = src(a.src0_bank, a.src0_num, a.src0_swz, a.src0_mod);
            m.src[1] = src(a.src1_bank, a.src1_num, a.src1_swz, a.src1_mod);
        }
        InstrFormat::TEX => {
            let t = UsseTex::unpack(&w).map_err(|e| e.to_string())?;
            m.pred = t.pred;
            m.sat = t.sat;
            m.dst = dst(t.dst_bank, t.dst_num, t.dst_mask);
            m.src[0] = src(
                t.coord_bank,
                t.coord_num,
                t.coord_swz,
                sgx_hwdocs::usse::SrcMod::NONE,
            );
            m.sampler = t.sampler;
            m.grad = t.grad;
        }
        InstrFormat::FLOW => {
            let f = UsseFlow::unpack(&w).map_err(|e| e.to_string())?;
            m.pred = f.pred;
            m.target = f.target;
        }
        InstrFormat::LIMM => {
            let l = UsseLimm::unpack(&w).map_err(|e| e.to_string())?;
            m.pred = l.pred;
            m.dst = dst(l.dst_bank, l.dst_num, l.dst_mask);
            m.imm = l.imm;
        }
    }
    Ok(m)
}
