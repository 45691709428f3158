//! GL's first-vertex convention (PrimState.flat_first, MODEL). The set-up reads flat
//! varyings from a primitive's last vertex (the triangle record's vertex 2, a line's end),
//! so under the first-vertex rule the TA copies the provoking vertex's flat varyings into
//! the primitive's other vertices before clipping: every piece of a clipped primitive then
//! carries them.

use super::{CVert, Draw, JobErr, Ta};

impl Draw {
    /// Whether flat varyings come from a vertex other than the last.
    fn flat_first(&self) -> bool {
        self.ds.prim.flat_first && self.flat[..self.nvar].iter().any(|&f| f)
    }

    /// `v` with every vertex's flat varyings taken from `v[pv]`.
    fn provoked<const N: usize>(&self, v: [&CVert; N], pv: usize) -> [CVert; N] {
        let mut out = v.map(|x| *x);
        for o in out.iter_mut() {
            for k in (0..self.nvar).filter(|&k| self.flat[k]) {
                o.var[k] = v[pv].var[k];
            }
        }
        out
    }
}

impl Ta<'_> {
    /// A triangle whose first-convention provoking vertex is `v[first]`.
    pub(super) fn tri(&mut self, d: &Draw, v: [&CVert; 3], first: usize) -> Result<(), JobErr> {
        if !d.flat_first() {
            return self.triangle(d, v);
        }
        let p = d.provoked(v, first);
        self.triangle(d, [&p[0], &p[1], &p[2]])
    }

    /// A line segment from `a` to `b`; `a` provokes under the first-vertex rule.
    pub(super) fn seg(&mut self, d: &Draw, a: &CVert, b: &CVert) -> Result<(), JobErr> {
        if !d.flat_first() {
            return self.line(d, a, b);
        }
        let [a, b] = d.provoked([a, b], 0);
        self.line(d, &a, &b)
    }
}
