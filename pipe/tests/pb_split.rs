//! Draws larger than one render's parameter memory: the pipe splits them into parts (or
//! flushes between them) so the TA never runs out, and the pixels are those of the same draw
//! in one render; XOR makes a primitive lost or drawn twice show, and the same draw twice
//! must give every byte back.
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
/// memory budget of `budget_B` (None: the default); the pixels and the context's stats.
fn render(
    budget_B: Option<u64>,
    mode: PrimMode,
    pts: &[(f32, f32, f32)],
    times: usize,
) -> (Vec<u8>, ContextStats) {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, S, S);
    bind_const(&mut r, &fb(&t, None));
    set_colour(&mut r, [0.2, 0.4, 0.6, 1.0]);
    rect(&mut r, 0, 0, S, S, 0.0);
    if let Some(b) = budget_B {
        r.ctx.set_parameter_memory_budget(b);
    }
    let blend = r.ctx.create_blend_state(&BlendState {
        logicop_enable: true,
        logicop_func: LogicOp::XOR,
        colormask: 0xF,
        ..Default::default()
    });
    r.ctx.bind_blend_state(Some(&blend));
    set_colour(&mut r, [1.0, 0.5, 0.25, 1.0]);
    let before = r.ctx.stats();
    for _ in 0..times {
        draw_px(&mut r, mode, pts);
    }
    let got = r.ctx.read_level(&t, 0, 0).unwrap();
    let mut st = r.ctx.stats();
    st.submissions -= before.submissions;
    (got, st)
}

#[test]
fn a_draw_larger_than_parameter_memory_is_split_and_draws_the_same_pixels() {
    let budget_B = sgx_hwdocs::limits::PAGE_B;
    for (mode, pts) in [
        (PrimMode::LINES, long_lines(600)),
        (PrimMode::LINE_STRIP, long_lines(600)),
        (PrimMode::LINE_LOOP, long_lines(600)),
        (PrimMode::TRIANGLES, triangles(400)),
    ] {
        let (whole, s1) = render(None, mode, &pts, 1);
        let (split, s2) = render(Some(budget_B), mode, &pts, 1);
        // One render holds the draw by default; the small budget takes several.
        assert_eq!(s1.submissions, 1, "{mode:?}: {s1:?}");
        assert!(s2.submissions > 4, "{mode:?}: {s2:?}");
        let changed = whole.iter().zip(&split).position(|(a, b)| a != b);
        assert_eq!(changed, None, "{mode:?}: split and whole differ");
        // Drawn twice, XOR restores the target: every primitive was drawn exactly once
        // per draw in either case.
        let (base, _) = render(None, mode, &[], 0);
        let (twice, _) = render(Some(budget_B), mode, &pts, 2);
        assert!(
            twice == base,
            "{mode:?}: drawn twice the split draw is not undone"
        );
        assert!(split != base, "{mode:?}: the draw changed nothing");
    }
}
