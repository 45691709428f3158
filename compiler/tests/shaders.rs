//! Whole shaders: differential runs on random inputs, linking, metadata, errors.

#![allow(clippy::needless_range_loop)]

mod common;

use std::collections::BTreeMap;

use common::{check_fs, check_vs, shader_text as text, FakeTex, FsInputs, Rng, V};
use sgx_compiler::tgsi::{File, SemanticName, TexTarget};
use sgx_compiler::{compile, link, CompileError, InputLoc, OutputLoc};
use sgx_hwdocs::tsp;
use sgx_sim::usse::{run_quad, run_vertex, Program, Stage};

fn vs_runs(name: &str, attrs: impl Fn(&mut Rng) -> BTreeMap<u32, V>, nconst: u32, runs: usize) {
    let t = text(name);
    let mut r = Rng(0xabc0_0000 ^ name.len() as u64);
    let cs = compile(&t).unwrap();
    for _ in 0..runs {
        let consts: BTreeMap<(u32, u32), V> = (0..nconst).map(|i| ((0, i), r.fvec())).collect();
        common::check_vs_compiled(&t, &cs, &attrs(&mut r), &consts);
    }
}

#[test]
fn mvp_transform() {
    vs_runs(
        "mvp.vert",
        |r| (0..2).map(|i| (i, r.fvec())).collect(),
        4,
        300,
    );
}

#[test]
fn per_vertex_lighting() {
    vs_runs(
        "lighting.vert",
        |r| (0..2).map(|i| (i, r.fvec())).collect(),
        11,
        300,
    );
}

#[test]
fn a_loop_with_brk_and_cont() {
    let mut iterations_seen = std::collections::BTreeSet::new();
    vs_runs(
        "loop.vert",
        |r| {
            let n = r.below(24) as f32 - 3.0 + 0.5 * r.below(2) as f32;
            [(
                0,
                [
                    n.to_bits(),
                    r.float().to_bits(),
                    r.float().to_bits(),
                    r.float().to_bits(),
                ],
            )]
            .into()
        },
        0,
        200,
    );
    // The loop really iterates: the counter it leaves in OUT[1].w depends on the bound.
    let cs = compile(&text("loop.vert")).unwrap();
    let p = Program::decode(&cs.code, Stage::Vertex).unwrap();
    for n in [-1.0f32, 0.0, 3.0, 7.5, 40.0] {
        let out = run_vertex(&p, &[[n.to_bits(), 0, 0, 0]], &[], &mut FakeTex).unwrap();
        iterations_seen.insert(f32::from_bits(out.out[1][3]) as i32);
    }
    assert_eq!(
        iterations_seen.into_iter().collect::<Vec<_>>(),
        vec![0, 3, 8, 16]
    );
}

#[test]
fn a_subroutine_called_twice() {
    vs_runs(
        "sub.vert",
        |r| (0..2).map(|i| (i, r.fvec())).collect(),
        0,
        300,
    );
    let cs = compile(&text("sub.vert")).unwrap();
    let l = common::listing(&cs);
    assert_eq!(l.matches("call").count(), 2, "{l}");
    assert!(l.contains("ret"), "{l}");
}

fn fs_inputs(r: &mut Rng, idx: &[(File, u32)]) -> FsInputs {
    [0; 4].map(|_| idx.iter().map(|k| (*k, r.fvec())).collect())
}

#[test]
fn texture_modulate() {
    let t = text("texmod.frag");
    let mut r = Rng(7);
    for _ in 0..200 {
        check_fs(
            &t,
            &fs_inputs(&mut r, &[(File::Input, 0), (File::Input, 1)]),
            &BTreeMap::new(),
        );
    }
    let cs = compile(&t).unwrap();
    assert_eq!(cs.samplers.len(), 1);
    assert_eq!(
        (cs.samplers[0].unit, cs.samplers[0].target),
        (0, TexTarget::D2)
    );
    assert!(cs.uses_derivatives);
}

#[test]
fn discard() {
    let t = text("discard.frag");
    let mut r = Rng(8);
    let (mut kills, mut keeps) = (0, 0);
    for _ in 0..300 {
        let consts: BTreeMap<(u32, u32), V> = [((0, 0), r.fvec())].into();
        let res = check_fs(&t, &fs_inputs(&mut r, &[(File::Input, 0)]), &consts);
        kills += res.killed.iter().filter(|k| **k).count();
        keeps += res.killed.iter().filter(|k| !**k).count();
    }
    assert!(kills > 100 && keeps > 100, "{kills} {keeps}");
    assert!(compile(&t).unwrap().discards);
}

