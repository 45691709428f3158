//! GL's diamond-exit rule for aliased lines (GL 2.1 3.4.1, MODEL: hwdocs render.json
//! `PrimKind`). Pixel f is drawn when the segment from a to b meets the open diamond
//! R_f = {|x - x_f| + |y - y_f| < 1/2} around its centre and b does not lie in it (the segment
//! *exits* R_f). GL perturbs the endpoints a hair so that no case is ambiguous; the model
//! moves the whole segment by (-e, -e^2), e infinitesimal: a hair left, then a hair up. An
//! endpoint on a diamond's border is then inside it exactly when it lies right of the centre,
//! and a line through the corner between two pixels draws the upper one of a horizontal line,
//! the left one of a vertical line, and otherwise the one its slope takes it into when moved
//! left.
//!
//! An x-major segment (|dx| >= |dy|) crosses each diamond it meets through the diamond's
//! vertical diagonal, so it draws at most one pixel per column: the TA walks the columns from
//! a's to b's (`Span`) instead of testing pixels, and the slow test below checks that walk
//! against the definition, pixel by pixel.

/// The pixels an aliased width-1 line draws: `count` pixels along the major axis, starting
/// at major coordinate `first` and stepping by `step` (+1 or -1), pixel k at minor
/// coordinate [`Span::minor`]`(k)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Span {
    pub x_major: bool,
    pub first: i64,
    pub step: i64,
    pub count: i64,
    /// Major, minor coordinates of a, and b minus a along both.
    ua: f64,
    va: f64,
    du: f64,
    dv: f64,
}

/// Window coordinates beyond any target (the TA clips lines to the view volume first).
const FAR_PX: f64 = 1e9;

/// Whether window point `p` lies in the open diamond of a pixel of column (row) `c` of the
/// major axis, after the perturbation: `x_major` says which of p's coordinates is the major.
fn in_diamond(pu: f64, pv: f64, c: i64, x_major: bool) -> bool {
    let du = pu - (c as f64 + 0.5);
    // The nearest centre, the one on the left (above) when two are as near.
    let dv = pv - (pv.ceil() - 0.5);
    let s = du.abs() + dv.abs();
    // On the border, the hair to the left decides: inside when right of the centre.
    let right = if x_major { du > 0.0 } else { dv > 0.0 };
    s < 0.5 || (s == 0.5 && right)
}

impl Span {
    /// The span of the segment from `a` to `b` (window x, y), None when it draws nothing.
    pub(crate) fn of(a: [f32; 2], b: [f32; 2]) -> Option<Span> {
        let [ax, ay, bx, by] = [a[0], a[1], b[0], b[1]].map(f64::from);
        if ![ax, ay, bx, by].iter().all(|v| v.abs() < FAR_PX) {
            return None;
        }
        let x_major = (bx - ax).abs() >= (by - ay).abs();
        let (ua, va, ub, vb) = if x_major {
            (ax, ay, bx, by)
        } else {
            (ay, ax, by, bx)
        };
        if ua == ub {
            return None;
        }
        let step = if ub > ua { 1 } else { -1 };
        // The columns of a and b, moved a hair towards smaller coordinates: an endpoint on a
        // pixel border belongs to the pixel before it.
        let (ca, cb) = (ua.ceil() as i64 - 1, ub.ceil() as i64 - 1);
        let (lo, hi) = (ua.min(ub), ua.max(ub));
        // Column c is drawn when the segment crosses its diagonal (the crossing lies in the
        // diamond of the line's pixel there) or a lies in its diamond, and b does not. Moved a
        // hair towards smaller major coordinates, the segment crosses u = xc when
        // lo <= xc < hi.
        let drawn = |c: i64| {
            let xc = c as f64 + 0.5;
            let crosses = lo <= xc && xc < hi;
            (crosses || in_diamond(ua, va, c, x_major)) && !in_diamond(ub, vb, c, x_major)
        };
        // Columns strictly between a's and b's are crossed, and neither endpoint is in them.
        let first = if drawn(ca) { ca } else { ca + step };
        let last = if drawn(cb) { cb } else { cb - step };
        let count = (last - first) * step + 1;
        if count <= 0 {
            return None;
        }
        Some(Span {
            x_major,
            first,
            step,
            count,
            ua,
            va,
            du: ub - ua,
            dv: vb - va,
        })
    }

