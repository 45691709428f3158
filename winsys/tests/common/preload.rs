//! Tests that re-run themselves in a child process with the drm-shim preloaded.

use std::path::PathBuf;
use std::process::Command;

/// The shim library cargo built next to this test (a dev-dependency of the crate).
pub fn shim_library() -> PathBuf {
    sgx_winsys::built_shim_library()
        .expect("libsgx535_drm_shim.so not built next to the test (cargo test -p sgx-winsys)")
}

/// Runs the test `name` of this binary with the shim preloaded and `child_env` set; returns
/// its stdout, after checking it passed.
pub fn run_child(name: &str, child_env: &str, envs: &[(&str, String)]) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("LD_PRELOAD", shim_library())
        .env(child_env, "1")
        .env_remove("SGX_DRM_NODE")
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
