//! Hang and fault recovery through the drm backend and the drm-shim: each scenario re-runs
//! this test in a child process with the shim preloaded, the shim's watchdog budget set and a
//! fixture that hangs one job; the scenarios are those the sim backend passes (common/hang.rs).

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::hang::{fault_resets_scenario, hung_job_scenario, job_error, A};
use common::preload::run_child;
use common::{fill_job, row, LONG};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{Device, DrmDevice, JobError, ResetStatus, FOREIGN_CONTEXT};

const CHILD_ENV: &str = "SGX535_SHIM_HANG_CHILD";
const BUDGET: Duration = Duration::from_millis(100);

fn in_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// A fixture file hanging job `job`, for the shim of a child.
fn hang_fixture(job: u64) -> PathBuf {
    let f = Fixture {
        description: format!("a hang at job {job}"),
        inject: vec![Inject::HangJob { job }],
        ..Default::default()
    };
    let path = std::env::temp_dir().join(format!(
        "sgx535-shim-hang-{}-{job}.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_string(&f).unwrap()).unwrap();
    path
}

fn run(name: &str, hang_job: u64) {
    let fixture = hang_fixture(hang_job);
    let out = run_child(
        name,
        CHILD_ENV,
        &[
            ("SGX535_SHIM_FIXTURE", fixture.display().to_string()),
            ("SGX535_SHIM_HANG_BUDGET_MS", BUDGET.as_millis().to_string()),
        ],
    );
    let _ = std::fs::remove_file(&fixture);
    assert!(out.contains("CHILD-OK"), "{name}:\n{out}");
}

#[test]
fn a_hang_through_the_shim_recovers_as_on_the_model() {
    if !in_child() {
        run("child_hang", 1);
    }
}

#[test]
fn child_hang() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    hung_job_scenario(&dev, BUDGET);
    println!("CHILD-OK");
}

#[test]
fn an_mmu_fault_through_the_shim_resets_as_on_the_model() {
    if !in_child() {
        run("child_fault", 0);
    }
}

#[test]
fn child_fault() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    fault_resets_scenario(&dev, BUDGET);
    println!("CHILD-OK");
}

#[test]
fn a_reset_another_file_caused_leaves_this_one_innocent() {
    if !in_child() {
        run("child_foreign", 1);
    }
}

/// Two opens of the node (two DRM files, as two processes would have): the first one's job
/// hangs; the second learns of the reset through CTX_RESET_STATUS, innocent of it.
#[test]
fn child_foreign() {
    if !in_child() {
        return;
    }
    let guilty = DrmDevice::open_default().unwrap();
    let other = DrmDevice::open_default().unwrap();
    let r = row(&other, 1);
    other
        .submit(fill_job(&other, &r, 0, 1).in_context(5))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert!(other.resets().is_empty());
    let g = row(&guilty, 1);
    let hung = guilty
        .submit(fill_job(&guilty, &g, 0, 2).in_context(A))
        .unwrap();
    assert_eq!(
        job_error(hung.wait(LONG)),
        JobError::Hang {
            budget_ms: BUDGET.as_millis() as u64
        }
    );
    assert_eq!(
        ResetStatus::for_context(A, &guilty.resets()),
        ResetStatus::Guilty
    );
    assert_eq!(guilty.resets().len(), 1, "no reset counted twice");
    let seen = other.resets();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].guilty_context, Some(FOREIGN_CONTEXT));
    assert_eq!(ResetStatus::for_context(5, &seen), ResetStatus::Innocent);
    assert_eq!(other.resets(), seen, "asked again: the same records");
    println!("CHILD-OK");
}

#[test]
fn fences_leave_the_process_as_sync_files_through_the_shim() {
    if !in_child() {
        run("child_sync_files", 1);
    }
}

/// SYNC_IOC_FILE_INFO's status: 1 signalled, 0 pending, a negative errno for an error.
fn sync_file_status(fd: &impl std::os::fd::AsRawFd) -> i32 {
    use sgx_winsys::drm::sync_file::{SyncFileInfo, SYNC_IOC_FILE_INFO as request};
    let mut info = SyncFileInfo::default();
    // SAFETY: the argument is the struct the request encodes, asking for no fence array.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), request as _, &mut info) };
    assert_eq!(
        r,
        0,
        "SYNC_IOC_FILE_INFO: {}",
        std::io::Error::last_os_error()
    );
    assert_eq!(info.num_fences, 1);
    info.status
}

