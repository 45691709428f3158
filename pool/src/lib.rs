//! sgx535's worker pool: worker threads that live as long as the pool and help its caller
//! with one task at a time. [`global`] is the process's, shared by the device model's tile
//! loop and layout's large twiddle copies: one set of threads per process (why that matters:
//! [`global`]). A crate of its own so that the model, which never uses the driver's layout
//! code (its tests hold the two apart), and layout can share it.
//!
//! [`Pool::run`] runs the caller's part on the calling thread and offers a helper task to
//! the workers, which are woken and join it when the scheduler lets them. The work must be
//! shared so that the caller alone can finish it (its work handed out piece by piece, not split in advance):
//! then a worker that is late, or preempted, never holds the caller up except for the piece
//! it is in the middle of, which `run` waits for before it returns (the task borrows the
//! caller's data). Nothing is spawned or allocated per task.

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]
#![warn(missing_docs)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A task as the workers see it: called with the worker's number (1..).
pub type TaskFn<'a> = dyn Fn(usize) + Sync + 'a;

/// A task with its lifetime erased; only dereferenced while the caller waits in `run`.
#[derive(Clone, Copy)]
struct TaskRef(*const TaskFn<'static>);

// SAFETY: the pointee is `Sync` (shared calls from any thread are allowed) and `run` keeps it
// alive until every worker that took the pointer has given it back.
unsafe impl Send for TaskRef {}

#[derive(Default)]
struct State {
    /// Bumped for every task: a worker joins a task once at most.
    generation: u64,
    /// The task on offer, while its caller runs it.
    task: Option<TaskRef>,
    /// Workers inside the task.
    inside: usize,
    /// A worker's call of the task panicked.
    panicked: bool,
    /// Workers that have reached their wait for tasks.
    parked: usize,
    /// The pool is being dropped.
    shutdown: bool,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    /// Workers wait here for a task.
    offered: Condvar,
    /// The caller waits here for the workers inside to leave.
    left: Condvar,
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is consistent at every unlock (no code that can panic runs under it).
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Worker threads for [`Pool::run`].
pub struct Pool {
    inner: Arc<Inner>,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    /// A pool of up to `workers` threads (fewer, with a warning, if the system refuses some).
    pub fn new(workers: usize) -> Pool {
        let inner = Arc::new(Inner::default());
        let mut handles = Vec::with_capacity(workers);
        for who in 1..=workers {
            let w = inner.clone();
            match std::thread::Builder::new()
                .name(format!("{WORKER_NAME}-{who}"))
                .spawn(move || work(&w, who))
            {
                Ok(h) => handles.push(h),
                Err(e) => {
                    log::warn!("pool worker {who} of {workers} not started ({e})");
                    break;
                }
            }
        }
        // Return once every worker waits for tasks: a pool started by a process's last job
        // (the process pool starts with the first job that takes it) must not leave threads
        // still starting up inside this library while the process exits and its loader
        // unloads the library (a program's last draw then crashed now and then, under load).
        let mut s = inner.lock();
        while s.parked < handles.len() {
            s = inner.left.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        drop(s);
        Pool { inner, handles }
    }

    /// Worker threads (the caller is not counted).
    pub fn workers(&self) -> usize {
        self.handles.len()
    }

    /// Runs `mine` on this thread while the workers that wake in time call `helper(k)`, each
    /// with its own k (1..); returns `mine`'s value once no worker is inside `helper`.
    /// Another thread's `run` on the same pool meanwhile gets no workers (its `mine` runs
    /// alone). A panic in `mine` is resumed here, after the workers have left.
    pub fn run<R>(&self, helper: &TaskFn<'_>, mine: impl FnOnce() -> R) -> R {
        self.run_timed(helper, mine).0
    }

    /// [`Pool::run`], with how long the caller then waited for workers still inside (zero
    /// when none was, or none was offered the task).
    pub fn run_timed<R>(&self, helper: &TaskFn<'_>, mine: impl FnOnce() -> R) -> (R, Duration) {
        let erased: *const TaskFn<'_> = helper;
        // SAFETY: only the lifetime changes; the pointer is dereferenced by workers only
        // between this offer and the wait below for `inside` to fall back to zero.
        let erased = TaskRef(unsafe {
            std::mem::transmute::<*const TaskFn<'_>, *const TaskFn<'static>>(erased)
        });
        {
            let mut s = self.inner.lock();
            if s.task.is_some() || self.handles.is_empty() {
                drop(s);
                return (mine(), Duration::ZERO);
            }
            s.generation = s.generation.wrapping_add(1);
            s.task = Some(erased);
        }
        self.inner.offered.notify_all();
        let r = catch_unwind(AssertUnwindSafe(mine));
        let mut waited = Duration::ZERO;
        let theirs = {
            let mut s = self.inner.lock();
            s.task = None;
            let since = (s.inside > 0).then(Instant::now);
            while s.inside > 0 {
                s = self
                    .inner
                    .left
                    .wait(s)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if let Some(t) = since {
                waited = t.elapsed();
            }
            std::mem::take(&mut s.panicked)
        };
        let r = r.unwrap_or_else(|p| resume_unwind(p));
        assert!(
            !theirs,
            "a pool worker panicked (invariant: tasks do not panic)"
        );
        (r, waited)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.inner.lock().shutdown = true;
        self.inner.offered.notify_all();
        for h in self.handles.drain(..) {
            // A worker catches its task's panics, so it ends normally.
            let _ = h.join();
        }
    }
}

/// Workers are named `sgx-pool-N` (N from 1), as `top -H` and `/proc/<pid>/task/*/comm` show.
pub const WORKER_NAME: &str = "sgx-pool";

/// Threads of this process named like pool workers, from `/proc/self/task` (0 where it is not
/// readable): for tests and diagnostics that check when pools start.
pub fn live_workers() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(WORKER_NAME))
        .count()
}

/// The cores the process may run on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The process's pool: one worker per core beside the caller (None on one core), started by
/// the first call, which the model's first job with enough tiles makes, or the first twiddle
/// copy large enough. Not earlier, and not twice: every thread glibc sees costs the process a
/// malloc arena, 64 MiB of address space reserved at the thread's first allocation, and a GL
/// program under an address-space limit (piglit's `rlimit 268435456` tests) sets it after
/// creating its context: an idle pool took 64 of the 256 MiB Mesa's GLSL front end needed.
pub fn global() -> Option<Arc<Pool>> {
    static GLOBAL: OnceLock<Option<Arc<Pool>>> = OnceLock::new();
    GLOBAL
        .get_or_init(|| {
            let cores = cores();
            (cores > 1).then(|| Arc::new(Pool::new(cores - 1)))
        })
        .clone()
}

/// `SGX_THREADS`, the process's thread knob: `Some(n)` for a count (`1`: everything on the
/// caller's thread, for debugging; results are the same), `None` when unset or empty (one
/// thread per core). A bad value is warned about and taken as unset.
pub fn threads_from_env() -> Option<usize> {
    match std::env::var("SGX_THREADS") {
        Err(_) => None,
        Ok(v) if v.trim().is_empty() => None,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) => Some(n),
            Err(_) => {
                log::warn!("SGX_THREADS={v:?} is not a thread count: one per core");
                None
            }
        },
    }
}

