//! draw_vbo: validation, state emission (a DrawState block only when its words change), vertex
//! and index setup, the PRIM object, tile and parameter-memory accounting.

use std::sync::Arc;

use sgx_hwdocs::{isp, limits, render, ta_stream, texture, tsp};
use sgx_winsys::{Access, Bo};

use crate::batch::prim_count;
use crate::caps::ShaderStage;
use crate::context::{stage_index, Context};
use crate::error::{invalid, PipeError, Result};
use crate::program::Program;
use crate::query::QUERY_SLOTS;
use crate::resource::ResourceTarget;
use crate::state::*;
use sgx_compiler::tgsi::TexTarget;

/// A sampler's LOD bias in TexState.lod_bias's signed steps (hwdocs texture::LOD_BIAS_STEPS
/// per level), clamped to what the field holds.
fn lod_bias_steps(bias: f32) -> i32 {
    let width = texture::TexState::LOD_BIAS_MASK.count_ones();
    let (lo, hi) = (-(1i32 << (width - 1)), (1i32 << (width - 1)) - 1);
    (bias * texture::LOD_BIAS_STEPS as f32)
        .round()
        .clamp(lo as f32, hi as f32) as i32
}

pub use sgx_hwdocs::ta_stream::Topology as PrimMode;

/// `pipe_draw_info` plus the start/count of `pipe_draw_start_count_bias`.
#[derive(Debug, Clone)]
pub struct DrawInfo {
    /// Topology.
    pub mode: PrimMode,
    /// 0 (not indexed), 1, 2 or 4 bytes per index.
    pub index_size: u32,
    /// The index buffer when indexed.
    pub index: Option<BufferSource>,
    /// First vertex (not indexed) or first index.
    pub start: u32,
    /// Vertices or indices.
    pub count: u32,
    /// Added to every index.
    pub index_bias: i32,
    /// Smallest index used (a hint; user vertex data is uploaded from here).
    pub min_index: u32,
    /// Largest index used.
    pub max_index: u32,
}

impl DrawInfo {
    /// A non-indexed draw.
    pub fn arrays(mode: PrimMode, start: u32, count: u32) -> DrawInfo {
        DrawInfo {
            mode,
            index_size: 0,
            index: None,
            start,
            count,
            index_bias: 0,
            min_index: start,
            max_index: start + count.saturating_sub(1),
        }
    }
}

fn pack_into(words: &mut [u32], at: u64, w: &[u32]) {
    words[at as usize..at as usize + w.len()].copy_from_slice(w);
}

fn unorm8(f: f32) -> u32 {
    (f.clamp(0.0, 1.0) * 255.0).round() as u32
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
    })
}

/// Whether a texture of `target` may be sampled through a shader's `use_target`.
fn target_fits(use_target: TexTarget, target: ResourceTarget) -> bool {
    use ResourceTarget as R;
    match use_target {
        TexTarget::D1 | TexTarget::Shadow1D | TexTarget::D2 | TexTarget::Shadow2D => {
            matches!(target, R::Texture1D | R::Texture2D)
        }
        TexTarget::D3 => target == R::Texture3D,
        TexTarget::Cube => target == R::TextureCube,
        _ => false,
    }
}

impl Context {
    /// The linked program of the bound shaders, linked and uploaded once per pair and set of
    /// point-sprite inputs (`sprite_mask`, non-zero only for point draws).
    pub(crate) fn program(&mut self, sprite_mask: u16) -> Result<Arc<Program>> {
        let vs = self
            .vs
            .clone()
            .ok_or(PipeError::NotBound("vertex shader"))?;
        let fs = self
            .fs
            .clone()
            .ok_or(PipeError::NotBound("fragment shader"))?;
        if let Some(p) = self.programs.get(&(vs.id, fs.id, sprite_mask)) {
            return Ok(p.clone());
        }
        let fs_text: Arc<str> = if sprite_mask == 0 {
            fs.tgsi.clone()
        } else {
            crate::sprite::replace_sprite_inputs(&fs.tgsi, sprite_mask)?.into()
        };
        let linked = self.screen.shader_cache().get_or_link(&vs.tgsi, &fs_text)?;
        let p = Arc::new(Program::upload(&*self.dev(), linked, self.timeout)?);
        self.programs.insert((vs.id, fs.id, sprite_mask), p.clone());
        Ok(p)
    }

