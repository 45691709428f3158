//! `sgx535 caps` prints the GL versions Mesa would expose and, with --all, the caps.

use std::process::Command;

fn sgx535(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sgx535"))
        .args(args)
        .output()
        .expect("run sgx535");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn caps_reports_gl_2_1_and_lists_caps_and_formats() {
    let out = sgx535(&["caps"]);
    assert!(
        out.contains("OpenGL 2.1, GLSL 1.20, OpenGL ES 2.0"),
        "{out}"
    );
    assert!(out.contains("missing for GL 2.1: nothing"), "{out}");
    let all = sgx535(&["caps", "--all"]);
    assert!(all.contains("PIPE_CAP_MAX_TEXTURE_3D_LEVELS"), "{all}");
    assert!(all.contains("PIPE_SHADER_CAP_MAX_TEMPS"), "{all}");
    let srgb = all
        .lines()
        .find(|l| l.trim_start().starts_with("B8G8R8A8_SRGB"))
        .unwrap();
    assert!(srgb.contains("2D") && !srgb.contains("render"), "{srgb}");
    let z = all
        .lines()
        .find(|l| l.trim_start().starts_with("Z24_UNORM_S8_UINT"))
        .unwrap();
    assert!(
        z.contains("2D") && z.contains("depth") && !z.contains("3D"),
        "{z}"
    );
}
