//! Rendering through the C ABI on the device model: the seed's mip chain against the CPU
//! generator (also through the ABI), a textured quad against texels placed by the test, clears
//! that leave the rest alone, an occlusion query, and the device's counters.

mod common;

use std::ptr::null;

use common::*;
use sgx535::*;

/// The CPU generator through the ABI's layout engine: every level of a 2D chain.
fn cpu_chain(level0: &[u8], size: u32, levels: u32) -> Vec<Vec<u8>> {
    let mut l = sgx535_layout::default();
    // SAFETY: valid pointers; buffers sized from the layout.
    unsafe {
        ok(sgx535_layout_compute(
            PIPE_TEXTURE_2D,
            PIPE_FORMAT_B8G8R8A8_UNORM,
            size,
            size,
            1,
            levels,
            &mut l,
        ));
        let mut alloc = vec![0u8; l.total_size_B as usize];
        ok(sgx535_layout_write_rect(
            &l,
            0,
            0,
            0,
            0,
            size,
            size,
            level0.as_ptr().cast(),
            size * 4,
            alloc.as_mut_ptr().cast(),
            alloc.len() as u64,
        ));
        ok(sgx535_layout_generate_mipmap(
            &l,
            0,
            0,
            levels - 1,
            alloc.as_mut_ptr().cast(),
            alloc.len() as u64,
        ));
        (0..levels)
            .map(|lv| {
                let s = (size >> lv).max(1);
                let mut out = vec![0u8; (s * s * 4) as usize];
                ok(sgx535_layout_read_rect(
                    &l,
                    0,
                    lv,
                    0,
                    0,
                    s,
                    s,
                    alloc.as_ptr().cast(),
                    alloc.len() as u64,
                    out.as_mut_ptr().cast(),
                    s * 4,
                ));
                out
            })
            .collect()
    }
}

#[test]
fn the_seed_chain_through_the_abi_equals_the_cpu_generator() {
    let (s, c) = model();
    let (r, level0) = patterned_chain(s, c, 64);
    let before = stats(s);
    let (mut t0, mut t1) = (0u64, 0u64);
    // SAFETY: a valid pointer to a local.
    ok(unsafe { sgx535_screen_get_timestamp(s, &mut t0) });
    let (st, generated) = generate(c, r, 6);
    ok(st);
    assert_eq!(generated, 1);
    let cpu = cpu_chain(&level0, 64, 7);
    for lv in 0..7 {
        let sz = 64 >> lv;
        assert_eq!(
            read_level(c, r, lv, sz, sz, 4),
            cpu[lv as usize],
            "level {lv}"
        );
    }
    // The GPU clock moved on by the six passes (read after the read-backs waited for them).
    // SAFETY: a valid pointer to a local.
    ok(unsafe { sgx535_screen_get_timestamp(s, &mut t1) });
    assert!(t1 > t0, "{t0} -> {t1}");
    // Six generation passes, each its own submission, all on the GPU (model).
    let after = stats(s);
    assert_eq!(after.submissions - before.submissions, 6);
    assert_eq!(after.jobs_completed - before.jobs_completed, 6);
    assert!(after.pbe_bytes_written > before.pbe_bytes_written);
    ok(sgx535_resource_destroy(r));
    ok(sgx535_context_destroy(c));
    ok(sgx535_screen_destroy(s));
}

