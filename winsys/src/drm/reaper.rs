//! The drm reaper: waits for any in-flight job's out-syncobj, asks JOB_INFO how the job ended,
//! and signals its fence. Runs on its own thread, so fences signal asynchronously.

use std::sync::Arc;

use drm::control::{syncobj, Device as _};

use super::uapi::*;
use super::{lock, now_ns, DrmShared, Imported, InFlight};
use crate::error::{Errno, JobError};
use crate::job_result::{Counters, JobReport, Unit};
use crate::reset::ResetRecord;
use crate::sim::finish;
use std::os::fd::AsFd;

/// How long one wait lasts before the reaper looks for shutdown again.
const WAIT_NS: i64 = 1_000_000_000;

pub(super) fn run(shared: Arc<DrmShared>) {
    loop {
        let handles: Vec<syncobj::Handle> = {
            let p = lock(&shared.pending);
            if p.shutdown {
                break;
            }
            // Jobs first: the kernel reports the first signalled handle in array order.
            p.jobs
                .iter()
                .map(|j| j.syncobj)
                .chain(p.imports.iter().map(|i| i.syncobj))
                .chain([shared.wake])
                .collect()
        };
        match shared
            .card
            .syncobj_wait(&handles, now_ns() + WAIT_NS, false, true)
        {
            Ok(i) => {
                let h = handles[i as usize];
                if h == shared.wake {
                    // Reset before collecting the job list again, so a submit that signals
                    // after this point is seen by the next wait.
                    if let Err(e) = shared.card.syncobj_reset(&[shared.wake]) {
                        log::error!("drm reaper: resetting the wake syncobj: {e}");
                    }
                } else {
                    reap(&shared, h);
                }
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::ETIME) | Some(libc::ETIMEDOUT)) => {}
            Err(e) => {
                log::error!("drm reaper: SYNCOBJ_WAIT: {e}");
                if matches!(e.raw_os_error(), Some(libc::ENODEV) | Some(libc::EIO)) {
                    lose(&shared);
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
    end_in_flight(&shared);
    if let Err(e) = shared.card.destroy_syncobj(shared.wake) {
        log::error!("drm reaper: destroying the wake syncobj: {e}");
    }
}

/// The kernel reports the device lost: every in-flight job is traced as lost before the loss
/// shows (`Core::lose`, unless a caller's ioctl found it first and did so), then ends with
/// DeviceLost, and so does every imported fence (the kernel will not signal them now).
fn lose(shared: &DrmShared) {
    shared.core.lose();
    end_in_flight(shared);
}

/// Ends every job and imported fence still waited for with DeviceLost (the device is lost, or
/// going away with nobody left to reap them).
fn end_in_flight(shared: &DrmShared) {
    let (jobs, imports) = {
        let mut p = lock(&shared.pending);
        let jobs: Vec<InFlight> = p.jobs.drain(..).collect();
        let imports: Vec<Imported> = p.imports.drain(..).collect();
        (jobs, imports)
    };
    for j in jobs {
        end(shared, j, Err(JobError::DeviceLost), None);
    }
    for i in imports {
        end_import(shared, i, Err(JobError::DeviceLost));
    }
}

fn reason(info: &drm_sgx535_job_info) -> String {
    let len = info
        .reason
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(info.reason.len());
    String::from_utf8_lossy(&info.reason[..len]).into_owned()
}

/// How a job ended, from JOB_INFO; `budget_ms` is the kernel's hang budget.
pub(crate) fn outcome(info: &drm_sgx535_job_info, budget_ms: u64) -> Result<(), JobError> {
    let unit = Unit::from_index(info.unit).unwrap_or(Unit::Host);
    match info.state {
        DRM_SGX535_JOB_DONE => Ok(()),
        DRM_SGX535_JOB_FAULT => Err(JobError::Fault {
            unit,
            addr: info.addr,
            write: info.write != 0,
        }),
        DRM_SGX535_JOB_OUT_OF_MEMORY => Err(JobError::OutOfMemory),
        DRM_SGX535_JOB_ILLEGAL_INSTRUCTION => Err(JobError::IllegalInstruction {
            unit,
            pc: info.addr,
            reason: reason(info),
        }),
        DRM_SGX535_JOB_BAD_STATE => Err(JobError::BadState {
            unit,
            reason: reason(info),
        }),
        DRM_SGX535_JOB_FAILED => Err(JobError::Failed(reason(info))),
        DRM_SGX535_JOB_LOST => Err(JobError::DeviceLost),
        DRM_SGX535_JOB_HANG => Err(JobError::Hang { budget_ms }),
        DRM_SGX535_JOB_CANCELED => Err(JobError::Canceled),
        s => Err(JobError::Failed(format!(
            "the kernel reports state {s} for a signalled job"
        ))),
    }
}

fn report(info: &drm_sgx535_job_info) -> JobReport {
    JobReport {
        events: info.events,
        events2: info.events2,
        bif_int_stat: info.bif_int_stat,
        counters: Counters::from_array(info.counters),
        start_cycles: info.start_cycles,
        end_cycles: info.end_cycles,
    }
}

/// Ends an imported fence: its syncobj is destroyed, its sync file closed.
fn end_import(shared: &DrmShared, i: Imported, r: Result<(), JobError>) {
    if let Err(e) = shared.card.destroy_syncobj(i.syncobj) {
        log::error!("drm reaper: destroying a syncobj: {e}");
    }
    i.fence.signal(r);
}

/// An imported fence signalled: how it ended, from its sync file.
fn reap_import(shared: &DrmShared, h: syncobj::Handle) {
    let mut p = lock(&shared.pending);
    let Some(n) = p.imports.iter().position(|i| i.syncobj == h) else {
        return;
    };
    let i = p.imports.remove(n);
    let r = match super::sync_file::status(i.sync_file.as_fd()) {
        Ok(s) if s < 0 => Err(JobError::Failed(format!(
            "the imported fence ended with {}",
            Errno::from_raw(-s)
        ))),
        Ok(_) => Ok(()),
        Err(e) => Err(JobError::Failed(format!(
            "SYNC_IOC_FILE_INFO on the imported fence: {e}"
        ))),
    };
    // Ended under the pending lock, as a job's fence is.
    end_import(shared, i, r);
}

fn reap(shared: &DrmShared, h: syncobj::Handle) {
    let job_id = {
        let p = lock(&shared.pending);
        match p.jobs.iter().find(|j| j.syncobj == h) {
            Some(j) => j.job_id,
            None => {
                drop(p);
                return reap_import(shared, h);
            }
        }
    };
    let (r, rep) = match shared.card.job_info(job_id) {
        Ok(info) => (outcome(&info, shared.hang_budget_ms), Some(report(&info))),
        Err(Errno::ENODEV) | Err(Errno::EIO) => (Err(JobError::DeviceLost), None),
        Err(e) => (Err(JobError::Failed(format!("JOB_INFO: {e}"))), None),
    };
    if r == Err(JobError::DeviceLost) {
        // Every job in flight, this one included, is traced as lost before the loss shows.
        shared.core.lose();
    }
    // Signal under the pending lock: a submit looking up this job's syncobj sees either the
    // job still listed or its fence already signalled, never a pending fence without a syncobj.
    let mut p = lock(&shared.pending);
    if let Some(i) = p.jobs.iter().position(|j| j.syncobj == h) {
        let j = p.jobs.remove(i);
        // The kernel reset the GPU for this job: recorded before its fence signals, so that
        // whoever sees the error sees the reset too.
        if matches!(r, Err(JobError::Hang { .. }) | Err(JobError::Fault { .. })) {
            let context = j.acc.job.context;
            lock(&shared.resets).push(ResetRecord {
                fence: j.acc.fence.id(),
                guilty_context: (context != 0).then_some(context),
            });
        }
        end(shared, j, r, rep.as_ref());
    }
    drop(p);
    if shared.core.is_lost() {
        lose(shared);
    }
}

/// Ends a job: its trace entry, then its fence, which says what the trace says (a loss that a
/// caller's ioctl found first settled the entry, whatever JOB_INFO said after).
fn end(shared: &DrmShared, j: InFlight, r: Result<(), JobError>, rep: Option<&JobReport>) {
    let us = j.submitted.elapsed().as_micros().min(u64::MAX as u128) as u64;
    let r = shared.core.trace.finish(j.acc.submission, r, rep, us);
    if let Err(e) = shared.card.destroy_syncobj(j.syncobj) {
        log::error!("drm reaper: destroying a syncobj: {e}");
    }
    finish(j.acc, r);
}
