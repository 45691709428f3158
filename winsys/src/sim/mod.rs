//! The sim backend: the device model behind the [`Device`] trait. Jobs run on a worker thread in
//! dependency order, so fences are truly asynchronous. A fault ends the job's fence with the
//! unit and address; a lost device fails every later call.
//!
//! A hung job stalls the GPU until the watchdog sees it past its budget
//! ([`SimOptions::hang_budget`], default [`DEFAULT_HANG_BUDGET`]); then the GPU is reset: the
//! hung job's fence ends with `JobError::Hang`, its context is recorded as guilty
//! ([`Device::resets`]), jobs of that context queued behind it end with `JobError::Canceled`,
//! and every other queued job runs as it would have. The model runs one job at a time and a
//! queued job has not started, so no innocent job has partial work to re-run.

pub(crate) mod convert;
pub use convert::report as model_report;
mod worker;

use std::collections::VecDeque;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant};

use sgx_sim::{Gpu, Perm};

use crate::bo::{Bo, BoDesc, BoStorage};
use crate::device::sealed::WithCore;
use crate::device::{Backend, Device, DeviceInfo};
use crate::error::{Errno, JobError, Result, WinsysError};
use crate::faults::Faults;
use crate::fence::{Fence, Notify, UserFence};
use crate::job::Job;
use crate::live::LiveCounts;
use crate::memfd::{Libc, MemfdBacking, SharedPool};
use crate::reset::{ResetRecord, DEFAULT_HANG_BUDGET};
use crate::submit::{Accepted, Core, Engine, LostFlag};
use crate::trace::TraceResult;
use crate::va::{VaAllocator, PAGE_B, VA_END, VA_START};

/// CORE_REVISION the model reports: the value a Mini 12 read (hw-facts, CONFIRMED).
pub const MODEL_CORE_REVISION: u32 = 0x0001_0201;

/// Trace entries a [`SimDevice::new`] device keeps: far more than any test or tool looks at
/// (a 2048 mip chain is a dozen), few enough that hours of GL drawing stay bounded.
pub const DEFAULT_TRACE_LIMIT: usize = 65_536;

/// Options of a model-backed device.
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// Keep at most this many trace entries (None: all).
    pub trace_limit: Option<usize>,
    /// Failures to inject (the replay backend gives a host fixture's).
    pub faults: Option<Arc<dyn Faults>>,
    /// How long a job may hang before the watchdog resets the GPU (None:
    /// [`DEFAULT_HANG_BUDGET`]).
    pub hang_budget: Option<Duration>,
}

struct Queue {
    /// Accepted jobs not yet run, in submission order.
    waiting: VecDeque<Accepted>,
    /// Jobs that hung: never finished, kept so their buffers stay alive.
    hung: Vec<Accepted>,
    /// A job hung: the GPU runs nothing more until the watchdog resets it.
    stalled: bool,
    /// When the hung job started: the watchdog's budget runs from here.
    hung_since: Option<Instant>,
    shutdown: bool,
}

pub(crate) struct SimShared {
    core: Core,
    backend: Backend,
    gpu: Mutex<Gpu>,
    va: Mutex<VaAllocator>,
    queue: Mutex<Queue>,
    cv: Condvar,
    faults: Option<Arc<dyn Faults>>,
    allocations: AtomicU64,
    hang_budget: Duration,
    resets: Mutex<Vec<ResetRecord>>,
    /// Freed buffers kept for reuse (crate::memfd::Pool).
    pool: SharedPool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each critical section leaves its data consistent before anything can panic.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SimShared {
    /// Marks the device lost and ends every unfinished job with DeviceLost. `current` is a job
    /// taken off the queue that the loss hit.
    fn lose(&self, current: Option<Accepted>) {
        // Every unfinished job, the one the loss hit included, is traced as lost before the
        // loss is visible (Core::lose): a caller whose next call fails with DeviceLost, and who
        // then reads the trace, finds them ended, not pending (a recorded fixture would
        // otherwise say the job hung).
        self.core.lose();
        let doomed: Vec<Accepted> = {
            let mut q = lock(&self.queue);
            let mut v: Vec<Accepted> = q.waiting.drain(..).collect();
            v.append(&mut q.hung);
            v
        };
        log::warn!(
            "sim: device lost; failing {} unfinished jobs",
            doomed.len() + current.is_some() as usize
        );
        for acc in current.into_iter().chain(doomed) {
            self.fail(acc, JobError::DeviceLost);
        }
    }

    /// Ends an unfinished job with `err`.
    fn fail(&self, acc: Accepted, err: JobError) {
        self.core.trace.update(acc.submission, |e| {
            e.result = TraceResult::from_job(Err(&err))
        });
        finish(acc, Err(err));
    }
}

/// Ends a job: releases its buffers and dependencies, signals its fence, drops the fence, and
/// last drops its live token, so that once `wait_idle` sees no live job the backend holds no
/// reference of any finished job.
pub(crate) fn finish(acc: Accepted, r: std::result::Result<(), JobError>) {
    let Accepted {
        job,
        deps,
        fence,
        job_token,
        ..
    } = acc;
    drop(job);
    drop(deps);
    fence.signal(r);
    drop(fence);
    drop(job_token);
}

impl Notify for SimShared {
    fn notify(&self) {
        // Taking the queue lock orders this after the worker's check of the dependencies, so
        // the wake-up cannot fall between its check and its wait.
        let _q = lock(&self.queue);
        self.cv.notify_all();
    }
}

impl Engine for SimShared {
    fn enqueue(&self, acc: Accepted) -> Result<()> {
        if let Some(errno) = self.faults.as_ref().and_then(|f| f.refusal(acc.submission)) {
            log::info!(
                "replay: refusing submission {} with {errno:?}",
                acc.submission
            );
            return Err(WinsysError::Refused { errno });
        }
        let mut q = lock(&self.queue);
        if self.core.is_lost() || q.shutdown {
            return Err(WinsysError::DeviceLost);
        }
        q.waiting.push_back(acc);
        self.cv.notify_all();
        Ok(())
    }
}

/// A buffer's storage in the model: a memfd's mapping, mapped into the model's MMU.
struct SimStorage {
    shared: Weak<SimShared>,
    lost: LostFlag,
    va: u32,
    size_B: u64,
    backing: Arc<MemfdBacking>,
}

impl BoStorage for SimStorage {
    fn cpu_ptr(&self) -> Result<*mut u8> {
        Ok(sgx_sim::Backing::as_ptr(&*self.backing))
    }

