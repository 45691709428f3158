//! The TA phase: walk the control stream, fetch vertices, run the vertex program, clip,
//! project, cull, and bin primitives into parameter memory.
//!
//! Parameter memory (hwdocs render.json `parameter_memory`, MODEL): primitive records, then
//! one tile header per tile of the render box (row-major), then the tile reference lists.
//! - record: dw0 DrawState address; dw1 bits 3:0 varyings, bit 4 back-facing, bits 6:5 kind
//!   (0 triangle, 1 point sprite, 2 aliased line rectangle, 3 smooth line rectangle); dw2 primitive number; dw3 0; then three
//!   vertices of (x, y, z, 1/w) f32 in window space, each followed by its varyings (vec4 f32).
//! - tile header: dw0 byte offset (from DPM_PB_BASE) of the tile's first reference, dw1 count.
//! - reference: byte offset of a primitive record, in submission order.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::Arc;

use sgx_hwdocs::limits::{
    MAX_PRIMS_PER_RENDER, MAX_PRIM_VERTICES, PB_PRIM_RECORD_B, PB_TILE_HEADER_B, PB_TILE_REF_B,
    PB_VARYING_B, PB_VERTEX_B, TILE_W_PX,
};
use sgx_hwdocs::regs as r;
use sgx_hwdocs::render::{AttrType, PrimKind, PrimRecord, VertexAttr};
use sgx_hwdocs::ta_stream::{CtrlObjType, CtrlPrim, CtrlState, CtrlTerminate, IndexType, Topology};
use sgx_hwdocs::tsp::Interp;
use sgx_hwdocs::usse::Opcode;

use crate::coverage::GROW_PX;
use crate::job::{load_consts, load_draw_state, DrawState, JobErr, ProgramCache, MAX_VAR};
use crate::mmu::Mmu;
use crate::regs::RegFile;
use crate::tsp::{Sampler, TexTable};
use crate::usse::{batches_vertices, Machine, OutBank, Program, Stage};
use crate::{Counters, Unit};

mod poly;

const TILE: i64 = TILE_W_PX as i64;

mod aliased;
mod degenerate;
mod diamond;
mod provoke;
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

struct Binner {
    w_tl: u32,
    h_tl: u32,
    pb_size: u64,
    records: Vec<u32>,
    tiles: Vec<Vec<u32>>,
    refs: u64,
    prims: u64,
}

impl Binner {
    fn bytes(&self) -> u64 {
        self.records.len() as u64 * 4
            + u64::from(self.w_tl * self.h_tl) * PB_TILE_HEADER_B
            + self.refs * PB_TILE_REF_B
    }

    /// Bins one triangle of window-space vertices into the tiles its bounding box covers.
    fn add(&mut self, d: &Draw, kind: PrimKind, back: bool, v: [&WVert; 3]) -> Result<(), JobErr> {
        let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
        for w in &v {
            x0 = x0.min(w.p[0]);
            y0 = y0.min(w.p[1]);
            x1 = x1.max(w.p[0]);
            y1 = y1.max(w.p[1]);
        }
        if !(x0.is_finite() && y0.is_finite() && x1.is_finite() && y1.is_finite()) {
            return Ok(());
        }
        // Pixels whose centres may be covered.
        let clampi = |f: f32| (f as f64).clamp(-1e9, 1e9) as i64;
        let mut px0 = clampi((x0 - 0.5).ceil()).max(0);
        let mut py0 = clampi((y0 - 0.5).ceil()).max(0);
        let mut px1 = clampi((x1 - 0.5).floor()).min(i64::from(self.w_tl) * TILE - 1);
        let mut py1 = clampi((y1 - 0.5).floor()).min(i64::from(self.h_tl) * TILE - 1);
        if d.ds.isp.scissor {
            let s = &d.ds.scissor;
            px0 = px0.max(i64::from(s.xmin));
            py0 = py0.max(i64::from(s.ymin));
            px1 = px1.min(i64::from(s.xmax));
            py1 = py1.min(i64::from(s.ymax));
        }
        if px0 > px1 || py0 > py1 {
            return Ok(());
        }
        if self.prims >= MAX_PRIMS_PER_RENDER {
            return Err(JobErr::Oom);
        }
        let off = (self.records.len() * 4) as u32;
        let header = PrimRecord {
            state_addr: d.state_addr,
            var_count: d.nvar as u32,
            back_facing: back,
            kind,
            index: self.prims as u32,
        }
        .pack()
        .map_err(|e| JobErr::bad(Unit::Ta, format!("primitive record: {e}")))?;
        self.records.extend_from_slice(&header);
        for w in &v {
            self.records.extend(w.p.iter().map(|f| f.to_bits()));
            for var in &w.var[..d.nvar] {
                self.records.extend(var.iter().map(|f| f.to_bits()));
            }
        }
        self.prims += 1;
        for ty in py0 / TILE..=py1 / TILE {
            for tx in px0 / TILE..=px1 / TILE {
                self.tiles[(ty * i64::from(self.w_tl) + tx) as usize].push(off);
                self.refs += 1;
            }
        }
        debug_assert_eq!(
            PB_PRIM_RECORD_B + 3 * (PB_VERTEX_B + d.nvar as u64 * PB_VARYING_B),
            (self.records.len() * 4) as u64 - u64::from(off)
        );
        if self.bytes() > self.pb_size {
            return Err(JobErr::Oom);
        }
        Ok(())
    }

