//! The TA phase: walk the control stream, fetch vertices, run the vertex program, clip,
//! project, cull, and bin primitives into parameter memory.
//!
//! Parameter memory (hwdocs render.json `parameter_memory`, MODEL): primitive records, then
//! one tile header per tile of the render box (row-major), then the tile reference lists.
//! - record (`PrimRecord`): dw0 DrawState address; dw1 varyings, back-facing, kind (triangle,
//!   point sprite, aliased line, smooth line rectangle, aliased line run), line stipple on;
//!   dw2 primitive number; dw3 a line's stipple start; then three vertices of (x, y, z, 1/w)
//!   f32 in window space, each followed by its varyings (vec4 f32).
//! - tile header: dw0 byte offset (from DPM_PB_BASE) of the tile's first reference, dw1 count.
//! - reference: byte offset of a primitive record, in submission order.

use std::rc::Rc;
use std::sync::Arc;

use sgx_hwdocs::limits::TILE_W_PX;
use sgx_hwdocs::regs as r;
use sgx_hwdocs::render::{PrimKind, VertexAttr};
use sgx_hwdocs::ta_stream::{CtrlObjType, CtrlPrim, CtrlState, CtrlTerminate, Topology};
use sgx_hwdocs::tsp::Interp;

use crate::job::{
    check_samplers, load_consts, load_draw_state, DrawState, JobErr, ProgramCache, MAX_VAR,
};
use crate::mmu::Mmu;
use crate::regs::RegFile;
use crate::tsp::TexTable;
use crate::usse::{batches_vertices, Machine, OutBank, Program, Stage};
use crate::{Counters, Unit};

mod poly;

use binner::Binner;
use fetch::PrimBufs;

const TILE: i64 = TILE_W_PX as i64;

mod aliased;
mod binner;
mod fetch;
#[cfg(test)]
mod line_records;
mod lines;
mod prim_memo;
mod provoke;
mod setup;
mod slots;
#[cfg(test)]
mod stale;
mod stipple;
#[cfg(test)]
mod tests;

/// A clip-space vertex with its varyings.
#[derive(Clone, Copy)]
struct CVert {
    pos: [f32; 4],
    var: [[f32; 4]; MAX_VAR],
    psize: f32,
    /// The edge from this vertex to the next one of its polygon is a boundary edge.
    edge: bool,
}

/// A window-space vertex: (x, y, z, 1/w) and varyings.
#[derive(Clone, Copy)]
struct WVert {
    p: [f32; 4],
    var: [[f32; 4]; MAX_VAR],
    psize: f32,
    edge: bool,
}

/// The draw state of the primitives being processed.
struct Draw {
    state_addr: u32,
    ds: DrawState,
    vs: Arc<Program>,
    consts: Vec<[u32; 4]>,
    attrs: Vec<VertexAttr>,
    tex: TexTable,
    nvar: usize,
    flat: [bool; MAX_VAR],
    /// The vertex program runs four vertices at a time (`usse::batches_vertices`).
    batch: bool,
    /// User clip distances (RasterState.clip_mask): varying and lane of each.
    user: Vec<(usize, usize)>,
}

/// The view volume's planes (`plane`), then up to 8 user clip distances.
const MAX_PLANES: usize = 7 + 8;

impl Draw {
    /// Planes to clip against.
    fn planes(&self) -> usize {
        7 + self.user.len()
    }

    /// The signed distance of `v` from plane `k`: the view volume's, then the user's.
    fn dist(&self, v: &CVert, k: usize) -> f32 {
        match k.checked_sub(7) {
            None => plane(v, k),
            Some(u) => {
                let (s, l) = self.user[u];
                v.var[s][l]
            }
        }
    }
}

mod memo;
mod shade;
mod stream;

/// Vertex groups the TA took from its memo on this thread (tests of the fast path).
#[cfg(test)]
pub(crate) use memo::hits as memo_hits;
/// PRIMs the TA took from its PRIM memo on this thread (tests of the fast path).
#[cfg(test)]
pub(crate) use prim_memo::{hits as prim_memo_hits, set_off as set_prim_memo_off};

