//! Uniform arrays past the secondary bank (skinning palettes, light arrays): constants in
//! memory, read directly past sa127 and indexed anywhere, differential-tested against the
//! reference interpreter with random indices, out-of-range ones included (both clamp into
//! the buffer's declared range).

mod common;

use std::collections::BTreeMap;

use common::{check_fs, check_vs, check_vs_compiled, FsInputs, Rng, V};
use sgx_compiler::tgsi::File;
use sgx_compiler::{compile, CompileError};

fn index(r: &mut Rng, len: u32) -> u32 {
    match r.below(6) {
        0 => (r.below(9) as i32 - 9) as u32,
        1 => len + r.below(9) as u32,
        2 => *r.pick(&[i32::MIN as u32, i32::MAX as u32]),
        _ => r.below(u64::from(len)) as u32,
    }
}

/// A program reading a `len`-vec4 uniform array at random indexed and direct places.
fn program(r: &mut Rng, stage: &str, len: u32, second: u32) -> String {
    let mut t = format!("{stage}\n");
    if stage == "VERT" {
        t += "DCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL OUT[2], GENERIC[1]\n";
    } else {
        t += "DCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], CONSTANT\nDCL OUT[0], COLOR\n";
    }
    t += &format!("DCL CONST[0][0..{}]\n", len - 1);
    if second > 0 {
        t += &format!("DCL CONST[1][0..{}]\n", second - 1);
    }
    t += "DCL TEMP[0..1]\nDCL ADDR[0]\n";
    let mut n = 0;
    let mut line = |t: &mut String, s: String| {
        *t += &format!("{n:3}: {s}\n");
        n += 1;
    };
    line(&mut t, "MOV TEMP[0], IN[0]".into());
    for _ in 0..(3 + r.below(6)) {
        let c = *r.pick(&["x", "y", "z", "w"]);
        let off = r.below(u64::from(len)) as i64 - 2;
        let at = if off >= 0 {
            format!("ADDR[0].x+{off}")
        } else {
            format!("ADDR[0].x-{}", -off)
        };
        let buf = if second > 0 && r.below(4) == 0 { 1 } else { 0 };
        match r.below(5) {
            0 => line(&mut t, format!("UARL ADDR[0].x, IN[1].{c}")),
            1 => line(
                &mut t,
                format!(
                    "MAD TEMP[0], {}CONST[{buf}][{at}].{}, TEMP[0], IN[0]",
                    r.pick(&["", "-"]),
                    r.pick(&["xyzw", "wzyx", "yyxx"])
                ),
            ),
            2 => line(&mut t, format!("DP4 TEMP[0].{c}, CONST[0][{at}], TEMP[0]")),
            3 => {
                // Direct reads on both sides of the bank's end.
                let i = *r.pick(&[0, 127.min(len - 1), 128.min(len - 1), len - 1]);
                line(&mut t, format!("ADD TEMP[0], TEMP[0], CONST[0][{i}]"));
            }
            _ => line(&mut t, format!("MOV TEMP[1], CONST[0][{at}]")),
        }
    }
    if stage == "VERT" {
        line(&mut t, "MOV OUT[1], TEMP[0]".into());
        line(&mut t, "MOV OUT[2], CONST[0][ADDR[0].x]".into());
        line(&mut t, "MOV OUT[0], IN[0]".into());
    } else {
        line(&mut t, "ADD OUT[0], TEMP[0], CONST[0][ADDR[0].x+1]".into());
    }
    line(&mut t, "END".into());
    t
}

fn small(r: &mut Rng) -> V {
    [0; 4].map(|_| ((r.below(33) as f32 - 16.0) * 0.25).to_bits())
}

fn consts(r: &mut Rng, len: u32, second: u32) -> BTreeMap<(u32, u32), V> {
    let mut c: BTreeMap<(u32, u32), V> = (0..len).map(|i| ((0, i), small(r))).collect();
    c.extend((0..second).map(|i| ((1, i), small(r))));
    c
}

#[test]
fn uniform_arrays_past_the_bank_match_the_reference_in_vertex_programs() {
    let mut r = Rng(0xc0_4257);
    for _ in 0..150 {
        let len = *r.pick(&[129, 200, 256, 600, 1000]);
        let second = if r.below(2) == 0 {
            0
        } else {
            1 + r.below(20) as u32
        };
        let t = program(&mut r, "VERT", len, second);
        let c = consts(&mut r, len, second);
        let attrs: BTreeMap<u32, V> =
            [(0, small(&mut r)), (1, [0; 4].map(|_| index(&mut r, len)))].into();
        check_vs(&t, &attrs, &c);
    }
}

#[test]
fn uniform_arrays_past_the_bank_match_the_reference_in_fragment_programs() {
    let mut r = Rng(0xf4a6);
    for _ in 0..100 {
        let len = *r.pick(&[130, 256, 512]);
        let t = program(&mut r, "FRAG", len, 0);
        let c = consts(&mut r, len, 0);
        let inputs: FsInputs = [0; 4].map(|_| {
            [
                ((File::Input, 0), small(&mut r)),
                ((File::Input, 1), [0; 4].map(|_| index(&mut r, len))),
            ]
            .into()
        });
        check_fs(&t, &inputs, &c);
    }
}

/// Mesa's output for a 256-vec4 skinning palette indexed by a vertex attribute.
#[test]
fn mesa_skinning_palette_of_256_vec4s() {
    let t = std::fs::read_to_string(format!(
        "{}/tests/shaders/mesa/skin.vert.tgsi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let cs = compile(&t).unwrap();
    assert_eq!(cs.const_regs, 256);
    let mut r = Rng(0x5417);
    for _ in 0..100 {
        let c = consts(&mut r, 256, 0);
        // Bone indices as floats: in range, past the palette and negative.
        let mut idx = [0u32; 4];
        for l in idx.iter_mut() {
            *l = (r.below(100) as f32 - 10.0).to_bits();
        }
        check_vs_compiled(&t, &cs, &[(0, small(&mut r)), (1, idx)].into(), &c);
    }
}

#[test]
fn constant_memory_has_a_named_limit() {
    let e = compile("VERT\nDCL CONST[0][0..1023]\nDCL CONST[1][0..1]\n 0: END\n").unwrap_err();
    assert!(
        matches!(
            e,
            CompileError::Limit {
                limit: "usse::CONST_MEMORY_REGS",
                need: 1026,
                max: 1024
            }
        ),
        "{e:?}"
    );
}
