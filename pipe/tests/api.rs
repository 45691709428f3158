//! Entry points validate their arguments (errors, nothing bound lost), the caps and formats a
//! Mesa 22.3 state tracker reads, the shader cache on disk, time queries and render conditions.

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

/// A caller's bad argument is refused as such (not as a backend or layout failure).
#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(r: Result<T>) {
    match r {
        Err(PipeError::InvalidArgument(_)) => {}
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn bad_input_is_an_error_and_keeps_what_was_bound() {
    let mut r = rig();
    let t = target(&r, Format::B8G8R8A8_UNORM, 16, 16);
    let tex = sampled_texture(&r, Format::B8G8R8A8_UNORM, 8, 8, 3);
    bind_const(&mut r, &fb(&t, None));
    let view = SamplerView::new(&tex);
    r.ctx.set_sampler_views(0, &[Some(view.clone())]).unwrap();

    // Levels out of range, a box outside its level, a face a 2D texture lacks.
    assert!(matches!(
        r.ctx
            .set_sampler_views(0, &[Some(SamplerView::new(&tex).levels(2, 4))]),
        Err(PipeError::InvalidArgument(_))
    ));
    assert!(matches!(
        r.ctx.set_sampler_views(7, &[None, None]),
        Err(PipeError::InvalidArgument(_))
    ));
    assert_eq!(
        r.ctx.sampler_views()[0].as_ref(),
        Some(&view),
        "a refused call changes nothing"
    );
    assert_invalid(
        r.ctx
            .transfer_map(&tex, 1, 0, map_flags::READ, PipeBox::new(2, 2, 3, 3)),
    );
    assert_invalid(
        r.ctx
            .transfer_map(&tex, 4, 0, map_flags::READ, PipeBox::new(0, 0, 1, 1)),
    );
    assert_invalid(
        r.ctx
            .transfer_map(&tex, 0, 1, map_flags::READ, PipeBox::new(0, 0, 1, 1)),
    );
    assert_invalid(
        r.ctx
            .texture_subdata(&tex, 0, 0, PipeBox::new(0, 0, 8, 8), &[0; 10], 32, 0),
    );

    // Formats that cannot serve: L8 as a render target, a depth format as colour.
    let e = r.screen.resource_create(&ResourceTemplate::texture_2d(
        Format::L8_UNORM,
        8,
        8,
        0,
        bind::RENDER_TARGET,
    ));
    assert!(matches!(e, Err(PipeError::UnsupportedFormat { .. })));
    assert_invalid(r.screen.resource_create(&ResourceTemplate::texture_2d(
        Format::B8G8R8A8_UNORM,
        0,
        8,
        0,
        0,
    )));
    // One past the largest texture (hwdocs limits) is the layout's refusal, naming the limit.
    let max_px = sgx_hwdocs::limits::MAX_TEXTURE_PX as u32;
    let e = r.screen.resource_create(&ResourceTemplate::texture_2d(
        Format::B8G8R8A8_UNORM,
        max_px + 1,
        8,
        0,
        0,
    ));
    assert!(
        matches!(
            e,
            Err(PipeError::Layout(sgx_layout::LayoutError::TooLarge { max_px: m, .. })) if m == max_px
        ),
        "{e:?}"
    );
    // Ten levels of an 8x8 cube: the layout refuses, naming the four an 8x8 chain has.
    let e = r
        .screen
        .resource_create(&ResourceTemplate::cube(Format::B8G8R8A8_UNORM, 8, 9, 0));
    assert!(
        matches!(
            e,
            Err(PipeError::Layout(sgx_layout::LayoutError::BadLevelCount {
                levels: 10,
                max: 4,
                ..
            }))
        ),
        "{e:?}"
    );
    let z = depth_buffer(&r, Format::Z16_UNORM, 16, 16, 0);
    let bad_fb = FramebufferState::colour(Surface::new(&z, 0, 0), 16, 16);
    assert!(matches!(
        r.ctx.set_framebuffer_state(&bad_fb),
        Err(PipeError::UnsupportedFormat {
            format: Format::Z16_UNORM,
            ..
        })
    ));
    assert_eq!(r.ctx.framebuffer_state(), fb(&t, None), "framebuffer kept");

    // Shaders: malformed text, and the wrong stage.
    assert!(matches!(
        r.ctx.create_vs_state("VERT\nDCL IN[0\n"),
        Err(PipeError::Shader(_))
    ));
    assert_invalid(r.ctx.create_vs_state(FS_CONST));
    let vs_id = r.ctx.vs_state().unwrap().id;
    let fs = r.ctx.create_fs_state(FS_CONST).unwrap();
    assert_invalid(r.ctx.bind_vs_state(Some(&fs)));
    assert_eq!(r.ctx.vs_state().unwrap().id, vs_id);

    // Draws with something missing.
    r.ctx.bind_vertex_elements_state(None);
    assert!(matches!(
        r.ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3)),
        Err(PipeError::NotBound(_))
    ));
    let info = DrawInfo {
        index_size: 3,
        ..DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3)
    };
    assert_invalid(r.ctx.draw_vbo(&info));
}