#[test]
fn fragment_position_face_and_derivatives() {
    let t = text("special.frag");
    let cs = compile(&t).unwrap();
    assert_eq!(cs.varying_count, 1);
    assert_eq!(
        (cs.pos_slot, cs.face_slot, cs.pcoord_slot),
        (Some(1), Some(2), None)
    );
    assert_eq!(cs.varying_interp(), vec![tsp::Interp::PERSPECTIVE]);
    let mut r = Rng(9);
    for _ in 0..100 {
        common::check_fs_compiled(
            &t,
            &cs,
            &fs_inputs(
                &mut r,
                &[(File::Input, 0), (File::Input, 1), (File::Input, 2)],
            ),
            &BTreeMap::new(),
        );
    }
}

#[test]
fn glxgears_fragment_shader() {
    let cs = compile(&text("gears.frag")).unwrap();
    assert_eq!(common::listing(&cs), "   0: emitpix pa0\n   1: end\n");
    assert_eq!(cs.inputs[0].semantic.unwrap().name, SemanticName::Color);
    assert_eq!(cs.inputs[0].location, InputLoc::Primary(0));
    assert_eq!(cs.outputs[0].location, OutputLoc::Color);
}

/// Links generic.vert + generic.frag and runs the pair: VS on the sim, its outputs through
/// the varying remap into the FS, against the reference run of both by semantic.
#[test]
fn linked_pair_remaps_varyings() {
    let (vt, ft) = (text("generic.vert"), text("generic.frag"));
    let p = link(&vt, &ft).unwrap();
    // FS inputs in order: GENERIC[3] (matched), TEXCOORD[0] (unmatched), COLOR (matched).
    assert_eq!(p.varyings.len(), 2);
    assert_eq!((p.varyings[0].vs_output, p.varyings[0].fs_input), (1, 0));
    assert_eq!((p.varyings[1].vs_output, p.varyings[1].fs_input), (2, 1));
    assert_eq!(p.unmatched_inputs.len(), 1);
    assert_eq!(p.unmatched_inputs[0].name, SemanticName::Texcoord);
    assert_eq!(p.vs.psize_output, Some(3));
    assert_eq!(p.vs.varying_count, 2);
    assert_eq!(p.fs.varying_count, 2);
    // GENERIC[0] is not read: dropped from the vertex program.
    assert_eq!(p.vs.outputs[1].location, OutputLoc::Discard);
    let vsp = Program::decode(&p.vs.code, Stage::Vertex).unwrap();
    let fsp = Program::decode(&p.fs.code, Stage::Pixel).unwrap();
    let vsh = sgx_compiler::parse(&vt).unwrap();
    let fsh = sgx_compiler::parse(&ft).unwrap();
    let mut r = Rng(10);
    for _ in 0..100 {
        let mut pa = [[[0u32; 4]; 16]; 4];
        let mut ref_in: FsInputs = Default::default();
        for px in 0..4 {
            let attrs = [r.fvec(), r.fvec()];
            let out = run_vertex(&vsp, &attrs, &[], &mut FakeTex).unwrap();
            for v in &p.varyings {
                pa[px][v.fs_input as usize] = out.out[v.vs_output as usize];
            }
            let inputs: BTreeMap<(File, u32), V> =
                [((File::Input, 0), attrs[0]), ((File::Input, 1), attrs[1])].into();
            let consts = BTreeMap::new();
            let vref = common::refint::run(
                &vsh,
                &[inputs],
                &mut common::refint::Env {
                    consts: &consts,
                    tex: &mut FakeTex,
                },
            )
            .unwrap();
            let by_sem = |name: SemanticName, index: u32| -> V {
                vsh.decls
                    .iter()
                    .filter(|d| d.file == File::Output)
                    .find(|d| {
                        d.semantic
                            .is_some_and(|s| s.name == name && s.index == index)
                    })
                    .and_then(|d| vref.outs[0].get(&d.first))
                    .map_or([0; 4], |v| v.0)
            };
            ref_in[px].insert((File::Input, 0), by_sem(SemanticName::Generic, 3));
            ref_in[px].insert((File::Input, 1), [0; 4]); // unmatched: zero
            ref_in[px].insert((File::Input, 2), by_sem(SemanticName::Color, 0));
        }
        let got = run_quad(&fsp, &pa, [true; 4], &[], &mut FakeTex).unwrap();
        let consts = BTreeMap::new();
        let want = common::refint::run(
            &fsh,
            &ref_in,
            &mut common::refint::Env {
                consts: &consts,
                tex: &mut FakeTex,
            },
        )
        .unwrap();
        for px in 0..4 {
            let (v, _) = want.outs[px][&0];
            for l in 0..4 {
                assert!(
                    common::same(got.colour[px][l].to_bits(), v[l]),
                    "pixel {px} lane {l}"
                );
            }
        }
    }
}

