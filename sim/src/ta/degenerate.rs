//! A triangle of no area in window space, found before its vertices are projected whole
//! (the fast path): drawoverhead's and `sgx535 bench draws`' triangles are such, and
//! projecting a vertex copies its varyings. `fan` culls the same triangles (area 0 or NaN)
//! after projecting; the positions here are computed as `Ta::project` computes them, so
//! the area is the same number.

use super::{CVert, Draw};

/// Whether the unclipped triangle `v` has an area `fan` culls (0 or NaN).
pub(super) fn no_area(d: &Draw, v: [&CVert; 3]) -> bool {
    let vp = &d.ds.vp;
    let xy = |c: &CVert| {
        let inv = 1.0 / c.pos[3];
        (
            c.pos[0] * inv * vp.scale_x + vp.trans_x,
            c.pos[1] * inv * vp.scale_y + vp.trans_y,
        )
    };
    let (a, b, c) = (xy(v[0]), xy(v[1]), xy(v[2]));
    let area = (b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1);
    area == 0.0 || area.is_nan()
}
