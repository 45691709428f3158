//! The draw path's caches (the emitted DrawState, the last linked program, the buffers a
//! batch lists once) must never let a draw use stale state: a context that draws, changes one
//! state and draws again writes the same bytes as a fresh context given the second state from
//! scratch.

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
/// Two overlapping triangles: the first drawn with the base state, the second after a change.
const TRI1: [(f32, f32, f32); 3] = [(0.0, 0.0, 0.0), (24.0, 0.0, 0.0), (0.0, 24.0, 0.0)];
const TRI2: [(f32, f32, f32); 3] = [(8.0, 8.0, 0.0), (32.0, 8.0, 0.0), (8.0, 32.0, 0.0)];

/// A constant-colour pipeline (red) on a cleared 32x32 target.
fn base(r: &mut Rig, t: &Arc<Resource>) {
    bind_const(r, &fb(t, None));
    set_colour(r, [1.0, 0.0, 0.0, 1.0]);
}

/// A change of one state group, applied to a context.
type Change = fn(&mut Rig);

fn changes() -> Vec<(&'static str, Change)> {
    vec![
        ("fragment constants", |r| {
            set_colour(r, [0.0, 0.0, 1.0, 1.0])
        }),
        ("blend colour mask", |r| {
            let b = r.ctx.create_blend_state(&BlendState {
                // Red (bit 0) not written: the second triangle leaves black where it alone covers.
                colormask: 0b1110,
                ..Default::default()
            });
            r.ctx.bind_blend_state(Some(&b));
        }),
        ("scissor", |r| {
            scissor_on(r);
            r.ctx
                .set_scissor_state(&ScissorState {
                    minx: 12,
                    miny: 4,
                    maxx: 28,
                    maxy: 20,
                })
                .unwrap();
        }),
        ("viewport", |r| {
            r.ctx
                .set_viewport_state(&ViewportState::rect(0.0, 0.0, 16.0, 16.0))
                .unwrap();
        }),
        ("fragment shader", |r| {
            let fs = r.ctx.create_fs_state(FS_GREEN).unwrap();
            r.ctx.bind_fs_state(Some(&fs)).unwrap();
        }),
    ]
}

/// Writes green whatever the constants say.
const FS_GREEN: &str = "FRAG
DCL OUT[0], COLOR
IMM[0] FLT32 {    0.0000,     1.0000,     0.0000,     1.0000}
  0: MOV OUT[0], IMM[0]
  1: END
";

/// One context: base state, TRI1, `change` (if any), TRI2, in one batch.
fn one_context(change: Option<Change>) -> Vec<u8> {
    let mut r = rig();
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    draw_px(&mut r, PrimMode::TRIANGLES, &TRI1);
    if let Some(c) = change {
        c(&mut r);
    }
    draw_px(&mut r, PrimMode::TRIANGLES, &TRI2);
    r.ctx.flush().unwrap();
    r.ctx.read_level(&t, 0, 0).unwrap()
}

/// TRI1 with the base state; then a new context given the base state and the change from
/// scratch draws TRI2.
fn fresh_contexts(change: Change) -> Vec<u8> {
    let mut r = rig();
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    draw_px(&mut r, PrimMode::TRIANGLES, &TRI1);
    r.ctx.flush().unwrap();
    r.ctx = r.screen.context_create();
    base(&mut r, &t);
    change(&mut r);
    draw_px(&mut r, PrimMode::TRIANGLES, &TRI2);
    r.ctx.flush().unwrap();
    r.ctx.read_level(&t, 0, 0).unwrap()
}

#[test]
fn a_state_change_between_draws_draws_as_a_fresh_context_would() {
    let unchanged = one_context(None);
    for (name, change) in changes() {
        let cached = one_context(Some(change));
        let fresh = fresh_contexts(change);
        assert!(cached == fresh, "{name}: the second draw used stale state");
        // The change shows, so the comparison above could fail.
        assert!(cached != unchanged, "{name}: the change is not visible");
    }
}