#[test]
fn metadata_of_constants_and_samplers() {
    let t = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL CONST[0][0..1]\nDCL CONST[1][0..2]\nDCL SAMP[3]\nDCL SVIEW[3], CUBE, FLOAT\nDCL TEMP[0]\n\
             0: TEX TEMP[0], IN[0], SAMP[3], CUBE\n 1: MAD TEMP[0], TEMP[0], CONST[1][2], CONST[0][1]\n 2: MOV OUT[0], TEMP[0]\n 3: END\n";
    let cs = compile(t).unwrap();
    assert_eq!(cs.constants.len(), 2);
    assert_eq!(
        (
            cs.constants[0].buffer,
            cs.constants[0].count,
            cs.constants[0].sa_base
        ),
        (0, 2, 0)
    );
    assert_eq!(
        (
            cs.constants[1].buffer,
            cs.constants[1].count,
            cs.constants[1].sa_base
        ),
        (1, 3, 2)
    );
    assert_eq!(cs.const_regs, 5);
    assert_eq!(
        (cs.samplers[0].unit, cs.samplers[0].target),
        (3, TexTarget::Cube)
    );
    assert!(!cs.discards);
    assert!(
        common::listing(&cs).contains("sa4"),
        "{}",
        common::listing(&cs)
    );
}

#[test]
fn unsupported_opcodes_and_forms_are_named() {
    let cases = [
        (
            "VERT\nDCL OUT[0], POSITION\nDCL TEMP[0]\n 0: NRM TEMP[0], TEMP[0]\n 1: END\n",
            "opcode NRM",
        ),
        (
            "VERT\nDCL OUT[0], POSITION\nDCL TEMP[0]\n 0: KILL\n 1: END\n",
            "KILL in a vertex shader",
        ),
        (
            "FRAG\nDCL OUT[0], COLOR\nDCL OUT[1], COLOR[1]\n 0: END\n",
            "COLOR[1]",
        ),
        (
            "VERT\nDCL IN[0..1]\nDCL TEMP[0..1]\nDCL ADDR[0]\n 0: MOV TEMP[0], IN[ADDR[0].x]\n 1: END\n",
            "indirect addressing of IN",
        ),
        (
            "VERT\nDCL TEMP[0..1]\n 0: UADD_SAT TEMP[0], TEMP[1], TEMP[1]\n 1: END\n",
            "UADD_SAT",
        ),
        ("GEOM\n 0: END\n", "shader stage GEOM"),
    ];
    for (t, what) in cases {
        let e = compile(t).unwrap_err();
        assert!(matches!(e, CompileError::Unsupported { .. }), "{e:?}");
        assert!(e.to_string().contains(what), "{e} should name {what}");
    }
}

#[test]
fn limits_are_named() {
    // 70 values live at once cannot fit 64 temporaries.
    let mut t = String::from("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0..69]\n");
    for i in 0..70 {
        t.push_str(&format!(
            "ADD TEMP[{i}], IN[0], IN[0].{}\n",
            ["xxxx", "yyyy", "zzzz", "wwww"][i % 4]
        ));
        if i > 0 {
            t.push_str(&format!("MUL TEMP[{i}], TEMP[{i}], TEMP[{}]\n", i - 1));
        }
    }
    for i in 0..70 {
        t.push_str(&format!("ADD OUT[0], OUT[0], TEMP[{i}]\n"));
    }
    t.push_str("END\n");
    match compile(&t).unwrap_err() {
        CompileError::Limit { limit, need, max } => {
            assert_eq!(limit, "usse::TEMP_REGS");
            assert_eq!(max, 64);
            assert!(need > 64);
        }
        e => panic!("{e:?}"),
    }
    let e = compile("FRAG\nDCL OUT[0], COLOR\nDCL SAMP[8]\n 0: END\n").unwrap_err();
    assert!(e.to_string().contains("MAX_TEXTURE_UNITS"), "{e}");
    // 200 vec4s of constants fit constant memory (LDC past the bank); 1100 do not.
    compile("VERT\nDCL CONST[0..200]\n 0: END\n").unwrap();
    let e = compile("VERT\nDCL CONST[0..1099]\n 0: END\n").unwrap_err();
    assert!(e.to_string().contains("CONST_MEMORY_REGS"), "{e}");
    let mut many = String::from("VERT\n");
    for i in 0..12 {
        many.push_str(&format!("DCL OUT[{i}], GENERIC[{i}]\n"));
    }
    many.push_str(" 0: END\n");
    assert!(compile(&many)
        .unwrap_err()
        .to_string()
        .contains("MAX_VARYINGS"));
}

