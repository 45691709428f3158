//! A compiled shader and what the driver needs to bind it; the compile pipeline.

use sgx_hwdocs::{tsp, usse};

use crate::error::Result;
use crate::io::{self, check_limit, InputLoc, IoLayout, OutputLoc};
use crate::ir::Item;
use crate::tgsi::{self, File, Interp, Semantic, SemanticName, Shader, ShaderStage, TexTarget};
use crate::{encode, lower, opt, regalloc};

/// One input of a compiled shader.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShaderInput {
    /// TGSI register file (`IN` or `SV`).
    pub file: File,
    /// TGSI index.
    pub index: u32,
    /// Semantic (fragment inputs; vertex attributes have none).
    pub semantic: Option<Semantic>,
    /// Interpolation for the TSP (fragment varyings).
    pub interp: Option<tsp::Interp>,
    /// `CENTROID` was declared.
    pub centroid: bool,
    /// Where the program reads it.
    pub location: InputLoc,
    /// Packed varyings: the first lane and the lane count in its register (else 0 and 4).
    pub lanes: (u8, u8),
}

/// One output of a compiled shader.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShaderOutput {
    /// TGSI index.
    pub index: u32,
    /// Semantic.
    pub semantic: Option<Semantic>,
    /// Where the program writes it.
    pub location: OutputLoc,
    /// Packed varyings: the first lane and the lane count in its register (else 0 and 4).
    pub lanes: (u8, u8),
}

/// A constant buffer range and where it sits in the secondary bank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ConstRange {
    /// TGSI constant buffer (the 2D index), 0 for the 1D form.
    pub buffer: u32,
    /// First declared vec4.
    pub first: u32,
    /// Declared vec4s.
    pub count: u32,
    /// The buffer's register 0 is sa[sa_base]; register i is sa[sa_base + i].
    pub sa_base: u32,
}

/// A texture unit the program samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SamplerUse {
    /// Texture unit (index into the draw's texture table).
    pub unit: u32,
    /// Target the instructions use (one per unit): 1D, 2D, SHADOW1D or SHADOW2D sample a 2D
    /// texture (1D as height 1, its y set to 0.5 by the code), 3D a volume one, CUBE a cube.
    pub target: TexTarget,
}

/// A shader compiled to USSE model code, with its binding metadata.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CompiledShader {
    /// Vertex or fragment.
    pub stage: ShaderStage,
    /// Code, instruction k in words 2k and 2k+1.
    pub code: Vec<u32>,
    /// USSE instructions.
    pub instructions: u32,
    /// TGSI instructions in the source (END included).
    pub tgsi_instructions: u32,
    /// Inputs: vertex attributes pa[i], or fragment varyings and special inputs.
    pub inputs: Vec<ShaderInput>,
    /// Outputs: vertex o[n], or the fragment colour.
    pub outputs: Vec<ShaderOutput>,
    /// Constant ranges read.
    pub constants: Vec<ConstRange>,
    /// Secondary registers to load (sa0..const_regs).
    pub const_regs: u32,
    /// Texture units sampled.
    pub samplers: Vec<SamplerUse>,
    /// Physical temporaries used.
    pub temps: u32,
    /// The program may discard (KILL / KILL_IF).
    pub discards: bool,
    /// Uses quad derivatives (DDX/DDY, implicit-LOD sampling).
    pub uses_derivatives: bool,
    /// Fragment: varyings pa0..varying_count-1 read; vertex: varyings written to o1...
    pub varying_count: u32,
    /// Fragment: pa slot for gl_FragCoord (TspState pos_slot).
    pub pos_slot: Option<u32>,
    /// Fragment: pa slot for the front-facing value (TspState face_slot).
    pub face_slot: Option<u32>,
    /// Fragment: pa slot for the point coordinate (TspState pcoord_slot).
    pub pcoord_slot: Option<u32>,
    /// Vertex: output holding the point size in .x (RasterState point_size_output).
    pub psize_output: Option<u32>,
    /// Vertex: output holding the edge flag in .x (PolyState edge_flag_output).
    #[serde(default)]
    pub edgeflag_output: Option<u32>,
    /// Fragment: varyings pa[n] holding user clip distances, with the lanes that hold one,
    /// in plane order (RasterState clip_slot and clip_mask): the TA clips against them.
    #[serde(default)]
    pub clip_varyings: Vec<(u32, u8)>,
}

impl CompiledShader {
    /// The TSP interpolation of each varying pa0.. (fragment shaders).
    pub fn varying_interp(&self) -> Vec<tsp::Interp> {
        let mut v = vec![tsp::Interp::PERSPECTIVE; self.varying_count as usize];
        for i in &self.inputs {
            if let (InputLoc::Primary(n), Some(ip)) = (i.location, i.interp) {
                if let Some(slot) = v.get_mut(n as usize) {
                    *slot = ip;
                }
            }
        }
        v
    }
}

fn interp(i: Option<Interp>) -> tsp::Interp {
    match i {
        Some(Interp::Constant) => tsp::Interp::FLAT,
        Some(Interp::Linear) => tsp::Interp::LINEAR,
        Some(Interp::Perspective | Interp::Color) | None => tsp::Interp::PERSPECTIVE,
    }
}

