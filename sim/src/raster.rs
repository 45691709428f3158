//! The 3D phase: per tile of the render box, start from the background or the target, walk
//! the tile's primitives from parameter memory, rasterise them at pixel centres with the
//! top-left rule, depth/stencil test, shade quads on the USSE, blend, mask, count queries,
//! then store through the PBE and ZLS.

use std::collections::HashMap;
use std::rc::Rc;

use sgx_hwdocs::limits::{PB_PRIM_RECORD_B, TILE_H_PX, TILE_W_PX};
use sgx_hwdocs::render::{PrimKind, PrimRecord};

use crate::coverage::Rect;
use crate::depth::Precision;
use crate::job::{JobErr, ProgramCache, MAX_VAR};
use crate::mmu::Mmu;
use crate::tsp::{Sampler, SpanTex};
use crate::usse::{Machine, QuadOut, TexEmit, VaryEmit};
use crate::{Counters, Unit};

mod backoff;
mod ctx;
mod edges;
mod fragment;
mod handover;
mod line;
mod phase;
mod prim_cache;
mod ring;
mod span;
mod span_win;
mod span_z;
mod stipple;
mod tiles;
mod varyings;
pub(crate) use phase::run;
#[cfg(test)]
pub(crate) use span_win::{TEX_SHADED_PX as SPAN_SHADED_PX, Z_SHADED_PX as SPAN_Z_SHADED_PX};
pub(crate) use tiles::Threads;

use ctx::{load_ctx, DrawCtx};
use phase::Job3d;

use edges::{lam_packed, lam_scalar, step3, window_accepted, window_rejected};
use fragment::{blend, clamp01, compare, stencil_op};

const T: u32 = TILE_W_PX as u32;
// The tile walk below indexes a tile as T x T: square tiles.
const _: () = assert!(TILE_W_PX == TILE_H_PX);
/// Pixels in a tile.
const TILE_PX2: usize = (TILE_W_PX * TILE_H_PX) as usize;
/// Sub-pixel precision of the rasteriser: 1/256 pixel.
const SUB: f32 = 256.0;

/// One tile's on-chip buffers.
struct Tile {
    colour: [[f32; 4]; TILE_PX2],
    depth: [f32; TILE_PX2],
    stencil: [u8; TILE_PX2],
    /// Fast path: every pixel's colour is the background and `colour` was not filled (a
    /// tile with no primitive and no colour load); the store writes the background.
    bg_only: bool,
}

/// A primitive read back from parameter memory, set up for one tile.
struct Prim {
    state: u32,
    kind: PrimKind,
    back: bool,
    /// A LINE record's stipple counter at its first pixel, when the stipple applies.
    stipple: Option<u32>,
    nvar: usize,
    /// (x, y, z, 1/w) of each vertex.
    p: [[f32; 4]; 3],
    var: [[[f32; 4]; MAX_VAR]; 3],
}

struct Raster<'a> {
    mmu: &'a Mmu,
    progs: ProgramCache,
    ctxs: HashMap<u32, Rc<DrawCtx>>,
    machine: Box<Machine>,
    pa: Box<[[[u32; 4]; 16]; 4]>,
    qout: QuadOut,
    queries: HashMap<u32, u32>,
    rec: Vec<u32>,
    /// Records read in this job (fast paths only).
    prims: prim_cache::PrimCache,
    /// Fast paths on (else reference only).
    fast: bool,
    /// The target's largest stored value per channel, for logic ops.
    chan_max: [u32; 4],
    /// The precision depth is tested and kept at (the depth buffer's).
    depth: Precision,
    c: Counters,
}

