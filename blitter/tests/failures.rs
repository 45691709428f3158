//! Refusal and failure: an injected failure at every pass index stops the generation, keeps
//! the fences already issued and the resource's storage, runs no CPU fallback, and leaves the
//! levels not generated marked for regeneration. A failed private allocation is a refusal.

mod common;

use std::sync::Arc;

use common::*;

/// The largest texture side (hwdocs limits) and its last level.
const MAX_PX: u32 = sgx_hwdocs::limits::MAX_TEXTURE_PX as u32;
const MAX_PX_LAST: u32 = sgx_hwdocs::limits::MAX_TEXTURE_LEVELS as u32 - 1;
use sgx_blitter::{pattern, BlitError, Route};
use sgx_pipe::Format;
use sgx_winsys::replay::{self, Fixture};
use sgx_winsys::Device;

fn fixture(json: &str) -> Arc<dyn Device> {
    Arc::new(replay::with_fixture(Fixture::from_json(json, "test").unwrap()).unwrap())
}

fn stale_mask(from: u32, to: u32) -> u32 {
    (from..=to).fold(0, |m, l| m | 1 << l)
}

#[test]
fn a_refused_submission_at_each_pass_stops_without_fallback() {
    for pass in 0..6u64 {
        for errno in ["EINVAL", "ENOSPC", "EBUSY"] {
            let dev = fixture(&format!(
                r#"{{"inject":[{{"what":"refuse_submission","submission":{pass},"errno":"{errno}"}}]}}"#
            ));
            let mut r = rig_on(dev);
            let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, 64);
            let bo = tex.bo().id();
            let expected = pattern::expected_chain(&pattern::level0(64), 64).unwrap();
            let vs_before = r.ctx.vs_state().map(|s| s.id);
            let err = r
                .blitter
                .generate_mipmap(&mut r.ctx, &tex, 0, 6)
                .unwrap_err();
            let level = pass as u32 + 1;
            match &err {
                BlitError::Stopped {
                    level: l,
                    first_stale,
                    ..
                } => {
                    assert_eq!((*l, *first_stale), (level, level), "pass {pass} {errno}");
                }
                e => panic!("pass {pass}: {e:?}"),
            }
            assert!(err.to_string().contains(errno), "{err}");
            assert_eq!(tex.bo().id(), bo, "storage unchanged");
            assert_eq!(tex.stale_levels(), stale_mask(level, 6));
            assert_eq!(r.ctx.vs_state().map(|s| s.id), vs_before, "state restored");
            // The passes before the refusal completed; nothing after them ran; no CPU fallback.
            let trace = r.dev.trace();
            let accepted = trace.entries.iter().filter(|e| e.fence.is_some()).count();
            assert_eq!(accepted as u64, pass, "pass {pass}");
            r.dev.wait_idle(sgx_pipe::DEFAULT_TIMEOUT).unwrap();
            let got = read_all(&mut r, &tex);
            for l in 1..=6u32 {
                if l < level {
                    assert_eq!(got[l as usize], expected[l as usize], "generated level {l}");
                } else {
                    assert!(
                        got[l as usize].iter().all(|&b| b == 0),
                        "pass {pass}: level {l} untouched"
                    );
                }
            }
        }
    }
}

#[test]
fn a_gpu_fault_at_each_pass_stops_at_that_level() {
    for pass in 0..6u64 {
        let dev = fixture(&format!(
            r#"{{"inject":[{{"what":"fault_job","job":{pass},"unit":"pbe","addr":"0x30001000"}}]}}"#
        ));
        let mut r = rig_on(dev);
        let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, 64);
        let level = pass as u32 + 1;
        // The fault surfaces on the pass's fence: either before a later pass is submitted
        // (generate_mipmap stops) or when the passes are waited for.
        let err = match r.blitter.generate_mipmap(&mut r.ctx, &tex, 0, 6) {
            Err(e) => e,
            Ok(rep) => {
                assert_eq!(rep.route, Route::Gpu);
                r.blitter
                    .wait_mipmap(&tex, &rep, sgx_pipe::DEFAULT_TIMEOUT)
                    .unwrap_err()
            }
        };
        match &err {
            BlitError::Stopped {
                level: l,
                first_stale,
                ..
            } => assert_eq!((*l, *first_stale), (level, level)),
            e => panic!("pass {pass}: {e:?}"),
        }
        assert!(err.to_string().contains("0x30001000"), "{err}");
        assert_eq!(
            tex.stale_levels() & stale_mask(level, 6),
            stale_mask(level, 6)
        );
    }
}

#[test]
fn a_failed_private_allocation_is_a_refusal_with_the_cpu_result() {
    // Allocation 0 is the texture itself; the private chain is allocation 1.
    let dev = fixture(r#"{"inject":[{"what":"fail_allocation","allocation":1}]}"#);
    let mut r = rig_on(dev);
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, MAX_PX);
    let expected = pattern::expected_chain(&pattern::level0(MAX_PX), MAX_PX).unwrap();
    let rep = r
        .blitter
        .generate_mipmap(&mut r.ctx, &tex, 0, MAX_PX_LAST)
        .unwrap();
    match &rep.route {
        Route::Cpu { reason } => assert!(reason.contains("private chain"), "{reason}"),
        r => panic!("{r:?}"),
    }
    assert!(r.dev.trace().entries.is_empty(), "nothing submitted");
    let got = read_all(&mut r, &tex);
    for l in [1usize, 5, MAX_PX_LAST as usize] {
        assert_eq!(got[l], expected[l], "level {l}");
    }
}

/// A blit is submitted when the application's framebuffer comes back: a refusal of that
/// submission is the blit's error, not lost in the state restore, and the application's
/// (empty) framebuffer is bound again all the same.
#[test]
fn a_refused_blit_submission_is_returned_by_the_blit() {
    let dev =
        fixture(r#"{"inject":[{"what":"refuse_submission","submission":0,"errno":"ENOSPC"}]}"#);
    let mut r = rig_on(dev);
    let src = patterned(&mut r, Format::B8G8R8A8_UNORM, 64);
    let dst = patterned(&mut r, Format::B8G8R8A8_UNORM, 32);
    let info = sgx_blitter::BlitInfo {
        dst: dst.clone(),
        dst_level: 0,
        dst_face: 0,
        dst_box: sgx_pipe::PipeBox::new(0, 0, 32, 32),
        src,
        src_level: 0,
        src_face: 0,
        src_box: sgx_pipe::PipeBox::new(0, 0, 64, 64),
        linear: true,
    };
    let err = r.blitter.blit(&mut r.ctx, &info).unwrap_err();
    assert!(err.to_string().contains("ENOSPC"), "{err}");
    assert_eq!(
        r.ctx.framebuffer_state(),
        sgx_pipe::state::FramebufferState::default()
    );
}
