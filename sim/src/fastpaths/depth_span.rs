//! The depth span path (`raster/span_z.rs`) against the reference on whole renders: colour
//! varyings emitted as they are (`EMITPIX paK; END`, glxgears' program) over depth loaded
//! from memory, with every compare function, depth writes on and off, the test off, each
//! interpolation with perspective (w != 1), vertices on the half-pixel grid (pixel centres on
//! edges), fans sharing edges, huge triangles (too far out for the span), an odd target's
//! partial tiles, a program on an unwritten primary attribute after the span (it reads what the
//! last shaded quad left there), and a partial clear's ZLS loads (one half of the tile from
//! memory) on both depth formats.

use sgx_hwdocs::isp::{CompareFunc, IspState};
use sgx_hwdocs::render::AttrType;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::tsp::Interp;
use sgx_hwdocs::Format;

use super::{all_done, check, target};
use crate::kit::*;
use crate::{Backing, Perm};

/// A vertex at window (x, y) of a w x h viewport, depth z, clip w `cw`, colour `c`.
fn vert(x: f32, y: f32, (w, h): (f32, f32), z: f32, cw: f32, c: [f32; 4]) -> ([f32; 4], [f32; 4]) {
    let p = clip_xy(x, y, w, h, z);
    ([p[0] * cw, p[1] * cw, p[2] * cw, cw], c)
}

const FUNCS: [CompareFunc; 8] = [
    CompareFunc::LESS,
    CompareFunc::LEQUAL,
    CompareFunc::GREATER,
    CompareFunc::GEQUAL,
    CompareFunc::EQUAL,
    CompareFunc::NOTEQUAL,
    CompareFunc::ALWAYS,
    CompareFunc::NEVER,
];

#[test]
fn depth_tested_colour_varyings() {
    let before = crate::raster::SPAN_Z_SHADED_PX.with(|c| c.get());
    for (fmt, bpe) in [(Format::Z24_UNORM_S8_UINT, 4u32), (Format::Z16_UNORM, 2)] {
        // Tile control: loads and stores both halves, then a partial clear keeping stencil
        // (depth from the background), then one keeping depth.
        for (ctrl, what) in [
            (0b00_1111u8, "load"),
            (0b01_1011, "keep stencil"),
            (0b10_1011, "keep depth"),
        ] {
            let name = format!("depth span {} {what}", fmt.name());
            let r = check(&name, |s| {
                let mut rng = Rng(0x2d5a_0000 ^ fmt.raw() ^ u32::from(ctrl));
                let (w, h) = (53u32, 41u32);
                let wh = (w as f32, h as f32);
                let (mut rd, fb) = target(s, w, h);
                let zb = Mem::new((w * bpe * h) as usize);
                zb.write(0, &rng.bytes(zb.len_B()));
                let zva = s.alloc_with(zb.clone(), Perm::RW);
                rd.zls = Some((fmt, zva, w * bpe));
                rd.tile_ctrl = Some(vec![ctrl; (rd.w_tl * rd.h_tl) as usize]);
                rd.bg_depth = 0.625;
                rd.bg_stencil = 0x5a;
                let mut draws = Vec::new();
                // A: two varyings (the second from other bytes of the vertex), covering the
                // target at mid depth so every tile has its quads, emitting the first.
                let col = |rng: &mut Rng| [0; 4].map(|_: u8| rng.f(-0.5, 1.5));
                let full = [(-1.0, -1.0), (60.0, -1.0), (-1.0, 45.0), (60.0, 45.0)];
                let mut verts = Vec::new();
                for t in [[0, 1, 2], [1, 3, 2]] {
                    for i in t {
                        let (x, y) = full[i];
                        let z = rng.f(0.3, 0.7);
                        verts.push(vert(x, y, wh, z, rng.f(0.5, 3.0), col(&mut rng)));
                    }
                }
                let mut a = DrawDesc::new(
                    Topology::TRIANGLES,
                    &verts,
                    words(&[emitpix(pa(0)), end()]),
                    viewport(wh.0, wh.1),
                );
                let d2 = a.attrs[0].3[8..].to_vec();
                a.attrs.push((AttrType::FLOAT32, 4, 32, d2));
                a.tsp.varying_count = 2;
                a.tsp.v0_interp = Interp::PERSPECTIVE;
                a.tsp.v1_interp = Interp::LINEAR;
                a.isp = IspState {
                    depth_test: true,
                    depth_write: true,
                    depth_func: CompareFunc::ALWAYS,
                    ..IspState::default()
                };
                draws.push(a);
                // Random fans, each draw with its own compare function, write and
                // interpolation; every fourth with the test off.
                for (n, &func) in FUNCS.iter().enumerate() {
                    let mut verts = Vec::new();
                    for k in 0..12 {
                        let spread = if k == 11 { 1e6 } else { 14.0 };
                        let at = (rng.f(-4.0, wh.0 + 4.0), rng.f(-4.0, wh.1 + 4.0));
                        let v = |rng: &mut Rng, spread: f32| {
                            let x = ((at.0 + rng.f(-spread, spread)) * 2.0).round() / 2.0;
                            let y = ((at.1 + rng.f(-spread, spread)) * 2.0).round() / 2.0;
                            // Some depths exactly the background's, for EQUAL.
                            let z = if k % 3 == 0 { 0.625 } else { rng.f(-0.2, 1.2) };
                            vert(x, y, wh, z, rng.f(0.25, 4.0), col(rng))
                        };
                        let centre = v(&mut rng, 0.0);
                        let (p, q, r) = (
                            v(&mut rng, spread),
                            v(&mut rng, spread),
                            v(&mut rng, spread),
                        );
                        verts.extend([centre, p, q, centre, q, r]);
                    }
                    let mut d = DrawDesc::new(
                        Topology::TRIANGLES,
                        &verts,
                        words(&[emitpix(pa(0)), end()]),
                        viewport(wh.0, wh.1),
                    );
                    d.tsp.v0_interp = [Interp::PERSPECTIVE, Interp::LINEAR, Interp::FLAT][n % 3];
                    d.isp = IspState {
                        depth_test: n % 4 != 3,
                        depth_write: n % 2 == 0,
                        depth_func: func,
                        ..IspState::default()
                    };
                    draws.push(d);
                }
                // B: one varying, emitting primary 1, which no draw since A wrote: what A's
                // last shaded quad in each tile left there (the quad loop runs B).
                let mut verts = Vec::new();
                for _ in 0..6 {
                    let at = (rng.f(0.0, wh.0), rng.f(0.0, wh.1));
                    for _ in 0..3 {
                        let (x, y) = (at.0 + rng.f(-10.0, 10.0), at.1 + rng.f(-10.0, 10.0));
                        verts.push(vert(x, y, wh, 0.0, 1.0, col(&mut rng)));
                    }
                }
                let mut b = DrawDesc::new(
                    Topology::TRIANGLES,
                    &verts,
                    words(&[emitpix(pa(1)), end()]),
                    viewport(wh.0, wh.1),
                );
                b.isp.depth_test = true;
                b.isp.depth_func = CompareFunc::ALWAYS;
                draws.push(b);
                (vec![build(s, &rd, &draws)], vec![fb, zb])
            });
            all_done(&name, &r);
        }
    }
    // The scenes took the path (counted on this thread, where one-thread runs shade).
    let taken = crate::raster::SPAN_Z_SHADED_PX.with(|c| c.get()) - before;
    assert!(
        taken > 6 * 53 * 41,
        "{taken} pixels through the depth span path"
    );
}
