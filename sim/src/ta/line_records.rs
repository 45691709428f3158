//! One LINE record per aliased line against the reference, two LINE_RUN triangles per run of
//! pixels (`Gpu::set_line_runs`), on whole renders: random segments in every octant, short
//! and long, wide, stippled (strips and loops carrying the count on), clipped far outside the
//! viewport, endpoints on pixel centres and borders, smooth and flat colours, depth tested
//! and blended so that a pixel drawn twice or in another order shows; polygon edges in
//! line mode. Every byte of the target must agree; so must every
//! counter except prims_binned and pb_bytes_used (one record instead of two per run) and
//! the clock, which counts them.

use sgx_hwdocs::isp::{CompareFunc, IspState, Scissor};
use sgx_hwdocs::render::{FillMode, PrimState};
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::tsp::{BlendFactor, BlendFunc, Interp};

use crate::kit::*;
use crate::{Counters, JobResult, JobStatus, Perm};

/// A target of partial tiles on the right and at the bottom.
const W: usize = 72;
const H: usize = 56;

/// Runs `draws` with the reference's runs (`runs`) or LINE records, fast or reference
/// paths; the job result and the target's bytes (depth is tested in the tiles' buffers).
fn run(draws: &[DrawDesc], runs: bool, reference: bool) -> (JobResult, Vec<u8>) {
    let mut s = Scene::new();
    let fb = Mem::filled(W * H * 4, 0x5a);
    let va = s.alloc_with(fb.clone(), Perm::RW);
    let mut rd = RenderDesc::linear(va, W as u32, H as u32, (W * 4) as u32);
    rd.pb_size = 8 << 20;
    let job = build(&mut s, &rd, draws);
    s.gpu.set_line_runs(runs);
    s.gpu.set_reference_paths(reference);
    let r = s.gpu.run(&job);
    (r, fb.bytes())
}

/// The counters that must agree: all but the parameter memory's.
fn pixel_counters(c: &Counters) -> Counters {
    Counters {
        prims_binned: 0,
        pb_bytes_used: 0,
        ..*c
    }
}

/// Renders `draws` both ways (on the fast paths, and the records also on the reference
/// paths) and compares; returns (records' prims_binned, runs' prims_binned).
fn same(name: &str, draws: &[DrawDesc]) -> (u64, u64) {
    let (ra, ca) = run(draws, true, false);
    let (rb, cb) = run(draws, false, false);
    let (rc, cc) = run(draws, false, true);
    assert_eq!(ra.status, JobStatus::Done, "{name}: runs");
    assert_eq!(rb.status, JobStatus::Done, "{name}: records");
    assert_eq!(rb, rc, "{name}: records, fast vs reference paths");
    assert!(cb == cc, "{name}: records, fast vs reference paths");
    if let Some(i) = ca.iter().zip(&cb).position(|(a, b)| a != b) {
        let px = i / 4;
        panic!(
            "{name}: colour differs first at pixel ({}, {}): runs {:?} vs records {:?}",
            px % W,
            px / W,
            &ca[px * 4..px * 4 + 4],
            &cb[px * 4..px * 4 + 4]
        );
    }
    assert_eq!(
        pixel_counters(&ra.counters),
        pixel_counters(&rb.counters),
        "{name}: counters"
    );
    assert_eq!(ra.events, rb.events, "{name}: events");
    (rb.counters.prims_binned, ra.counters.prims_binned)
}

/// A point of the window: on the 1/8 pixel grid, pixel centres, or borders, sometimes
/// far outside (clipped).
fn point(g: &mut Rng) -> (f32, f32) {
    let q = |g: &mut Rng, n: usize| {
        let v = (g.next() % (8 * n as u32 + 160)) as f32 / 8.0 - 10.0;
        match g.next() % 4 {
            0 => v.floor() + 0.5,
            1 => v.floor(),
            _ => v,
        }
    };
    let (mut x, mut y) = (q(g, W), q(g, H));
    if g.next().is_multiple_of(10) {
        x = x * 6.0 - 3.0 * W as f32;
    }
    if g.next().is_multiple_of(10) {
        y = y * 6.0 - 3.0 * H as f32;
    }
    (x, y)
}

