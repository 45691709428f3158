//! The DrawState parts as last packed (the cache the emit pass compares against), and the
//! packers of the parts that read only their own inputs: texture words, interpolation
//! modes, colour bytes.

use std::sync::Arc;

use sgx_hwdocs::{limits, render, texture, tsp};
use sgx_winsys::{Bo, Device};

use crate::batch::{Batch, RECENT_BLOCK, RECENT_STIPPLE};
use crate::error::{PipeError, Result};
use crate::program::Program;
use crate::resource::{Resource, ResourceTarget};
use crate::state::*;
use sgx_compiler::tgsi::TexTarget;

/// A buffer a draw reads: its resource (None for user data and program code), and the buffer
/// it had when its table was packed.
#[derive(Clone)]
pub(crate) struct Use {
    pub bo: Bo,
    pub res: Option<Arc<Resource>>,
}

impl Use {
    /// Whether the resource's storage was replaced since (the blitter adopts chains): the
    /// packed addresses point into the old buffer, which `bo` keeps alive and unreused.
    pub fn moved(&self) -> bool {
        self.res
            .as_ref()
            .is_some_and(|r| r.storage().bo.gpu_addr() != self.bo.gpu_addr())
    }
}

/// The DrawState parts as last packed.
#[derive(Default)]
pub(crate) struct EmitCache {
    /// The program the parts were packed for.
    pub program: Option<Arc<Program>>,
    /// The query slot address the ISP and raster words were packed with.
    pub query: Option<u32>,
    /// The block (`DRAW_STATE_DWORDS`); table addresses are patched in at upload.
    pub block: Vec<u32>,
    pub attrs: Vec<u32>,
    pub texs: Vec<u32>,
    pub vs_consts: Vec<u32>,
    pub fs_consts: Vec<u32>,
    /// The polygon stipple pattern (empty when off).
    pub stipple: Vec<u32>,
    /// Shared with the emit memo's entries (a hit restores them with one count change).
    pub attr_uses: Arc<[Use]>,
    pub tex_uses: Vec<Use>,
    /// The buffers (resource ids) whose zero-stride element the attribute table holds a copy
    /// of (`Context::const_attr`): a write to one of them marks the table dirty.
    pub const_srcs: Vec<u64>,
    /// A part's words changed since the batch's current block was written.
    pub changed: bool,
    /// The tables (bit i: `TABLE_*` i) whose words changed since they were last written
    /// into a batch: the others are pointed at where the batch has them.
    pub tables_changed: u8,
    /// `resource::storage_moves()` when the uses were last checked for a move.
    pub moves_seen: u64,
}

/// The tables of a DrawState, in `Batch::table_va` and `EmitCache::tables_changed` order.
pub(crate) const TABLE_ATTRS: usize = 0;
pub(crate) const TABLE_TEXS: usize = 1;
pub(crate) const TABLE_VS_CONSTS: usize = 2;
pub(crate) const TABLE_FS_CONSTS: usize = 3;

impl EmitCache {
    /// Replaces table `t`'s words, noting whether they differ.
    pub fn set_table(&mut self, t: usize, words: Vec<u32>) {
        let part = match t {
            TABLE_ATTRS => &mut self.attrs,
            TABLE_TEXS => &mut self.texs,
            TABLE_VS_CONSTS => &mut self.vs_consts,
            _ => &mut self.fs_consts,
        };
        if *part != words {
            *part = words;
            self.changed = true;
            self.tables_changed |= 1 << t;
        }
    }

    /// Replaces the polygon stipple rows (empty when off), noting whether they differ. The
    /// rows are written with every block that has them (32 dwords).
    pub fn set_stipple(&mut self, rows: Vec<u32>) {
        if self.stipple != rows {
            self.stipple = rows;
            self.changed = true;
        }
    }

    /// Replaces block words from `at`, noting whether they differ.
    pub fn set_block(&mut self, at: u64, words: &[u32]) {
        let at = at as usize;
        let range = at..at + words.len();
        if self.block[range.clone()] != *words {
            self.block[range].copy_from_slice(words);
            self.changed = true;
        }
    }