fn vertices() -> Vec<u8> {
    // x y z w s t, a strip over the whole target.
    let v: [[f32; 6]; 4] = [
        [-1.0, -1.0, 0.0, 1.0, 0.0, 0.0],
        [1.0, -1.0, 0.0, 1.0, 1.0, 0.0],
        [-1.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
    ];
    v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}

/// The vertices as a user vertex buffer of 24-byte vertices.
fn user_vertices(verts: &[u8]) -> sgx535_vertex_buffer {
    sgx535_vertex_buffer {
        stride: 24,
        buffer_offset: 0,
        buffer: sgx535_resource { id: 0 },
        user_buffer: verts.as_ptr().cast(),
        user_size: verts.len() as u64,
    }
}

/// The colour `bind_const_quad` draws with (FS_CONST's CONST[0]).
static QUAD_COLOUR: [f32; 4] = [0.25, 0.5, 0.75, 1.0];

/// Binds the pass-through VS, FS_CONST drawing `QUAD_COLOUR`, and `vb` as vertex buffer 0.
fn bind_const_quad(c: sgx535_context, vb: &sgx535_vertex_buffer) {
    let cb = sgx535_constant_buffer {
        buffer: sgx535_resource { id: 0 },
        buffer_offset: 0,
        buffer_size: 16,
        user_buffer: QUAD_COLOUR.as_ptr().cast(),
    };
    let (vs, fs) = (shader(c, VS, true), shader(c, FS_CONST, false));
    // SAFETY: valid pointers to a local, a static and the caller's vertex buffer.
    unsafe {
        ok(sgx535_bind_vs_state(c, vs));
        ok(sgx535_bind_fs_state(c, fs));
        ok(sgx535_set_constant_buffer(c, PIPE_SHADER_FRAGMENT, 0, &cb));
        ok(sgx535_set_vertex_buffers(c, 0, 1, vb));
    }
}

/// A four-vertex triangle strip, not indexed.
fn strip4() -> sgx535_draw_info {
    sgx535_draw_info {
        mode: PIPE_PRIM_TRIANGLE_STRIP,
        index_size: 0,
        index_buffer: sgx535_resource { id: 0 },
        index_user: null(),
        start: 0,
        count: 4,
        index_bias: 0,
        min_index: 0,
        max_index: 3,
        start_instance: 0,
        instance_count: 1,
    }
}

fn bind_common_state(c: sgx535_context, w: u32, h: u32) {
    let blend = sgx535_blend_state {
        rgb_func: 0,
        rgb_src_factor: PIPE_BLENDFACTOR_ONE,
        rgb_dst_factor: PIPE_BLENDFACTOR_ZERO,
        alpha_src_factor: PIPE_BLENDFACTOR_ONE,
        alpha_dst_factor: PIPE_BLENDFACTOR_ZERO,
        colormask: 0xF,
        ..Default::default()
    };
    let dsa = sgx535_depth_stencil_alpha_state {
        depth_func: PIPE_FUNC_ALWAYS,
        ..Default::default()
    };
    let rast = sgx535_rasterizer_state {
        front_ccw: 1,
        half_pixel_center: 1,
        depth_clip_near: 1,
        depth_clip_far: 1,
        line_width: 1.0,
        point_size: 1.0,
        ..Default::default()
    };
    let els = [
        sgx535_vertex_element {
            src_offset: 0,
            vertex_buffer_index: 0,
            src_format: PIPE_FORMAT_R32G32B32A32_FLOAT,
            instance_divisor: 0,
        },
        sgx535_vertex_element {
            src_offset: 16,
            vertex_buffer_index: 0,
            src_format: PIPE_FORMAT_R32G32_FLOAT,
            instance_divisor: 0,
        },
    ];
    let mut h_ = [sgx535_cso { id: 0 }; 4];
    let vp = sgx535_viewport_state {
        scale: [w as f32 / 2.0, h as f32 / 2.0, 0.5],
        translate: [w as f32 / 2.0, h as f32 / 2.0, 0.5],
    };
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_create_blend_state(c, &blend, &mut h_[0]));
        ok(sgx535_bind_blend_state(c, h_[0]));
        ok(sgx535_create_depth_stencil_alpha_state(c, &dsa, &mut h_[1]));
        ok(sgx535_bind_depth_stencil_alpha_state(c, h_[1]));
        ok(sgx535_create_rasterizer_state(c, &rast, &mut h_[2]));
        ok(sgx535_bind_rasterizer_state(c, h_[2]));
        ok(sgx535_create_vertex_elements_state(
            c,
            2,
            els.as_ptr(),
            &mut h_[3],
        ));
        ok(sgx535_bind_vertex_elements_state(c, h_[3]));
        ok(sgx535_set_viewport_states(c, 0, 1, &vp));
    }
}

#[test]
fn a_textured_quad_shows_each_texel_as_a_block() {
    textured_quad_blocks(false);
}

/// The same picture from a RECT texture (Gallium's PIPE_TEXTURE_RECT, a sampler with
/// normalized_coords = 0, TGSI's RECT target) sampled at texel coordinates.
#[test]
fn a_rect_texture_samples_at_texel_coordinates() {
    textured_quad_blocks(true);
}

/// The RECT fragment shader: the quad's [0, 1] coordinate times the texture's 4 texels.
const FS_RECT: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], RECT, FLOAT\nDCL TEMP[0]\nIMM[0] FLT32 {    4.0000,     4.0000,     0.0000,     1.0000}\n  0: MUL TEMP[0], IN[0], IMM[0]\n  1: TEX OUT[0], TEMP[0], SAMP[0], RECT\n  2: END\n";

