//! draw_vbo: validation, the linked program, the render condition, the index buffer, state
//! emission (emit.rs), the PRIM object, tile and parameter-memory accounting.

use std::sync::Arc;

use sgx_hwdocs::{limits, ta_stream};

use crate::batch::{prim_count, DEFAULT_PB_BUDGET_B};
use crate::context::Context;
use crate::error::{invalid, not_bound, PipeError, Result};
use crate::program::Program;
use crate::query::QUERY_SLOTS;
use crate::state::*;

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

/// `x.floor() as u32` for `x` NaN or in 0..=2^24 (a clamped framebuffer coordinate),
/// without the libm call `f32::floor` is on the baseline target (`floorf` and `ceilf` were 2.6%
/// of drawoverhead test 2's app thread): truncation is the floor of a non-negative value.
fn floor_u32(x: f32) -> u32 {
    x as u32
}

/// `x.ceil() as u32` for `x` as in `floor_u32`: the truncation, plus one when it lost a
/// fraction (integers up to 2^24 are exact in f32).
fn ceil_u32(x: f32) -> u32 {
    let t = x as u32;
    t + u32::from((t as f32) < x)
}

impl Context {
    /// Makes `last_program` the linked program of the bound shaders, linked and uploaded once
    /// per pair and set of point-sprite inputs (`sprite_mask`, non-zero only for point draws).
    fn bind_program(&mut self, sprite_mask: u16) -> Result<()> {
        let vs = self.vs.as_ref().ok_or_else(|| not_bound("vertex shader"))?;
        let fs = self
            .fs
            .as_ref()
            .ok_or_else(|| not_bound("fragment shader"))?;
        let key = (vs.id, fs.id, sprite_mask);
        // Most draws use the program of the draw before: no hashing, no shader clones.
        if let Some((k, _)) = &self.last_program {
            if *k == key {
                return Ok(());
            }
        }
        if let Some(p) = self.programs.get(&key) {
            self.last_program = Some((key, p.clone()));
            return Ok(());
        }
        let (vs, fs) = (vs.clone(), fs.clone());
        let fs_text: Arc<str> = if sprite_mask == 0 {
            fs.tgsi.clone()
        } else {
            crate::sprite::replace_sprite_inputs(&fs.tgsi, sprite_mask)?.into()
        };
        let linked = self.screen.shader_cache().get_or_link(&vs.tgsi, &fs_text)?;
        let p = Arc::new(Program::upload(&*self.dev(), linked, self.timeout)?);
        self.programs.insert(key, p.clone());
        self.last_program = Some((key, p));
        Ok(())
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

    /// An enabled scissor of no pixels (Gallium's max is exclusive). The ISP's inclusive
    /// fields cannot say "none" at the origin (0..0 would become pixel 0), so such a draw is
    /// dropped here instead.
    fn scissor_is_empty(&self) -> bool {
        let s = &self.scissor;
        self.rast.as_ref().is_some_and(|r| r.scissor) && (s.minx >= s.maxx || s.miny >= s.maxy)
    }

    /// The pixel rectangle a draw may touch: viewport, framebuffer and scissor.
    fn draw_rect(&self) -> (u32, u32, u32, u32) {
        let v = &self.viewport;
        let clampf = |x: f32, hi: u32| x.clamp(0.0, hi as f32);
        let (w, h) = (self.fb.width, self.fb.height);
        let x0 = floor_u32(clampf(v.translate[0] - v.scale[0].abs(), w));
        let x1 = ceil_u32(clampf(v.translate[0] + v.scale[0].abs(), w));
        let y0 = floor_u32(clampf(v.translate[1] - v.scale[1].abs(), h));
        let y1 = ceil_u32(clampf(v.translate[1] + v.scale[1].abs(), h));
        self.within_scissor((x0, y0, x1, y1))
    }

    /// The pixels lines and points may reach: the framebuffer's, within the scissor when on.
    fn line_rect(&self) -> (u32, u32, u32, u32) {
        self.within_scissor((0, 0, self.fb.width, self.fb.height))
    }

    /// `r` (x0, y0, x1, y1) cut to the scissor when the scissor test is on.
    fn within_scissor(&self, r: (u32, u32, u32, u32)) -> (u32, u32, u32, u32) {
        let s = &self.scissor;
        if self.rast.as_ref().is_some_and(|r| r.scissor) {
            (
                r.0.max(s.minx),
                r.1.max(s.miny),
                r.2.min(s.maxx),
                r.3.min(s.maxy),
            )
        } else {
            r
        }
    }

    /// The parts of a fan or loop too large for parameter memory, as draws of 32-bit user
    /// indices (`draw_split::gathered`); None when the draw's indices live in a buffer
    /// resource (reading them back would wait on the GPU) or it needs no split.
    fn gathered_parts(&self, info: &DrawInfo, max_prims: u64) -> Option<Vec<DrawInfo>> {
        let parts = crate::draw_split::gathered(info.mode, info.count, max_prims)?;
        let index = |k: u32| -> Option<u32> {
            match (&info.index, info.index_size) {
                (None, _) => Some(info.start.wrapping_add(k)),
                (Some(BufferSource::User(d)), size) => {
                    let size = size as usize;
                    let at = (info.start as usize + k as usize) * size;
                    let b = d.get(at..at + size)?;
                    Some(match size {
                        1 => u32::from(b[0]),
                        2 => u32::from(u16::from_le_bytes([b[0], b[1]])),
                        _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    })
                }
                (Some(BufferSource::Resource(_)), _) => None,
            }
        };
        let mut out = Vec::with_capacity(parts.len());
        for (mode, ks) in parts {
            let mut bytes = Vec::with_capacity(ks.len() * 4);
            for &k in &ks {
                bytes.extend_from_slice(&index(k)?.to_le_bytes());
            }
            out.push(DrawInfo {
                mode,
                index_size: 4,
                index: Some(BufferSource::User(bytes.into())),
                start: 0,
                count: ks.len() as u32,
                // Not indexed: the gathered indices are the vertices themselves.
                index_bias: if info.index.is_some() {
                    info.index_bias
                } else {
                    0
                },
                ..info.clone()
            });
        }
        Some(out)
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
        // Counted, not cloned: an Arc's count changes are locked operations, a draw's
        // largest fixed cost after the model (the same goes for the device below).
        let velems = self
            .velems
            .as_ref()
            .ok_or_else(|| not_bound("vertex elements"))?
            .len();
        let sprite_mask = match (&self.rast, info.mode) {
            (Some(r), PrimMode::POINTS) => r.sprite_coord_enable,
            _ => 0,
        };
        self.bind_program(sprite_mask)?;
        // Lent to the draw and given back: a clone's reference count changes are locked
        // operations, measurable per draw (a split draw's parts clone it again, rarely).
        let (key, program) = self.last_program.take().expect("bind_program sets it");
        let r = self.draw_linked(info, &program, velems);
        if self.last_program.is_none() {
            self.last_program = Some((key, program));
        }
        r
    }

    /// `draw_vbo` once the program is linked.
    fn draw_linked(
        &mut self,
        info: &DrawInfo,
        program: &Arc<Program>,
        velems: usize,
    ) -> Result<()> {
        if velems < program.linked.vs.inputs.len() {
            return invalid(format!(
                "the vertex shader reads {} attributes, {velems} vertex elements bound",
                program.linked.vs.inputs.len(),
            ));
        }
        let prims = prim_count(info.mode, info.count);
        if prims == 0 || self.sample_mask & 1 == 0 || self.scissor_is_empty() {
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
        // Records a primitive may make: quads and polygons are several triangles, and each
        // edge of an outlined polygon is a line of two.
        let unfilled = self.rast.as_ref().is_some_and(|r| r.unfilled());
        let records = crate::poly::records_per_prim(info.mode, info.count, unfilled);
        let lines = unfilled
            || matches!(
                info.mode,
                PrimMode::LINES | PrimMode::LINE_STRIP | PrimMode::LINE_LOOP
            );
        let per_rec = if lines {
            // The model's TA bins an aliased line as one record whatever its length (sim
            // ta/aliased.rs), referenced from the tiles its pixels touch: along the major
            // axis at most E/16 + 2 tiles for the draw rectangle's extent E, and per tile
            // of it the line's minor coordinate moves at most 16 pixels (|slope| <= 1), so
            // with its width at most width/16 + 3 tiles across; never more than the
            // rectangle's tiles. The rectangle is the framebuffer's (and the scissor's), not
            // the viewport's: the TA clips lines at a guard band twice the viewport, and wide
            // lines reach past it.
            let (lx0, ly0, lx1, ly1) = self.line_rect();
            let extent_px = u64::from(lx1.saturating_sub(lx0).max(ly1.saturating_sub(ly0))) + 1;
            let line_tiles = u64::from(lx1.saturating_sub(lx0).div_ceil(16) + 1)
                * u64::from(ly1.saturating_sub(ly0).div_ceil(16) + 1);
            let width_px = self
                .rast
                .as_ref()
                .map_or(1.0, |r| r.line_width)
                .round()
                .clamp(1.0, extent_px as f32) as u64;
            let line_refs = ((extent_px / 16 + 2) * (width_px / 16 + 3)).min(line_tiles);
            let line_B = per_prim + line_refs * limits::PB_TILE_REF_B;
            let smooth = self
                .rast
                .as_ref()
                .filter(|r| r.line_smooth && !unfilled)
                .map(|r| r.line_stipple);
            match self.rast.as_ref().filter(|_| unfilled) {
                // A smooth line is two triangles of its rectangle, each referenced from the
                // tiles of its bounding box (sim ta/lines.rs).
                None if smooth == Some(None) => 2 * (per_prim + line_tiles * limits::PB_TILE_REF_B),
                // Stippled, two per drawn run (sim ta/stipple.rs), runs on the target at
                // most every other pixel; a run is at most 16 pattern bits of `factor`
                // pixels, so with the width and the one-pixel growth its box spans at most
                // factor + (width + 3)/16 + 3 tiles each way.
                None if smooth.is_some() => {
                    let factor = smooth.flatten().map_or(1, |(f, _)| f.clamp(1, 256));
                    let span_tl = u64::from(factor) + (width_px + 3) / 16 + 3;
                    let refs = (span_tl * span_tl).min(line_tiles);
                    (extent_px / 2 + 1) * 2 * (per_prim + refs * limits::PB_TILE_REF_B)
                }
                // An aliased line is one record.
                None => line_B,
                Some(r) => {
                    // An outlined polygon: per edge (vertex) a line, or a point's two
                    // records; filled faces its triangles; the largest mode in use.
                    let edges = records.div_ceil(2);
                    let tri_B = per_prim + line_tiles * limits::PB_TILE_REF_B;
                    [r.fill_front, r.fill_back]
                        .iter()
                        .map(|m| match *m {
                            FillMode::LINE => edges * line_B,
                            FillMode::POINT => edges * 2 * tri_B,
                            _ => {
                                tri_B * crate::poly::records_per_prim(info.mode, info.count, false)
                            }
                        })
                        .max()
                        .unwrap_or(0)
                }
            }
        } else {
            (per_prim + tiles * limits::PB_TILE_REF_B) * records
        };
        let need = prims * per_rec;
        // A stippled strip or loop counts its stipple on from line to line: parts would
        // restart it. It stays whole (a render's parameter memory is sized to its need).
        let stipple_carries = matches!(info.mode, PrimMode::LINE_STRIP | PrimMode::LINE_LOOP)
            && self.rast.as_ref().is_some_and(|r| r.line_stipple.is_some());
        if need > self.pb_budget_B * 4 && !stipple_carries {
            let max_prims = self.pb_budget_B / per_rec;
            if let Some(parts) =
                crate::draw_split::parts(info.mode, info.start, info.count, max_prims)
            {
                for (start, count) in parts {
                    self.draw_vbo(&DrawInfo {
                        start,
                        count,
                        ..info.clone()
                    })?;
                }
                return Ok(());
            }
            if let Some(parts) = self.gathered_parts(info, max_prims) {
                for part in parts {
                    self.draw_vbo(&part)?;
                }
                return Ok(());
            }
        }
        if need > self.pb_budget_B.max(DEFAULT_PB_BUDGET_B) * 4 {
            return Err(PipeError::Unsupported(format!(
                "a draw needing {need} bytes of parameter memory; split it"
            )));
        }
        if self
            .batch
            .as_ref()
            .is_some_and(|b| b.draws > 0 && b.pb_need_B + need > self.pb_budget_B)
        {
            self.flush_batch()?;
            self.stats.pb_splits += 1;
        }

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
                        // A buffer's storage moves only with `storage_moves()` (under its
                        // lock), so its address stays what it was while that count does.
                        let moves = crate::resource::storage_moves();
                        let (bo_id, base, bo) = match self.index_src {
                            Some((id, m, bo_id, base))
                                if self.reuse_state && id == r.id() && m == moves =>
                            {
                                (bo_id, base, None)
                            }
                            _ => {
                                let bo = r.bo();
                                self.index_src = Some((r.id(), moves, bo.id(), bo.gpu_addr()));
                                (bo.id(), bo.gpu_addr(), Some(bo))
                            }
                        };
                        index_use = Some((r, bo_id, bo));
                        base + off as u32
                    }
                    BufferSource::User(d) => {
                        if end > d.len() as u64 {
                            return invalid(format!(
                                "indices up to byte {end} of {} user bytes",
                                d.len()
                            ));
                        }
                        let dev = self.dev();
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
        self.translate_range = if self.velems_converted {
            // The converted vertices are this draw's: the attribute table is packed anew.
            self.dirty |= crate::dirty::Dirty::VBUF;
            Some(crate::vertex_translate::vertex_range(
                crate::vertex_translate::Reads {
                    index: info.index.as_ref(),
                    index_size: info.index_size,
                    start: info.start,
                    count: info.count,
                    index_bias: info.index_bias,
                },
            )?)
        } else {
            None
        };
        self.emit_state(program)?;
        self.take_state_uses(program);
        let b = self.batch.as_mut().expect("batch exists");
        if let Some((r, bo_id, bo)) = index_use {
            // Consecutive draws from one index buffer list it once.
            if b.index_bo != Some(bo_id) {
                let bo = bo.unwrap_or_else(|| r.bo());
                debug_assert_eq!(bo.id(), bo_id, "an index buffer moved unannounced");
                b.index_bo = Some(bo.id());
                b.read_bo(&bo, Some(r.id()));
            }
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
        b.pb_need_B += need;
        b.touch(x0, y0, x1, y1);
        let held_B = b.held_B;
        self.stats.draws += 1;
        if held_B > self.held_budget_B {
            self.flush_batch()?;
            self.stats.held_flushes += 1;
        }
        Ok(())
    }

    /// The query slot of the active occlusion query in this batch, if counting.
    pub(crate) fn query_slot(&mut self) -> Result<Option<u32>> {
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
        st.slot_renders.push(1);
        drop(st);
        b.query_slots.push((q, addr));
        Ok(Some(addr))
    }
}

#[cfg(test)]
mod tests {
    use super::{ceil_u32, floor_u32};

    #[test]
    fn the_rect_rounding_is_floor_and_ceil_on_clamped_coordinates() {
        let mut xs: Vec<f32> = (0..=4096 * 8).map(|i| i as f32 / 8.0).collect();
        xs.extend([
            f32::NAN,
            1e-7,
            0.999_999_9,
            2_047.999_9,
            16_777_216.0,
            0.1,
            0.3,
            1.7,
        ]);
        for x in xs {
            assert_eq!(floor_u32(x), x.floor() as u32, "floor {x}");
            assert_eq!(ceil_u32(x), x.ceil() as u32, "ceil {x}");
        }
    }
}