    fn device_lost(&self) -> bool {
        self.lost.get()
    }

    fn shared_fd(&self) -> Option<BorrowedFd<'_>> {
        Some(self.backing.fd())
    }
}

impl Drop for SimStorage {
    fn drop(&mut self) {
        if let Some(s) = self.shared.upgrade() {
            if let Err(e) = lock(&s.gpu).unmap(self.va) {
                log::error!("sim: unmapping buffer at {:#x}: {e}", self.va);
            }
            lock(&s.va).free(self.va, self.size_B);
        }
    }
}

/// A device backed by the model (the sim backend; the replay backend when a fixture is given).
pub struct SimDevice {
    shared: Arc<SimShared>,
    worker: Option<JoinHandle<()>>,
    worker_id: ThreadId,
}

impl SimDevice {
    /// A model-backed device keeping the last [`DEFAULT_TRACE_LIMIT`] trace entries (a GL
    /// application submits for hours; the running totals count everything).
    pub fn new() -> Result<SimDevice> {
        SimDevice::with_options(SimOptions {
            trace_limit: Some(DEFAULT_TRACE_LIMIT),
            ..SimOptions::default()
        })
    }

    /// A model-backed device; with a fixture it is the replay backend.
    pub fn with_options(opts: SimOptions) -> Result<SimDevice> {
        let backend = if opts.faults.is_some() {
            Backend::Replay
        } else {
            Backend::Sim
        };
        let shared = Arc::new(SimShared {
            core: Core::new(opts.trace_limit),
            backend,
            gpu: Mutex::new(Gpu::new()),
            va: Mutex::new(VaAllocator::new(VA_START, VA_END)),
            queue: Mutex::new(Queue {
                waiting: VecDeque::new(),
                hung: Vec::new(),
                stalled: false,
                hung_since: None,
                shutdown: false,
            }),
            cv: Condvar::new(),
            faults: opts.faults,
            allocations: AtomicU64::new(0),
            hang_budget: opts.hang_budget.unwrap_or(DEFAULT_HANG_BUDGET),
            resets: Mutex::new(Vec::new()),
            pool: SharedPool::default(),
        });
        let for_worker = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name("sgx-sim-worker".into())
            .spawn(move || worker::run(for_worker))
            .map_err(|e| WinsysError::Os {
                op: "spawning the sim worker",
                errno: Errno::from_raw(e.raw_os_error().unwrap_or(0)),
            })?;
        let worker_id = worker.thread().id();
        Ok(SimDevice {
            shared,
            worker: Some(worker),
            worker_id,
        })
    }

    /// The thread that runs jobs and signals their fences.
    pub fn worker_thread(&self) -> ThreadId {
        self.worker_id
    }

