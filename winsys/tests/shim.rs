//! The drm backend end to end: this test re-runs itself in a child process with the drm-shim
//! preloaded, where the backend's real ioctl path (open, VERSION, GEM_CREATE, mmap, submit with
//! syncobjs, JOB_INFO) reaches the fake render node; the child's pixels and trace must equal
//! those of the sim backend run here.

mod common;

use std::path::PathBuf;

use common::LONG;
use sgx_hwdocs::Format;
use sgx_winsys::twod::{self, Rect, Surface};
use sgx_winsys::{Access, Bo, BoDesc, Device, DrmDevice, JobError, SimDevice, WinsysError};

const CHILD_ENV: &str = "SGX535_SHIM_CHILD";
const MARK: &str = "SHIM-OUTCOME ";

fn surface(bo: &Bo) -> Surface<'_> {
    Surface {
        bo,
        offset_B: 0,
        stride_B: 64,
        format: Format::B8G8R8A8_UNORM,
    }
}

/// Submits a 2D job. Its command buffer is kept in `keep` until the scenario ends, so GPU
/// addresses do not depend on when finished jobs release theirs.
fn submit(
    dev: &dyn Device,
    keep: &mut Vec<Bo>,
    cmds: &[sgx_hwdocs::twod::TwodCmd],
    bos: &[(&Bo, Access)],
) -> sgx_winsys::Fence {
    let cmd = dev
        .create_bo(&BoDesc::new(twod::list_size_B(cmds.len())))
        .unwrap();
    let mut job = twod::job(&cmd, cmds, LONG).unwrap();
    for (b, a) in bos {
        job = job.with_bo(b, *a);
    }
    keep.push(cmd);
    dev.submit(job).unwrap()
}

/// The same work on any backend: fills and copies on a 16x16 target, then a job that faults.
/// Returns the target's pixels, the fault, and the trace without wall-clock durations.
fn scenario(dev: &dyn Device) -> serde_json::Value {
    let src = dev.create_bo(&BoDesc::new(16 * 64)).unwrap();
    let dst = dev.create_bo(&BoDesc::new(16 * 64)).unwrap();
    let all = Rect::new(0, 0, 16, 16);
    let k = &mut Vec::new();
    submit(
        dev,
        k,
        &[twod::fill(&surface(&src), all, 0xFF11_2233).unwrap()],
        &[(&src, Access::Write)],
    );
    let inner = Rect::new(4, 4, 8, 8);
    submit(
        dev,
        k,
        &[twod::fill(&surface(&src), inner, 0xFF00_FF00).unwrap()],
        &[(&src, Access::Write)],
    );
    submit(
        dev,
        k,
        &[twod::copy(&surface(&src), all, &surface(&dst), 0, 0).unwrap()],
        &[(&src, Access::Read), (&dst, Access::Write)],
    );
    let last = submit(
        dev,
        k,
        &[twod::fill(&surface(&dst), Rect::new(14, 0, 2, 3), 0x8080_8080).unwrap()],
        &[(&dst, Access::Write)],
    );
    let far = Surface {
        offset_B: 0x4000_0000,
        ..surface(&dst)
    };
    let bad = submit(
        dev,
        k,
        &[twod::fill(&far, all, 1).unwrap()],
        &[(&dst, Access::Write)],
    );
    last.wait(LONG).unwrap();
    let fault = match bad.wait(LONG) {
        Err(WinsysError::Job {
            error: e @ JobError::Fault { .. },
            ..
        }) => e.to_string(),
        other => panic!("expected a fault: {other:?}"),
    };
    dev.wait_idle(LONG).unwrap();
    let pixels = common::pixels(&dst);
    let mut trace = serde_json::to_value(dev.trace()).unwrap();
    for e in trace["entries"].as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("duration_us");
    }
    serde_json::json!({ "pixels": pixels, "fault": fault, "trace": trace })
}

/// Runs the child test `name` with the shim preloaded; returns its stdout.
fn run_child(name: &str, envs: &[(&str, String)]) -> String {
    common::preload::run_child(name, CHILD_ENV, envs)
}

fn in_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

