//! Fences: the end of a flush's work. A handle per reference, as `fence_reference` counts them.

use std::sync::Arc;
use std::time::Duration;

use sgx_winsys::Fence;

use crate::ffi::{check_out, guard, write};
use crate::handles::{self, Kind, Owner};
use crate::screen::{self, sgx535_screen};
use crate::status::{sgx535_status, Result};

/// The end of some GPU work.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_fence {
    /// Opaque; 0 is no fence.
    pub id: u64,
}

/// None: nothing was pending when the fence was made, so it is already signalled.
pub(crate) struct FenceObj {
    pub fence: Option<Fence>,
}

pub(crate) fn insert(screen: u64, fence: Option<Fence>) -> u64 {
    handles::insert(Kind::Fence, Owner { screen, ctx: 0 }, FenceObj { fence })
}

fn get(f: sgx535_fence) -> Result<(Arc<FenceObj>, Owner)> {
    handles::get::<FenceObj>(f.id, Kind::Fence, "fence")
}

/// A fence of `screen`: a fence of another screen is an invalid handle here.
fn get_on(screen: sgx535_screen, f: sgx535_fence) -> Result<Arc<FenceObj>> {
    let (f, owner) = get(f)?;
    if owner.screen != screen.id {
        return Err(crate::status::Error::new(
            crate::status::SGX535_ERROR_INVALID_HANDLE,
            "fence belongs to another screen",
        ));
    }
    Ok(f)
}

/// `fence_reference`: a second handle to the same fence (destroy each).
#[no_mangle]
pub unsafe extern "C" fn sgx535_fence_reference(
    src: sgx535_fence,
    out: *mut sgx535_fence,
) -> sgx535_status {
    guard(|| {
        let (f, owner) = get(src)?;
        check_out(out, "out")?;
        let id = insert(owner.screen, f.fence.clone());
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", sgx535_fence { id }) }
    })
}

/// Drops a fence handle.
#[no_mangle]
pub extern "C" fn sgx535_fence_destroy(fence: sgx535_fence) -> sgx535_status {
    guard(|| {
        handles::remove::<FenceObj>(fence.id, Kind::Fence, "fence")?;
        Ok(())
    })
}

/// `fence_finish`: waits up to `timeout_ns` (0 polls, UINT64_MAX waits for ever).
/// `*signalled` is 1 when the work ended, 0 on timeout (status OK). Work that ended in a fault
/// returns SGX535_ERROR_GPU_FAULT (DEVICE_LOST when the device was lost), with `*signalled` 1.
#[no_mangle]
pub unsafe extern "C" fn sgx535_fence_finish(
    screen: sgx535_screen,
    fence: sgx535_fence,
    timeout_ns: u64,
    signalled: *mut u8,
) -> sgx535_status {
    guard(|| {
        let s = screen::get(screen)?;
        let f = get_on(screen, fence)?;
        check_out(signalled, "signalled")?;
        let Some(fence) = &f.fence else {
            // SAFETY: checked by check_out.
            return unsafe { write(signalled, "signalled", 1) };
        };
        // Duration's maximum stands for "for ever"; timeouts beyond a century are the same.
        let timeout = if timeout_ns == u64::MAX {
            Duration::MAX
        } else {
            Duration::from_nanos(timeout_ns)
        };
        let r = s.screen.fence_finish(fence, timeout);
        let done = match &r {
            Ok(d) => *d,
            Err(_) => true,
        };
        // SAFETY: checked by check_out.
        unsafe { write(signalled, "signalled", u8::from(done))? };
        r.map(|_| ()).map_err(Into::into)
    })
}

/// `fence_get_fd`: a file descriptor that becomes readable (POLLIN) when the fence ends, on
/// every device: on a DRM device the kernel's sync_file (SYNC_IOC_FILE_INFO's status is
/// negative for a job that ended in error), on the model an eventfd the library writes when
/// the job ends, which says that the job ended, not how (`sgx535_fence_finish` does). The
/// caller owns it and closes it; each call gives a new one.
#[no_mangle]
pub unsafe extern "C" fn sgx535_fence_get_fd(
    screen: sgx535_screen,
    fence: sgx535_fence,
    fd: *mut i32,
) -> sgx535_status {
    guard(|| {
        let s = screen::get(screen)?;
        let f = get_on(screen, fence)?;
        check_out(fd, "fd")?;
        let out = match &f.fence {
            Some(fence) => s.screen.device().export_fence(fence)?,
            None => sgx_winsys::signalled_fd()?,
        };
        let raw = std::os::fd::IntoRawFd::into_raw_fd(out);
        // SAFETY: checked by check_out.
        unsafe { write(fd, "fd", raw) }
    })
}
