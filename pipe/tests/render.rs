//! Drawing through the pipe on the model: triangles, depth, blending, the tile-based batch
//! (partial draws load and store only their tiles), redundant state not re-emitted.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const RED: [u8; 4] = [0, 0, 255, 255];
const BLUE: [u8; 4] = [255, 0, 0, 255];
const BLACK: [u8; 4] = [0, 0, 0, 255];

#[test]
fn a_triangle_covers_the_pixels_of_the_top_left_rule() {
    let mut r = rig();
    let t = red_on_black_32(
        &mut r,
        &[(8.0, 8.0, 0.0), (24.0, 8.0, 0.0), (8.0, 24.0, 0.0)],
    );
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3))
        .unwrap();
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    for y in 0..32 {
        for x in 0..32 {
            let inside = (8..24).contains(&x) && (8..24).contains(&y) && x + y <= 30;
            assert_eq!(
                pixel(&px, 32, x, y),
                if inside { RED } else { BLACK },
                "({x},{y})"
            );
        }
    }
}

#[test]
fn depth_test_keeps_the_nearer_surface_whatever_the_order() {
    for near_first in [true, false] {
        let (mut r, t) = depth_rig(Format::Z24_UNORM_S8_UINT);
        r.ctx
            .clear(
                clear_flags::COLOR0 | clear_flags::DEPTH | clear_flags::STENCIL,
                [0.0, 0.0, 0.0, 1.0],
                1.0,
                0,
            )
            .unwrap();
        let draws: [([f32; 4], f32); 2] =
            [([1.0, 0.0, 0.0, 1.0], 0.2), ([0.0, 0.0, 1.0, 1.0], 0.6)];
        let order: Vec<usize> = if near_first { vec![0, 1] } else { vec![1, 0] };
        for i in order {
            set_colour(&mut r, draws[i].0);
            rect(&mut r, 4, 4, 28, 28, draws[i].1);
        }
        let px = r.ctx.read_level(&t, 0, 0).unwrap();
        assert_eq!(pixel(&px, 32, 16, 16), RED, "near_first {near_first}");
        assert_eq!(pixel(&px, 32, 0, 0), BLACK);
    }
}

#[test]
fn depth_survives_a_flush_between_draws() {
    // The second draw lands in a new render: depth must come back from the ZLS buffer.
    let (mut r, t) = depth_rig(Format::Z16_UNORM);
    clear_black_and_depth(&mut r, 1.0);
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, 32, 32, 0.2);
    r.ctx.flush().unwrap();
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    rect(&mut r, 0, 0, 32, 32, 0.6);
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(pixel(&px, 32, 5, 5), RED);
}

#[test]
fn blending_mixes_by_source_alpha() {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 16, 16);
    bind_const(&mut r, &fb(&t, None));
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 1.0, 1.0], 1.0, 0)
        .unwrap();
    bind_blend(&mut r, &alpha_blend());
    set_colour(&mut r, [1.0, 0.0, 0.0, 0.25]);
    rect(&mut r, 0, 0, 16, 16, 0.0);
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    // r = 0.25 * 255 = 63.75, b = 0.75 * 255 = 191.25, a = 0.25 * 255 = 63.75.
    assert_eq!(pixel(&px, 16, 7, 7), [191, 0, 64, 64]);
}