struct Ta<'a> {
    mmu: &'a Mmu,
    machine: Box<Machine>,
    /// Fast paths on (else reference only).
    fast: bool,
    bin: Binner,
    line_w: f32,
    c: &'a mut Counters,
    bufs: PrimBufs,
    /// Groups of vertices shaded earlier in the job (fast path only; ta/memo.rs).
    memo: memo::VertexMemo,
    /// PRIMs processed earlier in the job (fast path only; ta/prim_memo.rs).
    prim_memo: prim_memo::PrimMemo,
    /// Line stipple counter: pixels along the lines of the current strip or loop.
    stipple_n: u32,
    /// Aliased lines binned the reference's way, two LINE_RUN triangles per run of pixels
    /// (`aliased.rs`), instead of one LINE record.
    line_runs: bool,
    /// The tiles of the aliased line being binned (kept to reuse its allocation).
    line_tiles: Vec<u32>,
}

fn lerp(a: &CVert, b: &CVert, t: f32, nvar: usize) -> CVert {
    let mut o = *a;
    for i in 0..4 {
        o.pos[i] = a.pos[i] + (b.pos[i] - a.pos[i]) * t;
    }
    for k in 0..nvar {
        for i in 0..4 {
            o.var[k][i] = a.var[k][i] + (b.var[k][i] - a.var[k][i]) * t;
        }
    }
    o
}

const W_EPS: f32 = 1e-6;

fn plane(v: &CVert, k: usize) -> f32 {
    view_dists(v)[k.min(6)]
}

/// The signed distances of `v` from the view volume's seven planes (w > 0, then x, y, z
/// against w).
fn view_dists(v: &CVert) -> [f32; 7] {
    let [x, y, z, w] = v.pos;
    [w - W_EPS, w + x, w - x, w + y, w - y, w + z, w - z]
}

/// The clip-space vertex of an output bank (o0 position, o1.. varyings, the point size and
/// edge flag outputs).
fn cvert(d: &Draw, out: &OutBank) -> CVert {
    let f = |v: [u32; 4]| v.map(f32::from_bits);
    let mut cv = CVert {
        pos: f(out[0]),
        var: [[0.0; 4]; MAX_VAR],
        psize: d.ds.raster.point_size,
        edge: true,
    };
    for k in 0..d.nvar {
        cv.var[k] = f(out[k + 1]);
    }
    let pso = d.ds.raster.point_size_output as usize;
    if pso != 0 {
        cv.psize = f32::from_bits(out[pso][0]);
    }
    let efo = d.ds.poly.edge_flag_output as usize;
    if efo != 0 {
        cv.edge = f32::from_bits(out[efo][0]) != 0.0;
    }
    cv
}

