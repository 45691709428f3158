//! Where a shader's TGSI inputs and outputs live in USSE registers: alone, or linked.
//!
//! The model's contract (hwdocs render.json `varying_link`): varying i of the pixel program is
//! pa[i] and is vertex output o[i+1]; o0 is the clip position. Fragment position, face and
//! point-coordinate inputs come in primary registers after the varyings (TspState slots).

use std::collections::BTreeMap;

use sgx_hwdocs::{limits, usse};

use crate::error::{CompileError, Result};
use crate::tgsi::{File, Interp, SemanticName, Shader, ShaderStage};

/// Where a TGSI input (or system value) is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum InputLoc {
    /// Primary attribute pa[n].
    Primary(u32),
    /// Not delivered: reads as zero (an unmatched fragment input after linking).
    Zero,
}

/// Where a TGSI output is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OutputLoc {
    /// Vertex output o[n].
    Output(u32),
    /// The fragment colour (EMITPIX at the end).
    Color,
    /// The fragment depth, lane z (EMITDEPTH at the end): `gl_FragDepth`.
    Depth,
    /// Not consumed by the next stage: computed into a temporary that dead-code removal drops.
    Discard,
}

/// The input/output assignment a shader is compiled with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IoLayout {
    /// `IN[i]`.
    pub inputs: BTreeMap<u32, InputLoc>,
    /// `SV[i]`.
    pub sysvals: BTreeMap<u32, InputLoc>,
    /// `OUT[i]`.
    pub outputs: BTreeMap<u32, OutputLoc>,
    /// Fragment: clip distances the vertex program writes, as varyings pa[n] with the lanes
    /// that hold one; the TA clips against them (the program does not read them).
    pub clip_dists: Vec<(u32, u8)>,
    /// Packed varyings: `IN[i]` (fragment) whose lanes start at lane `.0` of its register
    /// and span `.1` lanes; absent means lanes 0..4 as written.
    pub input_lanes: BTreeMap<u32, (u8, u8)>,
    /// Packed varyings: `OUT[i]` (vertex) the same way; lanes past the span are dropped.
    pub output_lanes: BTreeMap<u32, (u8, u8)>,
}

/// Which varyings may share a slot: the same interpolation, and colours never (flat
/// shading changes a colour's interpolation at draw time).
fn pack_group(d: &crate::tgsi::Decl) -> u32 {
    match (d.semantic.map(|s| s.name), d.interp) {
        (Some(SemanticName::Color | SemanticName::BColor), _) | (_, Some(Interp::Color)) => {
            100 + d.first
        }
        (_, Some(Interp::Constant)) => 0,
        (_, Some(Interp::Linear)) => 1,
        _ => 2,
    }
}

/// The lanes a usage mask needs, counted from x: `.xy` and `.y` need 2, no mask needs 4.
pub fn lanes_of(usage_mask: u8) -> u8 {
    (8 - (usage_mask & 0xF).leading_zeros() as u8).max(1)
}

/// Packs varyings of `lanes` lanes each into vec4 slots, widest first, first fit: whole
/// vec4s stay alone, two vec2s share a slot, scalars fill the gaps (the packing Mesa's GLSL
/// linker aims at for GENERICs; this covers what reaches the driver unpacked). Varyings with
/// different `group`s (interpolation) never share a slot. Returns each varying's slot and
/// first lane, and the slot count.
pub fn pack(items: &[(u8, u32)]) -> (Vec<(u32, u8)>, u32) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(items[i].0));
    let mut slots: Vec<(u32, u8)> = Vec::new(); // (group, lanes used)
    let mut out = vec![(0, 0); items.len()];
    for i in order {
        let (lanes, group) = items[i];
        let lanes = lanes.clamp(1, 4);
        let at = slots
            .iter()
            .position(|&(g, used)| g == group && used + lanes <= 4);
        let slot = match at {
            Some(s) => s,
            None => {
                slots.push((group, 0));
                slots.len() - 1
            }
        };
        out[i] = (slot as u32, slots[slot].1);
        slots[slot].1 += lanes;
    }
    (out, slots.len() as u32)
}

