//! The seed article's experiment, on the model: a constructed pattern whose 2x2 averages are
//! exact, six fenced generation passes, every byte of every level compared read directly and
//! sampled, the application's state and pixels intact, its occlusion query counting exactly
//! its own 128 samples, and the trace showing one ordered native submission per level.

mod common;

use std::sync::Arc;

use common::*;
use sgx_blitter::{pattern, Route};
use sgx_pipe::state::*;
use sgx_pipe::{bind, Context, DrawInfo, Format, PipeBox, PrimMode, QueryType, ResourceTemplate};

const APP_VS: &str = "VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], COLOR
  0: MOV OUT[0], IN[0]
  1: MOV OUT[1], IN[1]
  2: END
";

const APP_FS: &str = "FRAG
PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1
DCL IN[0], COLOR, COLOR
DCL OUT[0], COLOR
  0: MOV OUT[0], IN[0]
  1: END
";

/// A strip covering pixels [x0, x0+8) x [y0, y0+8) of a 32x32 target, one colour.
fn square(x0: u32, y0: u32, rgba: [f32; 4]) -> Vec<u8> {
    let n = |p: u32| p as f32 / 16.0 - 1.0;
    let (a, b) = (n(x0), n(x0 + 8));
    let (c, d) = (n(y0), n(y0 + 8));
    let mut v = Vec::new();
    for (x, y) in [(a, c), (b, c), (a, d), (b, d)] {
        for f in [x, y, 0.0, 1.0].iter().chain(rgba.iter()) {
            v.extend_from_slice(&f.to_le_bytes());
        }
    }
    v
}