#[test]
fn drm_backend_under_the_shim_matches_the_sim_backend() {
    if in_child() {
        return;
    }
    let stdout = run_child("child_scenario", &[]);
    let line = stdout
        .lines()
        .find_map(|l| l.find(MARK).map(|i| &l[i + MARK.len()..]))
        .unwrap_or_else(|| panic!("no outcome in the child's output:\n{stdout}"));
    let drm: serde_json::Value = serde_json::from_str(line).unwrap();
    let sim = scenario(&SimDevice::new().unwrap());
    assert_eq!(drm["pixels"], sim["pixels"]);
    assert_eq!(drm["fault"], sim["fault"]);
    assert_eq!(drm["trace"], sim["trace"]);
    let px: Vec<u64> = sim["pixels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(px[0], 0xFF11_2233);
    assert_eq!(px[5 * 16 + 5], 0xFF00_FF00);
    assert_eq!(px[15], 0x8080_8080);
    assert_eq!(px[15 * 16 + 15], 0xFF11_2233);
}

/// Runs in the child only: the scenario on the drm backend, printed for the parent.
#[test]
fn child_scenario() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    let info = dev.info();
    assert_eq!(info.driver, "sgx535");
    assert!(info.is_model);
    assert_eq!(info.core_revision, sgx_winsys::MODEL_CORE_REVISION);
    assert!(matches!(
        dev.user_fence(),
        Err(WinsysError::Unsupported { .. })
    ));
    let outcome = scenario(&dev);
    // Fences are signalled by the reaper thread, not the caller.
    let b = dev.create_bo(&BoDesc::new(64)).unwrap();
    let f = common::fill(&dev, &b, 0, 3).unwrap();
    f.wait(LONG).unwrap();
    assert_eq!(f.signalled_by(), Some(dev.reaper_thread()));
    dev.kernel_wait(&b, Access::Write, LONG).unwrap();
    assert_eq!(common::pixels(&b)[0], 3);
    println!("{MARK}{outcome}");
}

#[test]
fn injected_failures_come_back_through_the_kernel_path() {
    if in_child() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/host");
    for name in [
        "fault_job_pbe.json",
        "lose_device.json",
        "refuse_submission_enospc.json",
        "fail_allocation_enomem.json",
        "job_out_of_memory.json",
    ] {
        let out = run_child(
            "child_fixture",
            &[
                ("SGX535_SHIM_FIXTURE", dir.join(name).display().to_string()),
                ("SGX535_FIXTURE_NAME", name.to_string()),
            ],
        );
        assert!(out.contains("FIXTURE-OK"), "{name}:\n{out}");
    }
}

/// Runs in the child only: a few fills under the fixture the parent chose.
#[test]
fn child_fixture() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    let name = std::env::var("SGX535_FIXTURE_NAME").unwrap();
    let target = dev.create_bo(&BoDesc::new(4)).unwrap();
    match name.as_str() {
        "fault_job_pbe.json" => {
            common::fill(&dev, &target, 0, 1)
                .unwrap()
                .wait(LONG)
                .unwrap();
            match common::fill(&dev, &target, 0, 2).unwrap().wait(LONG) {
                Err(WinsysError::Job { error, .. }) => assert_eq!(
                    error,
                    JobError::Fault {
                        unit: sgx_winsys::Unit::Pbe,
                        addr: 0x3000_1000,
                        write: false
                    }
                ),
                other => panic!("{other:?}"),
            }
        }
        "lose_device.json" => {
            for v in 0..2 {
                common::fill(&dev, &target, 0, v)
                    .unwrap()
                    .wait(LONG)
                    .unwrap();
            }
            let f = common::fill(&dev, &target, 0, 9).unwrap();
            assert!(matches!(
                f.wait(LONG),
                Err(WinsysError::Job {
                    error: JobError::DeviceLost,
                    ..
                })
            ));
            assert!(dev.is_lost());
            assert!(matches!(
                dev.create_bo(&BoDesc::new(4)),
                Err(WinsysError::DeviceLost)
            ));
            assert!(matches!(
                target.map(Access::Read, LONG),
                Err(WinsysError::DeviceLost)
            ));
        }
        "refuse_submission_enospc.json" => {
            for v in 0..2 {
                common::fill(&dev, &target, 0, v)
                    .unwrap()
                    .wait(LONG)
                    .unwrap();
            }
            assert!(matches!(
                common::fill(&dev, &target, 0, 5),
                Err(WinsysError::Refused {
                    errno: sgx_winsys::Errno::ENOSPC
                })
            ));
            common::fill(&dev, &target, 0, 6)
                .unwrap()
                .wait(LONG)
                .unwrap();
            assert_eq!(common::pixels(&target), vec![6]);
        }
        "fail_allocation_enomem.json" => {
            assert!(matches!(
                dev.create_bo(&BoDesc::new(4)),
                Err(WinsysError::OutOfMemory { size_B: 4 })
            ));
            assert!(dev.create_bo(&BoDesc::new(4)).is_ok());
        }
        "job_out_of_memory.json" => {
            // Job 0 runs out of parameter memory through the kernel's job status and writes
            // nothing; the next job runs.
            match common::fill(&dev, &target, 0, 1).unwrap().wait(LONG) {
                Err(WinsysError::Job { error, .. }) => assert_eq!(error, JobError::OutOfMemory),
                other => panic!("{other:?}"),
            }
            assert_eq!(common::pixels(&target), vec![0]);
            common::fill(&dev, &target, 0, 2)
                .unwrap()
                .wait(LONG)
                .unwrap();
            assert_eq!(common::pixels(&target), vec![2]);
        }
        other => panic!("no check for {other}"),
    }
    println!("FIXTURE-OK");
}

