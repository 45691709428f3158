//! A quad's primary attributes from its barycentric weights: the varyings each pixel's
//! program reads, as the quad loop writes them (and the depth span path for its last shaded
//! quad, so later programs see the same registers on every path).

// The pixel index `i` and varying index `k` address several parallel arrays at once.
#![allow(clippy::needless_range_loop)]

use sgx_hwdocs::tsp::Interp;

use super::edges::{lerp3, lerp3_scalar};
use crate::job::MAX_VAR;

/// A primitive's varyings at its three (ordered) vertices and the provoking vertex's.
pub(super) struct Vary<'a> {
    pub rhw: [f32; 3],
    pub vars: [&'a [[f32; 4]; MAX_VAR]; 3],
    pub prov: &'a [[f32; 4]; MAX_VAR],
    pub nvar: usize,
    pub interp: &'a [Interp; MAX_VAR],
}

/// Writes varyings `0..nvar` of the quad's four pixels (weights `lam`) into `pa`; returns
/// each pixel's sum of weighted 1/w (the position input's w).
#[inline(always)]
pub(super) fn fill(
    pa: &mut [[[u32; 4]; 16]; 4],
    lam: &[[f32; 3]; 4],
    v: &Vary,
    fast: bool,
) -> [f32; 4] {
    let pv = v.rhw;
    // The four pixels' 1/w sums first, so their divides issue together (one packed divide)
    // instead of each waiting on the last's latency.
    let mut qs = [[0f32; 3]; 4];
    let mut sums = [0f32; 4];
    for i in 0..4 {
        let l = lam[i];
        qs[i] = [l[0] * pv[0], l[1] * pv[1], l[2] * pv[2]];
        sums[i] = qs[i][0] + qs[i][1] + qs[i][2];
    }
    let invs = [1.0 / sums[0], 1.0 / sums[1], 1.0 / sums[2], 1.0 / sums[3]];
    for i in 0..4 {
        let l = lam[i];
        let (q, inv) = (qs[i], invs[i]);
        let w = [q[0] * inv, q[1] * inv, q[2] * inv];
        for k in 0..v.nvar {
            let (a, b, c) = (&v.vars[0][k], &v.vars[1][k], &v.vars[2][k]);
            let dst = &mut pa[i][k];
            match v.interp[k] {
                Interp::PERSPECTIVE if fast => *dst = lerp3(w, a, b, c),
                Interp::LINEAR if fast => *dst = lerp3(l, a, b, c),
                Interp::PERSPECTIVE => *dst = lerp3_scalar(w, a, b, c),
                Interp::LINEAR => *dst = lerp3_scalar(l, a, b, c),
                Interp::FLAT => {
                    for j in 0..4 {
                        dst[j] = v.prov[k][j].to_bits();
                    }
                }
            }
        }
    }
    sums
}
