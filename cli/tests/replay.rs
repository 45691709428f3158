//! `sgx535 replay`: every host fixture's `expect` block holds; a block that does not hold, and
//! a fixture that does not parse, make the command fail naming the field.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{sgx535, text};

fn scratch(name: &str, body: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgx-replay-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

/// Runs `sgx535 replay` on a scratch fixture `name` holding `body`; checks that it fails and
/// returns what it printed.
fn replay_fails(name: &str, body: &str) -> String {
    let p = scratch(name, body);
    let o = sgx535(&["replay", p.to_str().unwrap()]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    t
}

fn host_fixtures() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn every_host_fixture_meets_its_expect_block() {
    let files = host_fixtures();
    assert!(files.len() >= 50, "fixtures missing: {}", files.len());
    let args: Vec<&str> = std::iter::once("replay")
        .chain(files.iter().map(String::as_str))
        .collect();
    let o = sgx535(&args);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains(&format!("replay: {} fixtures pass", files.len())),
        "{t}"
    );
    // The blitter's rule shows: a refusal before any submission falls back to the CPU with a
    // right texture; a refusal after one stops with the error.
    assert!(
        t.contains("CPU generator (private chain allocation failed"),
        "{t}"
    );
    assert!(
        t.contains("caller received: refused (mip generation stopped at level 4"),
        "{t}"
    );
}

#[test]
fn a_mismatch_names_the_field_and_fails() {
    let t = replay_fails(
        "wrong.json",
        r#"{"description": "refusal of pass 2, with a wrong count",
            "inject": [{"what": "refuse_submission", "submission": 2, "errno": "ENOSPC"}],
            "expect": {"mipgen": {"error": "refused", "fences_signalled": 5, "written": [1, 2]}}}"#,
    );
    assert!(
        t.contains("MISMATCH fences_signalled: expected 5, got 2"),
        "{t}"
    );
    assert_eq!(t.matches("MISMATCH").count(), 1, "{t}");
    assert!(t.contains("1 of 1 fixtures failed"), "{t}");
}

#[test]
fn an_injection_the_run_never_reaches_is_out_of_range() {
    let t = replay_fails(
        "range.json",
        r#"{"inject": [{"what": "fault_job", "job": 40, "unit": "pbe", "addr": 0}],
            "expect": {"draw": {"error": "none"}}}"#,
    );
    assert!(
        t.contains("inject[0] (job 40; the run reached 3) never fired"),
        "{t}"
    );
}

#[test]
fn a_bad_fixture_names_file_line_and_field() {
    let t = replay_fails(
        "bad.json",
        "{\n  \"inject\": [],\n  \"expect\": {\"mipgen\": {\"levels\": [1]}}\n}\n",
    );
    assert!(t.contains("bad.json"), "{t}");
    assert!(t.contains("line 3"), "{t}");
    assert!(t.contains("field `expect.mipgen"), "{t}");
    assert!(t.contains("unknown field `levels`"), "{t}");
    let missing = sgx535(&["replay", "/nonexistent/fixture.json"]);
    assert!(!missing.status.success());
    assert!(text(&missing).contains("/nonexistent/fixture.json"));
}

