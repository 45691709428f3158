//! The README's main command and its neighbours run and say what they should.

use std::process::Command;

fn sgx535(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sgx535"))
        .args(args)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn mipgen_reports_one_fenced_pass_per_level_and_equal_bytes() {
    let (ok, out) = sgx535(&["mipgen", "--size", "32"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("route: GPU, 5 generation submissions"),
        "{out}"
    );
    assert!(
        out.contains(
            "levels 1..=5 equal the CPU reference byte for byte; pbe bytes equal footprints"
        ),
        "{out}"
    );
}

#[test]
fn layout_prints_the_seed_offsets() {
    let (ok, out) = sgx535(&["layout", "B8G8R8A8_UNORM", "64x64"]);
    assert!(ok, "{out}");
    for off in [
        "16384", "20480", "21504", "21760", "21824", "21840", "21844",
    ] {
        assert!(out.contains(off), "{off} missing:\n{out}");
    }
    let (ok, out) = sgx535(&["layout", "NOPE_UNORM", "64x64"]);
    assert!(!ok && out.contains("unknown format"), "{out}");
}

#[test]
fn layout_takes_a_depth() {
    let (ok, out) = sgx535(&["layout", "B8G8R8A8_UNORM", "16x16x8"]);
    assert!(ok, "{out}");
    assert!(out.contains("16x16x8 3D, 5 levels"), "{out}");
    assert!(out.contains("slice_stride_B"), "{out}");
    // Level 1: 8x8x4 at offset 8192, 1024 B, slices of 256 B; the chain ends at 9364.
    let row1: Vec<&str> = out.lines().nth(3).unwrap().split_whitespace().collect();
    assert_eq!(
        &row1[..6],
        &["1", "8x8x4", "twiddled", "8192", "1024", "256"],
        "{out}"
    );
    assert!(out.contains("size_B 9364"), "{out}");
    let (ok, out) = sgx535(&["layout", "B8G8R8A8_UNORM", "16x16x0"]);
    assert!(!ok && out.contains("depth 0"), "{out}");
    let (ok, out) = sgx535(&["layout", "B8G8R8A8_UNORM", "16x16x8", "--cube"]);
    assert!(!ok && out.contains("no depth"), "{out}");
    let (ok, out) = sgx535(&["layout", "Z16_UNORM", "16x16x2"]);
    assert!(!ok && out.contains("3D texture"), "{out}");
}

#[test]
fn hwdocs_counts_every_item() {
    let (ok, out) = sgx535(&["hwdocs"]);
    assert!(ok, "{out}");
    assert!(out.contains("items without evidence or source: 0"), "{out}");
}

#[test]
fn compile_accepts_what_st_mesa_sends() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../compiler/tests/shaders");
    // Mesa 22.3.6's own TGSI: a local array indexed in loops, gl_ClipVertex, twelve
    // varyings, a 256-vec4 skinning palette.
    for p in ["loop", "clip", "v12", "skin"] {
        let vs = format!("{dir}/mesa/{p}.vert.tgsi");
        let fs = format!("{dir}/mesa/{p}.frag.tgsi");
        let (ok, out) = sgx535(&["compile", "--verbose", "--stage-pair", &vs, &fs]);
        assert!(ok, "{p}: {out}");
        assert!(out.contains("; vertex program registers"), "{p}: {out}");
    }
    let (ok, out) = sgx535(&["compile", &format!("{dir}/mesa/skin.vert.tgsi")]);
    assert!(ok, "{out}");
    assert!(
        out.contains("; constants: 256 vec4 (sa0..sa127, then LDC from memory to 255)"),
        "{out}"
    );
    // Fourteen varyings in six slots, each one's lanes listed.
    let (ok, out) = sgx535(&[
        "compile",
        "--verbose",
        "--stage-pair",
        &format!("{dir}/packed14.vert.tgsi"),
        &format!("{dir}/packed14.frag.tgsi"),
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("; varying GENERIC[13] : o4.zw -> pa3.zw (PERSPECTIVE)"),
        "{out}"
    );
}
