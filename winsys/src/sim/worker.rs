//! The sim worker: takes the oldest job whose dependencies have all finished, runs it on the
//! model, and ends its fence. Runs on its own thread, so fences signal asynchronously.

use std::sync::Arc;
use std::time::Instant;

use super::{convert, lock, SimShared};
use crate::error::JobError;
use crate::replay::Inject;
use crate::submit::Accepted;

/// The worker loop; returns at shutdown, after failing every unfinished job.
pub(super) fn run(shared: Arc<SimShared>) {
    while let Some(acc) = next_ready(&shared) {
        run_one(&shared, acc);
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

/// Blocks until a job can run (None at shutdown). Jobs run in dependency order: the oldest
/// whose dependencies have all finished, whether or not they succeeded (as a kernel's
/// scheduler does, a dependency's error does not cancel its dependants).
fn next_ready(shared: &SimShared) -> Option<Accepted> {
    let mut q = lock(&shared.queue);
    loop {
        if q.shutdown {
            return None;
        }
        if !q.stalled && !shared.core.is_lost() {
            let ready = q
                .waiting
                .iter()
                .position(|a| a.deps.iter().all(|f| !f.is_pending()));
            if let Some(i) = ready {
                return q.waiting.remove(i);
            }
        }
        q = shared.cv.wait(q).unwrap_or_else(|e| e.into_inner());
    }
}

/// The model's injection for a fixture's job injection.
fn sim_injection(i: &Inject) -> Option<sgx_sim::Injection> {
    match i {
        Inject::FaultJob { unit, addr, .. } => Some(sgx_sim::Injection::Fault {
            job: 0,
            unit: convert::sim_unit(*unit),
            addr: *addr,
        }),
        Inject::HangJob { .. } => Some(sgx_sim::Injection::Hang { job: 0 }),
        Inject::FailJob { reason, .. } => Some(sgx_sim::Injection::Fail {
            job: 0,
            reason: reason.clone(),
        }),
        _ => None,
    }
}

fn run_one(shared: &SimShared, acc: Accepted) {
    let inject = shared
        .fixture
        .as_ref()
        .and_then(|f| f.for_job(acc.job_index))
        .cloned();
    if let Some(Inject::LoseDevice { .. }) = inject {
        log::info!("replay: losing the device at job {}", acc.job_index);
        shared.lose(Some(acc));
        return;
    }
    let desc = convert::job_desc(&acc.job.kind);
    let t0 = Instant::now();
    let result = {
        let mut gpu = lock(&shared.gpu);
        if let Some(i) = inject.as_ref().and_then(sim_injection) {
            gpu.inject(i);
        }
        gpu.run(&desc)
    };
    let duration_us = t0.elapsed().as_micros().min(u64::MAX as u128) as u64;
    match convert::outcome(&result.status) {
        None => {
            log::warn!(
                "sim: job {} (fence {}) hung; the GPU runs nothing more",
                acc.job_index,
                acc.fence.id()
            );
            let mut q = lock(&shared.queue);
            q.stalled = true;
            q.hung.push(acc);
        }
        Some(r) => {
            let report = convert::report(&result);
            shared.core.trace.update(acc.submission, |e| {
                e.finish(r.as_ref().map(|_| ()), Some(&report), duration_us)
            });
            super::finish(acc, r);
        }
    }
}
