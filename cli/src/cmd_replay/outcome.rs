//! What one scenario run under a fixture ended with, the error kind its caller received, and
//! the check of a fixture's `expect` block against it.

use serde::Serialize;
use sgx_blitter::BlitError;
use sgx_pipe::PipeError;
use sgx_winsys::replay::{ErrorKind, Expect};
use sgx_winsys::{JobError, Trace, TraceResult, WinsysError};

/// The end of one scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// Scenario name.
    pub scenario: &'static str,
    /// What the scenario's parts are ("level", "upload", "step", "frame").
    pub part: &'static str,
    /// The error kind the caller received.
    pub error: ErrorKind,
    /// Its message.
    pub message: Option<String>,
    /// Submissions that reached the kernel, refused ones included.
    pub submissions: u64,
    /// Fences that signalled without error.
    pub fences_signalled: u64,
    /// Buffer allocations that reached the device (failed ones included).
    pub allocations: u64,
    /// Parts whose bytes are the expected result.
    pub written: Vec<u32>,
    /// Parts whose bytes are as before the scenario.
    pub unchanged: Vec<u32>,
    /// Parts that could not be read back, and why.
    pub unreadable: Vec<(u32, String)>,
    /// The CPU generator produced the levels.
    pub fallback: bool,
    /// Buffers, fences and jobs alive once everything, the device included, was dropped.
    pub leaked: u64,
    /// Live objects held after the driver's objects were dropped, before the device was
    /// (a hung job holds its buffers until the device goes).
    pub held_until_close: u64,
    /// Step-by-step lines.
    pub steps: Vec<String>,
}

fn job_kind(e: &JobError) -> ErrorKind {
    match e {
        JobError::Fault { .. } => ErrorKind::Fault,
        JobError::OutOfMemory => ErrorKind::JobOutOfMemory,
        JobError::Failed(_) => ErrorKind::Failed,
        JobError::DeviceLost => ErrorKind::DeviceLost,
        _ => ErrorKind::Other,
    }
}

fn winsys_kind(e: &WinsysError) -> ErrorKind {
    match e {
        WinsysError::Refused { .. } => ErrorKind::Refused,
        WinsysError::OutOfMemory { .. } => ErrorKind::OutOfMemory,
        WinsysError::Job { error, .. } => job_kind(error),
        WinsysError::Timeout { .. } => ErrorKind::Timeout,
        WinsysError::DeviceLost => ErrorKind::DeviceLost,
        _ => ErrorKind::Other,
    }
}

fn pipe_kind(e: &PipeError) -> ErrorKind {
    match e {
        PipeError::Winsys(w) => winsys_kind(w),
        _ => ErrorKind::Other,
    }
}

fn blit_kind(e: &BlitError) -> ErrorKind {
    match e {
        BlitError::Stopped { source, .. } | BlitError::Pipe(source) => pipe_kind(source),
        BlitError::Winsys(w) => winsys_kind(w),
        _ => ErrorKind::Other,
    }
}

/// The kind of the root cause a caller received: the first driver error in the chain.
pub fn classify(e: &anyhow::Error) -> ErrorKind {
    for cause in e.chain() {
        if let Some(b) = cause.downcast_ref::<BlitError>() {
            return blit_kind(b);
        }
        if let Some(p) = cause.downcast_ref::<PipeError>() {
            return pipe_kind(p);
        }
        if let Some(w) = cause.downcast_ref::<WinsysError>() {
            return winsys_kind(w);
        }
        if let Some(j) = cause.downcast_ref::<JobError>() {
            return job_kind(j);
        }
    }
    ErrorKind::Other
}

/// The error's chain as one line, without the repeats of thiserror messages that already
/// include their source's text.
pub fn message(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let m = cause.to_string();
        if !out.contains(&m) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(&m);
        }
    }
    out
}

/// One line per traced submission: refused or accepted, and how its fence ended.
pub fn trace_lines(trace: &Trace) -> Vec<String> {
    trace
        .entries
        .iter()
        .map(|e| {
            let head = format!("submission {} ({})", e.submission, e.kind);
            let fence = e.fence.map_or(String::new(), |f| format!(" fence {f}"));
            let end = match &e.result {
                TraceResult::Refused { errno } => return format!("{head}: refused with {errno}"),
                TraceResult::Pending => "never ended (hung, or queued behind a hung job)".into(),
                TraceResult::Done => "signalled".into(),
                TraceResult::Error(JobError::Fault { unit, addr, write }) => format!(
                    "fault: {unit} {} at {addr:#010x}",
                    if *write { "write" } else { "read" }
                ),
                TraceResult::Error(JobError::Failed(reason)) => format!("failed: {reason}"),
                TraceResult::Error(JobError::DeviceLost) => "device lost".into(),
                TraceResult::Error(other) => format!("{other:?}"),
            };
            format!("{head}: accepted,{fence} {end}")
        })
        .collect()
}

/// Counts of a trace: submissions and fences that signalled without error.
pub fn trace_counts(trace: &Trace) -> (u64, u64) {
    let done = trace
        .entries
        .iter()
        .filter(|e| e.result == TraceResult::Done)
        .count();
    (trace.entries.len() as u64, done as u64)
}

