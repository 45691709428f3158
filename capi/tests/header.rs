//! The committed header is what cbindgen makes of the source (SGX_UPDATE_HEADER=1 rewrites it).

use std::path::PathBuf;

#[test]
fn committed_header_equals_a_fresh_one() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut fresh = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut fresh);
    let path = dir.join("include/sgx535.h");
    if std::env::var("SGX_UPDATE_HEADER").as_deref() == Ok("1") {
        std::fs::write(&path, &fresh).expect("write header");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "capi/include/sgx535.h differs from what cbindgen makes of capi/src; rerun with \
         SGX_UPDATE_HEADER=1 cargo test -p sgx-capi --test header, and bump the ABI version if \
         the entry table changed"
    );
}

#[test]
fn the_soname_macro_names_what_build_rs_sets() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let build = std::fs::read_to_string(dir.join("build.rs")).unwrap();
    let h = std::fs::read_to_string(dir.join("include/sgx535.h")).unwrap();
    let major = build
        .lines()
        .find_map(|l| l.trim().strip_prefix("let major = "))
        .and_then(|v| v.strip_suffix(';'))
        .expect("build.rs sets the major");
    assert!(h.contains(&format!("#define SGX535_SONAME \"libsgx535.so.{major}\"")));
}
