//! Counts of live winsys objects per device, so tests can prove nothing is left behind.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
    pub va_b: u64,
}

/// The counters behind [`LiveCounts`]; shared by a device and its objects.
#[derive(Debug, Default)]
pub(crate) struct LiveCounters {
    bos: AtomicU64,
    fences: AtomicU64,
    jobs: AtomicU64,
}

/// What a [`LiveToken`] counts.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LiveKind {
    Bo,
    Fence,
    Job,
}

impl LiveCounters {
    fn counter(&self, kind: LiveKind) -> &AtomicU64 {
        match kind {
            LiveKind::Bo => &self.bos,
            LiveKind::Fence => &self.fences,
            LiveKind::Job => &self.jobs,
        }
    }

    /// A token that counts one live object of `kind` until it is dropped.
    pub(crate) fn token(self: &Arc<Self>, kind: LiveKind) -> LiveToken {
        self.counter(kind).fetch_add(1, Ordering::Relaxed);
        LiveToken {
            counters: Arc::clone(self),
            kind,
        }
    }

    /// Current counts (va_b is filled in by the backend).
    pub(crate) fn snapshot(&self) -> LiveCounts {
        LiveCounts {
            bos: self.bos.load(Ordering::Relaxed),
            fences: self.fences.load(Ordering::Relaxed),
            jobs: self.jobs.load(Ordering::Relaxed),
            va_b: 0,
        }
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
        self.counters
            .counter(self.kind)
            .fetch_sub(1, Ordering::Relaxed);
    }
}
