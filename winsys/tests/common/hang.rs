//! Hang and fault recovery scenarios, run on any backend: the sim backend here, the drm
//! backend through the drm-shim in a child process.

use std::time::{Duration, Instant};

use sgx_hwdocs::Format;
use sgx_winsys::twod::{self, Rect, Surface};
use sgx_winsys::{Access, Device, JobError, ResetRecord, TraceResult, WinsysError};

use super::{cmd_bo, fill_job, pixels, row, LONG};

pub const A: u64 = 11;
pub const B: u64 = 22;
pub const C: u64 = 44;

pub fn job_error(r: sgx_winsys::Result<()>) -> JobError {
    match r {
        Err(WinsysError::Job { error, .. }) => error,
        other => panic!("expected a job error, got {other:?}"),
    }
}

/// On a device whose job 1 hangs (fixture) with hang budget `budget`: the hung job ends with
/// `Hang`, its context A is guilty, A's queued job is canceled, B's jobs (one ordered after
/// the hung job by a shared buffer) run, and the device works after.
pub fn hung_job_scenario(dev: &dyn Device, budget: Duration) {
    let budget_ms = budget.as_millis() as u64;
    let a_row = row(dev, 3);
    let b_row = row(dev, 1);
    let t0 = Instant::now();
    let ok = dev
        .submit(fill_job(dev, &a_row, 0, 1).in_context(A))
        .unwrap();
    let hung = dev
        .submit(fill_job(dev, &a_row, 1, 2).in_context(A))
        .unwrap();
    // Queued behind the hang: A's next job, B's independent job, and B's job on A's row
    // (ordered after the hung one by the row's reservation).
    let a_next = dev
        .submit(fill_job(dev, &a_row, 2, 3).in_context(A))
        .unwrap();
    let b_own = dev
        .submit(fill_job(dev, &b_row, 0, 4).in_context(B))
        .unwrap();
    let b_after = dev
        .submit(fill_job(dev, &a_row, 2, 5).in_context(B))
        .unwrap();

    ok.wait(LONG).unwrap();
    assert_eq!(job_error(hung.wait(LONG)), JobError::Hang { budget_ms });
    assert!(t0.elapsed() >= budget, "the watchdog waited the budget out");
    assert_eq!(job_error(a_next.wait(LONG)), JobError::Canceled);
    b_own.wait(LONG).unwrap();
    b_after.wait(LONG).unwrap();

    assert_eq!(
        dev.resets(),
        [ResetRecord {
            fence: hung.id(),
            guilty_context: Some(A)
        }]
    );
    // The hung job wrote nothing, A's canceled job never ran, B's jobs both ran.
    assert_eq!(pixels(&a_row), [1, 0, 5]);
    assert_eq!(pixels(&b_row), [4]);
    let t = dev.trace();
    assert_eq!(
        t.by_fence(hung.id()).unwrap().result,
        TraceResult::Error(JobError::Hang { budget_ms })
    );
    assert_eq!(
        t.by_fence(a_next.id()).unwrap().result,
        TraceResult::Error(JobError::Canceled)
    );
    dev.wait_idle(LONG).unwrap();
    assert!(!dev.is_lost(), "a reset is not a lost device");

    // The device works after the reset, for a new context and the guilty one alike.
    let c = dev
        .submit(fill_job(dev, &a_row, 1, 6).in_context(33))
        .unwrap();
    c.wait(LONG).unwrap();
    let a_again = dev
        .submit(fill_job(dev, &a_row, 0, 7).in_context(A))
        .unwrap();
    a_again.wait(LONG).unwrap();
    assert_eq!(pixels(&a_row), [7, 6, 5]);
}

/// A job filling pixel 0 of a surface 1 GiB past `dst`'s start: an MMU fault on the write.
pub fn faulting_job(dev: &dyn Device, dst: &sgx_winsys::Bo) -> sgx_winsys::Job {
    let far = Surface {
        bo: dst,
        offset_B: 0x4000_0000,
        stride_B: dst.size_B() as u32,
        format: Format::B8G8R8A8_UNORM,
    };
    let cmd = twod::fill(&far, Rect::new(0, 0, 1, 1), 9).unwrap();
    twod::job(&cmd_bo(dev), &[cmd], LONG)
        .unwrap()
        .with_bo(dst, Access::Write)
}

/// On a device whose job 0 hangs (fixture): C's job hangs, and behind it A's job takes an MMU
/// fault. Both reset the GPU: C and then A are guilty, A's job queued behind its fault is
/// canceled, B's job runs.
pub fn fault_resets_scenario(dev: &dyn Device, budget: Duration) {
    let budget_ms = budget.as_millis() as u64;
    let c_row = row(dev, 1);
    let a_row = row(dev, 2);
    let b_row = row(dev, 1);
    // The hang holds the GPU, so that the jobs behind it are queued when the fault comes.
    let hung = dev
        .submit(fill_job(dev, &c_row, 0, 1).in_context(C))
        .unwrap();
    let fault = dev.submit(faulting_job(dev, &a_row).in_context(A)).unwrap();
    let a_next = dev
        .submit(fill_job(dev, &a_row, 1, 3).in_context(A))
        .unwrap();
    let b_own = dev
        .submit(fill_job(dev, &b_row, 0, 4).in_context(B))
        .unwrap();

    assert_eq!(job_error(hung.wait(LONG)), JobError::Hang { budget_ms });
    assert!(matches!(
        job_error(fault.wait(LONG)),
        JobError::Fault { write: true, .. }
    ));
    assert_eq!(job_error(a_next.wait(LONG)), JobError::Canceled);
    b_own.wait(LONG).unwrap();
    assert_eq!(
        dev.resets(),
        [
            ResetRecord {
                fence: hung.id(),
                guilty_context: Some(C)
            },
            ResetRecord {
                fence: fault.id(),
                guilty_context: Some(A)
            }
        ]
    );
    assert_eq!(pixels(&a_row), [0, 0]);
    assert_eq!(pixels(&b_row), [4]);
    assert_eq!(
        sgx_winsys::ResetStatus::for_context(B, &dev.resets()),
        sgx_winsys::ResetStatus::Innocent
    );
    dev.wait_idle(LONG).unwrap();
    assert!(!dev.is_lost());
    // The faulting context works after the reset.
    dev.submit(fill_job(dev, &a_row, 1, 8).in_context(A))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(pixels(&a_row), [0, 8]);
}