fn textured_quad_blocks(rect: bool) {
    const PIPE_TEXTURE_RECT: u32 = 5;
    let (s, c) = model();
    let (w, h) = (32u32, 32u32);
    bind_common_state(c, w, h);
    let (rt, _surf) = target(s, c, w, h);
    // A 4x4 texture of distinct colours; NEAREST sampling makes each an 8x8 block.
    let texels: Vec<u8> = (0..16u8)
        .flat_map(|i| [i * 15, 255 - i * 15, i * 7, 255])
        .collect();
    let mut t = tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 4, 4, 0, PIPE_BIND_SAMPLER_VIEW);
    if rect {
        t.target = PIPE_TEXTURE_RECT;
    }
    let tex = create(s, &t);
    upload(c, tex, 0, 4, 4, &texels);
    let vt = level0_view(PIPE_FORMAT_B8G8R8A8_UNORM);
    let samp = sgx535_sampler_state {
        wrap_s: PIPE_TEX_WRAP_CLAMP_TO_EDGE,
        wrap_t: PIPE_TEX_WRAP_CLAMP_TO_EDGE,
        wrap_r: PIPE_TEX_WRAP_CLAMP_TO_EDGE,
        min_mip_filter: PIPE_TEX_MIPFILTER_NONE,
        normalized_coords: u8::from(!rect),
        ..Default::default()
    };
    let vs = shader(c, VS, true);
    let fs = shader(c, if rect { FS_RECT } else { FS_TEX }, false);
    let verts = vertices();
    let vb = user_vertices(&verts);
    let draw = strip4();
    let mut view = sgx535_sampler_view { id: 0 };
    let mut sh = sgx535_cso { id: 0 };
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_create_sampler_view(c, tex, &vt, &mut view));
        ok(sgx535_set_sampler_views(
            c,
            PIPE_SHADER_FRAGMENT,
            0,
            1,
            &view,
        ));
        ok(sgx535_create_sampler_state(c, &samp, &mut sh));
        ok(sgx535_bind_sampler_states(
            c,
            PIPE_SHADER_FRAGMENT,
            0,
            1,
            &sh,
        ));
        ok(sgx535_bind_vs_state(c, vs));
        ok(sgx535_bind_fs_state(c, fs));
        ok(sgx535_set_vertex_buffers(c, 0, 1, &vb));
        ok(sgx535_draw_vbo(c, &draw));
        let mut f = sgx535_fence { id: 0 };
        ok(sgx535_flush(c, 0, &mut f));
        let mut done = 0u8;
        ok(sgx535_fence_finish(s, f, u64::MAX, &mut done));
        assert_eq!(done, 1);
        ok(sgx535_fence_destroy(f));
    }
    let px = read_level(c, rt, 0, w, h, 4);
    for y in 0..h {
        for x in 0..w {
            // Texel (x/8, y/8): the viewport maps NDC y = -1, where t = 0, to row 0.
            let t = ((y / 8) * 4 + x / 8) as usize;
            let got = &px[((y * w + x) * 4) as usize..][..4];
            assert_eq!(got, &texels[t * 4..t * 4 + 4], "pixel {x},{y}");
        }
    }
    ok(sgx535_screen_destroy(s));
}

#[test]
fn clear_render_target_changes_only_its_rectangle() {
    let (s, c) = model();
    let (rt, surf) = target(s, c, 16, 16);
    let before: Vec<u8> = (0..16 * 16 * 4).map(|i| (i * 7 % 251) as u8).collect();
    upload(c, rt, 0, 16, 16, &before);
    let red = [1.0f32, 0.0, 0.0, 1.0];
    // SAFETY: valid pointers.
    ok(unsafe { sgx535_clear_render_target(c, surf, red.as_ptr(), 3, 5, 7, 4) });
    let after = read_level(c, rt, 0, 16, 16, 4);
    for y in 0..16u32 {
        for x in 0..16u32 {
            let i = ((y * 16 + x) * 4) as usize;
            let inside = (3..10).contains(&x) && (5..9).contains(&y);
            let want: &[u8] = if inside {
                &[0, 0, 255, 255]
            } else {
                &before[i..i + 4]
            };
            assert_eq!(&after[i..i + 4], want, "pixel {x},{y}");
        }
    }
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_whole_clear_and_an_occlusion_query_count_what_was_drawn() {
    let (s, c) = model();
    let (w, h) = (16u32, 8u32);
    bind_common_state(c, w, h);
    let (rt, _) = target(s, c, w, h);
    let green = [0.0f32, 1.0, 0.0, 1.0];
    let verts = vertices();
    let vb = user_vertices(&verts);
    let draw = strip4();
    let mut q = sgx535_query { id: 0 };
    let (mut ready, mut result) = (0u8, 0u64);
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_clear(
            c,
            PIPE_CLEAR_COLOR0,
            null(),
            green.as_ptr(),
            1.0,
            0,
        ));
        bind_const_quad(c, &vb);
        ok(sgx535_create_query(c, 0, 0, &mut q));
        ok(sgx535_begin_query(c, q));
        ok(sgx535_draw_vbo(c, &draw));
        ok(sgx535_end_query(c, q));
        ok(sgx535_get_query_result(c, q, 1, &mut ready, &mut result));
    }
    assert_eq!((ready, result), (1, u64::from(w * h)));
    let px = read_level(c, rt, 0, w, h, 4);
    // B G R A of (0.25, 0.5, 0.75, 1.0).
    for p in px.chunks(4) {
        assert_eq!(p, [191, 128, 64, 255]);
    }
    ok(sgx535_screen_destroy(s));
}