/// The fields of `expect` the outcome does not meet, each as "field: expected X, got Y".
pub fn mismatches(o: &Outcome, x: &Expect) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |field: &str, want: Option<String>, got: String| {
        if let Some(w) = want {
            if w != got {
                out.push(format!("{field}: expected {w}, got {got}"));
            }
        }
    };
    check(
        "error",
        x.error.map(|k| k.name().to_string()),
        o.error.name().to_string(),
    );
    check(
        "submissions",
        x.submissions.map(|n| n.to_string()),
        o.submissions.to_string(),
    );
    check(
        "fences_signalled",
        x.fences_signalled.map(|n| n.to_string()),
        o.fences_signalled.to_string(),
    );
    check(
        "written",
        x.written.as_ref().map(|v| format!("{v:?}")),
        format!("{:?}", o.written),
    );
    check(
        "unchanged",
        x.unchanged.as_ref().map(|v| format!("{v:?}")),
        format!("{:?}", o.unchanged),
    );
    check(
        "fallback",
        x.fallback.map(|b| b.to_string()),
        o.fallback.to_string(),
    );
    check(
        "leaked",
        x.leaked.map(|n| n.to_string()),
        o.leaked.to_string(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome() -> Outcome {
        Outcome {
            scenario: "mipgen",
            part: "level",
            error: ErrorKind::Refused,
            message: None,
            submissions: 3,
            fences_signalled: 2,
            allocations: 4,
            written: vec![1, 2],
            unchanged: vec![3, 4],
            unreadable: vec![],
            fallback: false,
            leaked: 0,
            held_until_close: 0,
            steps: vec![],
        }
    }

    #[test]
    fn a_met_expectation_has_no_mismatch_and_each_field_is_named() {
        let o = outcome();
        let full = Expect {
            error: Some(ErrorKind::Refused),
            submissions: Some(3),
            fences_signalled: Some(2),
            written: Some(vec![1, 2]),
            unchanged: Some(vec![3, 4]),
            fallback: Some(false),
            leaked: Some(0),
        };
        assert!(mismatches(&o, &full).is_empty());
        assert!(mismatches(&o, &Expect::default()).is_empty());
        let cases: [(&str, Expect); 7] = [
            (
                "error",
                Expect {
                    error: Some(ErrorKind::Fault),
                    ..full.clone()
                },
            ),
            (
                "submissions",
                Expect {
                    submissions: Some(4),
                    ..full.clone()
                },
            ),
            (
                "fences_signalled",
                Expect {
                    fences_signalled: Some(1),
                    ..full.clone()
                },
            ),
            (
                "written",
                Expect {
                    written: Some(vec![1]),
                    ..full.clone()
                },
            ),
            (
                "unchanged",
                Expect {
                    unchanged: Some(vec![]),
                    ..full.clone()
                },
            ),
            (
                "fallback",
                Expect {
                    fallback: Some(true),
                    ..full.clone()
                },
            ),
            (
                "leaked",
                Expect {
                    leaked: Some(1),
                    ..full.clone()
                },
            ),
        ];
        for (field, x) in cases {
            let m = mismatches(&o, &x);
            assert_eq!(m.len(), 1, "{field}: {m:?}");
            assert!(m[0].starts_with(&format!("{field}: expected")), "{m:?}");
        }
    }

    #[test]
    fn the_root_cause_decides_the_kind() {
        let e = anyhow::Error::new(BlitError::Stopped {
            level: 2,
            first_stale: 2,
            source: PipeError::Winsys(WinsysError::Refused {
                errno: sgx_winsys::Errno::EBUSY,
            }),
        });
        assert_eq!(classify(&e), ErrorKind::Refused);
        let e = anyhow::Error::new(WinsysError::Job {
            fence: 3,
            error: JobError::DeviceLost,
        })
        .context("frame 1");
        assert_eq!(classify(&e), ErrorKind::DeviceLost);
        let e = anyhow::Error::new(PipeError::Winsys(WinsysError::OutOfMemory { size_B: 64 }));
        assert_eq!(classify(&e), ErrorKind::OutOfMemory);
        // A job out of parameter memory is not an allocation's ENOMEM.
        let e = anyhow::Error::new(PipeError::Winsys(WinsysError::Job {
            fence: 2,
            error: JobError::OutOfMemory,
        }));
        assert_eq!(classify(&e), ErrorKind::JobOutOfMemory);
        assert_eq!(
            classify(&anyhow::anyhow!("something else")),
            ErrorKind::Other
        );
    }

    #[test]
    fn messages_name_each_cause_once() {
        let e = anyhow::Error::new(PipeError::Winsys(WinsysError::OutOfMemory { size_B: 64 }))
            .context("creating the texture");
        let m = message(&e);
        assert_eq!(
            m.matches("cannot allocate a buffer of 64 bytes").count(),
            1,
            "{m}"
        );
        assert!(m.starts_with("creating the texture: "), "{m}");
    }
}