#[test]
fn a_batch_lists_each_buffer_it_reads_once_and_every_one_it_reads() {
    let mut r = rig();
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    let vbuf = |r: &mut Rig, pts: &[(f32, f32, f32)]| {
        let data = verts_px(pts, W, W);
        vertex_resource(r, &data, data.len() as u32)
    };
    let (b1, b2) = (vbuf(&mut r, &TRI1), vbuf(&mut r, &TRI2));
    let tri = DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3);
    // Many draws from b1 with one state, then b2 after a state change, then b1 again.
    bind_vertex_resource(&mut r, &b1);
    for _ in 0..20 {
        r.ctx.draw_vbo(&tri).unwrap();
    }
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    bind_vertex_resource(&mut r, &b2);
    r.ctx.draw_vbo(&tri).unwrap();
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    bind_vertex_resource(&mut r, &b1);
    r.ctx.draw_vbo(&tri).unwrap();
    let fence = r.ctx.flush().unwrap().unwrap();
    let e = trace_entry(&r, fence.id());
    let ids: Vec<u64> = e.bos.iter().map(|b| b.bo).collect();
    for b in [&b1, &b2] {
        let n = ids.iter().filter(|&&i| i == b.bo().id()).count();
        assert_eq!(n, 1, "buffer {} listed {n} times: {ids:?}", b.bo().id());
    }
    let mut uniq = ids.clone();
    uniq.sort_unstable();
    uniq.dedup();
    assert_eq!(uniq.len(), ids.len(), "a buffer listed twice: {ids:?}");
    // And each draw read what was bound when it was made: TRI2 blue, TRI1 red drawn last.
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(pixel(&px, W, 2, 2), [0, 0, 255, 255], "TRI1 alone: red");
    assert_eq!(pixel(&px, W, 28, 10), [255, 0, 0, 255], "TRI2 alone: blue");
    assert_eq!(
        pixel(&px, W, 10, 10),
        [0, 0, 255, 255],
        "TRI1 drawn last: red"
    );
}

#[test]
fn switching_programs_back_and_forth_draws_with_each() {
    let mut r = rig();
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    let red = r.ctx.create_fs_state(FS_CONST).unwrap();
    let green = r.ctx.create_fs_state(FS_GREEN).unwrap();
    r.ctx.bind_fs_state(Some(&red)).unwrap();
    draw_px(&mut r, PrimMode::TRIANGLES, &TRI1);
    r.ctx.bind_fs_state(Some(&green)).unwrap();
    draw_px(&mut r, PrimMode::TRIANGLES, &TRI2);
    // Back to a program linked before: found again, not the last one used.
    r.ctx.bind_fs_state(Some(&red)).unwrap();
    draw_px(
        &mut r,
        PrimMode::TRIANGLES,
        &[(30.0, 28.0, 0.0), (32.0, 28.0, 0.0), (30.0, 32.0, 0.0)],
    );
    r.ctx.flush().unwrap();
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(pixel(&px, W, 2, 2), [0, 0, 255, 255], "TRI1: red");
    assert_eq!(pixel(&px, W, 10, 10), [0, 255, 0, 255], "TRI2: green");
    assert_eq!(pixel(&px, W, 30, 28), [0, 0, 255, 255], "third: red again");
    assert_eq!(pixel(&px, W, 30, 2), [0, 0, 0, 255], "untouched: black");
}

