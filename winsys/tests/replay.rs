//! The replay backend: every failure a host fixture injects comes back as the right error.
//! Runs each fixture of fixtures/host/ through the same scenario: per step, allocate a target
//! and a command buffer, submit a 2D fill, and check the outcome the fixture dictates.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use common::LONG;
use sgx_hwdocs::Format;
use sgx_winsys::replay::{self, Fixture, Inject};
use sgx_winsys::twod::{self, Rect, Surface};
use sgx_winsys::{
    Access, Bo, BoDesc, Device, Errno, FenceStatus, JobError, SimDevice, TraceResult, WinsysError,
};

const SHORT: Duration = Duration::from_millis(20);

struct Run<'a> {
    dev: SimDevice,
    fx: &'a Fixture,
    allocations: u64,
    checked: BTreeSet<String>,
}

impl Run<'_> {
    /// Allocates, stepping over (and checking) the allocations the fixture fails.
    fn alloc(&mut self, size_B: u64) -> Bo {
        loop {
            let n = self.allocations;
            self.allocations += 1;
            let r = self.dev.create_bo(&BoDesc::new(size_B));
            if self.fx.fails_allocation(n) {
                assert!(
                    matches!(r, Err(WinsysError::OutOfMemory { size_B: s }) if s == size_B),
                    "allocation {n}: {r:?}"
                );
                self.checked.insert("fail_allocation".into());
                continue;
            }
            return r.unwrap_or_else(|e| panic!("allocation {n}: {e}"));
        }
    }

    fn job(&mut self, target: &Bo, value: u32) -> sgx_winsys::Job {
        let cmd = self.alloc(twod::list_size_B(1));
        let s = Surface {
            bo: target,
            offset_B: 0,
            stride_B: 4,
            format: Format::B8G8R8A8_UNORM,
        };
        let c = twod::fill(&s, Rect::new(0, 0, 1, 1), value).unwrap();
        twod::job(&cmd, &[c], LONG)
            .unwrap()
            .with_bo(target, Access::Write)
    }

    fn steps(&self) -> u64 {
        let refusals = self
            .fx
            .inject
            .iter()
            .filter(|i| matches!(i, Inject::RefuseSubmission { .. }))
            .count() as u64;
        self.fx
            .inject
            .iter()
            .map(|i| match i {
                Inject::RefuseSubmission { submission, .. } => *submission,
                Inject::FailAllocation { allocation } => allocation / 2,
                other => other.job().unwrap() + refusals,
            })
            .max()
            .unwrap_or(0)
            + 2
    }

    fn run(mut self) -> BTreeSet<String> {
        let mut job_index = 0;
        for step in 0..self.steps() {
            let target = self.alloc(4);
            let value = 0x5EED_0000 + step as u32;
            let job = self.job(&target, value);
            let r = self.dev.submit(job);
            if let Some(errno) = self.fx.refusal(step) {
                assert!(
                    matches!(r, Err(WinsysError::Refused { errno: e }) if e == errno),
                    "submission {step}: {r:?}"
                );
                let t = self.dev.trace();
                let e = t.submission(step).unwrap();
                assert_eq!(e.result, TraceResult::refused(errno));
                assert_eq!(e.fence, None);
                assert!(target.reservation().write_fence().is_none());
                self.checked.insert(format!("refuse_submission {errno:?}"));
                continue;
            }
            let f = r.unwrap_or_else(|e| panic!("submission {step}: {e}"));
            let fault = |error: JobError| {
                move |r: sgx_winsys::Result<()>| match r {
                    Err(WinsysError::Job { error: e, .. }) => assert_eq!(e, error),
                    other => panic!("job {job_index}: {other:?}"),
                }
            };
            match self.fx.for_job(job_index).cloned() {
                None => {
                    f.wait(LONG).unwrap();
                    assert_eq!(common::pixels(&target), vec![value]);
                }
                Some(Inject::FaultJob { unit, addr, .. }) => {
                    fault(JobError::Fault {
                        unit,
                        addr,
                        write: false,
                    })(f.wait(LONG));
                    let t = self.dev.trace();
                    assert_eq!(
                        t.by_fence(f.id()).unwrap().result,
                        TraceResult::Error(JobError::Fault {
                            unit,
                            addr,
                            write: false
                        })
                    );
                    assert_eq!(common::pixels(&target), vec![0], "a faulted job wrote");
                    self.checked.insert("fault_job".into());
                }
                Some(Inject::FailJob { reason, .. }) => {
                    fault(JobError::Failed(reason))(f.wait(LONG));
                    self.checked.insert("fail_job".into());
                }
                Some(Inject::JobOutOfMemory { .. }) => {
                    fault(JobError::OutOfMemory)(f.wait(LONG));
                    assert_eq!(
                        self.dev.trace().by_fence(f.id()).unwrap().result,
                        TraceResult::Error(JobError::OutOfMemory)
                    );
                    assert_eq!(
                        common::pixels(&target),
                        vec![0],
                        "a job out of memory wrote"
                    );
                    self.checked.insert("job_out_of_memory".into());
                }
                Some(Inject::HangJob { .. }) => {
                    assert!(matches!(f.wait(SHORT), Err(WinsysError::Timeout { .. })));
                    assert!(matches!(
                        target.map(Access::Read, SHORT),
                        Err(WinsysError::Timeout { fence, .. }) if fence == f.id()
                    ));
                    // The GPU is stuck: a later, independent job is accepted but never runs.
                    let other = self.alloc(4);
                    let job = self.job(&other, 1);
                    let g = self.dev.submit(job).unwrap();
                    assert!(matches!(g.wait(SHORT), Err(WinsysError::Timeout { .. })));
                    assert_eq!(
                        self.dev.trace().by_fence(f.id()).unwrap().result,
                        TraceResult::Pending
                    );
                    drop(self.dev);
                    assert_eq!(f.status(), FenceStatus::Error(JobError::DeviceLost));
                    self.checked.insert("hang_job".into());
                    return self.checked;
                }
                Some(Inject::LoseDevice { .. }) => {
                    fault(JobError::DeviceLost)(f.wait(LONG));
                    assert!(self.dev.is_lost());
                    assert!(matches!(
                        self.dev.create_bo(&BoDesc::new(4)),
                        Err(WinsysError::DeviceLost)
                    ));
                    assert!(matches!(
                        self.dev.user_fence(),
                        Err(WinsysError::DeviceLost)
                    ));
                    let again = twod::job(&self.alloc_after_loss(&target), &[], LONG);
                    assert!(matches!(again, Err(WinsysError::DeviceLost)));
                    assert!(matches!(
                        target.map(Access::Read, LONG),
                        Err(WinsysError::DeviceLost)
                    ));
                    let old = sgx_winsys::Job::two_d(vec![(sgx_hwdocs::regs::TWOD_START, 1)]);
                    assert!(matches!(self.dev.submit(old), Err(WinsysError::DeviceLost)));
                    assert_eq!(
                        self.dev.trace().by_fence(f.id()).unwrap().result,
                        TraceResult::Error(JobError::DeviceLost)
                    );
                    self.checked.insert("lose_device".into());
                    return self.checked;
                }
                Some(other) => panic!("not a job injection: {other:?}"),
            }
            job_index += 1;
        }
        self.checked
    }

    /// After a loss no buffer can be made; reuse one to build a job.
    fn alloc_after_loss(&self, bo: &Bo) -> Bo {
        bo.clone()
    }
}

