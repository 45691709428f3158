//! State emission: one pass over the dirty groups before a draw. Each part of the DrawState
//! (program, ISP, scissor, TSP, viewport and raster words; attribute and texture tables;
//! constants) is repacked only when a group it is packed from is dirty, and a new block is
//! written into the batch only when a part's words changed or the batch has no block yet.

use std::sync::Arc;

use sgx_hwdocs::{isp, render, tsp};

use crate::caps::ShaderStage;
use crate::const_attr::const_attr;
use crate::context::{stage_index, Context};
use crate::dirty::Dirty;
use crate::draw_state::{
    set_interp, target_fits, tex_state, unorm8, Use, TABLE_ATTRS, TABLE_FS_CONSTS, TABLE_TEXS,
    TABLE_VS_CONSTS,
};
use crate::emit_memo::MEMO_DIRTY;
use crate::error::{invalid, not_bound, PipeError, Result};
use crate::program::Program;
use crate::state::*;

impl Context {
    /// Brings the batch's DrawState up to date with the bound state (vertex elements bound,
    /// checked by the draw) for a draw of program `p`. The buffers the block reads are taken into the batch by
    /// `take_state_uses` once the whole draw is accepted, so a refused draw leaves no
    /// references behind. On an error the dirty bits stay set, so a retry repacks what failed.
    pub(crate) fn emit_state(&mut self, p: &Arc<Program>) -> Result<()> {
        // The batch must exist for query slots and user uploads.
        self.batch();
        let query = self.query_slot()?;
        let c = &self.emit;
        if !c.program.as_ref().is_some_and(|x| Arc::ptr_eq(x, p)) {
            self.dirty |= Dirty::SHADERS;
        }
        if c.query != query {
            self.dirty |= Dirty::QUERY;
        }
        let moves = crate::resource::storage_moves();
        if c.moves_seen != moves {
            if c.attr_uses.iter().any(Use::moved) {
                self.dirty |= Dirty::VBUF;
            }
            if c.tex_uses.iter().any(Use::moved) {
                self.dirty |= Dirty::VIEWS;
            }
        }
        let d = self.dirty;
        // The emit memo (emit_memo.rs): a change of vertex layout and buffers alone finds
        // the block this batch has for them.
        let serial = self.batch.as_ref().expect("batch exists").serial;
        self.memo.sync(serial, moves);
        // Converted attributes are new arena data at every draw: never memoized.
        let memo = self.reuse_state
            && !self.memo.disabled
            && self.translate_range.is_none()
            && d.intersects(Dirty::ATTRS);
        let memo = memo
            && self
                .memo
                .fill_sources(self.velems.as_deref().map(|v| &v[..]), &self.vbufs)?;
        if !MEMO_DIRTY.contains(d) {
            self.memo.clear();
        } else if memo
            && !self.emit.changed
            && self.emit.query == query
            && self.memo.hit(
                self.velems.as_ref().expect("fill_sources found them"),
                &mut self.emit,
                self.batch.as_mut().expect("batch exists"),
            )?
        {
            self.dirty = Dirty::empty();
            return Ok(());
        }
        if self.emit.block.is_empty() {
            self.emit.block = vec![0; render::DRAW_STATE_DWORDS as usize];
        }
        let lvs = &p.linked.vs;
        let lfs = &p.linked.fs;
        let units = lfs.samplers.iter().map(|s| s.unit + 1).max().unwrap_or(0);
        let vs_units = lvs.samplers.iter().map(|s| s.unit + 1).max().unwrap_or(0);
        let rast = self.rast.as_deref().copied().unwrap_or_default();
        let mut packed = 0;

        let velems = self
            .velems
            .as_ref()
            .ok_or_else(|| not_bound("vertex elements"))?;
        let attr_count = velems.len() as u32;
        if d.intersects(Dirty::ATTRS) {
            let (words, uses, consts) = self.attr_table()?;
            let c = &mut self.emit;
            c.set_table(TABLE_ATTRS, words);
            c.attr_uses = uses.into();
            c.const_srcs = consts;
            packed += 1;
        }
        if d.intersects(Dirty::TEXS) {
            let (words, uses) = self.tex_table(p, units, vs_units)?;
            let c = &mut self.emit;
            c.set_table(TABLE_TEXS, words);
            c.tex_uses = uses;
            packed += 1;
        }
        if d.intersects(Dirty::VS_CONSTS) {
            let words = self.consts(ShaderStage::Vertex, lvs.const_regs);
            let c = &mut self.emit;
            c.set_table(TABLE_VS_CONSTS, words);
            packed += 1;
        }
        if d.intersects(Dirty::FS_CONSTS) {
            let words = self.consts(ShaderStage::Fragment, lfs.const_regs);
            let c = &mut self.emit;
            c.set_table(TABLE_FS_CONSTS, words);
            packed += 1;
        }
        if d.intersects(Dirty::PROGRAM) {
            let words = render::ProgramState {
                vs_code_addr: p.vs_addr,
                vs_const_addr: 0,
                vs_const_count: lvs.const_regs,
                vs_temps: lvs.temps,
                attr_count,
                vs_outputs: 1
                    + lfs.varying_count
                    + u32::from(lvs.psize_output.is_some())
                    + u32::from(lvs.edgeflag_output.is_some()),
                fs_code_addr: p.fs_addr,
                fs_const_addr: 0,
                fs_const_count: lfs.const_regs,
                fs_temps: lfs.temps,
                tex_count: units + vs_units,
                vs_tex_base: units,
                attr_table_addr: 0,
                tex_table_addr: 0,
            }
            .pack()?;
            self.emit.set_block(render::DRAW_STATE_PROGRAM_DW, &words);
            packed += 1;
        }
        if d.intersects(Dirty::ISP) {
            let words = self.isp_words(&rast, query.is_some())?;
            self.emit.set_block(render::DRAW_STATE_ISP_DW, &words);
            packed += 1;
        }
        if d.contains(Dirty::SCISSOR) {
            let sc = self.scissor;
            let words = isp::Scissor {
                xmin: sc.minx.min(4095),
                ymin: sc.miny.min(4095),
                xmax: sc.maxx.saturating_sub(1).min(4095),
                ymax: sc.maxy.saturating_sub(1).min(4095),
            }
            .pack()?;
            self.emit.set_block(render::DRAW_STATE_SCISSOR_DW, &words);
            packed += 1;
        }
        if d.intersects(Dirty::TSP) {
            let words = self.tsp_words(p, &rast)?;
            self.emit.set_block(render::DRAW_STATE_TSP_DW, &words);
            packed += 1;
        }
        if d.contains(Dirty::VIEWPORT) {
            let v = &self.viewport;
            let words = render::Viewport {
                scale_x: v.scale[0],
                scale_y: v.scale[1],
                scale_z: v.scale[2],
                trans_x: v.translate[0],
                trans_y: v.translate[1],
                trans_z: v.translate[2],
            }
            .pack()?;
            self.emit.set_block(render::DRAW_STATE_VIEWPORT_DW, &words);
            packed += 1;
        }
        if d.intersects(Dirty::RASTER) {
            // User clip distances (hwdocs RasterState clip_mask, MODEL): the linker puts
            // them in consecutive varyings, four planes to a varying.
            let cv = &lfs.clip_varyings;
            let clip_slot = cv.first().map_or(0, |c| c.0);
            let mut clip_mask = 0u32;
            for (k, &(slot, lanes)) in cv.iter().enumerate() {
                if k > 1 || slot != clip_slot + k as u32 {
                    return Err(PipeError::Unsupported(format!(
                        "clip distances in varyings {cv:?}: the TA takes two consecutive ones"
                    )));
                }
                clip_mask |= u32::from(lanes) << (4 * k);
            }
            let words = render::RasterState {
                clip_mask,
                clip_slot,
                point_size: rast.point_size,
                line_width: rast.line_width,
                query_addr: query.unwrap_or(0),
                point_size_output: lvs.psize_output.unwrap_or(0),
            }
            .pack()?;
            self.emit.set_block(render::DRAW_STATE_RASTER_DW, &words);
            packed += 1;
        }
        if d.intersects(Dirty::PRIM) {
            let (factor, pattern) = rast.line_stipple.unwrap_or((1, 0));
            let words = render::PrimState {
                flat_first: rast.flatshade_first,
                poly_stipple: rast.poly_stipple,
                line_stipple: rast.line_stipple.is_some(),
                line_smooth: rast.line_smooth,
                // Gallium's factor is 1..=256: it fits the field minus one.
                line_stipple_factor_m1: u32::from(factor.clamp(1, 256) - 1),
                line_stipple_pattern: u32::from(pattern),
                stipple_addr: 0,
            }
            .pack()?;
            self.emit.set_block(render::DRAW_STATE_PRIM_DW, &words);
            let rows = if rast.poly_stipple {
                self.poly_stipple.to_vec()
            } else {
                Vec::new()
            };
            self.emit.set_stipple(rows);
            packed += 1;
        }
        if d.intersects(Dirty::POLY) {
            let words = self.poly_words(&rast, lvs.edgeflag_output)?;
            self.emit.set_block(render::DRAW_STATE_POLY_DW, &words);
            packed += 1;
        }
        // Every dirty group is packed: the bits are consumed.
        self.dirty = Dirty::empty();
        if !self
            .emit
            .program
            .as_ref()
            .is_some_and(|x| Arc::ptr_eq(x, p))
        {
            self.emit.program = Some(p.clone());
        }
        self.emit.query = query;
        self.emit.moves_seen = moves;
        self.stats.state_parts_packed += packed;

        let b = self.batch.as_mut().expect("batch exists");
        if self.emit.changed || b.state_va.is_none() {
            let dev = self.screen.device().clone();
            let up = self.emit.upload(&*dev, b, self.reuse_state)?;
            // A block found again that the draws use already needs no STATE object.
            b.use_block(up.block_va)?;
            self.emit.changed = false;
            self.stats.state_blocks_emitted += u64::from(up.block_written);
            self.stats.state_words_emitted += up.words;
        }
        if let (true, Some(v), Some(b)) = (memo, &self.velems, &self.batch) {
            self.memo.record(v, &self.emit, b);
        }
        Ok(())
    }

