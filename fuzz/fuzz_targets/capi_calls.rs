//! Sequences of C ABI calls, structure-aware: resources, contexts, CSOs, shaders, views,
//! surfaces, state, draws, clears, blits, generate_mipmap, transfers, fences and queries, with
//! handles that may be null, destroyed, forged or of another kind, and sizes, levels and boxes
//! that may be out of range. Every call returns a status; none may be
//! `SGX535_ERROR_INTERNAL` (a panic caught at the ABI). Destroying the screen frees every
//! handle made on it: the library's live count is back where it started.
//!
//! The harness passes memory the way a correct C caller would (every pointer covers what the
//! call's sizes say it reads), so what is fuzzed is the library's checking, not the caller's.
#![no_main]

use std::ptr::null;

use libfuzzer_sys::fuzz_target;
use sgx535::*;

#[path = "capi_calls/call.rs"]
mod call;
#[path = "capi_calls/run.rs"]
mod run;

use call::Call;
use run::Run;

fuzz_target!(|calls: Vec<Call>| {
    let start = live_handles();
    let desc = sgx535_device_desc {
        kind: SGX535_DEVICE_MODEL,
        fd: -1,
        path: null(),
    };
    let mut run = Run {
        screen: sgx535_screen { id: 0 },
        ctx: sgx535_context { id: 0 },
        made: Vec::new(),
    };
    // SAFETY: valid pointers to locals.
    unsafe {
        assert_eq!(sgx535_screen_create(&desc, &mut run.screen), SGX535_OK);
        assert_eq!(sgx535_context_create(run.screen, &mut run.ctx), SGX535_OK);
    }
    run.made.push(run.ctx.id);
    for c in calls.iter().take(64) {
        run.call(c);
    }
    assert_eq!(sgx535_screen_destroy(run.screen), SGX535_OK);
    assert_eq!(live_handles(), start, "handles left after screen_destroy");
});
