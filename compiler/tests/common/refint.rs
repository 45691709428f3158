//! A TGSI reference interpreter, written for the tests from the TGSI spec.
//!
//! Lanes are 32-bit words; float operations use the same f32 operation order the USSE
//! semantics (and the compiler's documented expansions: SQRT = 1/rsq, DIV = a * 1/b,
//! POW = exp2(log2 a * b)) use, so results compare bit for bit. N instances run in lockstep
//! (1 for vertex shaders, the 2x2 quad for fragment shaders, so DDX/DDY and implicit-LOD
//! texturing see their neighbours); a branch whose condition differs between live instances
//! returns `Divergent`, and callers then run the pixels one by one.

use std::collections::{BTreeMap, HashMap};

use sgx_compiler::tgsi::{
    File, Indirect, Instruction, RegRef, Shader, ShaderStage, SrcOperand, TexTarget,
};
use sgx_sim::usse::{Lod, Textures};

pub type V = [u32; 4];

#[derive(Debug)]
pub enum RefError {
    Divergent,
    Runaway,
    Bad(String),
}

/// Float operations whose USSE forms flush denormals (sim's `ftz`, hwdocs model-choices):
/// their operands and results are flushed here too. CMP flushes only the compared operand
/// (its other two are moved, bit for bit), KILL_IF its compare.
const FLUSHING_OPS: [&str; 37] = [
    "ADD", "MUL", "MAD", "DP2", "DP3", "DP4", "DPH", "MIN", "MAX", "RCP", "RSQ", "SQRT", "EX2",
    "LG2", "POW", "SIN", "COS", "EXP", "LOG", "FRC", "FLR", "CEIL", "TRUNC", "ROUND", "SSG", "SLT",
    "SGE", "SEQ", "SNE", "SGT", "SLE", "FSEQ", "FSNE", "FSLT", "FSGE", "LRP", "XPD",
];

/// A denormal as the zero of its sign.
pub fn ftz(x: u32) -> u32 {
    if x & 0x7F80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

pub struct RefOut {
    /// Per instance: OUT index -> (value, lanes written).
    pub outs: Vec<BTreeMap<u32, (V, u8)>>,
    pub killed: Vec<bool>,
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}
fn b(x: f32) -> u32 {
    x.to_bits()
}

/// The USSE saturate: NaN and anything not above 0 give +0.
pub fn sat(x: u32) -> u32 {
    let v = f(x);
    if v >= 1.0 {
        b(1.0)
    } else if v > 0.0 {
        x
    } else {
        0
    }
}

const INT_OPS: [&str; 27] = [
    "AND", "OR", "XOR", "SHL", "ISHR", "USHR", "UADD", "UMUL", "IDIV", "UDIV", "UMOD", "USEQ",
    "USNE", "ISLT", "ISGE", "USLT", "USGE", "IMAX", "IMIN", "UMAX", "UMIN", "NOT", "INEG", "I2F",
    "U2F", "UCMP", "UARL",
];

struct Inst {
    temps: HashMap<u32, V>,
    outs: BTreeMap<u32, (V, u8)>,
    /// ADDR[0..3], four lanes each.
    addr: [[i32; 4]; 3],
    inputs: BTreeMap<(File, u32), V>,
    active: bool,
    killed: bool,
}

pub struct Env<'a> {
    pub consts: &'a BTreeMap<(u32, u32), V>,
    pub tex: &'a mut dyn Textures,
}

fn lanes(a: V, g: impl Fn(u32) -> u32) -> V {
    a.map(g)
}
fn lanes2(a: V, c: V, g: impl Fn(u32, u32) -> u32) -> V {
    [g(a[0], c[0]), g(a[1], c[1]), g(a[2], c[2]), g(a[3], c[3])]
}
fn one(t: bool) -> u32 {
    if t {
        b(1.0)
    } else {
        0
    }
}
fn all(t: bool) -> u32 {
    if t {
        u32::MAX
    } else {
        0
    }
}

/// Matching structure of the flow instructions.
fn flow_map(sh: &Shader) -> Result<HashMap<usize, usize>, RefError> {
    let mut m = HashMap::new();
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for (i, ins) in sh.instrs.iter().enumerate() {
        match ins.opcode.as_str() {
            "IF" | "UIF" | "BGNLOOP" => stack.push((i, "")),
            "ELSE" => {
                let (j, _) = *stack.last().ok_or(RefError::Bad("ELSE".into()))?;
                m.insert(j, i);
                stack.pop();
                stack.push((i, "else"));
            }
            "ENDIF" => {
                let (j, _) = stack.pop().ok_or(RefError::Bad("ENDIF".into()))?;
                m.insert(j, i);
            }
            "ENDLOOP" => {
                let (j, _) = stack.pop().ok_or(RefError::Bad("ENDLOOP".into()))?;
                m.insert(j, i);
                m.insert(i, j);
            }
            _ => {}
        }
    }
    Ok(m)
}