fn random_draw(g: &mut Rng, k: usize) -> DrawDesc {
    let topology = [Topology::LINES, Topology::LINE_STRIP, Topology::LINE_LOOP][k % 3];
    let n = 2 + (g.next() % 9) as usize;
    let mut verts = Vec::new();
    let mut at = point(g);
    for _ in 0..n {
        // Short segments from the last point (every octant), or anywhere.
        let next = if g.next().is_multiple_of(2) {
            let d = |g: &mut Rng| (g.next() % 97) as f32 / 4.0 - 12.0;
            (at.0 + d(g), at.1 + d(g))
        } else {
            point(g)
        };
        let c = |g: &mut Rng| (g.next() % 9) as f32 / 8.0;
        let z = (g.next() % 64) as f32 / 64.0;
        verts.push((
            clip_xy(at.0, at.1, W as f32, H as f32, z),
            [c(g), c(g), c(g), 1.0],
        ));
        at = next;
    }
    let mut d = DrawDesc::new(
        topology,
        &verts,
        words(&[emitpix(pa(0)), end()]),
        viewport(W as f32, H as f32),
    );
    d.raster.line_width = [1.0, 1.0, 2.0, 3.0, 4.5, 7.0][(g.next() % 6) as usize];
    d.tsp.v0_interp = [Interp::PERSPECTIVE, Interp::LINEAR, Interp::FLAT][(g.next() % 3) as usize];
    if g.next().is_multiple_of(2) {
        d.prim = PrimState {
            line_stipple: true,
            line_stipple_factor_m1: g.next() % 4,
            line_stipple_pattern: g.next() & 0xffff,
            ..PrimState::default()
        };
    }
    if g.next().is_multiple_of(3) {
        d.tsp.blend = true;
        d.tsp.rgb_func = BlendFunc::ADD;
        d.tsp.rgb_src = BlendFactor::ONE;
        d.tsp.rgb_dst = BlendFactor::ONE;
    }
    d.isp = IspState {
        depth_test: g.next().is_multiple_of(2),
        depth_write: true,
        depth_func: CompareFunc::LESS,
        scissor: g.next().is_multiple_of(5),
        ..IspState::default()
    };
    d.scissor = Scissor {
        xmin: 7,
        ymin: 5,
        xmax: 50,
        ymax: 40,
    };
    d
}

#[test]
fn line_records_draw_the_pixels_of_the_runs_on_random_scenes() {
    let mut g = Rng(0x1234_5679); // xorshift seed, not a hardware number
    let mut segs = 0;
    let (mut recs, mut runs) = (0, 0);
    for scene in 0..90 {
        let draws: Vec<DrawDesc> = (0..6).map(|k| random_draw(&mut g, k + scene)).collect();
        segs += draws
            .iter()
            .map(|d| match d.topology {
                Topology::LINES => d.count / 2,
                Topology::LINE_STRIP => d.count - 1,
                _ => d.count,
            })
            .sum::<u32>();
        let (a, b) = same(&format!("scene {scene}"), &draws);
        recs += a;
        runs += b;
    }
    assert!(segs > 2000, "{segs} segments");
    // Far fewer records: one per line against two per run.
    assert!(recs * 3 < runs, "{recs} records vs {runs} run triangles");
}

