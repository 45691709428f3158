//! An aliased line's pixels and runs (PrimKind::LINE, MODEL: hwdocs render.json), shared by
//! the TA, which bins a line as one record referenced from the tiles its pixels touch, and
//! the 3D phase, which walks the record's runs in each tile. The pixels are GL's diamond-exit
//! rule ([`diamond::Span`]), widened to `w` pixels in the minor direction (GL 2.1 3.4.2.1: the
//! segment moved by -(w - 1)/2 along the minor axis, each pixel replaced by w pixels from it
//! on), and stippled pixel by pixel. A *run* is a maximal stretch of drawn pixels in the same
//! row (column): it is shaded as the axis-aligned rectangle of its pixels, whose sides lie on
//! pixel borders, so the rasteriser's top-left rule covers exactly those pixels.

pub(crate) mod diamond;

use diamond::Span;

use crate::job::MAX_VAR;

/// The width of an aliased line in pixels: GL's rounding, at least 1.
pub(crate) fn width_px(line_width: f32) -> i64 {
    if line_width.is_finite() {
        // Widths past any target draw as the target; the cast saturates.
        (line_width.round().min(1e6) as i64).max(1)
    } else {
        1
    }
}

/// Whether the line stipple draws pixel `n` of a line: bit `(n / factor) % 16` of the
/// pattern.
pub(crate) fn stipple_draws(n: u32, factor: u32, pattern: u16) -> bool {
    pattern >> ((n / factor) % 16) & 1 != 0
}

/// The line stipple of one line: the counter at its first pixel, the factor and the pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stipple {
    pub start: u32,
    pub factor: u32,
    pub pattern: u16,
}

/// An aliased line's pixels: its span, width, and stipple.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Line {
    pub span: Span,
    pub w_px: i64,
    pub stipple: Option<Stipple>,
}

/// A run of drawn pixels: pixels `k.0..k.1` of the line, the rectangle `u.0..u.1` along the
/// major axis by `v.0..v.1` along the minor one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Run {
    pub k: (i64, i64),
    pub u: (i64, i64),
    pub v: (i64, i64),
}

impl Line {
    /// The line from window point `a` to `b` of width `line_width` (RasterState), None when
    /// it draws no pixel before the stipple.
    pub(crate) fn of(
        a: [f32; 2],
        b: [f32; 2],
        line_width: f32,
        stipple: Option<Stipple>,
    ) -> Option<Line> {
        let w_px = width_px(line_width);
        let shift = (w_px - 1) as f32 / 2.0;
        let x_major = (b[0] - a[0]).abs() >= (b[1] - a[1]).abs();
        let m = usize::from(x_major);
        let (mut a, mut b) = (a, b);
        a[m] -= shift;
        b[m] -= shift;
        Some(Line {
            span: Span::of(a, b)?,
            w_px,
            stipple,
        })
    }

    /// Whether pixel k (of `span.count`) is drawn.
    pub(crate) fn on(&self, k: i64) -> bool {
        self.stipple
            .is_none_or(|s| stipple_draws(s.start.wrapping_add(k as u32), s.factor, s.pattern))
    }