    /// Whether the render condition lets draws through.
    pub(crate) fn render_condition_passes(&mut self) -> Result<bool> {
        let Some(rc) = self.render_cond.clone() else {
            return Ok(true);
        };
        match self.get_query_result(&rc.query, rc.wait)? {
            Some(v) => Ok((v != 0) != rc.condition),
            None => Ok(true),
        }
    }

    /// The pixel rectangle a draw may touch: viewport, framebuffer and scissor.
    fn draw_rect(&self) -> (u32, u32, u32, u32) {
        let v = &self.viewport;
        let clampf = |x: f32, hi: u32| x.clamp(0.0, hi as f32);
        let (w, h) = (self.fb.width, self.fb.height);
        let x0 = clampf(v.translate[0] - v.scale[0].abs(), w).floor() as u32;
        let x1 = clampf(v.translate[0] + v.scale[0].abs(), w).ceil() as u32;
        let y0 = clampf(v.translate[1] - v.scale[1].abs(), h).floor() as u32;
        let y1 = clampf(v.translate[1] + v.scale[1].abs(), h).ceil() as u32;
        let (mut r, s) = ((x0, y0, x1, y1), self.scissor);
        if self.rast.as_ref().is_some_and(|r| r.scissor) {
            r = (
                r.0.max(s.minx),
                r.1.max(s.miny),
                r.2.min(s.maxx),
                r.3.min(s.maxy),
            );
        }
        r
    }

