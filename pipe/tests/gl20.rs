//! GL 2.0 features the caps claim, proven on the model: point-sprite coordinate replacement,
//! two-sided stencil, separate RGB and alpha blend equations.

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const BLACK: [u8; 4] = [0, 0, 0, 255];
const RED: [u8; 4] = [0, 0, 255, 255];
const BLUE: [u8; 4] = [255, 0, 0, 255];

/// Writes its GENERIC[0] input (which only a sprite delivers here) as the colour.
const FS_GENERIC0: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

fn unorm8(f: f32) -> u8 {
    (f.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A 32x32 target with one 8-pixel point drawn at the centre, sprite mask and origin given.
fn draw_sprite(mask: u16, lower_left: bool, mode: PrimMode) -> Vec<u8> {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 32, 32);
    bind_const(&mut r, &fb(&t, None));
    let fs = r.ctx.create_fs_state(FS_GENERIC0).unwrap();
    r.ctx.bind_fs_state(Some(&fs)).unwrap();
    let rast = r
        .ctx
        .create_rasterizer_state(&RasterizerState {
            point_size: 8.0,
            point_quad_rasterization: true,
            sprite_coord_enable: mask,
            sprite_coord_lower_left: lower_left,
            ..Default::default()
        })
        .unwrap();
    r.ctx.bind_rasterizer_state(Some(&rast));
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    let pts: &[(f32, f32, f32)] = match mode {
        PrimMode::POINTS => &[(16.0, 16.0, 0.0)],
        _ => &[(12.0, 12.0, 0.0), (20.0, 12.0, 0.0), (12.0, 20.0, 0.0)],
    };
    draw_px(&mut r, mode, pts);
    r.ctx.read_level(&t, 0, 0).unwrap()
}

#[test]
fn a_sprite_replaces_the_masked_texture_coordinate_with_the_point_coordinate() {
    for lower_left in [false, true] {
        let px = draw_sprite(1, lower_left, PrimMode::POINTS);
        for y in 0..32u32 {
            for x in 0..32u32 {
                let inside = (12..20).contains(&x) && (12..20).contains(&y);
                let want = if inside {
                    let s = (x as f32 + 0.5 - 12.0) / 8.0;
                    let t = (y as f32 + 0.5 - 12.0) / 8.0;
                    let t = if lower_left { 1.0 - t } else { t };
                    // B G R A bytes of (s, t, 0, 1).
                    [0, unorm8(t), unorm8(s), 255]
                } else {
                    BLACK
                };
                assert_eq!(
                    pixel(&px, 32, x, y),
                    want,
                    "({x},{y}) lower_left {lower_left}"
                );
            }
        }
    }
}

#[test]
fn without_the_mask_bit_or_for_a_triangle_the_input_is_not_replaced() {
    // The vertex shader writes no GENERIC[0], so an unreplaced input reads zero.
    let px = draw_sprite(1 << 1, false, PrimMode::POINTS);
    assert_eq!(pixel(&px, 32, 15, 15), [0, 0, 0, 0]);
    assert_eq!(pixel(&px, 32, 2, 2), BLACK);
    let px = draw_sprite(1, false, PrimMode::TRIANGLES);
    assert_eq!(pixel(&px, 32, 13, 13), [0, 0, 0, 0]);
}

fn stencil_rig() -> (Rig, std::sync::Arc<Resource>) {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 32, 32);
    let z = depth_buffer(&r, Format::Z24_UNORM_S8_UINT, 32, 32, 0);
    bind_const(&mut r, &fb(&t, Some(&z)));
    let all = clear_flags::COLOR0 | clear_flags::DEPTH | clear_flags::STENCIL;
    r.ctx.clear(all, [0.0, 0.0, 0.0, 1.0], 1.0, 0).unwrap();
    (r, t)
}

fn stencil(func: CompareFunc, zpass: StencilOp) -> StencilState {
    StencilState {
        enabled: true,
        func,
        fail_op: StencilOp::KEEP,
        zfail_op: StencilOp::KEEP,
        zpass_op: zpass,
        valuemask: 0xFF,
        writemask: 0xFF,
    }
}