/// Polls for POLLIN for up to `timeout_ms` (-1: forever); true when readable.
fn readable(fd: &impl std::os::fd::AsRawFd, timeout_ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
    assert!(n >= 0);
    n == 1 && p.revents & libc::POLLIN != 0
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// The drm backend exports a job's out-syncobj as a sync file (the shim's eventfd): pollable
/// by a thread that holds nothing else, with timeouts 0, 1 ms and infinite; its status says
/// how the job ended (-ETIME hung, -ECANCELED canceled by the reset, -EFAULT an MMU fault);
/// imported back, a sync file holds a job back and passes its error on; no descriptor is left
/// behind.
#[test]
fn child_sync_files() {
    if !in_child() {
        return;
    }
    let dev = DrmDevice::open_default().unwrap();
    let a_row = row(&dev, 2);
    let b_row = row(&dev, 1);
    let c_row = row(&dev, 1);
    let ok = dev
        .submit(fill_job(&dev, &a_row, 0, 1).in_context(A))
        .unwrap();
    ok.wait(LONG).unwrap();
    let before = open_fds();
    let ok_fd = dev.export_fence(&ok).unwrap();
    assert!(readable(&ok_fd, 0));
    assert_eq!(sync_file_status(&ok_fd), 1);

    let hung = dev
        .submit(fill_job(&dev, &a_row, 1, 2).in_context(A))
        .unwrap();
    let canceled = dev
        .submit(fill_job(&dev, &a_row, 0, 3).in_context(A))
        .unwrap();
    let fault = dev
        .submit(common::hang::faulting_job(&dev, &b_row).in_context(22))
        .unwrap();
    let hung_fd = dev.export_fence(&hung).unwrap();
    use std::os::fd::AsFd;
    let canceled_fd = dev.export_fence(&canceled).unwrap();
    let fault_fd = dev.export_fence(&fault).unwrap();
    // Imported back (as another process would): a job held back by the hung job's sync file.
    let imported = dev.import_fence(hung_fd.as_fd()).unwrap();
    let after_hang = dev
        .submit(fill_job(&dev, &c_row, 0, 7).in_context(33).after(&imported))
        .unwrap();
    let imported_ok = dev.import_fence(ok_fd.as_fd()).unwrap();
    assert!(!readable(&hung_fd, 0), "timeout 0 while it hangs");
    assert!(!readable(&hung_fd, 1), "timeout 1 ms while it hangs");
    assert_eq!(sync_file_status(&hung_fd), 0);
    // A thread holding only the fd. (The reaper's wait drives the shim's watchdog.)
    let waiter = std::thread::spawn(move || {
        let seen = readable(&hung_fd, -1);
        (seen, sync_file_status(&hung_fd))
    });
    assert_eq!(waiter.join().unwrap(), (true, -libc::ETIME));
    assert!(readable(&canceled_fd, -1));
    assert_eq!(sync_file_status(&canceled_fd), -libc::ECANCELED);
    assert!(readable(&fault_fd, -1));
    assert_eq!(sync_file_status(&fault_fd), -libc::EFAULT);
    // The imported fence ended with the hung job's error; the job behind it ran after the
    // reset (a dependency's error does not cancel its dependants).
    imported_ok.wait(LONG).unwrap();
    after_hang.wait(LONG).unwrap();
    assert!(!hung.is_pending());
    assert!(matches!(
        job_error(imported.wait(LONG)),
        JobError::Failed(reason) if reason.contains("ETIME")
    ));
    assert_eq!(common::pixels(&c_row), [7]);
    assert_eq!(
        job_error(hung.wait(LONG)),
        JobError::Hang {
            budget_ms: BUDGET.as_millis() as u64
        }
    );
    // Exported after the end: signalled (the syncobj is gone; the fence says how it ended).
    let late = dev.export_fence(&canceled).unwrap();
    assert!(readable(&late, 0));
    drop((ok_fd, canceled_fd, fault_fd, late));
    drop((imported, imported_ok, after_hang));
    dev.wait_idle(LONG).unwrap();
    assert_eq!(open_fds(), before, "every sync file closed");
    println!("CHILD-OK");
}
