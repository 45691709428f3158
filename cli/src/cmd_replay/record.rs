//! `sgx535 replay --record FILE`: runs a scenario on a real device (or any device
//! SGX535_DEVICE names) and writes a host fixture of what the kernel did — refused
//! submissions, faulting, failing and hung jobs, jobs out of parameter memory, a lost device —
//! with the outcome as its `expect` block, so a failure seen on a laptop becomes a test here.

use crate::out::outln;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use sgx_winsys::replay::{ErrorKind, Expect, Expects, Fixture, Inject, RefuseErrno, Setup};
use sgx_winsys::{Device, JobError, Trace, TraceResult};

use super::outcome;
use super::scenario;

/// The injections that reproduce a trace, and notes on what a fixture cannot say.
pub fn injections(trace: &Trace) -> (Vec<Inject>, Vec<String>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    let mut job = 0u64;
    for e in &trace.entries {
        if e.fence.is_none() {
            match &e.result {
                TraceResult::Refused { errno } => {
                    let errno = match errno.as_str() {
                        "EINVAL" => Some(RefuseErrno::Inval),
                        "ENOSPC" => Some(RefuseErrno::NoSpc),
                        "EBUSY" => Some(RefuseErrno::Busy),
                        _ => None,
                    };
                    match errno {
                        Some(errno) => out.push(Inject::RefuseSubmission {
                            submission: e.submission,
                            errno,
                        }),
                        None => notes.push(format!(
                            "submission {}: refused with {errno:?}, which a fixture cannot inject",
                            e.submission
                        )),
                    }
                }
                other => notes.push(format!(
                    "submission {}: no fence but {other:?}",
                    e.submission
                )),
            }
            continue;
        }
        let stop = match &e.result {
            TraceResult::Done => false,
            TraceResult::Error(JobError::Fault { unit, addr, .. }) => {
                out.push(Inject::FaultJob {
                    job,
                    unit: *unit,
                    addr: *addr,
                });
                false
            }
            TraceResult::Error(JobError::Failed(reason)) => {
                out.push(Inject::FailJob {
                    job,
                    reason: reason.clone(),
                });
                false
            }
            TraceResult::Error(JobError::OutOfMemory) => {
                out.push(Inject::JobOutOfMemory { job });
                false
            }
            // The first lost job is the loss; every later one follows from it.
            TraceResult::Error(JobError::DeviceLost) => {
                out.push(Inject::LoseDevice { job });
                true
            }
            // A job that never ended, or that the watchdog ended, hung; the jobs of its context
            // queued behind it were canceled by the reset, which replaying the hang redoes.
            TraceResult::Pending | TraceResult::Error(JobError::Hang { .. }) => {
                out.push(Inject::HangJob { job });
                true
            }
            // Canceled by the reset an earlier job of its context caused (an MMU fault; a hang
            // stops the recording above): replaying that job's fault cancels it again.
            TraceResult::Error(JobError::Canceled) => false,
            other => {
                // The error itself, as it was spelled before TraceResult wrapped JobError.
                let other = match other {
                    TraceResult::Error(e) => format!("{e:?}"),
                    r => format!("{r:?}"),
                };
                out.push(Inject::FailJob {
                    job,
                    reason: other.clone(),
                });
                notes.push(format!("job {job}: {other} is replayed as a failed job"));
                false
            }
        };
        if stop {
            break;
        }
        job += 1;
    }
    (out, notes)
}

/// Runs `name` on `dev` and writes the fixture to `path`.
pub fn record(name: &'static str, dev: Arc<dyn Device>, path: &Path) -> anyhow::Result<()> {
    let info = dev.info();
    let mut parts = scenario::Parts::default();
    let r = scenario::run(name, &dev, &Setup::default(), &mut parts);
    let trace = dev.trace();
    let (inject, notes) = injections(&trace);
    let (submissions, fences_signalled) = outcome::trace_counts(&trace);
    let error = match &r {
        Ok(()) => ErrorKind::None,
        Err(e) => outcome::classify(e),
    };
    if error == ErrorKind::OutOfMemory {
        notes_print(&[
            "the caller received ENOMEM: a trace does not say which allocation failed; add a fail_allocation injection by hand".into(),
        ]);
    }
    notes_print(&notes);
    // An error a fence carries surfaces when someone looks at the fence: how many later
    // submissions were queued by then is timing, so only synchronous outcomes pin the counts.
    let counts_fixed = matches!(
        error,
        ErrorKind::None | ErrorKind::Refused | ErrorKind::OutOfMemory
    );
    let expect = Expect {
        error: Some(error),
        submissions: counts_fixed.then_some(submissions),
        fences_signalled: counts_fixed.then_some(fences_signalled),
        written: Some(parts.written),
        unchanged: Some(parts.unchanged),
        fallback: (name == "mipgen").then_some(parts.fallback),
        leaked: None,
    };
    let mut expects = Expects::default();
    match name {
        "mipgen" => expects.mipgen = Some(expect),
        "upload" => expects.upload = Some(expect),
        "draw" => expects.draw = Some(expect),
        _ => expects.demo = Some(expect),
    }
    let fx = Fixture {
        description: format!(
            "Recorded by sgx535 replay --record: the {name} scenario on {} ({}), core revision {:#010x}.",
            info.backend.name(),
            info.driver,
            info.core_revision
        ),
        inject,
        setup: Setup::default(),
        expect: expects,
    };
    let text = serde_json::to_string_pretty(&fx)? + "\n";
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    outln!(
        "recorded {name} on {}: {} injections, {submissions} submissions, error {} -> {}",
        info.backend.name(),
        fx.inject.len(),
        error.name(),
        path.display()
    );
    Ok(())
}

fn notes_print(notes: &[String]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}
