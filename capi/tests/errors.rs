//! Bad input through the C ABI: every call answers with the right status and a message, and
//! nothing crashes or leaks — null, stale, wrong-type, forged and foreign handles, NULL
//! pointers, out-of-range numbers, sizes that cannot fit, and the device's own failures
//! replayed from host fixtures.

mod common;

use std::ptr::{null, null_mut};

use common::*;
use sgx535::*;

#[test]
fn null_stale_wrong_type_and_forged_handles_are_refused() {
    let (s, c) = model();
    let r = create(
        s,
        &tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 8, 8, 0, PIPE_BIND_SAMPLER_VIEW),
    );
    ok(sgx535_resource_destroy(r));
    // Stale: destroyed once already.
    assert_eq!(sgx535_resource_destroy(r), SGX535_ERROR_INVALID_HANDLE);
    assert!(
        last_error().contains("not a live handle"),
        "{}",
        last_error()
    );
    // Null.
    assert_eq!(
        sgx535_context_destroy(sgx535_context { id: 0 }),
        SGX535_ERROR_INVALID_HANDLE
    );
    // Wrong type: a screen's id passed as a context's.
    assert_eq!(
        sgx535_context_destroy(sgx535_context { id: s.id }),
        SGX535_ERROR_INVALID_HANDLE
    );
    assert!(
        last_error().contains("a screen, not a context"),
        "{}",
        last_error()
    );
    // Forged.
    for id in [1u64, 0xdead_beef, u64::MAX, c.id ^ (1 << 40)] {
        assert_eq!(
            sgx535_bind_blend_state(sgx535_context { id }, sgx535_cso { id: 0 }),
            SGX535_ERROR_INVALID_HANDLE
        );
    }
    ok(sgx535_screen_destroy(s));
    // The context went with its screen.
    assert_eq!(sgx535_set_sample_mask(c, 1), SGX535_ERROR_INVALID_HANDLE);
}

#[test]
fn objects_of_another_context_or_screen_are_foreign() {
    let (s, c1) = model();
    let mut c2 = sgx535_context { id: 0 };
    // SAFETY: valid pointer.
    ok(unsafe { sgx535_context_create(s, &mut c2) });
    let blend = sgx535_blend_state {
        colormask: 0xF,
        rgb_src_factor: 1,
        rgb_dst_factor: 0x11,
        alpha_src_factor: 1,
        alpha_dst_factor: 0x11,
        ..Default::default()
    };
    let mut b = sgx535_cso { id: 0 };
    // SAFETY: valid pointers.
    ok(unsafe { sgx535_create_blend_state(c1, &blend, &mut b) });
    assert_eq!(sgx535_bind_blend_state(c2, b), SGX535_ERROR_INVALID_HANDLE);
    assert!(last_error().contains("another context"), "{}", last_error());
    // Shaders belong to the screen: any of its contexts binds them.
    let vs = shader(c1, VS, true);
    ok(sgx535_bind_vs_state(c2, vs));
    // A resource of another screen.
    let (s2, c3) = model();
    let r = create(
        s,
        &tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 8, 8, 0, PIPE_BIND_SAMPLER_VIEW),
    );
    let vt = level0_view(PIPE_FORMAT_B8G8R8A8_UNORM);
    let mut v = sgx535_sampler_view { id: 0 };
    // SAFETY: valid pointers.
    assert_eq!(
        unsafe { sgx535_create_sampler_view(c3, r, &vt, &mut v) },
        SGX535_ERROR_INVALID_HANDLE
    );
    assert!(last_error().contains("another screen"), "{}", last_error());
    ok(sgx535_screen_destroy(s2));
    ok(sgx535_screen_destroy(s));
}

