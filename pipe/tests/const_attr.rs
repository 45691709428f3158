//! Zero-stride vertex attributes: the attribute table points at a copy of the one element in
//! the batch's arena (found again by its value) instead of into the buffer. It must draw as
//! pointing into the buffer does (`set_state_reuse(false)`, the reference), as st/mesa's
//! current values uploaded at a fresh offset before each draw do, and a write to the buffer
//! must reach the next draw though nothing was bound again.

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
/// A colour per vertex (IN[1]) carried to the pixels.
const VS_COLOUR: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n";
const FS_COLOUR: &str =
    "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";
const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
/// B G R A bytes of a colour above.
fn bgra(c: [f32; 4]) -> [u8; 4] {
    let b = |f: f32| (f * 255.0) as u8;
    [b(c[2]), b(c[1]), b(c[0]), b(c[3])]
}

fn bytes(c: [f32; 4]) -> Vec<u8> {
    c.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A 32x32 black target, the colour pipeline, and a vertex buffer of 16 small triangles in
/// two rows (triangle k at vertices 3k..3k+3).
fn setup(reuse: bool) -> (Rig, Arc<Resource>, Arc<Resource>) {
    let mut r = rig();
    r.ctx.set_state_reuse(reuse);
    let t = black_target(&mut r, W, W);
    bind_const(&mut r, &fb(&t, None));
    let vs = r.ctx.create_vs_state(VS_COLOUR).unwrap();
    let fs = r.ctx.create_fs_state(FS_COLOUR).unwrap();
    r.ctx.bind_vs_state(Some(&vs)).unwrap();
    r.ctx.bind_fs_state(Some(&fs)).unwrap();
    let pos = triangle_grid(&mut r, W, W);
    (r, t, pos)
}

/// A position from vertex buffer 0 and a colour from vertex buffer 1, both vec4 of f32.
fn elements() -> Vec<VertexElement> {
    let f4 = VertexFormat::R32G32B32A32_FLOAT;
    let mut e = VertexElement::packed(&[f4, f4]);
    e[1].src_offset = 0;
    e[1].vertex_buffer_index = 1;
    e
}

fn vbuf(res: &Arc<Resource>, stride: u32, buffer_offset: u32) -> Option<VertexBuffer> {
    Some(VertexBuffer {
        stride,
        buffer_offset,
        buffer: BufferSource::Resource(res.clone()),
    })
}

/// drawoverhead's intermixed layouts through st/mesa: 16 draws alternating between a layout
/// whose colour is a current value (uploaded unsynchronized at a fresh offset of an upload
/// buffer before the draw, read with stride 0; red and blue in turn) and one whose colour is
/// per vertex (green, from a buffer of its own). Returns the pixels and the counters.
fn intermixed(reuse: bool) -> (Vec<u8>, ContextStats) {
    let (mut r, t, pos) = setup(reuse);
    let greens: Vec<u8> = (0..48).flat_map(|_| bytes(GREEN)).collect();
    let per_vertex = vertex_resource(&mut r, &greens, greens.len() as u32);
    let upload = r
        .screen
        .resource_create(&ResourceTemplate::buffer(16 * 16, bind::VERTEX_BUFFER))
        .unwrap();
    let layout = |r: &mut Rig| r.ctx.create_vertex_elements_state(&elements()).unwrap();
    let (current, varying) = (layout(&mut r), layout(&mut r));
    for k in 0..16u32 {
        if k % 2 == 0 {
            let c = if k % 4 == 0 { RED } else { BLUE };
            let at = k * 16;
            r.ctx
                .buffer_subdata_usage(
                    &upload,
                    map_flags::WRITE | map_flags::UNSYNCHRONIZED,
                    at,
                    &bytes(c),
                )
                .unwrap();
            r.ctx.bind_vertex_elements_state(Some(&current));
            r.ctx
                .set_vertex_buffers(0, &[vbuf(&pos, 16, 0), vbuf(&upload, 0, at)])
                .unwrap();
        } else {
            r.ctx.bind_vertex_elements_state(Some(&varying));
            r.ctx
                .set_vertex_buffers(0, &[vbuf(&pos, 16, 0), vbuf(&per_vertex, 16, 0)])
                .unwrap();
        }
        draw_grid_triangle(&mut r, k);
    }
    flush_and_read(&mut r, &t)
}

#[test]
fn current_values_uploaded_per_draw_reuse_their_blocks_and_draw_as_the_reference() {
    let (copied, with) = intermixed(true);
    let (pointed, without) = intermixed(false);
    assert!(
        copied == pointed,
        "copying zero-stride elements changed the pixels"
    );
    for k in 0..16u32 {
        let want = match k % 4 {
            0 => RED,
            2 => BLUE,
            _ => GREEN,
        };
        let (x, y) = ((k % 8) * 4, (k / 8) * 4);
        assert_eq!(pixel(&copied, W, x, y), bgra(want), "draw {k}");
    }
    // Pointing into the upload buffer, every draw's table and block is new; copied by value,
    // three blocks (red, blue, per-vertex green) serve all sixteen draws.
    assert_eq!(without.state_blocks_emitted, 16, "{without:?}");
    assert_eq!(with.state_blocks_emitted, 3, "{with:?}");
}

/// A zero-stride colour bound once and rewritten between draws (synchronized
/// `buffer_subdata`, then a write map), nothing bound again: each draw shows the colour
/// written before it.
fn rewritten(reuse: bool) -> Vec<u8> {
    let (mut r, t, pos) = setup(reuse);
    let colour = vertex_resource(&mut r, &bytes(RED), 16);
    let ve = r.ctx.create_vertex_elements_state(&elements()).unwrap();
    r.ctx.bind_vertex_elements_state(Some(&ve));
    r.ctx
        .set_vertex_buffers(0, &[vbuf(&pos, 16, 0), vbuf(&colour, 0, 0)])
        .unwrap();
    draw_grid_triangle(&mut r, 0);
    r.ctx.buffer_subdata(&colour, 0, &bytes(BLUE)).unwrap();
    draw_grid_triangle(&mut r, 1);
    let mut m = r
        .ctx
        .transfer_map(&colour, 0, 0, map_flags::WRITE, PipeBox::new(0, 0, 16, 1))
        .unwrap();
    m.data.copy_from_slice(&bytes(GREEN));
    r.ctx.transfer_unmap(m).unwrap();
    draw_grid_triangle(&mut r, 2);
    flush_and_read(&mut r, &t).0
}

#[test]
fn a_write_to_a_copied_zero_stride_element_reaches_the_next_draw() {
    let copied = rewritten(true);
    assert!(copied == rewritten(false), "differs from the reference");
    for (k, want) in [RED, BLUE, GREEN].into_iter().enumerate() {
        assert_eq!(pixel(&copied, W, k as u32 * 4, 0), bgra(want), "draw {k}");
    }
}
