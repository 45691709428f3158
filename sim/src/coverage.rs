//! Smooth-line coverage (PrimKind::SMOOTH_LINE, MODEL: hwdocs render.json): the TA bins an
//! antialiased line's rectangle grown by [`GROW_PX`] on every side, so every pixel the line's
//! own rectangle touches has its centre inside; the 3D phase recovers the line's rectangle
//! from a triangle's vertices and weighs each pixel by the area of its square inside it
//! (GL 2.1 3.4.2).

/// How far the binned rectangle of a smooth line reaches past the line's own, on every side:
/// more than half a pixel's diagonal, so a pixel the line touches has its centre inside.
/// The model's convention, not a hardware number.
pub(crate) const GROW_PX: f32 = 1.0;

/// A line's rectangle: a corner and its two sides (perpendicular), in window pixels.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rect {
    o: [f64; 2],
    /// Unit vectors along the two sides.
    u: [[f64; 2]; 2],
    /// The sides' lengths.
    len: [f64; 2],
}

impl Rect {
    /// The line's rectangle of a SMOOTH_LINE triangle: `v[0]` the grown rectangle's corner,
    /// `v[1]` and `v[2]` its neighbours. None when the triangle is degenerate or the line has
    /// no area.
    pub(crate) fn of_triangle(v: [[f32; 2]; 3]) -> Option<Rect> {
        let g = f64::from(GROW_PX);
        let v = v.map(|p| p.map(f64::from));
        let mut u = [[0.0; 2]; 2];
        let mut len = [0.0; 2];
        for k in 0..2 {
            let e = [v[k + 1][0] - v[0][0], v[k + 1][1] - v[0][1]];
            let l = (e[0] * e[0] + e[1] * e[1]).sqrt();
            if l.is_nan() || l <= 2.0 * g || !l.is_finite() {
                return None;
            }
            u[k] = [e[0] / l, e[1] / l];
            len[k] = l - 2.0 * g;
        }
        let o = [
            v[0][0] + g * (u[0][0] + u[1][0]),
            v[0][1] + g * (u[0][1] + u[1][1]),
        ];
        Some(Rect { o, u, len })
    }

    /// Whether window point (x, y) lies in the rectangle.
    #[cfg(test)]
    fn contains(&self, x: f64, y: f64) -> bool {
        (0..2).all(|k| {
            let s = (x - self.o[0]) * self.u[k][0] + (y - self.o[1]) * self.u[k][1];
            (0.0..=self.len[k]).contains(&s)
        })
    }

    /// The area of pixel (px, py)'s square inside the rectangle, in [0, 1]: the square
    /// clipped by the rectangle's four half-planes (Sutherland-Hodgman), then the shoelace.
    pub(crate) fn coverage(&self, px: i64, py: i64) -> f32 {
        let (x0, y0) = (px as f64, py as f64);
        let mut poly = vec![
            [x0, y0],
            [x0 + 1.0, y0],
            [x0 + 1.0, y0 + 1.0],
            [x0, y0 + 1.0],
        ];
        for k in 0..2 {
            for (sign, off) in [(1.0, 0.0), (-1.0, self.len[k])] {
                // Keep points where sign * s + off >= 0, s the position along side k.
                let f = |p: &[f64; 2]| {
                    sign * ((p[0] - self.o[0]) * self.u[k][0] + (p[1] - self.o[1]) * self.u[k][1])
                        + off
                };
                let mut next = Vec::with_capacity(poly.len() + 1);
                for i in 0..poly.len() {
                    let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
                    let (fa, fb) = (f(&a), f(&b));
                    if fa >= 0.0 {
                        next.push(a);
                    }
                    if (fa >= 0.0) != (fb >= 0.0) {
                        let t = fa / (fa - fb);
                        next.push([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]);
                    }
                }
                poly = next;
                if poly.len() < 3 {
                    return 0.0;
                }
            }
        }
        let mut area2 = 0.0;
        for i in 0..poly.len() {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            area2 += a[0] * b[1] - b[0] * a[1];
        }
        ((area2.abs() / 2.0) as f32).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grown rectangle's triangle of a line from `a` to `b` of width `w`, as the TA bins it.
    fn tri(a: [f32; 2], b: [f32; 2], w: f32) -> [[f32; 2]; 3] {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let l = (dx * dx + dy * dy).sqrt();
        let (ux, uy) = (dx / l, dy / l);
        let h = w / 2.0 + GROW_PX;
        let (nx, ny) = (-uy * h, ux * h);
        let p = [a[0] - ux * GROW_PX, a[1] - uy * GROW_PX];
        let q = [b[0] + ux * GROW_PX, b[1] + uy * GROW_PX];
        [
            [p[0] + nx, p[1] + ny],
            [p[0] - nx, p[1] - ny],
            [q[0] + nx, q[1] + ny],
        ]
    }

    /// The slow reference: the fraction of a 128 x 128 grid of sample points of the pixel
    /// inside the rectangle.
    fn sampled(r: &Rect, px: i64, py: i64) -> f32 {
        const N: i64 = 128; // samples per side: a test resolution, not a hardware number
        let mut n = 0;
        for j in 0..N {
            for i in 0..N {
                let x = px as f64 + (i as f64 + 0.5) / N as f64;
                let y = py as f64 + (j as f64 + 0.5) / N as f64;
                n += i64::from(r.contains(x, y));
            }
        }
        n as f32 / (N * N) as f32
    }

    #[test]
    fn coverage_is_the_area_of_the_pixel_inside_the_line() {
        let lines = [
            ([2.0, 3.5], [12.0, 3.5], 1.0),
            ([2.3, 3.2], [12.7, 6.9], 1.0),
            ([2.3, 9.2], [5.1, 1.3], 1.0),
            ([4.0, 4.0], [9.0, 9.0], 2.5),
            ([9.5, 2.25], [3.5, 2.75], 0.5),
        ];
        for (a, b, w) in lines {
            let r = Rect::of_triangle(tri(a, b, w)).expect("a line of area");
            let mut total = 0.0f64;
            for py in -1..14 {
                for px in -1..14 {
                    let (c, s) = (r.coverage(px, py), sampled(&r, px, py));
                    assert!(
                        (c - s).abs() < 0.02,
                        "{a:?}-{b:?} w {w}: pixel ({px}, {py}) area {c}, sampled {s}"
                    );
                    total += f64::from(c);
                }
            }
            let len = f64::from(((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt());
            assert!(
                (total - len * f64::from(w)).abs() < 1e-3,
                "{a:?}-{b:?}: {total}"
            );
        }
        // A pixel wholly inside, one wholly outside.
        let r = Rect::of_triangle(tri([0.0, 4.0], [10.0, 4.0], 4.0)).unwrap();
        assert_eq!(r.coverage(5, 3), 1.0);
        assert_eq!(r.coverage(5, 7), 0.0);
        assert!(Rect::of_triangle([[0.0, 0.0], [1.0, 0.0], [0.0, 5.0]]).is_none());
    }
}
