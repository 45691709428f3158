//! Destroying a screen frees every handle made on it (its own test binary, so no other test's
//! handles are counted).

mod common;

use common::*;
use sgx535::*;

#[test]
fn a_destroyed_screen_leaves_no_handle_behind() {
    let start = live_handles();
    let (s, c) = model();
    // A create refused for its NULL output makes no handle.
    let made = live_handles();
    let t = tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, 8, 8, 0, PIPE_BIND_SAMPLER_VIEW);
    // SAFETY: a valid template; the NULL output is what is tested.
    let st = unsafe { sgx535_resource_create(s, &t, std::ptr::null_mut()) };
    assert_eq!(st, SGX535_ERROR_INVALID_ARGUMENT);
    assert_eq!(
        live_handles(),
        made,
        "a refused create left a handle behind"
    );
    let r = create(
        s,
        &tex2d(
            PIPE_FORMAT_B8G8R8A8_UNORM,
            16,
            16,
            4,
            PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET,
        ),
    );
    let _vs = shader(c, VS, true);
    let _fs = shader(c, FS_TEX, false);
    let mut q = sgx535_query { id: 0 };
    let mut f = sgx535_fence { id: 0 };
    let mut gen = 0u8;
    // SAFETY: valid pointers.
    unsafe {
        ok(sgx535_create_query(c, 0, 0, &mut q));
        ok(sgx535_generate_mipmap(
            c,
            r,
            PIPE_FORMAT_B8G8R8A8_UNORM,
            0,
            4,
            0,
            0,
            &mut gen,
        ));
        ok(sgx535_flush(c, 0, &mut f));
    }
    assert!(live_handles() >= start + 7);
    ok(sgx535_screen_destroy(s));
    assert_eq!(live_handles(), start);
}