#[test]
fn caps_and_formats_for_a_gl21_gles2_class_driver() {
    let r = rig();
    let s = &r.screen;
    assert_eq!(s.get_param(Cap::GlslFeatureLevel), 120);
    assert_eq!(s.get_param(Cap::MaxTexture2dSize), 2048);
    assert_eq!(s.get_param(Cap::NpotTextures), 1);
    assert_eq!(
        s.get_shader_param(ShaderStage::Fragment, ShaderCap::PreferredIr),
        caps::PIPE_SHADER_IR_TGSI
    );
    assert!(s.is_format_supported(
        Format::B8G8R8A8_UNORM,
        ResourceTarget::Texture2D,
        bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        1
    ));
    assert!(!s.is_format_supported(
        Format::B8G8R8A8_UNORM,
        ResourceTarget::Texture2D,
        bind::RENDER_TARGET,
        4
    ));
    assert!(!s.is_format_supported(
        Format::L8_UNORM,
        ResourceTarget::Texture2D,
        bind::RENDER_TARGET,
        1
    ));
    assert!(s.is_format_supported(
        Format::L8_UNORM,
        ResourceTarget::TextureCube,
        bind::SAMPLER_VIEW,
        1
    ));
    assert!(s.is_format_supported(
        Format::Z24_UNORM_S8_UINT,
        ResourceTarget::Texture2D,
        bind::DEPTH_STENCIL,
        1
    ));
    // Depth textures (ARB_depth_texture) are 2D; ZLS buffers have no faces or slices.
    assert!(s.is_format_supported(
        Format::Z24_UNORM_S8_UINT,
        ResourceTarget::Texture2D,
        bind::SAMPLER_VIEW | bind::DEPTH_STENCIL,
        1
    ));
    // A 1D depth texture (sampler1DShadow) is a 2D one of height 1.
    assert!(s.is_format_supported(
        Format::Z24_UNORM_S8_UINT,
        ResourceTarget::Texture1D,
        bind::SAMPLER_VIEW | bind::DEPTH_STENCIL,
        1
    ));
    for t in [ResourceTarget::TextureCube, ResourceTarget::Texture3D] {
        assert!(!s.is_format_supported(Format::Z16_UNORM, t, bind::SAMPLER_VIEW, 1));
        assert!(!s.is_format_supported(Format::Z16_UNORM, t, bind::DEPTH_STENCIL, 1));
    }
    // sRGB is sampled, never rendered.
    assert!(s.is_format_supported(
        Format::B8G8R8A8_SRGB,
        ResourceTarget::Texture3D,
        bind::SAMPLER_VIEW,
        1
    ));
    assert!(!s.is_format_supported(
        Format::B8G8R8A8_SRGB,
        ResourceTarget::Texture2D,
        bind::RENDER_TARGET,
        1
    ));
}