#[test]
fn a_partial_draw_loads_and_stores_only_its_tile_and_leaves_other_bytes() {
    let mut r = rig();
    let t = black_target(&mut r, 64, 64);
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    rect(&mut r, 0, 0, 64, 64, 0.0);
    r.ctx.flush().unwrap();
    let before = t.bo().read_all(DEFAULT_TIMEOUT).unwrap();
    // One 8x8 square inside tile (1, 1), with a viewport and scissor confining it there.
    r.ctx
        .set_viewport_state(&ViewportState::rect(16.0, 16.0, 16.0, 16.0))
        .unwrap();
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    let data = verts_px(
        &[
            (4.0, 4.0, 0.0),
            (12.0, 4.0, 0.0),
            (4.0, 12.0, 0.0),
            (12.0, 12.0, 0.0),
        ],
        16,
        16,
    );
    r.ctx
        .set_vertex_buffers(0, &[Some(VertexBuffer::user(16, data))])
        .unwrap();
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
        .unwrap();
    let fence = r.ctx.flush().unwrap().unwrap();
    fence.wait(DEFAULT_TIMEOUT).unwrap();
    let e = trace_entry(&r, fence.id());
    let c = e.counters.unwrap();
    assert_eq!((c.tiles_loaded, c.tiles_stored), (1, 1), "{c:?}");
    let after = t.bo().read_all(DEFAULT_TIMEOUT).unwrap();
    let layout = t.layout().unwrap();
    let lvl = layout.level(0).unwrap();
    let mut changed = 0;
    for y in 0..64 {
        for x in 0..64 {
            let o = lvl.texel_offset_B(x, y, 4).unwrap() as usize;
            let in_square = (20..28).contains(&x) && (20..28).contains(&y);
            let same = before[o..o + 4] == after[o..o + 4];
            if in_square {
                assert_eq!(&after[o..o + 4], &RED, "({x},{y})");
            } else if !same {
                changed += 1;
            }
        }
    }
    assert_eq!(changed, 0, "pixels outside the square changed");
    assert_eq!(
        before[64 * 64 * 4..],
        after[64 * 64 * 4..],
        "bytes past the level"
    );
}

#[test]
fn rebinding_equal_state_emits_no_new_state() {
    let mut r = rig();
    let _t = const_target(&mut r, 32, 32, [1.0, 0.0, 0.0, 1.0]);
    let data = verts_px(&[(0.0, 0.0, 0.0), (8.0, 0.0, 0.0), (0.0, 8.0, 0.0)], 32, 32);
    let vb = VertexBuffer::user(16, data);
    r.ctx.set_vertex_buffers(0, &[Some(vb.clone())]).unwrap();
    for _ in 0..10 {
        // New objects with the same contents.
        let b = r.ctx.create_blend_state(&BlendState::default());
        r.ctx.bind_blend_state(Some(&b));
        let ras = r
            .ctx
            .create_rasterizer_state(&RasterizerState::default())
            .unwrap();
        r.ctx.bind_rasterizer_state(Some(&ras));
        set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
        r.ctx.set_vertex_buffers(0, &[Some(vb.clone())]).unwrap();
        r.ctx
            .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3))
            .unwrap();
    }
    let s = r.ctx.stats();
    assert_eq!(s.draws, 10);
    assert_eq!(s.state_blocks_emitted, 1, "{s:?}");
    // A real change emits once more.
    set_colour(&mut r, [0.0, 1.0, 0.0, 1.0]);
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3))
        .unwrap();
    assert_eq!(r.ctx.stats().state_blocks_emitted, 2);
    r.ctx.flush().unwrap();
    assert_eq!(r.ctx.stats().submissions, 1, "one batch, one render");
}

