//! Shared test machinery: random values, a fake texture unit, and differential runners
//! (compiled code on the sim's USSE interpreter vs the reference interpreter).
#![allow(dead_code)]
// Lane loops index several vec4s at once; ranges read clearer than zips here.
#![allow(clippy::needless_range_loop)]

pub mod refint;

use std::collections::BTreeMap;

use sgx_compiler::tgsi::{File, Shader, ShaderStage, TexTarget};
use sgx_compiler::{compile, CompiledShader, InputLoc, OutputLoc};
use sgx_sim::usse::{run_quad, run_vertex, Lod, Program, Stage, Textures};
use sgx_sim::{Fault, Unit};

/// The TGSI text of `tests/shaders/<name>.tgsi`.
pub fn shader_text(name: &str) -> String {
    let path = format!("{}/tests/shaders/{name}.tgsi", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub use refint::V;

/// xorshift64*: deterministic, seedable.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
    /// Floats: specials, small whole numbers, and spread magnitudes of both signs.
    pub fn float(&mut self) -> f32 {
        match self.below(12) {
            0 => *self.pick(&[0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 100.0, 1e-3]),
            1 => self.below(9) as f32 - 4.0,
            2 if self.below(8) == 0 => {
                *self.pick(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e30, -1e-30])
            }
            _ => {
                let m = (self.below(2_000_001) as f32 - 1_000_000.0) / 100_000.0;
                m * *self.pick(&[1.0, 1.0, 0.1, 10.0, 1000.0])
            }
        }
    }
    pub fn fvec(&mut self) -> V {
        [0; 4].map(|_| self.float().to_bits())
    }
    pub fn uint(&mut self) -> u32 {
        match self.below(6) {
            0 => *self.pick(&[0, 1, u32::MAX, 0x8000_0000, 31, 32, 0x3f80_0000]),
            1 => self.below(64) as u32,
            2 => (self.below(200) as i32 - 100) as u32,
            _ => self.next() as u32,
        }
    }
    pub fn uvec(&mut self) -> V {
        [0; 4].map(|_| self.uint())
    }
}

/// A texture unit whose result is a fixed function of (unit, coordinate, LOD), so the
/// reference and the USSE interpreter agree exactly when their inputs do.
pub struct FakeTex;

impl Textures for FakeTex {
    fn sample(&mut self, unit: u32, c: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        if unit >= 8 {
            return Err(Fault {
                unit: Unit::Tsp,
                addr: unit,
                write: false,
            });
        }
        let l = match lod {
            Lod::Implicit { ddx, ddy } => ddx[0] + 2.0 * ddx[1] + 3.0 * ddy[0] + 5.0 * ddy[1],
            Lod::Bias { ddx, ddy, bias } => {
                ddx[0] + 2.0 * ddx[1] + 3.0 * ddy[0] + 5.0 * ddy[1] + 7.0 * bias
            }
            Lod::Explicit(x) => 11.0 * x,
        };
        Ok([
            c[0] * 0.5 + unit as f32,
            c[1] * 0.25 - 1.0,
            l,
            (c[0] - c[1]).abs(),
        ])
    }
}

/// FakeTex per texture target: units sampled as 1D read c.xy like 2D ones (the TSP sees a
/// height-1 2D texture, so y must arrive as exactly 0.5, which the result shows), units
/// whose TSP lookup reads c.z (3D, CUBE, SHADOW1D, SHADOW2D) also fold z and its
/// derivatives into the result. 2D units give FakeTex's values exactly.
pub struct TargetTex {
    targets: BTreeMap<u32, TexTarget>,
}

impl TargetTex {
    /// The targets each unit is sampled with in `sh` (2D for units not sampled).
    pub fn of(sh: &Shader) -> TargetTex {
        let targets = sh
            .instrs
            .iter()
            .filter_map(|i| {
                let s = i.src.iter().find(|s| s.reg.file == File::Sampler)?;
                Some((s.reg.index as u32, i.target.unwrap_or(TexTarget::D2)))
            })
            .collect();
        TargetTex { targets }
    }

    fn reads_z(&self, unit: u32) -> bool {
        matches!(
            self.targets.get(&unit),
            Some(TexTarget::D3 | TexTarget::Cube | TexTarget::Shadow1D | TexTarget::Shadow2D)
        )
    }
}

impl Textures for TargetTex {
    fn sample(&mut self, unit: u32, c: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        let mut v = FakeTex.sample(unit, c, lod)?;
        if self.reads_z(unit) {
            let dz = match lod {
                Lod::Implicit { ddx, ddy } | Lod::Bias { ddx, ddy, .. } => {
                    13.0 * ddx[2] + 17.0 * ddy[2]
                }
                Lod::Explicit(_) => 0.0,
            };
            v[2] += dz;
            v[3] += c[2] * 0.125;
        }
        Ok(v)
    }
}