impl Ta<'_> {
    fn project(&self, d: &Draw, v: &CVert) -> WVert {
        WVert {
            p: setup::window_pos(d, v),
            var: v.var,
            psize: v.psize,
            edge: v.edge,
        }
    }

    fn triangle(&mut self, d: &Draw, v: [&CVert; 3]) -> Result<(), JobErr> {
        // Outcodes per plane (bit i: vertex i is outside), the distances of `Draw::dist`
        // computed a vertex at a time.
        let mut out = [0u32; MAX_PLANES];
        let out = &mut out[..d.planes()];
        for (i, vv) in v.iter().enumerate() {
            for (o, dist) in out.iter_mut().zip(view_dists(vv)) {
                if dist < 0.0 {
                    *o |= 1 << i;
                }
            }
            for (o, &(s, l)) in out[7..].iter_mut().zip(&d.user) {
                if vv.var[s][l] < 0.0 {
                    *o |= 1 << i;
                }
            }
        }
        if out.contains(&7) {
            return Ok(());
        }
        if out.iter().all(|&m| m == 0) {
            if self.fast && poly::plain(&d.ds.poly) {
                // What `fan` does, projecting the varyings only of a binned triangle
                // (ta/setup.rs).
                return self.plain_triangle(d, v);
            }
            // Nothing to clip (most triangles): no polygon to build.
            let w = v.map(|x| self.project(d, x));
            return self.fan(d, &w);
        }
        let mut poly: Vec<CVert> = v.iter().map(|x| **x).collect();
        for (k, &m) in out.iter().enumerate() {
            if m == 0 {
                continue;
            }
            let mut next = Vec::with_capacity(poly.len() + 1);
            for i in 0..poly.len() {
                let a = &poly[i];
                let b = &poly[(i + 1) % poly.len()];
                let (da, db) = (d.dist(a, k), d.dist(b, k));
                if da >= 0.0 {
                    next.push(*a);
                }
                if (da >= 0.0) != (db >= 0.0) {
                    let mut m = lerp(a, b, da / (da - db), d.nvar);
                    // Leaving the volume, the new vertex starts an edge along the clip
                    // plane: not a boundary edge of the polygon (as Mesa's draw clipper and
                    // NVIDIA's drivers treat frustum planes).
                    m.edge &= da < 0.0;
                    next.push(m);
                }
            }
            poly = next;
            if poly.len() < 3 {
                return Ok(());
            }
        }
        // Flat varyings keep the provoking (last) vertex's value.
        for k in 0..d.nvar {
            if d.flat[k] {
                for p in poly.iter_mut() {
                    p.var[k] = v[2].var[k];
                }
            }
        }
        let w: Vec<WVert> = poly.iter().map(|p| self.project(d, p)).collect();
        self.fan(d, &w)
    }

    /// Culls and bins the triangle fan of a convex polygon of window-space vertices.
    fn fan(&mut self, d: &Draw, w: &[WVert]) -> Result<(), JobErr> {
        if !poly::plain(&d.ds.poly) {
            return self.polygon(d, w);
        }
        for i in 1..w.len() - 1 {
            let (a, b, c) = (&w[0], &w[i], &w[i + 1]);
            let area = poly::signed_area(&a.p, &b.p, &c.p);
            if area == 0.0 || area.is_nan() {
                continue;
            }
            let (back, culled) = poly::facing(&d.ds.isp, area);
            if !culled {
                self.bin.add(d, PrimKind::TRIANGLE, back, [a, b, c])?;
            }
        }
        Ok(())
    }

    fn point(&mut self, d: &Draw, v: &CVert) -> Result<(), JobErr> {
        if (0..d.planes()).any(|k| d.dist(v, k) < 0.0) {
            return Ok(());
        }
        let size = if v.psize.is_nan() {
            1.0
        } else {
            v.psize.clamp(1.0, 2048.0)
        };
        let c = self.project(d, v);
        let h = size / 2.0;
        let corner = |dx: f32, dy: f32| {
            let mut w = c;
            w.p[0] += dx;
            w.p[1] += dy;
            w
        };
        let (tl, tr, bl, br) = (corner(-h, -h), corner(h, -h), corner(-h, h), corner(h, h));
        self.bin.add(d, PrimKind::POINT, false, [&tl, &tr, &bl])?;
        self.bin.add(d, PrimKind::POINT, false, [&tr, &br, &bl])
    }

    /// vertex that provokes under GL's first-vertex rule (the last vertex otherwise).
    fn assemble(&mut self, d: &Draw, p: &CtrlPrim, n: usize, b: &PrimBufs) -> Result<(), JobErr> {
        let v = |k: usize| &b.verts[b.slot[k]];
        match p.topology {
            Topology::TRIANGLES => {
                for t in 0..n / 3 {
                    self.tri(d, [v(3 * t), v(3 * t + 1), v(3 * t + 2)], 0)?;
                }
            }
            Topology::TRIANGLE_STRIP => {
                for t in 0..n.saturating_sub(2) {
                    // Odd triangles swap their first two vertices to keep the winding.
                    if t % 2 == 0 {
                        self.tri(d, [v(t), v(t + 1), v(t + 2)], 0)?;
                    } else {
                        self.tri(d, [v(t + 1), v(t), v(t + 2)], 1)?;
                    }
                }
            }
            Topology::TRIANGLE_FAN => {
                for t in 0..n.saturating_sub(2) {
                    self.tri(d, [v(0), v(t + 1), v(t + 2)], 1)?;
                }
            }
            Topology::QUADS | Topology::QUAD_STRIP | Topology::POLYGON => {
                for (idx, outer) in poly::triangles(p.topology, n) {
                    let mut t = idx.map(|k| *v(k));
                    for (c, o) in t.iter_mut().zip(outer) {
                        c.edge &= o;
                    }
                    self.triangle(d, [&t[0], &t[1], &t[2]])?;
                }
            }
            Topology::POINTS => {
                for k in 0..n {
                    self.point(d, v(k))?;
                }
            }
            Topology::LINES => {
                for k in 0..n / 2 {
                    // The line stipple restarts with every independent line.
                    self.stipple_n = 0;
                    self.seg(d, v(2 * k), v(2 * k + 1))?;
                }
            }
            Topology::LINE_STRIP | Topology::LINE_LOOP => {
                self.stipple_n = 0;
                for k in 0..n.saturating_sub(1) {
                    self.seg(d, v(k), v(k + 1))?;
                }
                if p.topology == Topology::LINE_LOOP && n > 2 {
                    self.seg(d, v(n - 1), v(0))?;
                }
            }
        }
        Ok(())
    }
}

