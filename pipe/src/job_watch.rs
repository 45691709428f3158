//! Jobs that failed. A render that ends in an error (parameter memory exhausted, an MMU
//! fault, a failure) loses its pixels; its fence carries the error, but often nothing waits on
//! that fence. The context keeps the fences of its submissions until they end and records
//! the error of each job that failed, so the driver can tell the application (a
//! GL_KHR_debug error message, as Gallium drivers report through `pipe_debug_callback`)
//! whether or not anyone waits.

use std::collections::VecDeque;

use sgx_winsys::{Fence, FenceStatus, JobError};

/// Failures kept until taken; past this the oldest are only counted
/// (`ContextStats::jobs_failed`). A bound on host memory, not a hardware number.
pub const MAX_KEPT_FAILURES: usize = 64;

/// A job of this context that ended in an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFailure {
    /// The job's fence (`Fence::id`).
    pub fence_id: u64,
    /// How it ended.
    pub error: JobError,
}

/// The fences of submitted jobs not yet seen to end, and the failures not yet taken.
#[derive(Default)]
pub(crate) struct JobWatch {
    in_flight: VecDeque<Fence>,
    failed: VecDeque<JobFailure>,
}

impl JobWatch {
    /// Watches the fence of a job just submitted.
    pub fn submitted(&mut self, f: Fence) {
        self.in_flight.push_back(f);
    }

    /// Forgets the fences that ended and records the errors among them; returns how many
    /// failed.
    pub fn poll(&mut self) -> u64 {
        let mut n = 0;
        let failed = &mut self.failed;
        self.in_flight.retain(|f| match f.status() {
            FenceStatus::Pending => true,
            FenceStatus::Signalled => false,
            FenceStatus::Error(error) => {
                if failed.len() == MAX_KEPT_FAILURES {
                    failed.pop_front();
                }
                failed.push_back(JobFailure {
                    fence_id: f.id(),
                    error,
                });
                n += 1;
                false
            }
        });
        n
    }

    /// The failures recorded since the last call, oldest first.
    pub fn take(&mut self) -> Vec<JobFailure> {
        self.failed.drain(..).collect()
    }

    /// The oldest failure recorded and not yet taken.
    pub fn take_one(&mut self) -> Option<JobFailure> {
        self.failed.pop_front()
    }

    /// Fences still pending.
    pub fn pending(&self) -> usize {
        self.in_flight.len()
    }
}
