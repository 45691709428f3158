//! Differential tests of every opcode: random operand forms (swizzles, modifiers, masks,
//! aliasing destination and sources, immediates, _SAT) and random inputs, compiled code on
//! the sim's USSE interpreter against the reference interpreter.

mod common;

use std::collections::BTreeMap;

use common::{check_fs, check_vs, FsInputs, Rng, V};
use sgx_compiler::tgsi::File;

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    /// Float sources, float result (sat allowed).
    F,
    /// Float sources, integer result.
    FtoI,
    /// Integer sources and result.
    I,
}

const OPS: &[(&str, usize, Ty)] = &[
    ("MOV", 1, Ty::F),
    ("FRC", 1, Ty::F),
    ("FLR", 1, Ty::F),
    ("CEIL", 1, Ty::F),
    ("TRUNC", 1, Ty::F),
    ("ROUND", 1, Ty::F),
    ("SSG", 1, Ty::F),
    ("RCP", 1, Ty::F),
    ("RSQ", 1, Ty::F),
    ("SQRT", 1, Ty::F),
    ("EX2", 1, Ty::F),
    ("LG2", 1, Ty::F),
    ("SIN", 1, Ty::F),
    ("COS", 1, Ty::F),
    ("EXP", 1, Ty::F),
    ("LOG", 1, Ty::F),
    ("ADD", 2, Ty::F),
    ("MUL", 2, Ty::F),
    ("MIN", 2, Ty::F),
    ("MAX", 2, Ty::F),
    ("DP2", 2, Ty::F),
    ("DP3", 2, Ty::F),
    ("DP4", 2, Ty::F),
    ("DPH", 2, Ty::F),
    ("SLT", 2, Ty::F),
    ("SGE", 2, Ty::F),
    ("SEQ", 2, Ty::F),
    ("SNE", 2, Ty::F),
    ("SGT", 2, Ty::F),
    ("SLE", 2, Ty::F),
    ("POW", 2, Ty::F),
    ("DIV", 2, Ty::F),
    ("XPD", 2, Ty::F),
    ("MAD", 3, Ty::F),
    ("LRP", 3, Ty::F),
    ("CMP", 3, Ty::F),
    ("FSEQ", 2, Ty::FtoI),
    ("FSNE", 2, Ty::FtoI),
    ("FSLT", 2, Ty::FtoI),
    ("FSGE", 2, Ty::FtoI),
    ("F2I", 1, Ty::FtoI),
    ("F2U", 1, Ty::FtoI),
    ("I2F", 1, Ty::I),
    ("U2F", 1, Ty::I),
    ("NOT", 1, Ty::I),
    ("INEG", 1, Ty::I),
    ("AND", 2, Ty::I),
    ("OR", 2, Ty::I),
    ("XOR", 2, Ty::I),
    ("SHL", 2, Ty::I),
    ("ISHR", 2, Ty::I),
    ("USHR", 2, Ty::I),
    ("UADD", 2, Ty::I),
    ("UMUL", 2, Ty::I),
    ("IDIV", 2, Ty::I),
    ("UDIV", 2, Ty::I),
    ("UMOD", 2, Ty::I),
    ("USEQ", 2, Ty::I),
    ("USNE", 2, Ty::I),
    ("ISLT", 2, Ty::I),
    ("ISGE", 2, Ty::I),
    ("USLT", 2, Ty::I),
    ("USGE", 2, Ty::I),
    ("IMAX", 2, Ty::I),
    ("IMIN", 2, Ty::I),
    ("UMAX", 2, Ty::I),
    ("UMIN", 2, Ty::I),
    ("UCMP", 3, Ty::I),
];

const SRC_REGS: [&str; 7] = [
    "IN[0]",
    "IN[1]",
    "IN[2]",
    "CONST[0][0]",
    "CONST[0][1]",
    "IMM[0]",
    "TEMP[0]",
];

fn swizzle(r: &mut Rng) -> String {
    if r.below(3) == 0 {
        return String::new();
    }
    let s: String = (0..4).map(|_| *r.pick(&['x', 'y', 'z', 'w'])).collect();
    format!(".{s}")
}

fn mask(r: &mut Rng) -> String {
    let m = (r.below(15) + 1) as u8;
    if m == 15 {
        return String::new();
    }
    let s: String = (0..4)
        .filter(|l| m & (1 << l) != 0)
        .map(|l| "xyzw".as_bytes()[l] as char)
        .collect();
    format!(".{s}")
}

