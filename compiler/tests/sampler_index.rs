//! Dynamic sampler indexing (`SAMP[ADDR[2].x+k]`, GLSL sampler arrays indexed by a loop
//! counter or a uniform): random programs with per-pixel indices, out-of-range ones and
//! indices between declarations included, compiled code on the sim's USSE interpreter against
//! the reference interpreter (which clamps an index into the declared units, and reads the
//! last declared unit for an index that names none).

mod common;

use std::collections::BTreeMap;

use common::{check_fs, check_vs, FsInputs, Rng};
use sgx_compiler::tgsi::File;
use sgx_compiler::{compile, CompileError};

/// Sampler declarations: one range, or two with a gap between them.
fn declarations(r: &mut Rng) -> (String, Vec<u32>) {
    let first = r.below(3) as u32;
    let len = 1 + r.below(4) as u32;
    let mut units: Vec<u32> = (first..first + len).collect();
    let mut t = format!("DCL SAMP[{first}..{}]\n", first + len - 1);
    if r.below(2) == 0 {
        let second = first + len + 1 + r.below(2) as u32;
        if second < 8 {
            t += &format!("DCL SAMP[{second}]\n");
            units.push(second);
        }
    }
    for u in &units {
        t += &format!("DCL SVIEW[{u}], 2D, FLOAT\n");
    }
    (t, units)
}

/// An index as integer bits: mostly a declared unit, often outside, sometimes far.
fn index(r: &mut Rng, units: &[u32]) -> u32 {
    match r.below(6) {
        0 => (r.below(5) as i32 - 5) as u32,
        1 => units[units.len() - 1] + 1 + r.below(4) as u32,
        2 => *r.pick(&[i32::MIN as u32, i32::MAX as u32, u32::MAX]),
        _ => *r.pick(units),
    }
}

/// A random fragment program sampling through ADDR[2] (UARL from a flat varying) and ADDR[0]
/// (ARL from a float), with a constant offset, implicit and explicit LODs.
fn program(r: &mut Rng, decls: &str) -> String {
    let mut t = String::from(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], CONSTANT\n\
         DCL IN[2], GENERIC[2], CONSTANT\nDCL OUT[0], COLOR\n",
    );
    t += decls;
    t += "DCL TEMP[0..3]\nDCL ADDR[0..2]\n";
    let mut n = 0;
    let mut line = |t: &mut String, s: &str| {
        *t += &format!("{n:3}: {s}\n");
        n += 1;
    };
    line(&mut t, "MOV TEMP[0], IN[0].wzyx");
    line(&mut t, "UARL ADDR[2].x, IN[1].xxxx");
    line(&mut t, "ARL ADDR[0].y, IN[2].yyyy");
    for _ in 0..(2 + r.below(4)) {
        let a = *r.pick(&["ADDR[2].x", "ADDR[0].y"]);
        let k = *r.pick(&["", "+1", "+2", "-1"]);
        let (op, target) = *r.pick(&[("TEX", "2D"), ("TXL", "2D"), ("TXB", "2D")]);
        line(
            &mut t,
            &format!("{op} TEMP[1], IN[0].xyzw, SAMP[{a}{k}], {target}"),
        );
        line(&mut t, "MAD TEMP[0], TEMP[1], IN[0].yxzw, TEMP[0]");
        if r.below(3) == 0 {
            line(&mut t, "UARL ADDR[2].x, IN[2].xxxx");
        }
    }
    line(&mut t, "MOV OUT[0], TEMP[0]");
    line(&mut t, "END");
    t
}

#[test]
fn indexed_samplers_match_the_reference() {
    let mut r = Rng(0x005a_3b1e);
    for _ in 0..300 {
        let (decls, units) = declarations(&mut r);
        let text = program(&mut r, &decls);
        let mut inputs: FsInputs = Default::default();
        // Each pixel has its own indices, so the quad diverges in the chain.
        for inp in inputs.iter_mut() {
            inp.insert((File::Input, 0), r.fvec());
            let i1 = index(&mut r, &units);
            inp.insert((File::Input, 1), [i1, 0, 0, 0]);
            let i2 = index(&mut r, &units);
            let f = (r.below(12) as f32 - 3.0) + 0.5;
            inp.insert((File::Input, 2), [i2, f.to_bits(), 0, 0]);
        }
        check_fs(&text, &inputs, &BTreeMap::new());
    }
}

