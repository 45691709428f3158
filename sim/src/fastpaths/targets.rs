//! What the pixel back end writes, through both paths: every renderable format and layout
//! with clip rectangles, depth/stencil/blend state with masks and ZLS loads, random triangles
//! on an odd target, and depth tested at the buffer's precision.

use sgx_hwdocs::isp::{CompareFunc, CullMode, IspState, Scissor, StencilOp};
use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::tsp::{BlendFactor, BlendFunc, Interp};
use sgx_hwdocs::{Format, FormatKind};

use super::{all_done, check, check_against, target};
use crate::kit::*;
use crate::raster::Threads;
use crate::{Backing, Perm};

#[test]
fn every_target_format_and_layout_with_clips() {
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().renderable && f.info().kind == FormatKind::Unorm)
        .collect();
    assert!(formats.len() >= 5);
    for &f in &formats {
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            if layout == MemLayout::TWIDDLED && !f.info().twiddlable {
                continue;
            }
            let scene = |s: &mut Scene| {
                let bpe = f.info().bytes_per_el;
                let (w, h) = (37u32, 21u32);
                let m = Mem::filled(64 * 32 * 4 + 4096, 0xa5);
                let va = s.alloc_with(m.clone(), Perm::RW);
                let pbe = PbeState {
                    base_addr: va,
                    format: f,
                    layout,
                    log2_w: 6,
                    log2_h: 5,
                    stride_B: (w * bpe).div_ceil(32) * 32 + 32,
                    extent_w_tl: 3,
                    extent_h_tl: 2,
                    clip_xmin: 3,
                    clip_ymin: 2,
                    clip_xmax: w - 2,
                    clip_ymax: h - 1,
                };
                let rd = RenderDesc {
                    pbe,
                    bg: [0.25, -1.0, 2.0, 0.5],
                    ..RenderDesc::linear(va, 48, 32, 256)
                };
                // Colour = the varying, which runs outside [0, 1] to hit the clamps.
                let verts = [
                    (clip_xy(1.5, 0.5, 48.0, 32.0, 0.5), [-0.2, 0.1, 1.3, 0.7]),
                    (clip_xy(46.0, 4.0, 48.0, 32.0, 0.5), [1.2, 0.5, -0.1, 0.2]),
                    (clip_xy(9.0, 31.0, 48.0, 32.0, 0.5), [0.4, 1.1, 0.6, 1.4]),
                ];
                let d = DrawDesc::new(
                    Topology::TRIANGLES,
                    &verts,
                    words(&[emitpix(pa(0)), end()]),
                    viewport(48.0, 32.0),
                );
                (vec![build(s, &rd, &[d])], vec![m])
            };
            let name = format!("target {f:?} {layout:?}");
            let r = check(&name, scene);
            // On the reference paths (no fast encoder) the pool hands tiles over as floats.
            check_against(
                &name,
                scene,
                [("reference, 3 threads", true, Threads::with(3))],
            );
            all_done(&format!("target {f:?}"), &r);
            assert!(r[0].counters.pbe_bytes_written > 0);
        }
    }
}

/// Every depth format the ZLS takes, and a Z24S8 buffer 100 bytes short of its last rows
/// (its rows there are past the backing: the ZLS's row copies give way to the byte path).
#[test]
fn depth_stencil_blend_masks_loads() {
    for (fmt, bpe, short_B) in [
        (Format::Z24_UNORM_S8_UINT, 4u32, 0usize),
        (Format::Z16_UNORM, 2, 0),
        (Format::Z24_UNORM_S8_UINT, 4, 100),
    ] {
        depth_stencil_blend_masks_loads_on(fmt, bpe, short_B);
    }
}