#[test]
fn only_dirty_state_groups_are_repacked_and_emitted() {
    let mut r = rig();
    let t = red_on_black_32(
        &mut r,
        &[(0.0, 0.0, 0.0), (16.0, 0.0, 0.0), (0.0, 16.0, 0.0)],
    );
    let tri = DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3);
    r.ctx.draw_vbo(&tri).unwrap();
    let first = r.ctx.stats();
    // Program, ISP, scissor, TSP, viewport, raster, primitive set-up and polygon words;
    // attribute and texture tables; the two stages' constants.
    assert_eq!(first.state_parts_packed, 12, "{first:?}");
    assert_eq!(first.state_blocks_emitted, 1);

    // An identical draw: nothing is repacked, no state word or record is written.
    r.ctx.draw_vbo(&tri).unwrap();
    let same = r.ctx.stats();
    assert_eq!(same.draws, 2);
    assert_eq!(
        same.state_parts_packed, first.state_parts_packed,
        "{same:?}"
    );
    assert_eq!(same.state_blocks_emitted, first.state_blocks_emitted);
    assert_eq!(same.state_words_emitted, first.state_words_emitted);

    // The fragment constants change: only they are repacked, and a new block is written.
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    let data = verts_px(
        &[(16.0, 16.0, 0.0), (32.0, 16.0, 0.0), (16.0, 32.0, 0.0)],
        32,
        32,
    );
    let vb = VertexBuffer::user(16, data);
    r.ctx.set_vertex_buffers(0, &[Some(vb)]).unwrap();
    r.ctx.draw_vbo(&tri).unwrap();
    let blue = r.ctx.stats();
    assert_eq!(
        blue.state_parts_packed - same.state_parts_packed,
        2,
        "{blue:?}"
    );
    assert_eq!(blue.state_blocks_emitted, same.state_blocks_emitted + 1);
    assert_eq!(
        blue.state_words_emitted - same.state_words_emitted,
        first.state_words_emitted,
        "a block is written whole"
    );

    // A new batch writes the block again; only the batch-bound attribute table is repacked.
    r.ctx.flush().unwrap();
    r.ctx.draw_vbo(&tri).unwrap();
    let next = r.ctx.stats();
    assert_eq!(next.submissions, 1);
    assert_eq!(
        next.state_parts_packed - blue.state_parts_packed,
        1,
        "{next:?}"
    );
    assert_eq!(next.state_blocks_emitted, blue.state_blocks_emitted + 1);

    // Each draw drew with its own state.
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(pixel(&px, 32, 2, 2), RED);
    assert_eq!(pixel(&px, 32, 18, 18), BLUE);
    assert_eq!(pixel(&px, 32, 18, 2), BLACK);
}

#[test]
fn occlusion_counts_only_samples_passing_depth() {
    let (mut r, _target) = depth_rig(Format::Z16_UNORM);
    r.ctx
        .clear(clear_flags::COLOR0 | clear_flags::DEPTH, [0.0; 4], 1.0, 0)
        .unwrap();
    set_colour(&mut r, [1.0; 4]);
    rect(&mut r, 0, 0, 16, 16, 0.2);
    let q = r.ctx.create_query(QueryType::OcclusionCounter);
    r.ctx.begin_query(&q).unwrap();
    // 32x32 at depth 0.5: the 16x16 nearer square hides 256 of its 1024 pixels.
    rect(&mut r, 0, 0, 32, 32, 0.5);
    r.ctx.end_query(&q).unwrap();
    assert_eq!(r.ctx.get_query_result(&q, true).unwrap(), Some(768));
    let p = r.ctx.create_query(QueryType::OcclusionPredicate);
    r.ctx.begin_query(&p).unwrap();
    rect(&mut r, 0, 0, 8, 8, 0.9);
    r.ctx.end_query(&p).unwrap();
    assert_eq!(
        r.ctx.get_query_result(&p, true).unwrap(),
        Some(0),
        "fully hidden"
    );
}

#[test]
fn a_cpu_read_sees_the_gpus_newer_pixels() {
    let mut r = rig();
    let t = const_target(&mut r, 16, 16, [0.0, 0.0, 1.0, 1.0]);
    rect(&mut r, 0, 0, 16, 16, 0.0);
    // No flush: the read must submit the pending batch and wait for it.
    let t1 = r
        .ctx
        .transfer_map(&t, 0, 0, map_flags::READ, PipeBox::new(3, 3, 2, 2))
        .unwrap();
    assert_eq!(&t1.data[..4], &BLUE);
    assert_eq!(r.ctx.stats().submissions, 1);
}

/// The colour of square `i` of the batch-splitting tests: red when even, blue when odd.
fn square_colour(i: u32) -> [f32; 4] {
    if i.is_multiple_of(2) {
        [1.0, 0.0, 0.0, 1.0]
    } else {
        [0.0, 0.0, 1.0, 1.0]
    }
}

/// Checks the squares of the batch-splitting tests on a 64x64 target, `per_row` to a row and
/// `per_row` rows: square `i` is red when even and blue when odd, read at `at_px` inside it.
fn assert_squares(px: &[u8], per_row: u32, at_px: (u32, u32)) {
    let side_px = 64 / per_row;
    for i in 0..per_row * per_row {
        let (x, y) = ((i % per_row) * side_px, (i / per_row) * side_px);
        let want = if i % 2 == 0 { RED } else { BLUE };
        assert_eq!(pixel(px, 64, x + at_px.0, y + at_px.1), want, "square {i}");
    }
}

