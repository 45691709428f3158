//! `sgx535 info` and `sgx535 trace`, and SGX535_DEVICE as the commands read it.

use std::process::{Command, Output};

fn sgx535(args: &[&str], device: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sgx535"));
    c.args(args);
    match device {
        Some(d) => c.env("SGX535_DEVICE", d),
        None => c.env_remove("SGX535_DEVICE"),
    };
    c.output().expect("running sgx535")
}

fn out(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn fixture(name: &str) -> String {
    format!("{}/../fixtures/host/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn info_reports_the_device_sgx535_device_names() {
    let o = sgx535(&["info"], None);
    let t = out(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("device:     model (sim backend)"), "{t}");
    assert!(t.contains("OpenGL 2.1"), "{t}");
    assert!(
        t.contains("rows for the model kind (blitter/admission/model.json)"),
        "{t}"
    );
    assert!(t.contains("B8G8R8A8_UNORM"), "{t}");
    let fx = fixture("hang_job.json");
    let o = sgx535(&["info"], Some(&format!("replay:{fx}")));
    let t = out(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("(replay backend)"), "{t}");
    let o = sgx535(&["info"], Some("bogus"));
    assert!(!o.status.success());
    assert!(
        out(&o).contains("device \"bogus\": unknown device"),
        "{}",
        out(&o)
    );
    // --device wins over the environment.
    let o = sgx535(&["info", "--device", "model"], Some("bogus"));
    assert!(o.status.success(), "{}", out(&o));
}

#[test]
fn replay_traces_read_back_as_a_table() {
    let dir = std::env::temp_dir().join(format!("sgx-trace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = sgx535(
        &[
            "replay",
            "--trace-dir",
            dir.to_str().unwrap(),
            &fixture("refuse_submission_einval.json"),
        ],
        None,
    );
    assert!(o.status.success(), "{}", out(&o));
    let file = dir.join("refuse_submission_einval-mipgen.json");
    let o = sgx535(&["trace", file.to_str().unwrap()], None);
    let t = out(&o);
    assert!(o.status.success(), "{t}");
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 4, "{t}");
    assert!(lines[1].trim_start().starts_with("0 render"), "{t}");
    assert!(lines[1].ends_with("done"), "{t}");
    assert!(lines[2].ends_with("refused EINVAL"), "{t}");
    assert!(
        lines[3]
            .starts_with("2 submissions: 1 done, 0 ended with an error, 0 never ended, 1 refused"),
        "{t}"
    );
    std::fs::write(
        dir.join("bad.json"),
        "{\"entries\": [\n  {\"kind\": \"2d\"}\n]}",
    )
    .unwrap();
    let o = sgx535(&["trace", dir.join("bad.json").to_str().unwrap()], None);
    assert!(!o.status.success());
    assert!(
        out(&o).contains("entry 0: field `submission` missing"),
        "{}",
        out(&o)
    );
    std::fs::write(dir.join("broken.json"), "{\n  \"entries\": [").unwrap();
    let o = sgx535(&["trace", dir.join("broken.json").to_str().unwrap()], None);
    assert!(!o.status.success());
    assert!(out(&o).contains("line 2"), "{}", out(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}