    /// Writes the tables and constants that changed since the batch last got them (the
    /// others stay where the batch has them), patches their addresses into the block, writes
    /// the block. With `reuse`, a table, stipple or block equal to one of the last few of its
    /// kind in this batch is pointed at instead of written again; without, everything that
    /// changed is written (the reference the reuse is tested against). Returns the block's
    /// address, the dwords written and whether the block itself was written.
    pub fn upload(&mut self, dev: &dyn Device, b: &mut Batch, reuse: bool) -> Result<Upload> {
        let align = limits::STATE_ALIGN_B as usize;
        let calign = limits::CONST_ALIGN_B as usize;
        let mut block = [0u32; render::DRAW_STATE_DWORDS as usize];
        block.copy_from_slice(&self.block);
        let mut program =
            render::ProgramState::unpack(&block[render::DRAW_STATE_PROGRAM_DW as usize..])
                .map_err(|e| PipeError::InvalidArgument(format!("internal: {e}")))?;
        let mut written = 0;
        // Writes `words` of `kind`, or finds an earlier copy: (address, dwords written).
        let put = |b: &mut Batch, kind: usize, words: &[u32], al: usize| -> Result<(u32, u64)> {
            if reuse {
                if let Some(a) = b.recent[kind].find(words) {
                    return Ok((a, 0));
                }
            }
            let a = b.arena.push_dwords(dev, words, al)?;
            b.recent[kind].note(words, a);
            Ok((a, words.len() as u64))
        };
        let tables = [
            (&self.attrs, align),
            (&self.texs, align),
            (&self.vs_consts, calign),
            (&self.fs_consts, calign),
        ];
        let mut va = [0u32; 4];
        for (t, (words, al)) in tables.into_iter().enumerate() {
            if words.is_empty() {
                continue;
            }
            va[t] = match b.table_va[t] {
                Some(a) if self.tables_changed & (1 << t) == 0 => a,
                _ => {
                    let (a, n) = put(b, t, words, al)?;
                    written += n;
                    b.table_va[t] = Some(a);
                    a
                }
            };
        }
        self.tables_changed = 0;
        program.attr_table_addr = va[TABLE_ATTRS];
        program.tex_table_addr = va[TABLE_TEXS];
        program.vs_const_addr = va[TABLE_VS_CONSTS];
        program.fs_const_addr = va[TABLE_FS_CONSTS];
        pack_into(&mut block, render::DRAW_STATE_PROGRAM_DW, &program.pack()?);
        if !self.stipple.is_empty() {
            let at = render::DRAW_STATE_PRIM_DW as usize;
            let mut prim = render::PrimState::unpack(&block[at..])
                .map_err(|e| PipeError::InvalidArgument(format!("internal: {e}")))?;
            let (a, n) = put(b, RECENT_STIPPLE, &self.stipple, align)?;
            prim.stipple_addr = a;
            written += n;
            pack_into(&mut block, render::DRAW_STATE_PRIM_DW, &prim.pack()?);
        }
        let (block_va, n) = put(b, RECENT_BLOCK, &block, align)?;
        Ok(Upload {
            block_va,
            words: written + n,
            block_written: n != 0,
        })
    }
}

/// What `EmitCache::upload` did.
pub(crate) struct Upload {
    /// The block's address.
    pub block_va: u32,
    /// Dwords written (tables, stipple, block).
    pub words: u64,
    /// The block was written (not found among the batch's recent ones).
    pub block_written: bool,
}

fn pack_into(words: &mut [u32], at: u64, w: &[u32]) {
    words[at as usize..at as usize + w.len()].copy_from_slice(w);
}

pub(crate) fn unorm8(f: f32) -> u32 {
    (f.clamp(0.0, 1.0) * 255.0).round() as u32
}

pub(crate) fn set_interp(t: &mut tsp::TspState, i: usize, m: tsp::Interp) {
    match i {
        0 => t.v0_interp = m,
        1 => t.v1_interp = m,
        2 => t.v2_interp = m,
        3 => t.v3_interp = m,
        4 => t.v4_interp = m,
        5 => t.v5_interp = m,
        6 => t.v6_interp = m,
        7 => t.v7_interp = m,
        8 => t.v8_interp = m,
        _ => t.v9_interp = m,
    }
}