    fn write(&self, mmu: &Mmu, base: u32) -> Result<(), JobErr> {
        mmu.write_dwords(Unit::Ta, base, &self.records)?;
        let rec_B = (self.records.len() * 4) as u32;
        let ntiles = (self.w_tl * self.h_tl) as usize;
        let mut headers = Vec::with_capacity(2 * ntiles);
        let mut refs = Vec::with_capacity(self.refs as usize);
        let refs_at = rec_B + ntiles as u32 * PB_TILE_HEADER_B as u32;
        for t in &self.tiles {
            headers.push(refs_at + refs.len() as u32 * PB_TILE_REF_B as u32);
            headers.push(t.len() as u32);
            refs.extend_from_slice(t);
        }
        mmu.write_dwords(Unit::Ta, base.wrapping_add(rec_B), &headers)?;
        mmu.write_dwords(Unit::Ta, base.wrapping_add(refs_at), &refs)?;
        Ok(())
    }
}

fn attr_size(t: AttrType) -> u32 {
    match t {
        AttrType::FLOAT32 | AttrType::USCALED32 => 4,
        AttrType::UNORM8 | AttrType::USCALED8 => 1,
        _ => 2,
    }
}

fn convert(t: AttrType, b: &[u8]) -> f32 {
    let u16v = || u16::from_le_bytes([b[0], b[1]]);
    match t {
        AttrType::FLOAT32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        AttrType::USCALED32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
        AttrType::UNORM8 => f32::from(b[0]) / 255.0,
        AttrType::USCALED8 => f32::from(b[0]),
        AttrType::SNORM16 => (f32::from(u16v() as i16) / 32767.0).max(-1.0),
        AttrType::SSCALED16 => f32::from(u16v() as i16),
        AttrType::UNORM16 => f32::from(u16v()) / 65535.0,
        AttrType::USCALED16 => f32::from(u16v()),
    }
}

mod memo;
mod shade;

/// Vertex groups the TA took from its memo on this thread (tests of the fast path).
#[cfg(test)]
pub(crate) use memo::hits as memo_hits;

/// `CHUNK` indices are read at a time.
const CHUNK: usize = 4096;

/// Hashes a vertex index with one multiply (Fibonacci hashing): the index cache is looked up
/// for every index of a PRIM, and the default SipHash took about a tenth of the CPU time of
/// drawoverhead's indexed draws. Indices are the application's, not an adversary's.
#[derive(Default)]
struct IndexHasher(u64);

