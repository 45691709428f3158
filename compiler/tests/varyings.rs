//! More varyings than slots: packed by the lanes the fragment shader declares, up to
//! GL_MAX_VARYING_FLOATS = 32 (and beyond, while they fit limits::MAX_VARYINGS vec4s). A
//! linked pair runs on the sim (vertex outputs handed to the pixel program as the TA would,
//! slot for slot) and is compared with the reference interpreter running both TGSI shaders
//! with varyings matched by semantic.

mod common;

use std::collections::BTreeMap;

use common::{refint, same, Rng, TargetTex, V};
use sgx_compiler::tgsi::File;
use sgx_compiler::{compile, link, CompileError, InputLoc, OutputLoc};
use sgx_sim::usse::{run_quad, run_vertex, Program, Stage};

const MASKS: [&str; 4] = ["x", "xy", "xyz", "xyzw"];

/// A pair with `widths[k]` lanes in GENERIC[k]; the vertex shader writes each from the
/// attributes, the fragment shader sums products of them into the colour.
fn pair(widths: &[usize], r: &mut Rng) -> (String, String) {
    let mut vs = String::from("VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\n");
    let mut fs = String::from("FRAG\n");
    for (k, w) in widths.iter().enumerate() {
        let m = MASKS[w - 1];
        vs += &format!("DCL OUT[{}].{m}, GENERIC[{k}]\n", k + 1);
        let interp = if k % 5 == 4 {
            "CONSTANT"
        } else {
            "PERSPECTIVE"
        };
        fs += &format!("DCL IN[{k}].{m}, GENERIC[{k}], {interp}\n");
    }
    vs += "DCL TEMP[0]\n";
    fs += "DCL OUT[0], COLOR\nDCL TEMP[0..1]\n";
    let mut n = 0;
    let swz = ["xyzw", "wzyx", "yxwz", "zzxy"];
    for (k, w) in widths.iter().enumerate() {
        let m = MASKS[w - 1];
        // Written in two steps, the second a partial write, to move lanes separately.
        vs += &format!("{n:3}: MUL TEMP[0], IN[0].{}, IN[1]\n", r.pick(&swz));
        n += 1;
        vs += &format!(
            "{n:3}: ADD OUT[{}].{m}, TEMP[0], IN[1].{}\n",
            k + 1,
            r.pick(&swz)
        );
        n += 1;
        if *w > 1 {
            vs += &format!("{n:3}: MOV OUT[{}].y, IN[0].wwww\n", k + 1);
            n += 1;
        }
    }
    vs += &format!("{n:3}: MOV OUT[0], IN[0]\n{:3}: END\n", n + 1);
    let mut n = 0;
    fs += &format!("{n:3}: MOV TEMP[0], IN[0].xxxx\n");
    n += 1;
    for (k, w) in widths.iter().enumerate().skip(1) {
        // Read only declared lanes, in any order.
        let lanes = &"xyzw"[..*w];
        let sw: String = (0..4)
            .map(|_| lanes.as_bytes()[r.below(*w as u64) as usize] as char)
            .collect();
        fs += &format!("{n:3}: MAD TEMP[0], IN[{k}].{sw}, TEMP[0], IN[{k}].{sw}\n");
        n += 1;
    }
    fs += &format!("{n:3}: MOV OUT[0], TEMP[0]\n{:3}: END\n", n + 1);
    (vs, fs)
}

fn run_pair(vs: &str, fs: &str, r: &mut Rng) {
    let lp = link(vs, fs).unwrap_or_else(|e| panic!("{e}\n{vs}\n{fs}"));
    let vsh = sgx_compiler::parse(vs).unwrap();
    let fsh = sgx_compiler::parse(fs).unwrap();
    let vprog = Program::decode(&lp.vs.code, Stage::Vertex).unwrap();
    let fprog = Program::decode(&lp.fs.code, Stage::Pixel).unwrap();
    for _ in 0..20 {
        let attrs = [r.fvec(), r.fvec()];
        let mut pa = [[0u32; 4]; 16];
        pa[0] = attrs[0];
        pa[1] = attrs[1];
        let got_v = run_vertex(&vprog, &pa, &[], &mut TargetTex::of(&vsh)).unwrap();
        // The TA hands o[k+1] to pa[k] (render.json varying_link); one quad, all alike.
        let mut fpa = [[[0u32; 4]; 16]; 4];
        for px in fpa.iter_mut() {
            let n = lp.fs.varying_count as usize;
            px[..n].copy_from_slice(&got_v.out[1..=n]);
        }
        let got = run_quad(&fprog, &fpa, [true; 4], &[], &mut TargetTex::of(&fsh)).unwrap();
        // Reference: the vertex shader's outputs by semantic become the fragment inputs.
        let inputs: BTreeMap<(File, u32), V> =
            [((File::Input, 0), attrs[0]), ((File::Input, 1), attrs[1])].into();
        let env_consts = BTreeMap::new();
        let vout = refint::run(
            &vsh,
            &[inputs],
            &mut refint::Env {
                consts: &env_consts,
                tex: &mut TargetTex::of(&vsh),
            },
        )
        .unwrap();
        let fin: BTreeMap<(File, u32), V> = (0..lp.varyings.len() as u32)
            .map(|k| ((File::Input, k), vout.outs[0][&(k + 1)].0))
            .collect();
        let fout = refint::run(
            &fsh,
            &[fin.clone(), fin.clone(), fin.clone(), fin],
            &mut refint::Env {
                consts: &env_consts,
                tex: &mut TargetTex::of(&fsh),
            },
        )
        .unwrap();
        let want = fout.outs[0][&0].0;
        for (l, w) in want.iter().enumerate() {
            assert!(
                same(got.colour[0][l].to_bits(), *w),
                "lane {l}: {} vs {}\n{vs}\n{fs}\n{}",
                got.colour[0][l],
                f32::from_bits(*w),
                common::listing(&lp.vs)
            );
        }
    }
}

