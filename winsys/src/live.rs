//! Counts of live winsys objects per device, so tests can prove nothing is left behind.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Live object counts of one device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveCounts {
    /// Buffer objects whose storage is still allocated.
    pub bos: u64,
    /// Fences still referenced by anyone (callers, reservations, queued jobs).
    pub fences: u64,
    /// Jobs accepted and not yet finished (queued, running or hung).
    pub jobs: u64,
    /// Bytes of GPU address space allocated.
    pub va_B: u64,
}

/// The counters behind [`LiveCounts`]; shared by a device and its objects.
#[derive(Debug, Default)]
pub(crate) struct LiveCounters {
    bos: AtomicU64,
    fences: AtomicU64,
    /// Jobs under a lock, so [`LiveCounters::wait_no_jobs`] can sleep until they are gone.
    jobs: Mutex<u64>,
    jobs_gone: Condvar,
}

/// What a [`LiveToken`] counts.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LiveKind {
    Bo,
    Fence,
    Job,
}

impl LiveCounters {
    fn jobs(&self) -> std::sync::MutexGuard<'_, u64> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, kind: LiveKind, up: bool) {
        let atomic = match kind {
            LiveKind::Bo => &self.bos,
            LiveKind::Fence => &self.fences,
            LiveKind::Job => {
                let mut j = self.jobs();
                if up {
                    *j += 1;
                } else {
                    *j -= 1;
                    if *j == 0 {
                        self.jobs_gone.notify_all();
                    }
                }
                return;
            }
        };
        if up {
            atomic.fetch_add(1, Ordering::Relaxed);
        } else {
            atomic.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// A token that counts one live object of `kind` until it is dropped.
    pub(crate) fn token(self: &Arc<Self>, kind: LiveKind) -> LiveToken {
        self.add(kind, true);
        LiveToken {
            counters: Arc::clone(self),
            kind,
        }
    }

    /// Current counts (va_B is filled in by the backend).
    pub(crate) fn snapshot(&self) -> LiveCounts {
        LiveCounts {
            bos: self.bos.load(Ordering::Relaxed),
            fences: self.fences.load(Ordering::Relaxed),
            jobs: *self.jobs(),
            va_B: 0,
        }
    }

    /// Waits until no job is live (each job's token is dropped last, after its backend let go
    /// of its buffers and fence). False at the timeout.
    pub(crate) fn wait_no_jobs(&self, timeout: Duration) -> bool {
        let deadline = Instant::now().checked_add(timeout);
        let mut j = self.jobs();
        while *j != 0 {
            let left = deadline.map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(Instant::now())
            });
            if left.is_zero() {
                return false;
            }
            j = self
                .jobs_gone
                .wait_timeout(j, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

/// A handle on a device's live counts that outlives the device, so a caller can prove that
/// closing the device released everything (buffers held by a hung job included).
#[derive(Clone, Debug)]
pub struct LiveWatch(pub(crate) Arc<LiveCounters>);

impl LiveWatch {
    /// Current counts of buffers, fences and jobs (va_B is 0: the address space goes with the
    /// device).
    pub fn counts(&self) -> LiveCounts {
        self.0.snapshot()
    }
}

/// Counts one live object; decrements its counter when dropped.
#[derive(Debug)]
pub(crate) struct LiveToken {
    counters: Arc<LiveCounters>,
    kind: LiveKind,
}

impl Drop for LiveToken {
    fn drop(&mut self) {
        self.counters.add(self.kind, false);
    }
}
