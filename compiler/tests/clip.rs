//! Clip vertices and clip distances: what st/mesa sends for `gl_ClipVertex` and for user
//! clip planes it lowers. The vertex side is differential-tested against the reference
//! interpreter like any output; the distances reach the fragment side as varyings the TA
//! clips against (the pixel program computes what the reference computes, never discards).

mod common;

use std::collections::BTreeMap;

use common::{check_vs_compiled, refint, same, Rng, TargetTex, V};
use sgx_compiler::tgsi::{File, SemanticName};
use sgx_compiler::{compile, link, InputLoc, OutputLoc};
use sgx_sim::usse::{run_quad, Program, Stage};

fn mesa(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/shaders/mesa/{name}.tgsi",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn mesa_clip_vertex_program_compiles_and_links() {
    let vs = mesa("clip.vert");
    let cs = compile(&vs).unwrap();
    let clip = cs
        .outputs
        .iter()
        .find(|o| o.semantic.map(|s| s.name) == Some(SemanticName::ClipVertex))
        .unwrap();
    // Nothing downstream reads the clip vertex: it is not a varying.
    assert_eq!(clip.location, OutputLoc::Discard);
    let mut r = Rng(0xc11f);
    for _ in 0..50 {
        let consts: BTreeMap<(u32, u32), V> = (0..8).map(|i| ((0, i), r.fvec())).collect();
        let attrs = [(0, r.fvec()), (1, r.fvec())].into_iter().collect();
        check_vs_compiled(&vs, &cs, &attrs, &consts);
    }
    let lp = link(&vs, &mesa("clip.frag")).unwrap();
    assert_eq!(lp.varyings.len(), 1);
    assert!(!lp.fs.discards);
}

const VS: &str = "VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL OUT[2], CLIPVERTEX
DCL OUT[3], CLIPDIST[1]
DCL OUT[4].xyz, CLIPDIST[0]
DCL CONST[0][0..1]
  0: MOV OUT[0], IN[0]
  1: MOV OUT[2], IN[0]
  2: MUL OUT[4].xyz, IN[1], CONST[0][0]
  3: ADD OUT[3], IN[1].wzyx, CONST[0][1]
  4: MOV OUT[1], IN[1]
  5: END
";

const FS: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL TEMP[0]
  0: MUL TEMP[0], IN[0], IN[0].wzyx
  1: ADD OUT[0], TEMP[0], IN[0]
  2: END
";

#[test]
fn clip_distances_become_varyings_the_ta_clips_against() {
    let lp = link(VS, FS).unwrap();
    // GENERIC[0], then CLIPDIST[0] (3 lanes), then CLIPDIST[1] (4 lanes).
    let names: Vec<_> = lp.varyings.iter().map(|v| v.semantic.to_string()).collect();
    assert_eq!(names, ["GENERIC[0]", "CLIPDIST[0]", "CLIPDIST[1]"]);
    assert_eq!(lp.fs.varying_count, 3);
    // The TA clips (hwdocs RasterState clip_mask): the pixel program does not discard.
    assert!(!lp.fs.discards);
    let vs_slot = |sem: &str| {
        let v = lp
            .varyings
            .iter()
            .find(|v| v.semantic.to_string() == sem)
            .unwrap();
        (v.vs_output, v.fs_input)
    };
    let out_at = |idx: u32| {
        lp.vs
            .outputs
            .iter()
            .find(|o| o.index == idx)
            .map(|o| o.location)
            .unwrap()
    };
    assert_eq!(out_at(4), OutputLoc::Output(vs_slot("CLIPDIST[0]").0));
    assert_eq!(out_at(3), OutputLoc::Output(vs_slot("CLIPDIST[1]").0));
    assert_eq!(out_at(2), OutputLoc::Discard);
    let (_, d0) = vs_slot("CLIPDIST[0]");
    let (_, d1) = vs_slot("CLIPDIST[1]");
    assert_eq!(d1, d0 + 1);
    assert_eq!(lp.fs.clip_varyings, vec![(d0, 0b0111), (d1, 0b1111)]);

    // Whatever the distances, the program computes what the reference computes.
    let sh = sgx_compiler::parse(FS).unwrap();
    let prog = Program::decode(&lp.fs.code, Stage::Pixel).unwrap();
    let gen_pa = match lp.fs.inputs[0].location {
        InputLoc::Primary(n) => n as usize,
        InputLoc::Zero => unreachable!(),
    };
    let mut r = Rng(0xd157);
    for _ in 0..100 {
        let mut pa = [[[0u32; 4]; 16]; 4];
        let mut inputs: [BTreeMap<(File, u32), V>; 4] = Default::default();
        for px in 0..4 {
            let g = r.fvec();
            pa[px][gen_pa] = g;
            inputs[px].insert((File::Input, 0), g);
            for slot in [d0, d1] {
                pa[px][slot as usize] = [0; 4].map(|_| {
                    let v: f32 = *r.pick(&[-1.0, -1e-6, -0.0, 0.0, 1e-6, 2.0, f32::NAN]);
                    v.to_bits()
                });
            }
        }
        let got = run_quad(&prog, &pa, [true; 4], &[], &mut TargetTex::of(&sh)).unwrap();
        assert_eq!(got.killed, [false; 4], "{pa:x?}");
        let want = refint::run(
            &sh,
            &inputs,
            &mut refint::Env {
                consts: &BTreeMap::new(),
                tex: &mut TargetTex::of(&sh),
            },
        )
        .unwrap();
        for px in 0..4 {
            let (v, _) = want.outs[px][&0];
            for (l, want) in v.iter().enumerate() {
                assert!(
                    same(got.colour[px][l].to_bits(), *want),
                    "pixel {px} lane {l}"
                );
            }
        }
    }
}

#[test]
fn only_the_enabled_clip_distances_clip() {
    let vs = |n: u32| {
        format!(
            "VERT\nPROPERTY NUM_CLIPDIST_ENABLED {n}\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             DCL OUT[2], CLIPDIST[0]\nDCL OUT[3], CLIPDIST[1]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[0]\n\
               2: MOV OUT[2], IN[0]\n  3: MOV OUT[3], -IN[0]\n  4: END\n"
        )
    };
    // Five planes: lanes x..w of CLIPDIST[0] and x of CLIPDIST[1].
    let lp = link(&vs(5), FS).unwrap();
    assert_eq!(lp.varyings.len(), 3);
    assert_eq!(lp.fs.clip_varyings, vec![(1, 0b1111), (2, 0b0001)]);
    // Three planes: CLIPDIST[1] is no plane at all and is not delivered.
    let lp = link(&vs(3), FS).unwrap();
    let names: Vec<_> = lp.varyings.iter().map(|v| v.semantic.to_string()).collect();
    assert_eq!(names, ["GENERIC[0]", "CLIPDIST[0]"]);
    assert_eq!(lp.fs.clip_varyings, vec![(1, 0b0111)]);
    assert_eq!(
        lp.vs
            .outputs
            .iter()
            .find(|o| o.index == 3)
            .unwrap()
            .location,
        OutputLoc::Discard
    );
}