fn operand(r: &mut Rng, ty: Ty) -> String {
    let reg = *r.pick(&SRC_REGS);
    let sw = swizzle(r);
    let (neg, abs) = match ty {
        Ty::I => (r.below(6) == 0, r.below(10) == 0),
        _ => (r.below(3) == 0, r.below(4) == 0),
    };
    let body = if abs {
        format!("|{reg}{sw}|")
    } else {
        format!("{reg}{sw}")
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

fn imm_line(r: &mut Rng, ty: Ty) -> String {
    if ty == Ty::I {
        let v: Vec<String> = (0..4).map(|_| r.uint().to_string()).collect();
        format!("IMM[0] UINT32 {{{}}}", v.join(", "))
    } else {
        let v: Vec<String> = (0..4)
            .map(|_| {
                let f = match r.below(3) {
                    0 => r.below(130) as f32,
                    1 => -(r.below(5) as f32),
                    _ => r.float(),
                };
                format!("{:#010x}", f.to_bits())
            })
            .collect();
        format!("IMM[0] FLT32 {{{}}}", v.join(", "))
    }
}

fn values(r: &mut Rng, ty: Ty) -> V {
    if ty == Ty::I {
        r.uvec()
    } else {
        r.fvec()
    }
}

/// One random use of `op`: (shader text for the stage, destination is TEMP[0]).
fn shader(r: &mut Rng, op: &str, nsrc: usize, ty: Ty, frag: bool) -> String {
    let sat = ty == Ty::F && r.below(4) == 0;
    let srcs: Vec<String> = (0..nsrc).map(|_| operand(r, ty)).collect();
    let to_temp = r.below(2) == 0;
    let out = if frag { "OUT[0]" } else { "OUT[1]" };
    let dst = if to_temp {
        format!("TEMP[0]{}", mask(r))
    } else {
        format!("{out}{}", mask(r))
    };
    let head = if frag {
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\nDCL IN[2], GENERIC[2], LINEAR\nDCL OUT[0], COLOR\n"
    } else {
        "VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n"
    };
    let mut t = format!(
        "{head}DCL CONST[0][0..1]\nDCL TEMP[0..1]\n{}\n  0: MOV TEMP[0], IN[2]\n  1: {op}{} {dst}, {}\n",
        imm_line(r, ty),
        if sat { "_SAT" } else { "" },
        srcs.join(", ")
    );
    if to_temp {
        t.push_str(&format!("  2: MOV {out}, TEMP[0]\n"));
    }
    if !frag {
        t.push_str("  3: MOV OUT[0], IN[0]\n");
    }
    t.push_str("  4: END\n");
    t
}

fn consts(r: &mut Rng, ty: Ty) -> BTreeMap<(u32, u32), V> {
    (0..2).map(|i| ((0, i), values(r, ty))).collect()
}

#[test]
fn every_opcode_vertex() {
    let mut r = Rng(0x5eed_0001);
    for &(op, nsrc, ty) in OPS {
        for _ in 0..24 {
            let text = shader(&mut r, op, nsrc, ty, false);
            for _ in 0..4 {
                let attrs: BTreeMap<u32, V> = (0..3).map(|i| (i, values(&mut r, ty))).collect();
                check_vs(&text, &attrs, &consts(&mut r, ty));
            }
        }
    }
}

fn fs_inputs(r: &mut Rng, ty: Ty) -> FsInputs {
    [0; 4].map(|_| (0..3).map(|i| ((File::Input, i), values(r, ty))).collect())
}

#[test]
fn every_opcode_fragment() {
    let mut r = Rng(0x5eed_0002);
    let fs_only: &[(&str, usize, Ty)] = &[("DDX", 1, Ty::F), ("DDY", 1, Ty::F)];
    for &(op, nsrc, ty) in OPS.iter().chain(fs_only) {
        for _ in 0..8 {
            let text = shader(&mut r, op, nsrc, ty, true);
            for _ in 0..3 {
                check_fs(&text, &fs_inputs(&mut r, ty), &consts(&mut r, ty));
            }
        }
    }
}

#[test]
fn kill_and_kill_if() {
    let mut r = Rng(0x5eed_0003);
    let mut killed_some = false;
    let mut kept_some = false;
    for _ in 0..40 {
        let src = operand(&mut r, Ty::F);
        let text = format!(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\nDCL IN[2], GENERIC[2], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL CONST[0][0..1]\nDCL TEMP[0..1]\n{}\n 0: MOV TEMP[0], IN[2]\n 1: KILL_IF {src}\n 2: MOV OUT[0], TEMP[0]\n 3: END\n",
            imm_line(&mut r, Ty::F)
        );
        let res = check_fs(&text, &fs_inputs(&mut r, Ty::F), &consts(&mut r, Ty::F));
        killed_some |= res.killed.iter().any(|k| *k);
        kept_some |= res.killed.iter().any(|k| !*k);
    }
    assert!(
        killed_some && kept_some,
        "the random inputs must exercise both outcomes"
    );
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n 0: MOV OUT[0], IN[0]\n 1: KILL\n 2: END\n";
    let res = check_fs(text, &fs_inputs(&mut r, Ty::F), &BTreeMap::new());
    assert_eq!(res.killed, [true; 4]);
    assert!(sgx_compiler::compile(text).unwrap().discards);
}

#[test]
fn texture_opcodes() {
    let mut r = Rng(0x5eed_0004);
    let targets = ["1D", "2D", "3D", "CUBE", "SHADOW1D", "SHADOW2D"];
    for op in ["TEX", "TXB", "TXL", "TXP"] {
        for frag in [true, false] {
            for k in 0..24 {
                let target = targets[k % targets.len()];
                let unit = r.below(8);
                let coord = operand(&mut r, Ty::F);
                let sat = if r.below(3) == 0 { "_SAT" } else { "" };
                let (head, out) = if frag {
                    ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], PERSPECTIVE\nDCL IN[2], GENERIC[2], PERSPECTIVE\nDCL OUT[0], COLOR\n", "OUT[0]")
                } else {
                    ("VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n", "OUT[1]")
                };
                let text = format!(
                    "{head}DCL CONST[0][0..1]\nDCL SAMP[{unit}]\nDCL SVIEW[{unit}], {target}, FLOAT\nDCL TEMP[0..1]\n{}\n 0: MOV TEMP[0], IN[2]\n 1: {op}{sat} TEMP[0]{}, {coord}, SAMP[{unit}], {target}\n 2: MOV {out}, TEMP[0]\n 3: END\n",
                    imm_line(&mut r, Ty::F),
                    mask(&mut r)
                );
                let cs = sgx_compiler::compile(&text).unwrap();
                assert_eq!(cs.samplers.len(), 1);
                assert_eq!(cs.samplers[0].unit as u64, unit);
                assert_eq!(cs.samplers[0].target.name(), target);
                if frag {
                    common::check_fs_compiled(
                        &text,
                        &cs,
                        &fs_inputs(&mut r, Ty::F),
                        &consts(&mut r, Ty::F),
                    );
                } else {
                    let attrs: BTreeMap<u32, V> = (0..3).map(|i| (i, r.fvec())).collect();
                    common::check_vs_compiled(&text, &cs, &attrs, &consts(&mut r, Ty::F));
                }
            }
        }
    }
}

#[test]
fn address_register_and_indirect_constants() {
    let mut r = Rng(0x5eed_0005);
    for op in ["ARL", "UARL"] {
        for _ in 0..30 {
            let k = r.below(4);
            let text = format!(
                "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL CONST[0][0..9]\nDCL ADDR[0]\nDCL TEMP[0]\n 0: {op} ADDR[0].x, IN[1].{}\n 1: MOV OUT[1], CONST[0][ADDR[0].x+{k}]\n 2: ADD OUT[1].y, CONST[0][ADDR[0].x+{k}].xxxx, IN[0]\n 3: MOV OUT[0], IN[0]\n 4: END\n",
                r.pick(&["x", "y", "z", "w"])
            );
            let idx: Vec<u32> = (0..4).map(|_| r.below(6) as u32).collect();
            let lane: [u32; 4] = if op == "ARL" {
                [0, 1, 2, 3].map(|l| (idx[l] as f32 + 0.25 * r.below(4) as f32).to_bits())
            } else {
                [0, 1, 2, 3].map(|l| idx[l])
            };
            let attrs: BTreeMap<u32, V> = [(0, r.fvec()), (1, lane)].into_iter().collect();
            let consts: BTreeMap<(u32, u32), V> = (0..10).map(|i| ((0, i), r.fvec())).collect();
            check_vs(&text, &attrs, &consts);
        }
    }
}

#[test]
fn pow_of_a_zero_exponent_is_one_whatever_the_base() {
    // Fixed-function spot lights raise |cos| = 0 to exponent 0: log2(0) * 0 is NaN unless
    // the exponent is special-cased.
    let text = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: POW OUT[1], IN[1].xxxx, IN[1].yyyy\n  2: END\n";
    for (x, y) in [
        (0.0f32, 0.0f32),
        (0.0, 1.0),
        (1.0, 0.0),
        (2.0, 0.0),
        (0.25, 0.5),
        (8.0, 2.0),
    ] {
        let attrs = BTreeMap::from([(1, [x.to_bits(), y.to_bits(), 0, 0])]);
        check_vs(text, &attrs, &BTreeMap::new());
    }
}

#[test]
fn vertex_colours_are_clamped_to_0_1_and_generics_are_not() {
    let text = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], COLOR[0]\nDCL OUT[2], BCOLOR[1]\nDCL OUT[3], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: MOV OUT[2], IN[1].wzyx\n  3: MOV OUT[3], IN[1]\n  4: END\n";
    let v = [-2.0f32, 0.5, 3.0, f32::NAN].map(f32::to_bits);
    let attrs = BTreeMap::from([(1, v)]);
    // The reference clamps colours after the program, as GL does: the compiled code agrees.
    check_vs(text, &attrs, &BTreeMap::new());
    let out = common::run_vs_outputs(text, &attrs);
    let f = |i: u32| out[&i].map(f32::from_bits);
    assert_eq!(f(1), [0.0, 0.5, 1.0, 0.0]);
    assert_eq!(f(2), [0.0, 1.0, 0.5, 0.0]);
    assert_eq!(f(3)[..3], [-2.0, 0.5, 3.0]);
}