#[test]
fn caps_and_formats_use_mesa_numbers() {
    let (s, c) = model();
    let mut v = 0i32;
    let mut f = 0f32;
    let mut yes = 0u8;
    // SAFETY: valid pointers.
    unsafe {
        ok(sgx535_screen_get_param(s, 9, &mut v)); // PIPE_CAP_MAX_TEXTURE_2D_SIZE
        assert_eq!(v, 2048);
        ok(sgx535_screen_get_param(s, 250, &mut v)); // PIPE_CAP_SUPPORTED_PRIM_MODES
        assert_eq!(v, 0x3FF, "POINTS..POLYGON");
        // PIPE_CAP_GRAPHICS: the library has no answer; the glue uses Mesa's default.
        assert_eq!(
            sgx535_screen_get_param(s, 0, &mut v),
            SGX535_ERROR_UNSUPPORTED
        );
        assert_eq!(
            sgx535_screen_get_param(s, 100_000, &mut v),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        ok(sgx535_screen_get_shader_param(
            s,
            PIPE_SHADER_FRAGMENT,
            24,
            &mut v,
        )); // PREFERRED_IR
        assert_eq!(v, 0); // PIPE_SHADER_IR_TGSI
        ok(sgx535_screen_get_shader_param(s, 3, 0, &mut v)); // geometry: no stage
        assert_eq!(v, 0);
        ok(sgx535_screen_get_paramf(s, 7, &mut f)); // PIPE_CAPF_MAX_POINT_SIZE
        assert!(f >= 64.0);
        ok(sgx535_screen_is_format_supported(
            s,
            PIPE_FORMAT_B8G8R8A8_UNORM,
            PIPE_TEXTURE_2D,
            1,
            1,
            PIPE_BIND_RENDER_TARGET,
            &mut yes,
        ));
        assert_eq!(yes, 1);
        ok(sgx535_screen_is_format_supported(
            s,
            277,
            PIPE_TEXTURE_2D,
            1,
            1,
            PIPE_BIND_SAMPLER_VIEW,
            &mut yes,
        )); // ETC1
        assert_eq!(yes, 0);
        let mut name = null();
        ok(sgx535_screen_get_name(s, &mut name));
        assert!(std::ffi::CStr::from_ptr(name)
            .to_str()
            .unwrap()
            .starts_with("SGX535"));
    }
    ok(sgx535_context_destroy(c));
    ok(sgx535_screen_destroy(s));
}

/// Reads one face (cube) or slice (3D) of level 0 back, w x h BGRA8.
fn read_layer(c: sgx535_context, r: sgx535_resource, z: i32, w: u32, h: u32) -> Vec<u8> {
    let b = sgx535_box {
        x: 0,
        y: 0,
        z,
        width: w as i32,
        height: h as i32,
        depth: 1,
    };
    read_box(c, r, 0, &b, 4)
}

fn blit_info(
    dst: sgx535_resource,
    dz: i32,
    src: sgx535_resource,
    sz: i32,
    n: i32,
) -> sgx535_blit_info {
    let img = |resource, z| sgx535_blit_image {
        resource,
        level: 0,
        r#box: sgx535_box {
            x: 0,
            y: 0,
            z,
            width: n,
            height: n,
            depth: 1,
        },
        format: PIPE_FORMAT_B8G8R8A8_UNORM,
    };
    sgx535_blit_info {
        dst: img(dst, dz),
        src: img(src, sz),
        mask: 0xF,
        filter: 0,
        scissor_enable: 0,
        render_condition_enable: 0,
        pad: [0; 2],
        scissor: sgx535_scissor_state::default(),
    }
}