    /// The run of drawn pixel `k`.
    pub(crate) fn run_at(&self, k: i64) -> Run {
        let s = &self.span;
        let row = s.minor(k);
        // The minor coordinate is monotonic along the line: binary searches find the pixels
        // of this row, then the stipple (a pattern bit covers at most 256 pixels) cuts them.
        let (mut lo, mut hi) = (0, k);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if s.minor(mid) == row {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let row_first = lo;
        let (mut lo, mut hi) = (k, s.count - 1);
        while lo < hi {
            let mid = hi - (hi - lo) / 2;
            if s.minor(mid) == row {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let row_last = lo;
        let (mut k0, mut k1) = (k, k + 1);
        if self.stipple.is_some() {
            while k0 > row_first && self.on(k0 - 1) {
                k0 -= 1;
            }
            while k1 <= row_last && self.on(k1) {
                k1 += 1;
            }
        } else {
            (k0, k1) = (row_first, row_last + 1);
        }
        let (u0, u1) = (s.major(k0), s.major(k1 - 1));
        Run {
            k: (k0, k1),
            u: (u0.min(u1), u0.max(u1) + 1),
            v: (row, row + self.w_px),
        }
    }

    /// The runs in order along the line.
    pub(crate) fn runs(&self) -> impl Iterator<Item = Run> + '_ {
        self.runs_from(0, self.span.count)
    }

    /// The runs that hold a drawn pixel among pixels `from..to`, in order, whole.
    pub(crate) fn runs_from(&self, from: i64, to: i64) -> impl Iterator<Item = Run> + '_ {
        let mut k = from.max(0);
        let to = to.min(self.span.count);
        std::iter::from_fn(move || {
            while k < to && !self.on(k) {
                k += 1;
            }
            if k >= to {
                return None;
            }
            let r = self.run_at(k);
            k = r.k.1;
            Some(r)
        })
    }

    /// The pixels `from..to` (clamped to the line) whose major coordinate lies in `lo..=hi`.
    pub(crate) fn pixels_in(&self, lo: i64, hi: i64) -> (i64, i64) {
        let s = &self.span;
        // major(k) = first + k * step.
        let (a, b) = if s.step > 0 {
            (lo - s.first, hi - s.first)
        } else {
            (s.first - hi, s.first - lo)
        };
        (a.max(0), (b + 1).min(s.count))
    }

    /// The window (x, y) of major, minor coordinates.
    pub(crate) fn xy(&self, u: i64, v: i64) -> (i64, i64) {
        if self.span.x_major {
            (u, v)
        } else {
            (v, u)
        }
    }
}

/// A window-space vertex of a line: (x, y, z, 1/w) and varyings.
pub(crate) type End = ([f32; 4], [[f32; 4]; MAX_VAR]);

/// The point a fraction `t` from `p` to `q`: position and 1/w linear in window space, the
/// first `nvar` varyings perspective-correct (linear over w, divided by the interpolated 1/w);
/// the rest are `p`'s.
pub(crate) fn at(nvar: usize, p: &End, q: &End, t: f32) -> End {
    let mut o = *p;
    for i in 0..4 {
        o.0[i] = p.0[i] + (q.0[i] - p.0[i]) * t;
    }
    let (wp, wq) = (p.0[3] * (1.0 - t), q.0[3] * t);
    let iw = wp + wq;
    for k in 0..nvar {
        for i in 0..4 {
            o.1[k][i] = if iw != 0.0 {
                (p.1[k][i] * wp + q.1[k][i] * wq) / iw
            } else {
                p.1[k][i]
            };
        }
    }
    o
}

/// The two triangles of run `r` of line `l` from `p` to `q`: corners on pixel borders,
/// varyings those of the line at the run's ends along the major axis, flat ones (`flat`)
/// `q`'s. The first is (a0, a1, b0), the second (a1, b1, b0).
pub(crate) fn run_triangles(
    l: &Line,
    nvar: usize,
    flat: &[bool; MAX_VAR],
    p: &End,
    q: &End,
    r: &Run,
) -> [[End; 3]; 2] {
    let end = |uu: i64| {
        let mut w = at(nvar, p, q, l.span.t_at(uu as f64) as f32);
        for k in (0..nvar).filter(|&k| flat[k]) {
            w.1[k] = q.1[k];
        }
        w
    };
    let (ea, eb) = (end(r.u.0), end(r.u.1));
    let corner = |e: &End, uu: i64, vv: i64| {
        let mut w = *e;
        let (x, y) = l.xy(uu, vv);
        w.0[0] = x as f32;
        w.0[1] = y as f32;
        w
    };
    let (a0, a1) = (corner(&ea, r.u.0, r.v.0), corner(&ea, r.u.0, r.v.1));
    let (b0, b1) = (corner(&eb, r.u.1, r.v.0), corner(&eb, r.u.1, r.v.1));
    [[a0, a1, b0], [a1, b1, b0]]
}