#[test]
fn a_batch_that_would_outgrow_parameter_memory_is_split_and_still_right() {
    let mut r = rig();
    let t = black_target(&mut r, 64, 64);
    r.ctx.set_parameter_memory_budget(8 * 1024);
    // 64 squares of 8x8, each its own draw, with alternating colours.
    for i in 0..64u32 {
        let (x, y) = ((i % 8) * 8, (i / 8) * 8);
        set_colour(&mut r, square_colour(i));
        rect(&mut r, x, y, x + 8, y + 8, 0.0);
    }
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    let s = r.ctx.stats();
    assert!(s.pb_splits > 0 && s.submissions == s.pb_splits + 1, "{s:?}");
    assert_squares(&px, 8, (3, 5));
    assert!(
        r.dev
            .trace()
            .entries
            .iter()
            .all(|e| format!("{:?}", e.result) == "Done"),
        "no render ran out"
    );
}

#[test]
fn a_batch_holding_more_buffer_bytes_than_its_budget_is_submitted_and_still_right() {
    // Each square is drawn from its own vertex buffer, dropped right after: the batch is all
    // that keeps them, so past the held budget it is submitted (and they can be freed).
    let mut r = rig();
    let t = black_target(&mut r, 64, 64);
    r.ctx.set_held_budget(3 * 4096);
    for i in 0..16u32 {
        let (x, y) = ((i % 4) as f32 * 16.0, (i / 4) as f32 * 16.0);
        set_colour(&mut r, square_colour(i));
        let pts = [
            (x, y, 0.0),
            (x + 16.0, y, 0.0),
            (x, y + 16.0, 0.0),
            (x + 16.0, y + 16.0, 0.0),
        ];
        let data = verts_px(&pts, 64, 64);
        let vb = vertex_resource(&mut r, &data, 4096);
        bind_vertex_resource(&mut r, &vb);
        r.ctx
            .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
            .unwrap();
    }
    let held = r.ctx.stats().held_flushes;
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    // Four buffers pass a budget of three: every fourth draw submits the batch.
    assert_eq!(held, 4, "{:?}", r.ctx.stats());
    assert_squares(&px, 4, (7, 9));
}

/// glMapBuffer(GL_WRITE_ONLY) over part of a vertex buffer (glmark2's buffer scene): a write
/// map that does not discard keeps every byte the CPU does not write, in the box and out of it;
/// one that discards may start from anything.
#[test]
fn a_write_map_of_a_buffer_keeps_the_bytes_it_does_not_write() {
    let mut r = rig();
    let buf = r
        .screen
        .resource_create(&ResourceTemplate::buffer(64, bind::VERTEX_BUFFER))
        .unwrap();
    let before: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37) | 1).collect();
    let mut t = r
        .ctx
        .transfer_map(
            &buf,
            0,
            0,
            map_flags::WRITE | map_flags::DISCARD_RANGE,
            PipeBox::new(0, 0, 64, 1),
        )
        .unwrap();
    t.data.copy_from_slice(&before);
    r.ctx.transfer_unmap(t).unwrap();

    let mut t = r
        .ctx
        .transfer_map(&buf, 0, 0, map_flags::WRITE, PipeBox::new(16, 0, 32, 1))
        .unwrap();
    assert_eq!(
        t.data,
        before[16..48],
        "the staging copy holds the old bytes"
    );
    t.data[4..8].copy_from_slice(&[0xAA; 4]);
    r.ctx.transfer_unmap(t).unwrap();

    let mut want = before.clone();
    want[20..24].copy_from_slice(&[0xAA; 4]);
    let t = r
        .ctx
        .transfer_map(&buf, 0, 0, map_flags::READ, PipeBox::new(0, 0, 64, 1))
        .unwrap();
    assert_eq!(t.data, want);
}