/// Past the varying limit the outputs are packed, and each one names its lanes: the clamp
/// saturates exactly a colour's own lanes (all four of a COLOR, the two a `.xy` BCOLOR
/// declares), and the generics packed beside them keep their values.
#[test]
fn packed_vertex_colours_are_clamped_in_their_own_lanes() {
    // One varying more than the limit: two colours and scalar generics.
    let n = sgx_hwdocs::limits::MAX_VARYINGS as u32 - 1;
    let generics = 3..3 + n;
    let mut text = String::from(
        "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], COLOR[0]\nDCL OUT[2].xy, BCOLOR[0]\n",
    );
    for i in generics.clone() {
        text += &format!("DCL OUT[{i}].x, GENERIC[{}]\n", i - 3);
    }
    let mut code = vec![
        "MOV OUT[0], IN[0]".to_string(),
        "MOV OUT[1], IN[1]".into(),
        "MOV OUT[2].xy, IN[1].wzyx".into(),
    ];
    code.extend(
        generics
            .clone()
            .map(|i| format!("MOV OUT[{i}].x, IN[1].xxxx")),
    );
    code.push("END".into());
    for (k, ins) in code.iter().enumerate() {
        text += &format!("{k:3}: {ins}\n");
    }
    let cs = sgx_compiler::compile(&text).unwrap();
    let lanes = |i: u32| cs.outputs.iter().find(|o| o.index == i).unwrap().lanes;
    // The layout is packed (else this test says nothing about lanes): the colours start at
    // lane 0 with their declared widths, and some generic shares a register at lane 1 or more.
    assert_eq!((lanes(1), lanes(2)), ((0, 4), (0, 2)));
    assert!(generics.clone().any(|i| lanes(i).0 > 0), "{:?}", cs.outputs);
    let v = [-2.0f32, 0.5, 3.0, f32::NAN].map(f32::to_bits);
    let out = common::run_vs_outputs(&text, &BTreeMap::from([(1, v)]));
    let f = |i: u32| out[&i].map(f32::from_bits);
    assert_eq!(f(1), [0.0, 0.5, 1.0, 0.0], "COLOR, every lane");
    assert_eq!(f(2)[..2], [0.0, 1.0], "BCOLOR.xy (NaN and 3.0 clamped)");
    for i in generics {
        let (first, _) = lanes(i);
        assert_eq!(f(i)[usize::from(first)], -2.0, "GENERIC OUT[{i}] unclamped");
    }
}