    /// Major coordinate of pixel k.
    pub(crate) fn major(&self, k: i64) -> i64 {
        self.first + k * self.step
    }

    /// Minor coordinate of pixel k: the pixel whose diamond the line crosses in that column.
    pub(crate) fn minor(&self, k: i64) -> i64 {
        let xc = self.major(k) as f64 + 0.5;
        // Multiplied before divided: from f32 inputs the product is exact and the quotient
        // correctly rounded, so a line through a diamond's corner lands on it exactly.
        let v = self.va + (xc - self.ua) * self.dv / self.du;
        let f = v.floor();
        if v != f {
            return f as i64;
        }
        // On the border between pixels v - 1 and v: moved a hair left, an x-major line of
        // positive slope (down to the right) lies below it, any other one above (left).
        let down = self.x_major && (self.dv > 0.0) == (self.du > 0.0) && self.dv != 0.0;
        f as i64 - i64::from(!down)
    }

    /// The fraction of the segment from a to b at major coordinate `u`.
    pub(crate) fn t_at(&self, u: f64) -> f64 {
        (u - self.ua) / self.du
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The perturbation of the reference, (-EPS, -EPS^2): EPS far below any distance between
    /// two points of the 1/8 grids the tests draw on, EPS^2 far above f64 rounding at their
    /// sizes.
    const EPS: f64 = 1.0 / (1u64 << 20) as f64;

    /// The slow reference: GL's definition tested at every pixel near the segment, the
    /// segment moved by (-EPS, -EPS^2). |x - xf| + |y - yf| is convex and piecewise linear
    /// along the segment: its minimum is at an end or where x = xf or y = yf.
    fn reference(a: [f64; 2], b: [f64; 2]) -> BTreeSet<(i64, i64)> {
        let (mut a, mut b) = (a, b);
        for p in [&mut a, &mut b] {
            p[0] -= EPS;
            p[1] -= EPS * EPS;
        }
        let f = |t: f64, xf: f64, yf: f64| {
            let x = a[0] + (b[0] - a[0]) * t;
            let y = a[1] + (b[1] - a[1]) * t;
            (x - xf).abs() + (y - yf).abs()
        };
        let mut out = BTreeSet::new();
        let (x0, x1) = (a[0].min(b[0]).floor() as i64 - 2, a[0].max(b[0]) as i64 + 2);
        let (y0, y1) = (a[1].min(b[1]).floor() as i64 - 2, a[1].max(b[1]) as i64 + 2);
        for py in y0..=y1 {
            for px in x0..=x1 {
                let (xf, yf) = (px as f64 + 0.5, py as f64 + 0.5);
                let mut ts = vec![0.0, 1.0];
                if b[0] != a[0] {
                    ts.push((xf - a[0]) / (b[0] - a[0]));
                }
                if b[1] != a[1] {
                    ts.push((yf - a[1]) / (b[1] - a[1]));
                }
                let meets = ts
                    .iter()
                    .filter(|t| (0.0..=1.0).contains(*t))
                    .any(|&t| f(t, xf, yf) < 0.5);
                if meets && f(1.0, xf, yf) >= 0.5 {
                    out.insert((px, py));
                }
            }
        }
        out
    }

    fn fast(a: [f64; 2], b: [f64; 2]) -> BTreeSet<(i64, i64)> {
        let mut out = BTreeSet::new();
        if let Some(s) = Span::of(a.map(|v| v as f32), b.map(|v| v as f32)) {
            for k in 0..s.count {
                let (u, v) = (s.major(k), s.minor(k));
                out.insert(if s.x_major { (u, v) } else { (v, u) });
            }
        }
        out
    }

    fn check(a: [f64; 2], b: [f64; 2]) {
        assert_eq!(fast(a, b), reference(a, b), "segment {a:?} -> {b:?}");
    }

    #[test]
    fn endpoints_on_pixel_centres_draw_the_first_pixel_and_not_the_last() {
        // Horizontal, vertical and diagonal, each way: piglit's linestipple lines.
        for (a, b) in [
            ([0.5, 0.5], [24.5, 0.5]),
            ([24.5, 6.5], [24.5, 30.5]),
            ([46.5, 20.5], [26.5, 20.5]),
            ([26.5, 20.5], [26.5, 0.5]),
            ([3.5, 3.5], [10.5, 10.5]),
            ([10.5, 3.5], [3.5, 10.5]),
        ] {
            check(a, b);
            let s = fast(a, b);
            assert!(s.contains(&(a[0] as i64, a[1] as i64)), "{a:?}");
            assert!(!s.contains(&(b[0] as i64, b[1] as i64)), "{b:?}");
        }
        // A row of 24 pixels from a's to the one before b's.
        let s = fast([0.5, 0.5], [24.5, 0.5]);
        assert_eq!(s, (0..24).map(|x| (x, 0)).collect());
        let s = fast([24.5, 0.5], [0.5, 0.5]);
        assert_eq!(s, (1..25).map(|x| (x, 0)).collect());
    }

    #[test]
    fn endpoints_on_pixel_edges_and_corners() {
        // Along a row of centres from edge to edge: moved a hair left, a starts in the
        // diamond of pixel 1 and b ends in pixel 5's.
        assert_eq!(
            fast([2.0, 3.5], [6.0, 3.5]),
            (1..5).map(|x| (x, 3)).collect()
        );
        // Along a pixel border: the perturbation draws the row above (smaller y), the column
        // on the left.
        assert_eq!(
            fast([2.0, 3.0], [6.0, 3.0]),
            (2..6).map(|x| (x, 2)).collect()
        );
        assert_eq!(
            fast([5.0, 1.0], [5.0, 4.0]),
            (1..4).map(|y| (4, y)).collect()
        );
        // The outline of x 2.25..9.25, y 3.25..12.75 either way round: every edge from corner
        // to corner, the corners on diamond borders all left out of the diamonds.
        let c = [[2.25, 3.25], [9.25, 3.25], [9.25, 12.75], [2.25, 12.75]];
        for k in 0..4 {
            let (a, b) = (c[k], c[(k + 1) % 4]);
            let want: BTreeSet<_> = if a[1] == b[1] {
                (2..9).map(|x| (x, a[1] as i64)).collect()
            } else {
                (3..13).map(|y| (a[0] as i64, y)).collect()
            };
            assert_eq!(fast(a, b), want, "{a:?} -> {b:?}");
            assert_eq!(fast(b, a), want, "{b:?} -> {a:?}");
            check(a, b);
            check(b, a);
        }
        for a in [
            [2.0, 3.0],
            [2.5, 3.0],
            [2.0, 3.5],
            [2.25, 3.25],
            [2.75, 3.25],
        ] {
            for d in [
                [4.0, 0.0],
                [4.0, 1.0],
                [4.0, 4.0],
                [1.0, 4.0],
                [0.0, 3.0],
                [3.0, 2.0],
            ] {
                for sx in [1.0, -1.0] {
                    for sy in [1.0, -1.0] {
                        check(a, [a[0] + sx * d[0], a[1] + sy * d[1]]);
                    }
                }
            }
        }
    }

    #[test]
    fn every_octant_on_an_eighth_pixel_grid_matches_the_definition() {
        // A fixed LCG: every run tests the same segments.
        let mut s = 0x2545_f491_4f6c_dd1du64; // LCG seed, not a hardware number
        let mut next = |n: u64| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005) // Knuth's MMIX LCG, not hardware
                .wrapping_add(1_442_695_040_888_963_407);
            (s >> 33) % n
        };
        for _ in 0..4000 {
            let mut p = || next(8 * 40) as f64 / 8.0;
            let a = [p(), p()];
            let len = if next(4) == 0 { 3 } else { 40 };
            let mut d = || (next(16 * len) as f64 - 8.0 * len as f64) / 8.0;
            let b = [a[0] + d(), a[1] + d()];
            check(a, b);
        }
    }

    #[test]
    fn degenerate_and_far_segments_draw_nothing() {
        assert_eq!(Span::of([3.5, 3.5], [3.5, 3.5]), None);
        assert_eq!(Span::of([f32::NAN, 0.0], [3.5, 3.5]), None);
        assert_eq!(Span::of([0.0, 0.0], [f32::INFINITY, 3.5]), None);
        // Inside one diamond: enters it and never exits.
        assert_eq!(Span::of([3.4, 3.5], [3.6, 3.5]), None);
        // Leaves a diamond it started in: one pixel.
        assert_eq!(fast([3.4, 3.5], [4.1, 3.5]), BTreeSet::from([(3, 3)]));
    }
}