    /// `draw_vbo`.
    pub fn draw_vbo(&mut self, info: &DrawInfo) -> Result<()> {
        if ![0, 1, 2, 4].contains(&info.index_size) {
            return invalid(format!("index size {}", info.index_size));
        }
        if (info.index_size == 0) != info.index.is_none() {
            return invalid("an index buffer goes with a non-zero index size, and only then");
        }
        if u64::from(info.count) > sgx_hwdocs::limits::MAX_PRIM_VERTICES {
            return invalid(format!(
                "a draw of {} vertices: limits::MAX_PRIM_VERTICES is {}",
                info.count,
                sgx_hwdocs::limits::MAX_PRIM_VERTICES
            ));
        }
        if self.fb.cbuf.is_none() && self.fb.zsbuf.is_none() {
            return Err(PipeError::NotBound("framebuffer"));
        }
        let velems = self
            .velems
            .clone()
            .ok_or(PipeError::NotBound("vertex elements"))?;
        let sprite_mask = match (&self.rast, info.mode) {
            (Some(r), PrimMode::POINTS) => r.sprite_coord_enable,
            _ => 0,
        };
        let program = self.program(sprite_mask)?;
        if velems.len() < program.linked.vs.inputs.len() {
            return invalid(format!(
                "the vertex shader reads {} attributes, {} vertex elements bound",
                program.linked.vs.inputs.len(),
                velems.len()
            ));
        }
        let prims = prim_count(info.mode, info.count);
        if prims == 0 || self.sample_mask & 1 == 0 {
            return Ok(());
        }
        if !self.render_condition_passes()? {
            self.stats.draws_skipped += 1;
            return Ok(());
        }
        if prims > limits::MAX_PRIMS_PER_RENDER {
            return Err(PipeError::Unsupported(format!(
                "{prims} primitives in one draw"
            )));
        }

        // Parameter memory: split the batch before the TA would run out.
        let (x0, y0, x1, y1) = self.draw_rect();
        let tiles = u64::from(x1.saturating_sub(x0).div_ceil(16) + 1)
            * u64::from(y1.saturating_sub(y0).div_ceil(16) + 1);
        // Packed varyings share slots: the slots are what the TA stores.
        let varyings = u64::from(program.linked.fs.varying_count);
        let per_prim =
            limits::PB_PRIM_RECORD_B + 3 * (limits::PB_VERTEX_B + varyings * limits::PB_VARYING_B);
        let need = prims * (per_prim + tiles * limits::PB_TILE_REF_B);
        if need > self.pb_budget_b.max(crate::batch::DEFAULT_PB_BUDGET_B) * 4 {
            return Err(PipeError::Unsupported(format!(
                "a draw needing {need} bytes of parameter memory; split it"
            )));
        }
        if self
            .batch
            .as_ref()
            .is_some_and(|b| b.draws > 0 && b.pb_need_b + need > self.pb_budget_b)
        {
            self.flush_batch()?;
            self.stats.pb_splits += 1;
        }

        let dev = self.dev();
        let mut index_use = None;
        // The index buffer, checked before anything is recorded.
        let (index_type, index_addr, base_vertex) = match (&info.index, info.index_size) {
            (None, _) => (ta_stream::IndexType::NONE, 0, i64::from(info.start)),
            (Some(src), size) => {
                let ty = match size {
                    1 => ta_stream::IndexType::U8,
                    2 => ta_stream::IndexType::U16,
                    _ => ta_stream::IndexType::U32,
                };
                let off = u64::from(info.start) * u64::from(size);
                let end = off + u64::from(info.count) * u64::from(size);
                let addr = match src {
                    BufferSource::Resource(r) => {
                        if end > u64::from(r.width()) {
                            return invalid(format!(
                                "indices up to byte {end} of a {}-byte buffer",
                                r.width()
                            ));
                        }
                        let bo = r.bo();
                        let va = bo.gpu_addr() + off as u32;
                        index_use = Some((bo, Some(r.id())));
                        va
                    }
                    BufferSource::User(d) => {
                        if end > d.len() as u64 {
                            return invalid(format!(
                                "indices up to byte {end} of {} user bytes",
                                d.len()
                            ));
                        }
                        let b = self.batch();
                        b.arena
                            .push_bytes(&*dev, &d[off as usize..end as usize], 4)?
                    }
                };
                (ty, addr, i64::from(info.index_bias))
            }
        };
        let base_vertex = i32::try_from(base_vertex)
            .map_err(|_| PipeError::InvalidArgument("first vertex out of range".into()))?;
        let key_and_state = self.build_state(&program, &velems)?;
        let b = self.batch();
        match &b.last_state {
            Some((k, _)) if *k == key_and_state.key => {}
            _ => {
                let va = key_and_state.upload(&*dev, b)?;
                b.last_state = Some((key_and_state.key.clone(), va));
                b.stream.extend(
                    ta_stream::CtrlState {
                        state_addr: va,
                        ..Default::default()
                    }
                    .pack()?,
                );
                self.stats.state_blocks_emitted += 1;
                self.stats.state_words_emitted += key_and_state.words as u64;
            }
        }
        let b = self.batch.as_mut().expect("batch exists");
        for (bo, id) in key_and_state.uses.iter().cloned().chain(index_use) {
            if let Some(id) = id {
                b.reads.insert(id);
            }
            b.bos.push((bo, Access::Read));
        }

        b.stream.extend(
            ta_stream::CtrlPrim {
                topology: info.mode,
                index_type,
                count: info.count,
                index_addr,
                base_vertex,
                ..Default::default()
            }
            .pack()?,
        );
        b.draws += 1;
        b.pb_need_b += need;
        b.touch(x0, y0, x1, y1);
        self.stats.draws += 1;
        Ok(())
    }

