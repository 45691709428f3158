//! piglit's `variable-indexing` fragment shaders (arrays of matrices written and read by
//! column, row and element at uniform indices) in the TGSI Mesa 22.3's st/mesa makes with
//! indirect temporaries on: compiled code on the sim's USSE interpreter against the
//! reference interpreter, with uniforms that mix small integers (the indices, in and out
//! of range) and floats.

mod common;

use std::collections::BTreeMap;

use common::{check_fs, FsInputs, Rng, V};

const CAPTURES: &[&str] = &[
    "fs-temp-array-mat2-col-row-wr",
    "fs-temp-array-mat2-index-col-rd",
    "fs-temp-array-mat2-index-row-wr",
    "fs-temp-array-mat3-row-wr",
    "fs-temp-array-mat3-index-col-row-wr",
    "fs-temp-array-mat4-index-wr",
];

fn capture(name: &str) -> String {
    let p = format!(
        "{}/tests/shaders/mesa/{name}.frag.tgsi",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// A uniform vec4 whose lanes are integers (indices, mostly in range) or floats.
fn uniform(r: &mut Rng) -> V {
    [0; 4].map(|_| match r.below(3) {
        0 => (r.below(6) as i32 - 1) as u32,
        _ => r.float().to_bits(),
    })
}

#[test]
fn piglit_matrix_arrays_match_the_reference() {
    let mut r = Rng(0x919_1e7);
    for name in CAPTURES {
        let t = capture(name);
        for _ in 0..60 {
            let consts: BTreeMap<(u32, u32), V> =
                (0..16).map(|i| ((0, i), uniform(&mut r))).collect();
            let inputs: FsInputs = Default::default();
            check_fs(&t, &inputs, &consts);
        }
    }
}

/// The same tests as st/mesa compiles them for this screen (no native integers: ints are
/// floats, addresses are loaded with `ARL`), run with the uniforms of their `[test]`
/// section: the shader checks its own result, and piglit probes for green.
const NO_INTEGER_CAPTURES: &[&str] = &[
    "fs-temp-array-mat2-col-row-wr",
    "fs-temp-array-mat2-index-col-rd",
    "fs-temp-array-mat2-index-row-wr",
    "fs-temp-array-mat3-index-col-row-wr",
    "fs-temp-array-mat4-index-wr",
];

fn mesa_file(name: &str) -> String {
    let p = format!("{}/tests/shaders/mesa/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// Registers per column and columns of a shader_test uniform type (`int`, `vec3`, `mat2x2`).
fn shape(ty: &str) -> (usize, usize) {
    match ty {
        "int" | "float" => (1, 1),
        "vec2" => (2, 1),
        "vec3" => (3, 1),
        "vec4" => (4, 1),
        _ => match ty.strip_prefix("mat").map(|m| m.as_bytes()) {
            Some([c, b'x', r]) => (usize::from(r - b'0'), usize::from(c - b'0')),
            _ => panic!("uniform type {ty}"),
        },
    }
}

#[test]
fn piglit_matrix_arrays_without_integers_draw_green() {
    let green = [0.0f32, 1.0, 0.0, 1.0].map(f32::to_bits);
    for name in NO_INTEGER_CAPTURES {
        let text = mesa_file(&format!("{name}.nointeger.frag.tgsi"));
        let sh = sgx_compiler::parse(&text).unwrap();
        let cs = sgx_compiler::compile(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let locations: BTreeMap<String, u32> = mesa_file(&format!("{name}.uniforms"))
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(n, at)| (n.to_string(), at.parse().unwrap()))
            .collect();
        let mut consts: BTreeMap<(u32, u32), V> = BTreeMap::new();
        let mut colour = None;
        let mut probes = 0;
        for line in mesa_file(&format!("{name}.test")).lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["uniform", ty, uname, values @ ..] => {
                    // Without native integers st/mesa uploads an int uniform as a float.
                    let (rows, _) = shape(ty);
                    let at = locations[*uname];
                    for (k, v) in values.iter().enumerate() {
                        let reg = consts.entry((0, at + (k / rows) as u32)).or_insert([0; 4]);
                        reg[k % rows] = v.parse::<f32>().unwrap().to_bits();
                    }
                }
                ["draw", "rect", ..] => {
                    let out = common::run_fs_compiled(&sh, &cs, &FsInputs::default(), &consts);
                    colour = Some(out.colour[0].map(f32::to_bits));
                }
                ["probe", "rgb", ..] => {
                    let got = colour.expect("a probe after a draw");
                    assert_eq!(got, green, "{name}: probe `{line}` with {consts:?}");
                    probes += 1;
                }
                _ => {}
            }
        }
        assert!(probes > 0, "{name}: no probes");
    }
}

/// piglit's `glsl-1.20/execution/fs-function-inout-array-of-structs` as st/mesa compiles it
/// for this screen: an `ivec4` array multiplied by the loop counter in a function, with
/// `2 * i` sent as `SHL i, 1.0` on float-held integers (lower/ops.rs `float_held_shift`).
/// The shader checks every element itself and draws green only when all are right.
#[test]
fn a_float_held_shift_doubles_in_an_array_of_structs_and_draws_green() {
    let name = "fs-function-inout-array-of-structs";
    let text = mesa_file(&format!("{name}.nointeger.frag.tgsi"));
    assert!(text.contains("SHL"), "the capture has the float-held shift");
    let sh = sgx_compiler::parse(&text).unwrap();
    let cs = sgx_compiler::compile(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = common::run_fs_compiled(&sh, &cs, &FsInputs::default(), &BTreeMap::new());
    let green = [0.0f32, 1.0, 0.0, 1.0].map(f32::to_bits);
    for px in 0..4 {
        assert_eq!(out.colour[px].map(f32::to_bits), green, "pixel {px}");
    }
}

/// A `SHL` with an integer (`UINT32`) count stays an integer shift.
#[test]
fn a_shift_by_an_integer_immediate_stays_an_integer_shift() {
    let text = "FRAG
DCL OUT[0], COLOR
DCL CONST[0][0]
DCL TEMP[0]
IMM[0] UINT32 {1, 2, 3, 31}
  0: SHL TEMP[0], CONST[0][0], IMM[0]
  1: MOV OUT[0], TEMP[0]
  2: END
";
    let consts: BTreeMap<(u32, u32), V> = [((0, 0), [3, 0x3f80_0000, 7, 1])].into();
    let out = check_fs(text, &Default::default(), &consts);
    assert_eq!(out.colour[0], [6, 0xfe00_0000, 56, 0x8000_0000]);
}