impl Raster<'_> {
    /// Reads the primitive record at `addr` into `p` (reused from primitive to primitive: no
    /// copy of the record's varyings per primitive); varyings past its count are zero.
    fn read_prim(&mut self, addr: u32, p: &mut Prim) -> Result<(), JobErr> {
        let mut h = [0u32; PrimRecord::DWORDS];
        self.mmu.read_dwords(Unit::Isp, addr, &mut h)?;
        let bad =
            |why: String| JobErr::bad(Unit::Isp, format!("primitive record at {addr:#x}: {why}"));
        let h = PrimRecord::unpack(&h).map_err(|e| bad(e.to_string()))?;
        let nvar = h.var_count as usize;
        if nvar > MAX_VAR {
            return Err(bad(format!("{nvar} varyings")));
        }
        let per = 4 + 4 * nvar;
        self.rec.resize(3 * per, 0);
        self.mmu.read_dwords(
            Unit::Isp,
            addr.wrapping_add(PB_PRIM_RECORD_B as u32),
            &mut self.rec,
        )?;
        p.state = h.state_addr;
        p.kind = h.kind;
        p.back = h.back_facing;
        p.stipple = h.line_stipple.then_some(h.line_stipple_start);
        p.nvar = nvar;
        for (v, d) in self.rec.chunks(per).enumerate() {
            p.p[v] = [d[0], d[1], d[2], d[3]].map(f32::from_bits);
            for (k, var) in p.var[v].iter_mut().enumerate() {
                *var = if k < nvar {
                    [d[4 + 4 * k], d[5 + 4 * k], d[6 + 4 * k], d[7 + 4 * k]].map(f32::from_bits)
                } else {
                    [0.0; 4]
                };
            }
        }
        Ok(())
    }

    fn ctx(&mut self, addr: u32) -> Result<Rc<DrawCtx>, JobErr> {
        if let Some(c) = self.ctxs.get(&addr) {
            return Ok(c.clone());
        }
        let c = Rc::new(load_ctx(self.mmu, addr, &mut self.progs)?);
        self.ctxs.insert(addr, c.clone());
        Ok(c)
    }

    /// Rasterises `pr` into tile (tx, ty).
    fn draw(&mut self, pr: &Prim, tile: &mut Tile, tx: u32, ty: u32) -> Result<(), JobErr> {
        if pr.kind == PrimKind::LINE {
            return self.draw_line(pr, tile, tx, ty);
        }
        self.draw_tri(pr, tile, tx, ty)
    }

    /// Rasterises the triangle `pr` into tile (tx, ty).
    fn draw_tri(&mut self, pr: &Prim, tile: &mut Tile, tx: u32, ty: u32) -> Result<(), JobErr> {
        let ctx = self.ctx(pr.state)?;
        let ds = &ctx.ds;
        let fx = |v: f32| (f64::from(v) * f64::from(SUB)).round().clamp(-1e12, 1e12) as i64;
        let mut vx = [0i64; 3];
        let mut vy = [0i64; 3];
        for i in 0..3 {
            vx[i] = fx(pr.p[i][0]);
            vy[i] = fx(pr.p[i][1]);
        }
        let area = (vx[1] - vx[0]) * (vy[2] - vy[0]) - (vx[2] - vx[0]) * (vy[1] - vy[0]);
        if area == 0 {
            return Ok(());
        }
        // Order the vertices so the interior is on the positive side of every edge.
        let ord: [usize; 3] = if area > 0 { [0, 1, 2] } else { [0, 2, 1] };
        let area = area.abs();
        let (x, y) = (ord.map(|i| vx[i]), ord.map(|i| vy[i]));
        // Edge k is opposite vertex k: from vertex k+1 to vertex k+2.
        let mut ea = [(0i64, 0i64, 0i64, 0i64, 0i64); 3];
        for (k, e) in ea.iter_mut().enumerate() {
            let (a, b) = ((k + 1) % 3, (k + 2) % 3);
            let (dx, dy) = (x[b] - x[a], y[b] - y[a]);
            // Top-left rule: pixel centres on a top or left edge are inside, others are not.
            let top_left = (dy == 0 && dx > 0) || dy < 0;
            *e = (dx, dy, x[a], y[a], if top_left { 0 } else { 1 });
        }
        let inv_area = 1.0 / area as f32;
        // Vertices within 2^23 sub-pixels of the origin keep every edge value of the window
        // (which lies inside the bounding box) far inside the packed conversion's +-2^51.
        let small_edges = self.fast
            && x.iter()
                .chain(y.iter())
                .all(|v| v.unsigned_abs() <= 1 << 23);
        // Pixel window: tile ∩ bbox ∩ scissor.
        let (mut px0, mut py0) = ((tx * T) as i64, (ty * T) as i64);
        let (mut px1, mut py1) = (px0 + T as i64 - 1, py0 + T as i64 - 1);
        let minx = *x.iter().min().unwrap();
        let maxx = *x.iter().max().unwrap();
        let miny = *y.iter().min().unwrap();
        let maxy = *y.iter().max().unwrap();
        px0 = px0.max(minx.div_euclid(SUB as i64));
        px1 = px1.min(maxx.div_euclid(SUB as i64));
        py0 = py0.max(miny.div_euclid(SUB as i64));
        py1 = py1.min(maxy.div_euclid(SUB as i64));
        let isp = &ds.isp;
        if isp.scissor {
            px0 = px0.max(i64::from(ds.scissor.xmin));
            py0 = py0.max(i64::from(ds.scissor.ymin));
            px1 = px1.min(i64::from(ds.scissor.xmax));
            py1 = py1.min(i64::from(ds.scissor.ymax));
        }
        if px0 > px1 || py0 > py1 {
            return Ok(());
        }
        let pv: [[f32; 4]; 3] = ord.map(|i| pr.p[i]);
        let vars: [&[[f32; 4]; MAX_VAR]; 3] = ord.map(|i| &pr.var[i]);
        let prov = &pr.var[2];
        let t = &ds.tsp;
        let nvar = (t.varying_count as usize).min(pr.nvar);
        let vary = varyings::Vary {
            rhw: [pv[0][3], pv[1][3], pv[2][3]],
            vars,
            prov,
            nvar,
            interp: &ctx.interp,
        };
        let sprite = if pr.kind == PrimKind::POINT {
            let (mx, my) = (
                pr.p.iter().map(|v| v[0]).fold(f32::MAX, f32::min),
                pr.p.iter().map(|v| v[1]).fold(f32::MAX, f32::min),
            );
            let (nx, ny) = (
                pr.p.iter().map(|v| v[0]).fold(f32::MIN, f32::max),
                pr.p.iter().map(|v| v[1]).fold(f32::MIN, f32::max),
            );
            Some((mx, my, 1.0 / (nx - mx), 1.0 / (ny - my)))
        } else {
            None
        };
        // A smooth line's coverage weighs its pixels (MODEL: hwdocs render.json PrimKind).
        let smooth = if pr.kind == PrimKind::SMOOTH_LINE {
            match Rect::of_triangle(pr.p.map(|v| [v[0], v[1]])) {
                Some(r) => Some(r),
                None => return Ok(()),
            }
        } else {
            None
        };
        let (sfunc, sfail, szfail, szpass, sref, srmask, swmask) = if isp.two_sided && pr.back {
            (
                isp.back_func,
                isp.back_fail,
                isp.back_zfail,
                isp.back_zpass,
                isp.back_ref as u8,
                isp.back_read_mask as u8,
                isp.back_write_mask as u8,
            )
        } else {
            (
                isp.front_func,
                isp.front_fail,
                isp.front_zfail,
                isp.front_zpass,
                isp.front_ref as u8,
                isp.front_read_mask as u8,
                isp.front_write_mask as u8,
            )
        };
        // GL stipples filled polygons only: not lines, not points.
        let stip = ctx
            .stipple
            .as_ref()
            .filter(|_| pr.kind == PrimKind::TRIANGLE);
        let has_kill = ctx.fs.has_kill;
        // A program that writes depth (EMITDEPTH, MODEL: hwdocs usse.json) is depth-tested
        // after it runs, with its own depth: every covered pixel shades, as with KILL.
        let late_z = ctx.fs.writes_depth && isp.depth_test;
        // Fast-path shortcuts of the per-pixel state work below (the reference keeps it all):
        // no test and no KILL leaves every covered pixel live and passing; no blend, no logic
        // op and all channels written leaves the colour the clamped source.
        let no_tests = self.fast && !has_kill && !isp.stencil_test && !isp.depth_test;
        let plain_colour =
            self.fast && !t.blend && !t.logic_op_enable && t.colour_mask & 0xf == 0xf;
        // Depth is read only by the depth test (and its write) and the position input.
        let need_z = !self.fast || isp.depth_test || t.pos_enable;
        let fast = self.fast;
        let prec = self.depth;
        let quantise = |d: f32| {
            if fast {
                prec.quantise_fast(d)
            } else {
                prec.quantise(d)
            }
        };
        let mut sampler = Sampler::new(self.mmu, &ctx.tex, fast);
        let direct = ctx.tex_emit.filter(|te| fast && te.lod_free(&sampler));
        let mut passed = 0u32;
        let qx0 = px0 & !1;
        let qy0 = py0 & !1;
        // Fast path: edge values stepped by constants from the window's first quad (wrapping,
        // so they equal the reference's products mod 2^64), and the whole window skipped when
        // one edge rejects all four of its corners.
        let sub = SUB as i64;
        let edge_at = |k: usize, px: i64, py: i64| {
            let (dx, dy, ax, ay, _) = ea[k];
            let (cx, cy) = (
                px.wrapping_mul(sub) + sub / 2,
                py.wrapping_mul(sub) + sub / 2,
            );
            dx.wrapping_mul(cy.wrapping_sub(ay))
                .wrapping_sub(dy.wrapping_mul(cx.wrapping_sub(ax)))
        };
        // The three edges at a pixel, written out: as `[0, 1, 2].map(..)` this set-up, done
        // per tile and triangle, stayed out of line (a few per cent of a full-screen quad).
        let edges_at =
            |px: i64, py: i64| [edge_at(0, px, py), edge_at(1, px, py), edge_at(2, px, py)];
        let mut step_x = [0i64; 3];
        let mut step_y = [0i64; 3];
        let mut pix_off = [[0i64; 3]; 4];
        for (k, &(dx, dy, ..)) in ea.iter().enumerate() {
            step_x[k] = dy.wrapping_mul(-2 * sub);
            step_y[k] = dx.wrapping_mul(2 * sub);
            for (i, po) in pix_off.iter_mut().enumerate() {
                let (ox, oy) = ((i & 1) as i64, (i >> 1) as i64);
                po[k] = dx
                    .wrapping_mul(oy * sub)
                    .wrapping_sub(dy.wrapping_mul(ox * sub));
            }
        }
        let skip = fast && window_rejected(&ea, [px0, py0, px1, py1]);
        // A window of whole quads lying wholly inside the triangle covers every pixel: its
        // quads skip the per-pixel window and edge compares.
        let accept = fast
            && (px0 | py0) & 1 == 0
            && px1 & py1 & 1 == 1
            && window_accepted(&ea, [px0, py0, px1, py1]);
        // The span path shades the window, when nothing is tested, stippled or blended, eight
        // pixels of a row at a time up to its last covered quad; the quad loop below then
        // starts at that quad (qx_start, qy_start).
        let (mut qx_start, mut qy_start) = (qx0, qy0);
        // Both span paths' window: the pixel window and the edges at its first pixel.
        let win_px = (px0, py0, px1, py1);
        let win_e0 = || edges_at(px0, py0);
        #[cfg(target_arch = "x86_64")]
        if !skip && no_tests && stip.is_none() && smooth.is_none() && plain_colour && small_edges {
            let span_tex = direct.and_then(|te| {
                let k = te.slot();
                let fed = |on: bool, slot: u32| on && slot as usize == k;
                // The coordinates must be this primitive's varying, not an input the loop
                // below writes over it.
                let own = k < nvar
                    && !fed(t.pos_enable, t.pos_slot)
                    && !fed(t.face_enable, t.face_slot)
                    && !fed(t.pcoord_enable, t.pcoord_slot);
                own.then(|| sampler.span_tex(te.unit()))
                    .flatten()
                    .map(|st| (k, st))
            });
            if let Some((k, st)) = span_tex {
                let coord = span::Coord {
                    interp: ctx.interp[k],
                    st: [0, 1, 2].map(|v| [vars[v][k][0], vars[v][k][1]]),
                    flat: [prov[k][0], prov[k][1]],
                };
                let win = span_win::Window::new(&ea, win_px, win_e0(), inv_area, vary.rhw, coord);
                (qx_start, qy_start) = match span::last_covered_quad(&win) {
                    Some(last) => {
                        // SAFETY: a SpanTex is only made when the CPU has AVX2.
                        let done = unsafe { span::shade(&win, &st, tile, (tx, ty), last) };
                        sampler.texels += 4 * done.quads * SpanTex::TAPS;
                        self.c.pixels_shaded += done.px;
                        self.c.usse_instructions += 4 * done.quads * TexEmit::INSTRUCTIONS_PER_PX;
                        passed += done.px as u32;
                        last
                    }
                    // Nothing covered: the quad loop has nothing to do either.
                    None => (qx0, py1 + 1),
                };
            }
        }
        // The depth span path shades the whole window of a colour varying's `EMITPIX`, depth
        // tested or not, when nothing else is tested, stippled or blended; the quad loop then
        // has nothing left, but the primary attributes of the last quad the program ran on
        // are filled in as it would leave them.
        #[cfg(target_arch = "x86_64")]
        if let Some(ve) = ctx.vary_emit.filter(|ve| {
            fast && !skip
                && stip.is_none()
                && smooth.is_none()
                && plain_colour
                && small_edges
                && !isp.stencil_test
                && ve.slot() < nvar
                && !(t.pos_enable || t.face_enable || t.pcoord_enable)
                && qy_start == qy0
                && std::arch::is_x86_feature_detected!("avx2")
        }) {
            let k = ve.slot();
            let colour = span_z::Colour {
                interp: ctx.interp[k],
                v: [vars[0][k], vars[1][k], vars[2][k]],
                flat: prov[k],
                z: [pv[0][2], pv[1][2], pv[2][2]],
                depth: isp.depth_test.then_some((isp.depth_func, isp.depth_write)),
                prec,
            };
            let win = span_win::Window::new(&ea, win_px, win_e0(), inv_area, vary.rhw, colour);
            // SAFETY: AVX2 was detected just above.
            let done = unsafe { span_z::shade(&win, tile, (tx, ty)) };
            self.c.pixels_shaded += done.px;
            self.c.usse_instructions += 4 * done.quads * VaryEmit::INSTRUCTIONS_PER_PX;
            passed += done.px as u32;
            if let Some((qx, qy)) = done.last_live {
                let here = edges_at(qx, qy);
                let lam = lam_packed(here, &pix_off, inv_area);
                varyings::fill(&mut self.pa, &lam, &vary, fast);
            }
            qy_start = py1 + 1;
        }
        let mut row_e = edges_at(qx0, qy_start);
        let mut qy = qy_start;
        while qy <= py1 && !skip {
            let mut qx = if qy == qy_start { qx_start } else { qx0 };
            let mut qe = if qx == qx0 { row_e } else { edges_at(qx, qy) };
            // Element by element, not `map`: rustc leaves that map out of line here, and
            // reloading its result stalls on store forwarding.
            row_e = step3(row_e, step_y);
            while qx <= px1 {
                let here = qe;
                qe = step3(qe, step_x);
                let mut cov = [false; 4];
                let mut ev = [[0i64; 3]; 4];
                if accept {
                    for i in 0..4 {
                        for k in 0..3 {
                            ev[i][k] = here[k].wrapping_add(pix_off[i][k]);
                        }
                    }
                    cov = [true; 4];
                }
                for i in 0..4 {
                    if accept {
                        break;
                    }
                    let (px, py) = (qx + (i & 1) as i64, qy + (i >> 1) as i64);
                    let (cx, cy) = (
                        px * SUB as i64 + SUB as i64 / 2,
                        py * SUB as i64 + SUB as i64 / 2,
                    );
                    let mut inside = px >= px0 && px <= px1 && py >= py0 && py <= py1;
                    for k in 0..3 {
                        let (dx, dy, ax, ay, th) = ea[k];
                        let e = if fast {
                            here[k].wrapping_add(pix_off[i][k])
                        } else {
                            dx * (cy - ay) - dy * (cx - ax)
                        };
                        inside &= e >= th;
                        ev[i][k] = e;
                    }
                    cov[i] = inside;
                }
                if let Some(rows) = stip {
                    for (i, c) in cov.iter_mut().enumerate() {
                        *c &= stipple::keeps(rows, qx + (i & 1) as i64, qy + (i >> 1) as i64);
                    }
                }
                let mut weight = [1.0f32; 4];
                if let Some(r) = &smooth {
                    for (i, c) in cov.iter_mut().enumerate() {
                        if *c {
                            weight[i] = r.coverage(qx + (i & 1) as i64, qy + (i >> 1) as i64);
                            *c = weight[i] > 0.0;
                        }
                    }
                }
                // Or-ed, not compared as an array: the array compare reloads the four bool
                // stores as one word and stalls on store forwarding.
                if !(cov[0] | cov[1] | cov[2] | cov[3]) {
                    qx += 2;
                    continue;
                }
                let lam = if small_edges {
                    lam_packed(here, &pix_off, inv_area)
                } else {
                    lam_scalar(&ev, inv_area)
                };
                // Interpolate z and the varyings for all four pixels (helpers too).
                let mut z = [0f32; 4];
                for i in 0..4 {
                    if !need_z {
                        break;
                    }
                    let l = lam[i];
                    // The plane through vertex 0, as the varyings (edges::lerp3): a triangle
                    // of one depth yields that depth exactly at every pixel (the weighted
                    // sum does not, as the weights add up to 1 only to rounding).
                    z[i] = clamp01(
                        pv[0][2] + l[1] * (pv[1][2] - pv[0][2]) + l[2] * (pv[2][2] - pv[0][2]),
                    );
                }
                // The depth tested and written: z at the depth buffer's precision (MODEL:
                // crate::depth). The program's position input keeps z as interpolated.
                let mut zq = z;
                if isp.depth_test {
                    for q in zq.iter_mut() {
                        *q = quantise(*q);
                    }
                }
                // Depth/stencil tests (no writes yet).
                let mut spass = [true; 4];
                let mut dpass = [true; 4];
                let mut live = [false; 4];
                for i in 0..4 {
                    if no_tests {
                        live = cov;
                        break;
                    }
                    if !cov[i] {
                        continue;
                    }
                    let ti =
                        ((qy + (i >> 1) as i64 - (ty * T) as i64) * T as i64 + qx + (i & 1) as i64
                            - (tx * T) as i64) as usize;
                    if isp.stencil_test {
                        spass[i] = compare(
                            sfunc,
                            f32::from(sref & srmask),
                            f32::from(tile.stencil[ti] & srmask),
                        );
                    }
                    if isp.depth_test {
                        dpass[i] = compare(isp.depth_func, zq[i], tile.depth[ti]);
                    }
                    live[i] = has_kill || late_z || (spass[i] && dpass[i]);
                }
                let shade = live.iter().any(|&l| l);
                if shade {
                    let pa = &mut self.pa;
                    let sums = varyings::fill(pa, &lam, &vary, fast);
                    for i in 0..4 {
                        let sum = sums[i];
                        let pxy = || {
                            (
                                (qx + (i & 1) as i64) as f32 + 0.5,
                                (qy + (i >> 1) as i64) as f32 + 0.5,
                            )
                        };
                        if t.pos_enable {
                            let (px, py) = pxy();
                            pa[i][t.pos_slot as usize] = [px, py, z[i], sum].map(f32::to_bits);
                        }
                        if t.face_enable {
                            pa[i][t.face_slot as usize] =
                                [if pr.back { -1.0 } else { 1.0 }, 0.0, 0.0, 1.0].map(f32::to_bits);
                        }
                        if t.pcoord_enable {
                            let (px, py) = pxy();
                            let (s, tt) = match sprite {
                                Some((mx, my, ix, iy)) => ((px - mx) * ix, (py - my) * iy),
                                None => (0.0, 0.0),
                            };
                            let tt = if t.pcoord_lower_left { 1.0 - tt } else { tt };
                            pa[i][t.pcoord_slot as usize] = [s, tt, 0.0, 1.0].map(f32::to_bits);
                        }
                    }
                    match direct {
                        Some(te) => te.run(&self.pa, &mut sampler, &mut self.qout),
                        None => self.machine.run_quad(
                            &ctx.fs,
                            &self.pa,
                            live,
                            &ctx.consts,
                            &mut sampler,
                            &mut self.qout,
                        ),
                    }
                    .map_err(JobErr::usse)?;
                    if smooth.is_some() {
                        for (c, w) in self.qout.colour.iter_mut().zip(weight) {
                            c[3] *= w;
                        }
                    }
                    self.c.usse_instructions += self.qout.instructions;
                    for i in 0..4 {
                        if !(late_z && live[i]) {
                            continue;
                        }
                        let ti = ((qy + (i >> 1) as i64 - (ty * T) as i64) * T as i64
                            + qx
                            + (i & 1) as i64
                            - (tx * T) as i64) as usize;
                        if let Some(d) = self.qout.depth[i] {
                            zq[i] = quantise(d);
                        }
                        dpass[i] = compare(isp.depth_func, zq[i], tile.depth[ti]);
                    }
                    self.c.pixels_shaded += live.iter().filter(|&&l| l).count() as u64;
                }
                if no_tests && plain_colour {
                    // Fast path: nothing to test or blend, so a covered pixel the shader did
                    // not kill takes its clamped colour (what the loop below does then).
                    let tq = (qy - (ty * T) as i64) * T as i64 + qx - (tx * T) as i64;
                    for (i, &c) in cov.iter().enumerate() {
                        if c && !(shade && self.qout.killed[i]) {
                            let ti = (tq + (i >> 1) as i64 * T as i64 + (i & 1) as i64) as usize;
                            let c = &self.qout.colour[i];
                            tile.colour[ti] =
                                [clamp01(c[0]), clamp01(c[1]), clamp01(c[2]), clamp01(c[3])];
                            passed += 1;
                        }
                    }
                    qx += 2;
                    continue;
                }
                for i in 0..4 {
                    if !cov[i] || (shade && live[i] && self.qout.killed[i]) {
                        continue;
                    }
                    let ti =
                        ((qy + (i >> 1) as i64 - (ty * T) as i64) * T as i64 + qx + (i & 1) as i64
                            - (tx * T) as i64) as usize;
                    if isp.stencil_test {
                        let op = if !spass[i] {
                            sfail
                        } else if !dpass[i] {
                            szfail
                        } else {
                            szpass
                        };
                        let old = tile.stencil[ti];
                        let new = stencil_op(op, old, sref);
                        tile.stencil[ti] = (old & !swmask) | (new & swmask);
                    }
                    if !(spass[i] && dpass[i]) {
                        continue;
                    }
                    if isp.depth_test && isp.depth_write {
                        tile.depth[ti] = zq[i];
                    }
                    tile.colour[ti] = if plain_colour {
                        self.qout.colour[i].map(clamp01)
                    } else {
                        blend(&ctx, self.qout.colour[i], tile.colour[ti], self.chan_max)
                    };
                    passed += 1;
                }
                qx += 2;
            }
            qy += 2;
        }
        self.c.texels_fetched += sampler.texels;
        if isp.query_enable {
            *self.queries.entry(ds.raster.query_addr).or_insert(0) += passed;
        }
        Ok(())
    }
}

