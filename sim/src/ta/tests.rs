//! PrimState on whole renders (provoking vertex, line and polygon stipple), every byte of the
//! target against a reference computed here from the PrimState docs, on the fast and the
//! reference paths.

use sgx_hwdocs::render::PrimState;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::tsp::Interp;

use crate::kit::*;
use crate::{JobStatus, Perm};

const W: usize = 32;
const H: usize = 8;

/// B G R A bytes of an RGBA colour of 0 / 1 components.
fn bgra(c: [f32; 4]) -> [u8; 4] {
    let b = |x: f32| (x * 255.0) as u8;
    [b(c[2]), b(c[1]), b(c[0]), b(c[3])]
}

/// Renders `d` into a W x H B8G8R8A8 target cleared to 0, on both paths (which must agree);
/// returns the target's bytes.
fn render(d: impl Fn() -> DrawDesc) -> Vec<u8> {
    let mut out: Option<Vec<u8>> = None;
    for reference in [false, true] {
        let mut s = Scene::new();
        let fb = Mem::filled(W * H * 4, 0x5a);
        let va = s.alloc_with(fb.clone(), Perm::RW);
        let rd = RenderDesc::linear(va, W as u32, H as u32, (W * 4) as u32);
        let job = build(&mut s, &rd, &[d()]);
        s.gpu.set_reference_paths(reference);
        assert_eq!(s.gpu.run(&job).status, JobStatus::Done);
        let bytes = fb.bytes();
        if let Some(o) = &out {
            assert_eq!(&bytes, o, "fast and reference paths differ");
        }
        out = Some(bytes);
    }
    out.unwrap()
}

/// The expected target: `lit(x, y)` pixels `c`, the rest the background (0).
fn expect(c: [f32; 4], lit: impl Fn(usize, usize) -> bool) -> Vec<u8> {
    let mut v = Vec::with_capacity(W * H * 4);
    for y in 0..H {
        for x in 0..W {
            v.extend_from_slice(&if lit(x, y) { bgra(c) } else { [0; 4] });
        }
    }
    v
}

fn p(x: f32, y: f32) -> [f32; 4] {
    clip_xy(x, y, W as f32, H as f32, 0.5)
}

fn flat_draw(topology: Topology, verts: &[([f32; 4], [f32; 4])], prim: PrimState) -> DrawDesc {
    let fs = words(&[emitpix(pa(0)), end()]);
    let mut d = DrawDesc::new(topology, verts, fs, viewport(W as f32, H as f32));
    d.tsp.v0_interp = Interp::FLAT;
    d.prim = prim;
    d
}

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];

#[test]
fn clipped_flat_triangles_take_the_provoking_vertex_of_either_convention() {
    // The triangle reaches far past the left and right edges: the clipper cuts it into a
    // polygon whose vertices are all new, and the whole target is inside it.
    let verts = [
        (p(-100.0, -40.0), RED),
        (p(132.0, -40.0), GREEN),
        (p(16.0, 60.0), BLUE),
    ];
    for (first, want) in [(false, BLUE), (true, RED)] {
        let prim = PrimState {
            flat_first: first,
            ..PrimState::default()
        };
        let got = render(|| flat_draw(Topology::TRIANGLES, &verts, prim));
        assert_eq!(got, expect(want, |_, _| true), "flat_first {first}");
    }
}