#[test]
fn six_fenced_passes_exact_pixels_state_and_query_intact() {
    let mut r = rig();
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, 64);
    let l0 = pattern::level0(64);
    // The independent CPU averaging check, before any submission.
    let expected = pattern::expected_chain(&l0, 64).expect("every 2x2 average is exact");
    assert!(
        r.dev.trace().entries.is_empty(),
        "nothing submitted before the check"
    );

    // The application's own state: a 32x32 target, shaders, vertex buffers, a texture binding.
    let app_rt = r
        .screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            32,
            32,
            0,
            bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        ))
        .unwrap();
    let fb = FramebufferState::colour(Surface::new(&app_rt, 0, 0), 32, 32);
    let ctx = &mut r.ctx;
    ctx.set_framebuffer_state(&fb).unwrap();
    let vp = ViewportState::rect(0.0, 0.0, 32.0, 32.0);
    ctx.set_viewport_state(&vp).unwrap();
    let vs = ctx.create_vs_state(APP_VS).unwrap();
    let fs = ctx.create_fs_state(APP_FS).unwrap();
    ctx.bind_vs_state(Some(&vs)).unwrap();
    ctx.bind_fs_state(Some(&fs)).unwrap();
    let ve = ctx
        .create_vertex_elements_state(&VertexElement::packed(&[
            VertexFormat::R32G32B32A32_FLOAT,
            VertexFormat::R32G32B32A32_FLOAT,
        ]))
        .unwrap();
    ctx.bind_vertex_elements_state(Some(&ve));
    let app_view = SamplerView::new(&tex).levels(0, 0);
    ctx.set_sampler_views(0, &[Some(app_view.clone())]).unwrap();
    ctx.clear(sgx_pipe::clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();

    let q = ctx.create_query(QueryType::OcclusionCounter);
    ctx.begin_query(&q).unwrap();
    let vb1 = VertexBuffer::user(32, square(0, 0, [1.0, 0.0, 0.0, 1.0]));
    ctx.set_vertex_buffers(0, &[Some(vb1.clone())]).unwrap();
    ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
        .unwrap();

    // What the application had bound, which the blitter must restore.
    let bound = |ctx: &Context| {
        (
            ctx.framebuffer_state(),
            ctx.vs_state().map(|s| s.id),
            ctx.fs_state().map(|s| s.id),
            ctx.vertex_buffers(),
            ctx.sampler_views(),
            ctx.viewport_state(),
            ctx.vertex_elements_state(),
        )
    };
    let before = bound(ctx);
    let report = r.blitter.generate_mipmap(&mut r.ctx, &tex, 0, 6).unwrap();
    r.blitter
        .wait_mipmap(&tex, &report, sgx_pipe::DEFAULT_TIMEOUT)
        .unwrap();
    let ctx = &mut r.ctx;
    let after = bound(ctx);
    assert_eq!(before.0, after.0, "framebuffer");
    assert_eq!(before.1, after.1, "vertex shader");
    assert_eq!(before.2, after.2, "fragment shader");
    assert_eq!(before.3, after.3, "vertex buffers");
    assert_eq!(before.4, after.4, "sampler views");
    assert_eq!(before.5, after.5, "viewport");
    assert!(
        Arc::ptr_eq(before.6.as_ref().unwrap(), after.6.as_ref().unwrap()),
        "vertex elements"
    );
    assert!(ctx.active_query_state(), "queries resumed");

    let vb2 = VertexBuffer::user(32, square(16, 16, [0.0, 1.0, 0.0, 1.0]));
    ctx.set_vertex_buffers(0, &[Some(vb2)]).unwrap();
    ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
        .unwrap();
    ctx.end_query(&q).unwrap();
    assert_eq!(
        ctx.get_query_result(&q, true).unwrap(),
        Some(128),
        "the query counts the application's two 8x8 draws only"
    );

    // Route and trace: one native submission per level, in order, each after the previous.
    assert_eq!(report.route, Route::Gpu);
    assert_eq!(
        report.passes.iter().map(|p| p.level).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5, 6]
    );
    let trace = r.dev.trace();
    let mut prev: Option<u64> = None;
    let mut last_sub = None;
    for p in &report.passes {
        let e = trace
            .entries
            .iter()
            .find(|e| e.fence == Some(p.fence.id()))
            .expect("pass in the trace");
        assert_eq!(e.kind, "render");
        assert_eq!(format!("{:?}", e.result), "Done", "no fault");
        if let Some(f) = prev {
            assert!(
                e.deps.contains(&f),
                "pass {} ordered after fence {f}: deps {:?}",
                p.level,
                e.deps
            );
        }
        if let Some(s) = last_sub {
            assert!(e.submission > s);
        }
        assert_eq!(
            e.counters.unwrap().tiles_loaded,
            0,
            "a pass overwrites its level: nothing to load"
        );
        let written = e.counters.unwrap().pbe_bytes_written;
        let footprint = tex.layout().unwrap().level(p.level).unwrap().footprint_B;
        assert_eq!(
            written, footprint,
            "level {} writes exactly its bytes",
            p.level
        );
        prev = Some(p.fence.id());
        last_sub = Some(e.submission);
    }
    let faults = trace
        .entries
        .iter()
        .filter(|e| format!("{:?}", e.result) != "Done")
        .count();
    assert_eq!(faults, 0);

    // Every RGBA byte of every level, read directly; the source untouched.
    let got = read_all(&mut r, &tex);
    assert_eq!(got[0], l0, "source level unchanged");
    for l in 1..=6 {
        assert_eq!(got[l], expected[l], "level {l} read directly");
    }

    // ... and sampled: each level drawn with a nearest sampler into a target of its size.
    for l in 1..=6u32 {
        let s = 64 >> l;
        let dst = r
            .screen
            .resource_create(&ResourceTemplate::texture_2d(
                Format::B8G8R8A8_UNORM,
                s,
                s,
                0,
                bind::RENDER_TARGET | bind::SAMPLER_VIEW,
            ))
            .unwrap();
        r.blitter
            .blit(
                &mut r.ctx,
                &sgx_blitter::BlitInfo {
                    dst: dst.clone(),
                    dst_level: 0,
                    dst_face: 0,
                    dst_box: PipeBox::new(0, 0, s, s),
                    src: tex.clone(),
                    src_level: l,
                    src_face: 0,
                    src_box: PipeBox::new(0, 0, s, s),
                    linear: false,
                },
            )
            .unwrap();
        assert_eq!(
            r.ctx.read_level(&dst, 0, 0).unwrap(),
            expected[l as usize],
            "level {l} sampled"
        );
    }

    // The application's pixels: its two squares and the clear colour elsewhere.
    let px = r.ctx.read_level(&app_rt, 0, 0).unwrap();
    for y in 0..32usize {
        for x in 0..32usize {
            let want: [u8; 4] = if x < 8 && y < 8 {
                [0, 0, 255, 255]
            } else if (16..24).contains(&x) && (16..24).contains(&y) {
                [0, 255, 0, 255]
            } else {
                [0, 0, 0, 255]
            };
            assert_eq!(px[(y * 32 + x) * 4..][..4], want, "app pixel ({x},{y})");
        }
    }
}