#[test]
fn integer_and_float_boolean_forms_both_work() {
    // The same `if (a < b) c = 1 else c = 2` as nir_to_tgsi emits it with and without
    // integer support.
    let int_form = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..1]\nIMM[0] UINT32 {1, 2, 0, 0}\n\
        0: FSLT TEMP[0].x, IN[0].xxxx, IN[0].yyyy\n 1: UIF TEMP[0].xxxx :0\n 2: MOV TEMP[1].x, IMM[0].xxxx\n 3: ELSE :0\n 4: MOV TEMP[1].x, IMM[0].yyyy\n 5: ENDIF\n 6: U2F OUT[1].x, TEMP[1].xxxx\n 7: MOV OUT[0], IN[0]\n 8: END\n";
    let float_form = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL TEMP[0..1]\nIMM[0] FLT32 {1.0, 2.0, 0.0, 0.0}\n\
        0: SLT TEMP[0].x, IN[0].xxxx, IN[0].yyyy\n 1: IF TEMP[0].xxxx :0\n 2: MOV TEMP[1].x, IMM[0].xxxx\n 3: ELSE :0\n 4: MOV TEMP[1].x, IMM[0].yyyy\n 5: ENDIF\n 6: MOV OUT[1].x, TEMP[1].xxxx\n 7: MOV OUT[0], IN[0]\n 8: END\n";
    let mut r = Rng(11);
    for _ in 0..200 {
        let attrs: BTreeMap<u32, V> = [(0, r.fvec())].into();
        check_vs(int_form, &attrs, &BTreeMap::new());
        check_vs(float_form, &attrs, &BTreeMap::new());
        let a = compile(int_form).unwrap();
        let b = compile(float_form).unwrap();
        let pa = [attrs[&0]];
        let oa = run_vertex(
            &Program::decode(&a.code, Stage::Vertex).unwrap(),
            &pa,
            &[],
            &mut FakeTex,
        )
        .unwrap();
        let ob = run_vertex(
            &Program::decode(&b.code, Stage::Vertex).unwrap(),
            &pa,
            &[],
            &mut FakeTex,
        )
        .unwrap();
        assert_eq!(oa.out[1][0], ob.out[1][0]);
    }
}

/// st/mesa's edge flag pass-through (`nir_lower_passthrough_edgeflags`): the flag attribute
/// is copied to an EDGEFLAG output, which follows the varyings and the point size, and is
/// named for the TA (PolyState edge_flag_output); it is not a varying.
#[test]
fn edge_flag_output_follows_the_point_size() {
    let vs = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL OUT[0], POSITION\nDCL OUT[1], COLOR\n\
              DCL OUT[2], EDGEFLAG\nDCL OUT[3], PSIZE\n  0: MOV OUT[0], IN[0]\n\
              1: MOV OUT[1], IN[1]\n  2: MOV OUT[2], IN[2]\n  3: MOV OUT[3], IN[0].wwww\n  4: END\n";
    let fs = text("gears.frag");
    let p = link(vs, &fs).unwrap();
    assert_eq!(p.varyings.len(), 1);
    assert_eq!(p.vs.varying_count, 1);
    assert_eq!(p.vs.psize_output, Some(2));
    assert_eq!(p.vs.edgeflag_output, Some(3));
    let vsp = Program::decode(&p.vs.code, Stage::Vertex).unwrap();
    let f = |v: [f32; 4]| v.map(f32::to_bits);
    for flag in [0.0f32, 1.0] {
        let attrs = [
            f([1.0, 2.0, 3.0, 4.0]),
            f([0.5; 4]),
            f([flag, 0.0, 0.0, 1.0]),
        ];
        let out = run_vertex(&vsp, &attrs, &[], &mut FakeTex).unwrap();
        assert_eq!(out.out[3][0], flag.to_bits());
        assert_eq!(out.out[2][0], 4.0f32.to_bits());
    }
    // Alone, the same order.
    let cs = compile(vs).unwrap();
    assert_eq!((cs.psize_output, cs.edgeflag_output), (Some(2), Some(3)));
}