// 0x9e37_79b9_7f4a_7c15 is the golden-ratio multiplier of Fibonacci hashing, not a hardware
// fact: the model's index cache only needs a cheap, well-spread hash.
impl Hasher for IndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The vertex buffers of one PRIM, kept across the PRIMs of a job.
#[derive(Default)]
struct PrimBufs {
    /// Index -> position in `verts`.
    cache: HashMap<u32, usize, BuildHasherDefault<IndexHasher>>,
    verts: Vec<CVert>,
    slot: Vec<usize>,
    raw: Vec<u8>,
    ids: Vec<u32>,
}

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
    /// Line stipple counter: pixels along the lines of the current strip or loop.
    stipple_n: u32,
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
    let [x, y, z, w] = v.pos;
    match k {
        0 => w - W_EPS,
        1 => w + x,
        2 => w - x,
        3 => w + y,
        4 => w - y,
        5 => w + z,
        _ => w - z,
    }
}

/// How far past the viewport lines are clipped in x and y, in viewport widths (heights) from
/// its centre: the model's convention, not a hardware number. A line clipped at the viewport's
/// edge would end on a pixel border there, where the diamond-exit rule's perturbation drops
/// the last pixel of lines leaving right or down; out here the clipped end lies off the
/// target, and the line stays bounded (the TA walks its pixels).
const LINE_GUARD: f32 = 2.0;

