//! GL primitive set-up through the pipe: the polygon stipple pattern and its changes, the
//! first-vertex flat-shading convention, and fans and line loops too large for one render's
//! parameter memory (split into gathered-index parts), every pixel compared.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
const BLACK_B: [u8; 4] = [0, 0, 0, 255];
const RED_B: [u8; 4] = [0, 0, 255, 255];
const GREEN_B: [u8; 4] = [0, 255, 0, 255];

fn setup(r: &mut Rig, rast: RasterizerState) -> std::sync::Arc<Resource> {
    let t = target(r, Format::B8G8R8A8_UNORM, W, W);
    bind_const(r, &fb(&t, None));
    let cso = r.ctx.create_rasterizer_state(&rast).unwrap();
    r.ctx.bind_rasterizer_state(Some(&cso));
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    t
}

fn pattern(seed: u32) -> [u32; 32] {
    let mut rows = [0u32; 32];
    let mut x = seed;
    for r in rows.iter_mut() {
        // xorshift32: an irregular pattern, every row different.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *r = x;
    }
    rows
}

fn keeps(rows: &[u32; 32], x: u32, y: u32) -> bool {
    rows[(y % 32) as usize] & (0x8000_0000 >> (x % 32)) != 0
}

#[test]
fn the_polygon_stipple_keeps_set_bits_and_a_new_pattern_takes_effect() {
    let mut r = rig();
    let t = setup(
        &mut r,
        RasterizerState {
            poly_stipple: true,
            ..Default::default()
        },
    );
    let (a, b) = (pattern(0x1234_5678), pattern(0x9abc_def1));
    r.ctx.set_polygon_stipple(a);
    set_colour(&mut r, RED);
    rect(&mut r, 0, 0, W, W, 0.0);
    // A new pattern between draws of the same state: the second draw uses it.
    r.ctx.set_polygon_stipple(b);
    set_colour(&mut r, GREEN);
    rect(&mut r, 0, 0, W, W, 0.0);
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    for y in 0..W {
        for x in 0..W {
            let want = if keeps(&b, x, y) {
                GREEN_B
            } else if keeps(&a, x, y) {
                RED_B
            } else {
                BLACK_B
            };
            assert_eq!(pixel(&px, W, x, y), want, "({x},{y})");
        }
    }
}

/// A fan of `n` triangles around the target's centre with a closed rim, or (no centre) a loop
/// of `n` points on three quarters of that rim, closed by the chord from (16, 3) to (29, 16).
fn rim(n: usize, with_centre: bool) -> Vec<(f32, f32, f32)> {
    let mut pts = Vec::new();
    let (k, turn) = if with_centre {
        pts.push((16.0, 16.0, 0.0));
        (n + 1, 1.0)
    } else {
        (n, 0.75)
    };
    for i in 0..k {
        let a = i as f32 / n as f32 * turn * std::f32::consts::TAU;
        pts.push((16.0 + 13.0 * a.cos(), 16.0 + 13.0 * a.sin(), 0.0));
    }
    pts
}

/// The image of `mode` over `pts` with parameter memory `budget_B`, and the renders it took.
fn draw_budget(mode: PrimMode, pts: &[(f32, f32, f32)], budget_B: Option<u64>) -> (Vec<u8>, u64) {
    let mut r = rig();
    let t = setup(&mut r, RasterizerState::default());
    if let Some(b) = budget_B {
        r.ctx.set_parameter_memory_budget(b);
    }
    set_colour(&mut r, RED);
    draw_px(&mut r, mode, pts);
    let before = r.ctx.stats().pb_splits;
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    (px, before)
}

#[test]
fn fans_and_loops_too_large_for_one_render_split_into_the_same_pixels() {
    for (mode, pts) in [
        (PrimMode::TRIANGLE_FAN, rim(400, true)),
        (PrimMode::LINE_LOOP, rim(300, false)),
    ] {
        let (whole, whole_splits) = draw_budget(mode, &pts, None);
        let (split, splits) = draw_budget(mode, &pts, Some(4096));
        assert_eq!(whole_splits, 0, "{mode:?}");
        assert!(
            splits > 0,
            "{mode:?}: the small budget did not split the draw"
        );
        assert_eq!(split, whole, "{mode:?}");
        assert!(whole.chunks(4).any(|p| p == RED_B), "{mode:?}");
        if mode == PrimMode::LINE_LOOP {
            // The closing chord's middle, far from the arc.
            assert_eq!(pixel(&whole, W, 22, 9), RED_B);
        }
    }
}
