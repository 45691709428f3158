//! Jobs that failed: a render that ends in an error loses its pixels even when nothing waits
//! on its fence; the context records each one (`sgx_pipe::Context::take_job_failure`) and
//! the driver takes them to tell the application (Mesa's glue: a GL_KHR_debug error
//! message).

use std::ffi::c_char;

use crate::context::{self, sgx535_context};
use crate::ffi::{check_out, guard, write};
use crate::status::{job_status, sgx535_status, SGX535_OK};

/// Takes the oldest job of `ctx` that ended in an error and was not taken yet: `*error` is
/// its status (`SGX535_ERROR_OUT_OF_MEMORY` when parameter memory ran out,
/// `SGX535_ERROR_GPU_FAULT` for a fault or failure, `SGX535_ERROR_DEVICE_LOST`), or
/// `SGX535_OK` when none failed; its description is copied to `message` (NUL-terminated, cut
/// to `message_size` bytes; `message` may be NULL when `message_size` is 0). Jobs are seen to
/// end on later calls into the context (a flush, a fence wait); the call itself does not wait.
#[no_mangle]
pub unsafe extern "C" fn sgx535_take_job_failure(
    ctx: sgx535_context,
    error: *mut sgx535_status,
    message: *mut c_char,
    message_size: usize,
) -> sgx535_status {
    guard(|| {
        let c = context::get(ctx)?;
        check_out(error, "error")?;
        if message_size > 0 {
            check_out(message, "message")?;
        }
        let failure = c.lock().ctx.take_job_failure();
        let (status, text) = match &failure {
            Some(f) => (
                job_status(&f.error),
                format!("render job (fence {}) failed: {}", f.fence_id, f.error),
            ),
            None => (SGX535_OK, String::new()),
        };
        if message_size > 0 {
            let n = text.len().min(message_size - 1);
            // SAFETY: `message` is non-null (checked) and the caller promises `message_size`
            // writable bytes; n + 1 <= message_size.
            unsafe {
                std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), message, n);
                *message.add(n) = 0;
            }
        }
        // SAFETY: checked by check_out.
        unsafe { write(error, "error", status) }
    })
}
