//! The scissor on draws: an empty rectangle (anywhere, the origin included) draws nothing;
//! a one-pixel rectangle draws exactly that pixel.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
const H: u32 = 32;
const RED: [u8; 4] = [0, 0, 255, 255];
const WHITE: [u8; 4] = [255, 255, 255, 255];

/// Clears a fresh target to white, then fills it with red under `s`; returns its pixels.
fn red_under(s: ScissorState) -> Vec<u8> {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, W, H);
    bind_const(&mut r, &fb(&t, None));
    r.ctx
        .clear(clear_flags::COLOR0, [1.0, 1.0, 1.0, 1.0], 1.0, 0)
        .unwrap();
    scissor_on(&mut r);
    r.ctx.set_scissor_state(&s).unwrap();
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, W, H, 0.0);
    r.ctx.read_level(&t, 0, 0).unwrap()
}

fn scissor(minx: u32, miny: u32, maxx: u32, maxy: u32) -> ScissorState {
    ScissorState {
        minx,
        miny,
        maxx,
        maxy,
    }
}

#[test]
fn an_empty_scissor_draws_nothing_even_at_the_origin() {
    // glScissor(0, height, 0, 0) (piglit gl-1.0-scissor-offscreen), a zero width at the
    // origin, a zero height inside, and one past the target.
    for s in [
        scissor(0, 0, 0, 0),
        scissor(0, H, 0, H),
        scissor(0, 0, 0, H),
        scissor(5, 9, 20, 9),
        scissor(W, 0, W, H),
    ] {
        let px = red_under(s);
        for y in 0..H {
            for x in 0..W {
                assert_eq!(pixel(&px, W, x, y), WHITE, "{s:?} at ({x},{y})");
            }
        }
    }
}

#[test]
fn a_one_pixel_scissor_draws_one_pixel() {
    for (x0, y0) in [(0, 0), (3, 4), (W - 1, H - 1)] {
        let px = red_under(scissor(x0, y0, x0 + 1, y0 + 1));
        for y in 0..H {
            for x in 0..W {
                let want = if (x, y) == (x0, y0) { RED } else { WHITE };
                assert_eq!(pixel(&px, W, x, y), want, "({x0},{y0}) at ({x},{y})");
            }
        }
    }
}