/// A 64x64 target covered by 128 red triangles in ONE draw (a list, or a strip zig-zagging
/// across), one-pixel columns, culling `cull`, with the default parameter memory budget or
/// `budget_B`. Returns the pixels and the renders submitted.
fn columns_in_one_draw(mode: PrimMode, cull: CullMode, budget_B: Option<u64>) -> (Vec<u8>, u64) {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 64, 64);
    bind_const(&mut r, &fb(&t, None));
    if let Some(b) = budget_B {
        r.ctx.set_parameter_memory_budget(b);
    }
    bind_rasterizer(
        &mut r,
        &RasterizerState {
            cull_face: cull,
            ..Default::default()
        },
    );
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    let mut pts = Vec::new();
    for x in 0..64u32 {
        let (a, b) = (x as f32, x as f32 + 1.0);
        if mode == PrimMode::TRIANGLES {
            // Both triangles of a column wind the same way.
            pts.extend([(a, 0.0, 0.0), (b, 0.0, 0.0), (a, 64.0, 0.0)]);
            pts.extend([(b, 0.0, 0.0), (b, 64.0, 0.0), (a, 64.0, 0.0)]);
        } else {
            pts.extend([(a, 0.0, 0.0), (a, 64.0, 0.0)]);
        }
    }
    if mode == PrimMode::TRIANGLE_STRIP {
        pts.extend([(64.0, 0.0, 0.0), (64.0, 64.0, 0.0)]);
    }
    draw_px(&mut r, mode, &pts);
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert!(
        r.dev
            .trace()
            .entries
            .iter()
            .all(|e| format!("{:?}", e.result) == "Done"),
        "no render ran out"
    );
    (px, r.ctx.stats().submissions)
}

/// One draw whose primitives would need more than four budgets of parameter memory
/// (glmark2's high-poly horse: 70,000 triangles) is drawn in parts of consecutive primitives,
/// each in its own render, with the same pixels as one render. A strip's parts start on even
/// triangles: a part starting on an odd one would flip its facing, and culling would show it.
#[test]
fn a_draw_larger_than_parameter_memory_is_drawn_in_parts_with_the_same_pixels() {
    for mode in [PrimMode::TRIANGLES, PrimMode::TRIANGLE_STRIP] {
        let mut red_px = Vec::new();
        for cull in [CullMode::BACK, CullMode::FRONT] {
            let (whole, renders) = columns_in_one_draw(mode, cull, None);
            assert_eq!(renders, 1, "{mode:?}");
            // 128 triangles, about 164 bytes each over 25 tiles: 6 parts of 24 at 4 KiB.
            let (parts, renders) = columns_in_one_draw(mode, cull, Some(4096));
            assert!(renders >= 6, "{mode:?} {cull:?}: {renders} renders");
            assert!(
                whole == parts,
                "{mode:?} {cull:?}: the parts drew other pixels"
            );
            red_px.push(whole.chunks(4).filter(|p| *p == RED).count());
        }
        // One facing shows every pixel, the other none: the parts kept every facing.
        red_px.sort();
        assert_eq!(red_px, [0, 64 * 64], "{mode:?}");
    }
}

/// A 32x32 colour target with a depth buffer of `zf`, constant-colour shaders, depth test LESS
/// with writes.
fn depth_rig(zf: Format) -> (Rig, std::sync::Arc<Resource>) {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 32, 32);
    let z = depth_buffer(&r, zf, 32, 32, 0);
    bind_const(&mut r, &fb(&t, Some(&z)));
    bind_depth(&mut r, CompareFunc::LESS);
    (r, t)
}