/// Line clipping distances: the view volume's x and y planes widened by `LINE_GUARD`.
fn guarded(d: &Draw, v: &CVert, k: usize) -> f32 {
    let [x, y, _, w] = v.pos;
    match k {
        1 => LINE_GUARD * w + x,
        2 => LINE_GUARD * w - x,
        3 => LINE_GUARD * w + y,
        4 => LINE_GUARD * w - y,
        _ => d.dist(v, k),
    }
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
    /// Reads vertex `vtx`'s attributes into `pa`, one slot per attribute of the draw.
    fn attrs(&self, d: &Draw, vtx: u32, pa: &mut [[u32; 4]; 16]) -> Result<(), JobErr> {
        for (slot, a) in pa.iter_mut().zip(&d.attrs) {
            let n = a.comps_m1 + 1;
            let sz = attr_size(a.ty);
            let addr = a.addr.wrapping_add(vtx.wrapping_mul(a.stride_B));
            let mut buf = [0u8; 16];
            self.mmu
                .read(Unit::Ta, addr, &mut buf[..(n * sz) as usize])?;
            let mut v = [0.0, 0.0, 0.0, 1.0f32];
            for (i, c) in v.iter_mut().enumerate().take(n as usize) {
                *c = convert(a.ty, &buf[i * sz as usize..]);
            }
            *slot = v.map(f32::to_bits);
        }
        Ok(())
    }

    fn vertex(&mut self, d: &Draw, vtx: u32) -> Result<CVert, JobErr> {
        let mut pa = [[0u32; 4]; 16];
        self.attrs(d, vtx, &mut pa)?;
        let mut sampler =
            Sampler::new(self.mmu, &d.tex, self.fast).with_base(d.ds.prog.vs_tex_base);
        let out = self
            .machine
            .run_vertex(&d.vs, &pa[..d.attrs.len()], &d.consts, &mut sampler)
            .map_err(JobErr::usse)?;
        self.c.texels_fetched += sampler.texels;
        self.c.usse_instructions += out.instructions;
        Ok(cvert(d, &out.out))
    }

    fn project(&self, d: &Draw, v: &CVert) -> WVert {
        let inv = 1.0 / v.pos[3];
        let vp = &d.ds.vp;
        WVert {
            p: [
                v.pos[0] * inv * vp.scale_x + vp.trans_x,
                v.pos[1] * inv * vp.scale_y + vp.trans_y,
                v.pos[2] * inv * vp.scale_z + vp.trans_z,
                inv,
            ],
            var: v.var,
            psize: v.psize,
            edge: v.edge,
        }
    }

    fn triangle(&mut self, d: &Draw, v: [&CVert; 3]) -> Result<(), JobErr> {
        let mut out = [0u32; MAX_PLANES];
        let out = &mut out[..d.planes()];
        for (k, o) in out.iter_mut().enumerate() {
            for (i, vv) in v.iter().enumerate() {
                if d.dist(vv, k) < 0.0 {
                    *o |= 1 << i;
                }
            }
        }
        if out.contains(&7) {
            return Ok(());
        }
        if out.iter().all(|&m| m == 0) {
            if self.fast && poly::plain(&d.ds.poly) && degenerate::no_area(d, v) {
                // What `fan` would cull, without projecting the vertices (ta/degenerate.rs).
                return Ok(());
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
            let area =
                (b.p[0] - a.p[0]) * (c.p[1] - a.p[1]) - (c.p[0] - a.p[0]) * (b.p[1] - a.p[1]);
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

    fn line(&mut self, d: &Draw, a: &CVert, b: &CVert) -> Result<(), JobErr> {
        let (mut t0, mut t1) = (0.0f32, 1.0f32);
        for k in 0..d.planes() {
            let (da, db) = (guarded(d, a, k), guarded(d, b, k));
            if da < 0.0 && db < 0.0 {
                return Ok(());
            }
            if da < 0.0 {
                t0 = t0.max(da / (da - db));
            } else if db < 0.0 {
                t1 = t1.min(da / (da - db));
            }
        }
        if t0 > t1 {
            return Ok(());
        }
        let mut b2 = lerp(a, b, t1, d.nvar);
        let a2 = lerp(a, b, t0, d.nvar);
        for k in 0..d.nvar {
            if d.flat[k] {
                b2.var[k] = b.var[k];
            }
        }
        let (p, q) = (self.project(d, &a2), self.project(d, &b2));
        let stipple = d.ds.prim.line_stipple;
        match (d.ds.prim.line_smooth, stipple) {
            (true, true) => self.stippled_smooth(d, &p, &q),
            (true, false) => self.smooth_line(d, &p, &q),
            (false, _) => self.aliased_line(d, &p, &q, stipple, false),
        }
    }

    /// Bins an antialiased window-space line from `p` to `q` (flat varyings from `q`): its
    /// rectangle of RasterState.line_width x length grown by `coverage::GROW_PX` on every
    /// side, as two SMOOTH_LINE triangles whose first vertex is a corner of the rectangle
    /// (the 3D phase recovers the line's rectangle from them).
    fn smooth_line(&mut self, d: &Draw, p: &WVert, q: &WVert) -> Result<(), JobErr> {
        let (dx, dy) = (q.p[0] - p.p[0], q.p[1] - p.p[1]);
        let len = (dx * dx + dy * dy).sqrt();
        if len == 0.0 || !len.is_finite() {
            return Ok(());
        }
        let g = GROW_PX;
        let w = if self.line_w > 0.0 { self.line_w } else { 1.0 };
        let h = w / 2.0 + g;
        let (ux, uy) = (dx / len, dy / len);
        let (nx, ny) = (-uy * h, ux * h);
        // The line's ends moved out by g, varyings extrapolated along it.
        let mut ends = [
            stipple::at(d, p, q, -g / len),
            stipple::at(d, p, q, 1.0 + g / len),
        ];
        for e in ends.iter_mut() {
            for k in (0..d.nvar).filter(|&k| d.flat[k]) {
                e.var[k] = q.var[k];
            }
        }
        let off = |v: &WVert, s: f32| {
            let mut o = *v;
            o.p[0] += nx * s;
            o.p[1] += ny * s;
            o
        };
        let (p0, p1) = (off(&ends[0], 1.0), off(&ends[0], -1.0));
        let (q0, q1) = (off(&ends[1], 1.0), off(&ends[1], -1.0));
        self.bin
            .add(d, PrimKind::SMOOTH_LINE, false, [&p0, &p1, &q0])?;
        self.bin
            .add(d, PrimKind::SMOOTH_LINE, false, [&q1, &q0, &p1])
    }

    fn prim(&mut self, d: &Draw, p: &CtrlPrim) -> Result<(), JobErr> {
        let n = p.count as usize;
        let isz = match p.index_type {
            IndexType::NONE => 0,
            IndexType::U8 => 1,
            IndexType::U16 => 2,
            IndexType::U32 => 4,
        };
        if isz > 1 && p.index_addr & (isz - 1) != 0 {
            return Err(JobErr::bad(
                Unit::Ta,
                format!("index buffer {:#x} not {isz}-byte aligned", p.index_addr),
            ));
        }
        if p.count as u64 > MAX_PRIM_VERTICES {
            return Err(JobErr::bad(
                Unit::Ta,
                format!(
                    "PRIM of {} vertices: limits::MAX_PRIM_VERTICES is {MAX_PRIM_VERTICES}",
                    p.count
                ),
            ));
        }
        // `count` is a 32-bit field: nothing is reserved for it up front. Indices are read a
        // chunk at a time and vertices fetched as they are met, so a count past the index or
        // vertex buffer faults at the buffer's end instead of asking the host for memory for
        // 2^32 of them. The buffers live in `Ta` and are reused by every PRIM of the job: a
        // draw of a few vertices allocates nothing.
        let mut b = std::mem::take(&mut self.bufs);
        if b.cache.capacity() > 4 * CHUNK {
            // Clearing costs the table's capacity: a large PRIM's table is not kept.
            b.cache = HashMap::default();
        }
        b.cache.clear();
        b.verts.clear();
        b.slot.clear();
        let r = self.fetch(d, p, n, isz, &mut b);
        let r = r.and_then(|()| self.assemble(d, p, n, &b));
        self.bufs = b;
        r
    }

    /// Fetches and shades the PRIM's vertices: each distinct index once, in order of first
    /// use; `b.slot[k]` is the shaded vertex of the PRIM's k-th vertex.
    fn fetch(
        &mut self,
        d: &Draw,
        p: &CtrlPrim,
        n: usize,
        isz: u32,
        b: &mut PrimBufs,
    ) -> Result<(), JobErr> {
        let PrimBufs {
            cache,
            verts,
            slot,
            raw,
            ids,
        } = b;
        let batch = self.fast && d.batch;
        if isz == 0 {
            // Not indexed: every vertex is distinct (count is far below 2^32), no lookup.
            let base = p.base_vertex as u32;
            if batch {
                for i in (0..n).step_by(4) {
                    let m = (n - i).min(4);
                    let ids: [u32; 4] = std::array::from_fn(|k| base.wrapping_add((i + k) as u32));
                    self.shade4(d, &ids[..m], verts)?;
                    slot.extend(i..i + m);
                }
                return Ok(());
            }
            for i in 0..n {
                let v = self.vertex(d, base.wrapping_add(i as u32))?;
                verts.push(v);
                slot.push(i);
            }
            return Ok(());
        }
        raw.resize(n.min(CHUNK) * isz as usize, 0);
        let mut k = 0usize;
        while k < n {
            let m = (n - k).min(CHUNK);
            ids.clear();
            // GPU addresses are 32-bit: the index pointer wraps as the hardware's would.
            let addr = p.index_addr.wrapping_add((k * isz as usize) as u32);
            let bytes = &mut raw[..m * isz as usize];
            self.mmu.read(Unit::Ta, addr, bytes)?;
            for c in bytes.chunks(isz as usize) {
                let v = match isz {
                    1 => u32::from(c[0]),
                    2 => u32::from(u16::from_le_bytes([c[0], c[1]])),
                    _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                };
                ids.push(v.wrapping_add(p.base_vertex as u32));
            }
            // Batched: new vertices wait in `pending` (their positions in `verts` known) and
            // are shaded four at a time, all of them before the next chunk's indices are read,
            // so faults come in the order of one-by-one shading.
            let mut pending = [0u32; 4];
            let mut np = 0;
            for &i in ids.iter() {
                let s = match cache.get(&i) {
                    Some(&s) => s,
                    None if batch => {
                        let s = verts.len() + np;
                        cache.insert(i, s);
                        pending[np] = i;
                        np += 1;
                        if np == 4 {
                            self.shade4(d, &pending, verts)?;
                            np = 0;
                        }
                        s
                    }
                    None => {
                        let v = self.vertex(d, i)?;
                        verts.push(v);
                        cache.insert(i, verts.len() - 1);
                        verts.len() - 1
                    }
                };
                slot.push(s);
            }
            if np > 0 {
                self.shade4(d, &pending[..np], verts)?;
            }
            k += m;
        }
        Ok(())
    }

    /// Cuts the PRIM's shaded vertices into primitives. The last argument of `tri` is the
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
    for (pc, i) in vs.ins.iter().enumerate() {
        let unit = u32::from(i.sampler) + ps.vs_tex_base;
        if matches!(
            i.op,
            Opcode::TEX | Opcode::TEXB | Opcode::TEXL | Opcode::TEXD
        ) && unit as usize >= tex.len()
        {
            return Err(JobErr::Illegal {
                unit: Unit::UssePds,
                pc: pc as u32,
                reason: format!(
                    "vertex sampler {} (table entry {unit}) past the draw's {} textures",
                    i.sampler,
                    tex.len()
                ),
            });
        }
    }
    let nvar = ds.tsp.varying_count as usize;
    let t = &ds.tsp;
    let interp = [
        t.v0_interp,
        t.v1_interp,
        t.v2_interp,
        t.v3_interp,
        t.v4_interp,
        t.v5_interp,
        t.v6_interp,
        t.v7_interp,
        t.v8_interp,
        t.v9_interp,
    ];
    let flat = interp.map(|i| i == Interp::FLAT);
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

/// Runs the TA phase: bins the control stream's primitives into parameter memory; returns the
/// byte offset of the tile headers from DPM_PB_BASE (DPM state the 3D phase starts from).
pub(crate) fn run(
    mmu: &Mmu,
    regs: &RegFile,
    progs: &mut ProgramCache,
    fast: bool,
    c: &mut Counters,
) -> Result<u32, JobErr> {
    let bad = |e: sgx_hwdocs::DecodeError| JobErr::bad(Unit::Vdm, e.to_string());
    let base = r::VdmCtrlStreamBase::unpack(&[regs.get(r::VDM_CTRL_STREAM_BASE)])
        .map_err(bad)?
        .addr;
    let screen = r::TeScreen::unpack(&[regs.get(r::TE_SCREEN)]).map_err(bad)?;
    let pb_base = r::DpmPbBase::unpack(&[regs.get(r::DPM_PB_BASE)])
        .map_err(bad)?
        .addr;
    let pb_size = u64::from(regs.get(r::DPM_PB_SIZE));
    let ntiles = (screen.w_tl * screen.h_tl) as usize;
    let mut ta = Ta {
        mmu,
        machine: Box::new(Machine::with_paths(fast)),
        fast,
        bin: Binner {
            w_tl: screen.w_tl,
            h_tl: screen.h_tl,
            pb_size,
            records: Vec::new(),
            tiles: vec![Vec::new(); ntiles],
            refs: 0,
            prims: 0,
        },
        line_w: 1.0,
        c,
        bufs: PrimBufs::default(),
        memo: memo::VertexMemo::default(),
        stipple_n: 0,
    };
    if ta.bin.bytes() > pb_size {
        return Err(JobErr::Oom);
    }
    let mut cur = base;
    let mut draw: Option<Rc<Draw>> = None;
    let mut decoded = Decoded::default();
    loop {
        let d0 = mmu.read_u32(Unit::Vdm, cur)?;
        match CtrlObjType::from_raw(d0 >> 30) {
            Some(CtrlObjType::STATE) => {
                let mut w = [0u32; 2];
                mmu.read_dwords(Unit::Vdm, cur, &mut w)?;
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
                let mut w = [0u32; 4];
                mmu.read_dwords(Unit::Vdm, cur, &mut w)?;
                let p = CtrlPrim::unpack(&w).map_err(bad)?;
                let d = draw.as_ref().ok_or_else(|| {
                    JobErr::bad(Unit::Vdm, format!("PRIM at {cur:#x} before any STATE"))
                })?;
                ta.prim(d, &p)?;
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
