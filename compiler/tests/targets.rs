//! The texture targets GL 2.1 needs (1D, 2D, 3D, CUBE, RECT, SHADOW1D, SHADOW2D, SHADOWRECT):
//! the coordinate
//! each hands the TSP, 1D lookups on a height-1 2D texture, differential runs of the
//! GLSL-1.20-style shaders, SamplerUse, and the targets that stay errors.

#![allow(clippy::needless_range_loop)]

mod common;

use std::collections::BTreeMap;

use common::{check_fs_compiled, shader_text as text, FsInputs, Rng, V};
use sgx_compiler::tgsi::{File, TexTarget};
use sgx_compiler::{compile, CompileError, CompiledShader, InputLoc};
use sgx_sim::usse::{run_quad, Lod, Program, Stage, Textures};
use sgx_sim::{Fault, Unit};

/// Wraps a texture model and records every (unit, coordinate bits) the USSE hands it: what
/// the TSP receives.
struct Recorder<T> {
    inner: T,
    seen: Vec<(u32, V)>,
}

impl<T: Textures> Textures for Recorder<T> {
    fn sample(&mut self, unit: u32, c: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        self.seen.push((unit, c.map(f32::to_bits)));
        self.inner.sample(unit, c, lod)
    }
}

/// A test model of a `w` x `h` 2D texture sampled NEAREST in s, LINEAR in t, CLAMP_TO_BORDER
/// (hwdocs texture.json's rules, modelled here so the test does not wait for the sim's border
/// colour): any t off the row centres blends the border colour in.
struct Image {
    w: u32,
    h: u32,
    texels: Vec<[f32; 4]>,
    border: [f32; 4],
}

impl Image {
    fn texel(&self, i: i64, j: i64) -> [f32; 4] {
        if (0..i64::from(self.w)).contains(&i) && (0..i64::from(self.h)).contains(&j) {
            self.texels[(j * i64::from(self.w) + i) as usize]
        } else {
            self.border
        }
    }
}

impl Textures for Image {
    fn sample(&mut self, unit: u32, c: [f32; 4], _lod: Lod) -> Result<[f32; 4], Fault> {
        if unit != 0 {
            return Err(Fault {
                unit: Unit::Tsp,
                addr: unit,
                write: false,
            });
        }
        let i = (c[0] * self.w as f32).floor() as i64;
        let v = c[1] * self.h as f32 - 0.5;
        let j = v.floor();
        let f = v - j;
        let (a, b) = (self.texel(i, j as i64), self.texel(i, j as i64 + 1));
        Ok([0, 1, 2, 3].map(|l| a[l] + (b[l] - a[l]) * f))
    }
}

/// The primary registers of a quad whose pixel p reads `inputs[p][i]` as IN[i].
fn pa_of(cs: &CompiledShader, inputs: &[Vec<V>; 4]) -> [[[u32; 4]; 16]; 4] {
    let mut pa = [[[0u32; 4]; 16]; 4];
    for p in 0..4 {
        for i in &cs.inputs {
            if let (File::Input, InputLoc::Primary(n)) = (i.file, i.location) {
                pa[p][n as usize] = inputs[p][i.index as usize];
            }
        }
    }
    pa
}

/// Coordinates in (0.05, 0.95) and w in [0.5, 4) of either sign: sensible projective input.
fn coord(r: &mut Rng) -> V {
    let u = |r: &mut Rng| 0.05 + 0.9 * (r.below(1 << 20) as f32 / (1 << 20) as f32);
    let w = (0.5 + 3.5 * (r.below(1 << 20) as f32 / (1 << 20) as f32))
        * if r.below(2) == 0 { 1.0 } else { -1.0 };
    [u(r), u(r), u(r), w].map(f32::to_bits)
}

