//! A draw's state as the 3D phase reads it from memory once per job: the draw-state block,
//! the pixel program (and its precompiled forms), constants, textures, interpolation modes
//! and stipple.

use std::sync::Arc;

use sgx_hwdocs::tsp::Interp;

use super::stipple;
use crate::job::{
    check_samplers, load_consts, load_draw_state, DrawState, JobErr, ProgramCache, MAX_VAR,
};
use crate::mmu::Mmu;
use crate::tsp::TexTable;
use crate::usse::{Program, Stage, TexEmit, VaryEmit};
use crate::Unit;

/// Per-draw state of the 3D phase.
pub(super) struct DrawCtx {
    pub ds: DrawState,
    pub fs: Arc<Program>,
    pub consts: Vec<[u32; 4]>,
    pub tex: TexTable,
    pub interp: [Interp; MAX_VAR],
    pub blend_const: [f32; 4],
    /// The pixel program's precompiled form, when it has one.
    pub tex_emit: Option<TexEmit>,
    pub vary_emit: Option<VaryEmit>,
    /// The polygon stipple pattern, when on.
    pub stipple: Option<stipple::Rows>,
}

pub(super) fn load_ctx(mmu: &Mmu, addr: u32, progs: &mut ProgramCache) -> Result<DrawCtx, JobErr> {
    let ds = load_draw_state(mmu, Unit::Isp, addr)?;
    let ps = &ds.prog;
    let fs = progs.get(mmu, ps.fs_code_addr, Stage::Pixel)?;
    let consts = load_consts(mmu, Unit::Isp, ps.fs_const_addr, ps.fs_const_count)?;
    let tex = TexTable::load(mmu, ps, Unit::Tsp)?;
    check_samplers(&fs, Stage::Pixel, 0, tex.len())?;
    let interp = ds.interp();
    let t = &ds.tsp;
    let blend_const = [t.blend_r, t.blend_g, t.blend_b, t.blend_a].map(|v| v as f32 / 255.0);
    let tex_emit = TexEmit::of(&fs);
    let vary_emit = VaryEmit::of(&fs);
    let stipple = stipple::load(mmu, &ds.prim)?;
    Ok(DrawCtx {
        stipple,
        ds,
        tex_emit,
        vary_emit,
        fs,
        consts,
        tex,
        interp,
        blend_const,
    })
}
