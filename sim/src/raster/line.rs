//! LINE records (MODEL: hwdocs render.json `PrimKind`): an aliased line's runs of pixels
//! (`crate::line`) that meet the tile, each shaded as the two triangles of its rectangle,
//! whole (so a run's varyings do not depend on the tile it is cut by).

use sgx_hwdocs::render::PrimKind;
use sgx_hwdocs::tsp::Interp;

use super::{Prim, Raster, Tile, T};
use crate::job::JobErr;
use crate::line::{run_triangles, Line, Stipple};

impl Raster<'_> {
    /// Rasterises the LINE record `pr` into tile (tx, ty).
    pub(super) fn draw_line(
        &mut self,
        pr: &Prim,
        tile: &mut Tile,
        tx: u32,
        ty: u32,
    ) -> Result<(), JobErr> {
        let ctx = self.ctx(pr.state)?;
        let ds = &ctx.ds;
        let st = pr.stipple.map(|start| Stipple {
            start,
            factor: ds.prim.line_stipple_factor_m1 + 1,
            pattern: ds.prim.line_stipple_pattern as u16,
        });
        let (a, b) = ([pr.p[0][0], pr.p[0][1]], [pr.p[1][0], pr.p[1][1]]);
        let Some(l) = Line::of(a, b, ds.raster.line_width, st) else {
            return Ok(());
        };
        let t = i64::from(T);
        let (x0, y0) = (i64::from(tx) * t, i64::from(ty) * t);
        let (u, v) = if l.span.x_major {
            ((x0, x0 + t - 1), (y0, y0 + t - 1))
        } else {
            ((y0, y0 + t - 1), (x0, x0 + t - 1))
        };
        let (ka, kb) = l.pixels_in(u.0, u.1);
        let flat = ctx.interp.map(|i| i == Interp::FLAT);
        let (p, q) = ((pr.p[0], pr.var[0]), (pr.p[1], pr.var[1]));
        for r in l.runs_from(ka, kb) {
            if r.v.1 <= v.0 || r.v.0 > v.1 {
                continue;
            }
            for tri in run_triangles(&l, pr.nvar, &flat, &p, &q, &r) {
                let rp = Prim {
                    state: pr.state,
                    kind: PrimKind::LINE_RUN,
                    back: pr.back,
                    stipple: None,
                    nvar: pr.nvar,
                    p: tri.map(|e| e.0),
                    var: tri.map(|e| e.1),
                };
                self.draw_tri(&rp, tile, tx, ty)?;
            }
        }
        Ok(())
    }
}
