//! Failures a model-backed device injects, in the device's terms: a refused submission, a
//! failed allocation, a job that faults, hangs, fails or loses the device. The sim backend
//! asks a [`Faults`] by index and knows nothing of where the plan came from; the replay
//! backend's host fixtures are one source ([`crate::replay::Fixture`] implements it).

use std::fmt::Debug;

use crate::error::Errno;
use crate::job_result::Unit;

/// What happens to one job instead of running normally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobFault {
    /// It faults in the GPU MMU: its fence ends with a fault of `unit` at `addr`.
    Fault {
        /// Requester.
        unit: Unit,
        /// Faulting GPU address.
        addr: u32,
    },
    /// It hangs: its fence never signals, and the GPU runs nothing after it.
    Hang,
    /// It fails with a reason.
    Fail {
        /// Text carried by the fence error.
        reason: String,
    },
    /// The device is lost when it would run.
    LoseDevice,
    /// Its TA runs out of parameter memory: its fence ends with `JobError::OutOfMemory` and
    /// nothing is rendered.
    OutOfMemory,
}

impl JobFault {
    /// The device model's injection for this fault, the one mapping the sim backend and the
    /// drm-shim share (a lost device is the host's doing, not the model's: `None`).
    pub fn model_injection(&self) -> Option<sgx_sim::Injection> {
        match self {
            JobFault::Fault { unit, addr } => Some(sgx_sim::Injection::Fault {
                job: 0,
                unit: *unit,
                addr: *addr,
            }),
            JobFault::Hang => Some(sgx_sim::Injection::Hang { job: 0 }),
            JobFault::Fail { reason } => Some(sgx_sim::Injection::Fail {
                job: 0,
                reason: reason.clone(),
            }),
            JobFault::OutOfMemory => Some(sgx_sim::Injection::OutOfMemory { job: 0 }),
            JobFault::LoseDevice => None,
        }
    }
}

/// A plan of failures, asked by 0-based index: `submission` counts submissions that reach the
/// kernel (refused ones too), `job` counts accepted jobs in submission order, `allocation`
/// counts buffer allocations.
pub trait Faults: Debug + Send + Sync {
    /// The error submission `submission` is refused with, if any.
    fn refusal(&self, submission: u64) -> Option<Errno>;
    /// Whether allocation `allocation` fails with ENOMEM.
    fn fails_allocation(&self, allocation: u64) -> bool;
    /// What happens to job `job` instead of running normally, if anything.
    fn job_fault(&self, job: u64) -> Option<JobFault>;
}