/// Lane comparison: equal bits, or both NaN.
pub fn same(a: u32, b: u32) -> bool {
    a == b || (f32::from_bits(a).is_nan() && f32::from_bits(b).is_nan())
}

fn sa_of(cs: &CompiledShader, consts: &BTreeMap<(u32, u32), V>) -> Vec<V> {
    let mut sa = vec![[0u32; 4]; cs.const_regs as usize];
    for r in &cs.constants {
        for i in r.first..r.first + r.count {
            if let Some(v) = consts.get(&(r.buffer, i)) {
                sa[(r.sa_base + i) as usize] = *v;
            }
        }
    }
    sa
}

/// Compiles and runs a vertex shader on both interpreters; panics with context on mismatch.
pub fn check_vs(text: &str, attrs: &BTreeMap<u32, V>, consts: &BTreeMap<(u32, u32), V>) {
    let cs = compile(text).unwrap_or_else(|e| panic!("compile failed: {e}\n{text}"));
    check_vs_compiled(text, &cs, attrs, consts);
}

/// The compiled vertex program's outputs for `attrs` (no constants), by TGSI OUT index.
pub fn run_vs_outputs(text: &str, attrs: &BTreeMap<u32, V>) -> BTreeMap<u32, V> {
    let cs = compile(text).unwrap_or_else(|e| panic!("compile failed: {e}\n{text}"));
    let sh = sgx_compiler::parse(text).unwrap();
    let mut pa = vec![[0u32; 4]; 16];
    for i in &cs.inputs {
        if let InputLoc::Primary(n) = i.location {
            pa[n as usize] = attrs.get(&i.index).copied().unwrap_or([0; 4]);
        }
    }
    let sa = sa_of(&cs, &BTreeMap::new());
    let prog = Program::decode(&cs.code, Stage::Vertex).expect("decode");
    let got = run_vertex(&prog, &pa, &sa, &mut TargetTex::of(&sh)).expect("run");
    cs.outputs
        .iter()
        .filter_map(|o| match o.location {
            OutputLoc::Output(n) => Some((o.index, got.out[n as usize])),
            _ => None,
        })
        .collect()
}

pub fn check_vs_compiled(
    text: &str,
    cs: &CompiledShader,
    attrs: &BTreeMap<u32, V>,
    consts: &BTreeMap<(u32, u32), V>,
) {
    let sh = sgx_compiler::parse(text).unwrap();
    let mut pa = vec![[0u32; 4]; 16];
    for i in &cs.inputs {
        if let InputLoc::Primary(n) = i.location {
            pa[n as usize] = attrs.get(&i.index).copied().unwrap_or([0; 4]);
        }
    }
    let sa = sa_of(cs, consts);
    let prog = Program::decode(&cs.code, Stage::Vertex)
        .unwrap_or_else(|e| panic!("decode: {e}\n{}", listing(cs)));
    let got = run_vertex(&prog, &pa, &sa, &mut TargetTex::of(&sh))
        .unwrap_or_else(|e| panic!("run: {e}\n{}", listing(cs)));
    let inputs: BTreeMap<(File, u32), V> =
        attrs.iter().map(|(k, v)| ((File::Input, *k), *v)).collect();
    let want = refint::run(
        &sh,
        &[inputs],
        &mut refint::Env {
            consts,
            tex: &mut TargetTex::of(&sh),
        },
    )
    .unwrap_or_else(|e| panic!("reference: {e:?}"));
    for o in &cs.outputs {
        let OutputLoc::Output(n) = o.location else {
            continue;
        };
        let Some((v, mask)) = want.outs[0].get(&o.index) else {
            continue;
        };
        for l in 0..4 {
            if mask & (1 << l) != 0 && !same(got.out[n as usize][l], v[l]) {
                panic!(
                    "OUT[{}].{} = {:#010x} ({}), reference {:#010x} ({})\ninputs {attrs:x?}\nconsts {consts:x?}\n{text}\n{}",
                    o.index,
                    "xyzw".as_bytes()[l] as char,
                    got.out[n as usize][l],
                    f32::from_bits(got.out[n as usize][l]),
                    v[l],
                    f32::from_bits(v[l]),
                    listing(cs)
                );
            }
        }
    }
}

pub fn listing(cs: &CompiledShader) -> String {
    sgx_compiler::disasm_words(&cs.code).unwrap()
}

/// Per-pixel fragment inputs: (file, TGSI index) -> value.
pub type FsInputs = [BTreeMap<(File, u32), V>; 4];

