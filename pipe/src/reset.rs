//! Device resets as Gallium reports them: `get_device_reset_status` (guilty, innocent or
//! unknown since the last query) and a reset callback, so GL robustness queries
//! (`GL_ARB_robustness`) can tell the application. A context learns of a reset from the
//! device's reset list ([`sgx_winsys::Device::resets`]); one created after a reset starts
//! past it and works as any other.

use std::sync::atomic::{AtomicU64, Ordering};

pub use sgx_winsys::ResetStatus;

static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A callback told of each reset a context notices (Gallium's `pipe_device_reset_callback`).
pub type ResetCallback = Box<dyn FnMut(ResetStatus) + Send>;

/// A context's view of the device's resets.
pub(crate) struct ResetWatch {
    /// Unique per process: the winsys records it as the guilty context of a hang.
    pub id: u64,
    /// Resets already reported by `get_device_reset_status`.
    queried: usize,
    /// Resets already passed to the callback.
    reported: usize,
    pub callback: Option<ResetCallback>,
}

impl ResetWatch {
    /// A watch that starts after the `resets_so_far` the device has already had.
    pub fn new(resets_so_far: usize) -> ResetWatch {
        ResetWatch {
            id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
            queried: resets_so_far,
            reported: resets_so_far,
            callback: None,
        }
    }
}

impl ResetWatch {
    /// The status since the last query (`get_device_reset_status`), from the device's resets.
    pub fn query(&mut self, all: &[sgx_winsys::ResetRecord]) -> ResetStatus {
        let new = all.get(self.queried..).unwrap_or(&[]);
        self.queried = all.len();
        ResetStatus::for_context(self.id, new)
    }

    /// Tells the callback of resets it has not heard of.
    pub fn notice(&mut self, all: &[sgx_winsys::ResetRecord]) {
        if all.len() <= self.reported {
            return;
        }
        let status = ResetStatus::for_context(self.id, &all[self.reported..]);
        self.reported = all.len();
        if let Some(cb) = self.callback.as_mut() {
            cb(status);
        }
    }
}