#[test]
fn blits_read_a_cube_face_and_write_a_3d_slice() {
    let (s, c) = model();
    let n = 8u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let cube = create(
        s,
        &sgx535_resource_template {
            target: 4,
            ..tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, n, n, 0, bind)
        },
    );
    let vol = create(
        s,
        &sgx535_resource_template {
            target: 3,
            depth: 4,
            ..tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, n, n, 0, bind)
        },
    );
    let flat = create(s, &tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, n, n, 0, bind));
    // Each face and slice its own bytes.
    let layer = |k: u32| -> Vec<u8> {
        (0..n * n * 4)
            .map(|i| (i * 13 + k * 71) as u8 | 1)
            .collect()
    };
    for z in 0..6u32 {
        let b = sgx535_box {
            x: 0,
            y: 0,
            z: z as i32,
            width: n as i32,
            height: n as i32,
            depth: 1,
        };
        // SAFETY: `layer` holds n*n*4 bytes.
        ok(unsafe {
            sgx535_texture_subdata(
                c,
                cube,
                0,
                PIPE_MAP_WRITE,
                &b,
                layer(z).as_ptr().cast(),
                n * 4,
                0,
            )
        });
        if z < 4 {
            ok(unsafe {
                sgx535_texture_subdata(
                    c,
                    vol,
                    0,
                    PIPE_MAP_WRITE,
                    &b,
                    layer(10 + z).as_ptr().cast(),
                    n * 4,
                    0,
                )
            });
        }
    }
    // Face 3 of the cube into the 2D texture: an unscaled nearest blit copies it exactly.
    // SAFETY: valid pointer.
    ok(unsafe { sgx535_blit(c, &blit_info(flat, 0, cube, 3, n as i32)) });
    assert_eq!(read_level(c, flat, 0, n, n, 4), layer(3));
    // The 2D texture into slice 2 of the volume: only that slice changes.
    ok(unsafe { sgx535_blit(c, &blit_info(vol, 2, flat, 0, n as i32)) });
    for z in 0..4u32 {
        let want = if z == 2 { layer(3) } else { layer(10 + z) };
        assert_eq!(read_layer(c, vol, z as i32, n, n), want, "slice {z}");
    }
    // Two slices at once, volume to volume: slices 1..3 of a second volume get 0..2.
    let vol2 = create(
        s,
        &sgx535_resource_template {
            target: 3,
            depth: 4,
            ..tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, n, n, 0, bind)
        },
    );
    let mut two = blit_info(vol2, 1, vol, 0, n as i32);
    two.dst.r#box.depth = 2;
    two.src.r#box.depth = 2;
    // SAFETY: valid pointer.
    ok(unsafe { sgx535_blit(c, &two) });
    assert_eq!(read_layer(c, vol2, 1, n, n), layer(10));
    assert_eq!(read_layer(c, vol2, 2, n, n), layer(11));
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_3d_chain_generates_with_gallium_s_slice_range() {
    let (s, c) = model();
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let vol = create(
        s,
        &sgx535_resource_template {
            target: 3,
            depth: 4,
            ..tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 4, 4, 2, bind)
        },
    );
    // Slice z is the grey level 40 * z everywhere: level 1's two slices average pairs.
    for z in 0..4u32 {
        let b = sgx535_box {
            x: 0,
            y: 0,
            z: z as i32,
            width: 4,
            height: 4,
            depth: 1,
        };
        let grey = [(40 * z) as u8; 64];
        // SAFETY: `grey` holds 4*4*4 bytes.
        ok(unsafe {
            sgx535_texture_subdata(c, vol, 0, PIPE_MAP_WRITE, &b, grey.as_ptr().cast(), 16, 0)
        });
    }
    let mut generated = 0u8;
    // Gallium passes the base level's slices as the layer range: 0..=3.
    // SAFETY: valid pointer.
    ok(unsafe {
        sgx535_generate_mipmap(
            c,
            vol,
            PIPE_FORMAT_B8G8R8A8_UNORM,
            0,
            2,
            0,
            3,
            &mut generated,
        )
    });
    assert_eq!(generated, 1);
    let b = sgx535_box {
        x: 0,
        y: 0,
        z: 1,
        width: 2,
        height: 2,
        depth: 1,
    };
    let (mut t, mut p, mut stride, mut ls) =
        (sgx535_transfer { id: 0 }, std::ptr::null_mut(), 0u32, 0u64);
    // SAFETY: valid pointers; read before unmap.
    let texel = unsafe {
        ok(sgx535_transfer_map(
            c,
            vol,
            1,
            PIPE_MAP_READ,
            &b,
            &mut t,
            &mut p,
            &mut stride,
            &mut ls,
        ));
        let v = *(p as *const u8);
        ok(sgx535_transfer_unmap(c, t));
        v
    };
    // Level 1 slice 1 averages base slices 2 and 3: (80 + 120) / 2.
    assert_eq!(texel, 100);
    ok(sgx535_screen_destroy(s));
}

