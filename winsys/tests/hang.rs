//! Hang recovery on the model: the watchdog ends a hung job with `Hang` after its budget,
//! resets the GPU, records the guilty context, cancels that context's queued work and runs
//! everyone else's. An MMU fault resets the GPU the same way, at once.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::hang::{fault_resets_scenario, hung_job_scenario, job_error, A, B};
use common::loss::{loss_behind_a_hang, loss_behind_a_hang_scenario};
use common::{fill_job, pixels, row, LONG};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{Device, FenceStatus, JobError, ResetRecord, SimDevice, SimOptions, WinsysError};

const BUDGET: Duration = Duration::from_millis(100);

fn hanging_at(job: u64) -> SimDevice {
    SimDevice::with_options(SimOptions {
        faults: Some(Arc::new(Fixture {
            description: "a hang".into(),
            inject: vec![Inject::HangJob { job }],
            ..Default::default()
        })),
        hang_budget: Some(BUDGET),
        ..SimOptions::default()
    })
    .expect("model")
}

#[test]
fn the_hung_job_ends_with_hang_its_context_is_guilty_and_the_others_run() {
    hung_job_scenario(&hanging_at(1), BUDGET);
}

#[test]
fn an_mmu_fault_resets_the_gpu_and_makes_its_context_guilty() {
    fault_resets_scenario(&hanging_at(0), BUDGET);
}

#[test]
fn a_hung_job_of_no_context_leaves_the_culprit_unknown_and_cancels_nothing() {
    let dev = hanging_at(0);
    let r = row(&dev, 2);
    let hung = dev.submit(fill_job(&dev, &r, 0, 1)).unwrap();
    let next = dev.submit(fill_job(&dev, &r, 1, 2)).unwrap();
    assert_eq!(
        job_error(hung.wait(LONG)),
        JobError::Hang { budget_ms: 100 }
    );
    next.wait(LONG).unwrap();
    assert_eq!(
        dev.resets(),
        [ResetRecord {
            fence: hung.id(),
            guilty_context: None
        }]
    );
    assert_eq!(pixels(&r), [0, 2]);
}

#[test]
fn before_its_budget_a_hung_job_is_pending_and_the_gpu_runs_nothing_else() {
    let dev = SimDevice::with_options(SimOptions {
        faults: Some(Arc::new(Fixture {
            description: "a hang".into(),
            inject: vec![Inject::HangJob { job: 0 }],
            ..Default::default()
        })),
        hang_budget: Some(Duration::from_secs(30)),
        ..SimOptions::default()
    })
    .expect("model");
    let r = row(&dev, 2);
    let hung = dev.submit(fill_job(&dev, &r, 0, 1).in_context(A)).unwrap();
    let other = dev.submit(fill_job(&dev, &r, 1, 2).in_context(B)).unwrap();
    assert!(matches!(
        other.wait(Duration::from_millis(50)),
        Err(WinsysError::Timeout { .. })
    ));
    assert_eq!(hung.status(), FenceStatus::Pending);
    assert!(dev.resets().is_empty());
}

/// A loss the worker finds (job 1, after job 0's hang) with jobs queued behind: every job is
/// traced as lost before `is_lost()` shows it (common/loss.rs).
#[test]
fn a_loss_behind_a_hang_is_traced_for_every_queued_job_before_it_shows() {
    let dev = SimDevice::with_options(SimOptions {
        faults: Some(Arc::new(Fixture {
            description: "a hang, then a loss".into(),
            inject: loss_behind_a_hang(),
            ..Default::default()
        })),
        hang_budget: Some(BUDGET),
        ..SimOptions::default()
    })
    .expect("model");
    loss_behind_a_hang_scenario(&dev, BUDGET.as_millis() as u64);
}
