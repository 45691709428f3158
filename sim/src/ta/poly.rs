//! Polygon setup beyond plain filled triangles (hwdocs render.json `PolyState`, MODEL): the
//! fill mode of each facing after culling (glPolygonMode), boundary edges (edge flags, and
//! the inner edges of quads and polygons), and the polygon offset added to every window z of
//! a polygon. The TA is where a polygon's facing, its vertices and its depth slope are all
//! known, so the model does it here, as GL 2.1 3.5.4-3.5.6 describes it.

use sgx_hwdocs::isp::{CullMode, IspState};
use sgx_hwdocs::render::{FillMode, PolyState, PrimKind};
use sgx_hwdocs::ta_stream::Topology;

use super::{Draw, Ta, WVert};
use crate::job::JobErr;

/// Plain filled triangles, no offset: the TA's ordinary path.
pub(super) fn plain(p: &PolyState) -> bool {
    p.fill_front == FillMode::FILL && p.fill_back == FillMode::FILL && !p.offset_fill
}

/// The triangles of `n` vertices of quads, a quad strip or a polygon: vertex indices, and
/// whether the edge from each vertex to the next one of its triangle is an outer edge of the
/// quad or polygon (the inner diagonals are not). Each triangle's last vertex provokes: a
/// quad's last, a polygon's first (GL 2.1 2.14.7).
pub(super) fn triangles(topology: Topology, n: usize) -> Vec<([usize; 3], [bool; 3])> {
    let mut out = Vec::new();
    match topology {
        Topology::QUADS => {
            for q in 0..n / 4 {
                let (a, b, c, d) = (4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3);
                out.push(([a, b, d], [true, false, true]));
                out.push(([b, c, d], [true, true, false]));
            }
        }
        Topology::QUAD_STRIP => {
            for q in 0..n.saturating_sub(2) / 2 {
                // Quad q in polygon order: (2q, 2q+1, 2q+3, 2q+2).
                let (a, b, c, d) = (2 * q, 2 * q + 1, 2 * q + 3, 2 * q + 2);
                out.push(([a, b, c], [true, true, false]));
                out.push(([d, a, c], [true, false, true]));
            }
        }
        Topology::POLYGON => {
            for i in 0..n.saturating_sub(2) {
                // (v[i+1], v[i+2], v[0]) winds as (v[0], v[i+1], v[i+2]).
                out.push(([i + 1, i + 2, 0], [true, i + 2 == n - 1, i == 0]));
            }
        }
        _ => {}
    }
    out
}

/// Whether a polygon of signed window area `area` (twice the area, y down) faces back, and
/// whether the ISP state culls it.
pub(super) fn facing(isp: &IspState, area: f32) -> (bool, bool) {
    // Counter-clockwise on a y-down screen has a negative area here.
    let back = if isp.front_ccw {
        area > 0.0
    } else {
        area < 0.0
    };
    let culled = match isp.cull {
        CullMode::NONE => false,
        CullMode::FRONT => !back,
        CullMode::BACK => back,
        CullMode::FRONT_AND_BACK => true,
    };
    (back, culled)
}

/// Twice the signed area of a window-space triangle.
fn area(a: &WVert, b: &WVert, c: &WVert) -> f32 {
    signed_area(&a.p, &b.p, &c.p)
}

