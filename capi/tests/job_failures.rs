//! `sgx535_take_job_failure`: a render that failed is reported by the context it belongs to
//! (with its kind and a message), once, whether or not anything waited on its fence; pointers
//! are checked.

mod common;

use std::ffi::CStr;
use std::ptr::null_mut;

use common::*;
use sgx535::*;

/// The next failure of `c`: its status and message.
fn take(c: sgx535_context) -> (sgx535_status, String) {
    let mut error = SGX535_ERROR_INTERNAL;
    let mut msg = [0 as std::ffi::c_char; 128];
    // SAFETY: valid pointers to locals, the buffer's size.
    ok(unsafe { sgx535_take_job_failure(c, &mut error, msg.as_mut_ptr(), msg.len()) });
    // SAFETY: the call NUL-terminates within the buffer.
    let text = unsafe { CStr::from_ptr(msg.as_ptr()) };
    (error, text.to_string_lossy().into_owned())
}

#[test]
fn a_faulted_render_is_taken_once_with_its_kind() {
    // Job 1 faults in the PBE.
    let (s, c) = replay("fault_job_pbe.json");
    target(s, c, 16, 16);
    assert_eq!(take(c), (SGX535_OK, String::new()));
    let results: Vec<_> = (0..3).map(|_| clear_and_finish(s, c, [1.0; 4])).collect();
    assert_eq!(results[1].0, SGX535_ERROR_GPU_FAULT);
    let (st, msg) = take(c);
    assert_eq!(st, SGX535_ERROR_GPU_FAULT, "{msg}");
    assert!(msg.contains("MMU fault"), "{msg}");
    assert_eq!(take(c), (SGX535_OK, String::new()));
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_short_buffer_is_cut_and_a_null_one_refused() {
    let (s, c) = replay("fault_job_pbe.json");
    target(s, c, 16, 16);
    for _ in 0..2 {
        clear_and_finish(s, c, [1.0; 4]);
    }
    let mut error = SGX535_OK;
    // A NULL message with a size, and a NULL status: invalid, nothing taken.
    // SAFETY: the call checks its pointers.
    unsafe {
        assert_eq!(
            sgx535_take_job_failure(c, &mut error, null_mut(), 8),
            SGX535_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(
            sgx535_take_job_failure(c, null_mut(), null_mut(), 0),
            SGX535_ERROR_INVALID_ARGUMENT
        );
    }
    let mut msg = [0x55 as std::ffi::c_char; 8];
    // SAFETY: valid pointers to locals, the buffer's size.
    ok(unsafe { sgx535_take_job_failure(c, &mut error, msg.as_mut_ptr(), 5) });
    assert_eq!(error, SGX535_ERROR_GPU_FAULT);
    // Four bytes and the NUL; the rest untouched.
    assert_eq!(msg[4], 0);
    assert!(msg[..4].iter().all(|&b| b != 0));
    assert!(msg[5..].iter().all(|&b| b == 0x55));
    // A bad handle.
    let mut e2 = SGX535_OK;
    // SAFETY: valid pointer; the handle is checked.
    let st = unsafe { sgx535_take_job_failure(sgx535_context { id: 0 }, &mut e2, null_mut(), 0) };
    assert_eq!(st, SGX535_ERROR_INVALID_HANDLE);
    ok(sgx535_screen_destroy(s));
}
