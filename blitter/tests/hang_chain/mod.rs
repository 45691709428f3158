//! A hang at one pass of a mip chain, then a second chain on a new context of the same
//! device: run on the model here and through the drm-shim by hang_recovery_shim.rs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;
use sgx_blitter::{pattern, BlitError, Route};
use sgx_pipe::{Format, PipeError, ResetStatus};
use sgx_winsys::{Device, JobError, WinsysError};

pub const SIZE: u32 = 64;
pub const PASSES: u64 = 6;

pub fn is_hang(e: &BlitError, budget: u64) -> bool {
    let pipe = match e {
        BlitError::Stopped { source, .. } | BlitError::Pipe(source) => source,
        _ => return false,
    };
    matches!(
        pipe,
        PipeError::Winsys(WinsysError::Job {
            error: JobError::Hang { budget_ms },
            ..
        }) if *budget_ms == budget
    )
}

/// On `dev`, whose job `job` hangs with a budget of `budget_ms`: the chain fails with `Hang`,
/// its context reads back guilty (and its reset callback hears it on the next flush), the
/// device is not lost, and a second chain on a new context is byte for byte right.
pub fn hang_at_pass_then_new_chain(dev: Arc<dyn Device>, job: u64, budget_ms: u64) {
    let expected = pattern::expected_chain(&pattern::level0(SIZE), SIZE).unwrap();
    let mut r = rig_on(dev);
    let heard = Arc::new(Mutex::new(Vec::new()));
    let h = heard.clone();
    r.ctx.set_device_reset_callback(Some(Box::new(move |s| {
        h.lock().expect("callback log").push(s)
    })));
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, SIZE);
    let err = r
        .blitter
        .generate_mipmap(&mut r.ctx, &tex, 0, PASSES as u32)
        .and_then(|rep| {
            assert_eq!(rep.route, Route::Gpu);
            r.blitter
                .wait_mipmap(&tex, &rep, Duration::from_secs(30))
                .map(|_| ())
        })
        .expect_err("the chain hung");
    assert!(is_hang(&err, budget_ms), "job {job}: {err:?}");
    r.dev.wait_idle(Duration::from_secs(30)).unwrap();
    assert_eq!(r.dev.resets().len(), 1, "job {job}");
    assert!(!r.dev.is_lost());

    assert_eq!(
        r.ctx.get_device_reset_status(),
        ResetStatus::Guilty,
        "job {job}"
    );
    assert_eq!(r.ctx.get_device_reset_status(), ResetStatus::NoReset);
    r.ctx.flush().unwrap();
    assert_eq!(*heard.lock().unwrap(), [ResetStatus::Guilty], "job {job}");

    // A second chain on a new context, same device.
    let mut r2 = rig_on(r.dev.clone());
    assert_eq!(r2.ctx.get_device_reset_status(), ResetStatus::NoReset);
    let tex2 = patterned(&mut r2, Format::B8G8R8A8_UNORM, SIZE);
    let rep = r2
        .blitter
        .generate_mipmap(&mut r2.ctx, &tex2, 0, PASSES as u32)
        .unwrap();
    r2.blitter
        .wait_mipmap(&tex2, &rep, Duration::from_secs(30))
        .unwrap();
    assert_eq!(rep.route, Route::Gpu);
    let got = read_all(&mut r2, &tex2);
    for l in 0..=PASSES as usize {
        assert_eq!(
            got[l], expected[l],
            "job {job}: level {l} of the second chain"
        );
    }
}