pub(crate) fn tex_state(view: &SamplerView, s: &SamplerState) -> Result<texture::TexState> {
    let st = view.resource.storage();
    let layout = st
        .layout
        .as_ref()
        .ok_or_else(|| PipeError::InvalidArgument("sampler view of a buffer".into()))?;
    let levels = layout.levels.len() as u32;
    let depth_format = matches!(
        view.format.info().kind,
        sgx_hwdocs::FormatKind::Depth | sgx_hwdocs::FormatKind::DepthStencil
    );
    let volume = view.resource.target() == ResourceTarget::Texture3D;
    if s.unnormalized_coords && (volume || view.resource.is_cube_target()) {
        return Err(PipeError::InvalidArgument(
            "unnormalised coordinates sample 1D and 2D textures only".into(),
        ));
    }
    let border = s.border_color.map(unorm8);
    Ok(texture::TexState {
        base_addr: st.bo.gpu_addr(),
        format: view.format,
        layout: layout.tiling.mem_layout(),
        cube: view.resource.is_cube_target(),
        volume,
        levels,
        base_level: view.first_level,
        max_level: view.last_level.min(levels - 1),
        width_m1: layout.width_px - 1,
        height_m1: layout.height_px - 1,
        depth_m1: view.resource.depth() - 1,
        min_filter: s.min_img_filter,
        mag_filter: s.mag_img_filter,
        mip_filter: s.min_mip_filter,
        wrap_s: s.wrap_s,
        wrap_t: s.wrap_t,
        wrap_r: if volume { s.wrap_r } else { AddrMode::REPEAT },
        lod_bias: lod_bias_steps(s.lod_bias),
        min_lod: lod_clamp_steps(s.min_lod),
        // A MAX_LOD below MIN_LOD (GL leaves it undefined; st/mesa swaps them before this
        // call) collapses the clamp to MIN_LOD.
        max_lod: lod_clamp_steps(s.max_lod.max(s.min_lod)),
        swz_r: view.swizzle[0],
        swz_g: view.swizzle[1],
        swz_b: view.swizzle[2],
        swz_a: view.swizzle[3],
        border_r: border[0],
        border_g: border[1],
        border_b: border[2],
        border_a: border[3],
        // Compare applies to depth textures only; GL ignores it for colour textures.
        compare: s.compare_mode && depth_format,
        compare_func: s.compare_func,
        unnormalized: s.unnormalized_coords,
    })
}

/// Whether a texture of `target` may be sampled through a shader's `use_target`.
pub(crate) fn target_fits(use_target: TexTarget, target: ResourceTarget) -> bool {
    use ResourceTarget as R;
    match use_target {
        TexTarget::D1 | TexTarget::Shadow1D | TexTarget::D2 | TexTarget::Shadow2D => {
            matches!(target, R::Texture1D | R::Texture2D)
        }
        // Gallium's PIPE_TEXTURE_RECT is stored as a 2D texture.
        TexTarget::Rect | TexTarget::ShadowRect => target == R::Texture2D,
        TexTarget::D3 => target == R::Texture3D,
        TexTarget::Cube => target == R::TextureCube,
        _ => false,
    }
}

/// A sampler's LOD clamp in TexState.min_lod / max_lod's unsigned steps. A clamp at or below 0
/// is 0: a LOD at or below 0 magnifies, clamped to 0 or not; the top step is above every chain.
fn lod_clamp_steps(lod: f32) -> u32 {
    let top = texture::TexState::MAX_LOD_MASK.count_ones();
    (lod * texture::LOD_BIAS_STEPS as f32)
        .round()
        .clamp(0.0, ((1u32 << top) - 1) as f32) as u32
}

/// A sampler's LOD bias in TexState.lod_bias's signed steps (hwdocs texture::LOD_BIAS_STEPS
/// per level), clamped to what the field holds.
fn lod_bias_steps(bias: f32) -> i32 {
    let width = texture::TexState::LOD_BIAS_MASK.count_ones();
    let (lo, hi) = (-(1i32 << (width - 1)), (1i32 << (width - 1)) - 1);
    (bias * texture::LOD_BIAS_STEPS as f32)
        .round()
        .clamp(lo as f32, hi as f32) as i32
}