#[test]
fn shaders_are_compiled_once_and_found_on_disk_by_another_screen() {
    let dir = std::env::temp_dir().join(format!("sgx535-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dev: std::sync::Arc<dyn sgx_winsys::Device> =
        std::sync::Arc::new(sgx_winsys::SimDevice::new().unwrap());
    let a = Screen::with_shader_cache(dev.clone(), ShaderCache::with_dir(dir.clone()));
    let ctx = a.context_create();
    ctx.create_fs_state(FS_CONST).unwrap();
    ctx.create_fs_state(FS_CONST).unwrap();
    assert_eq!(
        (
            a.shader_cache().stats().compiles,
            a.shader_cache().stats().memory_hits
        ),
        (1, 1)
    );
    let b = Screen::with_shader_cache(dev, ShaderCache::with_dir(dir.clone()));
    let s = b.context_create().create_fs_state(FS_CONST).unwrap();
    assert_eq!(
        b.shader_cache().stats(),
        CacheStats {
            memory_hits: 0,
            disk_hits: 1,
            compiles: 0
        }
    );
    assert!(!s.compiled.code.is_empty());
    // A damaged file is ignored, not trusted.
    for e in std::fs::read_dir(&dir).unwrap() {
        std::fs::write(e.unwrap().path(), b"{not json").unwrap();
    }
    let c = Screen::with_shader_cache(
        std::sync::Arc::new(sgx_winsys::SimDevice::new().unwrap()),
        ShaderCache::with_dir(dir.clone()),
    );
    c.context_create().create_fs_state(FS_CONST).unwrap();
    assert_eq!(c.shader_cache().stats().compiles, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn time_queries_and_render_conditions() {
    let mut r = rig();
    let t = const_target(&mut r, 16, 16, [1.0; 4]);
    let el = r.ctx.create_query(QueryType::TimeElapsed);
    r.ctx.begin_query(&el).unwrap();
    rect(&mut r, 0, 0, 16, 16, 0.0);
    r.ctx.end_query(&el).unwrap();
    let ns = r.ctx.get_query_result(&el, true).unwrap().unwrap();
    assert!(ns > 0, "a render takes model time");
    let ts = r.ctx.create_query(QueryType::Timestamp);
    r.ctx.end_query(&ts).unwrap();
    assert!(r.ctx.get_query_result(&ts, true).unwrap().unwrap() >= ns);
    let fin = r.ctx.create_query(QueryType::GpuFinished);
    r.ctx.end_query(&fin).unwrap();
    assert_eq!(r.ctx.get_query_result(&fin, true).unwrap(), Some(1));

    // A predicate of zero samples skips draws under condition=false.
    let p = r.ctx.create_query(QueryType::OcclusionPredicate);
    r.ctx.begin_query(&p).unwrap();
    r.ctx.end_query(&p).unwrap();
    r.ctx
        .render_condition(Some(RenderCondition {
            query: p.clone(),
            condition: false,
            wait: true,
        }))
        .unwrap();
    set_colour(&mut r, [0.0, 1.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, 16, 16, 0.0);
    assert_eq!(r.ctx.stats().draws_skipped, 1);
    r.ctx.render_condition(None).unwrap();
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    assert_eq!(
        pixel(&px, 16, 3, 3),
        [255, 255, 255, 255],
        "the conditional draw did not happen"
    );
}

#[test]
fn a_refused_draw_takes_no_references_into_the_batch() {
    let mut r = rig();
    let _t = const_target(&mut r, 16, 16, [1.0; 4]);
    let vbuf = r
        .screen
        .resource_create(&ResourceTemplate::buffer(64, bind::VERTEX_BUFFER))
        .unwrap();
    let verts = verts_px(
        &[(0.0, 0.0, 0.0), (16.0, 0.0, 0.0), (0.0, 16.0, 0.0)],
        16,
        16,
    );
    r.ctx.buffer_subdata(&vbuf, 0, &verts).unwrap();
    bind_vertex_resource(&mut r, &vbuf);
    // Indices past the end of their buffer: refused.
    let idx = r
        .screen
        .resource_create(&ResourceTemplate::buffer(4, bind::INDEX_BUFFER))
        .unwrap();
    let bad = DrawInfo {
        index_size: 2,
        index: Some(BufferSource::Resource(idx)),
        ..DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3)
    };
    assert!(matches!(
        r.ctx.draw_vbo(&bad),
        Err(PipeError::InvalidArgument(_))
    ));
    let f = r.ctx.flush().unwrap();
    assert!(f.is_none(), "nothing was recorded, nothing submitted");
    // The same draw without the bad indices is accepted and uses the vertex buffer.
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3))
        .unwrap();
    let f = r.ctx.flush().unwrap().unwrap();
    f.wait(DEFAULT_TIMEOUT).unwrap();
    let e = trace_entry(&r, f.id());
    assert!(
        e.bos.iter().any(|b| b.bo == vbuf.bo().id()),
        "the accepted draw reads the vertex buffer"
    );
    assert_eq!(r.dev.trace().entries.len(), 1);
}

#[test]
fn a_draw_past_the_prim_vertex_limit_is_refused_up_front() {
    let mut r = rig();
    let max = sgx_hwdocs::limits::MAX_PRIM_VERTICES as u32;
    let e = r
        .ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, max + 1))
        .unwrap_err();
    assert!(matches!(e, PipeError::InvalidArgument(_)), "{e:?}");
    assert!(e.to_string().contains("MAX_PRIM_VERTICES"), "{e}");
    assert_eq!(r.ctx.stats().submissions, 0);
}