/// Result of a fragment run: colour bits and killed flags.
pub struct FsResult {
    pub colour: [V; 4],
    pub killed: [bool; 4],
}

/// Compiles and runs a fragment shader on a quad on both interpreters; compares colour
/// lanes written and kill flags; returns the compiled run's result.
pub fn check_fs(text: &str, inputs: &FsInputs, consts: &BTreeMap<(u32, u32), V>) -> FsResult {
    let cs = compile(text).unwrap_or_else(|e| panic!("compile failed: {e}\n{text}"));
    check_fs_compiled(text, &cs, inputs, consts)
}

/// Runs a compiled fragment shader on a quad on the sim's USSE interpreter alone.
pub fn run_fs_compiled(
    sh: &Shader,
    cs: &CompiledShader,
    inputs: &FsInputs,
    consts: &BTreeMap<(u32, u32), V>,
) -> sgx_sim::usse::QuadOut {
    assert_eq!(cs.stage, ShaderStage::Fragment);
    let mut pa = [[[0u32; 4]; 16]; 4];
    for (px, inp) in inputs.iter().enumerate() {
        for i in &cs.inputs {
            if let InputLoc::Primary(n) = i.location {
                pa[px][n as usize] = inp.get(&(i.file, i.index)).copied().unwrap_or([0; 4]);
            }
        }
    }
    let sa = sa_of(cs, consts);
    let prog = Program::decode(&cs.code, Stage::Pixel)
        .unwrap_or_else(|e| panic!("decode: {e}\n{}", listing(cs)));
    run_quad(&prog, &pa, [true; 4], &sa, &mut TargetTex::of(sh))
        .unwrap_or_else(|e| panic!("run: {e}\n{}", listing(cs)))
}

pub fn check_fs_compiled(
    text: &str,
    cs: &CompiledShader,
    inputs: &FsInputs,
    consts: &BTreeMap<(u32, u32), V>,
) -> FsResult {
    let sh = sgx_compiler::parse(text).unwrap();
    let got = run_fs_compiled(&sh, cs, inputs, consts);
    let mut ref_tex = TargetTex::of(&sh);
    let mut env = refint::Env {
        consts,
        tex: &mut ref_tex,
    };
    let want = match refint::run(&sh, inputs, &mut env) {
        Ok(w) => w,
        Err(refint::RefError::Divergent) => {
            let mut outs = Vec::new();
            let mut killed = Vec::new();
            for inp in inputs {
                let w = refint::run(&sh, std::slice::from_ref(inp), &mut env)
                    .unwrap_or_else(|e| panic!("reference: {e:?}"));
                outs.push(w.outs[0].clone());
                killed.push(w.killed[0]);
            }
            refint::RefOut { outs, killed }
        }
        Err(e) => panic!("reference: {e:?}"),
    };
    let colour_out = cs
        .outputs
        .iter()
        .find(|o| o.location == OutputLoc::Color)
        .map(|o| o.index);
    let depth_out = cs
        .outputs
        .iter()
        .find(|o| o.location == OutputLoc::Depth)
        .map(|o| o.index);
    let bits = got.colour.map(|c| c.map(f32::to_bits));
    for px in 0..4 {
        assert_eq!(
            got.killed[px],
            want.killed[px],
            "pixel {px} kill\n{text}\n{}",
            listing(cs)
        );
        if want.killed[px] {
            continue;
        }
        // The depth output's z, clamped to [0, 1] as the ISP takes it (NaN: 0).
        if let Some((v, mask)) = depth_out.and_then(|i| want.outs[px].get(&i)) {
            let clamp01 = |z: f32| if z > 0.0 { z.min(1.0) } else { 0.0 };
            let want_z = (mask & 0b100 != 0).then(|| clamp01(f32::from_bits(v[2])));
            assert_eq!(
                got.depth[px].map(f32::to_bits),
                want_z.map(f32::to_bits),
                "pixel {px} depth\n{text}\n{}",
                listing(cs)
            );
        }
        let Some((v, mask)) = colour_out.and_then(|i| want.outs[px].get(&i)) else {
            continue;
        };
        for l in 0..4 {
            if mask & (1 << l) != 0 && !same(bits[px][l], v[l]) {
                panic!(
                    "pixel {px} colour.{} = {:#010x} ({}), reference {:#010x} ({})\n{text}\n{}",
                    "xyzw".as_bytes()[l] as char,
                    bits[px][l],
                    f32::from_bits(bits[px][l]),
                    v[l],
                    f32::from_bits(v[l]),
                    listing(cs)
                );
            }
        }
    }
    FsResult {
        colour: bits,
        killed: got.killed,
    }
}