fn load_draw(mmu: &Mmu, state_addr: u32, progs: &mut ProgramCache) -> Result<Draw, JobErr> {
    let ds = load_draw_state(mmu, Unit::Ta, state_addr)?;
    let ps = &ds.prog;
    let vs = progs.get(mmu, ps.vs_code_addr, Stage::Vertex)?;
    let consts = load_consts(mmu, Unit::Ta, ps.vs_const_addr, ps.vs_const_count)?;
    let mut attrs = Vec::with_capacity(ps.attr_count as usize);
    for i in 0..ps.attr_count {
        let mut w = [0u32; 2];
        mmu.read_dwords(Unit::Ta, ps.attr_table_addr.wrapping_add(8 * i), &mut w)?;
        attrs.push(
            VertexAttr::unpack(&w)
                .map_err(|e| JobErr::bad(Unit::Ta, format!("VertexAttr {i}: {e}")))?,
        );
    }
    let tex = TexTable::load(mmu, ps, Unit::Ta)?;
    check_samplers(&vs, Stage::Vertex, ps.vs_tex_base, tex.len())?;
    let nvar = ds.tsp.varying_count as usize;
    let flat = ds.interp().map(|i| i == Interp::FLAT);
    let r = &ds.raster;
    let mut user = Vec::new();
    for bit in (0..8).filter(|b| r.clip_mask >> b & 1 != 0) {
        let slot = r.clip_slot as usize + bit / 4;
        if slot >= nvar {
            return Err(JobErr::bad(
                Unit::Ta,
                format!("clip distance {bit} in varying {slot}: the draw has {nvar} varyings"),
            ));
        }
        user.push((slot, bit % 4));
    }
    Ok(Draw {
        user,
        state_addr,
        ds,
        consts,
        attrs,
        tex,
        nvar,
        flat,
        batch: batches_vertices(&vs),
        vs,
    })
}

/// How many decoded DrawState blocks a job keeps (`Decoded`): enough for state that
/// alternates between a few blocks. A model choice for speed, not a hardware fact.
const DECODED_BLOCKS: usize = 8;

/// The last few DrawState blocks a job's STATE objects pointed at, decoded, by address (the
/// fast path; the reference decodes every STATE object). Nothing writes memory while the
/// TA walks the stream (parameter memory is written after it), so a block, its tables and its
/// program read the same at the second STATE object as at the first: decoding again would
/// give the same draw, or the same fault, which the first decode would already have raised.
#[derive(Default)]
struct Decoded {
    draws: Vec<(u32, Rc<Draw>)>,
    /// The entry replaced next once all are used.
    next: usize,
}