/// A worker's life: wait for a task it has not joined yet, join it, leave, until shutdown.
fn work(inner: &Inner, who: usize) {
    let mut seen = 0u64;
    let mut parked = false;
    loop {
        let task = {
            let mut s = inner.lock();
            loop {
                if s.shutdown {
                    return;
                }
                if s.generation != seen {
                    seen = s.generation;
                    if let Some(t) = s.task {
                        s.inside += 1;
                        break t;
                    }
                }
                if !std::mem::replace(&mut parked, true) {
                    // Counted under the lock this wait releases: `Pool::new` sees the worker
                    // parked only once it waits.
                    s.parked += 1;
                    inner.left.notify_all();
                }
                s = inner
                    .offered
                    .wait(s)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        // SAFETY: `run` offered the task and waits for `inside` to be zero before its borrow
        // ends; this worker counted itself in under the lock while the task was on offer.
        let f = unsafe { &*task.0 };
        let r = catch_unwind(AssertUnwindSafe(|| f(who)));
        let mut s = inner.lock();
        s.panicked |= r.is_err();
        s.inside -= 1;
        if s.inside == 0 {
            inner.left.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn the_caller_alone_finishes_a_task_and_workers_that_join_help() {
        let pool = Pool::new(2);
        assert_eq!(pool.workers(), 2);
        let next = AtomicUsize::new(0);
        let done: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        let by = [(); 3].map(|()| AtomicUsize::new(0));
        let take = |who: usize| loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(d) = done.get(i) else { break };
            d.fetch_add(1, Ordering::Relaxed);
            by[who].fetch_add(1, Ordering::Relaxed);
        };
        for _ in 0..20 {
            next.store(0, Ordering::Relaxed);
            let r = pool.run(&take, || {
                take(0);
                7
            });
            assert_eq!(r, 7);
        }
        // Every piece exactly once per task, whoever ran it.
        assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 20));
        let total: usize = by.iter().map(|b| b.load(Ordering::Relaxed)).sum();
        assert_eq!(total, 20_000);
    }

    #[test]
    fn a_worker_asleep_in_a_task_is_waited_for_and_the_next_task_still_runs() {
        let pool = Pool::new(1);
        let slept = AtomicUsize::new(0);
        let t = std::time::Instant::now();
        let ((), waited) = pool.run_timed(
            &|who| {
                assert_eq!(who, 1);
                std::thread::sleep(Duration::from_millis(30));
                slept.fetch_add(1, Ordering::SeqCst);
            },
            || (),
        );
        // Either the worker joined (and `run` waited for it to wake) or it came too late.
        let joined = slept.load(Ordering::SeqCst);
        assert!(joined <= 1);
        if joined == 1 {
            assert!(t.elapsed() >= Duration::from_millis(30));
            assert!(waited <= t.elapsed());
        } else {
            assert_eq!(waited, Duration::ZERO);
        }
        let ran = AtomicUsize::new(0);
        let mine = pool.run(
            &|_| {
                ran.fetch_add(1, Ordering::SeqCst);
            },
            || 5,
        );
        assert_eq!(mine, 5);
        assert!(ran.load(Ordering::SeqCst) <= 1);
    }

    #[test]
    fn a_second_caller_runs_alone_while_the_pool_is_busy() {
        let pool = Pool::new(1);
        let helped = AtomicUsize::new(0);
        let help = |_| {
            helped.fetch_add(1, Ordering::SeqCst);
        };
        let inner = pool.run(&|_| (), || {
            // The pool is busy with this task: a nested run gets no workers.
            pool.run(&help, || 9)
        });
        assert_eq!(inner, 9);
        assert_eq!(helped.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_panic_in_the_callers_part_reaches_the_caller_and_the_pool_survives() {
        let pool = Pool::new(1);
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.run(&|_| (), || panic!("test panic"))
        }));
        assert!(r.is_err());
        assert_eq!(pool.run(&|_| (), || 3), 3);
    }

    #[test]
    fn live_workers_counts_a_pools_threads() {
        // Other tests' pools may be alive meanwhile: at least this one's are counted.
        let pool = Pool::new(2);
        assert_eq!(pool.workers(), 2);
        assert!(live_workers() >= 2, "{} workers seen", live_workers());
    }

    #[test]
    fn an_empty_pool_runs_on_the_caller() {
        let pool = Pool::new(0);
        assert_eq!(pool.workers(), 0);
        let helped = AtomicUsize::new(0);
        let r = pool.run(
            &|_| {
                helped.fetch_add(1, Ordering::SeqCst);
            },
            || 4,
        );
        assert_eq!(r, 4);
        assert_eq!(helped.load(Ordering::SeqCst), 0);
    }
}