/// Gallium's Z24X8_UNORM (the depth-24, no-stencil visual Mesa's DRI frontend offers when the
/// screen takes it) is depth-tested and stored as Z24_UNORM_S8_UINT: depth in bits 23:0.
#[test]
fn a_z24x8_depth_buffer_keeps_the_nearer_fragments() {
    const PIPE_FORMAT_Z24X8_UNORM: u32 = 146;
    const PIPE_BIND_DEPTH_STENCIL: u32 = 1;
    const PIPE_CLEAR_DEPTH: u32 = 1;
    const PIPE_FUNC_LESS: u8 = 1;
    let (s, c) = model();
    let (w, h) = (16u32, 8u32);
    bind_common_state(c, w, h);
    let (rt, surf) = target(s, c, w, h);
    let mut yes = 0u8;
    // SAFETY: a valid pointer to a local.
    ok(unsafe {
        sgx535_screen_is_format_supported(
            s,
            PIPE_FORMAT_Z24X8_UNORM,
            PIPE_TEXTURE_2D,
            0,
            0,
            PIPE_BIND_DEPTH_STENCIL,
            &mut yes,
        )
    });
    assert_eq!(yes, 1);
    let zs = create(
        s,
        &tex2d(PIPE_FORMAT_Z24X8_UNORM, w, h, 0, PIPE_BIND_DEPTH_STENCIL),
    );
    let zt = sgx535_surface_template {
        format: PIPE_FORMAT_Z24X8_UNORM,
        level: 0,
        first_layer: 0,
        last_layer: 0,
    };
    let dsa = sgx535_depth_stencil_alpha_state {
        depth_enabled: 1,
        depth_writemask: 1,
        depth_func: PIPE_FUNC_LESS,
        ..Default::default()
    };
    // Depth runs from 0 at the left edge to 1 at the right (NDC z -1..1, viewport z 0.5 +-0.5):
    // against a clear to 0.5, the left half is nearer.
    let v: [[f32; 6]; 4] = [
        [-1.0, -1.0, -1.0, 1.0, 0.0, 0.0],
        [1.0, -1.0, 1.0, 1.0, 1.0, 0.0],
        [-1.0, 1.0, -1.0, 1.0, 0.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    ];
    let verts: Vec<u8> = v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
    let vb = user_vertices(&verts);
    let green = [0.0f32, 1.0, 0.0, 1.0];
    let mut zsurf = sgx535_surface { id: 0 };
    let mut dsa_h = sgx535_cso { id: 0 };
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_create_surface(c, zs, &zt, &mut zsurf));
        let mut fb = sgx535_framebuffer_state {
            width: w,
            height: h,
            nr_cbufs: 1,
            cbufs: [sgx535_surface { id: 0 }; 8],
            zsbuf: zsurf,
        };
        fb.cbufs[0] = surf;
        ok(sgx535_set_framebuffer_state(c, &fb));
        ok(sgx535_create_depth_stencil_alpha_state(c, &dsa, &mut dsa_h));
        ok(sgx535_bind_depth_stencil_alpha_state(c, dsa_h));
        ok(sgx535_clear(
            c,
            PIPE_CLEAR_COLOR0 | PIPE_CLEAR_DEPTH,
            null(),
            green.as_ptr(),
            0.5,
            0,
        ));
        bind_const_quad(c, &vb);
        ok(sgx535_draw_vbo(c, &strip4()));
    }
    let px = read_level(c, rt, 0, w, h, 4);
    let z = read_level(c, zs, 0, w, h, 4);
    let cleared = (0.5 * f64::from(0xff_ffffu32)).round() as u32;
    for y in 0..h {
        for x in 0..w {
            let i = ((y * w + x) * 4) as usize;
            let depth = u32::from_le_bytes(z[i..i + 4].try_into().unwrap()) & 0xff_ffff;
            // Pixel centres: depth (x + 0.5) / w.
            if x < w / 2 {
                assert_eq!(&px[i..i + 4], [191, 128, 64, 255], "drawn pixel {x},{y}");
                let want = (x as f64 + 0.5) / w as f64 * f64::from(0xff_ffffu32);
                assert!(
                    (f64::from(depth) - want).abs() < 2.0,
                    "depth {depth:#x} at {x},{y}, want {want}"
                );
            } else {
                assert_eq!(&px[i..i + 4], [0, 255, 0, 255], "hidden pixel {x},{y}");
                assert!(depth.abs_diff(cleared) <= 1, "depth {depth:#x} at {x},{y}");
            }
        }
    }
    ok(sgx535_screen_destroy(s));
}