    /// The query slot of the active occlusion query in this batch, if counting.
    fn query_slot(&mut self) -> Result<Option<u32>> {
        if !self.queries_enabled {
            return Ok(None);
        }
        let Some(q) = self
            .active_queries
            .iter()
            .find(|q| q.kind().is_occlusion())
            .cloned()
        else {
            return Ok(None);
        };
        let b = self.batch.as_mut().expect("batch exists");
        if let Some((_, a)) = b.query_slots.iter().find(|(x, _)| Arc::ptr_eq(x, &q)) {
            return Ok(Some(*a));
        }
        let mut st = q.st();
        let bo = st
            .bo
            .clone()
            .ok_or_else(|| PipeError::InvalidArgument("query has no buffer".into()))?;
        if st.slots_used >= QUERY_SLOTS {
            return Err(PipeError::Unsupported(
                "an occlusion query spanning more than 1024 renders".into(),
            ));
        }
        let addr = bo.gpu_addr() + 4 * st.slots_used;
        st.slots_used += 1;
        drop(st);
        b.query_slots.push((q, addr));
        Ok(Some(addr))
    }

    /// Builds the DrawState of the current state, with its tables, as a comparable key.
    fn build_state(&mut self, p: &Program, velems: &[VertexElement]) -> Result<PendingState> {
        let dev = self.dev();
        // The batch must exist for query slots and user uploads.
        self.batch();
        let query = self.query_slot()?;
        let lvs = &p.linked.vs;
        let lfs = &p.linked.fs;
        // Buffers the draw reads: taken into the batch only once the whole draw is accepted,
        // so a refused draw leaves no references (and no dependencies) behind.
        let mut uses: Vec<(Bo, Option<u64>)> = vec![(p.code.clone(), None)];

        // Vertex attributes.
        let mut attrs = Vec::with_capacity(velems.len() * 2);
        for e in velems {
            let vb = self.vbufs[e.vertex_buffer_index as usize]
                .clone()
                .ok_or(PipeError::NotBound("vertex buffer"))?;
            let (ty, comps, _) = e.src_format.hw();
            let b = self.batch.as_mut().expect("batch exists");
            let base = match &vb.buffer {
                BufferSource::Resource(r) => {
                    let bo = r.bo();
                    let va = bo.gpu_addr();
                    uses.push((bo, Some(r.id())));
                    va
                }
                BufferSource::User(d) => {
                    match b.user_uploads.iter().find(|(x, _)| Arc::ptr_eq(x, d)) {
                        Some((_, va)) => *va,
                        None => {
                            let va = b.arena.push_bytes(&*dev, d, 16)?;
                            b.user_uploads.push((d.clone(), va));
                            va
                        }
                    }
                }
            };
            attrs.extend(
                render::VertexAttr {
                    addr: base
                        .wrapping_add(vb.buffer_offset)
                        .wrapping_add(e.src_offset),
                    stride_b: vb.stride,
                    ty,
                    comps_m1: comps - 1,
                }
                .pack()?,
            );
        }

        // Textures.
        let units = lfs.samplers.iter().map(|s| s.unit + 1).max().unwrap_or(0);
        let mut texs = Vec::new();
        for u in 0..units as usize {
            let view = self.views[u]
                .clone()
                .ok_or(PipeError::NotBound("sampler view"))?;
            for used in lfs.samplers.iter().filter(|s| s.unit as usize == u) {
                if !target_fits(used.target, view.resource.target()) {
                    return invalid(format!(
                        "unit {u}: the shader samples {:?}, the view is of a {:?}",
                        used.target,
                        view.resource.target()
                    ));
                }
            }
            let samp = self.samplers[u]
                .clone()
                .ok_or(PipeError::NotBound("sampler state"))?;
            texs.extend(tex_state(&view, &samp)?.pack()?);
            uses.push((view.resource.bo(), Some(view.resource.id())));
        }

        // Constants.
        let consts = |stage: ShaderStage, regs: u32| -> Vec<u32> {
            let mut v = vec![0u32; regs as usize * 4];
            if let Some(cb) = &self.constants[stage_index(stage)] {
                let n = v.len().min(cb.data.len());
                v[..n].copy_from_slice(&cb.data[..n]);
            }
            v
        };
        let vs_consts = consts(ShaderStage::Vertex, lvs.const_regs);
        let fs_consts = consts(ShaderStage::Fragment, lfs.const_regs);

        let blend = self.blend.as_deref().copied().unwrap_or_default();
        let dsa = self.dsa.as_deref().copied().unwrap_or_default();
        let rast = self.rast.as_deref().copied().unwrap_or_default();
        let mut w = vec![0u32; render::DRAW_STATE_DWORDS as usize];
        let program = render::ProgramState {
            vs_code_addr: p.vs_addr,
            vs_const_addr: 0,
            vs_const_count: lvs.const_regs,
            vs_temps: lvs.temps,
            attr_count: velems.len() as u32,
            vs_outputs: 1 + lfs.varying_count + u32::from(lvs.psize_output.is_some()),
            fs_code_addr: p.fs_addr,
            fs_const_addr: 0,
            fs_const_count: lfs.const_regs,
            fs_temps: lfs.temps,
            tex_count: units,
            attr_table_addr: 0,
            tex_table_addr: 0,
        };
        let two_sided = dsa.stencil[1].enabled;
        let back = if two_sided {
            dsa.stencil[1]
        } else {
            dsa.stencil[0]
        };
        let ispw = isp::IspState {
            depth_func: dsa.depth_func,
            depth_test: dsa.depth_enabled,
            depth_write: dsa.depth_enabled && dsa.depth_writemask,
            cull: rast.cull_face,
            front_ccw: rast.front_ccw,
            scissor: rast.scissor,
            stencil_test: dsa.stencil[0].enabled,
            two_sided,
            front_write_mask: u32::from(dsa.stencil[0].writemask),
            back_write_mask: u32::from(back.writemask),
            front_func: dsa.stencil[0].func,
            front_fail: dsa.stencil[0].fail_op,
            front_zfail: dsa.stencil[0].zfail_op,
            front_zpass: dsa.stencil[0].zpass_op,
            front_ref: u32::from(self.stencil_ref.ref_value[0]),
            front_read_mask: u32::from(dsa.stencil[0].valuemask),
            back_func: back.func,
            back_fail: back.fail_op,
            back_zfail: back.zfail_op,
            back_zpass: back.zpass_op,
            back_ref: u32::from(self.stencil_ref.ref_value[if two_sided { 1 } else { 0 }]),
            back_read_mask: u32::from(back.valuemask),
            query_enable: query.is_some(),
        };
        let sc = self.scissor;
        let scissor = isp::Scissor {
            xmin: sc.minx.min(4095),
            ymin: sc.miny.min(4095),
            xmax: sc.maxx.saturating_sub(1).min(4095),
            ymax: sc.maxy.saturating_sub(1).min(4095),
        };
        let interp = p.linked.fs.varying_interp();
        let mut tspw = tsp::TspState {
            blend: blend.blend_enable,
            rgb_func: blend.rgb_func,
            rgb_src: blend.rgb_src_factor,
            rgb_dst: blend.rgb_dst_factor,
            a_func: blend.alpha_func,
            a_src: blend.alpha_src_factor,
            a_dst: blend.alpha_dst_factor,
            colour_mask: u32::from(blend.colormask & 0xF),
            blend_r: unorm8(self.blend_color.color[0]),
            blend_g: unorm8(self.blend_color.color[1]),
            blend_b: unorm8(self.blend_color.color[2]),
            blend_a: unorm8(self.blend_color.color[3]),
            varying_count: lfs.varying_count,
            pos_enable: lfs.pos_slot.is_some(),
            pos_slot: lfs.pos_slot.unwrap_or(0),
            face_enable: lfs.face_slot.is_some(),
            face_slot: lfs.face_slot.unwrap_or(0),
            pcoord_enable: lfs.pcoord_slot.is_some(),
            pcoord_slot: lfs.pcoord_slot.unwrap_or(0),
            pcoord_lower_left: rast.sprite_coord_lower_left,
            ..Default::default()
        };
        let color_flat = rast.flatshade;
        for v in &p.linked.varyings {
            let i = v.fs_input as usize;
            let mode = if color_flat && v.semantic.name == sgx_compiler::tgsi::SemanticName::Color {
                tsp::Interp::FLAT
            } else {
                interp.get(i).copied().unwrap_or(v.interp)
            };
            set_interp(&mut tspw, i, mode);
        }
        let vp = render::Viewport {
            scale_x: self.viewport.scale[0],
            scale_y: self.viewport.scale[1],
            scale_z: self.viewport.scale[2],
            trans_x: self.viewport.translate[0],
            trans_y: self.viewport.translate[1],
            trans_z: self.viewport.translate[2],
        };
        let raster = render::RasterState {
            point_size: rast.point_size,
            line_width: rast.line_width,
            query_addr: query.unwrap_or(0),
            point_size_output: lvs.psize_output.unwrap_or(0),
        };
        pack_into(&mut w, render::DRAW_STATE_PROGRAM_DW, &program.pack()?);
        pack_into(&mut w, render::DRAW_STATE_ISP_DW, &ispw.pack()?);
        pack_into(&mut w, render::DRAW_STATE_SCISSOR_DW, &scissor.pack()?);
        pack_into(&mut w, render::DRAW_STATE_TSP_DW, &tspw.pack()?);
        pack_into(&mut w, render::DRAW_STATE_VIEWPORT_DW, &vp.pack()?);
        pack_into(&mut w, render::DRAW_STATE_RASTER_DW, &raster.pack()?);
        let mut key = w.clone();
        for part in [&attrs, &texs, &vs_consts, &fs_consts] {
            key.push(part.len() as u32);
            key.extend_from_slice(part);
        }
        Ok(PendingState {
            uses,
            words: w.len() + attrs.len() + texs.len() + vs_consts.len() + fs_consts.len(),
            key,
            block: w,
            attrs,
            texs,
            vs_consts,
            fs_consts,
        })
    }
}

