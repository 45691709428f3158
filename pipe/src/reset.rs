//! Device resets as Gallium reports them: `get_device_reset_status` (guilty, innocent or
//! unknown since the last query) and a reset callback, so GL robustness queries
//! (`GL_ARB_robustness`) can tell the application. A context learns of a reset from the
//! device's reset list ([`sgx_winsys::Device::resets`]); one created after a reset starts
//! past it and works as any other.

use std::sync::atomic::{AtomicU64, Ordering};

pub use sgx_winsys::ResetStatus;

use crate::context::Context;

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
    callback: Option<ResetCallback>,
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

impl Context {
    /// The id the winsys knows this context's jobs by.
    pub fn id(&self) -> u64 {
        self.reset.id
    }

    /// `get_device_reset_status`: whether the device was reset since the last call, and
    /// whether this context's job caused it.
    pub fn get_device_reset_status(&mut self) -> ResetStatus {
        let all = self.dev().resets();
        let new = all.get(self.reset.queried..).unwrap_or(&[]);
        self.reset.queried = all.len();
        ResetStatus::for_context(self.reset.id, new)
    }

    /// `set_device_reset_callback`: called with the status of each reset this context
    /// notices (on a later flush), before the application queries it.
    pub fn set_device_reset_callback(&mut self, callback: Option<ResetCallback>) {
        self.reset.callback = callback;
    }

    /// Tells the callback of resets it has not heard of.
    pub(crate) fn notice_resets(&mut self) {
        let all = self.dev().resets();
        if all.len() <= self.reset.reported {
            return;
        }
        let status = ResetStatus::for_context(self.reset.id, &all[self.reset.reported..]);
        self.reset.reported = all.len();
        if let Some(cb) = self.reset.callback.as_mut() {
            cb(status);
        }
    }
}
