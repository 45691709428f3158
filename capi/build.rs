//! Gives the shared library its SONAME, so programs link against the ABI's major version.
fn main() {
    // Keep in step with SGX535_SONAME in cbindgen.toml (capi/tests/header.rs checks it).
    let major = 0;
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libsgx535.so.{major}");
    println!("cargo:rerun-if-changed=build.rs");
}
