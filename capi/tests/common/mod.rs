//! What the C ABI tests share: Gallium numbers, a status check that shows the library's
//! message, a model screen with a context, and the textured-quad shaders.
#![allow(dead_code)]

use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};

use sgx535::*;

pub const PIPE_TEXTURE_2D: u32 = 2;
pub const PIPE_BUFFER: u32 = 0;
pub const PIPE_FORMAT_B8G8R8A8_UNORM: u32 = 54;
pub const PIPE_FORMAT_R32G32_FLOAT: u32 = 14;
pub const PIPE_FORMAT_R32G32B32A32_FLOAT: u32 = 16;
pub const PIPE_BIND_RENDER_TARGET: u32 = 1 << 1;
pub const PIPE_BIND_SAMPLER_VIEW: u32 = 1 << 3;
pub const PIPE_BIND_VERTEX_BUFFER: u32 = 1 << 4;
pub const PIPE_MAP_READ: u32 = 1;
pub const PIPE_MAP_WRITE: u32 = 2;
pub const PIPE_SHADER_FRAGMENT: u32 = 4;
pub const PIPE_PRIM_TRIANGLE_STRIP: u32 = 5;
pub const PIPE_CLEAR_COLOR0: u32 = 1 << 2;
pub const PIPE_BLENDFACTOR_ONE: u8 = 1;
pub const PIPE_BLENDFACTOR_ZERO: u8 = 0x11;
pub const PIPE_FUNC_ALWAYS: u8 = 7;
pub const PIPE_TEX_WRAP_CLAMP_TO_EDGE: u8 = 2;
pub const PIPE_TEX_MIPFILTER_NONE: u8 = 2;