#[test]
fn a_new_block_rewrites_only_the_tables_that_changed_and_each_draw_reads_its_own() {
    let mut r = rig();
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    let words = |r: &Rig| r.ctx.stats().state_words_emitted;
    let corner = |x: f32, y: f32| [(x, y, 0.0), (x + 4.0, y, 0.0), (x, y + 4.0, 0.0)];
    // Red, blue, red again, then blue in a new batch: the constants table changes at each
    // step, the vertex table at every draw (each draw uploads its own vertices).
    draw_px(&mut r, PrimMode::TRIANGLES, &corner(0.0, 0.0));
    let w0 = words(&r);
    // Only the vertices change: the block and the vertex table are written, the fragment
    // constants are pointed at where the first block's are.
    draw_px(&mut r, PrimMode::TRIANGLES, &corner(8.0, 0.0));
    let only_vertices = words(&r) - w0;
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    let w1 = words(&r);
    draw_px(&mut r, PrimMode::TRIANGLES, &corner(16.0, 0.0));
    let with_constants = words(&r) - w1;
    assert!(
        only_vertices < with_constants,
        "unchanged constants were written again: {only_vertices} words, {with_constants} with new ones"
    );
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    draw_px(&mut r, PrimMode::TRIANGLES, &corner(24.0, 0.0));
    r.ctx.flush().unwrap();
    // A new batch has none of the old batch's tables.
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    draw_px(&mut r, PrimMode::TRIANGLES, &corner(0.0, 16.0));
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    draw_px(&mut r, PrimMode::TRIANGLES, &corner(8.0, 16.0));
    r.ctx.flush().unwrap();
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    let (red, blue) = ([0, 0, 255, 255], [255, 0, 0, 255]);
    for (x, y, want) in [
        (1, 1, red),
        (9, 1, red),
        (17, 1, blue),
        (25, 1, red),
        (1, 17, blue),
        (9, 17, red),
        (1, 8, [0, 0, 0, 255]),
    ] {
        assert_eq!(pixel(&px, W, x, y), want, "pixel {x},{y}");
    }
}

/// 16 draws of 4x4-pixel triangles in a row, each with the state of step `k % 4`: red,
/// blue (the fragment constants), a second vertex element (another layout) and the green
/// program; so every state comes back. With state reuse on or off: the pixels and the
/// context's counters.
fn alternating_states(reuse: bool) -> (Vec<u8>, ContextStats) {
    let mut r = rig();
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    r.ctx.set_state_reuse(reuse);
    let vb = triangle_grid(&mut r, W, W);
    bind_vertex_resource(&mut r, &vb);
    let one = r
        .ctx
        .create_vertex_elements_state(&VertexElement::packed(&[VertexFormat::R32G32B32A32_FLOAT]))
        .unwrap();
    let mut two_e = VertexElement::packed(&[VertexFormat::R32G32B32A32_FLOAT]);
    two_e.push(two_e[0]);
    let two = r.ctx.create_vertex_elements_state(&two_e).unwrap();
    let red = r.ctx.create_fs_state(FS_CONST).unwrap();
    let green = r.ctx.create_fs_state(FS_GREEN).unwrap();
    for k in 0..16u32 {
        let step = k % 4;
        set_colour(
            &mut r,
            if step == 1 {
                [0.0, 0.0, 1.0, 1.0]
            } else {
                [1.0, 0.0, 0.0, 1.0]
            },
        );
        r.ctx
            .bind_vertex_elements_state(Some(if step == 2 { &two } else { &one }));
        r.ctx
            .bind_fs_state(Some(if step == 3 { &green } else { &red }))
            .unwrap();
        draw_grid_triangle(&mut r, k);
    }
    flush_and_read(&mut r, &t)
}

#[test]
fn states_that_come_back_reuse_their_blocks_and_draw_as_blocks_written_anew() {
    let (reused, with) = alternating_states(true);
    let (written, without) = alternating_states(false);
    assert!(reused == written, "reusing blocks changed the pixels");
    // Each draw's own colour, computed from its step (BGRA bytes).
    let (red, blue, green) = ([0, 0, 255, 255], [255, 0, 0, 255], [0, 255, 0, 255]);
    for k in 0..16u32 {
        let want = match k % 4 {
            1 => blue,
            3 => green,
            _ => red,
        };
        let (x, y) = ((k % 8) * 4, (k / 8) * 4);
        assert_eq!(pixel(&reused, W, x, y), want, "draw {k}");
    }
    // Off, each of the 16 draws writes a block; on, only the four distinct ones are.
    assert_eq!(without.state_blocks_emitted, 16, "{without:?}");
    assert_eq!(with.state_blocks_emitted, 4, "{with:?}");
    assert!(
        with.state_words_emitted < without.state_words_emitted,
        "{with:?} vs {without:?}"
    );
}