#[test]
fn strip_and_fan_triangles_provoke_with_gl_s_first_vertex_numbers() {
    // Strip of 2 triangles: (0 1 2) provokes 0, (1 2 3) provokes 1 under the first rule,
    // 2 and 3 under the last. The split is at x = 16 on every row (a diagonal would do too,
    // but a vertical one keeps the expected image simple).
    let strip = [
        (p(0.0, 0.0), RED),
        (p(0.0, 8.0), GREEN),
        (p(16.0, 0.0), BLUE),
        (p(16.0, 8.0), [1.0, 1.0, 0.0, 1.0]),
    ];
    let tri_of = |x: usize, y: usize| {
        // Pixel centre (x + .5, y + .5) lies in triangle 0 when below the diagonal from
        // (0, 8) to (16, 0).
        let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
        usize::from(fx + 2.0 * fy > 16.0)
    };
    for (first, pv) in [(false, [2, 3]), (true, [0, 1])] {
        let prim = PrimState {
            flat_first: first,
            ..PrimState::default()
        };
        let got = render(|| flat_draw(Topology::TRIANGLE_STRIP, &strip, prim));
        let mut want = Vec::new();
        for y in 0..H {
            for x in 0..W {
                let c = if x < 16 {
                    bgra(strip[pv[tri_of(x, y)]].1)
                } else {
                    [0; 4]
                };
                want.extend_from_slice(&c);
            }
        }
        assert_eq!(got, want, "strip, flat_first {first}");
    }
    // Fan of 2 triangles (0 1 2) (0 2 3): first rule provokes 1 and 2, not the centre.
    let fan = [
        (p(0.0, 0.0), RED),
        (p(0.0, 8.0), GREEN),
        (p(32.0, 8.0), BLUE),
        (p(32.0, 0.0), [1.0, 1.0, 0.0, 1.0]),
    ];
    let tri_of = |x: usize, y: usize| {
        // Below the diagonal from (0, 0) to (32, 8): triangle 0.
        let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
        usize::from(fy * 4.0 <= fx)
    };
    for (first, pv) in [(false, [2, 3]), (true, [1, 2])] {
        let prim = PrimState {
            flat_first: first,
            ..PrimState::default()
        };
        let got = render(|| flat_draw(Topology::TRIANGLE_FAN, &fan, prim));
        let want: Vec<u8> = (0..H)
            .flat_map(|y| (0..W).flat_map(move |x| bgra(fan[pv[tri_of(x, y)]].1)))
            .collect();
        assert_eq!(got, want, "fan, flat_first {first}");
    }
}

#[test]
fn a_stippled_polygon_keeps_the_pixels_of_set_bits_and_lines_are_not_stippled() {
    let quad = [
        (p(0.0, 0.0), GREEN),
        (p(32.0, 0.0), GREEN),
        (p(0.0, 8.0), GREEN),
        (p(32.0, 0.0), GREEN),
        (p(32.0, 8.0), GREEN),
        (p(0.0, 8.0), GREEN),
    ];
    let mut rows = [0u32; 32];
    for (y, r) in rows.iter_mut().enumerate() {
        *r = 0x8421_0841u32.rotate_left(y as u32 * 3) ^ (y as u32 * 0x0101_0101);
    }
    let prim = PrimState {
        poly_stipple: true,
        ..PrimState::default()
    };
    let got = render(|| {
        let mut d = flat_draw(Topology::TRIANGLES, &quad, prim);
        d.poly_stipple = rows;
        d
    });
    let want = expect(GREEN, |x, y| rows[y % 32] & (0x8000_0000 >> (x % 32)) != 0);
    assert_eq!(got, want);
    // The same pattern leaves a line whole: row 3 is fully drawn.
    let line = [(p(0.5, 3.5), GREEN), (p(32.5, 3.5), GREEN)];
    let got = render(|| {
        let mut d = flat_draw(Topology::LINES, &line, prim);
        d.poly_stipple = rows;
        d
    });
    assert_eq!(got, expect(GREEN, |_, y| y == 3));
}

