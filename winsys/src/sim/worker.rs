//! The sim worker: takes the oldest job whose dependencies have all finished, runs it on the
//! model, and ends its fence. Runs on its own thread, so fences signal asynchronously. It is
//! also the watchdog: while a job hangs it waits out the job's budget, then resets the GPU. An
//! MMU fault resets the GPU at once, with the same consequences for the faulting context.

use std::sync::Arc;
use std::time::Instant;

use crate::reset::ResetRecord;

use super::{convert, lock, SimShared};
use crate::error::JobError;
use crate::faults::JobFault;
use crate::submit::Accepted;

/// The worker loop; returns at shutdown, after failing every unfinished job.
pub(super) fn run(shared: Arc<SimShared>) {
    loop {
        match next_ready(&shared) {
            Next::Run(acc) => run_one(&shared, acc),
            Next::Reset => reset(&shared),
            Next::Shutdown => break,
        }
    }
    let doomed: Vec<Accepted> = {
        let mut q = lock(&shared.queue);
        let mut v: Vec<Accepted> = q.waiting.drain(..).collect();
        v.append(&mut q.hung);
        v
    };
    for acc in doomed {
        shared.fail(acc, JobError::DeviceLost);
    }
}

/// What the worker does next.
enum Next {
    Run(Accepted),
    /// A hung job is past its budget.
    Reset,
    Shutdown,
}

/// Blocks until a job can run, the hung job's budget is spent, or shutdown. Jobs run in
/// dependency order: the oldest whose dependencies have all finished, whether or not they
/// succeeded (as a kernel's scheduler does, a dependency's error does not cancel its
/// dependants).
fn next_ready(shared: &SimShared) -> Next {
    let mut q = lock(&shared.queue);
    loop {
        if q.shutdown {
            return Next::Shutdown;
        }
        if shared.core.is_lost() {
            q = shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
            continue;
        }
        if q.stalled {
            let deadline = q.hung_since.unwrap_or_else(Instant::now) + shared.hang_budget;
            let now = Instant::now();
            if now >= deadline {
                return Next::Reset;
            }
            q = shared
                .cv
                .wait_timeout(q, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            continue;
        }
        let ready = q
            .waiting
            .iter()
            .position(|a| a.deps.iter().all(|f| !f.is_pending()));
        if let Some(acc) = ready.and_then(|i| q.waiting.remove(i)) {
            return Next::Run(acc);
        }
        q = shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
    }
}

/// The watchdog's reset: ends the hung job with `Hang`, records its context as guilty,
/// cancels that context's queued jobs, and lets the GPU run the rest.
fn reset(shared: &SimShared) {
    let budget_ms = shared.hang_budget.as_millis().min(u128::from(u64::MAX)) as u64;
    let (hung, canceled) = {
        let mut q = lock(&shared.queue);
        q.stalled = false;
        q.hung_since = None;
        let hung: Vec<Accepted> = q.hung.drain(..).collect();
        let guilty: Vec<u64> = hung
            .iter()
            .map(|a| a.job.context)
            .filter(|c| *c != 0)
            .collect();
        let canceled = take_queued_of(&mut q, &guilty);
        (hung, canceled)
    };
    for acc in &hung {
        record_reset(shared, acc);
    }
    log::warn!(
        "sim: GPU reset after a hang of {} job(s) past {budget_ms} ms; {} queued job(s) of the guilty context canceled",
        hung.len(),
        canceled.len()
    );
    for acc in hung {
        shared.fail(acc, JobError::Hang { budget_ms });
    }
    for acc in canceled {
        shared.fail(acc, JobError::Canceled);
    }
    // Jobs that waited on the ended fences may run now.
    let _q = lock(&shared.queue);
    shared.cv.notify_all();
}

/// Takes the queued jobs of the `guilty` contexts off the queue.
fn take_queued_of(q: &mut super::Queue, guilty: &[u64]) -> Vec<Accepted> {
    let (canceled, kept): (Vec<Accepted>, Vec<Accepted>) = q
        .waiting
        .drain(..)
        .partition(|a| guilty.contains(&a.job.context));
    q.waiting = kept.into();
    canceled
}

/// Records a reset `acc` caused, before its fence signals (whoever sees the error sees the
/// reset too).
fn record_reset(shared: &SimShared, acc: &Accepted) {
    lock(&shared.resets).push(ResetRecord {
        fence: acc.fence.id(),
        guilty_context: (acc.job.context != 0).then_some(acc.job.context),
    });
}

fn run_one(shared: &SimShared, acc: Accepted) {
    let inject = shared
        .faults
        .as_ref()
        .and_then(|f| f.job_fault(acc.job_index));
    if let Some(JobFault::LoseDevice) = inject {
        log::info!("replay: losing the device at job {}", acc.job_index);
        shared.lose(Some(acc));
        return;
    }
    let desc = convert::job_desc(&acc.job.kind);
    let t0 = Instant::now();
    let result = {
        let mut gpu = lock(&shared.gpu);
        if let Some(i) = inject.as_ref().and_then(JobFault::model_injection) {
            gpu.inject(i);
        }
        gpu.run(&desc)
    };
    let duration_us = t0.elapsed().as_micros().min(u64::MAX as u128) as u64;
    match convert::outcome(&result.status) {
        None => {
            log::warn!(
                "sim: job {} (fence {}) hung; the GPU runs nothing more until the watchdog resets it",
                acc.job_index,
                acc.fence.id()
            );
            let mut q = lock(&shared.queue);
            q.stalled = true;
            q.hung_since = Some(t0);
            q.hung.push(acc);
        }
        Some(r) => {
            let report = convert::report(&result);
            shared.core.trace.update(acc.submission, |e| {
                e.finish(r.as_ref().map(|_| ()), Some(&report), duration_us)
            });
            if !matches!(r, Err(JobError::Fault { .. })) {
                super::finish(acc, r);
                return;
            }
            // An MMU fault resets the GPU: the context is guilty and its queued jobs, which
            // may read what the faulting job left unwritten, are canceled, as after a hang.
            // The queue is taken before the fence signals: a job the context submits after
            // seeing the fault is a new one, not one to cancel.
            record_reset(shared, &acc);
            let context = acc.job.context;
            let canceled = if context == 0 {
                Vec::new()
            } else {
                take_queued_of(&mut lock(&shared.queue), &[context])
            };
            super::finish(acc, r);
            log::warn!(
                "sim: GPU reset after an MMU fault; {} queued job(s) of the guilty context canceled",
                canceled.len()
            );
            for a in canceled {
                shared.fail(a, JobError::Canceled);
            }
        }
    }
}