/// Runs `cs` on one quad with `inputs` and constant 0 = `c0`, recording the coordinates.
fn recorded(cs: &CompiledShader, inputs: &[Vec<V>; 4], c0: V) -> Vec<(u32, V)> {
    let p = Program::decode(&cs.code, Stage::Pixel).unwrap();
    let sa = vec![c0; cs.const_regs as usize];
    let mut rec = Recorder {
        inner: common::FakeTex,
        seen: Vec::new(),
    };
    run_quad(&p, &pa_of(cs, inputs), [true; 4], &sa, &mut rec).unwrap();
    rec.seen
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

fn div_by_w(c: V) -> [u32; 3] {
    let r = 1.0 / f(c[3]);
    [f(c[0]) * r, f(c[1]) * r, f(c[2]) * r].map(f32::to_bits)
}

#[test]
fn shadow2d_txp_hands_the_tsp_xyz_over_w() {
    let cs = compile(&text("shadow2dproj.frag")).unwrap();
    let mut r = Rng(0x7a7a_0001);
    for _ in 0..50 {
        let inputs: [Vec<V>; 4] = [0; 4].map(|_| vec![coord(&mut r), [0; 4]]);
        let seen = recorded(&cs, &inputs, [0; 4]);
        assert_eq!(seen.len(), 4, "one sample per pixel");
        for (p, (unit, c)) in seen.iter().enumerate() {
            assert_eq!(*unit, 0);
            // s, t and the reference, each divided by q, and nothing else done to them.
            assert_eq!(c[..3], div_by_w(inputs[p][0]), "pixel {p}");
        }
    }
}

#[test]
fn volume_and_shadow_lookups_hand_the_tsp_xyz_untouched() {
    let shaders = [("tex3d.frag", 1), ("shadow1d.frag", 0)];
    let mut r = Rng(0x7a7a_0002);
    for (name, unit) in shaders {
        let cs = compile(&text(name)).unwrap();
        for _ in 0..20 {
            let inputs: [Vec<V>; 4] = [0; 4].map(|_| vec![r.fvec()]);
            let seen = recorded(&cs, &inputs, [0; 4]);
            for (p, (u, c)) in seen.iter().enumerate() {
                assert_eq!(*u, unit, "{name}");
                let want = inputs[p][0];
                assert_eq!(c[0], want[0], "{name} x, pixel {p}");
                assert_eq!(c[2], want[2], "{name} z, pixel {p}");
                if name == "tex3d.frag" {
                    assert_eq!(c[1], want[1], "{name} y, pixel {p}");
                } else {
                    assert_eq!(c[1], 0.5f32.to_bits(), "{name} y, pixel {p}");
                }
            }
        }
    }
}

#[test]
fn one_d_lookups_write_y_half_and_keep_x_the_bias_and_the_projection() {
    let mut r = Rng(0x7a7a_0003);
    let tex1d = compile(&text("tex1d.frag")).unwrap();
    let bias = compile(&text("tex1dbias.frag")).unwrap();
    let txp = compile(
        "FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 1D, FLOAT\nDCL TEMP[0]\n 0: TXP TEMP[0], IN[0], SAMP[0], 1D\n 1: MOV OUT[0], TEMP[0]\n 2: END\n",
    )
    .unwrap();
    for _ in 0..50 {
        let inputs: [Vec<V>; 4] = [0; 4].map(|_| vec![r.fvec(), r.fvec()]);
        let c0 = r.fvec();
        for (p, (_, c)) in recorded(&tex1d, &inputs, c0).iter().enumerate() {
            assert_eq!(c[..2], [inputs[p][0][0], 0.5f32.to_bits()], "pixel {p}");
        }
        for (p, (u, c)) in recorded(&bias, &inputs, c0).iter().enumerate() {
            assert_eq!(*u, 2);
            assert_eq!(
                [c[0], c[1], c[3]],
                [inputs[p][0][0], 0.5f32.to_bits(), c0[0]],
                "pixel {p}"
            );
        }
        for (p, (_, c)) in recorded(&txp, &inputs, c0).iter().enumerate() {
            assert_eq!(
                c[..2],
                [div_by_w(inputs[p][0])[0], 0.5f32.to_bits()],
                "pixel {p}"
            );
        }
    }
}

#[test]
fn one_d_lookups_read_the_row_of_a_height1_texture() {
    // Eight texels in one row, a border far from all of them: a y off the row centre would
    // blend the border in, an x ignored would read the wrong texel.
    let texels: Vec<[f32; 4]> = (0..8)
        .map(|i| [i as f32 / 8.0, 1.0 - i as f32 / 16.0, 0.25, 1.0])
        .collect();
    let mut img = Image {
        w: 8,
        h: 1,
        texels: texels.clone(),
        border: [9.0, -9.0, 9.0, -9.0],
    };
    let white = [1.0f32; 4].map(f32::to_bits);
    let tex1d = compile(&text("tex1d.frag")).unwrap();
    let txp = compile(
        "FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 1D, FLOAT\nDCL TEMP[0]\n 0: TXP TEMP[0], IN[0], SAMP[0], 1D\n 1: MOV OUT[0], TEMP[0]\n 2: END\n",
    )
    .unwrap();
    let mut r = Rng(0x7a7a_0004);
    let mut texels_hit = [false; 8];
    for _ in 0..60 {
        let inputs: [Vec<V>; 4] = [0; 4].map(|_| {
            let mut c = coord(&mut r);
            // A garbage y: the compiler must replace it.
            c[1] = r.float().to_bits();
            vec![c, white]
        });
        for (cs, proj) in [(&tex1d, false), (&txp, true)] {
            let p = Program::decode(&cs.code, Stage::Pixel).unwrap();
            let got = run_quad(&p, &pa_of(cs, &inputs), [true; 4], &[], &mut img).unwrap();
            for px in 0..4 {
                let c = inputs[px][0];
                let s = if proj { f(div_by_w(c)[0]) } else { f(c[0]) };
                let i = (s * 8.0).floor() as i64;
                let want = if (0..8).contains(&i) {
                    texels_hit[i as usize] = true;
                    texels[i as usize]
                } else {
                    img.border
                };
                assert_eq!(got.colour[px], want, "pixel {px}, s = {s}, proj {proj}");
            }
        }
    }
    assert_eq!(texels_hit, [true; 8], "every texel of the row read");
}

fn fs_inputs(r: &mut Rng, n: u32) -> FsInputs {
    [0; 4].map(|_| (0..n).map(|i| ((File::Input, i), r.fvec())).collect())
}

#[test]
fn glsl120_shader_set_matches_the_reference() {
    let set = [
        ("shadow2dproj.frag", 2),
        ("tex3d.frag", 1),
        ("tex1d.frag", 2),
        ("tex1dbias.frag", 1),
        ("shadow1d.frag", 1),
        ("texmix.frag", 2),
        // TXD: st/mesa's GL_CLAMP emulation (saturated coordinate, derivatives of the
        // unsaturated one), and four targets whose gradient pairs are live at once.
        ("txd_glclamp.frag", 1),
        ("txd_mix.frag", 2),
    ];
    let mut r = Rng(0x7a7a_0005);
    for (name, inputs) in set {
        let t = text(name);
        let cs = compile(&t).unwrap_or_else(|e| panic!("{name}: {e}"));
        for _ in 0..100 {
            let consts: BTreeMap<(u32, u32), V> = [((0, 0), r.fvec())].into();
            check_fs_compiled(&t, &cs, &fs_inputs(&mut r, inputs), &consts);
        }
    }
}

#[test]
fn sampler_uses_name_unit_and_target() {
    let uses = |name: &str| -> Vec<(u32, TexTarget)> {
        compile(&text(name))
            .unwrap()
            .samplers
            .iter()
            .map(|s| (s.unit, s.target))
            .collect()
    };
    assert_eq!(uses("tex3d.frag"), [(1, TexTarget::D3)]);
    assert_eq!(uses("shadow2dproj.frag"), [(0, TexTarget::Shadow2D)]);
    assert_eq!(uses("tex1dbias.frag"), [(2, TexTarget::D1)]);
    assert_eq!(uses("shadow1d.frag"), [(0, TexTarget::Shadow1D)]);
    assert_eq!(
        uses("texmix.frag"),
        [
            (0, TexTarget::D2),
            (1, TexTarget::Cube),
            (2, TexTarget::Shadow2D)
        ]
    );
}

/// A one-unit fragment shader with `body` as its instructions.
fn fs(svview: &str, body: &str) -> String {
    format!("FRAG\nDCL IN[0], TEXCOORD[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], {svview}, FLOAT\nDCL TEMP[0..1]\n{body} 9: MOV OUT[0], TEMP[0]\n10: END\n")
}

/// Asserts a Target error pointing at the last `word` of the line starting with `prefix`.
fn assert_target_error_at(t: &str, prefix: &str, word: &str, what: &str) {
    let (line, col) = t
        .lines()
        .enumerate()
        .find(|(_, s)| s.trim_start().starts_with(prefix))
        .and_then(|(l, s)| Some((l as u32 + 1, s.rfind(word)? as u32 + 1)))
        .unwrap_or_else(|| panic!("no {prefix}..{word} in\n{t}"));
    let e = compile(t).unwrap_err();
    let CompileError::Target {
        line: l, col: c, ..
    } = &e
    else {
        panic!("{e:?}\n{t}");
    };
    assert_eq!((*l, *c), (line, col), "{e}\n{t}");
    let s = e.to_string();
    assert!(s.starts_with(&format!("{line}:{col}: ")), "{s}");
    assert!(s.contains(what), "{s} should say {what}");
}

#[test]
fn unsupported_targets_are_errors_at_line_and_column() {
    for t in [
        "SHADOWCUBE",
        "1D_ARRAY",
        "2D_ARRAY",
        "SHADOW2D_ARRAY",
        "2D_MSAA",
        "CUBE_ARRAY",
        "BUFFER",
    ] {
        // In the instruction (the view declared 2D) ...
        let text = fs("2D", &format!(" 0: TEX TEMP[0], IN[0], SAMP[0], {t}\n"));
        assert_target_error_at(
            &text,
            "0: TEX",
            t,
            &format!("unsupported TEX texture target {t}"),
        );
        // ... and in the view declaration.
        let text = fs(t, " 0: TEX TEMP[0], IN[0], SAMP[0], 2D\n");
        assert_target_error_at(
            &text,
            "DCL SVIEW",
            t,
            &format!("unsupported SVIEW texture target {t}"),
        );
    }
}

/// RECT and SHADOWRECT compile as 2D and SHADOW2D: the coordinate (texels; the unit's
/// unnormalised sampler scales it) reaches the TSP as the shader computed it, divided by q
/// for TXP and nothing else.
#[test]
fn rect_lookups_hand_the_tsp_the_texel_coordinate() {
    let mut r = Rng(0x7a7a_0003);
    for (t, op, lanes) in [
        ("RECT", "TEX", 2),
        ("RECT", "TXP", 2),
        ("SHADOWRECT", "TEX", 3),
        ("SHADOWRECT", "TXP", 3),
    ] {
        let cs = compile(&fs(t, &format!(" 0: {op} TEMP[0], IN[0], SAMP[0], {t}\n"))).unwrap();
        for _ in 0..20 {
            // Texel coordinates of a 640x480 rectangle.
            let inputs: [Vec<V>; 4] = [0; 4].map(|_| {
                let c = coord(&mut r).map(f);
                vec![[c[0] * 640.0, c[1] * 480.0, c[2], c[3]].map(f32::to_bits)]
            });
            let seen = recorded(&cs, &inputs, [0; 4]);
            assert_eq!(seen.len(), 4, "{t} {op}: one sample per pixel");
            for (p, (u, c)) in seen.iter().enumerate() {
                assert_eq!(*u, 0);
                let want = if op == "TXP" {
                    div_by_w(inputs[p][0])
                } else {
                    [inputs[p][0][0], inputs[p][0][1], inputs[p][0][2]]
                };
                assert_eq!(c[..lanes], want[..lanes], "{t} {op}, pixel {p}");
            }
        }
    }
}

#[test]
fn one_unit_with_two_targets_is_an_error_at_the_second() {
    for (a, b) in [
        ("2D", "SHADOW2D"),
        ("1D", "2D"),
        ("2D", "3D"),
        ("CUBE", "3D"),
        ("SHADOW1D", "1D"),
    ] {
        let text = fs(
            a,
            &format!(
                " 0: TEX TEMP[0], IN[0], SAMP[0], {a}\n 1: TXB TEMP[1], IN[0], SAMP[0], {b}\n 2: ADD TEMP[0], TEMP[0], TEMP[1]\n"
            ),
        );
        assert_target_error_at(
            &text,
            "1: TXB",
            b,
            &format!("as {b} here but as {a} before"),
        );
    }
    // The same target twice is fine, and so are two units with different targets.
    let same = fs(
        "2D",
        " 0: TEX TEMP[0], IN[0], SAMP[0], 2D\n 1: TXP TEMP[1], IN[0], SAMP[0], 2D\n 2: ADD TEMP[0], TEMP[0], TEMP[1]\n",
    );
    assert_eq!(compile(&same).unwrap().samplers.len(), 1);
}

#[test]
fn the_report_names_each_unit_with_its_target() {
    let r = sgx_compiler::compile_report(&text("texmix.frag"), None, false).unwrap();
    assert!(
        r.contains("\n; samplers: t0 2D, t1 CUBE, t2 SHADOW2D\n"),
        "{r}"
    );
}