#[test]
fn a_stippled_line_draws_the_set_bits_and_strips_carry_the_count_on() {
    let stipple = |factor: u32, pattern: u32| PrimState {
        line_stipple: true,
        line_stipple_factor_m1: factor - 1,
        line_stipple_pattern: pattern,
        ..PrimState::default()
    };
    let bit = |pattern: u32, factor: usize, n: usize| pattern >> ((n / factor) % 16) & 1 != 0;
    // One line across row 3, pattern 0x0F0F factor 1: pixels 0-3, 8-11, 16-19, 24-27.
    let line = [(p(0.5, 3.5), RED), (p(32.5, 3.5), RED)];
    let got = render(|| flat_draw(Topology::LINES, &line, stipple(1, 0x0F0F)));
    assert_eq!(got, expect(RED, |x, y| y == 3 && bit(0x0F0F, 1, x)));
    // Factor 3, an irregular pattern.
    let got = render(|| flat_draw(Topology::LINES, &line, stipple(3, 0x2D3)));
    assert_eq!(got, expect(RED, |x, y| y == 3 && bit(0x2D3, 3, x)));
    // A strip of two segments split at x = 10 counts on: the same pixels as one line.
    let strip = [(p(0.5, 3.5), RED), (p(10.5, 3.5), RED), (p(32.5, 3.5), RED)];
    let got = render(|| flat_draw(Topology::LINE_STRIP, &strip, stipple(1, 0x0F0F)));
    assert_eq!(got, expect(RED, |x, y| y == 3 && bit(0x0F0F, 1, x)));
    // Independent lines restart the count: the second starts at pixel 10 with bit 0.
    let lines = [
        (p(0.5, 3.5), RED),
        (p(10.5, 3.5), RED),
        (p(10.5, 3.5), RED),
        (p(32.5, 3.5), RED),
    ];
    let got = render(|| flat_draw(Topology::LINES, &lines, stipple(1, 0x0F0F)));
    let want = expect(RED, |x, y| {
        y == 3
            && if x < 10 {
                bit(0x0F0F, 1, x)
            } else {
                bit(0x0F0F, 1, x - 10)
            }
    });
    assert_eq!(got, want);
}

/// piglit's linestipple "Line loop" on this target: endpoints on pixel centres, the loop
/// running right, down, left and up; each segment draws from its first pixel to the one
/// before its last (GL's diamond-exit rule), the stipple counting on around the loop.
#[test]
fn a_stippled_loop_draws_each_segment_from_its_first_pixel_in_every_direction() {
    let pattern = 0x8cef;
    let corners = [(1usize, 1usize), (20, 1), (20, 6), (1, 6)];
    let verts: Vec<_> = corners
        .iter()
        .map(|&(x, y)| (p(x as f32 + 0.5, y as f32 + 0.5), GREEN))
        .collect();
    let prim = PrimState {
        line_stipple: true,
        line_stipple_factor_m1: 0,
        line_stipple_pattern: pattern,
        ..PrimState::default()
    };
    let got = render(|| flat_draw(Topology::LINE_LOOP, &verts, prim));
    // piglit's walk: from each corner towards the next, one pixel per step, the end excluded.
    let mut lit = vec![false; W * H];
    let mut n = 0usize;
    for k in 0..4 {
        let (a, b) = (corners[k], corners[(k + 1) % 4]);
        let (dx, dy) = (b.0 as i64 - a.0 as i64, b.1 as i64 - a.1 as i64);
        let steps = dx.abs().max(dy.abs());
        for i in 0..steps {
            let x = (a.0 as i64 + dx.signum() * i) as usize;
            let y = (a.1 as i64 + dy.signum() * i) as usize;
            lit[y * W + x] = pattern >> (n % 16) & 1 != 0;
            n += 1;
        }
    }
    assert_eq!(got, expect(GREEN, |x, y| lit[y * W + x]));
}

/// A smooth line's pixels carry the area of their square inside the line's 1 x length
/// rectangle in alpha: the line at y = 3.25 covers a quarter of row 2 and three quarters of
/// row 3, from x = 2 to 30 (whole columns).
#[test]
fn a_smooth_line_folds_its_coverage_into_alpha() {
    let line = [(p(2.0, 3.25), [1.0; 4]), (p(30.0, 3.25), [1.0; 4])];
    let prim = PrimState {
        line_smooth: true,
        ..PrimState::default()
    };
    let got = render(|| flat_draw(Topology::LINES, &line, prim));
    let mut want = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let a = match y {
                2 if (2..30).contains(&x) => 0.25f32,
                3 if (2..30).contains(&x) => 0.75,
                _ => 0.0,
            };
            let b = (a * 255.0).round() as u8;
            want.extend_from_slice(&if a > 0.0 { [255, 255, 255, b] } else { [0; 4] });
        }
    }
    assert_eq!(got, want);
}

