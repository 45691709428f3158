//! GPU resets after a hang, as a kernel driver reports them: which job hung, which context
//! submitted it (the guilty one), and a count every context can compare against.

use std::time::Duration;

/// How long a job may run before the watchdog declares it hung, unless the device's options
/// say otherwise.
pub const DEFAULT_HANG_BUDGET: Duration = Duration::from_secs(2);

/// The `guilty_context` of a reset another client of the kernel caused (another process, or
/// another open of the render node): every context of this device is innocent of it.
pub const FOREIGN_CONTEXT: u64 = u64::MAX;

/// One reset of the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResetRecord {
    /// The out-fence of the job that caused it (it ended with `JobError::Hang`, or with an MMU
    /// `JobError::Fault`); 0 for a reset another client caused.
    pub fence: u64,
    /// The context that submitted it, when the job named one (`Job::context`).
    pub guilty_context: Option<u64>,
}

/// What a context learns about resets since it last asked (Gallium's
/// `pipe_reset_status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetStatus {
    /// No reset since the last query.
    NoReset,
    /// A reset, caused by a job of this context.
    Guilty,
    /// A reset, caused by another context's job.
    Innocent,
    /// A reset whose culprit is not known (the hung job named no context).
    Unknown,
}

impl ResetStatus {
    /// The status `context` should report for `records`, the resets since it last asked.
    pub fn for_context(context: u64, records: &[ResetRecord]) -> ResetStatus {
        if records.is_empty() {
            ResetStatus::NoReset
        } else if records.iter().any(|r| r.guilty_context == Some(context)) {
            ResetStatus::Guilty
        } else if records.iter().all(|r| r.guilty_context.is_some()) {
            ResetStatus::Innocent
        } else {
            ResetStatus::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(c: Option<u64>) -> ResetRecord {
        ResetRecord {
            fence: 1,
            guilty_context: c,
        }
    }

    #[test]
    fn a_context_is_guilty_innocent_or_unsure_by_the_records() {
        assert_eq!(ResetStatus::for_context(1, &[]), ResetStatus::NoReset);
        assert_eq!(
            ResetStatus::for_context(1, &[rec(Some(1))]),
            ResetStatus::Guilty
        );
        assert_eq!(
            ResetStatus::for_context(1, &[rec(Some(2))]),
            ResetStatus::Innocent
        );
        assert_eq!(
            ResetStatus::for_context(1, &[rec(None)]),
            ResetStatus::Unknown
        );
        // Guilt wins over an unknown culprit of another reset.
        assert_eq!(
            ResetStatus::for_context(1, &[rec(None), rec(Some(1))]),
            ResetStatus::Guilty
        );
    }
}