    /// Allocates GPU addresses for `desc`, makes the storage with `make` and maps it into the
    /// model's MMU.
    fn map_backing(
        &self,
        desc: &BoDesc,
        make: impl FnOnce(u64) -> Result<MemfdBacking>,
    ) -> Result<Bo> {
        let s = &self.shared;
        let va = lock(&s.va)
            .alloc(desc.size_B, desc.align_B)
            .ok_or(WinsysError::OutOfMemory {
                size_B: desc.size_B,
            })?;
        let backing = match make(desc.size_B) {
            Ok(b) => Arc::new(b),
            Err(e) => {
                lock(&s.va).free(va, desc.size_B);
                return Err(e);
            }
        };
        let perm = Perm {
            read: true,
            write: !desc.flags.gpu_read_only,
        };
        if let Err(e) = lock(&s.gpu).map(va, backing.clone(), perm) {
            lock(&s.va).free(va, desc.size_B);
            return Err(WinsysError::InvalidArgument(format!(
                "the model refused the mapping: {e}"
            )));
        }
        let storage = SimStorage {
            shared: Arc::downgrade(s),
            lost: s.core.lost_flag(),
            va,
            size_B: desc.size_B,
            backing,
        };
        Ok(Bo::new(
            s.core.id,
            s.core.next_bo_id(),
            desc,
            va,
            Box::new(storage),
            &s.core.live,
        ))
    }

    /// A handle on this device's live counts that stays readable after the device is dropped.
    pub fn live_watch(&self) -> crate::live::LiveWatch {
        crate::live::LiveWatch(Arc::clone(&self.shared.core.live))
    }

    /// Buffer allocations that reached this device (failed ones included): the counter a
    /// fixture's `allocation` index counts.
    pub fn allocations(&self) -> u64 {
        self.shared.allocations.load(Ordering::Relaxed)
    }

    /// The model's clock, in core cycles.
    pub fn clock_cycles(&self) -> u64 {
        lock(&self.shared.gpu).clock_cycles()
    }
}

impl WithCore for SimDevice {
    fn core(&self) -> &Core {
        &self.shared.core
    }
}

impl Device for SimDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: self.shared.backend,
            driver: "model".into(),
            core_revision: MODEL_CORE_REVISION,
            va_start: VA_START,
            va_end: VA_END,
            page_B: PAGE_B,
            is_model: true,
        }
    }

    fn create_bo(&self, desc: &BoDesc) -> Result<Bo> {
        let s = &self.shared;
        s.core.check_alive()?;
        desc.validate()?;
        let n = s.allocations.fetch_add(1, Ordering::Relaxed);
        if s.faults.as_ref().is_some_and(|f| f.fails_allocation(n)) {
            log::info!("replay: failing allocation {n} with ENOMEM");
            return Err(WinsysError::OutOfMemory {
                size_B: desc.size_B,
            });
        }
        self.map_backing(desc, |len_B| {
            MemfdBacking::new_pooled(len_B, &Libc, &s.pool, !desc.flags.undefined_contents)
        })
    }

    fn export_bo(&self, bo: &Bo) -> Result<OwnedFd> {
        self.shared.core.check_alive()?;
        if bo.device() != self.shared.core.id {
            return Err(WinsysError::ForeignObject("buffer"));
        }
        let fd = bo.shared_fd().ok_or(WinsysError::Unsupported {
            backend: self.shared.backend.name(),
            what: "export of a buffer without a file",
        })?;
        fd.try_clone_to_owned().map_err(|e| WinsysError::Os {
            op: "dup of a buffer's memfd",
            errno: Errno::from_raw(e.raw_os_error().unwrap_or(0)),
        })
    }

    fn import_bo(&self, fd: BorrowedFd<'_>, size_B: u64) -> Result<Bo> {
        self.shared.core.check_alive()?;
        let desc = BoDesc::new(size_B);
        desc.validate()?;
        self.map_backing(&desc, |len_B| MemfdBacking::import(fd, len_B, &Libc))
    }

    fn submit(&self, job: Job) -> Result<Fence> {
        self.shared.core.submit(job, &*self.shared)
    }

    fn user_fence(&self) -> Result<UserFence> {
        self.shared.core.check_alive()?;
        let wake: Weak<dyn Notify> = Arc::downgrade(&self.shared) as Weak<dyn Notify>;
        Ok(UserFence::new(self.shared.core.new_fence(), wake))
    }

    fn live(&self) -> LiveCounts {
        LiveCounts {
            va_B: lock(&self.shared.va).allocated_B(),
            ..self.shared.core.live()
        }
    }

    fn release_caches(&self) {
        crate::memfd::empty_pool(&self.shared.pool);
    }

    fn resets(&self) -> Vec<ResetRecord> {
        lock(&self.shared.resets).clone()
    }
}

impl Drop for SimDevice {
    /// Stops the worker; jobs still unfinished (waiting or hung) end with DeviceLost.
    fn drop(&mut self) {
        {
            let mut q = lock(&self.shared.queue);
            q.shutdown = true;
            self.shared.cv.notify_all();
        }
        if let Some(w) = self.worker.take() {
            if w.join().is_err() {
                log::error!("sim: the worker thread panicked");
            }
        }
    }
}
