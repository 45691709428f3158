//! Bad input and hostile surroundings: every case answers with a clear message (or, for a
//! closed pipe, quietly), never a panic, and leaves no debris.

use std::process::{Command, Stdio};

fn sgx535() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sgx535"));
    c.env("SGX_SHADER_CACHE", "0");
    c
}

/// Runs with `args`; (success, stdout + stderr).
fn run(args: &[&str]) -> (bool, String) {
    let out = sgx535().args(args).output().expect("runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("sgx535-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Commands that print, each cheap enough to run a few times.
const PRINTERS: &[&[&str]] = &[
    &["hwdocs"],
    &["hwdocs", "--json"],
    &["hwdocs", "--list", "MODEL"],
    &["caps", "--all"],
    &["layout", "B8G8R8A8_UNORM", "64x64"],
    &["layout", "B8G8R8A8_UNORM", "64x64", "--json"],
    &["mipgen", "--size", "32"],
];

#[test]
fn a_full_disk_on_stdout_is_reported_not_panicked() {
    for args in PRINTERS {
        let out = sgx535()
            .args(*args)
            .stdout(
                std::fs::File::options()
                    .write(true)
                    .open("/dev/full")
                    .expect("/dev/full"),
            )
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("writing to standard output: No space left on device"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_pipe_on_stdout_ends_the_command_quietly() {
    for args in PRINTERS {
        // The reader is gone before the first write, as after `| head -0`.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = sgx535()
            .args(*args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.is_empty(), "{args:?}: {err}");
        assert!(out.status.success(), "{args:?}: {:?}", out.status);
    }
}

#[test]
fn mipgen_windows_outside_the_chain_or_empty_are_refused_by_name() {
    for (args, says) in [
        (
            &["mipgen", "--size", "2048", "--base", "12"][..],
            "--base 12 leaves no level to generate: a 2048x2048 chain has levels 0..=11, so --base takes 0..=10",
        ),
        (&["mipgen", "--size", "2048", "--base", "11"], "--base 11 leaves no level"),
        (&["mipgen", "--size", "1"], "--size 1 has a single level"),
        (&["mipgen", "--base", "3", "--last", "3"], "--last 3 generates nothing from --base 3: --last takes 4..=6"),
        (&["mipgen", "--size", "64", "--last", "7"], "--last 7 is past the chain: a 64x64 chain has levels 0..=6"),
        (&["mipgen", "--size", "48"], "--size 48 is not a power of two"),
    ] {
        let (ok, out) = run(args);
        assert!(!ok && out.contains(says) && !out.contains("panicked"), "{args:?}: {out}");
        assert!(!out.contains("equal"), "{args:?} claims a comparison: {out}");
    }
}

#[test]
fn layout_takes_format_names_in_any_case_and_lists_them_when_unknown() {
    let (ok, out) = run(&["layout", "pipe_format_b8g8r8a8_unorm", "4x4"]);
    assert!(ok && out.contains("B8G8R8A8_UNORM 4x4"), "{out}");
    let (ok, out) = run(&["layout", "B8G8R8A9_UNORM", "4x4"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("unknown format B8G8R8A9_UNORM; the formats are B8G8R8A8_UNORM, "),
        "{out}"
    );
}

#[test]
fn demo_frames_are_bounded_and_out_must_be_a_directory() {
    let (ok, out) = run(&["demo", "gears", "--frames", "4294967295"]);
    assert!(
        !ok && out.contains("4294967295 is not in 1..=1000"),
        "{out}"
    );
    let (ok, out) = run(&["demo", "gears", "--frames", "0"]);
    assert!(!ok && out.contains("0 is not in 1..=1000"), "{out}");

    let d = scratch("outfile");
    std::fs::create_dir_all(&d).expect("scratch");
    let file = d.join("not-a-dir");
    std::fs::write(&file, b"x").expect("file");
    let (ok, out) = run(&["demo", "gears", "--out", file.to_str().expect("utf-8")]);
    assert!(!ok, "{out}");
    assert!(out.contains("is a file: give a directory"), "{out}");
    assert!(!out.contains("File exists"), "{out}");
    assert_eq!(std::fs::read(&file).expect("still there"), b"x");
    std::fs::remove_dir_all(&d).expect("cleanup");
}