/// Declared registers of a file, with the declaration's semantic, in index order.
pub fn declared(sh: &Shader, file: File) -> Vec<(u32, &crate::tgsi::Decl)> {
    let mut v = Vec::new();
    for d in sh.decls.iter().filter(|d| d.file == file) {
        // Ranges of IN/OUT/SV are bounded by the register limits checked by callers; cap the
        // walk so a hostile `DCL IN[0..4000000000]` cannot exhaust memory first.
        let last = d.last.min(d.first.saturating_add(4096));
        for i in d.first..=last {
            v.push((i, d));
        }
    }
    v.sort_by_key(|(i, _)| *i);
    v.dedup_by_key(|(i, _)| *i);
    v
}

fn unsupported(line: u32, what: String) -> CompileError {
    CompileError::Unsupported { line, what }
}

/// True for fragment inputs that the TSP delivers itself rather than as varyings.
pub fn is_special_fs_input(name: SemanticName) -> bool {
    matches!(
        name,
        SemanticName::Position | SemanticName::Face | SemanticName::Pcoord
    )
}

/// Checks that `n` registers fit `max`, naming the limit.
pub fn check_limit(limit: &'static str, need: u64, max: u64) -> Result<()> {
    if need > max {
        Err(CompileError::Limit { limit, need, max })
    } else {
        Ok(())
    }
}

/// The layout of a shader compiled alone: vertex outputs and fragment varyings in
/// ascending TGSI index order.
pub fn standalone(sh: &Shader) -> Result<IoLayout> {
    match sh.stage {
        ShaderStage::Vertex => {
            let mut l = IoLayout::default();
            for (i, _) in declared(sh, File::Input) {
                l.inputs.insert(i, InputLoc::Primary(i));
            }
            let outs = declared(sh, File::Output);
            let mut vars = Vec::new();
            for (i, d) in &outs {
                match d.semantic.map(|s| s.name) {
                    Some(SemanticName::Position) => {
                        l.outputs.insert(*i, OutputLoc::Output(0));
                    }
                    Some(SemanticName::Psize | SemanticName::Edgeflag) => {}
                    // The clip vertex feeds st/mesa's user-clip-plane lowering (it writes
                    // CLIPDIST); the model has no use for it, so it is computed and dropped.
                    Some(SemanticName::ClipVertex) => {}
                    _ => vars.push((*i, lanes_of(d.usage_mask), pack_group(d))),
                }
            }
            let mut next = 1 + vars.len() as u32;
            if vars.len() as u64 > limits::MAX_VARYINGS {
                // Alone, the declared lanes are all there is to pack by.
                let items: Vec<(u8, u32)> = vars.iter().map(|v| (v.1, v.2)).collect();
                let (at, n) = pack(&items);
                for (&(i, lanes, _), (slot, lane)) in vars.iter().zip(at) {
                    l.outputs.insert(i, OutputLoc::Output(slot + 1));
                    l.output_lanes.insert(i, (lane, lanes));
                }
                next = n + 1;
            } else {
                for (k, &(i, _, _)) in vars.iter().enumerate() {
                    l.outputs.insert(i, OutputLoc::Output(k as u32 + 1));
                }
            }
            // The point size, then the edge flag, follow the varyings.
            for name in [SemanticName::Psize, SemanticName::Edgeflag] {
                for (i, d) in &outs {
                    if d.semantic.map(|s| s.name) == Some(name) {
                        l.outputs.insert(*i, OutputLoc::Output(next));
                        next += 1;
                    }
                }
            }
            vs_checks(sh, &l)?;
            Ok(l)
        }
        ShaderStage::Fragment => fs_layout(sh, |_| true, &[]),
    }
}