fn depth_stencil_blend_masks_loads_on(fmt: Format, bpe: u32, short_B: usize) {
    let name = format!("state {} short {short_B}", fmt.name());
    let r = check(&name, |s| {
        let (w, h) = (40u32, 24u32);
        let (mut rd, fb) = target(s, w, h);
        let zb = Mem::new((w * bpe * h) as usize - short_B);
        // ZLS rows are w * bpe = 160 or 80 bytes, 16-byte aligned.
        let mut rng = Rng(5);
        zb.write(0, &rng.bytes(zb.len_B()));
        let zva = s.alloc_with(zb.clone(), Perm::RW);
        rd.zls = Some((fmt, zva, w * bpe));
        rd.tile_ctrl = Some(vec![0b1111; 6]);
        let mut draws = Vec::new();
        let funcs = [
            (
                BlendFunc::ADD,
                BlendFactor::SRC_ALPHA,
                BlendFactor::INV_SRC_ALPHA,
            ),
            (
                BlendFunc::REV_SUBTRACT,
                BlendFactor::DST_COLOR,
                BlendFactor::CONST_ALPHA,
            ),
            (BlendFunc::MAX, BlendFactor::ONE, BlendFactor::ONE),
        ];
        for k in 0..6 {
            let z = 0.2 + 0.12 * k as f32;
            let o = k as f32 * 3.0;
            let verts = [
                (
                    clip_xy(-2.0 + o, 1.0, w as f32, h as f32, z),
                    [0.9, 0.1 * k as f32, 0.3, 0.6],
                ),
                (
                    clip_xy(38.0, 3.0 + o, w as f32, h as f32, 1.0 - z),
                    [0.2, 0.8, 0.1, 0.4],
                ),
                (
                    clip_xy(12.0 + o, 25.0, w as f32, h as f32, z),
                    [0.5, 0.4, 0.9, 0.9],
                ),
            ];
            let mut d = DrawDesc::new(
                Topology::TRIANGLES,
                &verts,
                words(&[emitpix(pa(0)), end()]),
                viewport(w as f32, h as f32),
            );
            let (func, src, dst) = funcs[k % 3];
            d.tsp.blend = k % 2 == 0;
            d.tsp.rgb_func = func;
            d.tsp.rgb_src = src;
            d.tsp.rgb_dst = dst;
            d.tsp.a_func = funcs[(k + 1) % 3].0;
            d.tsp.a_src = funcs[(k + 2) % 3].1;
            d.tsp.blend_a = 100;
            d.tsp.colour_mask = [0b1111, 0b0111, 0b1010][k % 3];
            d.tsp.v0_interp = [Interp::PERSPECTIVE, Interp::LINEAR, Interp::FLAT][k % 3];
            d.isp = IspState {
                depth_test: k != 3,
                depth_write: k != 4,
                depth_func: [
                    CompareFunc::LESS,
                    CompareFunc::GEQUAL,
                    CompareFunc::NOTEQUAL,
                ][k % 3],
                stencil_test: k >= 2,
                front_func: CompareFunc::NOTEQUAL,
                front_ref: 3,
                front_read_mask: 0xff,
                front_write_mask: 0x0f,
                front_fail: StencilOp::INCR,
                front_zfail: StencilOp::INVERT,
                front_zpass: StencilOp::REPLACE,
                back_func: CompareFunc::ALWAYS,
                back_write_mask: 0xff,
                back_zpass: StencilOp::DECR_WRAP,
                two_sided: true,
                scissor: k == 5,
                cull: CullMode::NONE,
                ..IspState::default()
            };
            d.scissor = Scissor {
                xmin: 5,
                ymin: 3,
                xmax: 30,
                ymax: 17,
            };
            draws.push(d);
        }
        (vec![build(s, &rd, &draws)], vec![fb, zb])
    });
    all_done(&name, &r);
}

#[test]
fn random_triangles_odd_target() {
    let r = check("random", |s| {
        let mut rng = Rng(0xdead_beef);
        let (w, h) = (53.0, 41.0);
        let (rd, fb) = target(s, 53, 41);
        let mut verts = Vec::new();
        for k in 0..60 {
            let spread = if k % 10 == 9 { 400.0 } else { 70.0 };
            for _ in 0..3 {
                let x = rng.f(-spread, spread + w);
                let y = rng.f(-spread, spread + h);
                let c = [rng.f(0.0, 1.0), rng.f(0.0, 1.0), rng.f(0.0, 1.0), 1.0];
                verts.push((clip_xy(x, y, w, h, rng.f(0.0, 1.0)), c));
            }
        }
        let mut d = DrawDesc::new(
            Topology::TRIANGLES,
            &verts,
            words(&[emitpix(pa(0)), end()]),
            viewport(w, h),
        );
        d.isp.depth_test = true;
        d.isp.depth_write = true;
        d.isp.depth_func = CompareFunc::LEQUAL;
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    all_done("random", &r);
}

/// Depth tested at the buffer's precision (crate::depth): random sloped triangles at close
/// depths over a random Z16 or Z24S8 buffer, loaded and stored, under every compare, with
/// writes on and off; the fast quantiser against the reference one.
#[test]
fn depth_at_the_buffer_precision() {
    for (fmt, bpe) in [(Format::Z16_UNORM, 2u32), (Format::Z24_UNORM_S8_UINT, 4)] {
        let name = format!("depth precision {}", fmt.name());
        let r = check(&name, |s| {
            let (w, h) = (37u32, 29u32);
            let (mut rd, fb) = target(s, w, h);
            let zb = Mem::new((w * bpe * h) as usize);
            let mut rng = Rng(0x5eed + bpe);
            zb.write(0, &rng.bytes(zb.len_B()));
            let zva = s.alloc_with(zb.clone(), Perm::RW);
            rd.zls = Some((fmt, zva, w * bpe));
            rd.tile_ctrl = Some(vec![0b1111; 6]);
            let funcs = [
                CompareFunc::LESS,
                CompareFunc::EQUAL,
                CompareFunc::LEQUAL,
                CompareFunc::GREATER,
                CompareFunc::NOTEQUAL,
                CompareFunc::GEQUAL,
            ];
            let mut draws = Vec::new();
            for k in 0..24 {
                let mut verts = Vec::new();
                // Depths within a few Z16 steps of 0.5, so that rounding decides the tests.
                for _ in 0..3 {
                    let (x, y) = (rng.f(-8.0, 45.0), rng.f(-8.0, 37.0));
                    let z = rng.f(-1e-4, 1e-4);
                    verts.push((clip_xy(x, y, w as f32, h as f32, z), [0.1, 0.2, 0.3, 1.0]));
                }
                let mut d = DrawDesc::new(
                    Topology::TRIANGLES,
                    &verts,
                    words(&[emitpix(pa(0)), end()]),
                    viewport(w as f32, h as f32),
                );
                d.isp.depth_test = true;
                d.isp.depth_write = k % 4 != 3;
                d.isp.depth_func = funcs[k % funcs.len()];
                draws.push(d);
            }
            (vec![build(s, &rd, &draws)], vec![fb, zb])
        });
        all_done(&name, &r);
    }
}
