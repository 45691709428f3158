//! Address arithmetic in programs Mesa makes for a screen without native integers.
//!
//! This screen reports `PIPE_SHADER_CAP_INTEGERS` = 0, so st/mesa (22.3) turns a GLSL `int`
//! into a float and loads addresses with `ARL` (floor of a float). Two of its passes still
//! leave integer opcodes in the chain that computes an `ARL` operand:
//! `nir_lower_int_to_float` keeps `ishl` (`SHL TEMP, CONST, IMM` with the shift count
//! turned into the float 1.0), and `nir_lower_locals_to_regs` runs after it and builds an
//! array element's register offset with `iadd`/`imul`/`ishl` on integer immediates and the
//! float index (`UADD TEMP, IMM, CONST`). Run as written, `1.0f + 2` floors to 1, not 3, and
//! piglit's variable-indexing tests read and write the wrong element.
//!
//! With native integers st/mesa loads integer addresses with `UARL`, so an integer opcode
//! in a chain that ends in `ARL` only comes from this: such opcodes become their float
//! forms (`UADD`->`ADD`, `UMUL`->`MUL`, `UMAD`->`MAD`, `SHL a, n`->`MUL a, 2^n`), and their
//! immediate operands are read as integers when their bits are one (within +-2^24: as a
//! float they would be a denormal or a NaN), else as floats.

use std::collections::BTreeSet;

use super::ast::{File, ImmType, Immediate, Instruction, Shader, SrcOperand};

/// Opcodes a chain is followed through: float arithmetic and the integer forms rewritten.
const CHAIN_OPS: &[&str] = &[
    "MOV", "ADD", "MUL", "MAD", "UADD", "UMUL", "UMAD", "SHL", "FLR", "ROUND",
];

/// The program with its float-address chains rewritten, or `None` when it has none.
pub fn rewrite(sh: &Shader) -> Option<Shader> {
    let mut marked = BTreeSet::new();
    for (i, ins) in sh.instrs.iter().enumerate() {
        if ins.opcode == "ARL" {
            if let Some(s) = ins.src.first() {
                for lane in 0..4 {
                    if ins.dst.first().is_some_and(|d| d.mask & (1 << lane) != 0) {
                        mark(sh, i, s, usize::from(s.swz[lane]), &mut marked);
                    }
                }
            }
        }
    }
    let int_ops: Vec<usize> = marked
        .into_iter()
        .filter(|&j| {
            let op = sh.instrs[j].opcode.as_str();
            matches!(op, "UADD" | "UMUL" | "UMAD")
                || (op == "SHL"
                    && sh.instrs[j]
                        .src
                        .get(1)
                        .is_some_and(|s| s.reg.file == File::Imm))
        })
        .collect();
    if int_ops.is_empty() {
        return None;
    }
    let mut out = sh.clone();
    for j in int_ops {
        let ins = &mut out.instrs[j];
        let shl = ins.opcode == "SHL";
        ins.opcode = match ins.opcode.as_str() {
            "UADD" => "ADD",
            "UMAD" => "MAD",
            _ => "MUL",
        }
        .into();
        let srcs = ins.src.clone();
        for (k, s) in srcs.iter().enumerate() {
            if s.reg.file != File::Imm || s.reg.indirect.is_some() {
                continue;
            }
            let Some(imm) = usize::try_from(s.reg.index)
                .ok()
                .and_then(|n| sh.imms.get(n))
            else {
                continue;
            };
            let lanes = s.swz.map(|c| {
                let v = number(imm.bits[usize::from(c)]);
                let v = if shl && k == 1 { v.exp2() } else { v };
                v.to_bits()
            });
            out.imms.push(Immediate {
                ty: ImmType::Flt32,
                bits: lanes,
            });
            let src = &mut out.instrs[j].src[k];
            src.reg.index = (out.imms.len() - 1) as i64;
            src.swz = [0, 1, 2, 3];
        }
    }
    Some(out)
}

/// The value of an immediate lane of address arithmetic: an integer if its bits are one.
fn number(bits: u32) -> f32 {
    let i = bits as i32;
    if (-(1 << 24)..=(1 << 24)).contains(&i) {
        i as f32
    } else {
        f32::from_bits(bits)
    }
}

/// Marks the instruction that last wrote `s`'s `lane` before instruction `before`, and the
/// chain behind it, when it is straight-line code of `CHAIN_OPS`.
fn mark(sh: &Shader, before: usize, s: &SrcOperand, lane: usize, marked: &mut BTreeSet<usize>) {
    if s.reg.file != File::Temp || s.reg.indirect.is_some() {
        return;
    }
    for j in (0..before).rev() {
        let ins: &Instruction = &sh.instrs[j];
        let Some(d) = ins.dst.first() else {
            if ins.opcode == "NOP" {
                continue;
            }
            // Control flow: where the value came from is not one straight line.
            return;
        };
        if d.reg.file != File::Temp || d.reg.index != s.reg.index || d.mask & (1 << lane) == 0 {
            if d.reg.file == File::Temp && d.reg.indirect.is_some() {
                return;
            }
            continue;
        }
        if d.reg.indirect.is_some() || !CHAIN_OPS.contains(&ins.opcode.as_str()) {
            return;
        }
        if marked.insert(j) {
            for src in &ins.src {
                mark(sh, j, src, usize::from(src.swz[lane]), marked);
            }
        }
        return;
    }
}