#[test]
fn json_output_carries_the_outcome() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host");
    let f = dir.join("draw_refuse_step1.json");
    let o = sgx535(&["replay", "--json", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let s = &v[0]["scenarios"][0];
    assert_eq!(s["scenario"], "draw");
    assert_eq!(s["error"], "refused");
    assert_eq!(s["submissions"], 2);
    assert_eq!(s["fences_signalled"], 1);
    assert_eq!(s["written"], serde_json::json!([0]));
    assert_eq!(s["unchanged"], serde_json::json!([1, 2]));
    assert_eq!(s["pass"], true);
}

#[test]
fn a_recorded_run_replays_to_the_same_outcome() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host");
    for (fixture, scenario, inject) in [
        ("mipgen_fault_job3.json", "mipgen", "fault_job"),
        ("draw_refuse_step1.json", "draw", "refuse_submission"),
        ("lose_device.json", "mipgen", "lose_device"),
        ("hang_job.json", "mipgen", "hang_job"),
        ("draw_job_oom_step1.json", "draw", "job_out_of_memory"),
    ] {
        let out = scratch(&format!("rec-{fixture}"), "");
        let dev = format!("replay:{}", dir.join(fixture).display());
        let o = sgx535(&[
            "replay",
            "--record",
            out.to_str().unwrap(),
            "--scenario",
            scenario,
            "--device",
            &dev,
        ]);
        assert!(o.status.success(), "{fixture}: {}", text(&o));
        let rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(rec["inject"].as_array().unwrap().len(), 1, "{rec}");
        assert_eq!(rec["inject"][0]["what"], inject, "{rec}");
        assert!(rec["expect"][scenario]["error"].is_string(), "{rec}");
        // The recorded fixture reproduces the run: its expect block holds on replay.
        let o = sgx535(&["replay", out.to_str().unwrap()]);
        assert!(o.status.success(), "{fixture}: {}", text(&o));
    }
    // A clean run records no injection.
    let out = scratch("rec-clean.json", "");
    let o = sgx535(&[
        "replay",
        "--record",
        out.to_str().unwrap(),
        "--device",
        "model",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(rec["inject"], serde_json::json!([]));
    assert_eq!(
        rec["expect"]["mipgen"]["written"],
        serde_json::json!([1, 2, 3, 4, 5, 6])
    );
    let o = sgx535(&[
        "replay",
        "--record",
        out.to_str().unwrap(),
        "--scenario",
        "all",
    ]);
    assert!(!o.status.success());
}

fn shim_library() -> std::path::PathBuf {
    sgx_winsys::built_shim_library()
        .expect("libsgx535_drm_shim.so is built next to the test (a dev-dependency)")
}

/// `sgx535 replay --record out --scenario scenario` on the drm backend, whose render node is
/// the drm-shim serving the model with `fixture`'s failures behind it.
fn record_on_drm(out: &Path, fixture: &Path, scenario: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sgx535"))
        .args([
            "replay",
            "--record",
            out.to_str().unwrap(),
            "--scenario",
            scenario,
        ])
        .env("LD_PRELOAD", shim_library())
        .env("SGX535_SHIM_FIXTURE", fixture)
        .env("SGX535_DEVICE", "drm")
        .env_remove("SGX_DRM_NODE")
        .output()
        .unwrap()
}

#[test]
fn record_on_a_drm_device_writes_what_the_kernel_did() {
    // The drm backend's real ioctl path, served by the drm-shim with a fault injected behind
    // it: the recorded fixture names the fault the kernel reported.
    let out = scratch("drm-rec.json", "");
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host/draw_fault_step1.json");
    let o = record_on_drm(&out, &fx, "draw");
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("recorded draw on drm"), "{}", text(&o));
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        rec["inject"],
        serde_json::json!([{"what": "fault_job", "job": 1, "unit": "pbe", "addr": "0x30000000"}])
    );
    assert_eq!(rec["expect"]["draw"]["written"], serde_json::json!([0]));
    let o = sgx535(&["replay", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn record_of_a_loss_on_a_drm_device_writes_the_loss_not_a_hang() {
    // A loss through the drm backend: the caller's next ioctl may learn of it before the
    // reaper; the job it hit must already be traced lost then (winsys Core::lose), or the
    // recorder writes the loss down as hang_job. Several runs, as the two threads race.
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host/lose_device.json");
    for (round, scenario) in ["draw", "mipgen"].iter().cycle().take(8).enumerate() {
        let out = scratch(&format!("drm-rec-lost-{round}.json"), "");
        let o = record_on_drm(&out, &fx, scenario);
        assert!(o.status.success(), "round {round}: {}", text(&o));
        let rec: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let inject = rec["inject"].as_array().unwrap();
        assert_eq!(inject.len(), 1, "round {round} ({scenario}): {rec}");
        assert_eq!(inject[0]["what"], "lose_device", "round {round}: {rec}");
        assert_eq!(rec["expect"][scenario]["error"], "device_lost", "{rec}");
        // draw waits for each job before the next: the loss is at job 2, as the fixture has
        // it. mipgen submits its three jobs at once: jobs 0 and 1, done in the kernel but not
        // yet reaped when the loss comes, are ended lost too (the shim fails every ioctl after
        // a loss, JOB_INFO and waits included), so the loss is recorded at job 0, 1 or 2.
        let job = inject[0]["job"].as_u64().unwrap();
        match *scenario {
            "draw" => assert_eq!(job, 2, "round {round}: {rec}"),
            _ => assert!(job <= 2, "round {round}: {rec}"),
        }
    }
}