fn innermost_loop(sh: &Shader, at: usize, fm: &HashMap<usize, usize>) -> Option<(usize, usize)> {
    let mut depth = 0i32;
    for j in (0..at).rev() {
        match sh.instrs[j].opcode.as_str() {
            "ENDLOOP" => depth += 1,
            "BGNLOOP" => {
                if depth == 0 {
                    return Some((j, fm[&j]));
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// Runs `sh` on `n` instances. `inputs[i]` maps (IN or SV, index) to the instance's value.
pub fn run(
    sh: &Shader,
    inputs: &[BTreeMap<(File, u32), V>],
    env: &mut Env,
) -> Result<RefOut, RefError> {
    let fm = flow_map(sh)?;
    let mut st: Vec<Inst> = inputs
        .iter()
        .map(|inp| Inst {
            temps: HashMap::new(),
            outs: BTreeMap::new(),
            addr: [[0; 4]; 3],
            inputs: inp.clone(),
            active: true,
            killed: false,
        })
        .collect();
    let n = st.len();
    let mut pc = 0usize;
    let mut steps = 0u32;
    let mut stack: Vec<usize> = Vec::new();
    while pc < sh.instrs.len() {
        steps += 1;
        if steps > 60000 {
            return Err(RefError::Runaway);
        }
        if st.iter().all(|s| !s.active) {
            break;
        }
        let ins = &sh.instrs[pc];
        let op = ins.opcode.as_str();
        let mut next = pc + 1;
        match op {
            "END" => break,
            "NOP" | "ENDIF" | "BGNLOOP" | "BGNSUB" => {}
            "IF" | "UIF" => {
                let mut conds = Vec::new();
                for s in st.iter().filter(|s| s.active) {
                    let a = fetch(s, &ins.src[0], op == "UIF", sh, env)?;
                    conds.push(if op == "UIF" {
                        a[0] != 0
                    } else {
                        f(a[0]) != 0.0
                    });
                }
                if conds.iter().any(|c| *c != conds[0]) {
                    return Err(RefError::Divergent);
                }
                if !conds[0] {
                    next = fm[&pc] + 1;
                }
            }
            "ELSE" => next = fm[&pc] + 1,
            "ENDLOOP" => next = fm[&pc] + 1,
            "BRK" => {
                next = innermost_loop(sh, pc, &fm)
                    .ok_or(RefError::Bad("BRK".into()))?
                    .1
                    + 1
            }
            "CONT" => {
                next = innermost_loop(sh, pc, &fm)
                    .ok_or(RefError::Bad("CONT".into()))?
                    .0
                    + 1
            }
            "CAL" => {
                stack.push(pc + 1);
                next = ins.label.unwrap_or(0) as usize;
            }
            "RET" | "ENDSUB" => match stack.pop() {
                Some(r) => next = r,
                None => break,
            },
            "KILL" => {
                for s in st.iter_mut().filter(|s| s.active) {
                    s.killed = true;
                    s.active = false;
                }
            }
            "KILL_IF" => {
                for k in 0..n {
                    if st[k].active {
                        let a = fetch(&st[k], &ins.src[0], false, sh, env)?;
                        if a.iter().any(|x| f(ftz(*x)) < 0.0) {
                            st[k].killed = true;
                            st[k].active = false;
                        }
                    }
                }
            }
            _ => exec(sh, ins, &mut st, env)?,
        }
        pc = next;
    }
    // GL 2.1 clamps a vertex program's colours to [0, 1] (there is no
    // ARB_color_buffer_float), after the program.
    if sh.stage == ShaderStage::Vertex {
        let colours: Vec<u32> = sh
            .decls
            .iter()
            .filter(|d| d.file == File::Output)
            .filter(|d| {
                matches!(
                    d.semantic.map(|s| s.name),
                    Some(sgx_compiler::tgsi::SemanticName::Color)
                        | Some(sgx_compiler::tgsi::SemanticName::BColor)
                )
            })
            .flat_map(|d| d.first..=d.last)
            .collect();
        for s in st.iter_mut() {
            for i in &colours {
                if let Some((v, _)) = s.outs.get_mut(i) {
                    *v = v.map(sat);
                }
            }
        }
    }
    Ok(RefOut {
        outs: st.iter().map(|s| s.outs.clone()).collect(),
        killed: st.iter().map(|s| s.killed).collect(),
    })
}

fn fetch(s: &Inst, o: &SrcOperand, int: bool, sh: &Shader, env: &Env) -> Result<V, RefError> {
    let r = &o.reg;
    let raw: V = match r.file {
        File::Temp => s
            .temps
            .get(&temp_index(sh, r, &s.addr)?)
            .copied()
            .unwrap_or([0; 4]),
        File::Output => s.outs.get(&(r.index as u32)).map(|v| v.0).unwrap_or([0; 4]),
        File::Input | File::SystemValue => s
            .inputs
            .get(&(r.file, r.index as u32))
            .copied()
            .unwrap_or([0; 4]),
        File::Imm => sh.imms[r.index as usize].bits,
        File::Const => {
            let idx = match r.indirect {
                // An indexed constant clamps into its buffer's declared range (this driver's
                // definition of GL's undefined out-of-range read).
                Some(ind) => {
                    let decls = sh
                        .decls
                        .iter()
                        .filter(|d| d.file == File::Const && d.dim == r.dim);
                    let lo = decls.clone().map(|d| i64::from(d.first)).min().unwrap_or(0);
                    let hi = decls.map(|d| i64::from(d.last)).max().unwrap_or(0);
                    (r.index + addr_of(&s.addr, ind)?).clamp(lo, hi)
                }
                None => r.index,
            };
            u32::try_from(idx)
                .ok()
                .and_then(|i| env.consts.get(&(r.dim, i)).copied())
                .unwrap_or([0; 4])
        }
        _ => return Err(RefError::Bad(format!("source file {:?}", r.file))),
    };
    let mut v = o.swz.map(|c| raw[usize::from(c)]);
    if int {
        if o.abs {
            v = v.map(|x| (x as i32).wrapping_abs() as u32);
        }
        if o.neg {
            v = v.map(|x| 0u32.wrapping_sub(x));
        }
    } else {
        if o.abs {
            v = v.map(|x| x & 0x7FFF_FFFF);
        }
        if o.neg {
            v = v.map(|x| x ^ 0x8000_0000);
        }
    }
    Ok(v)
}

/// The TEMP register an operand names. An indexed access is clamped into its array (the
/// declaration with its `ARRAY(n)` id, else the one holding the offset): GL leaves an
/// out-of-range index undefined and this driver defines it as the nearest element.
fn temp_index(sh: &Shader, r: &RegRef, addr: &[[i32; 4]; 3]) -> Result<u32, RefError> {
    let Some(ind) = r.indirect else {
        return Ok(r.index as u32);
    };
    let d = sh
        .decls
        .iter()
        .filter(|d| d.file == File::Temp)
        .find(|d| {
            if r.array_id != 0 {
                d.array_id == r.array_id
            } else {
                (i64::from(d.first)..=i64::from(d.last)).contains(&r.index)
            }
        })
        .ok_or(RefError::Bad("indexed TEMP outside any declaration".into()))?;
    let want = r.index + addr_of(addr, ind)?;
    Ok(want.clamp(i64::from(d.first), i64::from(d.last)) as u32)
}

/// The lane of an ADDR register an indirect operand reads.
fn addr_of(addr: &[[i32; 4]; 3], ind: Indirect) -> Result<i64, RefError> {
    let reg = addr
        .get(ind.index as usize)
        .ok_or(RefError::Bad(format!("ADDR[{}]", ind.index)))?;
    Ok(i64::from(reg[usize::from(ind.comp)]))
}

/// The unit a sampler operand names. An indexed one is clamped into the declared units (the
/// nearest; an index between declarations reads the last declared unit), this driver's
/// definition of GL's undefined out-of-range index.
fn sampler_unit(sh: &Shader, r: &RegRef, addr: &[[i32; 4]; 3]) -> Result<u32, RefError> {
    let Some(ind) = r.indirect else {
        return Ok(r.index as u32);
    };
    let units: Vec<u32> = sh
        .decls
        .iter()
        .filter(|d| d.file == File::Sampler)
        .flat_map(|d| d.first..=d.last)
        .collect();
    let (lo, hi) = match (units.iter().min(), units.iter().max()) {
        (Some(lo), Some(hi)) => (*lo, *hi),
        _ => return Err(RefError::Bad("indexed SAMP without declarations".into())),
    };
    let want = (r.index + addr_of(addr, ind)?).clamp(i64::from(lo), i64::from(hi)) as u32;
    Ok(if units.contains(&want) { want } else { hi })
}

/// The pixel of a quad whose derivatives give every pixel's implicit LOD: the model's
/// per-quad LOD (hwdocs model-choices "Texture LOD"; `sim`'s `LOD_PIXEL`).
const LOD_PIXEL: usize = 2;

fn lod_of(op: &str, stage: ShaderStage, c: [[f32; 4]; 4], i: usize, n: usize) -> Lod {
    let d = |bit: usize| -> [f32; 4] {
        if n < 4 {
            return [0.0; 4];
        }
        let (hi, lo) = (c[LOD_PIXEL | bit], c[LOD_PIXEL & !bit]);
        [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], hi[3] - lo[3]]
    };
    match (op, stage) {
        ("TXL", _) => Lod::Explicit(c[i][3]),
        ("TEX" | "TXP", ShaderStage::Vertex) => Lod::Explicit(0.0),
        (_, ShaderStage::Vertex) => Lod::Explicit(c[i][3]),
        ("TEX" | "TXP", ShaderStage::Fragment) => Lod::Implicit {
            ddx: d(1),
            ddy: d(2),
        },
        (_, ShaderStage::Fragment) => Lod::Bias {
            ddx: d(1),
            ddy: d(2),
            bias: c[i][3],
        },
    }
}

fn exec(sh: &Shader, ins: &Instruction, st: &mut [Inst], env: &mut Env) -> Result<(), RefError> {
    let op = ins.opcode.as_str();
    let int = INT_OPS.contains(&op);
    let n = st.len();
    let mut srcs: Vec<Vec<V>> = Vec::with_capacity(n);
    for s in st.iter() {
        let v: Result<Vec<V>, RefError> = ins
            .src
            .iter()
            .filter(|o| o.reg.file != File::Sampler)
            .map(|o| fetch(s, o, int, sh, env))
            .collect();
        srcs.push(v?);
    }
    let mut texc = [[0f32; 4]; 4];
    if matches!(op, "TEX" | "TXB" | "TXL" | "TXP" | "TXD") {
        for (i, s) in srcs.iter().enumerate() {
            let c = s[0].map(f);
            // TXP: x, y and z (a shadow reference too) over w, as TGSI states it.
            texc[i] = if op == "TXP" {
                let w = 1.0 / c[3];
                [c[0] * w, c[1] * w, c[2] * w, c[3]]
            } else {
                c
            };
            // What the TSP sees of a 1D texture: a 2D texture of height 1, sampled on its
            // one row's centre.
            if matches!(ins.target, Some(TexTarget::D1 | TexTarget::Shadow1D)) {
                texc[i][1] = 0.5;
            }
        }
    }
    for i in 0..n {
        if !st[i].active {
            continue;
        }
        let s = &srcs[i];
        let mut a = s.first().copied().unwrap_or([0; 4]);
        let mut c1 = s.get(1).copied().unwrap_or([0; 4]);
        let mut c2 = s.get(2).copied().unwrap_or([0; 4]);
        let flush = FLUSHING_OPS.contains(&op);
        if flush || op == "CMP" {
            a = a.map(ftz);
        }
        if flush {
            c1 = c1.map(ftz);
            c2 = c2.map(ftz);
        }
        let fx = f(a[0]);
        let deriv = |bit: usize| -> V {
            if n < 4 {
                return [b(0.0); 4];
            }
            let (hi, lo) = (srcs[i | bit][0], srcs[i & !bit][0]);
            lanes2(hi, lo, |x, y| ftz(b(f(ftz(x)) - f(ftz(y)))))
        };
        let r: V = match op {
            "MOV" => a,
            "ADD" => lanes2(a, c1, |x, y| b(f(x) + f(y))),
            "MUL" => lanes2(a, c1, |x, y| b(f(x) * f(y))),
            "MAD" => {
                let p = lanes2(a, c1, |x, y| b(f(x) * f(y)));
                lanes2(p, c2, |x, y| b(f(x) + f(y)))
            }
            "DP2" => [b(f(a[0]) * f(c1[0]) + f(a[1]) * f(c1[1])); 4],
            "DP3" => [b((f(a[0]) * f(c1[0]) + f(a[1]) * f(c1[1])) + f(a[2]) * f(c1[2])); 4],
            "DP4" => {
                [b(
                    ((f(a[0]) * f(c1[0]) + f(a[1]) * f(c1[1])) + f(a[2]) * f(c1[2]))
                        + f(a[3]) * f(c1[3]),
                ); 4]
            }
            "DPH" => {
                [b(((f(a[0]) * f(c1[0]) + f(a[1]) * f(c1[1])) + f(a[2]) * f(c1[2])) + f(c1[3])); 4]
            }
            "MIN" => lanes2(a, c1, |x, y| b(f(x).min(f(y)))),
            "MAX" => lanes2(a, c1, |x, y| b(f(x).max(f(y)))),
            "RCP" => [b(1.0 / fx); 4],
            "RSQ" => [b(1.0 / fx.sqrt()); 4],
            "SQRT" => [b(1.0 / (1.0 / fx.sqrt())); 4],
            "EX2" => [b(fx.exp2()); 4],
            "LG2" => [b(fx.log2()); 4],
            // x^0 is 1 for every x (ARB_vertex_program's POW).
            "POW" => {
                [b(if f(c1[0]) == 0.0 {
                    1.0
                } else {
                    (fx.log2() * f(c1[0])).exp2()
                }); 4]
            }
            "SIN" => [b(fx.sin()); 4],
            "COS" => [b(fx.cos()); 4],
            "EXP" => [
                b(fx.floor().exp2()),
                b(fx - fx.floor()),
                b(fx.exp2()),
                b(1.0),
            ],
            "LOG" => {
                let ax = fx.abs();
                let fl = ax.log2().floor();
                [b(fl), b(ax * (1.0 / fl.exp2())), b(ax.log2()), b(1.0)]
            }
            "FRC" => lanes(a, |x| b(f(x) - f(x).floor())),
            "FLR" => lanes(a, |x| b(f(x).floor())),
            "CEIL" => lanes(a, |x| b(f(x).ceil())),
            "TRUNC" => lanes(a, |x| b(f(x).trunc())),
            "ROUND" => lanes(a, |x| b(f(x).round_ties_even())),
            "SSG" => lanes(a, |x| {
                let v = f(x);
                b(if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    0.0
                })
            }),
            "SLT" => lanes2(a, c1, |x, y| one(f(x) < f(y))),
            "SGE" => lanes2(a, c1, |x, y| one(f(x) >= f(y))),
            "SEQ" => lanes2(a, c1, |x, y| one(f(x) == f(y))),
            "SNE" => lanes2(a, c1, |x, y| one(f(x) != f(y))),
            "SGT" => lanes2(a, c1, |x, y| one(f(x) > f(y))),
            "SLE" => lanes2(a, c1, |x, y| one(f(x) <= f(y))),
            "FSEQ" => lanes2(a, c1, |x, y| all(f(x) == f(y))),
            "FSNE" => lanes2(a, c1, |x, y| all(f(x) != f(y))),
            "FSLT" => lanes2(a, c1, |x, y| all(f(x) < f(y))),
            "FSGE" => lanes2(a, c1, |x, y| all(f(x) >= f(y))),
            "CMP" => [0, 1, 2, 3].map(|l| if f(a[l]) < 0.0 { c1[l] } else { c2[l] }),
            "UCMP" => [0, 1, 2, 3].map(|l| if a[l] != 0 { c1[l] } else { c2[l] }),
            "LRP" => [0, 1, 2, 3].map(|l| {
                let (x, y, z) = (f(a[l]), f(c1[l]), f(c2[l]));
                b(x * y + (1.0 - x) * z)
            }),
            "XPD" => [
                b(f(a[1]) * f(c1[2]) - f(a[2]) * f(c1[1])),
                b(f(a[2]) * f(c1[0]) - f(a[0]) * f(c1[2])),
                b(f(a[0]) * f(c1[1]) - f(a[1]) * f(c1[0])),
                b(1.0),
            ],
            "DIV" => lanes2(a, c1, |x, y| b(f(x) * (1.0 / f(y)))),
            "DDX" => deriv(1),
            "DDY" => deriv(2),
            "AND" => lanes2(a, c1, |x, y| x & y),
            "OR" => lanes2(a, c1, |x, y| x | y),
            "XOR" => lanes2(a, c1, |x, y| x ^ y),
            "NOT" => lanes(a, |x| !x),
            "SHL" => lanes2(a, c1, |x, y| x << (y & 31)),
            "ISHR" => lanes2(a, c1, |x, y| ((x as i32) >> (y & 31)) as u32),
            "USHR" => lanes2(a, c1, |x, y| x >> (y & 31)),
            "UADD" => lanes2(a, c1, u32::wrapping_add),
            "UMUL" => lanes2(a, c1, u32::wrapping_mul),
            "IDIV" => lanes2(a, c1, |x, y| {
                if y == 0 {
                    u32::MAX
                } else {
                    (x as i32).wrapping_div(y as i32) as u32
                }
            }),
            "UDIV" => lanes2(a, c1, |x, y| x.checked_div(y).unwrap_or(u32::MAX)),
            "UMOD" => lanes2(a, c1, |x, y| x.checked_rem(y).unwrap_or(u32::MAX)),
            "USEQ" => lanes2(a, c1, |x, y| all(x == y)),
            "USNE" => lanes2(a, c1, |x, y| all(x != y)),
            "ISLT" => lanes2(a, c1, |x, y| all((x as i32) < (y as i32))),
            "ISGE" => lanes2(a, c1, |x, y| all((x as i32) >= (y as i32))),
            "USLT" => lanes2(a, c1, |x, y| all(x < y)),
            "USGE" => lanes2(a, c1, |x, y| all(x >= y)),
            "IMAX" => lanes2(a, c1, |x, y| (x as i32).max(y as i32) as u32),
            "IMIN" => lanes2(a, c1, |x, y| (x as i32).min(y as i32) as u32),
            "UMAX" => lanes2(a, c1, u32::max),
            "UMIN" => lanes2(a, c1, u32::min),
            "INEG" => lanes(a, |x| 0u32.wrapping_sub(x)),
            "I2F" => lanes(a, |x| b(x as i32 as f32)),
            "U2F" => lanes(a, |x| b(x as f32)),
            "F2I" => lanes(a, |x| f(x) as i32 as u32),
            "F2U" => lanes(a, |x| f(x) as u32),
            "ARL" => lanes(a, |x| f(x).floor() as i32 as u32),
            "UARL" => a,
            "TEX" | "TXB" | "TXL" | "TXP" | "TXD" => {
                let samp = &ins.src[if op == "TXD" { 3 } else { 1 }].reg;
                let unit = sampler_unit(sh, samp, &st[i].addr)?;
                let lod = if op == "TXD" {
                    // The derivatives the target has: x for 1D, xy for 2D, xyz for 3D and
                    // cube; the other lanes 0.
                    let k = match ins.target {
                        Some(TexTarget::D1 | TexTarget::Shadow1D) => 1,
                        Some(TexTarget::D3 | TexTarget::Cube) => 3,
                        _ => 2,
                    };
                    let g = |v: V| {
                        let v = v.map(f);
                        [0, 1, 2, 3].map(|l| if l < k { v[l] } else { 0.0 })
                    };
                    Lod::Implicit {
                        ddx: g(srcs[i][1]),
                        ddy: g(srcs[i][2]),
                    }
                } else {
                    lod_of(op, sh.stage, texc, i, n)
                };
                let c = texc[i];
                let v = env
                    .tex
                    .sample(unit, c, lod)
                    .map_err(|e| RefError::Bad(format!("texture fault {e:?}")))?;
                v.map(b)
            }
            _ => return Err(RefError::Bad(format!("reference: no opcode {op}"))),
        };
        let r = if flush { r.map(ftz) } else { r };
        let r = if ins.sat { r.map(sat) } else { r };
        let d = ins.dst.first().ok_or(RefError::Bad("no dst".into()))?;
        let mut idx = d.reg.index as u32;
        let s = &mut st[i];
        match d.reg.file {
            File::Temp => {
                idx = temp_index(sh, &d.reg, &s.addr)?;
                let e = s.temps.entry(idx).or_insert([0; 4]);
                for l in 0..4 {
                    if d.mask & (1 << l) != 0 {
                        e[l] = r[l];
                    }
                }
            }
            File::Output => {
                let e = s.outs.entry(idx).or_insert(([0; 4], 0));
                for l in 0..4 {
                    if d.mask & (1 << l) != 0 {
                        e.0[l] = r[l];
                    }
                }
                e.1 |= d.mask;
            }
            File::Addr => {
                let a = s
                    .addr
                    .get_mut(idx as usize)
                    .ok_or(RefError::Bad(format!("ADDR[{idx}]")))?;
                for l in 0..4 {
                    if d.mask & (1 << l) != 0 {
                        a[l] = r[l] as i32;
                    }
                }
            }
            other => return Err(RefError::Bad(format!("dst {other:?}"))),
        }
    }
    Ok(())
}