#[test]
fn clearing_depth_keeps_stencil_and_clearing_stencil_keeps_depth() {
    let (mut r, t) = depth_rig(Format::Z24_UNORM_S8_UINT);
    let stencil = |func, op| StencilState {
        enabled: true,
        func,
        fail_op: StencilOp::KEEP,
        zfail_op: StencilOp::KEEP,
        zpass_op: op,
        valuemask: 0xFF,
        writemask: 0xFF,
    };
    let dsa = |r: &mut Rig, s: StencilState| {
        let d = r
            .ctx
            .create_depth_stencil_alpha_state(&DepthStencilAlphaState {
                depth_enabled: true,
                depth_writemask: true,
                depth_func: CompareFunc::LESS,
                stencil: [s, StencilState::default()],
            });
        r.ctx.bind_depth_stencil_alpha_state(Some(&d));
    };
    let all = clear_flags::COLOR0 | clear_flags::DEPTH | clear_flags::STENCIL;
    r.ctx.clear(all, [0.0, 0.0, 0.0, 1.0], 1.0, 0).unwrap();
    // Stencil 5 and depth 0.3 on the left half.
    r.ctx.set_stencil_ref(StencilRef { ref_value: [5, 5] });
    dsa(&mut r, stencil(CompareFunc::ALWAYS, StencilOp::REPLACE));
    set_colour(&mut r, [0.0, 0.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, 16, 32, 0.3);
    r.ctx.flush().unwrap();
    // Colour and depth cleared, stencil kept: red passes stencil == 5 and depth 0.5 < 1.0.
    clear_black_and_depth(&mut r, 1.0);
    dsa(&mut r, stencil(CompareFunc::EQUAL, StencilOp::KEEP));
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, 32, 32, 0.5);
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(pixel(&px, 32, 4, 9), RED, "stencil kept, depth cleared");
    assert_eq!(pixel(&px, 32, 20, 9), BLACK, "stencil 0 on the right");
    // Stencil cleared, depth kept: blue at 0.7 fails where red left 0.5, passes where 1.0.
    r.ctx.clear(clear_flags::STENCIL, [0.0; 4], 1.0, 0).unwrap();
    dsa(&mut r, stencil(CompareFunc::EQUAL, StencilOp::KEEP));
    r.ctx.set_stencil_ref(StencilRef { ref_value: [0, 0] });
    set_colour(&mut r, [0.0, 0.0, 1.0, 1.0]);
    rect(&mut r, 0, 0, 32, 32, 0.7);
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(pixel(&px, 32, 4, 9), RED, "depth kept on the left");
    assert_eq!(
        pixel(&px, 32, 20, 9),
        BLUE,
        "stencil cleared to 0 everywhere"
    );
}

#[test]
fn a_depth_only_framebuffer_keeps_every_depth_texel() {
    let mut r = rig();
    let z = depth_buffer(&r, Format::Z24_UNORM_S8_UINT, 64, 64, bind::SAMPLER_VIEW);
    let f = FramebufferState {
        width: 64,
        height: 64,
        cbuf: None,
        zsbuf: Some(Surface::new(&z, 0, 0)),
        extra_cbufs: Vec::new(),
    };
    bind_const(&mut r, &f);
    bind_depth(&mut r, CompareFunc::ALWAYS);
    r.ctx
        .clear(
            clear_flags::DEPTH | clear_flags::STENCIL,
            [0.0; 4],
            0.5,
            0x33,
        )
        .unwrap();
    // NDC z 0.5 is depth 0.75 after the viewport.
    rect(&mut r, 16, 16, 48, 48, 0.5);
    let got = r.ctx.read_level(&z, 0, 0).unwrap();
    let d24 = |d: f64| (d * 16_777_215.0).round() as u32;
    for y in 0..64u32 {
        for x in 0..64u32 {
            let at = ((y * 64 + x) * 4) as usize;
            let v = u32::from_le_bytes(got[at..at + 4].try_into().unwrap());
            let inside = (16..48).contains(&x) && (16..48).contains(&y);
            let want = (0x33 << 24) | d24(if inside { 0.75 } else { 0.5 });
            assert_eq!(v, want, "({x},{y})");
        }
    }
}

/// A 32x32 B8G8R8A8 target cleared to black and bound, a red constant colour, and `pts` (in
/// pixels) as the user vertex buffer: the set-up of the single-triangle tests.
fn red_on_black_32(r: &mut Rig, pts: &[(f32, f32, f32)]) -> std::sync::Arc<Resource> {
    let t = black_target(r, 32, 32);
    set_colour(r, [1.0, 0.0, 0.0, 1.0]);
    r.ctx
        .set_vertex_buffers(0, &[Some(VertexBuffer::user(16, verts_px(pts, 32, 32)))])
        .unwrap();
    t
}
