//! A render that fails is never silent: the context records every job of its own that ended
//! in an error (parameter memory exhausted, an MMU fault, a failure), whether or not anything
//! waited on the job's fence, with the error's kind; the jobs around it are not affected.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use sgx_pipe::*;
use sgx_winsys::{Device, Errno, Faults, JobError, JobFault, SimDevice, SimOptions, Unit};

/// Job `n` (0-based, in submission order) ends with `fault`.
#[derive(Debug)]
struct FailJob(u64, JobFault);

impl Faults for FailJob {
    fn refusal(&self, _: u64) -> Option<Errno> {
        None
    }
    fn fails_allocation(&self, _: u64) -> bool {
        false
    }
    fn job_fault(&self, job: u64) -> Option<JobFault> {
        (job == self.0).then(|| self.1.clone())
    }
}

fn rig_with(f: FailJob) -> Rig {
    let dev: Arc<dyn Device> = Arc::new(
        SimDevice::with_options(SimOptions {
            faults: Some(Arc::new(f)),
            ..Default::default()
        })
        .unwrap(),
    );
    let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
    let ctx = screen.context_create();
    Rig { dev, screen, ctx }
}

/// Three renders (flushes) of a red rectangle, job `n` failing with `fault`; the context's
/// failures taken after the first flush (before waiting) and after the last fence.
fn three_renders(n: u64, fault: JobFault) -> (Vec<JobFailure>, Vec<JobFailure>, ContextStats) {
    let mut r = rig_with(FailJob(n, fault));
    let _t = const_target(&mut r, 32, 32, [1.0, 0.0, 0.0, 1.0]);
    let mut early = Vec::new();
    let mut last = None;
    for k in 0..3 {
        rect(&mut r, 0, 0, 32, 32, 0.0);
        last = r.ctx.flush().unwrap();
        if k == 0 {
            early = r.ctx.take_job_failures();
        }
    }
    // Nothing but the last fence is waited on; a failed job before it is found anyway.
    let fence = last.expect("a fence");
    let _ = r.screen.fence_finish(&fence, Duration::from_secs(10));
    let mut late = early.clone();
    late.extend(r.ctx.take_job_failures());
    // Taken once: a second call has nothing new.
    assert_eq!(r.ctx.take_job_failures(), vec![]);
    (early, late, r.ctx.stats())
}

#[test]
fn a_job_out_of_parameter_memory_is_recorded_with_its_kind() {
    let (_, all, st) = three_renders(1, JobFault::OutOfMemory);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].error, JobError::OutOfMemory);
    assert_eq!(st.jobs_failed, 1);
    assert_eq!(st.submissions, 3);
}

#[test]
fn faults_and_failures_are_recorded_with_their_kind() {
    let (_, all, _) = three_renders(
        2,
        JobFault::Fault {
            unit: Unit::Pbe,
            addr: 0x4000, // an address for the injected fault, not a hardware number
        },
    );
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(
        matches!(
            all[0].error,
            JobError::Fault {
                unit: Unit::Pbe,
                addr: 0x4000,
                ..
            }
        ),
        "{all:?}"
    );
    let (_, all, _) = three_renders(
        0,
        JobFault::Fail {
            reason: "boom".into(),
        },
    );
    assert!(
        matches!(&all[..], [JobFailure { error: JobError::Failed(r), .. }] if r == "boom"),
        "{all:?}"
    );
}

#[test]
fn jobs_that_succeed_record_nothing() {
    let mut r = rig();
    let _t = const_target(&mut r, 32, 32, [1.0, 0.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, 32, 32, 0.0);
    let f = r.ctx.flush().unwrap().unwrap();
    assert!(r.screen.fence_finish(&f, Duration::from_secs(10)).unwrap());
    assert_eq!(r.ctx.take_job_failures(), vec![]);
    assert_eq!(r.ctx.jobs_pending(), 0);
    assert_eq!(r.ctx.stats().jobs_failed, 0);
}
