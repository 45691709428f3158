//! The part of every backend that is the same: ids, validation, dependencies from
//! reservations, reservation updates, the trace and live counts. A backend supplies an
//! [`Engine`] that queues accepted jobs (or refuses them).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::access::Access;
use crate::bo::Bo;
use crate::error::{JobError, Result, WinsysError};
use crate::fence::Fence;
use crate::job::Job;
use crate::live::{LiveCounters, LiveCounts, LiveKind, LiveToken};
use crate::trace::{TraceBo, TraceEntry, TraceLog, TraceResult};

static NEXT_DEVICE: AtomicU64 = AtomicU64::new(1);

/// A job the core accepted, handed to the engine.
pub(crate) struct Accepted {
    /// Submission number (counts refused submissions too).
    pub submission: u64,
    /// Index among accepted jobs.
    pub job_index: u64,
    /// The validated job.
    pub job: Job,
    /// Fences to wait for before running.
    pub deps: Vec<Fence>,
    /// The job's out-fence.
    pub fence: Fence,
    /// Counts the job as live until it is dropped.
    pub job_token: LiveToken,
}

/// A backend's queue.
pub(crate) trait Engine {
    /// Queues an accepted job, or refuses it (nothing queued, no reservation changed). Called in
    /// submission order with the core's submit lock held.
    fn enqueue(&self, acc: Accepted) -> Result<()>;
}

struct Counters {
    submissions: u64,
    jobs: u64,
}

/// Shared state of one device. `pub` (in this private module) only so that the sealed
/// accessor of [`crate::Device`] may name it; nothing outside winsys can.
pub struct Core {
    pub(crate) id: u64,
    pub(crate) live: Arc<LiveCounters>,
    pub(crate) trace: TraceLog,
    /// Shared with the device's buffers ([`Core::lost_flag`]), so a buffer asks whether it may
    /// be mapped with one load (a `Weak` upgrade was two atomic writes, measurable in
    /// drawoverhead's per-draw uploads). Set by `lose`, and when the device goes.
    lost: Arc<AtomicBool>,
    next_bo: AtomicU64,
    next_fence: AtomicU64,
    submit: Mutex<Counters>,
}

impl Core {
    pub(crate) fn new(trace_limit: Option<usize>) -> Core {
        Core {
            id: NEXT_DEVICE.fetch_add(1, Ordering::Relaxed),
            live: Arc::new(LiveCounters::default()),
            trace: TraceLog::new(trace_limit),
            lost: Arc::new(AtomicBool::new(false)),
            next_bo: AtomicU64::new(1),
            next_fence: AtomicU64::new(1),
            submit: Mutex::new(Counters {
                submissions: 0,
                jobs: 0,
            }),
        }
    }

    pub(crate) fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// What a buffer keeps to ask whether its device is lost or gone.
    pub(crate) fn lost_flag(&self) -> LostFlag {
        LostFlag(Arc::clone(&self.lost))
    }

    /// The device is lost: every job not yet ended is traced as ended with DeviceLost, and
    /// only then does `is_lost()` say so, under the trace's lock, so that a caller that sees
    /// the loss (here, or as a DeviceLost error) and reads the trace finds none of them pending
    /// (`sgx535 replay --record` would write a pending job down as a hang). Whatever notices
    /// the loss first (a backend's worker or reaper, or an ioctl's errno on a caller's thread)
    /// calls this; their fences end with DeviceLost after.
    pub(crate) fn lose(&self) {
        self.trace.end_pending(&JobError::DeviceLost, || {
            self.lost.store(true, Ordering::Release)
        });
    }

    pub(crate) fn check_alive(&self) -> Result<()> {
        if self.is_lost() {
            Err(WinsysError::DeviceLost)
        } else {
            Ok(())
        }
    }

    pub(crate) fn next_bo_id(&self) -> u64 {
        self.next_bo.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn new_fence(&self) -> Fence {
        let id = self.next_fence.fetch_add(1, Ordering::Relaxed);
        Fence::new(self.id, id, &self.live)
    }

    /// Validates, orders and queues a job; see [`crate::Device::submit`].
    pub(crate) fn submit(&self, job: Job, engine: &dyn Engine) -> Result<Fence> {
        self.check_alive()?;
        let job = job.validate(self.id)?;
        let bos: Vec<(Bo, Access)> = job.bos.clone();
        // One submission at a time: dependencies are read and reservations updated atomically
        // with respect to other submissions, as a kernel does under its reservation locks.
        let mut counters = self.submit.lock().unwrap_or_else(|e| e.into_inner());
        let submission = counters.submissions;
        let mut deps: Vec<Fence> = job.in_fences.clone();
        for (bo, access) in &bos {
            deps.extend(bo.resv().fences_for(*access));
        }
        let mut seen = std::collections::HashSet::new();
        deps.retain(|f| seen.insert(f.id()));
        let fence = self.new_fence();
        let traced_bos = bos
            .iter()
            .map(|(b, a)| TraceBo {
                bo: b.id(),
                gpu_addr: b.gpu_addr(),
                size_B: b.size_B(),
                access: *a,
            })
            .collect();
        // Not traced once the device is lost (asked under the trace's lock, where the loss
        // is decided): a submission is pending only while a loss would still settle it.
        let entry = TraceEntry::pending(
            submission,
            job.kind.name(),
            traced_bos,
            deps.iter().map(Fence::id).collect(),
            Some(fence.id()),
        );
        if !self.trace.push_unless(entry, || self.is_lost()) {
            return Err(WinsysError::DeviceLost);
        }
        counters.submissions += 1;
        let acc = Accepted {
            submission,
            job_index: counters.jobs,
            job,
            deps,
            fence: fence.clone(),
            job_token: self.live.token(LiveKind::Job),
        };
        if let Err(e) = engine.enqueue(acc) {
            let result = match &e {
                WinsysError::Refused { errno } => TraceResult::refused(*errno),
                WinsysError::DeviceLost => TraceResult::Error(JobError::DeviceLost),
                other => TraceResult::Error(JobError::Failed(other.to_string())),
            };
            self.trace.update(submission, |t| {
                t.fence = None;
                t.result = result;
            });
            return Err(e);
        }
        counters.jobs += 1;
        for (bo, access) in &bos {
            bo.resv().add(&fence, *access);
        }
        Ok(fence)
    }

    /// Live counts (va_B is the backend's).
    pub(crate) fn live(&self) -> LiveCounts {
        self.live.snapshot()
    }

    /// Waits until every accepted job has finished and its backend released its references;
    /// see [`crate::Device::wait_idle`].
    pub(crate) fn wait_idle(&self, timeout: Duration) -> Result<()> {
        if self.live.wait_no_jobs(timeout) {
            Ok(())
        } else {
            Err(WinsysError::Timeout {
                fence: 0,
                waited_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
            })
        }
    }
}

/// A dropped device counts as lost for the buffers that outlive it.
impl Drop for Core {
    fn drop(&mut self) {
        self.lost.store(true, Ordering::Release);
    }
}

/// Whether a buffer's device is lost or gone (see [`Core::lost_flag`]).
pub(crate) struct LostFlag(Arc<AtomicBool>);

impl LostFlag {
    pub(crate) fn get(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}