/// max-samplers' loop as st/mesa sends it for a screen without native integers: the index is
/// a float loop counter, ARL'd into ADDR[2]; the shader sums every unit once.
#[test]
fn a_loop_over_a_sampler_array_reads_each_unit_once() {
    let text = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0..7]
DCL SVIEW[0..7], 2D, FLOAT
DCL TEMP[0..2]
DCL ADDR[0..2]
IMM[0] FLT32 {0.0, 1.0, 8.0, 0.0}
  0: MOV TEMP[0], IMM[0].xxxx
  1: MOV TEMP[1].x, IMM[0].xxxx
  2: BGNLOOP :9
  3:   SGE TEMP[2].x, TEMP[1].xxxx, IMM[0].zzzz
  4:   IF TEMP[2].xxxx :6
  5:     BRK
  6:   ENDIF
  7:   ARL ADDR[2].x, TEMP[1].xxxx
  8:   TXL TEMP[2], IN[0].xyzz, SAMP[ADDR[2].x], 2D
  9:   ADD TEMP[0], TEMP[0], TEMP[2]
 10:   ADD TEMP[1].x, TEMP[1].xxxx, IMM[0].yyyy
 11: ENDLOOP :2
 12: MOV OUT[0], TEMP[0]
 13: END
";
    let mut inputs: FsInputs = Default::default();
    let c = [0.25f32, 0.5, 0.0, 0.0];
    for inp in inputs.iter_mut() {
        inp.insert((File::Input, 0), c.map(f32::to_bits));
    }
    let out = check_fs(text, &inputs, &BTreeMap::new());
    // FakeTex gives c.x / 2 + unit in x: the sum over units 0..7 is 8 * 0.125 + 28.
    assert_eq!(f32::from_bits(out.colour[0][0]), 29.0);
    let cs = compile(text).unwrap();
    let units: Vec<u32> = cs.samplers.iter().map(|s| s.unit).collect();
    assert_eq!(units, (0..8).collect::<Vec<_>>());
}

#[test]
fn an_indexed_sampler_needs_declarations() {
    let text = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0]
DCL ADDR[0..2]
  0: TEX TEMP[0], IN[0], SAMP[ADDR[2].x], 2D
  1: MOV OUT[0], TEMP[0]
  2: END
";
    assert!(matches!(compile(text), Err(CompileError::Semantic { .. })));
    let undeclared_addr = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0..1]
DCL TEMP[0]
DCL ADDR[0]
  0: TEX TEMP[0], IN[0], SAMP[ADDR[2].x], 2D
  1: MOV OUT[0], TEMP[0]
  2: END
";
    let e = compile(undeclared_addr).unwrap_err();
    assert!(e.to_string().contains("ADDR[2]"), "{e}");
}

fn mesa_file(name: &str) -> String {
    let p = format!("{}/tests/shaders/mesa/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// piglit's max-samplers as st/mesa sends it: each uniform value (the unit the loop samples,
/// and values past the array) against the reference, in both stages.
#[test]
fn max_samplers_as_mesa_sends_it_matches_the_reference() {
    let fs = mesa_file("max-samplers.frag.tgsi");
    let vs = mesa_file("max-samplers.vert.tgsi");
    let mut inputs: FsInputs = Default::default();
    for (px, inp) in inputs.iter_mut().enumerate() {
        let c = [0.1 * px as f32, 0.2, 0.3, 1.0];
        inp.insert((File::Input, 0), c.map(f32::to_bits));
    }
    let attrs: BTreeMap<u32, [u32; 4]> = [(0, [0.5f32, -0.5, 0.0, 1.0].map(f32::to_bits))].into();
    for unit in [0.0f32, 1.0, 3.0, 5.0, 7.0, 8.0, -1.0] {
        let consts: BTreeMap<(u32, u32), [u32; 4]> = [((0, 0), [unit.to_bits(); 4])].into();
        let out = check_fs(&fs, &inputs, &consts);
        // FakeTex's x is c.x / 2 + unit (c = 0.5 here), plus IN[0].x.
        let want = if (0.0..8.0).contains(&unit) {
            0.25 + unit
        } else {
            0.0
        };
        assert_eq!(f32::from_bits(out.colour[1][0]), want + 0.1, "unit {unit}");
        check_vs(&vs, &attrs, &consts);
    }
}