fn bind_stencil(r: &mut Rig, front: StencilState, back: StencilState) {
    let d = r
        .ctx
        .create_depth_stencil_alpha_state(&DepthStencilAlphaState {
            stencil: [front, back],
            ..Default::default()
        });
    r.ctx.bind_depth_stencil_alpha_state(Some(&d));
}

/// Two rectangles of opposite winding: x in [0,16) wound one way, [16,32) the other.
fn two_windings(r: &mut Rig) {
    rect(r, 0, 0, 16, 32, 0.0);
    // rect() with its x corners swapped draws the mirror winding.
    rect(r, 32, 0, 16, 32, 0.0);
}

/// Stencil 3 written by front faces and 7 by back faces, then painted: red where 3, blue
/// where 7. Returns a pixel of the left and of the right half.
fn stencil_halves(front_ccw: bool) -> ([u8; 4], [u8; 4]) {
    let (mut r, t) = stencil_rig();
    let rast = r
        .ctx
        .create_rasterizer_state(&RasterizerState {
            front_ccw,
            ..Default::default()
        })
        .unwrap();
    r.ctx.bind_rasterizer_state(Some(&rast));
    r.ctx.set_stencil_ref(StencilRef { ref_value: [3, 7] });
    let replace = stencil(CompareFunc::ALWAYS, StencilOp::REPLACE);
    bind_stencil(&mut r, replace, replace);
    two_windings(&mut r);
    let equal = stencil(CompareFunc::EQUAL, StencilOp::KEEP);
    bind_stencil(&mut r, equal, equal);
    // Equal references for both faces: the full-screen quad's winding does not matter.
    for (reference, colour) in [(3, [1.0, 0.0, 0.0, 1.0]), (7, [0.0, 0.0, 1.0, 1.0])] {
        r.ctx.set_stencil_ref(StencilRef {
            ref_value: [reference; 2],
        });
        set_colour(&mut r, colour);
        rect(&mut r, 0, 0, 32, 32, 0.0);
    }
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    (pixel(&px, 32, 5, 9), pixel(&px, 32, 25, 9))
}

#[test]
fn front_and_back_faces_use_their_own_stencil_state_and_reference() {
    let (l, r) = stencil_halves(true);
    assert!(
        (l, r) == (RED, BLUE) || (l, r) == (BLUE, RED),
        "{l:?} {r:?}"
    );
    // Flipping which winding is front swaps the halves.
    assert_eq!(stencil_halves(false), (r, l));
}

#[test]
fn rgb_and_alpha_blend_with_their_own_equations() {
    let cases = [
        // (rgb func, alpha func, expected B G R A)
        (
            BlendFunc::ADD,
            BlendFunc::REV_SUBTRACT,
            [153, 153, 153, 153],
        ),
        (BlendFunc::MIN, BlendFunc::MAX, [51, 51, 51, 204]),
        (BlendFunc::REV_SUBTRACT, BlendFunc::ADD, [0, 0, 0, 255]),
    ];
    for (rgb_func, alpha_func, want) in cases {
        let mut r = rig();
        let t = target(&r, Format::B8G8R8A8_UNORM, 16, 16);
        bind_const(&mut r, &fb(&t, None));
        // 0.2 and 0.8 are 51 and 204 exactly.
        r.ctx
            .clear(clear_flags::COLOR0, [0.2, 0.2, 0.2, 0.8], 1.0, 0)
            .unwrap();
        let blend = r.ctx.create_blend_state(&BlendState {
            blend_enable: true,
            rgb_func,
            rgb_src_factor: BlendFactor::ONE,
            rgb_dst_factor: BlendFactor::ONE,
            alpha_func,
            alpha_src_factor: BlendFactor::ONE,
            alpha_dst_factor: BlendFactor::ONE,
            ..Default::default()
        });
        r.ctx.bind_blend_state(Some(&blend));
        set_colour(&mut r, [0.4, 0.4, 0.4, 0.2]);
        rect(&mut r, 0, 0, 16, 16, 0.0);
        let px = r.ctx.read_level(&t, 0, 0).unwrap();
        assert_eq!(pixel(&px, 16, 7, 7), want, "{rgb_func:?} / {alpha_func:?}");
    }
}