    /// Lists the buffers the batch's current DrawState block reads (program code, vertex
    /// buffers, textures) in the batch, once per block: draws that reuse a block add nothing,
    /// so the job's buffer list grows with state changes, not with draws.
    pub(crate) fn take_state_uses(&mut self, p: &Program) {
        let b = self.batch.as_mut().expect("batch exists");
        if b.uses_va == b.state_va {
            return;
        }
        b.uses_va = b.state_va;
        if b.state_va.is_some() && b.uses_taken.contains(&b.state_va) {
            return;
        }
        b.uses_taken[b.uses_taken_next] = b.state_va;
        b.uses_taken_next = (b.uses_taken_next + 1) % crate::batch::USES_TAKEN;
        b.read_bo(&p.code, None);
        for u in self.emit.attr_uses.iter().chain(&self.emit.tex_uses) {
            b.read_bo(&u.bo, u.res.as_ref().map(|r| r.id()));
        }
    }

    /// The vertex attribute table, the buffers it points into, and the buffers whose
    /// zero-stride element it points at a copy of (`const_attr`).
    fn attr_table(&mut self) -> Result<(Vec<u32>, Vec<Use>, Vec<u64>)> {
        // Disjoint fields, borrowed rather than cloned (each clone is a locked count change).
        let Context {
            screen,
            velems,
            vbufs,
            batch,
            reuse_state,
            translate_all,
            translate_range,
            ..
        } = self;
        let dev = &**screen.device();
        let velems = velems
            .as_deref()
            .ok_or_else(|| not_bound("vertex elements"))?;
        let b = batch.as_mut().expect("batch exists");
        let mut uses = Vec::new();
        let mut consts = Vec::new();
        let mut attrs = Vec::with_capacity(velems.len() * 2);
        for e in velems {
            let vb = vbufs[e.vertex_buffer_index as usize]
                .as_ref()
                .ok_or_else(|| not_bound("vertex buffer"))?;
            let offset_B = vb.buffer_offset.wrapping_add(e.src_offset);
            let comps = e.src_format.comps();
            let native = e.src_format.native().filter(|_| !*translate_all);
            let Some(ty) = native else {
                let range = translate_range
                    .ok_or_else(|| PipeError::InvalidArgument("no vertex range".into()))?;
                let (addr, stride_B) = crate::vertex_translate::translate(
                    b,
                    dev,
                    &vb.buffer,
                    offset_B,
                    vb.stride,
                    e.src_format,
                    range,
                )?;
                if let (BufferSource::Resource(r), 0) = (&vb.buffer, vb.stride) {
                    // A write to the buffer packs the table again (const_attr.rs).
                    consts.push(r.id());
                }
                attrs.extend(attr_words(
                    addr,
                    stride_B,
                    render::AttrType::FLOAT32,
                    comps,
                )?);
                continue;
            };
            let elem_B = e.src_format.size_B();
            let addr = match &vb.buffer {
                BufferSource::Resource(r) => {
                    let bo = r.bo();
                    let copy = if *reuse_state && vb.stride == 0 {
                        const_attr(b, dev, &bo, offset_B, elem_B)?
                    } else {
                        None
                    };
                    match copy {
                        Some(va) => {
                            consts.push(r.id());
                            va
                        }
                        None => {
                            let va = bo.gpu_addr().wrapping_add(offset_B);
                            uses.push(Use {
                                bo,
                                res: Some(r.clone()),
                            });
                            va
                        }
                    }
                }
                BufferSource::User(d) => {
                    let base = match b.user_uploads.iter().find(|(x, _)| Arc::ptr_eq(x, d)) {
                        Some((_, va)) => *va,
                        None => {
                            let va = b.arena.push_bytes(dev, d, 16)?;
                            b.user_uploads.push((d.clone(), va));
                            va
                        }
                    };
                    base.wrapping_add(offset_B)
                }
            };
            attrs.extend(attr_words(addr, vb.stride, ty, comps)?);
        }
        Ok((attrs, uses, consts))
    }

