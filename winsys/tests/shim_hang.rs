//! Hang and fault recovery through the drm backend and the drm-shim: each scenario re-runs
//! this test in a child process with the shim preloaded, the shim's watchdog budget set and a
//! fixture that hangs one job; the scenarios are those the sim backend passes (common/hang.rs).

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::hang::{fault_resets_scenario, hung_job_scenario, job_error, A};
use common::preload::run_child;
use common::{fill_job, row, LONG};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{Device, DrmDevice, JobError, ResetStatus, FOREIGN_CONTEXT};

const CHILD_ENV: &str = "SGX535_SHIM_HANG_CHILD";
const BUDGET: Duration = Duration::from_millis(100);

fn in_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// A fixture file hanging job `job`, for the shim of a child.
fn hang_fixture(job: u64) -> PathBuf {
    let f = Fixture {
        description: format!("a hang at job {job}"),
        inject: vec![Inject::HangJob { job }],
        ..Default::default()
    };
    let path = std::env::temp_dir().join(format!(
        "sgx535-shim-hang-{}-{job}.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_string(&f).unwrap()).unwrap();
    path
}

fn run(name: &str, hang_job: u64) {
    let fixture = hang_fixture(hang_job);
    let out = run_child(
        name,
        CHILD_ENV,
        &[
            ("SGX535_SHIM_FIXTURE", fixture.display().to_string()),
            ("SGX535_SHIM_HANG_BUDGET_MS", BUDGET.as_millis().to_string()),
        ],
    );
    let _ = std::fs::remove_file(&fixture);
    assert!(out.contains("CHILD-OK"), "{name}:\n{out}");
}

#[test]
fn a_hang_through_the_shim_recovers_as_on_the_model() {
    if !in_child() {
        run("child_hang", 1);
    }
}

#[test]
fn child_hang() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    hung_job_scenario(&dev, BUDGET);
    println!("CHILD-OK");
}

#[test]
fn an_mmu_fault_through_the_shim_resets_as_on_the_model() {
    if !in_child() {
        run("child_fault", 0);
    }
}

#[test]
fn child_fault() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    fault_resets_scenario(&dev, BUDGET);
    println!("CHILD-OK");
}

#[test]
fn a_reset_another_file_caused_leaves_this_one_innocent() {
    if !in_child() {
        run("child_foreign", 1);
    }
}

/// Two opens of the node (two DRM files, as two processes would have): the first one's job
/// hangs; the second learns of the reset through CTX_RESET_STATUS, innocent of it.
#[test]
fn child_foreign() {
    if !in_child() {
        return;
    }
    let guilty = DrmDevice::open_default().unwrap();
    let other = DrmDevice::open_default().unwrap();
    let r = row(&other, 1);
    other
        .submit(fill_job(&other, &r, 0, 1).in_context(5))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert!(other.resets().is_empty());
    let g = row(&guilty, 1);
    let hung = guilty
        .submit(fill_job(&guilty, &g, 0, 2).in_context(A))
        .unwrap();
    assert_eq!(
        job_error(hung.wait(LONG)),
        JobError::Hang {
            budget_ms: BUDGET.as_millis() as u64
        }
    );
    assert_eq!(
        ResetStatus::for_context(A, &guilty.resets()),
        ResetStatus::Guilty
    );
    assert_eq!(guilty.resets().len(), 1, "no reset counted twice");
    let seen = other.resets();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].guilty_context, Some(FOREIGN_CONTEXT));
    assert_eq!(ResetStatus::for_context(5, &seen), ResetStatus::Innocent);
    assert_eq!(other.resets(), seen, "asked again: the same records");
    println!("CHILD-OK");
}