/// st/mesa's sRGB textures: created with RENDER_TARGET (its speculative binding), rendered
/// through a surface of the linear format; an sRGB-format surface (sRGB rendering, which the
/// screen does not offer) and a surface of another layout are refused.
#[test]
fn an_srgb_texture_takes_a_linear_surface_only() {
    const PIPE_FORMAT_B8G8R8A8_SRGB: u32 = 157;
    const PIPE_FORMAT_R8G8B8A8_UNORM: u32 = 53;
    let (s, c) = model();
    let bind = PIPE_BIND_RENDER_TARGET | PIPE_BIND_SAMPLER_VIEW;
    let tex = create(s, &tex2d(PIPE_FORMAT_B8G8R8A8_SRGB, 16, 16, 0, bind));
    let surface = |format: u32| {
        let t = sgx535_surface_template {
            format,
            level: 0,
            first_layer: 0,
            last_layer: 0,
        };
        let mut surf = sgx535_surface { id: 0 };
        // SAFETY: valid pointers to locals.
        let st = unsafe { sgx535_create_surface(c, tex, &t, &mut surf) };
        (st, surf)
    };
    let (st, surf) = surface(PIPE_FORMAT_B8G8R8A8_UNORM);
    assert_eq!(st, sgx535_status::SGX535_OK);
    assert_ne!(surf.id, 0);
    for refused in [PIPE_FORMAT_B8G8R8A8_SRGB, PIPE_FORMAT_R8G8B8A8_UNORM] {
        let (st, surf) = surface(refused);
        assert_eq!(
            st,
            sgx535_status::SGX535_ERROR_UNSUPPORTED,
            "format {refused}"
        );
        assert_eq!(surf.id, 0);
    }
    ok(sgx535_screen_destroy(s));
}

/// A buffer resource of `data`'s bytes; the first half written synchronized, the second
/// through PIPE_MAP_UNSYNCHRONIZED (the upload ring's call).
fn buffer_of(s: sgx535_screen, c: sgx535_context, data: &[u8], bind: u32) -> sgx535_resource {
    const PIPE_MAP_UNSYNCHRONIZED: u32 = 1 << 5;
    let r = create(
        s,
        &sgx535_resource_template {
            target: PIPE_BUFFER,
            width: data.len() as u32,
            height: 1,
            ..tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 1, 1, 0, bind)
        },
    );
    let half = data.len() / 2;
    // SAFETY: valid pointers to the caller's bytes.
    unsafe {
        ok(sgx535_buffer_subdata(
            c,
            r,
            PIPE_MAP_WRITE,
            0,
            half as u32,
            data.as_ptr().cast(),
        ));
        ok(sgx535_buffer_subdata(
            c,
            r,
            PIPE_MAP_WRITE | PIPE_MAP_UNSYNCHRONIZED,
            half as u32,
            (data.len() - half) as u32,
            data[half..].as_ptr().cast(),
        ));
    }
    r
}

/// Which half of a 16x8 target the last draw covered: every pixel QUAD_COLOUR there and the
/// clear's green elsewhere (asserted), then cleared to green again.
fn drawn_half(c: sgx535_context, rt: sgx535_resource) -> &'static str {
    let (w, h) = (16u32, 8u32);
    let px = read_level(c, rt, 0, w, h, 4);
    let at = |x: u32, y: u32| &px[((y * w + x) * 4) as usize..][..4];
    let half = if at(0, 0) == [191, 128, 64, 255] {
        "left"
    } else {
        "right"
    };
    for y in 0..h {
        for x in 0..w {
            let drawn = (x < w / 2) == (half == "left");
            let want: [u8; 4] = if drawn {
                [191, 128, 64, 255]
            } else {
                [0, 255, 0, 255]
            };
            assert_eq!(
                at(x, y),
                want,
                "pixel {x},{y} after a draw of the {half} half"
            );
        }
    }
    let green = [0.0f32, 1.0, 0.0, 1.0];
    // SAFETY: a valid pointer to a local.
    ok(unsafe { sgx535_clear(c, PIPE_CLEAR_COLOR0, null(), green.as_ptr(), 0.0, 0) });
    half
}

