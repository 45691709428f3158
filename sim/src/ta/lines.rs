//! Lines: clipping against the guarded view volume, then aliased (`aliased.rs`), smooth, or
//! stippled smooth lines.

use sgx_hwdocs::render::PrimKind;

use super::{lerp, stipple, CVert, Draw, Ta, WVert};
use crate::coverage::GROW_PX;
use crate::job::JobErr;

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

impl Ta<'_> {
    pub(super) fn line(&mut self, d: &Draw, a: &CVert, b: &CVert) -> Result<(), JobErr> {
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
    pub(super) fn smooth_line(&mut self, d: &Draw, p: &WVert, q: &WVert) -> Result<(), JobErr> {
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
}