impl<'a> Raster<'a> {
    /// A worker's rasteriser: its own draw-context and program caches, USSE machine and
    /// counters.
    fn new(
        mmu: &'a Mmu,
        progs: ProgramCache,
        fast: bool,
        chan_max: [u32; 4],
        depth: Precision,
    ) -> Self {
        Raster {
            mmu,
            progs,
            ctxs: HashMap::new(),
            machine: Box::new(Machine::with_paths(fast)),
            pa: Box::new([[[0; 4]; 16]; 4]),
            qout: QuadOut {
                colour: [[0.0; 4]; 4],
                killed: [false; 4],
                depth: [None; 4],
                instructions: 0,
            },
            queries: HashMap::new(),
            rec: Vec::new(),
            prims: prim_cache::PrimCache::new(),
            fast,
            chan_max,
            depth,
            c: Counters::default(),
        }
    }
}

impl Default for Prim {
    fn default() -> Prim {
        Prim {
            state: 0,
            kind: PrimKind::TRIANGLE,
            back: false,
            stipple: None,
            nvar: 0,
            p: [[0.0; 4]; 3],
            var: [[[0.0; 4]; MAX_VAR]; 3],
        }
    }
}

impl Tile {
    fn boxed() -> Box<Tile> {
        Box::new(Tile {
            colour: [[0.0; 4]; TILE_PX2],
            depth: [0.0; TILE_PX2],
            stencil: [0; TILE_PX2],
            bg_only: false,
        })
    }
}