#[test]
fn octants_from_pixel_centres_and_edges_wide_and_stippled() {
    // Every octant and the diagonals and axes from one point, with endpoints on a centre, a
    // border and a corner, widths 1 to 5, with and without a stipple.
    for (cx, cy) in [(30.5, 27.5), (30.0, 27.5), (30.0, 27.0), (30.25, 27.75)] {
        for w in [1.0, 2.0, 5.0] {
            for stipple in [false, true] {
                let mut verts = Vec::new();
                for (dx, dy) in [
                    (20.0, 0.0),
                    (20.0, 7.0),
                    (20.0, 20.0),
                    (7.0, 20.0),
                    (0.0, 20.0),
                    (-7.0, 20.0),
                    (-20.0, 20.0),
                    (-20.0, 7.0),
                    (-20.0, 0.0),
                    (-20.0, -7.0),
                    (-20.0, -20.0),
                    (-7.0, -20.0),
                    (0.0, -20.0),
                    (7.0, -20.0),
                    (20.0, -20.0),
                    (20.0, -7.0),
                ] {
                    verts.push((
                        clip_xy(cx, cy, W as f32, H as f32, 0.5),
                        [1.0, 0.0, 0.5, 1.0],
                    ));
                    verts.push((
                        clip_xy(cx + dx, cy + dy, W as f32, H as f32, 0.5),
                        [0.0, 1.0, 0.25, 1.0],
                    ));
                }
                let mut d = DrawDesc::new(
                    Topology::LINES,
                    &verts,
                    words(&[emitpix(pa(0)), end()]),
                    viewport(W as f32, H as f32),
                );
                d.raster.line_width = w;
                d.tsp.blend = true;
                d.tsp.rgb_func = BlendFunc::ADD;
                d.tsp.rgb_src = BlendFactor::ONE;
                d.tsp.rgb_dst = BlendFactor::ONE;
                d.prim = PrimState {
                    line_stipple: stipple,
                    line_stipple_factor_m1: 1,
                    line_stipple_pattern: 0x3c5f,
                    ..PrimState::default()
                };
                same(&format!("({cx}, {cy}) width {w} stipple {stipple}"), &[d]);
            }
        }
    }
}

#[test]
fn polygon_edges_in_line_mode_are_line_records_too() {
    let mut g = Rng(0x0bad_cafe); // xorshift seed, not a hardware number
    for k in 0..20 {
        let verts: Vec<_> = (0..6)
            .map(|_| {
                let (x, y) = point(&mut g);
                let c = (g.next() % 9) as f32 / 8.0;
                (
                    clip_xy(x, y, W as f32, H as f32, 0.25),
                    [c, 1.0 - c, 0.5, 1.0],
                )
            })
            .collect();
        let mut d = DrawDesc::new(
            Topology::TRIANGLES,
            &verts,
            words(&[emitpix(pa(0)), end()]),
            viewport(W as f32, H as f32),
        );
        d.poly.fill_front = FillMode::LINE;
        d.poly.fill_back = FillMode::LINE;
        d.raster.line_width = (1 + k % 4) as f32;
        same(&format!("polygon {k}"), &[d]);
    }
}

/// A long line takes one record and one reference per tile it crosses; the runs took two
/// records per pixel of a diagonal.
#[test]
fn a_long_diagonal_line_is_one_record() {
    let verts = [
        (clip_xy(0.5, 0.5, W as f32, H as f32, 0.5), [1.0; 4]),
        (clip_xy(55.5, 55.5, W as f32, H as f32, 0.5), [1.0; 4]),
    ];
    let d = DrawDesc::new(
        Topology::LINES,
        &verts,
        words(&[emitpix(pa(0)), end()]),
        viewport(W as f32, H as f32),
    );
    let (recs, runs) = same("diagonal", std::slice::from_ref(&d));
    assert_eq!((recs, runs), (1, 2 * 55));
    let (r, _) = run(std::slice::from_ref(&d), false, false);
    let (rr, _) = run(&[d], true, false);
    println!(
        "PB bytes for a 55-pixel diagonal: {} as one record, {} as runs",
        r.counters.pb_bytes_used, rr.counters.pb_bytes_used
    );
    assert!(r.counters.pb_bytes_used < rr.counters.pb_bytes_used);
}
