//! Fences: one per job, signalled by the backend's worker when the job ends.
//!
//! A fence can leave the process as a file descriptor ([`Fence::export_fd`]): an eventfd that
//! becomes readable (POLLIN) when the fence ends, as a sync_file does, on every backend. The
//! backend's thread that ends the fence writes it, so a thread or process holding only the fd
//! sees the end without calling into the library.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use crate::error::{JobError, Result, WinsysError};
use crate::live::{LiveCounters, LiveKind, LiveToken};

/// Where a fence stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenceStatus {
    /// The job has not finished (queued, running, or hung).
    Pending,
    /// The job finished without error.
    Signalled,
    /// The job ended with an error.
    Error(JobError),
}

/// Something to poke when a fence it waits for is signalled from outside its own thread.
pub(crate) trait Notify: Send + Sync {
    fn notify(&self);
}

struct Slot {
    status: FenceStatus,
    signalled_by: Option<ThreadId>,
    /// The eventfd exported copies duplicate, made on the first export.
    fd: Option<OwnedFd>,
}

/// Makes `fd` (an eventfd) readable: adds 1 to its counter.
fn wake_fd(fd: &OwnedFd) {
    let one: u64 = 1;
    // SAFETY: writes the 8 bytes of `one` to an eventfd this fence owns.
    let n = unsafe { libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
    if n != 8 {
        log::error!(
            "fence: writing its eventfd: {}",
            std::io::Error::last_os_error()
        );
    }
}

struct FenceInner {
    id: u64,
    device: u64,
    slot: Mutex<Slot>,
    cv: Condvar,
    _live: LiveToken,
}

/// The completion of one job (or a CPU-signalled [`UserFence`]). Cheap to clone.
#[derive(Clone)]
pub struct Fence(Arc<FenceInner>);

impl std::fmt::Debug for Fence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fence")
            .field("id", &self.0.id)
            .field("status", &self.status())
            .finish()
    }
}

impl Fence {
    pub(crate) fn new(device: u64, id: u64, live: &Arc<LiveCounters>) -> Fence {
        Fence(Arc::new(FenceInner {
            id,
            device,
            slot: Mutex::new(Slot {
                status: FenceStatus::Pending,
                signalled_by: None,
                fd: None,
            }),
            cv: Condvar::new(),
            _live: live.token(LiveKind::Fence),
        }))
    }

