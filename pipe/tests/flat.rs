//! glShadeModel(GL_FLAT) on back colours: with no two-sided colour cap st/mesa gives the pixel
//! program BCOLOR inputs (it picks front or back by facing), and flat shading must cover them
//! as it covers COLOR.

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const VS_BCOLOR: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], BCOLOR[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n";
const FS_BCOLOR: &str =
    "FRAG\nDCL IN[0], BCOLOR[0], COLOR\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

const BLACK: [u8; 4] = [0, 0, 0, 255];
/// B G R A bytes of the last vertex's colour (blue), GL's provoking vertex.
const BLUE: [u8; 4] = [255, 0, 0, 255];
/// The first vertex's colour (red), the provoking vertex of GL_FIRST_VERTEX_CONVENTION.
const RED: [u8; 4] = [0, 0, 255, 255];

/// A 32x32 target with one triangle, red, green and blue at its corners, drawn with the
/// back-colour pipeline; `flat` selects the shade model, `first` the provoking vertex
/// convention.
fn draw(flat: bool, first: bool) -> Vec<u8> {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 32, 32);
    bind_const(&mut r, &fb(&t, None));
    let ctx = &mut r.ctx;
    let vs = ctx.create_vs_state(VS_BCOLOR).unwrap();
    let fs = ctx.create_fs_state(FS_BCOLOR).unwrap();
    ctx.bind_vs_state(Some(&vs)).unwrap();
    ctx.bind_fs_state(Some(&fs)).unwrap();
    let ve = ctx
        .create_vertex_elements_state(&VertexElement::packed(
            &[VertexFormat::R32G32B32A32_FLOAT; 2],
        ))
        .unwrap();
    ctx.bind_vertex_elements_state(Some(&ve));
    let rast = ctx
        .create_rasterizer_state(&RasterizerState {
            flatshade: flat,
            flatshade_first: first,
            ..Default::default()
        })
        .unwrap();
    ctx.bind_rasterizer_state(Some(&rast));
    ctx.clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    let corners = [
        ((2.0f32, 2.0f32), [1.0f32, 0.0, 0.0, 1.0]),
        ((30.0, 2.0), [0.0, 1.0, 0.0, 1.0]),
        ((2.0, 30.0), [0.0, 0.0, 1.0, 1.0]),
    ];
    let mut v = Vec::new();
    for ((x, y), c) in corners {
        for f in [x / 16.0 - 1.0, y / 16.0 - 1.0, 0.0, 1.0]
            .into_iter()
            .chain(c)
        {
            v.extend_from_slice(&f.to_le_bytes());
        }
    }
    ctx.set_vertex_buffers(
        0,
        &[Some(VertexBuffer {
            stride: 32,
            buffer_offset: 0,
            buffer: BufferSource::User(v.into()),
        })],
    )
    .unwrap();
    ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3))
        .unwrap();
    ctx.read_level(&t, 0, 0).unwrap()
}

#[test]
fn flat_shading_gives_back_colours_the_provoking_vertex_s_colour() {
    check_flat(&draw(true, false), BLUE);
    // Smooth shading blends the three colours: the same pixel is not the last vertex's.
    let smooth = draw(false, false);
    assert_ne!(pixel(&smooth, 32, 8, 8), BLUE);
}

#[test]
fn the_first_vertex_convention_gives_the_first_vertex_s_colour() {
    check_flat(&draw(true, true), RED);
}

/// Every pixel inside the triangle is `c`, the others `c` or the clear colour.
fn check_flat(px: &[u8], c: [u8; 4]) {
    for y in 0..32u32 {
        for x in 0..32u32 {
            let p = pixel(px, 32, x, y);
            // Pixel centres well inside the triangle x >= 2, y >= 2, x + y <= 32.
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            if cx > 3.0 && cy > 3.0 && cx + cy < 30.0 {
                assert_eq!(p, c, "({x},{y})");
            } else {
                assert!(p == c || p == BLACK, "({x},{y}): {p:?}");
            }
        }
    }
}
