//! The line stipple (PrimState.line_stipple, MODEL). The TA cuts a stippled line into the
//! runs of pixels the pattern draws and bins each run as a line of its own, as Mesa's draw
//! module does for i915 and softpipe (`draw_stipple.c`): pixel n along the major axis,
//! counted on across the segments of a strip or loop, is drawn when bit
//! `(n / factor) % 16` of the pattern is set. Aliased lines count the pixels the
//! diamond-exit rule draws (`aliased`); smooth lines count pixel lengths along the major
//! axis ([`runs`]).

/// Whether the stipple draws pixel `n` of a line.
pub(super) fn draws(n: u32, factor: u32, pattern: u16) -> bool {
    pattern >> ((n / factor) % 16) & 1 != 0
}

use super::{Draw, JobErr, Ta, WVert};

/// The drawn runs of a line `len_px` long along its major axis, as fractions `(t0, t1)` of
/// the line, starting the count at `*n` and leaving it after the line's pixels.
pub(super) fn runs(len_px: f32, n: &mut u32, factor: u32, pattern: u16) -> Vec<(f32, f32)> {
    let mut out = Vec::new();
    if !len_px.is_finite() || len_px <= 0.0 {
        return out;
    }
    // Lines longer than the largest target (plus clipping slack) cannot cover more pixels.
    let pixels = len_px.ceil().min(1e6) as u32;
    let mut start = None;
    for i in 0..pixels {
        let on = draws(*n, factor, pattern);
        *n = n.wrapping_add(1);
        match (on, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s as f32 / len_px, i as f32 / len_px));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s as f32 / len_px, 1.0));
    }
    out
}

/// The window-space point a fraction `t` from `p` to `q`: position and 1/w linear in window
/// space, varyings perspective-correct (linear over w, divided by the interpolated 1/w).
pub(super) fn at(d: &Draw, p: &WVert, q: &WVert, t: f32) -> WVert {
    let mut o = *p;
    for i in 0..4 {
        o.p[i] = p.p[i] + (q.p[i] - p.p[i]) * t;
    }
    let (wp, wq) = (p.p[3] * (1.0 - t), q.p[3] * t);
    let iw = wp + wq;
    for k in 0..d.nvar {
        for i in 0..4 {
            o.var[k][i] = if iw != 0.0 {
                (p.var[k][i] * wp + q.var[k][i] * wq) / iw
            } else {
                p.var[k][i]
            };
        }
    }
    o
}

impl Ta<'_> {
    /// Bins the drawn runs of the stippled smooth window-space line from `p` to `q`.
    pub(super) fn stippled_smooth(&mut self, d: &Draw, p: &WVert, q: &WVert) -> Result<(), JobErr> {
        let s = &d.ds.prim;
        let len_px = (q.p[0] - p.p[0]).abs().max((q.p[1] - p.p[1]).abs());
        let factor = s.line_stipple_factor_m1 + 1;
        let pattern = s.line_stipple_pattern as u16;
        for (t0, t1) in runs(len_px, &mut self.stipple_n, factor, pattern) {
            let (a, mut b) = (at(d, p, q, t0), at(d, p, q, t1));
            // Flat varyings stay the whole line's (its end's).
            for k in (0..d.nvar).filter(|&k| d.flat[k]) {
                b.var[k] = q.var[k];
            }
            self.smooth_line(d, &a, &b)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn runs_follow_the_pattern_bits_and_the_count_carries_on() {
        let mut n = 0;
        // 0b0011: two on, two off, repeated over 8 pixels.
        let r = runs(8.0, &mut n, 1, 0x3333);
        assert_eq!(r, vec![(0.0, 0.25), (0.5, 0.75)]);
        assert_eq!(n, 8);
        // Factor 2 doubles every bit; the count went on from 8 (bit 4 of 0x00F0 is on).
        let r = runs(4.0, &mut n, 2, 0x00F0);
        assert_eq!(r, vec![(0.0, 1.0)]);
        assert_eq!(n, 12);
        let mut n = 0;
        assert_eq!(runs(4.0, &mut n, 1, 0), vec![]);
        assert_eq!(runs(f32::NAN, &mut n, 1, 0xFFFF), vec![]);
        assert_eq!(n, 4);
    }
}