/// Twice the signed area of the triangle of window positions `a`, `b`, `c` (x, y first).
pub(super) fn signed_area(a: &[f32; 4], b: &[f32; 4], c: &[f32; 4]) -> f32 {
    (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
}

/// The polygon offset of a convex polygon: units + scale * max(|dz/dx|, |dz/dy|) (the
/// smallest slope GL allows, as Mesa's draw module takes it), bounded by the clamp.
fn offset(p: &PolyState, w: &[WVert]) -> f32 {
    // The slope from the polygon's largest fan triangle: the best conditioned.
    let mut best = (0.0f32, 0.0f32, 0.0f32);
    for i in 1..w.len() - 1 {
        let (a, b, c) = (&w[0], &w[i], &w[i + 1]);
        let ar = area(a, b, c);
        if ar.abs() > best.0.abs() {
            let (dzb, dzc) = (b.p[2] - a.p[2], c.p[2] - a.p[2]);
            let dzdx = (dzb * (c.p[1] - a.p[1]) - dzc * (b.p[1] - a.p[1])) / ar;
            let dzdy = (dzc * (b.p[0] - a.p[0]) - dzb * (c.p[0] - a.p[0])) / ar;
            best = (ar, dzdx, dzdy);
        }
    }
    let slope = best.1.abs().max(best.2.abs());
    let mut o = p.offset_units + p.offset_scale * slope;
    if p.offset_clamp > 0.0 {
        o = o.min(p.offset_clamp);
    } else if p.offset_clamp < 0.0 {
        o = o.max(p.offset_clamp);
    }
    if o.is_finite() {
        o
    } else {
        0.0
    }
}

impl Ta<'_> {
    /// Culls a convex polygon of window-space vertices by its facing, then draws it as its
    /// facing's fill mode says, offset when that mode's offset is on.
    pub(super) fn polygon(&mut self, d: &Draw, w: &[WVert]) -> Result<(), JobErr> {
        let p = &d.ds.poly;
        let total: f32 = (1..w.len() - 1)
            .map(|i| area(&w[0], &w[i], &w[i + 1]))
            .sum();
        if total == 0.0 || total.is_nan() {
            return Ok(());
        }
        let (back, culled) = facing(&d.ds.isp, total);
        if culled {
            return Ok(());
        }
        let mode = if back { p.fill_back } else { p.fill_front };
        let offset_on = match mode {
            FillMode::FILL => p.offset_fill,
            FillMode::LINE => p.offset_line,
            FillMode::POINT => p.offset_point,
        };
        let mut v = w.to_vec();
        if offset_on {
            let dz = offset(p, w);
            for x in v.iter_mut() {
                x.p[2] += dz;
            }
        }
        match mode {
            FillMode::FILL => {
                for i in 1..v.len() - 1 {
                    let (a, b, c) = (&v[0], &v[i], &v[i + 1]);
                    let ar = area(a, b, c);
                    if ar != 0.0 && !ar.is_nan() {
                        self.bin.add(d, PrimKind::TRIANGLE, back, [a, b, c])?;
                    }
                }
            }
            FillMode::LINE | FillMode::POINT => {
                // Lines and points take the polygon's flat values: its provoking vertex is
                // the last of the triangle it came from (all of a clipped polygon's agree).
                let prov = v[v.len() - 1].var;
                for x in v.iter_mut() {
                    for (k, p) in prov.iter().enumerate().take(d.nvar) {
                        if d.flat[k] {
                            x.var[k] = *p;
                        }
                    }
                }
                let n = v.len();
                for i in 0..n {
                    if !v[i].edge {
                        continue;
                    }
                    if mode == FillMode::LINE {
                        self.wide_line(d, back, &v[i], &v[(i + 1) % n])?;
                    } else {
                        self.square(d, back, &v[i])?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A polygon edge as an aliased line of RasterState.line_width pixels (`Ta::line`'s
    /// pixels), from vertices already clipped and in window space; not stippled.
    fn wide_line(&mut self, d: &Draw, back: bool, p: &WVert, q: &WVert) -> Result<(), JobErr> {
        self.aliased_line(d, p, q, false, back)
    }

    /// A polygon vertex as a point: the square the TA makes of a point (`Ta::point`).
    fn square(&mut self, d: &Draw, back: bool, c: &WVert) -> Result<(), JobErr> {
        let size = if c.psize.is_nan() {
            1.0
        } else {
            c.psize.clamp(1.0, 2048.0)
        };
        let h = size / 2.0;
        let corner = |dx: f32, dy: f32| {
            let mut w = *c;
            w.p[0] += dx;
            w.p[1] += dy;
            w
        };
        let (tl, tr, bl, br) = (corner(-h, -h), corner(h, -h), corner(-h, h), corner(h, h));
        self.bin.add(d, PrimKind::POINT, back, [&tl, &tr, &bl])?;
        self.bin.add(d, PrimKind::POINT, back, [&tr, &br, &bl])
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use sgx_hwdocs::isp::CompareFunc;
    use sgx_hwdocs::render::AttrType;

    use super::*;
    use crate::kit::*;
    use crate::JobStatus;

    const W: u32 = 16;

    fn fs() -> Vec<u32> {
        words(&[emitpix(sa(0)), end()])
    }

    /// A draw of window-space (x, y, z) vertices, colour `c`, with one float edge flag per
    /// vertex in attribute 2 (read through vertex output 2 when `flags`).
    fn draw(topo: Topology, v: &[(f32, f32, f32, f32)], c: [f32; 4], flags: bool) -> DrawDesc {
        let w = W as f32;
        let verts: Vec<_> = v
            .iter()
            .map(|&(x, y, z, _)| (clip_xy(x, y, w, w, z), [0.0; 4]))
            .collect();
        let mut d = DrawDesc::new(topo, &verts, fs(), viewport(w, w));
        // Window z = clip z (the viewport maps [0, 1] to [0.5, 1] otherwise).
        d.vp.scale_z = 1.0;
        d.vp.trans_z = 0.0;
        d.fs_consts = vec![fv(c)];
        let e: Vec<u8> = v.iter().flat_map(|t| t.3.to_le_bytes()).collect();
        d.attrs.push((AttrType::FLOAT32, 1, 4, e));
        if flags {
            d.poly.edge_flag_output = 2;
        }
        d
    }

    fn render(draws: &[DrawDesc]) -> Vec<[u8; 4]> {
        let mut s = Scene::new();
        let (va, m): (u32, Arc<Mem>) = s.alloc((W * W * 4) as usize);
        let rd = RenderDesc::linear(va, W, W, W * 4);
        assert_eq!(s.render(&rd, draws).status, JobStatus::Done);
        let b = m.bytes();
        (0..(W * W) as usize)
            .map(|i| [b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
            .collect()
    }

    /// The reference: `set` pixels (x, y) in `c` (B8G8R8A8 bytes), the rest clear.
    fn image(set: impl Fn(u32, u32) -> bool, c: [u8; 4]) -> Vec<[u8; 4]> {
        (0..W * W)
            .map(|i| if set(i % W, i / W) { c } else { [0; 4] })
            .collect()
    }

    const WHITE: [f32; 4] = [1.0; 4];

    /// The rectangle x 2.25..9.25, y 3.25..7.25: no pixel centre lies on the border of a
    /// one-pixel line along its edges or of a point at its corners.
    fn rect(clockwise: bool, flags: [f32; 4]) -> Vec<(f32, f32, f32, f32)> {
        let mut c = [(2.25, 3.25), (9.25, 3.25), (9.25, 7.25), (2.25, 7.25)];
        if clockwise {
            c.reverse();
        }
        c.iter()
            .zip(flags)
            .map(|(&(x, y), f)| (x, y, 0.5, f))
            .collect()
    }

    fn outline(x: u32, y: u32) -> bool {
        ((y == 3 || y == 7) && (2..=8).contains(&x)) || ((x == 2 || x == 9) && (3..=6).contains(&y))
    }

    fn corners(x: u32, y: u32) -> bool {
        (x == 2 || x == 9) && (y == 3 || y == 7)
    }

    #[test]
    fn quads_and_polygons_decompose_with_inner_edges_off_and_the_right_provoking_vertex() {
        assert_eq!(
            triangles(Topology::QUADS, 9),
            vec![
                ([0, 1, 3], [true, false, true]),
                ([1, 2, 3], [true, true, false]),
                ([4, 5, 7], [true, false, true]),
                ([5, 6, 7], [true, true, false]),
            ]
        );
        assert_eq!(
            triangles(Topology::QUAD_STRIP, 5),
            vec![
                ([0, 1, 3], [true, true, false]),
                ([2, 0, 3], [true, false, true])
            ]
        );
        assert_eq!(
            triangles(Topology::POLYGON, 5),
            vec![
                ([1, 2, 0], [true, false, true]),
                ([2, 3, 0], [true, false, false]),
                ([3, 4, 0], [true, true, false]),
            ]
        );
        assert!(triangles(Topology::POLYGON, 2).is_empty());
        assert!(triangles(Topology::TRIANGLES, 6).is_empty());
    }

    /// glPolygonMode(FRONT, LINE), (BACK, POINT): the front quad is outlined without its
    /// diagonal, the back one is four points; FILL of both is the whole rectangle.
    #[test]
    fn fill_mode_per_facing_outlines_and_dots_quads() {
        let white = [255u8; 4];
        for (clockwise, want) in [
            (true, image(outline, white)),
            (false, image(corners, white)),
        ] {
            let mut d = draw(Topology::QUADS, &rect(clockwise, [1.0; 4]), WHITE, false);
            d.poly.fill_front = FillMode::LINE;
            d.poly.fill_back = FillMode::POINT;
            assert_eq!(render(&[d]), want, "clockwise {clockwise}");
        }
        let filled = image(|x, y| (2..=8).contains(&x) && (3..=6).contains(&y), white);
        for topo in [Topology::QUADS, Topology::POLYGON] {
            let d = draw(topo, &rect(false, [1.0; 4]), WHITE, false);
            assert_eq!(render(&[d]), filled, "{topo:?}");
        }
        // Culling comes first: a culled face draws nothing in any mode.
        let mut d = draw(Topology::QUADS, &rect(true, [1.0; 4]), WHITE, false);
        d.poly.fill_front = FillMode::LINE;
        d.isp.cull = CullMode::FRONT;
        assert_eq!(render(&[d]), image(|_, _| false, white));
    }

    /// Edge flags from a vertex output: flags (1, 0, 1, 0) keep the horizontal edges only, as
    /// piglit's gl-1.0-edgeflag draws them; as a polygon and as two triangles alike.
    #[test]
    fn edge_flags_drop_edges_and_points() {
        let white = [255u8; 4];
        let rows = image(|x, y| (y == 3 || y == 7) && (2..=8).contains(&x), white);
        let r = rect(true, [1.0, 0.0, 1.0, 0.0]);
        for topo in [Topology::POLYGON, Topology::QUADS] {
            let mut d = draw(topo, &r, WHITE, true);
            d.poly.fill_front = FillMode::LINE;
            d.poly.fill_back = FillMode::LINE;
            assert_eq!(render(&[d]), rows, "{topo:?}");
        }
        // Two triangles whose diagonal's flags are 0.
        let t = [r[0], r[1], r[3], r[1], r[2], r[3]];
        let t: Vec<_> = t
            .iter()
            .zip([1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
            .map(|(&(x, y, z, _), f)| (x, y, z, f))
            .collect();
        let mut d = draw(Topology::TRIANGLES, &t, WHITE, true);
        d.poly.fill_front = FillMode::LINE;
        d.poly.fill_back = FillMode::LINE;
        let bottom = image(|x, y| y == 3 && (2..=8).contains(&x), white);
        let top = image(|x, y| y == 7 && (2..=8).contains(&x), white);
        let both: Vec<_> = bottom
            .iter()
            .zip(&top)
            .map(|(a, b)| std::array::from_fn(|i| a[i] | b[i]))
            .collect();
        assert_eq!(render(&[d]), both);
        // POINT: only the vertices whose flag is set.
        let mut d = draw(Topology::QUADS, &r, WHITE, true);
        d.poly.fill_back = FillMode::POINT;
        d.poly.fill_front = FillMode::POINT;
        let pts = image(|x, y| (x, y) == (2, 7) || (x, y) == (9, 3), white);
        assert_eq!(render(&[d]), pts);
    }

    /// The full-target square at window depth z(x) = z0 + slope * x, colour `c`, depth-tested
    /// LESS and written.
    fn sloped(z0: f32, slope: f32, c: [f32; 4]) -> DrawDesc {
        let w = W as f32;
        let v = [(0.0, 0.0), (w, 0.0), (w, w), (0.0, w)].map(|(x, y)| (x, y, z0 + slope * x, 1.0));
        sloped_quad(&v, c)
    }

    fn sloped_quad(v: &[(f32, f32, f32, f32)], c: [f32; 4]) -> DrawDesc {
        let mut d = draw(Topology::QUADS, v, c, false);
        d.isp.depth_test = true;
        d.isp.depth_write = true;
        d.isp.depth_func = CompareFunc::LESS;
        d
    }

    /// Offset = units + scale * max(|dz/dx|, |dz/dy|), clamped: a second copy of a sloped
    /// square 0.015 behind the first wins the depth test exactly when its offset brings it
    /// in front.
    #[test]
    fn polygon_offset_units_slope_and_clamp() {
        const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
        const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
        let green = image(|_, _| true, [0, 255, 0, 255]);
        let red = image(|_, _| true, [0, 0, 255, 255]);
        let run = |units: f32, scale: f32, clamp: f32, mode: FillMode| {
            let mut second = sloped(0.2 + 0.015, 0.01, RED);
            second.poly.fill_front = mode;
            second.poly.fill_back = mode;
            second.poly.offset_fill = true;
            second.poly.offset_units = units;
            second.poly.offset_scale = scale;
            second.poly.offset_clamp = clamp;
            render(&[sloped(0.2, 0.01, GREEN), second])
        };
        // Slope 0.01: scale -2 is 0.02 in front, -1 only 0.01 (still 0.005 behind).
        assert_eq!(run(0.0, -2.0, 0.0, FillMode::FILL), red);
        assert_eq!(run(0.0, -1.0, 0.0, FillMode::FILL), green);
        // Units alone.
        assert_eq!(run(-0.02, 0.0, 0.0, FillMode::FILL), red);
        assert_eq!(run(-0.01, 0.0, 0.0, FillMode::FILL), green);
        // A clamp of -0.01 bounds the -0.02.
        assert_eq!(run(0.0, -2.0, -0.01, FillMode::FILL), green);
        assert_eq!(run(0.0, -2.0, -0.03, FillMode::FILL), red);
        // offset_fill does not apply to a polygon drawn as lines (offset_line does).
        let mut lines = run(0.0, -2.0, 0.0, FillMode::LINE);
        assert_eq!(lines, green);
        // The rectangle's outline, in the plane of the square 0.015 behind it, slope offset
        // by -0.02: red over green.
        let v: Vec<_> = rect(false, [1.0; 4])
            .iter()
            .map(|&(x, y, _, f)| (x, y, 0.2 + 0.015 + 0.01 * x, f))
            .collect();
        let mut second = sloped_quad(&v, RED);
        second.poly.fill_front = FillMode::LINE;
        second.poly.fill_back = FillMode::LINE;
        second.poly.offset_line = true;
        second.poly.offset_scale = -2.0;
        lines = render(&[sloped(0.2, 0.01, GREEN), second]);
        let want: Vec<_> = (0..W * W)
            .map(|i| {
                if outline(i % W, i / W) {
                    [0, 0, 255, 255]
                } else {
                    [0, 255, 0, 255]
                }
            })
            .collect();
        assert_eq!(lines, want);
    }
}