#[test]
fn duplicated_node_fds_share_the_open_file() {
    if in_child() {
        return;
    }
    let out = run_child("child_dup", &[]);
    assert!(out.contains("DUP-OK"), "{out}");
}

/// DRM_IOCTL_VERSION's argument (drm.h), to ask a descriptor which driver it is.
#[repr(C)]
struct DrmVersion {
    major: i32,
    minor: i32,
    patch: i32,
    name_len: usize,
    name: *mut u8,
    date_len: usize,
    date: *mut u8,
    desc_len: usize,
    desc: *mut u8,
}

/// The driver name behind `fd`, or the errno of DRM_IOCTL_VERSION.
fn driver_of(fd: i32) -> Result<String, i32> {
    let mut name = [0u8; 32];
    let mut v = DrmVersion {
        major: 0,
        minor: 0,
        patch: 0,
        name_len: name.len(),
        name: name.as_mut_ptr(),
        date_len: 0,
        date: std::ptr::null_mut(),
        desc_len: 0,
        desc: std::ptr::null_mut(),
    };
    // _IOWR('d', 0x00, struct drm_version)
    let request = (3u64 << 30) | ((std::mem::size_of::<DrmVersion>() as u64) << 16) | (0x64 << 8);
    // SAFETY: the argument is the struct the request encodes, its name buffer 32 bytes long.
    if unsafe { libc::ioctl(fd, request as _, &mut v) } != 0 {
        return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0));
    }
    Ok(String::from_utf8_lossy(&name[..v.name_len.min(name.len())]).into_owned())
}

fn fstat_of(fd: i32) -> libc::stat {
    // SAFETY: an all-zero stat is valid to overwrite; fstat fills it.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        assert_eq!(libc::fstat(fd, &mut st), 0);
        st
    }
}

fn stat_of(path: &std::ffi::CStr) -> libc::stat {
    // SAFETY: as fstat_of, with a NUL-terminated path.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        assert_eq!(libc::stat(path.as_ptr(), &mut st), 0, "{path:?}");
        st
    }
}

/// Runs in the child only: the node's fd duplicated (fcntl F_DUPFD_CLOEXEC, then dup) and the
/// original closed, as Mesa's loader and libsgx535 do before using it; each duplicate is still
/// the node, also after the other was closed, and a closed one is not.
#[test]
fn child_dup() {
    if !in_child() {
        return;
    }
    // SAFETY: open with a NUL-terminated path.
    let fd = unsafe { libc::open(c"/dev/dri/renderD128".as_ptr(), libc::O_RDWR) };
    assert!(fd >= 0);
    // SAFETY: duplicates an open descriptor.
    let d1 = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    // SAFETY: as above.
    let d2 = unsafe { libc::dup(d1) };
    assert!(d1 >= 0 && d2 >= 0 && d1 != d2);
    // SAFETY: closes descriptors this test opened and nothing else uses.
    assert_eq!(unsafe { libc::close(fd) }, 0);
    assert_eq!(driver_of(d1).as_deref(), Ok("sgx535"));
    assert_eq!(driver_of(d2).as_deref(), Ok("sgx535"));
    // libdrm (drmGetDevice2, for Mesa's GBM and EGL) asks fstat and stat what the node is.
    for st in [fstat_of(d2), stat_of(c"/dev/dri/renderD128")] {
        assert_eq!(st.st_mode & libc::S_IFMT, libc::S_IFCHR);
        assert_eq!(st.st_rdev, libc::makedev(226, 128));
    }
    assert_eq!(
        stat_of(c"/sys/dev/char/226:128/device/drm").st_mode & libc::S_IFMT,
        libc::S_IFDIR
    );
    // SAFETY: as above.
    assert_eq!(unsafe { libc::close(d1) }, 0);
    assert_eq!(driver_of(d2).as_deref(), Ok("sgx535"));
    // SAFETY: as above.
    assert_eq!(unsafe { libc::close(d2) }, 0);
    assert_eq!(driver_of(d2), Err(libc::EBADF));
    // An ordinary file's duplicate is not taken for the node.
    // SAFETY: as above.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    // SAFETY: as above.
    let null2 = unsafe { libc::dup(null) };
    assert_eq!(driver_of(null2), Err(libc::ENOTTY));
    // SAFETY: as above.
    unsafe {
        libc::close(null);
        libc::close(null2);
    }
    println!("DUP-OK");
}