    /// The texture table: fragment units `0..units`, then vertex units `0..vs_units`; and the
    /// textures it points into.
    fn tex_table(&self, p: &Program, units: u32, vs_units: u32) -> Result<(Vec<u32>, Vec<Use>)> {
        let mut uses = Vec::new();
        let mut texs = Vec::new();
        let fs =
            (0..units as usize).map(|u| (u, &p.linked.fs, &self.views[..], &self.samplers[..]));
        let vs = (0..vs_units as usize)
            .map(|u| (u, &p.linked.vs, &self.vs_views[..], &self.vs_samplers[..]));
        for (u, sh, views, samplers) in fs.chain(vs) {
            let stage = sh.stage;
            let view = views
                .get(u)
                .cloned()
                .flatten()
                .ok_or_else(|| not_bound("sampler view"))?;
            for used in sh.samplers.iter().filter(|s| s.unit as usize == u) {
                if !target_fits(used.target, view.resource.target()) {
                    return invalid(format!(
                        "{stage:?} unit {u}: the shader samples {:?}, the view is of a {:?}",
                        used.target,
                        view.resource.target()
                    ));
                }
            }
            let samp = samplers
                .get(u)
                .cloned()
                .flatten()
                .ok_or_else(|| not_bound("sampler state"))?;
            texs.extend(tex_state(&view, &samp)?.pack()?);
            uses.push(Use {
                bo: view.resource.bo(),
                res: Some(view.resource.clone()),
            });
        }
        Ok((texs, uses))
    }