/// A full-target quad whose vertex output 2 holds clip distances x - 12.5 and 20.5 - x
/// (window x), as RasterState.clip_mask's planes.
fn user_clipped(topology: Topology, verts: &[(f32, f32)], mask: u32) -> DrawDesc {
    let v: Vec<_> = verts.iter().map(|&(x, y)| (p(x, y), GREEN)).collect();
    let mut d = flat_draw(topology, &v, PrimState::default());
    let dist: Vec<u8> = verts
        .iter()
        .flat_map(|&(x, _)| [x - 12.5, 20.5 - x, 0.0, 0.0])
        .flat_map(f32::to_le_bytes)
        .collect();
    d.attrs
        .push((sgx_hwdocs::render::AttrType::FLOAT32, 4, 16, dist));
    d.tsp.varying_count = 2;
    d.raster.clip_mask = mask;
    d.raster.clip_slot = 1;
    d
}

/// User clip distances clip in the TA like the view volume: the clipped polygon's new edges
/// follow the top-left rule, so pixel centres on the plane x = 12.5 (a left edge of what is
/// kept) are drawn and those on x = 20.5 (a right edge) are not. Lines and points are
/// clipped too.
#[test]
fn user_clip_distances_clip_primitives_with_the_top_left_rule_on_the_plane() {
    let quad = [
        (0.0, 0.0),
        (32.0, 0.0),
        (0.0, 8.0),
        (32.0, 0.0),
        (32.0, 8.0),
        (0.0, 8.0),
    ];
    let got = render(|| user_clipped(Topology::TRIANGLES, &quad, 0b11));
    assert_eq!(got, expect(GREEN, |x, _| (12..20).contains(&x)));
    // One plane only.
    let got = render(|| user_clipped(Topology::TRIANGLES, &quad, 0b01));
    assert_eq!(got, expect(GREEN, |x, _| x >= 12));
    // A line along row 3 is cut to x 12.5..20.5: pixels 12 to 19.
    let line = [(0.5, 3.5), (31.5, 3.5)];
    let got = render(|| user_clipped(Topology::LINES, &line, 0b11));
    assert_eq!(got, expect(GREEN, |x, y| y == 3 && (12..20).contains(&x)));
    // Points outside a plane are dropped whole.
    let pts = [(4.5, 2.5), (14.5, 2.5), (24.5, 2.5)];
    let got = render(|| user_clipped(Topology::POINTS, &pts, 0b11));
    assert_eq!(got, expect(GREEN, |x, y| (x, y) == (14, 2)));
}

#[test]
fn clip_distances_past_the_draw_s_varyings_are_refused() {
    let mut s = Scene::new();
    let fb = Mem::filled(W * H * 4, 0);
    let va = s.alloc_with(fb, Perm::RW);
    let rd = RenderDesc::linear(va, W as u32, H as u32, (W * 4) as u32);
    // Bit 4 is lane 0 of varying clip_slot + 1 = 2: the draw has 2 varyings.
    let d = user_clipped(
        Topology::TRIANGLES,
        &[(0.0, 0.0), (32.0, 0.0), (0.0, 8.0)],
        0b1_0000,
    );
    let job = build(&mut s, &rd, &[d]);
    match s.gpu.run(&job).status {
        JobStatus::BadState { unit, reason } => {
            assert_eq!(unit, crate::Unit::Ta);
            assert!(reason.contains("clip distance 4 in varying 2"), "{reason}");
        }
        st => panic!("{st:?}"),
    }
}
