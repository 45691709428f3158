//! A lost device, run on any backend: the sim backend here, the drm backend through the
//! drm-shim in a child process.

use std::time::Instant;

use sgx_winsys::replay::Inject;
use sgx_winsys::{Device, JobError, TraceResult};

use super::hang::job_error;
use super::{fill_job, row, LONG};

/// Jobs queued behind the hang when the device is lost.
pub const QUEUED: u32 = 16;

/// What [`loss_behind_a_hang_scenario`] needs injected: job 0 hangs, job 1 loses the device.
pub fn loss_behind_a_hang() -> Vec<Inject> {
    vec![Inject::HangJob { job: 0 }, Inject::LoseDevice { job: 1 }]
}

/// Job 0 (context 1) hangs and stalls the GPU with `QUEUED` jobs of context 2 behind it (the
/// reset cancels only the guilty context's); when the watchdog resets the GPU, job 1 loses
/// the device, on the backend's own thread (the sim's worker; the drm reaper, inside whose
/// wait the shim's watchdog runs). The caller, spinning on `is_lost()`, must then find every
/// job traced as lost, none pending: both backends used to mark the device lost and then end
/// the jobs one by one. `budget_ms`: the device's hang budget.
pub fn loss_behind_a_hang_scenario(dev: &dyn Device, budget_ms: u64) {
    let target = row(dev, QUEUED + 1);
    let jobs: Vec<_> = (0..=QUEUED)
        .map(|x| fill_job(dev, &target, x, x + 1).in_context(1 + u64::from(x > 0)))
        .collect();
    let fences: Vec<_> = jobs.into_iter().map(|j| dev.submit(j).unwrap()).collect();
    let start = Instant::now();
    while !dev.is_lost() {
        assert!(start.elapsed() < LONG, "the device was never lost");
        std::hint::spin_loop();
    }
    let t = dev.trace();
    let results: Vec<_> = t.entries.iter().map(|e| e.result.clone()).collect();
    let lost = TraceResult::Error(JobError::DeviceLost);
    // The hung job: Hang on the model, whose watchdog ended it before the loss; DeviceLost
    // through the drm backend, which cannot ask JOB_INFO how it ended once the device is lost.
    let hung = [
        TraceResult::Error(JobError::Hang { budget_ms }),
        lost.clone(),
    ];
    assert!(
        hung.contains(&results[0]),
        "when the loss showed: {results:?}"
    );
    assert_eq!(
        results[1..],
        vec![lost; fences.len() - 1],
        "when the loss showed"
    );
    for (f, r) in fences.iter().zip(&results) {
        assert_eq!(TraceResult::Error(job_error(f.wait(LONG))), *r);
    }
    dev.wait_idle(LONG).unwrap();
    assert_eq!(dev.trace().entries, t.entries);
    assert_eq!(dev.live().jobs, 0);
}
