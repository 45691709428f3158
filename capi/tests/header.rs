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