/// How many times the instruction limit lowered code may be before optimisation. The
/// optimiser removes moves and dead code: over the compiler's tests (9,889 compiles, most of
/// them generated) lowered code was 1.27x the final code on average and 3x at most.
const LOWERED_HEADROOM: u64 = 4;

/// Compiles a shader alone (standalone layout: see `io::standalone`).
pub fn compile(text: &str) -> Result<CompiledShader> {
    let sh = tgsi::parse(text)?;
    let io = io::standalone(&sh)?;
    compile_with(&sh, &io)
}

/// Compiles a parsed shader with a given input/output layout.
pub fn compile_with(sh: &Shader, layout: &IoLayout) -> Result<CompiledShader> {
    let rewritten = tgsi::float_address_chains(sh);
    let sh = rewritten.as_ref().unwrap_or(sh);
    let (mut code, info) = lower::lower(sh, layout)?;
    // Refused before optimising, so a huge shader costs a parse and a lowering, not an
    // optimisation whose result could not fit anyway.
    let lowered = code
        .items
        .iter()
        .filter(|i| matches!(i, Item::I(_)))
        .count();
    check_limit(
        "usse::MAX_INSTRUCTIONS x LOWERED_HEADROOM (before optimisation)",
        lowered as u64,
        usse::MAX_INSTRUCTIONS * LOWERED_HEADROOM,
    )?;
    opt::optimize(&mut code);
    let temps = regalloc::allocate(&mut code)?;
    let insts = regalloc::layout(&code)?;
    let words = encode::encode_all(&insts)?;
    let fs = sh.stage == ShaderStage::Fragment;
    let mut inputs = Vec::new();
    let (mut pos_slot, mut face_slot, mut pcoord_slot) = (None, None, None);
    for file in [File::Input, File::SystemValue] {
        let map = if file == File::Input {
            &layout.inputs
        } else {
            &layout.sysvals
        };
        for (i, d) in io::declared(sh, file) {
            let Some(loc) = map.get(&i).copied() else {
                continue;
            };
            let special = d
                .semantic
                .map(|s| s.name)
                .filter(|n| io::is_special_fs_input(*n));
            if let (true, Some(name), InputLoc::Primary(n)) = (fs, special, loc) {
                match name {
                    SemanticName::Position => pos_slot = Some(n),
                    SemanticName::Face => face_slot = Some(n),
                    _ => pcoord_slot = Some(n),
                }
            }
            inputs.push(ShaderInput {
                file,
                index: i,
                semantic: d.semantic,
                interp: (fs && special.is_none()).then(|| interp(d.interp)),
                centroid: d.centroid,
                location: loc,
                lanes: if file == File::Input {
                    layout.input_lanes.get(&i).copied().unwrap_or((0, 4))
                } else {
                    (0, 4)
                },
            });
        }
    }
    let mut outputs = Vec::new();
    let mut psize_output = None;
    let mut edgeflag_output = None;
    for (i, d) in io::declared(sh, File::Output) {
        let loc = layout
            .outputs
            .get(&i)
            .copied()
            .unwrap_or(OutputLoc::Discard);
        if let (Some(SemanticName::Psize), OutputLoc::Output(n)) = (d.semantic.map(|s| s.name), loc)
        {
            psize_output = Some(n);
        }
        if let (Some(SemanticName::Edgeflag), OutputLoc::Output(n)) =
            (d.semantic.map(|s| s.name), loc)
        {
            edgeflag_output = Some(n);
        }
        outputs.push(ShaderOutput {
            index: i,
            semantic: d.semantic,
            location: loc,
            lanes: layout.output_lanes.get(&i).copied().unwrap_or((0, 4)),
        });
    }
    // Packed varyings share slots: count the slots.
    let slots = |v: Vec<u32>| {
        v.into_iter()
            .collect::<std::collections::BTreeSet<u32>>()
            .len() as u32
    };
    let varying_count = if fs {
        slots(
            inputs
                .iter()
                .filter(|i| i.interp.is_some())
                .filter_map(|i| match i.location {
                    InputLoc::Primary(n) => Some(n),
                    InputLoc::Zero => None,
                })
                .collect(),
        ) + layout.clip_dists.len() as u32
    } else {
        slots(
            outputs
                .iter()
                .filter(|o| {
                    !matches!(
                        o.semantic.map(|s| s.name),
                        Some(SemanticName::Position | SemanticName::Psize | SemanticName::Edgeflag)
                    )
                })
                .filter_map(|o| match o.location {
                    OutputLoc::Output(n) => Some(n),
                    _ => None,
                })
                .collect(),
        )
    };
    Ok(CompiledShader {
        stage: sh.stage,
        instructions: insts.len() as u32,
        tgsi_instructions: sh.instrs.len() as u32,
        code: words,
        inputs,
        outputs,
        constants: info
            .const_ranges
            .iter()
            .map(|&(buffer, first, count, sa_base)| ConstRange {
                buffer,
                first,
                count,
                sa_base,
            })
            .collect(),
        const_regs: info.const_regs,
        samplers: info
            .samplers
            .iter()
            .map(|(&unit, &target)| SamplerUse { unit, target })
            .collect(),
        temps,
        discards: info.discards,
        uses_derivatives: info.derivatives,
        varying_count,
        pos_slot,
        face_slot,
        pcoord_slot,
        psize_output,
        edgeflag_output,
        clip_varyings: if fs {
            layout.clip_dists.clone()
        } else {
            Vec::new()
        },
    })
}
