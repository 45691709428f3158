//! Aliased lines (PrimKind::LINE, MODEL: hwdocs render.json): one record per line, whatever
//! its length, referenced from exactly the tiles its drawn pixels touch; the 3D phase walks
//! the line's runs of pixels in each tile (`crate::line`, `raster/line.rs`).
//!
//! The reference (`Ta::line_runs`, the TA before the one-record line) bins one axis-aligned
//! rectangle, two LINE_RUN triangles, per run of drawn pixels, computing the runs here with
//! its own walk; renders of both must agree byte for byte (`tests/lines.rs`).

use sgx_hwdocs::render::PrimKind;

use super::binner::RecordHead;
use super::stipple::{at, draws};
use super::{Draw, JobErr, Ta, WVert};
use crate::line::diamond::Span;
use crate::line::{width_px, Line, Stipple};

impl Ta<'_> {
    /// Bins the aliased window-space line from `p` to `q` (flat varyings from `q`); the
    /// line stipple applies when `stipple`, counting on from `self.stipple_n`.
    pub(super) fn aliased_line(
        &mut self,
        d: &Draw,
        p: &WVert,
        q: &WVert,
        stipple: bool,
        back: bool,
    ) -> Result<(), JobErr> {
        if self.line_runs {
            return self.aliased_runs(d, p, q, stipple, back);
        }
        let prim = &d.ds.prim;
        let st = stipple.then_some(Stipple {
            start: self.stipple_n,
            factor: prim.line_stipple_factor_m1 + 1,
            pattern: prim.line_stipple_pattern as u16,
        });
        let Some(l) = Line::of([p.p[0], p.p[1]], [q.p[0], q.p[1]], self.line_w, st) else {
            return Ok(());
        };
        // Every pixel of the line counts, drawn or not (the count wraps as a 32-bit one).
        self.stipple_n = self.stipple_n.wrapping_add(l.span.count as u32);
        let mut tiles = std::mem::take(&mut self.line_tiles);
        tiles.clear();
        for r in l.runs() {
            let (x0, y0) = l.xy(r.u.0, r.v.0);
            let (x1, y1) = l.xy(r.u.1 - 1, r.v.1 - 1);
            if let Some(c) = self.bin.clamp(d, (x0, y0, x1, y1)) {
                self.bin.tiles_of(c, &mut tiles);
            }
        }
        tiles.sort_unstable();
        tiles.dedup();
        let head = RecordHead {
            kind: PrimKind::LINE,
            back,
            stipple: st.map(|s| s.start),
        };
        let r = self.bin.add_to(d, head, [p, q, q], &tiles);
        self.line_tiles = tiles;
        r
    }

    /// The reference: two LINE_RUN triangles per run of drawn pixels.
    fn aliased_runs(
        &mut self,
        d: &Draw,
        p: &WVert,
        q: &WVert,
        stipple: bool,
        back: bool,
    ) -> Result<(), JobErr> {
        let w_px = width_px(self.line_w);
        let shift = (w_px - 1) as f32 / 2.0;
        let x_major = (q.p[0] - p.p[0]).abs() >= (q.p[1] - p.p[1]).abs();
        let m = usize::from(x_major);
        let (mut a, mut b) = ([p.p[0], p.p[1]], [q.p[0], q.p[1]]);
        a[m] -= shift;
        b[m] -= shift;
        let Some(s) = Span::of(a, b) else {
            return Ok(());
        };
        let prim = &d.ds.prim;
        let (factor, pattern) = (
            prim.line_stipple_factor_m1 + 1,
            prim.line_stipple_pattern as u16,
        );
        let mut k = 0;
        while k < s.count {
            let on = |n: u32| !stipple || draws(n, factor, pattern);
            if !on(self.stipple_n) {
                self.stipple_n = self.stipple_n.wrapping_add(1);
                k += 1;
                continue;
            }
            let (start, row) = (k, s.minor(k));
            self.stipple_n = self.stipple_n.wrapping_add(1);
            k += 1;
            while k < s.count && s.minor(k) == row && on(self.stipple_n) {
                self.stipple_n = self.stipple_n.wrapping_add(1);
                k += 1;
            }
            let (u0, u1) = (s.major(start), s.major(k - 1));
            let (u0, u1) = (u0.min(u1), u0.max(u1) + 1);
            self.run_rect(d, p, q, &s, (u0, u1), (row, row + w_px), back)?;
        }
        Ok(())
    }

    /// Bins the rectangle of pixels `u.0..u.1` along the major axis, `v.0..v.1` along the
    /// minor one, with the line's varyings at its ends.
    #[allow(clippy::too_many_arguments)]
    fn run_rect(
        &mut self,
        d: &Draw,
        p: &WVert,
        q: &WVert,
        s: &Span,
        u: (i64, i64),
        v: (i64, i64),
        back: bool,
    ) -> Result<(), JobErr> {
        let end = |uu: i64| {
            let mut w = at(d, p, q, s.t_at(uu as f64) as f32);
            for k in (0..d.nvar).filter(|&k| d.flat[k]) {
                w.var[k] = q.var[k];
            }
            w
        };
        let (ea, eb) = (end(u.0), end(u.1));
        let corner = |e: &WVert, uu: i64, vv: i64| {
            let mut w = *e;
            let (x, y) = if s.x_major { (uu, vv) } else { (vv, uu) };
            w.p[0] = x as f32;
            w.p[1] = y as f32;
            w
        };
        let (a0, a1) = (corner(&ea, u.0, v.0), corner(&ea, u.0, v.1));
        let (b0, b1) = (corner(&eb, u.1, v.0), corner(&eb, u.1, v.1));
        self.bin.add(d, PrimKind::LINE_RUN, back, [&a0, &a1, &b0])?;
        self.bin.add(d, PrimKind::LINE_RUN, back, [&a1, &b1, &b0])
    }
}