impl Decoded {
    fn get(&mut self, mmu: &Mmu, addr: u32, progs: &mut ProgramCache) -> Result<Rc<Draw>, JobErr> {
        if let Some((_, d)) = self.draws.iter().find(|(a, _)| *a == addr) {
            return Ok(d.clone());
        }
        let d = Rc::new(load_draw(mmu, addr, progs)?);
        if self.draws.len() < DECODED_BLOCKS {
            self.draws.push((addr, d.clone()));
        } else {
            self.draws[self.next] = (addr, d.clone());
            self.next = (self.next + 1) % DECODED_BLOCKS;
        }
        Ok(d)
    }
}

/// Which of the TA's paths a job runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paths {
    /// Fast paths on (else reference only).
    pub fast: bool,
    /// Aliased lines as the reference's LINE_RUN triangles (else one LINE record each).
    pub line_runs: bool,
}

/// Runs the TA phase: bins the control stream's primitives into parameter memory; returns the
/// byte offset of the tile headers from DPM_PB_BASE (DPM state the 3D phase starts from).
pub(crate) fn run(
    mmu: &Mmu,
    regs: &RegFile,
    progs: &mut ProgramCache,
    paths: Paths,
    c: &mut Counters,
) -> Result<u32, JobErr> {
    let fast = paths.fast;
    let bad = |e: sgx_hwdocs::DecodeError| JobErr::bad(Unit::Vdm, e.to_string());
    let base = r::VdmCtrlStreamBase::unpack(&[regs.get(r::VDM_CTRL_STREAM_BASE)])
        .map_err(bad)?
        .addr;
    let screen = r::TeScreen::unpack(&[regs.get(r::TE_SCREEN)]).map_err(bad)?;
    let pb_base = r::DpmPbBase::unpack(&[regs.get(r::DPM_PB_BASE)])
        .map_err(bad)?
        .addr;
    let pb_size = u64::from(regs.get(r::DPM_PB_SIZE));
    let mut ta = Ta {
        mmu,
        machine: Box::new(Machine::with_paths(fast)),
        fast,
        bin: Binner::new(screen.w_tl, screen.h_tl, pb_size),
        line_w: 1.0,
        c,
        bufs: PrimBufs::default(),
        memo: memo::VertexMemo::default(),
        prim_memo: prim_memo::PrimMemo::default(),
        stipple_n: 0,
        line_runs: paths.line_runs,
        line_tiles: Vec::new(),
    };
    if ta.bin.bytes() > pb_size {
        return Err(JobErr::Oom);
    }
    let mut cur = base;
    let mut draw: Option<Rc<Draw>> = None;
    let mut decoded = Decoded::default();
    let mut stream = stream::Reader::new(fast);
    loop {
        let [d0] = stream.words::<1>(mmu, Unit::Vdm, cur)?;
        match CtrlObjType::from_raw(d0 >> 30) {
            Some(CtrlObjType::STATE) => {
                let w = stream.words::<2>(mmu, Unit::Vdm, cur)?;
                let s = CtrlState::unpack(&w).map_err(bad)?;
                let d = if fast {
                    decoded.get(mmu, s.state_addr, progs)?
                } else {
                    Rc::new(load_draw(mmu, s.state_addr, progs)?)
                };
                ta.line_w = d.ds.raster.line_width;
                draw = Some(d);
                cur = cur.wrapping_add(8);
            }
            Some(CtrlObjType::PRIM) => {
                let w = stream.words::<4>(mmu, Unit::Vdm, cur)?;
                let p = CtrlPrim::unpack(&w).map_err(bad)?;
                let d = draw.as_ref().ok_or_else(|| {
                    JobErr::bad(Unit::Vdm, format!("PRIM at {cur:#x} before any STATE"))
                })?;
                ta.prim_remembered(d, &p, &w)?;
                cur = cur.wrapping_add(16);
            }
            Some(CtrlObjType::TERMINATE) => {
                CtrlTerminate::unpack(&[d0]).map_err(bad)?;
                break;
            }
            None => {
                return Err(JobErr::bad(
                    Unit::Vdm,
                    format!("control stream object type 0 at {cur:#x}"),
                ))
            }
        }
    }
    ta.bin.write(mmu, pb_base)?;
    ta.c.prims_binned += ta.bin.prims;
    ta.c.pb_bytes_used += ta.bin.bytes();
    Ok((ta.bin.records.len() * 4) as u32)
}
