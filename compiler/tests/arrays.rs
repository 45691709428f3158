//! Indexed temporaries (`DCL TEMP[a..b], ARRAY(n)`, `TEMP[ADDR[0].x+k](n)`): random programs
//! of indexed reads and writes with random indices, out-of-range ones included, compiled
//! code on the sim's USSE interpreter against the reference interpreter (which clamps an
//! index into its array).

mod common;

use std::collections::BTreeMap;

use common::{check_fs, check_vs, check_vs_compiled, FsInputs, Rng, V};
use sgx_compiler::tgsi::File;
use sgx_compiler::{compile, CompileError};

/// An index as integer bits: mostly inside the array, often just outside, sometimes far.
fn index(r: &mut Rng, len: u32) -> u32 {
    match r.below(6) {
        0 => (r.below(7) as i32 - 7) as u32,
        1 => len + r.below(5) as u32,
        2 => *r.pick(&[i32::MIN as u32, i32::MAX as u32, u32::MAX]),
        _ => r.below(u64::from(len)) as u32,
    }
}

/// A random program over one array of `len` elements starting at TEMP[first].
fn program(r: &mut Rng, stage: &str, first: u32, len: u32) -> String {
    let last = first + len - 1;
    let id = 1 + r.below(3);
    let mut t = format!("{stage}\n");
    if stage == "VERT" {
        t += "DCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL OUT[2], GENERIC[1]\n";
    } else {
        t += "DCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], CONSTANT\nDCL IN[2], GENERIC[2], PERSPECTIVE\nDCL OUT[0], COLOR\n";
    }
    if first > 0 {
        t += &format!("DCL TEMP[0..{}]\n", first - 1);
    }
    t += &format!("DCL TEMP[{first}..{last}], ARRAY({id}), LOCAL\n");
    t += &format!("DCL TEMP[{}..{}]\n", last + 1, last + 2);
    t += "DCL ADDR[0]\n";
    let acc = last + 1;
    let mut n = 0;
    let mut line = |t: &mut String, s: String| {
        *t += &format!("{n:3}: {s}\n");
        n += 1;
    };
    for k in first..=last {
        line(
            &mut t,
            format!(
                "ADD TEMP[{k}], IN[0], IN[2].{}",
                *r.pick(&["x", "y", "z", "w"])
            ),
        );
        line(&mut t, format!("MUL TEMP[{k}], TEMP[{k}], IN[2].xyzw"));
    }
    line(&mut t, format!("MOV TEMP[{acc}], IN[0].wzyx"));
    let comps = ["x", "y", "z", "w"];
    let masks = ["x", "xy", "yz", "xyzw", "w", "xzw"];
    for _ in 0..(3 + r.below(6)) {
        let c = *r.pick(&comps);
        // Offsets put the base anywhere around the array, so index + offset lands in it,
        // beside it or far off.
        let off = first as i64 + r.below(u64::from(len) + 2) as i64 - 1;
        let at = if off >= 0 {
            format!("ADDR[0].x+{off}")
        } else {
            format!("ADDR[0].x-{}", -off)
        };
        match r.below(5) {
            0 => line(&mut t, format!("ARL ADDR[0].x, IN[2].{c}")),
            1 | 2 => line(&mut t, format!("UARL ADDR[0].x, IN[1].{c}")),
            3 => line(
                &mut t,
                format!(
                    "MOV TEMP[{at}]({id}).{}, IN[0].{}",
                    r.pick(&masks),
                    r.pick(&["wzyx", "xxyy", "xyzw"])
                ),
            ),
            _ => line(
                &mut t,
                format!(
                    "ADD TEMP[{acc}], {}TEMP[{at}]({id}).{}, TEMP[{acc}]",
                    r.pick(&["", "-", ""]),
                    r.pick(&["xyzw", "wzyx", "yyxx"])
                ),
            ),
        }
    }
    // An indexed write whose source is the array itself, then every element summed.
    line(&mut t, "UARL ADDR[0].x, IN[1].y".into());
    line(
        &mut t,
        format!("MAD TEMP[ADDR[0].x+{first}]({id}).xy, TEMP[{last}], IN[0], TEMP[ADDR[0].x+{first}]({id})"),
    );
    for k in first..=last {
        line(&mut t, format!("ADD TEMP[{acc}], TEMP[{acc}], TEMP[{k}]"));
    }
    if stage == "VERT" {
        line(&mut t, format!("MOV OUT[1], TEMP[{acc}]"));
        line(&mut t, format!("MOV OUT[2], TEMP[ADDR[0].x+{last}]({id})"));
        line(&mut t, "MOV OUT[0], IN[0]".into());
    } else {
        line(&mut t, format!("MOV OUT[0], TEMP[{acc}]"));
    }
    line(&mut t, "END".into());
    t
}