    fn slot(&self) -> MutexGuard<'_, Slot> {
        // A poisoned slot only means a panicking thread held it; the status is still coherent.
        self.0.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Device-unique id (also the trace's name for it).
    pub fn id(&self) -> u64 {
        self.0.id
    }

    pub(crate) fn device(&self) -> u64 {
        self.0.device
    }

    /// Current status, without waiting.
    pub fn status(&self) -> FenceStatus {
        self.slot().status.clone()
    }

    /// True while the job has not finished.
    pub fn is_pending(&self) -> bool {
        self.slot().status == FenceStatus::Pending
    }

    /// The thread that signalled the fence (None while pending).
    pub fn signalled_by(&self) -> Option<ThreadId> {
        self.slot().signalled_by
    }

    /// Waits until the job ends or `timeout` passes (zero polls). Ok when the job finished without
    /// error; [`WinsysError::Job`] when it failed; [`WinsysError::Timeout`] when still pending.
    pub fn wait(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now().checked_add(timeout);
        let mut slot = self.slot();
        loop {
            match &slot.status {
                FenceStatus::Signalled => return Ok(()),
                FenceStatus::Error(e) => {
                    return Err(WinsysError::Job {
                        fence: self.0.id,
                        error: e.clone(),
                    })
                }
                FenceStatus::Pending => {}
            }
            let left = match deadline {
                None => Duration::from_secs(3600),
                Some(d) => d.saturating_duration_since(Instant::now()),
            };
            if left.is_zero() {
                return Err(WinsysError::Timeout {
                    fence: self.0.id,
                    waited_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
                });
            }
            slot = self
                .0
                .cv
                .wait_timeout(slot, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// A file descriptor that becomes readable (POLLIN) when the fence ends, with or without
    /// error, and stays readable: an eventfd, polled as a sync_file is. The caller owns it
    /// (close it); each call gives a new descriptor of the same eventfd. It carries no error:
    /// ask the fence ([`Fence::status`]) how the job ended.
    pub fn export_fd(&self) -> Result<OwnedFd> {
        let mut slot = self.slot();
        if slot.fd.is_none() {
            // SAFETY: eventfd takes an initial count and flags and returns a new descriptor.
            let raw = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
            if raw < 0 {
                return Err(os_error("eventfd"));
            }
            // SAFETY: `raw` is the new eventfd, owned by nothing else.
            let fd = unsafe { OwnedFd::from_raw_fd(raw) };
            if slot.status != FenceStatus::Pending {
                wake_fd(&fd);
            }
            slot.fd = Some(fd);
        }
        slot.fd
            .as_ref()
            .expect("made above")
            .try_clone()
            .map_err(|e| WinsysError::Os {
                op: "dup of a fence's eventfd",
                errno: crate::error::Errno::from_raw(e.raw_os_error().unwrap_or(0)),
            })
    }

    /// Ends the fence with `result`. The first call wins; later calls are ignored, so a job
    /// that finished is never re-marked (for example as lost). Returns whether it changed.
    pub(crate) fn signal(&self, result: std::result::Result<(), JobError>) -> bool {
        let mut slot = self.slot();
        if slot.status != FenceStatus::Pending {
            return false;
        }
        slot.status = match result {
            Ok(()) => FenceStatus::Signalled,
            Err(e) => FenceStatus::Error(e),
        };
        slot.signalled_by = Some(std::thread::current().id());
        if let Some(fd) = &slot.fd {
            wake_fd(fd);
        }
        drop(slot);
        self.0.cv.notify_all();
        true
    }
}

/// A descriptor already readable: the exported form of a fence with no work behind it.
pub fn signalled_fd() -> Result<OwnedFd> {
    // SAFETY: eventfd takes an initial count and flags and returns a new descriptor.
    let raw = unsafe { libc::eventfd(1, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    if raw < 0 {
        return Err(os_error("eventfd"));
    }
    // SAFETY: `raw` is the new eventfd, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

fn os_error(op: &'static str) -> WinsysError {
    WinsysError::Os {
        op,
        errno: crate::error::Errno::last(),
    }
}

/// A fence the CPU signals: an explicit in-fence that holds jobs back until the caller says so
/// (for example until data a job reads has been produced elsewhere).
pub struct UserFence {
    fence: Fence,
    wake: Weak<dyn Notify>,
}

impl UserFence {
    pub(crate) fn new(fence: Fence, wake: Weak<dyn Notify>) -> UserFence {
        UserFence { fence, wake }
    }

    /// The fence to pass to jobs as an in-fence.
    pub fn fence(&self) -> &Fence {
        &self.fence
    }

    /// Signals the fence: jobs waiting for it may run.
    pub fn signal(self) {
        self.finish(Ok(()));
    }

    /// Ends the fence with an error.
    pub fn fail(self, reason: &str) {
        self.finish(Err(JobError::Failed(reason.to_string())));
    }

    fn finish(&self, result: std::result::Result<(), JobError>) {
        if self.fence.signal(result) {
            if let Some(w) = self.wake.upgrade() {
                w.notify();
            }
        }
    }
}

impl Drop for UserFence {
    /// A user fence dropped unsignalled fails, so nothing waits for it forever.
    fn drop(&mut self) {
        self.finish(Err(JobError::Failed(
            "user fence dropped unsignalled".into(),
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    /// Polls `fd` for POLLIN for up to `timeout_ms` (-1: forever); true when readable.
    fn readable(fd: &impl AsFd, timeout_ms: i32) -> bool {
        let mut p = libc::pollfd {
            fd: fd.as_fd().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        assert!(n >= 0, "poll: {}", std::io::Error::last_os_error());
        n == 1 && p.revents & libc::POLLIN != 0
    }

    #[test]
    fn an_exported_fd_becomes_readable_when_the_fence_ends() {
        let f = fence(7);
        let fd = f.export_fd().unwrap();
        assert!(!readable(&fd, 0), "timeout 0: pending");
        assert!(!readable(&fd, 1), "timeout 1 ms: pending");
        // A second thread holding only the fd sees the signal with an infinite wait.
        let waiter = std::thread::spawn(move || readable(&fd, -1));
        std::thread::sleep(Duration::from_millis(20));
        assert!(f.signal(Err(JobError::Canceled)));
        assert!(waiter.join().unwrap());
        // Exported after the end: readable at once; every copy stays readable.
        let late = f.export_fd().unwrap();
        assert!(readable(&late, 0));
        assert!(readable(&late, 0));
    }

    fn fence(id: u64) -> Fence {
        Fence::new(1, id, &Arc::new(LiveCounters::default()))
    }

    #[test]
    fn pending_fence_times_out_then_signals_once() {
        let f = fence(3);
        assert!(matches!(
            f.wait(Duration::ZERO),
            Err(WinsysError::Timeout { fence: 3, .. })
        ));
        assert!(f.signal(Ok(())));
        assert!(!f.signal(Err(JobError::DeviceLost)));
        assert_eq!(f.status(), FenceStatus::Signalled);
        assert!(f.wait(Duration::ZERO).is_ok());
        assert_eq!(f.signalled_by(), Some(std::thread::current().id()));
    }

    #[test]
    fn error_fence_reports_the_job_error() {
        let f = fence(4);
        f.signal(Err(JobError::OutOfMemory));
        match f.wait(Duration::ZERO) {
            Err(WinsysError::Job { fence: 4, error }) => assert_eq!(error, JobError::OutOfMemory),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn wait_returns_when_another_thread_signals() {
        let f = fence(5);
        let g = f.clone();
        let t = std::thread::spawn(move || g.signal(Ok(())));
        assert!(f.wait(Duration::from_secs(60)).is_ok());
        let signaller = t.thread().id();
        t.join().unwrap();
        assert_eq!(f.signalled_by(), Some(signaller));
    }

    #[test]
    fn dropped_user_fence_fails() {
        struct N;
        impl Notify for N {
            fn notify(&self) {}
        }
        let n: Arc<dyn Notify> = Arc::new(N);
        let u = UserFence::new(fence(6), Arc::downgrade(&n));
        let f = u.fence().clone();
        drop(u);
        assert!(matches!(
            f.status(),
            FenceStatus::Error(JobError::Failed(_))
        ));
    }
}
