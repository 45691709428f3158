//! An unclipped triangle set up from its window positions first (the fast path): whether it
//! has area, which way it faces, whether it is culled and which pixels of the render box and
//! scissor its bounding box covers are all decided by the positions alone, so the varyings
//! are projected (copied) only for a triangle that is binned. drawoverhead's and `sgx535
//! bench draws`' triangles have no area or cover no pixel centre: they end here. The
//! positions are `setup::window_pos`, the numbers `Ta::project` gives, and the area, facing and
//! rectangle the expressions of `Ta::fan` and `Binner::add`, so the records are the same as
//! the reference's (`Ta::fan` after projecting whole vertices).

use sgx_hwdocs::render::PrimKind;

use super::{poly, CVert, Draw, JobErr, Ta};

impl Ta<'_> {
    /// Bins the unclipped triangle `v` of a draw whose polygons are filled plainly
    /// (`poly::plain`), as `fan` does after projecting it.
    pub(super) fn plain_triangle(&mut self, d: &Draw, v: [&CVert; 3]) -> Result<(), JobErr> {
        let p = v.map(|x| window_pos(d, x));
        let area = poly::signed_area(&p[0], &p[1], &p[2]);
        if area == 0.0 || area.is_nan() {
            return Ok(());
        }
        let (back, culled) = poly::facing(&d.ds.isp, area);
        if culled {
            return Ok(());
        }
        let Some(rect) = self.bin.rect(d, [&p[0], &p[1], &p[2]]) else {
            return Ok(());
        };
        let w = v.map(|x| self.project(d, x));
        self.bin
            .add_in(d, PrimKind::TRIANGLE, back, [&w[0], &w[1], &w[2]], rect)
    }
}

/// The window-space position (x, y, z, 1/w) of `v`: `Ta::project`'s.
pub(super) fn window_pos(d: &Draw, v: &CVert) -> [f32; 4] {
    let inv = 1.0 / v.pos[3];
    let vp = &d.ds.vp;
    [
        v.pos[0] * inv * vp.scale_x + vp.trans_x,
        v.pos[1] * inv * vp.scale_y + vp.trans_y,
        v.pos[2] * inv * vp.scale_z + vp.trans_z,
        inv,
    ]
}