    /// A stage's constants, `regs` vec4s, zero past the bound buffer.
    fn consts(&self, stage: ShaderStage, regs: u32) -> Vec<u32> {
        let mut v = vec![0u32; regs as usize * 4];
        if let Some(cb) = &self.constants[stage_index(stage)] {
            let n = v.len().min(cb.data.len());
            v[..n].copy_from_slice(&cb.data[..n]);
        }
        v
    }

    fn isp_words(&self, rast: &RasterizerState, query_enable: bool) -> Result<Vec<u32>> {
        let dsa = self.dsa.as_deref().copied().unwrap_or_default();
        let two_sided = dsa.stencil[1].enabled;
        let back = if two_sided {
            dsa.stencil[1]
        } else {
            dsa.stencil[0]
        };
        Ok(isp::IspState {
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
            query_enable,
        }
        .pack()?
        .to_vec())
    }

    fn tsp_words(&self, p: &Program, rast: &RasterizerState) -> Result<Vec<u32>> {
        let lfs = &p.linked.fs;
        let blend = self.blend.as_deref().copied().unwrap_or_default();
        let interp = lfs.varying_interp();
        let mut tspw = tsp::TspState {
            blend: blend.blend_enable,
            rgb_func: blend.rgb_func,
            rgb_src: blend.rgb_src_factor,
            rgb_dst: blend.rgb_dst_factor,
            a_func: blend.alpha_func,
            a_src: blend.alpha_src_factor,
            a_dst: blend.alpha_dst_factor,
            colour_mask: u32::from(blend.colormask & 0xF),
            logic_op_enable: blend.logicop_enable,
            logic_op: if blend.logicop_enable {
                blend.logicop_func
            } else {
                tsp::LogicOp::CLEAR
            },
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
        for v in &p.linked.varyings {
            let i = v.fs_input as usize;
            // Back colours too: with no two-sided colour cap st/mesa hands the pixel program
            // BCOLOR inputs to pick from by facing, and glShadeModel(GL_FLAT) covers them.
            let colour = matches!(
                v.semantic.name,
                sgx_compiler::tgsi::SemanticName::Color | sgx_compiler::tgsi::SemanticName::BColor
            );
            let mode = if rast.flatshade && colour {
                tsp::Interp::FLAT
            } else {
                interp.get(i).copied().unwrap_or(v.interp)
            };
            set_interp(&mut tspw, i, mode);
        }
        Ok(tspw.pack()?.to_vec())
    }
}

impl Context {
    /// Turns the emit memo on (the default) or off (every draw packs its state: the
    /// reference the memo is tested against). Off with `set_state_reuse(false)` too.
    #[doc(hidden)]
    pub fn set_emit_memo(&mut self, on: bool) {
        self.memo.disabled = !on;
        self.memo.clear();
    }

    /// The address of the DrawState block the batch's draws use now (tests compare the
    /// blocks a fast path points at with the reference's).
    #[doc(hidden)]
    pub fn state_block_va(&self) -> Option<u32> {
        self.batch.as_ref().and_then(|b| b.state_va)
    }
}

/// One attribute's words in the attribute table.
fn attr_words(
    addr: u32,
    stride_B: u32,
    ty: render::AttrType,
    comps: u32,
) -> Result<[u32; render::VertexAttr::DWORDS]> {
    Ok(render::VertexAttr {
        addr,
        stride_B,
        ty,
        comps_m1: comps - 1,
    }
    .pack()?)
}
