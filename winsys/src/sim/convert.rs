//! The model's job results in winsys terms.

use crate::error::JobError;
use crate::job::JobKind;
use crate::job_result::{Counters, JobReport, Unit};

pub(crate) fn unit(u: sgx_sim::Unit) -> Unit {
    match u {
        sgx_sim::Unit::Cache => Unit::Cache,
        sgx_sim::Unit::Ta => Unit::Ta,
        sgx_sim::Unit::Vdm => Unit::Vdm,
        sgx_sim::Unit::TwoD => Unit::TwoD,
        sgx_sim::Unit::Pbe => Unit::Pbe,
        sgx_sim::Unit::Tsp => Unit::Tsp,
        sgx_sim::Unit::Isp => Unit::Isp,
        sgx_sim::Unit::UssePds => Unit::UssePds,
        sgx_sim::Unit::Host => Unit::Host,
    }
}

pub(crate) fn sim_unit(u: Unit) -> sgx_sim::Unit {
    match u {
        Unit::Cache => sgx_sim::Unit::Cache,
        Unit::Ta => sgx_sim::Unit::Ta,
        Unit::Vdm => sgx_sim::Unit::Vdm,
        Unit::TwoD => sgx_sim::Unit::TwoD,
        Unit::Pbe => sgx_sim::Unit::Pbe,
        Unit::Tsp => sgx_sim::Unit::Tsp,
        Unit::Isp => sgx_sim::Unit::Isp,
        Unit::UssePds => sgx_sim::Unit::UssePds,
        Unit::Host => sgx_sim::Unit::Host,
    }
}

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
            unit: unit(f.unit),
            addr: f.addr,
            write: f.write,
        }),
        S::OutOfMemory => Err(JobError::OutOfMemory),
        S::IllegalInstruction {
            unit: u,
            pc,
            reason,
        } => Err(JobError::IllegalInstruction {
            unit: unit(*u),
            pc: *pc,
            reason: reason.clone(),
        }),
        S::BadState { unit: u, reason } => Err(JobError::BadState {
            unit: unit(*u),
            reason: reason.clone(),
        }),
        S::Failed(reason) => Err(JobError::Failed(reason.clone())),
        S::Hang => return None,
    })
}

pub(crate) fn report(r: &sgx_sim::JobResult) -> JobReport {
    let c = &r.counters;
    JobReport {
        events: r.events,
        events2: r.events2,
        bif_int_stat: r.bif_int_stat,
        counters: Counters {
            tiles_rendered: c.tiles_rendered,
            tiles_loaded: c.tiles_loaded,
            tiles_stored: c.tiles_stored,
            pixels_shaded: c.pixels_shaded,
            texels_fetched: c.texels_fetched,
            usse_instructions: c.usse_instructions,
            pbe_bytes_written: c.pbe_bytes_written,
            prims_binned: c.prims_binned,
            pb_bytes_used: c.pb_bytes_used,
        },
        start_cycles: r.start_cycles,
        end_cycles: r.end_cycles,
    }
}