fn set_interp(t: &mut tsp::TspState, i: usize, m: tsp::Interp) {
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

/// A DrawState not yet written: its block, tables and constants.
struct PendingState {
    /// Buffers read, with their resource ids (None for the program's code).
    uses: Vec<(Bo, Option<u64>)>,
    key: Vec<u32>,
    words: usize,
    block: Vec<u32>,
    attrs: Vec<u32>,
    texs: Vec<u32>,
    vs_consts: Vec<u32>,
    fs_consts: Vec<u32>,
}

impl PendingState {
    /// Writes tables and constants, patches their addresses into the block, writes the block.
    fn upload(&self, dev: &dyn sgx_winsys::Device, b: &mut crate::batch::Batch) -> Result<u32> {
        let align = limits::STATE_ALIGN_B as usize;
        let mut block = self.block.clone();
        let mut program =
            render::ProgramState::unpack(&block[render::DRAW_STATE_PROGRAM_DW as usize..])
                .map_err(|e| PipeError::InvalidArgument(format!("internal: {e}")))?;
        if !self.attrs.is_empty() {
            program.attr_table_addr = b.arena.push_dwords(dev, &self.attrs, align)?;
        }
        if !self.texs.is_empty() {
            program.tex_table_addr = b.arena.push_dwords(dev, &self.texs, align)?;
        }
        let calign = limits::CONST_ALIGN_B as usize;
        if !self.vs_consts.is_empty() {
            program.vs_const_addr = b.arena.push_dwords(dev, &self.vs_consts, calign)?;
        }
        if !self.fs_consts.is_empty() {
            program.fs_const_addr = b.arena.push_dwords(dev, &self.fs_consts, calign)?;
        }
        pack_into(&mut block, render::DRAW_STATE_PROGRAM_DW, &program.pack()?);
        b.arena.push_dwords(dev, &block, align)
    }
}