fn small_floats(r: &mut Rng) -> V {
    [0; 4].map(|_| ((r.below(17) as f32 - 8.0) * 0.5).to_bits())
}

#[test]
fn indexed_temporaries_in_vertex_programs_match_the_reference() {
    let mut r = Rng(0x1d3_a77a);
    for _ in 0..300 {
        let len = 1 + r.below(9) as u32;
        let first = r.below(3) as u32;
        let t = program(&mut r, "VERT", first, len);
        let attrs: BTreeMap<u32, V> = [
            (0, r.fvec()),
            (1, [0; 4].map(|_| index(&mut r, len + first))),
            // ARL floors floats: indices as floats, fractional and out of range too.
            (
                2,
                [0; 4].map(|_| (index(&mut r, len) as i32 as f32 + 0.25).to_bits()),
            ),
        ]
        .into_iter()
        .collect();
        check_vs(&t, &attrs, &BTreeMap::new());
    }
}

#[test]
fn indexed_temporaries_in_fragment_programs_match_the_reference() {
    let mut r = Rng(0xf7a9_0001);
    for _ in 0..200 {
        let len = 1 + r.below(8) as u32;
        let first = r.below(2) as u32;
        let t = program(&mut r, "FRAG", first, len);
        // Each pixel of the quad indexes differently: the selection is per pixel.
        let inputs: FsInputs = [0; 4].map(|_| {
            [
                ((File::Input, 0), small_floats(&mut r)),
                ((File::Input, 1), [0; 4].map(|_| index(&mut r, len + first))),
                (
                    (File::Input, 2),
                    [0; 4].map(|_| (index(&mut r, len) as i32 as f32).to_bits()),
                ),
            ]
            .into_iter()
            .collect()
        });
        check_fs(&t, &inputs, &BTreeMap::new());
    }
}

/// Mesa's own output for a GLSL loop over a local array, with its dynamic store and load.
#[test]
fn mesa_loop_over_a_local_array() {
    let t = std::fs::read_to_string(format!(
        "{}/tests/shaders/mesa/loop.vert.tgsi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let cs = compile(&t).unwrap();
    let mut r = Rng(0x100b);
    for _ in 0..100 {
        // n (CONST[0][8].x, an int) and the read index (IN[0].y) in and out of range.
        let n = (r.below(12) as i32 - 2) as u32;
        let mut consts: BTreeMap<(u32, u32), V> =
            (0..8).map(|i| ((0, i), small_floats(&mut r))).collect();
        consts.insert((0, 8), [n, 0, 0, 0]);
        let mut pos = small_floats(&mut r);
        pos[1] = (r.below(14) as f32 - 3.0).to_bits();
        check_vs_compiled(&t, &cs, &[(0, pos)].into_iter().collect(), &consts);
    }
}

#[test]
fn indexed_temporaries_name_what_is_wrong() {
    let cases = [
        (
            "VERT\nDCL TEMP[0..3], ARRAY(1)\n 0: MOV TEMP[0], TEMP[ADDR[0].x](1)\n 1: END\n",
            "ADDR[0], which is not declared",
        ),
        (
            "VERT\nDCL TEMP[0..3], ARRAY(1)\nDCL ADDR[0]\n 0: MOV TEMP[0], TEMP[ADDR[0].x](2)\n 1: END\n",
            "TEMP array 2 is not declared",
        ),
        (
            "VERT\nDCL TEMP[0..3]\nDCL ADDR[0]\n 0: MOV TEMP[0], TEMP[ADDR[0].x+9]\n 1: END\n",
            "TEMP[9] is not in a declared range",
        ),
    ];
    for (t, what) in cases {
        let e = compile(t).unwrap_err();
        assert!(matches!(e, CompileError::Semantic { .. }), "{e:?}");
        assert!(e.to_string().contains(what), "{e} should name {what}");
    }
}
