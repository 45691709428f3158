//! Aliased lines (PrimKind::LINE, MODEL): the pixels of GL's diamond-exit rule
//! ([`diamond::Span`]), widened to RasterState.line_width pixels in the minor direction
//! (GL 2.1 3.4.2.1: the segment moved by -(w - 1)/2 along the minor axis, each pixel replaced
//! by w pixels from it on), stippled pixel by pixel, binned as one axis-aligned rectangle per
//! run of drawn pixels in the same row (column). The rectangles' sides lie on pixel borders,
//! so the rasteriser's top-left rule covers exactly those pixels.

use sgx_hwdocs::render::PrimKind;

use super::diamond::Span;
use super::stipple::{at, draws};
use super::{Draw, JobErr, Ta, WVert};

/// The width of an aliased line in pixels: GL's rounding, at least 1.
pub(super) fn width_px(line_width: f32) -> i64 {
    if line_width.is_finite() {
        // Widths past any target draw as the target; the cast saturates.
        (line_width.round().min(1e6) as i64).max(1)
    } else {
        1
    }
}

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
        self.bin.add(d, PrimKind::LINE, back, [&a0, &a1, &b0])?;
        self.bin.add(d, PrimKind::LINE, back, [&a1, &b1, &b0])
    }
}
