//! Denormals flush (hwdocs model-choices): piglit's `fs-underflow-mul-compare-zero` and
//! `fs-underflow-pow-compare-zero` in TGSI, with their `[test]` uniforms, on the sim's USSE
//! interpreter against the reference interpreter: a product or power that would be a
//! denormal compares as 0, as on the GPUs of the SGX535's era.

mod common;

use std::collections::BTreeMap;

use common::{check_fs, FsInputs, V};

fn bits(x: f32) -> V {
    [x.to_bits(); 4]
}

/// `(|a| + eps) * (|b| + eps) * eps > 0` in x.
const MUL: &str = "FRAG
DCL OUT[0], COLOR
DCL CONST[0][0..1]
DCL TEMP[0..1]
IMM[0] FLT32 {0.000000000000000000433681, 0.0, 1.0, 0.0}
  0: ADD TEMP[0].x, |CONST[0][0].xxxx|, IMM[0].xxxx
  1: ADD TEMP[0].y, |CONST[0][1].xxxx|, IMM[0].xxxx
  2: MUL TEMP[0].x, TEMP[0].xxxx, TEMP[0].yyyy
  3: MUL TEMP[0].x, TEMP[0].xxxx, IMM[0].xxxx
  4: SLT TEMP[1].x, IMM[0].yyyy, TEMP[0].xxxx
  5: MOV OUT[0], TEMP[1].xxxx
  6: END
";

/// `pow(a, b) > 0` in x.
const POW: &str = "FRAG
DCL OUT[0], COLOR
DCL CONST[0][0..1]
DCL TEMP[0..1]
IMM[0] FLT32 {0.0, 0.0, 0.0, 0.0}
  0: POW TEMP[0].x, CONST[0][0].xxxx, CONST[0][1].xxxx
  1: SLT TEMP[1].x, IMM[0].xxxx, TEMP[0].xxxx
  2: MOV OUT[0], TEMP[1].xxxx
  3: END
";

fn run(text: &str, a: f32, b: f32) -> f32 {
    let consts: BTreeMap<(u32, u32), V> = [((0, 0), bits(a)), ((0, 1), bits(b))].into();
    let out = check_fs(text, &FsInputs::default(), &consts);
    f32::from_bits(out.colour[0][0])
}

#[test]
fn a_product_that_would_be_a_denormal_compares_as_zero() {
    let e: f32 = 0.000000000000000000433681;
    // 2^-61 * 2^61 * 2^-61: normal, positive.
    assert_eq!(run(MUL, e, 2305843009213693952.0), 1.0);
    // 2^-150 and below: zero.
    assert_eq!(run(MUL, e, 2f32.powi(-28)), 0.0);
    assert_eq!(run(MUL, 2f32.powi(-45), 2f32.powi(-44)), 0.0);
    assert_eq!(run(MUL, e, e), 0.0);
}

#[test]
fn a_power_that_would_be_a_denormal_compares_as_zero() {
    // piglit's cases: 2^0, 2^-150, (2^-61)^2.459 and (2^61)^-2.459 (about 2^-150).
    assert_eq!(run(POW, 2.0, 0.0), 1.0);
    assert_eq!(run(POW, 2.0, -150.0), 0.0);
    assert_eq!(run(POW, 0.000000000000000000433681, 2.459), 0.0);
    assert_eq!(run(POW, 2305843009213693952.0, -2.459), 0.0);
    // 2^-140 would be a denormal; 2^-126 is the smallest normal.
    assert_eq!(run(POW, 2.0, -140.0), 0.0);
    assert_eq!(run(POW, 2.0, -126.0), 1.0);
}
