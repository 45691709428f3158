//! `gl_FragDepth`: the fragment POSITION output (its z) becomes EMITDEPTH at the end of the
//! pixel program. Differential-tested against the reference interpreter: the depth the model
//! reports per pixel is the reference's `OUT.z`, clamped to [0, 1], and absent where the
//! program did not write it.

mod common;

use std::collections::BTreeMap;

use common::{check_fs, FsInputs, Rng, V};
use sgx_compiler::tgsi::File;
use sgx_compiler::{compile, OutputLoc};

/// What st/mesa sends for `gl_FragDepth = v.x * 0.5 + c; gl_FragColor = v;` (its output
/// order: colour first, depth second).
const WRITES_DEPTH: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], POSITION
DCL CONST[0][0]
DCL TEMP[0]
IMM[0] FLT32 {0x3f000000, 0x00000000, 0x00000000, 0x00000000}
  0: MAD TEMP[0].x, IN[0].xxxx, IMM[0].xxxx, CONST[0][0].xxxx
  1: MOV OUT[1].z, TEMP[0].xxxx
  2: MOV OUT[0], IN[0]
  3: END
";

/// Depth written on one side of a branch only (and a KILL on the other): a pixel that
/// does not write it keeps the interpolated depth, which the model reports as none.
const BRANCHY: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL OUT[1], POSITION
DCL TEMP[0]
IMM[0] FLT32 {0x00000000, 0x3f800000, 0xbf800000, 0x40000000}
  0: SLT TEMP[0].x, IN[0].xxxx, IMM[0].xxxx
  1: IF TEMP[0].xxxx :4
  2:   MUL OUT[1].z, IN[0].yyyy, IMM[0].wwww
  3: ELSE :6
  4:   SLT TEMP[0].y, IN[0].zzzz, IMM[0].zzzz
  5:   KILL_IF -TEMP[0].yyyy
  6: ENDIF
  7: MOV OUT[0], IN[0].wzyx
  8: END
";

fn inputs(r: &mut Rng) -> FsInputs {
    std::array::from_fn(|_| [((File::Input, 0), r.fvec())].into_iter().collect())
}

#[test]
fn fragment_position_output_is_the_depth() {
    let cs = compile(WRITES_DEPTH).unwrap();
    let depth = cs.outputs.iter().find(|o| o.index == 1).unwrap();
    assert_eq!(depth.location, OutputLoc::Depth);
    let mut r = Rng(0xde97);
    for _ in 0..200 {
        let consts: BTreeMap<(u32, u32), V> = [((0, 0), r.fvec())].into_iter().collect();
        check_fs(WRITES_DEPTH, &inputs(&mut r), &consts);
    }
}

#[test]
fn depth_written_on_some_paths_only() {
    let mut r = Rng(0xb4a9);
    for _ in 0..200 {
        check_fs(BRANCHY, &inputs(&mut r), &BTreeMap::new());
    }
}

#[test]
fn shader_without_depth_output_reports_none() {
    let text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";
    let cs = compile(text).unwrap();
    let sh = sgx_compiler::parse(text).unwrap();
    let got = common::run_fs_compiled(&sh, &cs, &inputs(&mut Rng(1)), &BTreeMap::new());
    assert_eq!(got.depth, [None; 4]);
}

#[test]
fn second_colour_output_is_still_refused() {
    let text = "FRAG\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n  0: END\n";
    let e = compile(text).unwrap_err().to_string();
    assert!(e.contains("COLOR[1]"), "{e}");
}
