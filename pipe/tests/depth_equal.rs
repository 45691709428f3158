//! Depth compares at the depth buffer's precision (the model's ISP, MODEL: hwdocs
//! model-choices.md "Depth precision"), seen through the pipe: a surface drawn at the depth
//! the buffer was cleared to passes GL_EQUAL at every pixel (piglit's
//! depthstencil-default_fb-clear), and a surface redrawn after a flush at the depth it wrote
//! fails GL_LESS and passes GL_EQUAL (gl-2.0-two-sided-stencil's second and third passes).

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const GREEN: [u8; 4] = [0, 255, 0, 255];
const RED: [u8; 4] = [0, 0, 255, 255];

/// Every pixel of the `w`x`h` target `t` is `want`.
fn all_are(r: &mut Rig, t: &std::sync::Arc<Resource>, w: u32, h: u32, want: [u8; 4], what: &str) {
    let px = r.ctx.read_level(t, 0, 0).unwrap();
    assert_pixels(&px, w, h, what, |_, _| want);
}

#[test]
fn a_surface_redrawn_after_a_flush_compares_as_written() {
    for zf in [Format::Z24_UNORM_S8_UINT, Format::Z16_UNORM] {
        // 0.5 (NDC 0) is halfway between two codes of both formats; the sloped surface puts
        // most pixels between codes.
        for (name, z) in [("flat", [0.0f32; 4]), ("sloped", [-0.6, 0.8, 0.1, 0.3])] {
            let what = format!("{zf:?} {name}");
            let (w, h) = (48, 40);
            let mut r = rig();
            let t = target(&r, Format::B8G8R8A8_UNORM, w, h);
            let zb = depth_buffer(&r, zf, w, h, 0);
            bind_const(&mut r, &fb(&t, Some(&zb)));
            clear_black_and_depth(&mut r, 1.0);
            let pts = [
                (-3.3, -2.7, z[0]),
                (51.1, -1.9, z[1]),
                (-2.9, 43.3, z[2]),
                (50.7, 41.9, z[3]),
            ];
            bind_depth(&mut r, CompareFunc::LESS);
            set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
            draw_px(&mut r, PrimMode::TRIANGLE_STRIP, &pts);
            // The read flushes: the next draws load the depth the first one stored.
            all_are(&mut r, &t, w, h, RED, &format!("{what}: first draw"));
            set_colour(&mut r, [0.0, 1.0, 0.0, 1.0]);
            draw_px(&mut r, PrimMode::TRIANGLE_STRIP, &pts);
            all_are(&mut r, &t, w, h, RED, &format!("{what}: LESS redraw"));
            bind_depth(&mut r, CompareFunc::EQUAL);
            draw_px(&mut r, PrimMode::TRIANGLE_STRIP, &pts);
            all_are(&mut r, &t, w, h, GREEN, &format!("{what}: EQUAL redraw"));
        }
    }
}

#[test]
fn a_flat_surface_at_the_cleared_depth_passes_equal_everywhere() {
    for zf in [Format::Z24_UNORM_S8_UINT, Format::Z16_UNORM] {
        for depth in [0.75f32, 0.25, 0.625, 0.507_812_5] {
            let mut r = rig();
            let t = target(&r, Format::B8G8R8A8_UNORM, 48, 40);
            let z = depth_buffer(&r, zf, 48, 40, 0);
            bind_const(&mut r, &fb(&t, Some(&z)));
            let dsa = r
                .ctx
                .create_depth_stencil_alpha_state(&DepthStencilAlphaState {
                    depth_enabled: true,
                    depth_func: CompareFunc::EQUAL,
                    ..Default::default()
                });
            r.ctx.bind_depth_stencil_alpha_state(Some(&dsa));
            clear_black_and_depth(&mut r, f64::from(depth));
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
            assert_pixels(&px, 48, 40, &format!("{zf:?} depth {depth}"), |_, _| GREEN);
        }
    }
}
