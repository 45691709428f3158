//! Varyings whose value is the same at every vertex, compared with `==` by the pixel program:
//! what GLSL programs do with matrix and array varyings (piglit's `variable-indexing`
//! `*-varying-mat*-rd`, `varying-packing`, `literal-varyings`). The shaders are the TGSI
//! st/mesa (Mesa 22.3, nir_to_tgsi) sends for piglit's
//! `glsl-1.10/execution/variable-indexing/fs-varying-mat2-rd`: the mat2's columns packed into
//! one GENERIC, read back as `.zw`. Every pixel of the target is compared.

use std::sync::Arc;

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
const H: u32 = 32;
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLACK: [u8; 4] = [0, 0, 0, 255];

/// `m = mat2(1.0, 2.0, 3.0, 4.0)`, the position through the modelview-projection matrix.
const VS_MAT2: &str = "VERT
PROPERTY NEXT_SHADER FRAG
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[9]
DCL CONST[0][0..3]
DCL TEMP[0]
IMM[0] FLT32 {    1.0000,     2.0000,     3.0000,     4.0000}
  0: MUL TEMP[0], CONST[0][1], IN[0].yyyy
  1: MAD TEMP[0], CONST[0][0], IN[0].xxxx, TEMP[0]
  2: MAD TEMP[0], CONST[0][2], IN[0].zzzz, TEMP[0]
  3: MAD OUT[0], CONST[0][3], IN[0].wwww, TEMP[0]
  4: MOV OUT[1].xy, IMM[0].xyxx
  5: MOV OUT[1].zw, IMM[0].zzzw
  6: END
";

/// `gl_FragColor = (m[1] == expect) ? green : red`.
const FS_MAT2: &str = "FRAG
PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1
DCL IN[0], GENERIC[9], PERSPECTIVE
DCL OUT[0], COLOR
DCL CONST[0][0]
DCL TEMP[0]
IMM[0] FLT32 {    0.0000,     1.0000,     0.0000,     0.0000}
  0: SEQ TEMP[0].xy, IN[0].zwzw, CONST[0][0].xyyy
  1: MUL TEMP[0].x, TEMP[0].xyxx, TEMP[0].yyxx
  2: CMP OUT[0], -TEMP[0].xxxx, IMM[0].xyxy, IMM[0].yxxy
  3: END
";

fn consts(r: &mut Rig, stage: ShaderStage, v: &[f32]) {
    let data: Vec<u32> = v.iter().map(|f| f.to_bits()).collect();
    r.ctx
        .set_constant_buffer(stage, 0, Some(ConstantBuffer { data: data.into() }))
        .unwrap();
}

/// A black target with the mat2 pair bound: the matrix `mvp` (columns in CONST[0..3]) for
/// the vertices, `expect` in the pixel program's CONST[0].
fn mat2_rig(mvp: &[f32; 16], expect: [f32; 2]) -> (Rig, Arc<Resource>) {
    let mut r = rig();
    let t = black_target(&mut r, W, H);
    let v = r.ctx.create_vs_state(VS_MAT2).unwrap();
    let f = r.ctx.create_fs_state(FS_MAT2).unwrap();
    r.ctx.bind_vs_state(Some(&v)).unwrap();
    r.ctx.bind_fs_state(Some(&f)).unwrap();
    consts(&mut r, ShaderStage::Vertex, mvp);
    consts(
        &mut r,
        ShaderStage::Fragment,
        &[expect[0], expect[1], 0.0, 0.0],
    );
    (r, t)
}

/// Draws `pts` (target pixels; w = 1 after the matrix `mvp`) with the mat2 pair
/// (`mat2_rig`); returns the target.
fn draw_mat2(mvp: [f32; 16], expect: [f32; 2], pts: &[(f32, f32, f32)]) -> Vec<u8> {
    let (mut r, t) = mat2_rig(&mvp, expect);
    draw_px(&mut r, PrimMode::TRIANGLE_STRIP, pts);
    r.ctx.read_level(&t, 0, 0).unwrap()
}

const IDENTITY: [f32; 16] = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

#[test]
fn a_mat2_varying_equal_at_every_vertex_compares_equal_at_every_pixel() {
    // A rectangle at odd pixel edges, as piglit's `draw rect 20 5 10 10` lands: weights of
    // every size, whose sum is 1 only to rounding.
    let pts = [
        (3.0, 5.0, 0.0),
        (29.0, 5.0, 0.0),
        (3.0, 27.0, 0.0),
        (29.0, 27.0, 0.0),
    ];
    let px = draw_mat2(IDENTITY, [3.0, 4.0], &pts);
    assert_pixels(&px, W, H, "mat2", |x, y| {
        let inside = (3..29).contains(&x) && (5..27).contains(&y);
        if inside {
            GREEN
        } else {
            BLACK
        }
    });
}

#[test]
fn a_mat2_varying_compared_with_another_value_draws_red_at_every_pixel() {
    // The comparison is not vacuous: the column is (3, 4), not (3, 4.0000005).
    let pts = [
        (0.0, 0.0, 0.0),
        (32.0, 0.0, 0.0),
        (0.0, 32.0, 0.0),
        (32.0, 32.0, 0.0),
    ];
    let px = draw_mat2(IDENTITY, [3.0, 4.000_000_5], &pts);
    assert_pixels(&px, W, H, "mat2", |_, _| [0, 0, 255, 255]);
}

#[test]
fn a_constant_varying_stays_exact_under_perspective() {
    // The matrix copies z into w: the vertices have w = 1, 3, 0.5, 7 (perspective-correct
    // weights far from the affine ones); the column must still be exactly (3, 4).
    let mvp = [
        1.0, 0.0, 0.0, 0.0, //
        0.0, 1.0, 0.0, 0.0, //
        0.0, 0.0, 0.0, 1.0, //
        0.0, 0.0, 0.0, 0.0,
    ];
    // NDC x, y are scaled by w so that the pixels stay where verts_px puts them.
    let ws = [1.0f32, 3.0, 0.5, 7.0];
    let corners = [(1.0, 1.0), (31.0, 1.0), (1.0, 31.0), (31.0, 31.0)];
    let (mut r, t) = mat2_rig(&mvp, [3.0, 4.0]);
    let mut data = Vec::new();
    for (&(x, y), w) in corners.iter().zip(ws) {
        let (nx, ny) = (x / W as f32 * 2.0 - 1.0, y / H as f32 * 2.0 - 1.0);
        for v in [nx * w, ny * w, w, 1.0] {
            data.extend_from_slice(&f32::to_le_bytes(v));
        }
    }
    r.ctx
        .set_vertex_buffers(
            0,
            &[Some(VertexBuffer {
                stride: 16,
                buffer_offset: 0,
                buffer: BufferSource::User(data.into()),
            })],
        )
        .unwrap();
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
        .unwrap();
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_pixels(&px, W, H, "constant varying", |x, y| {
        let inside = (1..31).contains(&x) && (1..31).contains(&y);
        if inside {
            GREEN
        } else {
            BLACK
        }
    });
}