fn run(fx: &Fixture) -> BTreeSet<String> {
    Run {
        dev: replay::with_fixture(fx.clone()).unwrap(),
        fx,
        allocations: 0,
        checked: BTreeSet::new(),
    }
    .run()
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host")
}

/// What a fixture's injections should make `run` check.
fn expected(fx: &Fixture) -> BTreeSet<String> {
    let loss_or_hang = fx
        .inject
        .iter()
        .filter_map(|i| match i {
            Inject::LoseDevice { job } | Inject::HangJob { job } => Some(*job),
            _ => None,
        })
        .min();
    fx.inject
        .iter()
        .filter(|i| match (i.job(), loss_or_hang) {
            (Some(j), Some(end)) => j <= end,
            _ => true,
        })
        .map(|i| match i {
            Inject::RefuseSubmission { errno, .. } => {
                format!("refuse_submission {:?}", errno.errno())
            }
            Inject::FailAllocation { .. } => "fail_allocation".into(),
            Inject::FaultJob { .. } => "fault_job".into(),
            Inject::HangJob { .. } => "hang_job".into(),
            Inject::FailJob { .. } => "fail_job".into(),
            Inject::LoseDevice { .. } => "lose_device".into(),
            Inject::JobOutOfMemory { .. } => "job_out_of_memory".into(),
        })
        .collect()
}

