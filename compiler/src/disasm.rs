//! Disassembler: words -> text that `asm::assemble` turns back into the same words.
//!
//! Syntax: `[(p0)|(!p0)] op[.sat] operands [{field=value, ...}]`. Operands are the ones the
//! opcode uses; fields it ignores are printed in braces only when they are not at their
//! default, so any decodable word round-trips. Undecodable words print as `.word a, b`.

use std::fmt::Write as _;

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

use crate::encode::decode;
use crate::error::{CompileError, Result};
use crate::ir::{Dst, MInst, Reg, RegFile, Src};

const LANES: [char; 4] = ['x', 'y', 'z', 'w'];

/// A register's name.
pub fn reg_name(r: Reg) -> String {
    match r.file {
        RegFile::Temp => format!("r{}", r.num),
        RegFile::Primary => format!("pa{}", r.num),
        RegFile::Secondary => format!("sa{}", r.num),
        RegFile::SecondaryIndexed => format!("sa[a0.x+{}]", r.num),
        RegFile::Output => format!("o{}", r.num),
        RegFile::Immediate => format!("#{}", r.num),
        RegFile::Predicate => format!("p{}", r.num),
        RegFile::Address => format!("a{}", r.num),
    }
}

/// A destination operand.
pub fn dst_text(d: &Dst) -> String {
    let mut s = reg_name(d.reg);
    if d.mask == 0 {
        s.push_str("._");
    } else if d.mask != 0xF {
        s.push('.');
        for (i, c) in LANES.iter().enumerate() {
            if d.mask & (1 << i) != 0 {
                s.push(*c);
            }
        }
    }
    s
}

/// A source operand.
pub fn src_text(s: &Src) -> String {
    let mut body = reg_name(s.reg);
    if s.swz != [0, 1, 2, 3] {
        body.push('.');
        body.extend(s.swz.iter().map(|c| LANES[usize::from(*c & 3)]));
    }
    match s.modi {
        SrcMod::NONE => body,
        SrcMod::NEG => format!("-{body}"),
        SrcMod::ABS => format!("|{body}|"),
        SrcMod::NEG_ABS => format!("-|{body}|"),
    }
}

fn pred_text(p: Pred) -> &'static str {
    match p {
        Pred::ALWAYS => "",
        Pred::P0 => "(p0) ",
        Pred::P1 => "(p1) ",
        Pred::P2 => "(p2) ",
        Pred::NOT_P0 => "(!p0) ",
        Pred::NOT_P1 => "(!p1) ",
        Pred::NOT_P2 => "(!p2) ",
    }
}

/// One instruction as text (without index).
pub fn inst_text(m: &MInst) -> String {
    let d = MInst::new(m.op);
    let mut s = format!("{}{}", pred_text(m.pred), m.op.name().to_ascii_lowercase());
    if m.sat {
        s.push_str(".sat");
    }
    let mut ops: Vec<String> = Vec::new();
    let mut extra: Vec<String> = Vec::new();
    match m.op.format() {
        InstrFormat::ALU => {
            if m.has_dst() {
                ops.push(dst_text(&m.dst));
            } else if m.dst != d.dst {
                extra.push(format!("dst={}", dst_text(&m.dst)));
            }
            for j in 0..2 {
                if j < m.nsrc() {
                    ops.push(src_text(&m.src[j]));
                } else if m.src[j] != d.src[j] {
                    extra.push(format!("src{j}={}", src_text(&m.src[j])));
                }
            }
        }
        InstrFormat::TEX => {
            ops.push(dst_text(&m.dst));
            ops.push(src_text(&m.src[0]));
            ops.push(format!("t{}", m.sampler));
            if m.op == Opcode::TEXD {
                ops.push(format!("g{}", m.grad));
            } else if m.grad != 0 {
                extra.push(format!("grad={}", m.grad));
            }
        }
        InstrFormat::LIMM => {
            ops.push(dst_text(&m.dst));
            ops.push(format!("{:#010x}", m.imm));
        }
        InstrFormat::FLOW => {
            if matches!(m.op, Opcode::BR | Opcode::CALL) {
                ops.push(m.target.to_string());
            } else if m.target != 0 {
                extra.push(format!("target={}", m.target));
            }
        }
    }
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    if !extra.is_empty() {
        let _ = write!(s, " {{{}}}", extra.join(", "));
    }
    if m.op == Opcode::LIMM {
        let _ = write!(s, " ; {:?}", f32::from_bits(m.imm));
    }
    s
}

/// Disassembles words (two per instruction) into an indexed listing, one per line.
pub fn disasm_words(words: &[u32]) -> Result<String> {
    if !words.len().is_multiple_of(2) {
        return Err(CompileError::Disasm(format!(
            "{} words is not a whole number of 2-word instructions",
            words.len()
        )));
    }
    let mut out = String::new();
    for (i, w) in words.chunks_exact(2).enumerate() {
        let text = match decode([w[0], w[1]]) {
            Ok(m) => inst_text(&m),
            Err(e) => format!(".word {:#010x}, {:#010x} ; {e}", w[0], w[1]),
        };
        let _ = writeln!(out, "{i:4}: {text}");
    }
    Ok(out)
}
