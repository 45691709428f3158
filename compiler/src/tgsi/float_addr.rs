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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tgsi::parse;

    const HEAD: &str = "FRAG\nDCL OUT[0], COLOR\nDCL CONST[0][0..1]\nDCL TEMP[0..3]\nDCL ADDR[0]\n\
        IMM[0] FLT32 {0x00000000, 0x00000001, 0x3f800000, 0x00000003}\n";

    fn ops(sh: &Shader) -> Vec<&str> {
        sh.instrs.iter().map(|i| i.opcode.as_str()).collect()
    }

    /// The float values of instruction `i`'s source `k` (an immediate after the rewrite).
    fn imm(sh: &Shader, i: usize, k: usize) -> [f32; 4] {
        let s = &sh.instrs[i].src[k];
        assert_eq!(s.reg.file, File::Imm);
        let b = sh.imms[s.reg.index as usize].bits;
        s.swz.map(|c| f32::from_bits(b[usize::from(c)]))
    }

    #[test]
    fn integer_ops_feeding_arl_become_float_ops() {
        let t = format!(
            "{HEAD}  0: SHL TEMP[0].x, CONST[0][0].xxxx, IMM[0].yyyy\n  1: SHL TEMP[1].x, CONST[0][0].xxxx, IMM[0].zzzz\n  2: UMUL TEMP[2].x, CONST[0][1].xxxx, IMM[0].wwww\n  3: UADD TEMP[0].x, IMM[0].yyyy, TEMP[0].xxxx\n  4: ADD TEMP[0].x, TEMP[0].xxxx, TEMP[1].xxxx\n  5: UADD TEMP[0].x, TEMP[0].xxxx, TEMP[2].xxxx\n  6: ARL ADDR[0].x, TEMP[0].xxxx\n  7: MOV OUT[0], CONST[0][ADDR[0].x]\n  8: END\n"
        );
        let sh = parse(&t).unwrap();
        let r = rewrite(&sh).expect("a chain ends in ARL");
        assert_eq!(
            ops(&r),
            ["MUL", "MUL", "MUL", "ADD", "ADD", "ADD", "ARL", "MOV", "END"]
        );
        // An integer shift count (1) and a float one (1.0, as nir_lower_int_to_float leaves
        // it) both multiply by 2; the integer 3 and 1 become 3.0 and 1.0.
        assert_eq!(imm(&r, 0, 1), [2.0; 4]);
        assert_eq!(imm(&r, 1, 1), [2.0; 4]);
        assert_eq!(imm(&r, 2, 1), [3.0; 4]);
        assert_eq!(imm(&r, 3, 0), [1.0; 4]);
        // The shared immediate itself is left as it was for its other readers.
        assert_eq!(r.imms[0], sh.imms[0]);
    }

    #[test]
    fn integer_addresses_and_other_integer_ops_are_left_alone() {
        // UARL: st/mesa's form with native integers.
        let t = format!(
            "{HEAD}  0: UADD TEMP[0].x, IMM[0].yyyy, CONST[0][0].xxxx\n  1: UARL ADDR[0].x, TEMP[0].xxxx\n  2: MOV OUT[0], CONST[0][ADDR[0].x]\n  3: END\n"
        );
        assert!(rewrite(&parse(&t).unwrap()).is_none());
        // An integer op whose result an ARL does not read; and one behind control flow.
        let t = format!(
            "{HEAD}  0: UADD TEMP[1].x, IMM[0].yyyy, CONST[0][0].xxxx\n  1: UADD TEMP[0].x, IMM[0].yyyy, CONST[0][0].xxxx\n  2: IF CONST[0][1].xxxx :4\n  3: ENDIF\n  4: ARL ADDR[0].x, TEMP[0].xxxx\n  5: MOV OUT[0], CONST[0][ADDR[0].x]\n  6: END\n"
        );
        assert!(rewrite(&parse(&t).unwrap()).is_none());
    }
}
