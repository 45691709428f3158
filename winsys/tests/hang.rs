//! Hang recovery on the model: the watchdog ends a hung job with `Hang` after its budget,
//! resets the GPU, records the guilty context, cancels that context's queued work and runs
//! everyone else's.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{fill_job, pixels, row, LONG};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{
    Device, FenceStatus, JobError, ResetRecord, SimDevice, SimOptions, TraceResult, WinsysError,
};

const BUDGET: Duration = Duration::from_millis(100);
const A: u64 = 11;
const B: u64 = 22;

fn hanging_at(job: u64) -> SimDevice {
    SimDevice::with_options(SimOptions {
        faults: Some(Arc::new(Fixture {
            description: "a hang".into(),
            inject: vec![Inject::HangJob { job }],
            ..Default::default()
        })),
        hang_budget: Some(BUDGET),
        ..SimOptions::default()
    })
    .expect("model")
}

fn job_error(r: sgx_winsys::Result<()>) -> JobError {
    match r {
        Err(WinsysError::Job { error, .. }) => error,
        other => panic!("expected a job error, got {other:?}"),
    }
}

#[test]
fn the_hung_job_ends_with_hang_its_context_is_guilty_and_the_others_run() {
    let dev = hanging_at(1);
    let a_row = row(&dev, 3);
    let b_row = row(&dev, 1);
    let t0 = Instant::now();
    let ok = dev
        .submit(fill_job(&dev, &a_row, 0, 1).in_context(A))
        .unwrap();
    let hung = dev
        .submit(fill_job(&dev, &a_row, 1, 2).in_context(A))
        .unwrap();
    // Queued behind the hang: A's next job, B's independent job, and B's job on A's row
    // (ordered after the hung one by the row's reservation).
    let a_next = dev
        .submit(fill_job(&dev, &a_row, 2, 3).in_context(A))
        .unwrap();
    let b_own = dev
        .submit(fill_job(&dev, &b_row, 0, 4).in_context(B))
        .unwrap();
    let b_after = dev
        .submit(fill_job(&dev, &a_row, 2, 5).in_context(B))
        .unwrap();

    ok.wait(LONG).unwrap();
    assert_eq!(
        job_error(hung.wait(LONG)),
        JobError::Hang { budget_ms: 100 }
    );
    assert!(t0.elapsed() >= BUDGET, "the watchdog waited the budget out");
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
        TraceResult::Hang { budget_ms: 100 }
    );
    assert_eq!(
        t.by_fence(a_next.id()).unwrap().result,
        TraceResult::Canceled
    );
    dev.wait_idle(LONG).unwrap();
    assert!(!dev.is_lost(), "a reset is not a lost device");

    // The device works after the reset, for a new context and the guilty one alike.
    let c = dev
        .submit(fill_job(&dev, &a_row, 1, 6).in_context(33))
        .unwrap();
    c.wait(LONG).unwrap();
    let a_again = dev
        .submit(fill_job(&dev, &a_row, 0, 7).in_context(A))
        .unwrap();
    a_again.wait(LONG).unwrap();
    assert_eq!(pixels(&a_row), [7, 6, 5]);
}

#[test]
fn a_hung_job_of_no_context_leaves_the_culprit_unknown_and_cancels_nothing() {
    let dev = hanging_at(0);
    let r = row(&dev, 2);
    let hung = dev.submit(fill_job(&dev, &r, 0, 1)).unwrap();
    let next = dev.submit(fill_job(&dev, &r, 1, 2)).unwrap();
    assert_eq!(
        job_error(hung.wait(LONG)),
        JobError::Hang { budget_ms: 100 }
    );
    next.wait(LONG).unwrap();
    assert_eq!(
        dev.resets(),
        [ResetRecord {
            fence: hung.id(),
            guilty_context: None
        }]
    );
    assert_eq!(pixels(&r), [0, 2]);
}

#[test]
fn before_its_budget_a_hung_job_is_pending_and_the_gpu_runs_nothing_else() {
    let dev = SimDevice::with_options(SimOptions {
        faults: Some(Arc::new(Fixture {
            description: "a hang".into(),
            inject: vec![Inject::HangJob { job: 0 }],
            ..Default::default()
        })),
        hang_budget: Some(Duration::from_secs(30)),
        ..SimOptions::default()
    })
    .expect("model");
    let r = row(&dev, 2);
    let hung = dev.submit(fill_job(&dev, &r, 0, 1).in_context(A)).unwrap();
    let other = dev.submit(fill_job(&dev, &r, 1, 2).in_context(B)).unwrap();
    assert!(matches!(
        other.wait(Duration::from_millis(50)),
        Err(WinsysError::Timeout { .. })
    ));
    assert_eq!(hung.status(), FenceStatus::Pending);
    assert!(dev.resets().is_empty());
}
