//! A surface drawn at the depth the buffer was cleared to passes GL_EQUAL at every pixel
//! (piglit's depthstencil-default_fb-clear): a triangle of one depth interpolates to exactly
//! that depth, whatever its shape.

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const GREEN: [u8; 4] = [0, 255, 0, 255];

#[test]
fn a_flat_surface_at_the_cleared_depth_passes_equal_everywhere() {
    for zf in [Format::Z24_UNORM_S8_UINT, Format::Z16_UNORM] {
        for depth in [0.75f32, 0.25, 0.625, 0.507_812_5] {
            let mut r = rig();
            let t = target(&r, Format::B8G8R8A8_UNORM, 48, 40);
            let z = r
                .screen
                .resource_create(&ResourceTemplate::texture_2d(
                    zf,
                    48,
                    40,
                    0,
                    bind::DEPTH_STENCIL,
                ))
                .unwrap();
            bind_const(&mut r, &fb(&t, Some(&z)));
            let dsa = r
                .ctx
                .create_depth_stencil_alpha_state(&DepthStencilAlphaState {
                    depth_enabled: true,
                    depth_func: CompareFunc::EQUAL,
                    ..Default::default()
                });
            r.ctx.bind_depth_stencil_alpha_state(Some(&dsa));
            r.ctx
                .clear(
                    clear_flags::COLOR0 | clear_flags::DEPTH,
                    [0.0, 0.0, 0.0, 1.0],
                    f64::from(depth),
                    0,
                )
                .unwrap();
            set_colour(&mut r, [0.0, 1.0, 0.0, 1.0]);
            // NDC z whose viewport transform (z * 0.5 + 0.5) is `depth` exactly; corners off
            // the pixel grid and past the target, so the weights are not simple fractions.
            let zn = depth * 2.0 - 1.0;
            draw_px(
                &mut r,
                PrimMode::TRIANGLE_STRIP,
                &[
                    (-3.3, -2.7, zn),
                    (51.1, -1.9, zn),
                    (-2.9, 43.3, zn),
                    (50.7, 41.9, zn),
                ],
            );
            let px = r.ctx.read_level(&t, 0, 0).unwrap();
            for y in 0..40 {
                for x in 0..48 {
                    assert_eq!(
                        pixel(&px, 48, x, y),
                        GREEN,
                        "{zf:?} depth {depth} at ({x},{y})"
                    );
                }
            }
        }
    }
}
