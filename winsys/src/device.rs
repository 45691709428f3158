//! The `Device` trait: what the driver needs from "the kernel".

use std::os::fd::{BorrowedFd, OwnedFd};
use std::time::Duration;

use crate::bo::{Bo, BoDesc};
use crate::error::{Result, WinsysError};
use crate::fence::{Fence, UserFence};
use crate::job::Job;
use crate::live::LiveCounts;
use crate::trace::Trace;

/// Which backend a device is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The device model, jobs on a worker thread.
    Sim,
    /// The device model with a host fixture's failures injected.
    Replay,
    /// A DRM render node speaking sgx535_drm.h.
    Drm,
}

impl Backend {
    /// "sim", "replay" or "drm".
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sim => "sim",
            Backend::Replay => "replay",
            Backend::Drm => "drm",
        }
    }
}

/// What a device reports about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Backend.
    pub backend: Backend,
    /// Kernel driver name ("sgx535"), or "model" for the sim and replay backends.
    pub driver: String,
    /// CORE_REVISION register value.
    pub core_revision: u32,
    /// First GPU address handed to buffers.
    pub va_start: u64,
    /// One past the last.
    pub va_end: u64,
    /// GPU page size.
    pub page_B: u64,
    /// True when the GPU is the device model (sim, replay, or the drm-shim).
    pub is_model: bool,
}

/// What every backend is built on: the shared [`Core`] (ids, the trace, the lost flag, live
/// counts). The module is private, so only winsys's backends implement [`Device`].
pub(crate) mod sealed {
    use crate::submit::Core;

    /// A backend's access to its core, from which [`super::Device`]'s queries are answered.
    pub trait WithCore {
        /// The device's core.
        fn core(&self) -> &Core;
    }
}

/// A GPU device: buffers, submissions, fences and the trace. Shared between threads. The
/// queries every backend answers from its core the same way (trace, totals, loss, idle) are
/// provided here.
pub trait Device: Send + Sync + sealed::WithCore {
    /// What the device is.
    fn info(&self) -> DeviceInfo;

    /// Allocates a buffer and maps it into the GPU address space.
    fn create_bo(&self, desc: &BoDesc) -> Result<Bo>;

    /// Submits a job. It runs after the implicit fences of every buffer it uses (a read waits
    /// for the writer, a write for everything) and its explicit in-fences. Returns its
    /// out-fence, which is recorded on the buffers' reservations.
    fn submit(&self, job: Job) -> Result<Fence>;

    /// A fence the caller signals, for use as an explicit in-fence.
    fn user_fence(&self) -> Result<UserFence>;

    /// A snapshot of the submission trace.
    fn trace(&self) -> Trace {
        self.core().trace.snapshot()
    }

    /// Running totals of submissions, job ends and GPU counters since the device opened (kept
    /// even where the trace limit dropped entries; cheap, unlike a snapshot).
    fn trace_totals(&self) -> crate::trace::TraceTotals {
        self.core().trace.totals()
    }

    /// True once the device is lost; every later call then fails with DeviceLost.
    fn is_lost(&self) -> bool {
        self.core().is_lost()
    }

    /// Counts of live buffers, fences, unfinished jobs and allocated GPU address space.
    fn live(&self) -> LiveCounts;

    /// Waits until every accepted job has finished (with or without error) and the backend has
    /// released the job's buffers and fence. Err(Timeout) while a job is held back or hung.
    fn wait_idle(&self, timeout: Duration) -> Result<()> {
        self.core().wait_idle(timeout)
    }

    /// Gives back what the backend keeps for reuse (the model's pool of freed buffers), so that
    /// what stays allocated is what is live. A leak check calls it before counting; nothing
    /// else needs to. Backends that keep nothing do nothing.
    fn release_caches(&self) {}

    /// Every GPU reset so far, oldest first (a context compares the count with what it saw).
    /// Backends without hang recovery report none.
    fn resets(&self) -> Vec<crate::reset::ResetRecord> {
        Vec::new()
    }

    /// Exports `fence` as a file descriptor that becomes readable (POLLIN) when the fence ends,
    /// as a sync_file does; the caller owns it. On the drm backend it is the kernel's sync
    /// file of the job's out-syncobj (SYNCOBJ_HANDLE_TO_FD, EXPORT_SYNC_FILE), whose
    /// SYNC_IOC_FILE_INFO status is negative for a job that ended in error; elsewhere, and for
    /// a fence with no kernel job, an eventfd ([`Fence::export_fd`]) that carries no error.
    fn export_fence(&self, fence: &Fence) -> Result<OwnedFd> {
        fence.export_fd()
    }

    /// A fence that ends when the sync file `fd` signals, for use as a job's in-fence; the fd
    /// is duplicated, so the caller may close it. Err(Unsupported) where the device cannot
    /// wait for outside fences (every backend but drm).
    fn import_fence(&self, fd: BorrowedFd<'_>) -> Result<Fence> {
        let _ = fd;
        Err(WinsysError::Unsupported {
            backend: self.info().backend.name(),
            what: "sync file import",
        })
    }

    /// Exports a buffer of this device as a dma-buf file descriptor (on the sim backend, a
    /// memfd), as PRIME's HANDLE_TO_FD does. Fences do not travel with it: the importer must
    /// not use the bytes before the exporter's fences have signalled.
    /// Err(Unsupported) on backends that cannot share buffers.
    fn export_bo(&self, bo: &Bo) -> Result<OwnedFd> {
        let _ = bo;
        Err(WinsysError::Unsupported {
            backend: self.info().backend.name(),
            what: "buffer export",
        })
    }

    /// Imports a dma-buf (or memfd) as a buffer of `size_B` bytes mapped into this device's GPU
    /// address space, as PRIME's FD_TO_HANDLE does. The file must hold `size_B` bytes rounded
    /// up to whole pages; the fd is duplicated, so the caller may close it. The buffer is
    /// GPU-writable and write-combined.
    /// Err(Unsupported) on backends that cannot share buffers.
    fn import_bo(&self, fd: BorrowedFd<'_>, size_B: u64) -> Result<Bo> {
        let _ = (fd, size_B);
        Err(WinsysError::Unsupported {
            backend: self.info().backend.name(),
            what: "buffer import",
        })
    }
}
