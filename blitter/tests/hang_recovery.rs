//! A hang at every job index of a mip chain: the hung pass ends with `Hang` after the
//! watchdog's budget, the context that submitted it reads back as guilty (its reset callback
//! told on the next flush), and a second chain on a new context, on the same device after
//! the reset, produces the exact bytes.

mod common;
mod hang_chain;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use hang_chain::{hang_at_pass_then_new_chain, is_hang, PASSES, SIZE};
use sgx_pipe::{Format, ResetStatus};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{Device, SimDevice, SimOptions};

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

#[test]
fn after_a_hang_at_any_pass_a_new_context_generates_a_correct_chain() {
    for job in 0..PASSES {
        hang_at_pass_then_new_chain(hanging_at(job), job, 20);
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
    assert!(is_hang(&err, 20), "{err:?}");
    assert_eq!(
        bystander.ctx.get_device_reset_status(),
        ResetStatus::Innocent
    );
    assert_eq!(guilty.ctx.get_device_reset_status(), ResetStatus::Guilty);
}
