//! The device's counters as the ABI reports them, and its clock.

use crate::ffi::{check_out, guard, write};
use crate::screen::{get, sgx535_screen};
use crate::status::sgx535_status;

/// What a screen's device has done since it was opened: proof of where pixels came from.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct sgx535_device_stats {
    /// Submissions that reached the kernel (or the model), refused ones included.
    pub submissions: u64,
    /// Submissions refused.
    pub refused: u64,
    /// Jobs that finished without error.
    pub jobs_completed: u64,
    /// Jobs that ended in a fault, a failure, a hang's reset or device loss.
    pub jobs_failed: u64,
    /// Pixels the GPU's pixel programs ran for.
    pub pixels_shaded: u64,
    /// Bytes the pixel backend (PBE) wrote to memory.
    pub pbe_bytes_written: u64,
    /// Texels the texture unit fetched.
    pub texels_fetched: u64,
    /// Buffer objects alive now.
    pub live_buffers: u64,
    /// Jobs accepted and not yet finished.
    pub jobs_pending: u64,
}

/// The counters of the screen's device.
#[no_mangle]
pub unsafe extern "C" fn sgx535_screen_get_stats(
    screen: sgx535_screen,
    out: *mut sgx535_device_stats,
) -> sgx535_status {
    guard(|| {
        let s = get(screen)?;
        check_out(out, "out")?;
        let dev = s.screen.device();
        let t = dev.trace_totals();
        let live = dev.live();
        let st = sgx535_device_stats {
            submissions: t.submissions,
            refused: t.refused,
            jobs_completed: t.completed,
            jobs_failed: t.failed,
            pixels_shaded: t.counters.pixels_shaded,
            pbe_bytes_written: t.counters.pbe_bytes_written,
            texels_fetched: t.counters.texels_fetched,
            live_buffers: live.bos,
            jobs_pending: live.jobs,
        };
        // SAFETY: checked by check_out.
        unsafe { write(out, "out", st) }
    })
}