#[test]
fn packed_varyings_match_the_reference() {
    let mut r = Rng(0x7a41);
    for _ in 0..60 {
        // 11..=16 varyings of 1..=3 lanes, 32 floats at most: always packable into 10.
        let count = 11 + r.below(6) as usize;
        let mut widths: Vec<usize> = (0..count).map(|_| 1 + r.below(3) as usize).collect();
        while widths.iter().sum::<usize>() > 32 {
            let i = widths.iter().position(|w| *w > 1).unwrap();
            widths[i] -= 1;
        }
        let (vs, fs) = pair(&widths, &mut r);
        run_pair(&vs, &fs, &mut r);
    }
}

#[test]
fn thirty_two_floats_as_scalars_or_vec2_pack_into_ten_slots() {
    let mut r = Rng(0x3232);
    for widths in [vec![1; 32], vec![2; 16], [vec![4; 4], vec![2; 8]].concat()] {
        let (vs, fs) = pair(&widths, &mut r);
        let lp = link(&vs, &fs).unwrap();
        assert!(lp.fs.varying_count <= 10, "{}", lp.fs.varying_count);
        run_pair(&vs, &fs, &mut r);
    }
}

#[test]
fn mesa_twelve_varyings_link_unpacked() {
    let read = |n: &str| {
        std::fs::read_to_string(format!(
            "{}/tests/shaders/mesa/{n}.tgsi",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    // st/mesa already packed these twelve GLSL varyings into seven: no packing is needed.
    let lp = link(&read("v12.vert"), &read("v12.frag")).unwrap();
    assert_eq!(lp.varyings.len(), 7);
    assert!(lp.varyings.iter().all(|v| v.lane == 0));
}

#[test]
fn standalone_vertex_shaders_pack_their_outputs_too() {
    let mut r = Rng(0x5a);
    let (vs, _) = pair(&[2; 14], &mut r);
    let cs = compile(&vs).unwrap();
    assert_eq!(cs.varying_count, 7);
    let slots: Vec<u32> = cs
        .outputs
        .iter()
        .filter_map(|o| match o.location {
            OutputLoc::Output(n) if n > 0 => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(slots.len(), 14);
    let (_, fs) = pair(&[1; 12], &mut r);
    let cs = compile(&fs).unwrap();
    // Ten perspective scalars in three slots; the two flat ones (GENERIC[4], [9]) in a
    // fourth: interpolations never share a slot.
    assert_eq!(cs.varying_count, 4);
    assert!(cs
        .inputs
        .iter()
        .all(|i| matches!(i.location, InputLoc::Primary(n) if n < 4)));
}

#[test]
fn what_cannot_pack_is_refused_with_the_limit() {
    let mut r = Rng(1);
    // Eleven full vec4s: 44 floats need eleven slots.
    let (vs, fs) = pair(&[4; 11], &mut r);
    let e = link(&vs, &fs).unwrap_err();
    assert!(
        matches!(
            e,
            CompileError::Limit {
                limit: "limits::MAX_VARYINGS",
                need: 11,
                max: 10
            }
        ),
        "{e:?}"
    );
}

#[test]
fn the_verbose_report_shows_the_packed_layout() {
    let read = |n: &str| {
        std::fs::read_to_string(format!(
            "{}/tests/shaders/{n}.tgsi",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let (vs, fs) = (read("packed14.vert"), read("packed14.frag"));
    let r = sgx_compiler::compile_report(&vs, Some(&fs), true).unwrap();
    // Fourteen varyings, seven vec2 and seven scalars, in six slots.
    for line in [
        "; varying GENERIC[0] : o1.xy -> pa0.xy (PERSPECTIVE)",
        "; varying GENERIC[2] : o1.zw -> pa0.zw (PERSPECTIVE)",
        "; varying GENERIC[8] : o5.w -> pa4.w (PERSPECTIVE)",
        "; output OUT[14] GENERIC[13] : o4.zw",
        "; input IN[12] GENERIC[12] : pa5.y",
        "; varying slots: 6",
    ] {
        assert!(r.contains(line), "{line} missing:\n{r}");
    }
    let quiet = sgx_compiler::compile_report(&vs, Some(&fs), false).unwrap();
    assert!(!quiet.contains("; output OUT[14]"));
}