#[test]
fn every_host_fixture_injects_what_it_says() {
    let mut all = BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "fixtures missing: {files:?}");
    for path in files {
        let fx = Fixture::load(&path).unwrap();
        let checked = run(&fx);
        assert_eq!(checked, expected(&fx), "{}", path.display());
        all.extend(checked);
    }
    let kinds: BTreeSet<String> = [
        "refuse_submission EINVAL",
        "refuse_submission ENOSPC",
        "refuse_submission EBUSY",
        "fail_allocation",
        "fault_job",
        "fail_job",
        "hang_job",
        "lose_device",
        "job_out_of_memory",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        all, kinds,
        "every kind of injection is exercised by some fixture"
    );
}

#[test]
fn refused_submissions_leave_no_trace_on_buffers() {
    let fx = Fixture::from_json(
        r#"{"inject": [{"what": "refuse_submission", "submission": 0, "errno": "EBUSY"}]}"#,
        "inline",
    )
    .unwrap();
    let dev = replay::with_fixture(fx).unwrap();
    let target = common::row(&dev, 1);
    match common::fill(&dev, &target, 0, 1) {
        Err(WinsysError::Refused { errno }) => assert_eq!(errno, Errno::EBUSY),
        other => panic!("{other:?}"),
    }
    assert!(target.reservation().write_fence().is_none());
    assert_eq!(dev.live().jobs, 0);
    common::fill(&dev, &target, 0, 2)
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(common::pixels(&target), vec![2]);
}

#[test]
fn loss_fails_jobs_still_waiting() {
    let fx = Fixture::from_json(
        r#"{"inject": [{"what": "lose_device", "job": 1}]}"#,
        "inline",
    )
    .unwrap();
    let dev = replay::with_fixture(fx).unwrap();
    let (a, b) = (common::row(&dev, 1), common::row(&dev, 1));
    let gate = dev.user_fence().unwrap();
    let held = dev
        .submit(common::fill_job(&dev, &a, 0, 1).after(gate.fence()))
        .unwrap();
    let lost = common::fill(&dev, &b, 0, 1).unwrap();
    assert!(matches!(
        lost.wait(LONG),
        Err(WinsysError::Job {
            error: JobError::DeviceLost,
            ..
        })
    ));
    assert!(matches!(
        held.wait(LONG),
        Err(WinsysError::Job {
            error: JobError::DeviceLost,
            ..
        })
    ));
    drop(gate);
    dev.wait_idle(LONG).unwrap();
    assert_eq!(dev.live().jobs, 0);
}

/// A caller that sees the device lost and then reads the trace finds the job the loss hit
/// ended with DeviceLost, never still pending (`sgx535 replay --record` would otherwise write
/// the loss down as a hang). The window was a few instructions wide: many devices, each
/// polled until the loss shows.
#[test]
fn the_job_a_loss_hits_is_traced_before_the_loss_shows() {
    for round in 0..200 {
        let fx = Fixture::from_json(
            r#"{"inject": [{"what": "lose_device", "job": 0}]}"#,
            "inline",
        )
        .unwrap();
        let dev = replay::with_fixture(fx).unwrap();
        let target = common::row(&dev, 1);
        let f = common::fill(&dev, &target, 0, 1).unwrap();
        while !dev.is_lost() {
            std::hint::spin_loop();
        }
        assert_eq!(
            dev.trace().by_fence(f.id()).unwrap().result,
            TraceResult::Error(JobError::DeviceLost),
            "round {round}"
        );
    }
}

#[test]
fn a_missing_fixture_file_is_an_error() {
    assert!(matches!(
        replay::open(&fixture_dir().join("no_such_fixture.json")),
        Err(WinsysError::Fixture { .. })
    ));
}
