//! Runs a render through the drm winsys backend under the drm-shim (which serves the
//! sgx535 uapi with the device model) and prints the submission trace as JSON.
//!
//!     cargo build -p sgx-drm-shim && cargo run -p sgx-pipe --example render_under_shim
//!
//! The example re-runs itself with the shim preloaded.

#[path = "../tests/shim_scene.rs"]
mod shim_scene;

use std::sync::Arc;

fn main() {
    if std::env::var_os("SGX535_SHIM_EXAMPLE_CHILD").is_none() {
        let exe = std::env::current_exe().expect("own path");
        let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
        let lib = [
            dir.join("libsgx535_drm_shim.so"),
            dir.join("deps/libsgx535_drm_shim.so"),
        ]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| {
            eprintln!("build the shim first: cargo build -p sgx-drm-shim");
            std::process::exit(2)
        });
        let st = std::process::Command::new(exe)
            .env("LD_PRELOAD", lib)
            .env("SGX535_SHIM_EXAMPLE_CHILD", "1")
            .status()
            .expect("re-run under the shim");
        std::process::exit(st.code().unwrap_or(1));
    }
    let dev = Arc::new(sgx_winsys::DrmDevice::open_default().expect("the shim's render node"));
    let pixels = shim_scene::scene_sized(dev.clone(), 24);
    eprintln!(
        "drm backend {:?}: {} bytes of pixels read back",
        dev.path(),
        pixels.len()
    );
    let trace = sgx_winsys::Device::trace(&*dev);
    println!("{}", trace.to_json());
}
