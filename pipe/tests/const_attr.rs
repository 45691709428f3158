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
    let (t, pos) = colour_grid(&mut r, W);
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

/// drawoverhead's intermixed layouts through st/mesa: a layout whose colour is a current
/// value (uploaded unsynchronized at a fresh offset of an upload buffer before the draw, read
/// with stride 0) and one whose colour is per vertex (green, from a buffer of its own).
struct Intermixed {
    r: Rig,
    t: Arc<Resource>,
    pos: Arc<Resource>,
    per_vertex: Arc<Resource>,
    upload: Arc<Resource>,
    current: Arc<Vec<VertexElement>>,
    varying: Arc<Vec<VertexElement>>,
}

impl Intermixed {
    fn new(reuse: bool) -> Intermixed {
        let (mut r, t, pos) = setup(reuse);
        let greens: Vec<u8> = (0..48).flat_map(|_| bytes(GREEN)).collect();
        let per_vertex = vertex_resource(&mut r, &greens, greens.len() as u32);
        let upload = r
            .screen
            .resource_create(&ResourceTemplate::buffer(16 * 16, bind::VERTEX_BUFFER))
            .unwrap();
        let layout = |r: &mut Rig| r.ctx.create_vertex_elements_state(&elements()).unwrap();
        let (current, varying) = (layout(&mut r), layout(&mut r));
        Intermixed {
            r,
            t,
            pos,
            per_vertex,
            upload,
            current,
            varying,
        }
    }

    /// Writes `c` at byte `at` of the upload buffer, unsynchronized.
    fn upload(&mut self, at: u32, c: [f32; 4]) {
        let unsync = map_flags::WRITE | map_flags::UNSYNCHRONIZED;
        self.r
            .ctx
            .buffer_subdata_usage(&self.upload, unsync, at, &bytes(c))
            .unwrap();
    }

    /// Binds draw `k`'s state: even draws the current value (red and blue in turn, at
    /// offset 16k), odd ones the per-vertex colour.
    fn bind(&mut self, k: u32) {
        let second = if k.is_multiple_of(2) {
            let at = k * 16;
            self.upload(at, if k.is_multiple_of(4) { RED } else { BLUE });
            self.r.ctx.bind_vertex_elements_state(Some(&self.current));
            vbuf(&self.upload, 0, at)
        } else {
            self.r.ctx.bind_vertex_elements_state(Some(&self.varying));
            vbuf(&self.per_vertex, 16, 0)
        };
        self.r
            .ctx
            .set_vertex_buffers(0, &[vbuf(&self.pos, 16, 0), second])
            .unwrap();
    }
}

/// 16 intermixed draws; the pixels and the counters.
fn intermixed(reuse: bool) -> (Vec<u8>, ContextStats) {
    let mut s = Intermixed::new(reuse);
    for k in 0..16u32 {
        s.bind(k);
        draw_grid_triangle(&mut s.r, k);
    }
    flush_and_read(&mut s.r, &s.t)
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

/// `intermixed`'s draws with the emit memo on or off (state reuse on in both), and changes
/// the memo must not paper over: a blend colour (every block's TSP words change) before draw
/// 6, a flush (a new batch: new addresses) before draw 10, and before draw 13 the current
/// value of draw 12 rewritten in place (blue), nothing bound again. Returns the pixels, the
/// counters and the address of the block each draw used.
fn intermixed_memo(memo: bool) -> (Vec<u8>, ContextStats, Vec<Option<u32>>) {
    let mut s = Intermixed::new(true);
    s.r.ctx.set_emit_memo(memo);
    let mut blocks = Vec::new();
    for k in 0..16u32 {
        if k == 6 {
            s.r.ctx.set_blend_color(BlendColor {
                color: [0.5, 0.25, 0.0, 1.0],
            });
        }
        if k == 10 {
            s.r.ctx.flush().unwrap();
        }
        if k == 13 {
            s.upload(12 * 16, BLUE);
        } else {
            s.bind(k);
        }
        draw_grid_triangle(&mut s.r, k);
        blocks.push(s.r.ctx.state_block_va());
    }
    let (px, stats) = flush_and_read(&mut s.r, &s.t);
    (px, stats, blocks)
}

#[test]
fn the_emit_memo_points_at_the_blocks_the_full_pass_writes() {
    let (memo_px, with, memo_blocks) = intermixed_memo(true);
    let (full_px, without, full_blocks) = intermixed_memo(false);
    assert!(memo_px == full_px, "the emit memo changed the pixels");
    for k in 0..16u32 {
        let want = match k {
            13 => BLUE,
            _ if k % 2 == 1 => GREEN,
            _ if k % 4 == 0 => RED,
            _ => BLUE,
        };
        let (x, y) = ((k % 8) * 4, (k / 8) * 4);
        assert_eq!(pixel(&memo_px, W, x, y), bgra(want), "draw {k}");
    }
    // Every draw uses the block at the address the full pass gives it (the batch's writes
    // are the same, so the same address holds the same words), and the memo writes nothing
    // the full pass would not. The second batch's arena may start elsewhere (a buffer freed
    // by the first job is reused or not): its addresses are compared from its first block.
    let from_batch = |b: &[Option<u32>]| -> Vec<u32> {
        let va: Vec<u32> = b.iter().map(|v| v.expect("a block")).collect();
        (0..16)
            .map(|k| if k < 10 { va[k] } else { va[k] - va[10] })
            .collect()
    };
    assert_eq!(from_batch(&memo_blocks), from_batch(&full_blocks));
    assert_eq!(with.state_blocks_emitted, without.state_blocks_emitted);
    assert_eq!(with.state_words_emitted, without.state_words_emitted);
    // Draws 3, 4, 5, 9, 14 and 15 find their layout's block and pack neither the attribute
    // table nor the program words; draw 13 (its buffer rewritten, only the table dirty)
    // finds blue, which came back in the new batch (draw 10), and packs no table.
    assert_eq!(
        with.state_parts_packed + 6 * 2 + 1,
        without.state_parts_packed,
        "{with:?} vs {without:?}"
    );
}
