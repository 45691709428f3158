//! Draws larger than one render's parameter memory: the pipe splits them into parts (or
//! flushes between them) so the TA never runs out (no job fails), and the pixels are those of
//! the same draw in one render; XOR makes a primitive lost or drawn twice show.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const S: u32 = 96;

/// Long lines fanning across the target, every octant, endpoints on pixel centres and off
/// them: `n` vertices (pairs for LINES).
fn long_lines(n: usize) -> Vec<(f32, f32, f32)> {
    let s = S as f32;
    (0..n)
        .map(|i| {
            let t = i as f32 / n as f32;
            let a = t * std::f32::consts::TAU * 3.0;
            let r = if i % 2 == 0 { 0.48 * s } else { 0.21 * s };
            let c = if i % 3 == 0 { 0.5 } else { 0.125 };
            (
                (s / 2.0 + r * a.cos()).floor() + c,
                (s / 2.0 + r * a.sin()).floor() + c,
                0.0,
            )
        })
        .collect()
}

/// Small triangles tiling the target, `n` of them.
fn triangles(n: usize) -> Vec<(f32, f32, f32)> {
    let mut v = Vec::new();
    for i in 0..n {
        let (x, y) = ((i * 7 % 90) as f32, (i * 13 % 90) as f32);
        v.extend([
            (x, y, 0.0),
            (x + 5.0, y + 1.0, 0.0),
            (x + 2.0, y + 6.0, 0.0),
        ]);
    }
    v
}

/// Draws `pts` as `mode` with XOR over a patterned target, `times` times, with a parameter
/// memory budget of `budget_B` (None: the default) and rasterizer state `rs`; the pixels and
/// the context's stats (checked: no job failed).
fn render(
    budget_B: Option<u64>,
    mode: PrimMode,
    pts: &[(f32, f32, f32)],
    times: usize,
    rs: &RasterizerState,
) -> (Vec<u8>, ContextStats) {
    let mut r = rig();
    let t = patterned_target(&mut r, S);
    if let Some(b) = budget_B {
        r.ctx.set_parameter_memory_budget(b);
    }
    bind_blend(&mut r, &xor_blend());
    bind_rasterizer(&mut r, rs);
    set_colour(&mut r, [1.0, 0.5, 0.25, 1.0]);
    let before = r.ctx.stats();
    for _ in 0..times {
        draw_px(&mut r, mode, pts);
    }
    let got = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(r.ctx.take_job_failures(), vec![], "{mode:?}");
    let mut st = r.ctx.stats();
    st.submissions -= before.submissions;
    (got, st)
}

#[test]
fn a_draw_larger_than_parameter_memory_is_split_and_draws_the_same_pixels() {
    let budget_B = sgx_hwdocs::limits::PAGE_B;
    let plain = RasterizerState::default();
    let wide = RasterizerState {
        line_width: 5.0,
        ..Default::default()
    };
    let stippled = RasterizerState {
        line_stipple: Some((1, 0x5555)),
        ..Default::default()
    };
    let smooth = RasterizerState {
        line_smooth: true,
        ..Default::default()
    };
    let smooth_stippled = RasterizerState {
        line_smooth: true,
        line_stipple: Some((2, 0x0f0f)),
        line_width: 2.0,
        ..Default::default()
    };
    for (what, mode, pts, rs) in [
        ("lines", PrimMode::LINES, long_lines(600), &plain),
        ("strip", PrimMode::LINE_STRIP, long_lines(600), &plain),
        ("loop", PrimMode::LINE_LOOP, long_lines(600), &plain),
        ("wide", PrimMode::LINES, long_lines(600), &wide),
        ("stippled", PrimMode::LINES, long_lines(600), &stippled),
        ("smooth", PrimMode::LINES, long_lines(200), &smooth),
        (
            "smooth stippled",
            PrimMode::LINES,
            long_lines(60),
            &smooth_stippled,
        ),
        ("triangles", PrimMode::TRIANGLES, triangles(400), &plain),
    ] {
        let (whole, s1) = render(None, mode, &pts, 1, rs);
        let (split, s2) = render(Some(budget_B), mode, &pts, 1, rs);
        // One render holds the draw by default; the small budget takes several.
        assert_eq!(s1.submissions, 1, "{what}: {s1:?}");
        assert!(s2.submissions > 2, "{what}: {s2:?}");
        let changed = whole.iter().zip(&split).position(|(a, b)| a != b);
        assert_eq!(changed, None, "{what}: split and whole differ");
        let (base, _) = render(None, mode, &[], 0, rs);
        assert!(split != base, "{what}: the draw changed nothing");
    }
    // A stippled strip counts the stipple on from line to line: it is not cut into parts
    // (which would restart the count), and draws the pixels of one render.
    let (whole, _) = render(None, PrimMode::LINE_STRIP, &long_lines(600), 1, &stippled);
    let (small, s2) = render(
        Some(budget_B),
        PrimMode::LINE_STRIP,
        &long_lines(600),
        1,
        &stippled,
    );
    // Two renders: the background's, flushed before the strip outgrew the budget, and the
    // whole strip's.
    assert_eq!(s2.submissions, 2, "{s2:?}");
    assert!(whole == small, "a stippled strip under a small budget");
}
