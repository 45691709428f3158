//! More than one colour buffer (st/mesa's `glDrawBuffer(GL_FRONT_AND_BACK)`): every buffer
//! gets what a render into it alone gets, byte for byte, with the depth test, blending and an
//! occlusion query as one render has them (the render is replayed per buffer, MODEL).
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 48;
const H: u32 = 40;

/// Bytes of a pseudo-random pattern (an LCG, seeded per buffer).
fn pattern(len_B: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    (0..len_B)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect()
}

/// A `W`x`H` target of `format` holding `pattern(.., seed)`.
fn filled(r: &mut Rig, format: Format, seed: u32) -> (Arc<Resource>, Vec<u8>) {
    let t = target(r, format, W, H);
    let bpp = format.info().bytes_per_el as usize;
    let bytes = pattern(W as usize * H as usize * bpp, seed);
    let whole = PipeBox {
        x: 0,
        y: 0,
        z: 0,
        width: W,
        height: H,
        depth: 1,
    };
    r.ctx
        .texture_subdata(&t, 0, 0, whole, &bytes, W as usize * bpp, 0)
        .unwrap();
    let now = r.ctx.read_level(&t, 0, 0).unwrap();
    (t, now)
}

/// Depth-tested, blended rectangles into `cbufs` (the first is `cbuf`) over a Z16 buffer
/// cleared to 1.0 (in the same render, or in one before: `load_depth`); returns the occlusion
/// count and the depth buffer's bytes.
fn scene(r: &mut Rig, cbufs: &[Arc<Resource>], load_depth: bool) -> (u64, Vec<u8>) {
    let z = r
        .screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::Z16_UNORM,
            W,
            H,
            0,
            bind::DEPTH_STENCIL,
        ))
        .unwrap();
    let surf = |t: &Arc<Resource>| Surface::new(t, 0, 0);
    let mut f = fb(&cbufs[0], Some(&z));
    f.extra_cbufs = cbufs[1..].iter().map(surf).collect();
    bind_const(r, &f);
    bind_depth(r, CompareFunc::LESS);
    bind_blend(r, &alpha_blend());
    r.ctx.clear(clear_flags::DEPTH, [0.0; 4], 1.0, 0).unwrap();
    if load_depth {
        r.ctx.flush().unwrap();
    }
    let q = r.ctx.create_query(QueryType::OcclusionCounter);
    r.ctx.begin_query(&q).unwrap();
    set_colour(r, [1.0, 0.0, 0.0, 0.5]);
    rect(r, 4, 6, 30, 20, 0.5);
    set_colour(r, [0.0, 1.0, 0.0, 0.75]);
    rect(r, 10, 12, 40, 36, 0.3);
    // Behind both where they overlap it: the depth test must see their depths.
    set_colour(r, [0.0, 0.0, 1.0, 1.0]);
    rect(r, 0, 0, 20, 30, 0.8);
    r.ctx.end_query(&q).unwrap();
    let n = r.ctx.get_query_result(&q, true).unwrap().unwrap();
    (n, r.ctx.read_level(&z, 0, 0).unwrap())
}

/// Whether pixel (x, y) is inside a rectangle the scene draws.
fn drawn(x: u32, y: u32) -> bool {
    [(4, 6, 30, 20), (10, 12, 40, 36), (0, 0, 20, 30)]
        .iter()
        .any(|&(x0, y0, x1, y1)| (x0..x1).contains(&x) && (y0..y1).contains(&y))
}

#[test]
fn every_colour_buffer_gets_the_render_one_buffer_gets() {
    for load_depth in [false, true] {
        each_buffer_as_alone(load_depth);
    }
}

fn each_buffer_as_alone(load_depth: bool) {
    let formats = [
        (Format::B8G8R8A8_UNORM, 7),
        (Format::B5G6R5_UNORM, 11),
        (Format::B8G8R8A8_UNORM, 13),
    ];
    // Each buffer alone: the reference.
    let mut alone = Vec::new();
    for &(format, seed) in &formats {
        let mut r = rig();
        let (t, _) = filled(&mut r, format, seed);
        let (n, depth) = scene(&mut r, std::slice::from_ref(&t), load_depth);
        alone.push((r.ctx.read_level(&t, 0, 0).unwrap(), n, depth));
    }
    // All three bound at once.
    let mut r = rig();
    let (ts, before): (Vec<_>, Vec<_>) = formats
        .iter()
        .map(|&(format, seed)| filled(&mut r, format, seed))
        .unzip();
    let (n, depth) = scene(&mut r, &ts, load_depth);
    for (i, t) in ts.iter().enumerate() {
        let got = r.ctx.read_level(t, 0, 0).unwrap();
        let (want, want_n, want_depth) = &alone[i];
        assert_eq!(&got, want, "colour buffer {i} against its render alone");
        assert_eq!(n, *want_n, "occlusion count, buffer {i}");
        assert_eq!(&depth, want_depth, "depth, buffer {i}");
        // Outside the rectangles every byte is as it was; inside, the scene changed them.
        let bpp = formats[i].0.info().bytes_per_el as usize;
        let mut changed = 0;
        for y in 0..H {
            for x in 0..W {
                let at = (y * W + x) as usize * bpp;
                let (g, b) = (&got[at..at + bpp], &before[i][at..at + bpp]);
                if drawn(x, y) {
                    changed += usize::from(g != b);
                } else {
                    assert_eq!(g, b, "buffer {i} ({x},{y}) outside the draws");
                }
            }
        }
        assert!(changed > 900, "buffer {i}: only {changed} pixels drawn");
    }
    // 26x14 + 30x24 + the far rectangle where neither covers it.
    let far = (0..30)
        .flat_map(|y| (0..20).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let near = (4..30).contains(&x) && (6..20).contains(&y);
            let nearer = (10..40).contains(&x) && (12..36).contains(&y);
            !near && !nearer
        })
        .count() as u64;
    assert_eq!(n, 26 * 14 + 30 * 24 + far, "samples counted once");
}

#[test]
fn colour_buffers_are_checked_like_the_first() {
    let mut r = rig();
    let a = target(&r, Format::B8G8R8A8_UNORM, 32, 32);
    let small = target(&r, Format::B8G8R8A8_UNORM, 16, 16);
    let surf = |t: &Arc<Resource>| Surface::new(t, 0, 0);
    let mut f = fb(&a, None);
    f.extra_cbufs = vec![surf(&small)];
    assert!(matches!(
        r.ctx.set_framebuffer_state(&f),
        Err(PipeError::InvalidArgument(_))
    ));
    let mut f = fb(&a, None);
    f.cbuf = None;
    f.extra_cbufs = vec![surf(&a)];
    assert!(matches!(
        r.ctx.set_framebuffer_state(&f),
        Err(PipeError::InvalidArgument(_))
    ));
    let mut f = fb(&a, None);
    f.extra_cbufs = vec![surf(&a); 8];
    assert!(matches!(
        r.ctx.set_framebuffer_state(&f),
        Err(PipeError::InvalidArgument(_))
    ));
}