/// Indexed draws from two index buffers, alternating and across a flush, with the index
/// buffer's address remembered (`reuse`) or looked up every draw; returns the pixels and, per
/// submission, how often each index buffer is listed in its job.
fn indexed_draws(reuse: bool) -> (Vec<u8>, Vec<[usize; 2]>) {
    let mut r = rig();
    r.ctx.set_state_reuse(reuse);
    let t = black_target(&mut r, W, W);
    base(&mut r, &t);
    let mut pts = TRI1.to_vec();
    pts.extend_from_slice(&TRI2);
    let data = verts_px(&pts, W, W);
    let vb = vertex_resource(&mut r, &data, data.len() as u32);
    bind_vertex_resource(&mut r, &vb);
    let ibuf = |r: &mut Rig, ids: [u16; 3]| {
        let bytes: Vec<u8> = ids.iter().flat_map(|i| i.to_le_bytes()).collect();
        let b = r
            .screen
            .resource_create(&ResourceTemplate::buffer(
                bytes.len() as u32,
                bind::INDEX_BUFFER,
            ))
            .unwrap();
        r.ctx.buffer_subdata(&b, 0, &bytes).unwrap();
        b
    };
    let (i1, i2) = (ibuf(&mut r, [0, 1, 2]), ibuf(&mut r, [3, 4, 5]));
    let draw = |r: &mut Rig, ib: &Arc<Resource>| {
        let d = DrawInfo {
            mode: PrimMode::TRIANGLES,
            index_size: 2,
            index: Some(BufferSource::Resource(ib.clone())),
            start: 0,
            count: 3,
            index_bias: 0,
            min_index: 0,
            max_index: 5,
        };
        r.ctx.draw_vbo(&d).unwrap();
    };
    let mut fences = Vec::new();
    // TRI1 (red) several times, TRI2 (blue), TRI1 (red) again; a flush; TRI2 (green).
    for _ in 0..5 {
        draw(&mut r, &i1);
    }
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    draw(&mut r, &i2);
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    draw(&mut r, &i1);
    fences.push(r.ctx.flush().unwrap().unwrap().id());
    set_colour(&mut r, [0.0, 1.0, 0.0, 1.0]);
    draw(&mut r, &i2);
    draw(&mut r, &i2);
    fences.push(r.ctx.flush().unwrap().unwrap().id());
    let trace = r.dev.trace().entries;
    let listed = fences
        .iter()
        .map(|f| {
            let e = trace.iter().find(|e| e.fence == Some(*f)).unwrap();
            let n = |b: &Arc<Resource>| e.bos.iter().filter(|x| x.bo == b.bo().id()).count();
            [n(&i1), n(&i2)]
        })
        .collect();
    (r.ctx.read_level(&t, 0, 0).unwrap(), listed)
}

#[test]
fn a_remembered_index_buffer_address_draws_and_lists_as_looked_up_anew() {
    let (px, listed) = indexed_draws(true);
    let (ref_px, ref_listed) = indexed_draws(false);
    assert_eq!(listed, ref_listed);
    // Each batch lists the index buffers it reads, once; the second reads only i2.
    assert_eq!(listed, vec![[1, 1], [0, 1]]);
    assert!(px == ref_px, "pixels differ from the reference");
    assert_eq!(pixel(&px, W, 2, 2), [0, 0, 255, 255], "TRI1 alone: red");
    assert_eq!(
        pixel(&px, W, 10, 10),
        [0, 255, 0, 255],
        "TRI2 drawn last: green"
    );
}
