//! A hang at every job index of a mip chain through the drm backend and the drm-shim: for each
//! index this test re-runs itself in a child process with the shim preloaded, a fixture that
//! hangs that job and a short watchdog budget; the child checks what the model's test checks
//! (hang_chain): `Hang`, the guilty context, and a correct second chain on a new context.

mod common;
mod hang_chain;

use std::process::Command;
use std::sync::Arc;

use hang_chain::{hang_at_pass_then_new_chain, PASSES};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::DrmDevice;

const CHILD_ENV: &str = "SGX535_BLITTER_SHIM_CHILD";
const JOB_ENV: &str = "SGX535_BLITTER_SHIM_HANG_JOB";
const BUDGET_MS: u64 = 20;

fn shim_library() -> std::path::PathBuf {
    sgx_winsys::built_shim_library()
        .expect("libsgx535_drm_shim.so is built next to the test (a dev-dependency)")
}

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
        let path = std::env::temp_dir().join(format!(
            "sgx535-blitter-shim-hang-{}-{job}.json",
            std::process::id()
        ));
        std::fs::write(&path, serde_json::to_string(&fixture).unwrap()).unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["child_hang_at_pass", "--exact", "--nocapture"])
            .env("LD_PRELOAD", shim_library())
            .env(CHILD_ENV, "1")
            .env(JOB_ENV, job.to_string())
            .env("SGX535_SHIM_FIXTURE", &path)
            .env("SGX535_SHIM_HANG_BUDGET_MS", BUDGET_MS.to_string())
            .env_remove("SGX_DRM_NODE")
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&path);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(&format!("CHILD-OK {job}")),
            "hang at job {job}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
