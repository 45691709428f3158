//! A hang at every job index of a mip chain: the hung pass ends with `Hang` after the
//! watchdog's budget, the context that submitted it reads back as guilty (its reset callback
//! told on the next flush), and a second chain on a new context, on the same device after
//! the reset, produces the exact bytes.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use sgx_blitter::{pattern, BlitError, Route};
use sgx_pipe::{Format, PipeError, ResetStatus};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{Device, JobError, SimDevice, SimOptions, WinsysError};

const SIZE: u32 = 64;
const PASSES: u64 = 6;

fn hanging_at(job: u64) -> Arc<dyn Device> {
    Arc::new(
        SimDevice::with_options(SimOptions {
            faults: Some(Arc::new(Fixture {
                description: format!("hang at job {job}"),
                inject: vec![Inject::HangJob { job }],
                ..Default::default()
            })),
            hang_budget: Some(Duration::from_millis(20)),
            ..SimOptions::default()
        })
        .expect("model"),
    )
}

fn is_hang(e: &BlitError) -> bool {
    let pipe = match e {
        BlitError::Stopped { source, .. } | BlitError::Pipe(source) => source,
        _ => return false,
    };
    matches!(
        pipe,
        PipeError::Winsys(WinsysError::Job {
            error: JobError::Hang { budget_ms: 20 },
            ..
        })
    )
}

#[test]
fn after_a_hang_at_any_pass_a_new_context_generates_a_correct_chain() {
    let expected = pattern::expected_chain(&pattern::level0(SIZE), SIZE).unwrap();
    for job in 0..PASSES {
        let mut r = rig_on(hanging_at(job));
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
        assert!(is_hang(&err), "job {job}: {err:?}");
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
}

#[test]
fn a_context_that_did_not_hang_reads_back_innocent() {
    let dev = hanging_at(0);
    let mut guilty = rig_on(dev.clone());
    let mut bystander = rig_on(dev);
    let tex = patterned(&mut guilty, Format::B8G8R8A8_UNORM, SIZE);
    let rep = guilty
        .blitter
        .generate_mipmap(&mut guilty.ctx, &tex, 0, PASSES as u32)
        .unwrap();
    let err = guilty
        .blitter
        .wait_mipmap(&tex, &rep, Duration::from_secs(30))
        .unwrap_err();
    assert!(is_hang(&err), "{err:?}");
    assert_eq!(
        bystander.ctx.get_device_reset_status(),
        ResetStatus::Innocent
    );
    assert_eq!(guilty.ctx.get_device_reset_status(), ResetStatus::Guilty);
}
