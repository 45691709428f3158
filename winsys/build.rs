//! Regenerates the uapi bindings when the `use_bindgen` feature is on; otherwise does nothing and
//! the committed src/drm/bindings.rs is used.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "use_bindgen")]
    regen::run();
}

#[cfg(feature = "use_bindgen")]
mod regen {
    use std::path::PathBuf;

    /// Where libdrm-dev puts drm.h (Debian); override with SGX535_DRM_INCLUDE.
    const DEFAULT_DRM_INCLUDE: &str = "/usr/include/libdrm";

    pub fn run() {
        let header = "include/drm-uapi/sgx535_drm.h";
        println!("cargo:rerun-if-changed={header}");
        println!("cargo:rerun-if-env-changed=SGX535_DRM_INCLUDE");
        let drm_include =
            std::env::var("SGX535_DRM_INCLUDE").unwrap_or_else(|_| DEFAULT_DRM_INCLUDE.into());
        let bindings = bindgen::Builder::default()
            .header(header)
            .clang_arg(format!("-I{drm_include}"))
            .allowlist_type("drm_sgx535_.*")
            .allowlist_var("DRM_SGX535_.*|SGX535_.*|DRM_IOCTL_BASE|DRM_COMMAND_BASE")
            .default_enum_style(bindgen::EnumVariation::Consts)
            .prepend_enum_name(false)
            .derive_default(true)
            .layout_tests(true)
            .generate_comments(true)
            .use_core()
            .generate()
            .expect("bindgen failed on include/drm-uapi/sgx535_drm.h");
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("bindings.rs");
        bindings.write_to_file(&out).expect("write bindings");
    }
}