/// Vertex-shader limit checks shared by the standalone and linked layouts.
pub fn vs_checks(sh: &Shader, l: &IoLayout) -> Result<()> {
    let attrs = l
        .inputs
        .values()
        .filter_map(|v| match v {
            InputLoc::Primary(n) => Some(u64::from(*n) + 1),
            InputLoc::Zero => None,
        })
        .max()
        .unwrap_or(0);
    check_limit(
        "limits::MAX_VERTEX_ATTRIBS",
        attrs,
        limits::MAX_VERTEX_ATTRIBS,
    )?;
    let outs = l
        .outputs
        .values()
        .filter_map(|v| match v {
            OutputLoc::Output(n) => Some(u64::from(*n) + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    check_limit("usse::OUTPUT_REGS", outs, usse::OUTPUT_REGS)?;
    // Packed varyings share slots: count the slots.
    let varyings = declared(sh, File::Output)
        .iter()
        .filter(|(_, d)| {
            !matches!(
                d.semantic.map(|s| s.name),
                Some(SemanticName::Position | SemanticName::Psize | SemanticName::Edgeflag)
            )
        })
        .filter_map(|(i, _)| match l.outputs.get(i) {
            Some(OutputLoc::Output(n)) => Some(*n),
            _ => None,
        })
        .collect::<std::collections::BTreeSet<u32>>()
        .len() as u64;
    check_limit("limits::MAX_VARYINGS", varyings, limits::MAX_VARYINGS)?;
    if let Some((_, d)) = declared(sh, File::SystemValue).first() {
        return Err(unsupported(
            d.line,
            "system values in a vertex shader".into(),
        ));
    }
    Ok(())
}

/// The fragment layout; `delivered(semantic)` says whether the vertex shader provides a
/// varying (unmatched ones read zero); `clip_masks` are the lanes of the vertex shader's
/// clip-distance outputs, which follow the matched varyings.
pub fn fs_layout(
    sh: &Shader,
    delivered: impl Fn(crate::tgsi::Semantic) -> bool,
    clip_masks: &[u8],
) -> Result<IoLayout> {
    let mut l = IoLayout::default();
    let mut specials = Vec::new();
    let mut matched = Vec::new();
    for (i, d) in declared(sh, File::Input) {
        let Some(sem) = d.semantic else {
            return Err(unsupported(
                d.line,
                format!("fragment input IN[{i}] without a semantic"),
            ));
        };
        if is_special_fs_input(sem.name) {
            specials.push((File::Input, i));
        } else if delivered(sem) {
            matched.push((i, lanes_of(d.usage_mask), pack_group(d)));
        } else {
            l.inputs.insert(i, InputLoc::Zero);
        }
    }
    let mut next = matched.len() as u32;
    if u64::from(next) + clip_masks.len() as u64 > limits::MAX_VARYINGS {
        // More varyings than slots: pack them by the lanes they use.
        let items: Vec<(u8, u32)> = matched.iter().map(|m| (m.1, m.2)).collect();
        let (at, n) = pack(&items);
        for (&(i, lanes, _), (slot, lane)) in matched.iter().zip(at) {
            l.inputs.insert(i, InputLoc::Primary(slot));
            l.input_lanes.insert(i, (lane, lanes));
        }
        next = n;
    } else {
        for (k, &(i, _, _)) in matched.iter().enumerate() {
            l.inputs.insert(i, InputLoc::Primary(k as u32));
        }
    }
    for &m in clip_masks {
        l.clip_dists.push((next, m));
        next += 1;
    }
    check_limit(
        "limits::MAX_VARYINGS",
        u64::from(next),
        limits::MAX_VARYINGS,
    )?;
    for (i, d) in declared(sh, File::SystemValue) {
        match d.semantic.map(|s| s.name) {
            Some(n) if is_special_fs_input(n) => specials.push((File::SystemValue, i)),
            _ => return Err(unsupported(d.line, format!("system value SV[{i}]"))),
        }
    }
    for (f, i) in specials {
        let map = if f == File::Input {
            &mut l.inputs
        } else {
            &mut l.sysvals
        };
        map.insert(i, InputLoc::Primary(next));
        next += 1;
    }
    check_limit("usse::PRIMARY_REGS", u64::from(next), usse::PRIMARY_REGS)?;
    for (i, d) in declared(sh, File::Output) {
        match d.semantic {
            Some(s) if s.name == SemanticName::Color && s.index == 0 => {
                l.outputs.insert(i, OutputLoc::Color);
            }
            Some(s) if s.name == SemanticName::Position && s.index == 0 => {
                l.outputs.insert(i, OutputLoc::Depth);
            }
            Some(s) => return Err(unsupported(d.line, format!("fragment output {s}"))),
            None => {
                return Err(unsupported(
                    d.line,
                    format!("fragment output OUT[{i}] without a semantic"),
                ))
            }
        }
    }
    Ok(l)
}