#[test]
fn null_pointers_and_bad_numbers_are_invalid_arguments() {
    let (s, c) = model();
    // SAFETY: every pointer is NULL or valid; NULL is what is tested.
    unsafe {
        assert_eq!(
            sgx535_resource_create(s, null(), null_mut()),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        let t = tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 8, 8, 0, PIPE_BIND_SAMPLER_VIEW);
        // A NULL output: refused (tests/leaks.rs counts that nothing is made).
        assert_eq!(
            sgx535_resource_create(s, &t, null_mut()),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        let mut r = sgx535_resource { id: 0 };
        let bad = [
            tex2d(100_000, 8, 8, 0, 0),                            // not a Mesa format
            tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 0, 8, 0, 0),         // zero size
            tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 65536, 65536, 0, 0), // cannot fit
            tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 8, 8, 9, 0),         // too many levels
            sgx535_resource_template { target: 99, ..t },
        ];
        for b in bad {
            let st = sgx535_resource_create(s, &b, &mut r);
            assert!(
                st == SGX535_ERROR_INVALID_ARGUMENT || st == SGX535_ERROR_UNSUPPORTED,
                "{b:?}: {st:?} {}",
                last_error()
            );
            assert!(!last_error().is_empty());
        }
        let etc1 = tex2d(277, 8, 8, 0, PIPE_BIND_SAMPLER_VIEW);
        assert_eq!(
            sgx535_resource_create(s, &etc1, &mut r),
            SGX535_ERROR_UNSUPPORTED
        );
        // A buffer of 1 GiB: the model's GPU address space refuses it, as memory.
        let big = sgx535_resource_template {
            target: PIPE_BUFFER,
            width: 1 << 30,
            height: 1,
            ..t
        };
        let st = sgx535_resource_create(s, &big, &mut r);
        if st == SGX535_OK {
            ok(sgx535_resource_destroy(r));
        } else {
            assert_eq!(st, SGX535_ERROR_OUT_OF_MEMORY, "{}", last_error());
        }
        // Out-of-range enums in state.
        let mut h = sgx535_cso { id: 0 };
        let blend = sgx535_blend_state {
            blend_enable: 1,
            rgb_src_factor: 0x40,
            colormask: 0xF,
            ..Default::default()
        };
        assert_eq!(
            sgx535_create_blend_state(c, &blend, &mut h),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        // Logic ops: PIPE_LOGICOP_SET (15) is the last; 16 is no op.
        let logic = |func| sgx535_blend_state {
            logicop_enable: 1,
            logicop_func: func,
            colormask: 0xF,
            ..Default::default()
        };
        assert_eq!(
            sgx535_create_blend_state(c, &logic(16), &mut h),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        assert!(last_error().contains("pipe_logicop 16"), "{}", last_error());
        ok(sgx535_create_blend_state(c, &logic(15), &mut h));
        ok(sgx535_delete_blend_state(c, h));
        let rast = sgx535_rasterizer_state {
            fill_front: 1,
            fill_back: 2,
            offset_tri: 1,
            offset_units: 1.0,
            // Smooth lines and points are drawn aliased.
            line_smooth: 1,
            point_smooth: 1,
            half_pixel_center: 1,
            depth_clip_near: 1,
            depth_clip_far: 1,
            ..Default::default()
        };
        ok(sgx535_create_rasterizer_state(c, &rast, &mut h));
        ok(sgx535_delete_rasterizer_state(c, h));
        for (bad, status, says) in [
            (
                sgx535_rasterizer_state {
                    fill_back: 4,
                    ..rast
                },
                SGX535_ERROR_INVALID_ARGUMENT,
                "pipe_polygon_mode 4",
            ),
            (
                sgx535_rasterizer_state {
                    fill_front: 3,
                    ..rast
                },
                SGX535_ERROR_UNSUPPORTED,
                "FILL_RECTANGLE",
            ),
            (
                sgx535_rasterizer_state {
                    offset_scale: f32::NAN,
                    ..rast
                },
                SGX535_ERROR_INVALID_ARGUMENT,
                "finite",
            ),
        ] {
            assert_eq!(sgx535_create_rasterizer_state(c, &bad, &mut h), status);
            assert!(last_error().contains(says), "{}", last_error());
        }
        // A shader that is not TGSI.
        let junk = std::ffi::CString::new("FRAG\nNOT AN OPCODE\n").unwrap();
        let mut sh = sgx535_shader { id: 0 };
        assert_eq!(
            sgx535_create_fs_state(c, junk.as_ptr(), &mut sh),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            sgx535_create_fs_state(c, null(), &mut sh),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        // A map of a destroyed resource, and an unmap of a transfer twice.
        let r2 = create(s, &t);
        let b = full_box(8, 8);
        // A read map of level 0's box `b` of `r` into `tr` (pointer, stride and size unread).
        let map = |r: sgx535_resource, b: &sgx535_box, tr: &mut sgx535_transfer| {
            let (mut p, mut st, mut ls) = (null_mut(), 0u32, 0u64);
            sgx535_transfer_map(c, r, 0, PIPE_MAP_READ, b, tr, &mut p, &mut st, &mut ls)
        };
        let mut tr = sgx535_transfer { id: 0 };
        ok(map(r2, &b, &mut tr));
        ok(sgx535_resource_destroy(r2));
        // The mapping keeps the storage alive until unmap.
        ok(sgx535_transfer_unmap(c, tr));
        assert_eq!(sgx535_transfer_unmap(c, tr), SGX535_ERROR_INVALID_HANDLE);
        assert_eq!(map(r2, &b, &mut tr), SGX535_ERROR_INVALID_HANDLE);
        // A box outside the level.
        let r3 = create(s, &t);
        let outside = sgx535_box {
            x: 4,
            y: 4,
            z: 0,
            width: 8,
            height: 8,
            depth: 1,
        };
        assert_eq!(map(r3, &outside, &mut tr), SGX535_ERROR_INVALID_ARGUMENT);
        // More vertex buffer slots than there are (counted before the array is read, so
        // a short or NULL array is never read past), and slots past the last from `start`.
        for (start, count) in [(0, 1000), (0, u32::MAX), (31, 2)] {
            let st = sgx535_set_vertex_buffers(c, start, count, null());
            assert_eq!(st, SGX535_ERROR_INVALID_ARGUMENT, "{start} {count}");
            assert!(last_error().contains("vertex buffers"), "{}", last_error());
        }
    }
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_sampler_view_level_range_outside_the_resource_is_an_invalid_argument() {
    let (s, c) = model();
    // Levels 0..=2 (8x8, 4x4, 2x2).
    let r = create(
        s,
        &tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 8, 8, 2, PIPE_BIND_SAMPLER_VIEW),
    );
    let view = |first_level, last_level| sgx535_sampler_view_template {
        first_level,
        last_level,
        ..level0_view(PIPE_FORMAT_B8G8R8A8_UNORM)
    };
    for (first, last) in [(1, 0), (0, 3), (3, 3)] {
        let mut v = sgx535_sampler_view { id: 0 };
        // SAFETY: valid pointers.
        let st = unsafe { sgx535_create_sampler_view(c, r, &view(first, last), &mut v) };
        assert_eq!(st, SGX535_ERROR_INVALID_ARGUMENT, "{first}..={last}");
        assert!(last_error().contains("0..=2"), "{}", last_error());
        assert_eq!(v.id, 0, "nothing made for {first}..={last}");
    }
    let mut v = sgx535_sampler_view { id: 0 };
    // SAFETY: valid pointers.
    ok(unsafe { sgx535_create_sampler_view(c, r, &view(1, 2), &mut v) });
    ok(sgx535_sampler_view_destroy(c, v));
    ok(sgx535_resource_destroy(r));
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_refused_generation_pass_stops_with_the_error_and_level_0_intact() {
    // The kernel refuses submission 0, the first generation pass: the submission was
    // attempted, so the blitter stops and reports it (the seed's rule), as busy.
    let (s, c) = replay("refuse_submission_ebusy.json");
    let (r, level0) = patterned_chain(s, c, 64);
    let (st, generated) = generate(c, r, 6);
    assert_eq!(st, SGX535_ERROR_TIMEOUT, "{}", last_error());
    assert!(last_error().contains("EBUSY"), "{}", last_error());
    assert_eq!(generated, 0);
    assert_eq!(read_level(c, r, 0, 64, 64, 4), level0);
    assert_eq!(stats(s).refused, 1);
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_chain_the_gpu_route_does_not_admit_is_made_on_the_cpu() {
    // 16x16 is not in the model's admission table: no submission, right bytes.
    let (s, c) = model();
    let (r, level0) = patterned_chain(s, c, 16);
    let before = stats(s).submissions;
    let (st, generated) = generate(c, r, 4);
    ok(st);
    assert_eq!(generated, 1);
    assert_eq!(stats(s).submissions, before);
    let want = sgx_blitter::pattern::expected_chain(&level0, 16).unwrap();
    for lv in 1..5u32 {
        let sz = 16 >> lv;
        assert_eq!(
            read_level(c, r, lv, sz, sz, 4),
            want[lv as usize],
            "level {lv}"
        );
    }
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_gpu_fault_reaches_the_fence_as_a_fault() {
    // Job 1 faults in the PBE.
    let (s, c) = replay("fault_job_pbe.json");
    target(s, c, 16, 16);
    let results: Vec<_> = (0..3).map(|_| clear_and_finish(s, c, [1.0; 4])).collect();
    assert_eq!(results[0], (SGX535_OK, 1));
    assert_eq!(results[1], (SGX535_ERROR_GPU_FAULT, 1));
    assert_eq!(results[2], (SGX535_OK, 1));
    assert_eq!(stats(s).jobs_failed, 1);
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_hang_is_reset_and_the_guilty_context_is_told() {
    // hang_job.json hangs a job; the model's watchdog ends it (2 s) and resets the device.
    let (s, c) = replay("hang_job.json");
    target(s, c, 16, 16);
    let col = [0.5f32, 0.5, 0.5, 1.0];
    let mut first_error = None;
    for _ in 0..4 {
        let (st, _) = clear_and_finish(s, c, col);
        if st != SGX535_OK && first_error.is_none() {
            first_error = Some((st, last_error()));
        }
    }
    let mut status = 9u32;
    // SAFETY: a valid pointer to a local.
    ok(unsafe { sgx535_get_device_reset_status(c, &mut status) });
    let (st, msg) = first_error.expect("the hung job's fence reports it");
    assert_eq!(st, SGX535_ERROR_GPU_FAULT, "{msg}");
    assert_eq!(status, 1, "guilty");
    // Asked again: nothing new.
    // SAFETY: valid pointer.
    ok(unsafe { sgx535_get_device_reset_status(c, &mut status) });
    assert_eq!(status, 0);
    // A context made after the reset starts clean and renders.
    let mut c2 = sgx535_context { id: 0 };
    // SAFETY: valid pointers.
    unsafe {
        ok(sgx535_context_create(s, &mut c2));
        ok(sgx535_get_device_reset_status(c2, &mut status));
    }
    assert_eq!(status, 0);
    let (rt, _) = target(s, c2, 8, 8);
    // SAFETY: valid pointers.
    ok(unsafe { sgx535_clear(c2, PIPE_CLEAR_COLOR0, null(), col.as_ptr(), 1.0, 0) });
    assert_eq!(read_level(c2, rt, 0, 8, 8, 4)[..4], [128, 128, 128, 255]);
    ok(sgx535_screen_destroy(s));
}