/// The last error message of this thread.
pub fn last_error() -> String {
    // SAFETY: the library returns a NUL-terminated string valid until the next failing call.
    unsafe { CStr::from_ptr(sgx535_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// Panics with the library's message unless `s` is SGX535_OK.
#[track_caller]
pub fn ok(s: sgx535_status) {
    assert_eq!(s, SGX535_OK, "{}", last_error());
}

/// A screen and a context on the device `desc` names.
fn open(desc: &sgx535_device_desc) -> (sgx535_screen, sgx535_context) {
    let mut s = sgx535_screen { id: 0 };
    let mut c = sgx535_context { id: 0 };
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_screen_create(desc, &mut s));
        ok(sgx535_context_create(s, &mut c));
    }
    (s, c)
}

/// A screen on the device model and a context on it.
pub fn model() -> (sgx535_screen, sgx535_context) {
    open(&sgx535_device_desc {
        kind: SGX535_DEVICE_MODEL,
        fd: -1,
        path: null(),
    })
}

/// A screen replaying a host fixture of fixtures/host.
pub fn replay(fixture: &str) -> (sgx535_screen, sgx535_context) {
    let path = format!("{}/../fixtures/host/{fixture}", env!("CARGO_MANIFEST_DIR"));
    let cpath = CString::new(path).unwrap();
    open(&sgx535_device_desc {
        kind: SGX535_DEVICE_REPLAY,
        fd: -1,
        path: cpath.as_ptr(),
    })
}

/// A 2D texture template.
pub fn tex2d(format: u32, w: u32, h: u32, last_level: u32, bind: u32) -> sgx535_resource_template {
    sgx535_resource_template {
        target: PIPE_TEXTURE_2D,
        format,
        width: w,
        height: h,
        depth: 1,
        array_size: 1,
        last_level,
        nr_samples: 1,
        bind,
        flags: 0,
    }
}

pub fn create(s: sgx535_screen, t: &sgx535_resource_template) -> sgx535_resource {
    let mut r = sgx535_resource { id: 0 };
    // SAFETY: valid pointers.
    ok(unsafe { sgx535_resource_create(s, t, &mut r) });
    r
}

pub fn full_box(w: u32, h: u32) -> sgx535_box {
    sgx535_box {
        x: 0,
        y: 0,
        z: 0,
        width: w as i32,
        height: h as i32,
        depth: 1,
    }
}

/// A sampler view template of level 0 alone, channels unswizzled.
pub fn level0_view(format: u32) -> sgx535_sampler_view_template {
    sgx535_sampler_view_template {
        format,
        first_level: 0,
        last_level: 0,
        swizzle_r: 0,
        swizzle_g: 1,
        swizzle_b: 2,
        swizzle_a: 3,
    }
}

/// Reads a level back through a map (a linear copy, rows tightly packed).
pub fn read_level(
    c: sgx535_context,
    r: sgx535_resource,
    level: u32,
    w: u32,
    h: u32,
    bpp: u32,
) -> Vec<u8> {
    read_box(c, r, level, &full_box(w, h), bpp)
}

/// Reads box `b` (its first layer) of a level back through a map, rows tightly packed.
pub fn read_box(
    c: sgx535_context,
    r: sgx535_resource,
    level: u32,
    b: &sgx535_box,
    bpp: u32,
) -> Vec<u8> {
    let (w, h) = (b.width as u32, b.height as u32);
    let mut t = sgx535_transfer { id: 0 };
    let mut p = null_mut();
    let mut stride = 0u32;
    let mut ls = 0u64;
    // SAFETY: valid pointers; the mapped bytes are read before unmap.
    unsafe {
        ok(sgx535_transfer_map(
            c,
            r,
            level,
            PIPE_MAP_READ,
            b,
            &mut t,
            &mut p,
            &mut stride,
            &mut ls,
        ));
        let mut out = Vec::new();
        for y in 0..h as usize {
            let row = std::slice::from_raw_parts(
                (p as *const u8).add(y * stride as usize),
                (w * bpp) as usize,
            );
            out.extend_from_slice(row);
        }
        ok(sgx535_transfer_unmap(c, t));
        out
    }
}

pub fn upload(c: sgx535_context, r: sgx535_resource, level: u32, w: u32, h: u32, data: &[u8]) {
    let b = full_box(w, h);
    // SAFETY: `data` holds w*h*4 bytes.
    ok(unsafe {
        sgx535_texture_subdata(
            c,
            r,
            level,
            PIPE_MAP_WRITE,
            &b,
            data.as_ptr().cast(),
            w * 4,
            0,
        )
    });
}

pub const VS: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n  0: MOV OUT[0], IN[0]\n  1: MOV OUT[1], IN[1]\n  2: END\n";
pub const FS_TEX: &str = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n  0: TEX OUT[0], IN[0], SAMP[0], 2D\n  1: END\n";
pub const FS_CONST: &str =
    "FRAG\nDCL OUT[0], COLOR\nDCL CONST[0]\n  0: MOV OUT[0], CONST[0]\n  1: END\n";

pub fn shader(c: sgx535_context, text: &str, vertex: bool) -> sgx535_shader {
    let t = CString::new(text).unwrap();
    let mut s = sgx535_shader { id: 0 };
    // SAFETY: valid pointers.
    ok(unsafe {
        if vertex {
            sgx535_create_vs_state(c, t.as_ptr(), &mut s)
        } else {
            sgx535_create_fs_state(c, t.as_ptr(), &mut s)
        }
    });
    s
}

/// The stats of a screen.
pub fn stats(s: sgx535_screen) -> sgx535_device_stats {
    let mut st = sgx535_device_stats::default();
    // SAFETY: valid pointer.
    ok(unsafe { sgx535_screen_get_stats(s, &mut st) });
    st
}

/// A BGRA8 render target of w x h bound as the framebuffer's colour buffer.
pub fn target(
    s: sgx535_screen,
    c: sgx535_context,
    w: u32,
    h: u32,
) -> (sgx535_resource, sgx535_surface) {
    let rt = create(
        s,
        &tex2d(
            PIPE_FORMAT_B8G8R8A8_UNORM,
            w,
            h,
            0,
            PIPE_BIND_RENDER_TARGET | PIPE_BIND_SAMPLER_VIEW,
        ),
    );
    let st = sgx535_surface_template {
        format: PIPE_FORMAT_B8G8R8A8_UNORM,
        level: 0,
        first_layer: 0,
        last_layer: 0,
    };
    let mut surf = sgx535_surface { id: 0 };
    let mut fb = sgx535_framebuffer_state {
        width: w,
        height: h,
        nr_cbufs: 1,
        cbufs: [sgx535_surface { id: 0 }; 8],
        zsbuf: sgx535_surface { id: 0 },
    };
    // SAFETY: valid pointers.
    unsafe {
        ok(sgx535_create_surface(c, rt, &st, &mut surf));
        fb.cbufs[0] = surf;
        ok(sgx535_set_framebuffer_state(c, &fb));
    }
    (rt, surf)
}

/// A size x size BGRA8 texture with its full chain, level 0 the seed's exact pattern (every
/// 2x2 average an integer), uploaded.
pub fn patterned_chain(
    s: sgx535_screen,
    c: sgx535_context,
    size: u32,
) -> (sgx535_resource, Vec<u8>) {
    let last = 31 - size.leading_zeros();
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let r = create(
        s,
        &tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, size, size, last, bind),
    );
    let level0 = sgx_blitter::pattern::level0(size);
    upload(c, r, 0, size, size, &level0);
    (r, level0)
}

/// generate_mipmap of levels 0..=last of a BGRA8 2D texture: the status and `*generated`.
pub fn generate(c: sgx535_context, r: sgx535_resource, last: u32) -> (sgx535_status, u8) {
    let mut generated = 0u8;
    // SAFETY: a valid pointer to a local.
    let st = unsafe {
        sgx535_generate_mipmap(
            c,
            r,
            PIPE_FORMAT_B8G8R8A8_UNORM,
            0,
            last,
            0,
            0,
            &mut generated,
        )
    };
    (st, generated)
}

/// A whole-framebuffer colour clear, flushed, and its fence waited for: the wait's status and
/// whether the fence signalled.
pub fn clear_and_finish(
    s: sgx535_screen,
    c: sgx535_context,
    color: [f32; 4],
) -> (sgx535_status, u8) {
    let mut f = sgx535_fence { id: 0 };
    let mut done = 0u8;
    // SAFETY: valid pointers to locals.
    unsafe {
        ok(sgx535_clear(
            c,
            PIPE_CLEAR_COLOR0,
            null(),
            color.as_ptr(),
            1.0,
            0,
        ));
        ok(sgx535_flush(c, 0, &mut f));
        let st = sgx535_fence_finish(s, f, u64::MAX, &mut done);
        ok(sgx535_fence_destroy(f));
        (st, done)
    }
}