/// Drawoverhead's per-draw pattern: one vertex buffer rebound at another offset and stride,
/// and index buffers switched back and forth (the library keeps the one it drew from last),
/// draw what each call names, and a destroyed index buffer is not drawn from.
#[test]
fn rebinding_a_vertex_buffer_and_switching_index_buffers_draw_what_they_name() {
    const PIPE_BIND_INDEX_BUFFER: u32 = 1 << 5;
    let (s, c) = model();
    let (w, h) = (16u32, 8u32);
    bind_common_state(c, w, h);
    let (rt, _surf) = target(s, c, w, h);
    // Vertices 0-3 cover the left half, 4-7 the right, 24 bytes apart; then the right half's
    // again 32 bytes apart (x y z w s t and 8 bytes of padding).
    let quad = |x0: f32, x1: f32| -> Vec<[f32; 6]> {
        vec![
            [x0, -1.0, 0.0, 1.0, 0.0, 0.0],
            [x1, -1.0, 0.0, 1.0, 1.0, 0.0],
            [x0, 1.0, 0.0, 1.0, 0.0, 1.0],
            [x1, 1.0, 0.0, 1.0, 1.0, 1.0],
        ]
    };
    let mut bytes: Vec<u8> = [quad(-1.0, 0.0), quad(0.0, 1.0)]
        .concat()
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let padded_at = bytes.len() as u32;
    for v in quad(0.0, 1.0) {
        bytes.extend(v.iter().flat_map(|f| f.to_le_bytes()));
        bytes.extend([0u8; 8]);
    }
    let vbuf = buffer_of(s, c, &bytes, PIPE_BIND_VERTEX_BUFFER);
    let u16s = |i: [u16; 4]| -> Vec<u8> { i.iter().flat_map(|i| i.to_le_bytes()).collect() };
    let left = buffer_of(s, c, &u16s([0, 1, 2, 3]), PIPE_BIND_INDEX_BUFFER);
    let right = buffer_of(s, c, &u16s([4, 5, 6, 7]), PIPE_BIND_INDEX_BUFFER);
    let vb = |stride: u32, buffer_offset: u32| sgx535_vertex_buffer {
        stride,
        buffer_offset,
        buffer: vbuf,
        user_buffer: null(),
        user_size: 0,
    };
    let indexed = |ib: sgx535_resource| sgx535_draw_info {
        index_size: 2,
        index_buffer: ib,
        ..strip4()
    };
    let green = [0.0f32, 1.0, 0.0, 1.0];
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_clear(
            c,
            PIPE_CLEAR_COLOR0,
            null(),
            green.as_ptr(),
            0.0,
            0,
        ));
        bind_const_quad(c, &vb(24, 0));
        ok(sgx535_draw_vbo(c, &strip4()));
        assert_eq!(drawn_half(c, rt), "left");
        // The same buffer at the right half's vertices, then at the padded copy's stride.
        ok(sgx535_set_vertex_buffers(c, 0, 1, &vb(24, 96)));
        ok(sgx535_draw_vbo(c, &strip4()));
        assert_eq!(drawn_half(c, rt), "right");
        ok(sgx535_set_vertex_buffers(c, 0, 1, &vb(32, padded_at)));
        ok(sgx535_draw_vbo(c, &strip4()));
        assert_eq!(drawn_half(c, rt), "right");
        ok(sgx535_set_vertex_buffers(c, 0, 1, &vb(24, 0)));
        for (ib, half) in [
            (left, "left"),
            (left, "left"),
            (right, "right"),
            (left, "left"),
        ] {
            ok(sgx535_draw_vbo(c, &indexed(ib)));
            assert_eq!(drawn_half(c, rt), half);
        }
        // The buffer drawn from last, destroyed: its handle is refused, the other draws.
        ok(sgx535_resource_destroy(left));
        assert_eq!(
            sgx535_draw_vbo(c, &indexed(left)),
            SGX535_ERROR_INVALID_HANDLE
        );
        ok(sgx535_draw_vbo(c, &indexed(right)));
        assert_eq!(drawn_half(c, rt), "right");
        // A stride the pipe refuses on a rebind changes nothing: the right half draws again.
        assert_eq!(
            sgx535_set_vertex_buffers(c, 0, 1, &vb(4096, 0)),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        ok(sgx535_draw_vbo(c, &indexed(right)));
        assert_eq!(drawn_half(c, rt), "right");
    }
    ok(sgx535_screen_destroy(s));
}
