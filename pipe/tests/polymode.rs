//! glPolygonMode, edge flags and polygon offset through the pipe: quads and polygons drawn
//! whole (no primconvert diagonal), fill modes per facing, an EDGEFLAG vertex output, offset
//! units in steps of the depth buffer.

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 16;
const WHITE: [u8; 4] = [255; 4];

/// x 2.25..9.25, y 3.25..12.75 in pixels (symmetric in y, so either viewport orientation
/// gives the same image): no pixel centre lies on the border of a one-pixel line along its
/// edges or of a point at its corners.
const RECT: [(f32, f32); 4] = [(2.25, 3.25), (9.25, 3.25), (9.25, 12.75), (2.25, 12.75)];

fn outline(x: u32, y: u32) -> bool {
    ((y == 3 || y == 12) && (2..=8).contains(&x)) || ((x == 2 || x == 9) && (3..=12).contains(&y))
}

fn image(set: impl Fn(u32, u32) -> bool) -> Vec<u8> {
    (0..W * W)
        .flat_map(|i| if set(i % W, i / W) { WHITE } else { [0; 4] })
        .collect()
}

fn rig16() -> (Rig, std::sync::Arc<Resource>) {
    let mut r = rig();
    let t = const_target(&mut r, W, W, [1.0; 4]);
    (r, t)
}

fn bind_rast(r: &mut Rig, s: RasterizerState) {
    let cso = r.ctx.create_rasterizer_state(&s).unwrap();
    r.ctx.bind_rasterizer_state(Some(&cso));
}

fn both(mode: FillMode) -> RasterizerState {
    RasterizerState {
        fill_front: mode,
        fill_back: mode,
        ..Default::default()
    }
}

#[test]
fn quads_and_polygons_are_outlined_without_their_diagonals() {
    let pts: Vec<_> = RECT.iter().map(|&(x, y)| (x, y, 0.0)).collect();
    for mode in [PrimMode::QUADS, PrimMode::POLYGON, PrimMode::QUAD_STRIP] {
        let (mut r, t) = rig16();
        bind_rast(&mut r, both(FillMode::LINE));
        let p = if mode == PrimMode::QUAD_STRIP {
            vec![pts[0], pts[1], pts[3], pts[2]]
        } else {
            pts.clone()
        };
        draw_px(&mut r, mode, &p);
        assert_eq!(
            r.ctx.read_level(&t, 0, 0).unwrap(),
            image(outline),
            "{mode:?}"
        );
        // Filled, the same primitive covers the rectangle.
        bind_rast(&mut r, both(FillMode::FILL));
        draw_px(&mut r, mode, &p);
        let filled = image(|x, y| outline(x, y) || ((3..=8).contains(&x) && (4..=11).contains(&y)));
        assert_eq!(r.ctx.read_level(&t, 0, 0).unwrap(), filled, "{mode:?}");
    }
}

#[test]
fn points_mode_draws_the_corners_and_culling_comes_first() {
    let pts: Vec<_> = RECT.iter().map(|&(x, y)| (x, y, 0.0)).collect();
    let corners = image(|x, y| (x == 2 || x == 9) && (y == 3 || y == 12));
    let (mut r, t) = rig16();
    bind_rast(&mut r, both(FillMode::POINT));
    draw_px(&mut r, PrimMode::QUADS, &pts);
    assert_eq!(r.ctx.read_level(&t, 0, 0).unwrap(), corners);
    // Whatever its winding is, culling both faces leaves nothing to outline.
    let (mut r, t) = rig16();
    bind_rast(
        &mut r,
        RasterizerState {
            cull_face: CullMode::FRONT_AND_BACK,
            ..both(FillMode::LINE)
        },
    );
    draw_px(&mut r, PrimMode::QUADS, &pts);
    assert_eq!(r.ctx.read_level(&t, 0, 0).unwrap(), image(|_, _| false));
}

/// st/mesa's edge flag pass-through: a vertex program copying the flag attribute to an
/// EDGEFLAG output. Flags (1, 0, 1, 0) keep the two horizontal edges.
#[test]
fn an_edgeflag_output_drops_edges() {
    let (mut r, t) = rig16();
    let vs = r
        .ctx
        .create_vs_state(
            "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], EDGEFLAG\n\
             0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n",
        )
        .unwrap();
    r.ctx.bind_vs_state(Some(&vs)).unwrap();
    let ve = r
        .ctx
        .create_vertex_elements_state(&VertexElement::packed(&[
            VertexFormat::R32G32B32A32_FLOAT,
            VertexFormat::R32_FLOAT,
        ]))
        .unwrap();
    r.ctx.bind_vertex_elements_state(Some(&ve));
    let mut vals = Vec::new();
    for (&(x, y), flag) in RECT.iter().zip([1.0, 0.0, 1.0, 0.0]) {
        vals.extend([
            x / W as f32 * 2.0 - 1.0,
            y / W as f32 * 2.0 - 1.0,
            0.0,
            1.0,
            flag,
        ]);
    }
    r.ctx
        .set_vertex_buffers(0, &[Some(VertexBuffer::user_f32(5, &vals))])
        .unwrap();
    bind_rast(&mut r, both(FillMode::LINE));
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::POLYGON, 0, 4))
        .unwrap();
    let rows = image(|x, y| (y == 3 || y == 12) && (2..=8).contains(&x));
    assert_eq!(r.ctx.read_level(&t, 0, 0).unwrap(), rows);
    // Filled, edge flags do not matter.
    bind_rast(&mut r, both(FillMode::FILL));
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::POLYGON, 0, 4))
        .unwrap();
    let filled = image(|x, y| (2..=8).contains(&x) && (3..=12).contains(&y));
    assert_eq!(r.ctx.read_level(&t, 0, 0).unwrap(), filled);
}

/// Offset units are steps of the depth buffer (two of 1 / (2^24 - 1) for Z24): a second copy
/// of a square with units -1 passes LESS, with units 0 it does not; the unit follows a Z16
/// buffer (1 / 65535), where a thousandth is too small to pass after the store and load of a
/// new render.
#[test]
fn offset_units_are_steps_of_the_depth_buffer() {
    for (zf, units, wins) in [
        (Format::Z24_UNORM_S8_UINT, -1.0, true),
        (Format::Z24_UNORM_S8_UINT, 0.0, false),
        (Format::Z16_UNORM, -1.0, true),
        (Format::Z16_UNORM, -0.001, false),
    ] {
        let mut r = rig();
        let t = target(&r, Format::B8G8R8A8_UNORM, W, W);
        let z = depth_buffer(&r, zf, W, W, 0);
        bind_const(&mut r, &fb(&t, Some(&z)));
        bind_depth(&mut r, CompareFunc::LESS);
        r.ctx
            .clear(clear_flags::COLOR0 | clear_flags::DEPTH, [0.0; 4], 1.0, 0)
            .unwrap();
        set_colour(&mut r, [0.0, 1.0, 0.0, 1.0]);
        rect(&mut r, 0, 0, W, W, 0.25);
        // A new render: the first square's depth is stored and loaded in zf.
        r.ctx.flush().unwrap();
        bind_rast(
            &mut r,
            RasterizerState {
                offset_tri: true,
                offset_units: units,
                ..Default::default()
            },
        );
        set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
        rect(&mut r, 0, 0, W, W, 0.25);
        let px = r.ctx.read_level(&t, 0, 0).unwrap();
        let want = if wins {
            [0, 0, 255, 255]
        } else {
            [0, 255, 0, 255]
        };
        assert!(
            px.chunks(4).all(|p| p == want),
            "{zf:?} units {units}: {:?}",
            &px[..4]
        );
    }
}
