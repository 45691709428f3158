//! Chains the GPU route refuses (sRGB, volume textures) are generated on the CPU route, with
//! the filter GL asks of them; expected texels are computed here from the level-0 bytes.

mod common;

use common::*;
use sgx_blitter::{Blitter, Route};
use sgx_pipe::{bind, Format, PipeBox, ResourceTemplate};

#[test]
fn an_srgb_chain_is_generated_on_the_cpu_route_averaging_in_linear_light() {
    let mut r = rig();
    let tex = r
        .screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_SRGB,
            2,
            2,
            1,
            bind::SAMPLER_VIEW,
        ))
        .unwrap();
    // Black and white: the linear-light average encodes as 188, not 128.
    let texels = [
        0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255,
    ];
    r.ctx
        .texture_subdata(&tex, 0, 0, PipeBox::new(0, 0, 2, 2), &texels, 8, 0)
        .unwrap();
    let blitter = Blitter::new(&r.ctx).unwrap();
    let rep = blitter.generate_mipmap(&mut r.ctx, &tex, 0, 1).unwrap();
    assert!(matches!(rep.route, Route::Cpu { .. }));
    assert_eq!(r.ctx.read_level(&tex, 1, 0).unwrap(), [188, 188, 188, 128]);
}

#[test]
fn a_volume_mip_chain_is_generated_on_the_cpu_route_with_a_2x2x2_box() {
    let mut r = rig();
    let tex = r
        .screen
        .resource_create(&ResourceTemplate::texture_3d(
            Format::B8G8R8A8_UNORM,
            4,
            4,
            2,
            2,
            bind::SAMPLER_VIEW,
        ))
        .unwrap();
    // Distinct bytes for the 32 texels.
    let src: Vec<u8> = (0..32 * 4)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(11))
        .collect();
    r.ctx
        .texture_subdata(&tex, 0, 0, PipeBox::new_3d(0, 0, 0, 4, 4, 2), &src, 16, 64)
        .unwrap();
    let blitter = Blitter::new(&r.ctx).unwrap();
    let rep = blitter.generate_mipmap(&mut r.ctx, &tex, 0, 2).unwrap();
    assert!(matches!(rep.route, Route::Cpu { .. }), "{:?}", rep.route);
    let l1 = r.ctx.read_level(&tex, 1, 0).unwrap();
    assert_eq!(l1.len(), 2 * 2 * 4);
    for y in 0..2usize {
        for x in 0..2usize {
            for c in 0..4usize {
                let mut sum = 0u32;
                for z in 0..2usize {
                    for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        let at = ((z * 4 + 2 * y + dy) * 4 + 2 * x + dx) * 4 + c;
                        sum += u32::from(src[at]);
                    }
                }
                assert_eq!(
                    u32::from(l1[(y * 2 + x) * 4 + c]),
                    (sum + 4) / 8,
                    "({x},{y}) {c}"
                );
            }
        }
    }
}
