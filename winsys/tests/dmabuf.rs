//! Buffer sharing: export as a dma-buf fd (a memfd on the sim backend and under the drm-shim)
//! and import into another device, which then sees, and writes, the same bytes.

mod common;

use std::os::fd::AsFd;
use std::process::Command;

use common::{fill, pixels, row, LONG};
use sgx_winsys::{Device, DrmDevice, SimDevice, WinsysError};

const CHILD_ENV: &str = "SGX535_DMABUF_CHILD";

/// A writes through a job; B, after A's fence, reads the same pixels; then B writes through a
/// job and A reads them. Returns the final pixels.
fn share(a: &dyn Device, b: &dyn Device) -> Vec<u32> {
    let src = row(a, 8);
    for x in 0..8 {
        fill(a, &src, x, 0xA000_0000 + x)
            .unwrap()
            .wait(LONG)
            .unwrap();
    }
    let fd = a.export_bo(&src).unwrap();
    let imported = b.import_bo(fd.as_fd(), src.size_B()).unwrap();
    drop(fd);
    assert_ne!(imported.id(), 0);
    assert_eq!(pixels(&imported), pixels(&src));
    assert_eq!(pixels(&imported)[3], 0xA000_0003);
    fill(b, &imported, 5, 0x1234_5678)
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(pixels(&src)[5], 0x1234_5678);
    // The exporter's buffer lives on after the importer lets go, and vice versa.
    drop(imported);
    fill(a, &src, 6, 7).unwrap().wait(LONG).unwrap();
    pixels(&src)
}

fn expected() -> Vec<u32> {
    let mut v: Vec<u32> = (0..8).map(|x| 0xA000_0000 + x).collect();
    v[5] = 0x1234_5678;
    v[6] = 7;
    v
}

#[test]
fn two_sim_devices_share_a_buffer() {
    let a = SimDevice::new().unwrap();
    let b = SimDevice::new().unwrap();
    assert_eq!(share(&a, &b), expected());
}

#[test]
fn a_sim_device_imports_its_own_export() {
    let a = SimDevice::new().unwrap();
    assert_eq!(share(&a, &a), expected());
}

#[test]
fn bad_imports_and_exports_are_errors() {
    let a = SimDevice::new().unwrap();
    let b = SimDevice::new().unwrap();
    let bo = row(&a, 8);
    let fd = a.export_bo(&bo).unwrap();
    // The memfd holds one page: more than that is refused.
    assert!(matches!(
        b.import_bo(fd.as_fd(), 4097),
        Err(WinsysError::InvalidArgument(_))
    ));
    assert!(matches!(
        b.import_bo(fd.as_fd(), 0),
        Err(WinsysError::InvalidArgument(_))
    ));
    assert!(b.import_bo(fd.as_fd(), 4096).is_ok());
    // A pipe is no buffer: it cannot seek.
    let (r, _w) = std::io::pipe().unwrap();
    assert!(matches!(
        b.import_bo(r.as_fd(), 64),
        Err(WinsysError::Os { .. })
    ));
    assert!(matches!(
        b.export_bo(&bo),
        Err(WinsysError::ForeignObject("buffer"))
    ));
}

#[test]
fn imported_buffers_are_released() {
    let a = SimDevice::new().unwrap();
    let b = SimDevice::new().unwrap();
    let bo = row(&a, 8);
    let fd = a.export_bo(&bo).unwrap();
    let before = b.live();
    let imported = b.import_bo(fd.as_fd(), 32).unwrap();
    assert_eq!(b.live().bos, before.bos + 1);
    drop(imported);
    assert_eq!(b.live(), before);
}

fn shim_library() -> std::path::PathBuf {
    sgx_winsys::built_shim_library()
        .expect("libsgx535_drm_shim.so is built next to the test (a dev-dependency)")
}

#[test]
fn prime_export_and_import_under_the_shim() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["child_prime", "--exact", "--nocapture", "--test-threads=1"])
        .env("LD_PRELOAD", shim_library())
        .env(CHILD_ENV, "1")
        .env_remove("SGX_DRM_NODE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("PRIME-OK"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs in the child only, with the shim preloaded: two opens of the node (two DRM files)
/// share a buffer through PRIME, and the drm and sim backends share one both ways.
#[test]
fn child_prime() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let a = DrmDevice::open_default().unwrap();
    let b = DrmDevice::open_default().unwrap();
    assert_eq!(share(&a, &b), expected());
    // Importing into the exporting file yields the buffer it already has (one GEM handle).
    let bo = row(&a, 8);
    let fd = a.export_bo(&bo).unwrap();
    let again = a.import_bo(fd.as_fd(), 32).unwrap();
    assert_eq!(again.id(), bo.id());
    assert!(matches!(
        a.import_bo(fd.as_fd(), 8192),
        Err(WinsysError::InvalidArgument(_))
    ));
    let sim = SimDevice::new().unwrap();
    assert_eq!(share(&a, &sim), expected());
    assert_eq!(share(&sim, &a), expected());
    assert!(matches!(
        b.export_bo(&bo),
        Err(WinsysError::ForeignObject("buffer"))
    ));
    println!("PRIME-OK");
}
