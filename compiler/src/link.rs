//! Linking a vertex and a fragment shader: the varying remap.
//!
//! Fragment varyings are matched to vertex outputs by semantic and index. The k-th matched
//! varying (in fragment input order) is pa[k] in the fragment program and o[k+1] in the
//! vertex program (render.json `varying_link`); POSITION stays o0, apart from the varyings.
//! Fragment inputs with no vertex output read zero; vertex outputs nobody reads are dropped.
//! When the varyings outnumber limits::MAX_VARYINGS they are packed by the lanes the fragment
//! shader declares (`IN[3].xy`): several share a slot, each at its own first lane
//! (`io::pack`), and the vertex program moves its writes to those lanes.
//! Both shaders are recompiled with the linked layout, as the layouts change the code.

use std::collections::BTreeMap;

use sgx_hwdocs::tsp;

use crate::error::{CompileError, Result};
use crate::io::{self, InputLoc, IoLayout, OutputLoc};
use crate::shader::{compile_with, CompiledShader};
use crate::tgsi::{self, File, Semantic, SemanticName, ShaderStage};

/// One varying of a linked program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinkedVarying {
    /// Its semantic.
    pub semantic: Semantic,
    /// Vertex output o[n] (n = varying + 1).
    pub vs_output: u32,
    /// Fragment input pa[n].
    pub fs_input: u32,
    /// TSP interpolation.
    pub interp: tsp::Interp,
    /// First lane of the slot it occupies (0 unless varyings were packed).
    pub lane: u8,
    /// Lanes it occupies.
    pub lanes: u8,
}

/// A linked vertex + fragment pair.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkedProgram {
    /// The vertex program.
    pub vs: CompiledShader,
    /// The fragment program.
    pub fs: CompiledShader,
    /// The varyings, in pa order.
    pub varyings: Vec<LinkedVarying>,
    /// Fragment inputs that no vertex output feeds (they read zero).
    pub unmatched_inputs: Vec<Semantic>,
}

/// Parses, links and compiles a vertex and a fragment shader.
pub fn link(vs_text: &str, fs_text: &str) -> Result<LinkedProgram> {
    let vs = tgsi::parse(vs_text)?;
    let fs = tgsi::parse(fs_text)?;
    if vs.stage != ShaderStage::Vertex || fs.stage != ShaderStage::Fragment {
        return Err(CompileError::Link(
            "expected a VERT shader then a FRAG shader".into(),
        ));
    }
    let vs_outs: BTreeMap<Semantic, u32> = io::declared(&vs, File::Output)
        .into_iter()
        .filter_map(|(i, d)| d.semantic.map(|s| (s, i)))
        .filter(|(s, _)| {
            !matches!(
                s.name,
                SemanticName::Position
                    | SemanticName::Psize
                    | SemanticName::Edgeflag
                    | SemanticName::ClipVertex
                    | SemanticName::ClipDist
            )
        })
        .collect();
    // Clip distances (st/mesa's lowering of user clip planes and gl_ClipVertex) become
    // varyings after the matched ones, in consecutive slots; the TA clips primitives against
    // them as against the view volume (`CompiledShader::clip_varyings`).
    let mut clips: Vec<(Semantic, u32, u8)> = io::declared(&vs, File::Output)
        .into_iter()
        .filter_map(|(i, d)| {
            d.semantic
                .filter(|s| s.name == SemanticName::ClipDist)
                .map(|s| (s, i, d.usage_mask))
        })
        .collect();
    clips.sort();
    // `PROPERTY NUM_CLIPDIST_ENABLED n` (ureg writes it for st/mesa's lowering): distances
    // n.. are not clip planes, whatever the register holds.
    let enabled = vs
        .properties
        .iter()
        .find(|(k, _)| k == "NUM_CLIPDIST_ENABLED")
        .and_then(|(_, v)| v.parse::<u32>().ok())
        .unwrap_or(u32::MAX);
    for c in &mut clips {
        let first = c.0.index.saturating_mul(4);
        let lanes = enabled.saturating_sub(first).min(4);
        c.2 &= ((1u32 << lanes) - 1) as u8;
    }
    clips.retain(|c| c.2 != 0);
    let clip_masks: Vec<u8> = clips.iter().map(|c| c.2).collect();
    let fs_layout = io::fs_layout(&fs, |s| vs_outs.contains_key(&s), &clip_masks)?;
    let mut vs_layout = IoLayout::default();
    for (i, _) in io::declared(&vs, File::Input) {
        vs_layout.inputs.insert(i, InputLoc::Primary(i));
    }
    let mut varyings = Vec::new();
    let mut unmatched = Vec::new();
    let mut feeds: BTreeMap<u32, u32> = BTreeMap::new(); // VS OUT index -> o slot
    for (i, d) in io::declared(&fs, File::Input) {
        let Some(sem) = d.semantic else { continue };
        match fs_layout.inputs.get(&i) {
            Some(InputLoc::Primary(k)) if !io::is_special_fs_input(sem.name) => {
                let out = vs_outs[&sem];
                let (lane, lanes) = fs_layout.input_lanes.get(&i).copied().unwrap_or((0, 4));
                if fs_layout.input_lanes.contains_key(&i) {
                    vs_layout.output_lanes.insert(out, (lane, lanes));
                }
                if feeds.insert(out, k + 1).is_some() {
                    return Err(CompileError::Link(format!(
                        "fragment input {sem} is declared twice"
                    )));
                }
                let interp = match d.interp {
                    Some(tgsi::Interp::Constant) => tsp::Interp::FLAT,
                    Some(tgsi::Interp::Linear) => tsp::Interp::LINEAR,
                    _ => tsp::Interp::PERSPECTIVE,
                };
                varyings.push(LinkedVarying {
                    semantic: sem,
                    vs_output: k + 1,
                    fs_input: *k,
                    interp,
                    lane,
                    lanes,
                });
            }
            Some(InputLoc::Zero) => unmatched.push(sem),
            _ => {}
        }
    }
    for (&(sem, out, _), &(pa, _)) in clips.iter().zip(&fs_layout.clip_dists) {
        feeds.insert(out, pa + 1);
        varyings.push(LinkedVarying {
            semantic: sem,
            vs_output: pa + 1,
            fs_input: pa,
            interp: tsp::Interp::PERSPECTIVE,
            lane: 0,
            lanes: 4,
        });
    }
    let nvar = varyings.iter().map(|v| v.fs_input + 1).max().unwrap_or(0);
    let has_psize = io::declared(&vs, File::Output)
        .iter()
        .any(|(_, d)| d.semantic.map(|s| s.name) == Some(SemanticName::Psize));
    for (i, d) in io::declared(&vs, File::Output) {
        let loc = match d.semantic.map(|s| s.name) {
            Some(SemanticName::Position) => OutputLoc::Output(0),
            Some(SemanticName::Psize) => OutputLoc::Output(nvar + 1),
            Some(SemanticName::Edgeflag) => OutputLoc::Output(nvar + 1 + u32::from(has_psize)),
            _ => feeds
                .get(&i)
                .map_or(OutputLoc::Discard, |o| OutputLoc::Output(*o)),
        };
        vs_layout.outputs.insert(i, loc);
    }
    io::vs_checks(&vs, &vs_layout)?;
    let vs_c = compile_with(&vs, &vs_layout)?;
    let fs_c = compile_with(&fs, &fs_layout)?;
    Ok(LinkedProgram {
        vs: vs_c,
        fs: fs_c,
        varyings,
        unmatched_inputs: unmatched,
    })
}
