//! The model's job results in winsys terms.

use crate::error::JobError;
use crate::job::JobKind;
use crate::job_result::JobReport;

/// The model's description of a job.
pub(crate) fn job_desc(kind: &JobKind) -> sgx_sim::JobDesc {
    match kind {
        JobKind::Render { ta_regs, td_regs } => sgx_sim::JobDesc::Render {
            ta_regs: ta_regs.clone(),
            td_regs: td_regs.clone(),
        },
        JobKind::TwoD { regs } => sgx_sim::JobDesc::TwoD { regs: regs.clone() },
    }
}

/// How a job ended; None for a hang (the job never ends).
pub(crate) fn outcome(status: &sgx_sim::JobStatus) -> Option<Result<(), JobError>> {
    use sgx_sim::JobStatus as S;
    Some(match status {
        S::Done => Ok(()),
        S::Fault(f) => Err(JobError::Fault {
            unit: f.unit,
            addr: f.addr,
            write: f.write,
        }),
        S::OutOfMemory => Err(JobError::OutOfMemory),
        S::IllegalInstruction {
            unit: u,
            pc,
            reason,
        } => Err(JobError::IllegalInstruction {
            unit: *u,
            pc: *pc,
            reason: reason.clone(),
        }),
        S::BadState { unit: u, reason } => Err(JobError::BadState {
            unit: *u,
            reason: reason.clone(),
        }),
        S::Failed(reason) => Err(JobError::Failed(reason.clone())),
        S::Hang => return None,
    })
}

/// What the model reports of a finished job, in winsys terms (the drm-shim fills JOB_INFO
/// from it).
pub fn report(r: &sgx_sim::JobResult) -> JobReport {
    JobReport {
        events: r.events,
        events2: r.events2,
        bif_int_stat: r.bif_int_stat,
        counters: r.counters,
        start_cycles: r.start_cycles,
        end_cycles: r.end_cycles,
    }
}
