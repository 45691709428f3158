//! A hang at every job index of a mip chain through the drm backend and the drm-shim: for each
//! index this test re-runs itself in a child process with the shim preloaded, a fixture that
//! hangs that job and a short watchdog budget; the child checks what the model's test checks
//! (hang_chain): `Hang`, the guilty context, and a correct second chain on a new context.

mod common;
mod hang_chain;

use std::sync::Arc;

use hang_chain::{hang_at_pass_then_new_chain, PASSES};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::DrmDevice;

const CHILD_ENV: &str = "SGX535_BLITTER_SHIM_CHILD";
const JOB_ENV: &str = "SGX535_BLITTER_SHIM_HANG_JOB";
const BUDGET_MS: u64 = 20;

#[test]
fn child_hang_at_pass() {
    let Ok(job) = std::env::var(JOB_ENV) else {
        return; // only meaningful under the shim, started by the test below
    };
    let job: u64 = job.parse().unwrap();
    let dev = DrmDevice::open_default().expect("the shim's render node");
    hang_at_pass_then_new_chain(Arc::new(dev), job, BUDGET_MS);
    println!("CHILD-OK {job}");
}

#[test]
fn after_a_hang_at_any_pass_through_the_shim_a_new_context_generates_a_correct_chain() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    for job in 0..PASSES {
        let fixture = Fixture {
            description: format!("hang at job {job}"),
            inject: vec![Inject::HangJob { job }],
            ..Default::default()
        };
        let stdout = common::run_under_shim(
            "child_hang_at_pass",
            &format!("sgx535-blitter-shim-hang-{}-{job}.json", std::process::id()),
            &serde_json::to_string(&fixture).unwrap(),
            &[
                (CHILD_ENV, "1".to_string()),
                (JOB_ENV, job.to_string()),
                ("SGX535_SHIM_HANG_BUDGET_MS", BUDGET_MS.to_string()),
            ],
        );
        assert!(
            stdout.contains(&format!("CHILD-OK {job}")),
            "hang at job {job}: {stdout}"
        );
    }
}
