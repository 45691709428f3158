//! `sgx535 qualify`: the seed experiment qualifies (six ordered submissions, every byte equal
//! read directly and sampled) with a report a person can open; a failing device fails the run;
//! `--record` writes rows the blitter then admits; a format the PBE cannot write is reported
//! as not renderable with the hwdocs entry, not as a failure.

use std::path::{Path, PathBuf};
mod common;
use common::{sgx535, text};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sgx-qualify-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn report(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

#[test]
fn the_seed_experiment_qualifies_with_a_report() {
    let out = scratch("seed");
    let o = sgx535(&[
        "qualify",
        "--format",
        "B8G8R8A8",
        "--size",
        "64",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let r = report(&out);
    let cases = r["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3, "one case per pattern");
    let exact = cases.iter().find(|c| c["pattern"] == "exact").unwrap();
    assert_eq!(exact["status"], "pass");
    assert_eq!(exact["submissions"].as_array().unwrap().len(), 6);
    let subs: Vec<u64> = exact["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    assert!(subs.windows(2).all(|w| w[1] == w[0] + 1), "{subs:?}");
    for f in ["direct", "sampled", "chain"] {
        assert_eq!(exact[f]["bytes"], 0, "{f}");
    }
    assert_eq!(exact["levels"].as_array().unwrap().len(), 6);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        html.contains("B8G8R8A8_UNORM 64x64 levels 1..=6 exact"),
        "{html}"
    );
    for name in ["expected", "actual", "diff"] {
        let png = out.join(format!("png/b8g8r8a8_unorm-64-b0-exact-L1-{name}.png"));
        assert!(png.exists(), "{}", png.display());
        assert!(html.contains(&format!("png/b8g8r8a8_unorm-64-b0-exact-L1-{name}.png")));
    }
    // A 32x32 level: the PNG holds 32x32 pixels.
    let dec = png::Decoder::new(
        std::fs::File::open(out.join("png/b8g8r8a8_unorm-64-b0-exact-L1-actual.png")).unwrap(),
    );
    let info = dec.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (32, 32));
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_faulting_device_fails_the_run() {
    let out = scratch("fault");
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host/fault_job_pbe.json");
    let dev = format!("replay:{}", fx.display());
    let o = sgx535(&[
        "qualify",
        "--format",
        "B8G8R8A8",
        "--size",
        "32",
        "--pattern",
        "exact",
        "--device",
        &dev,
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("1 cases failed"), "{t}");
    assert!(t.contains("MMU fault: pbe read at 0x30001000"), "{t}");
    assert_eq!(report(&out)["cases"][0]["status"], "fail");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn record_writes_rows_the_blitter_admits_and_unrenderable_formats_are_reported() {
    let out = scratch("record");
    let table = out.join("model.json");
    let o = sgx535(&[
        "qualify",
        "--format",
        "B5G6R5",
        "--format",
        "L8",
        "--size",
        "32",
        "--size",
        "64",
        "--out",
        out.to_str().unwrap(),
        "--record",
        "--table",
        table.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("1 not renderable"), "{t}");
    let r = report(&out);
    let l8 = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["format"] == "L8_UNORM")
        .unwrap();
    assert_eq!(l8["status"], "not renderable");
    assert!(l8["failures"][0]
        .as_str()
        .unwrap()
        .contains("hwdocs/defs/formats.json L8_UNORM: renderable false"));
    let mut a = sgx_blitter::Admission::only(Vec::new());
    a.extend_from_file(&table).unwrap();
    assert_eq!(a.entries.len(), 1, "{:?}", a.entries);
    let row = &a.entries[0];
    assert_eq!(row.format, "B5G6R5_UNORM");
    assert_eq!(row.sizes_px, vec![32, 64]);
    assert_eq!(row.base_levels, vec![0]);
    let ev = row.evidence.as_ref().unwrap();
    assert_eq!(ev.patterns, vec!["exact", "gradient", "random"]);
    assert!(ev.device.starts_with("sim"), "{}", ev.device);
    let req = |size| sgx_blitter::MipRequest {
        format: sgx_hwdocs::Format::B5G6R5_UNORM,
        width_px: size,
        height_px: size,
        single_layer: true,
        samples: 1,
        base_level: 0,
    };
    assert!(a.admits(sgx_blitter::DeviceKind::Model, &req(64)).is_ok());
    assert!(a.admits(sgx_blitter::DeviceKind::Model, &req(128)).is_err());
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn bad_arguments_are_errors() {
    for args in [
        &["qualify", "--size", "48"][..],
        &["qualify", "--format", "NOPE"][..],
        &["qualify", "--size", "64", "--window", "7"][..],
        &["qualify", "--window", "x..y"][..],
        &["qualify", "--device", "gpu0"][..],
    ] {
        let o = sgx535(args);
        assert!(!o.status.success(), "{args:?}");
        assert!(!text(&o).contains("panicked"), "{args:?}: {}", text(&o));
    }
}