#[test]
fn a_rasterizer_with_zero_point_size_and_line_width_means_one() {
    // st/mesa's glDrawPixels/glCopyPixels rasterizers leave both at 0.
    let r = rig();
    let s = r
        .ctx
        .create_rasterizer_state(&RasterizerState {
            point_size: 0.0,
            line_width: 0.0,
            ..RasterizerState::default()
        })
        .unwrap();
    assert_eq!((s.point_size, s.line_width), (1.0, 1.0));
    for (p, l) in [(-1.0, 1.0), (1.0, f32::NAN), (f32::INFINITY, 1.0)] {
        let e = r.ctx.create_rasterizer_state(&RasterizerState {
            point_size: p,
            line_width: l,
            ..RasterizerState::default()
        });
        assert!(matches!(e, Err(PipeError::InvalidArgument(_))), "{p} {l}");
    }
}

#[test]
fn vertex_buffer_slots_rebind_in_place_and_a_refused_call_changes_nothing() {
    let mut r = rig();
    let vbuf = r
        .screen
        .resource_create(&ResourceTemplate::buffer(64, bind::VERTEX_BUFFER))
        .unwrap();
    let user = VertexBuffer::user(16, vec![0; 48]);
    let bound = |stride, buffer_offset| VertexBuffer {
        stride,
        buffer_offset,
        buffer: BufferSource::Resource(vbuf.clone()),
    };
    let mut slots = [
        VertexBufferSlot::Bind(bound(16, 0)),
        VertexBufferSlot::Bind(user.clone()),
    ];
    r.ctx.set_vertex_buffer_slots(0, &mut slots).unwrap();
    assert!(r.ctx.vertex_buffer_holds(0, &vbuf));
    assert!(!r.ctx.vertex_buffer_holds(1, &vbuf), "a user buffer");
    assert!(!r.ctx.vertex_buffer_holds(31, &vbuf), "past the slots");
    let before = r.ctx.vertex_buffers();

    // Each refused: a rebind of a user buffer or an empty slot, a stride the pipe cannot take,
    // a texture, slots past the end. A bind made before the bad slot is not applied either.
    let tex = sampled_texture(&r, Format::B8G8R8A8_UNORM, 4, 4, 0);
    let refused: [(usize, Vec<VertexBufferSlot>); 5] = [
        (
            0,
            vec![
                VertexBufferSlot::Unbound,
                VertexBufferSlot::Rebind {
                    stride: 8,
                    buffer_offset: 0,
                },
            ],
        ),
        (
            2,
            vec![VertexBufferSlot::Rebind {
                stride: 8,
                buffer_offset: 0,
            }],
        ),
        (
            0,
            vec![VertexBufferSlot::Rebind {
                stride: 4096,
                buffer_offset: 0,
            }],
        ),
        (
            0,
            vec![
                VertexBufferSlot::Bind(bound(8, 8)),
                VertexBufferSlot::Bind(VertexBuffer {
                    stride: 16,
                    buffer_offset: 0,
                    buffer: BufferSource::Resource(tex),
                }),
            ],
        ),
        (MAX_VERTEX_BUFFERS, vec![VertexBufferSlot::Unbound]),
    ];
    for (start, mut slots) in refused {
        assert_invalid(r.ctx.set_vertex_buffer_slots(start, &mut slots));
        assert_eq!(r.ctx.vertex_buffers(), before, "a refused call at {start}");
    }

    // A rebind keeps the resource (no new reference) at the new layout.
    let refs = std::sync::Arc::strong_count(&vbuf);
    let mut slots = [VertexBufferSlot::Rebind {
        stride: 32,
        buffer_offset: 4,
    }];
    r.ctx.set_vertex_buffer_slots(0, &mut slots).unwrap();
    assert_eq!(std::sync::Arc::strong_count(&vbuf), refs);
    let mut want = before;
    want[0] = Some(bound(32, 4));
    assert_eq!(r.ctx.vertex_buffers(), want);
    // Unbound empties a slot.
    r.ctx
        .set_vertex_buffer_slots(1, &mut [VertexBufferSlot::Unbound])
        .unwrap();
    want[1] = None;
    assert_eq!(r.ctx.vertex_buffers(), want);
}
