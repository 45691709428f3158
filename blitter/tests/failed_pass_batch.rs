//! An allocation that fails inside a generation pass leaves no half-recorded batch behind: the
//! pass had already bound its level as the target and declared its contents unneeded, and that
//! record must not reach the GPU when the application's framebuffer is rebound (it would store
//! the background over the level), nor at the application's next flush.

mod common;

use std::sync::Arc;

use common::*;
use sgx_blitter::{pattern, BlitError};
use sgx_pipe::state::{FramebufferState, Surface, ViewportState};
use sgx_pipe::{bind, clear_flags, Format, PipeBox, ResourceTemplate};
use sgx_winsys::replay::{self, Fixture};
use sgx_winsys::{Device, SimDevice, TraceResult};

const SIZE_PX: u32 = 64;
const LAST: u32 = 6;
const APP_RT_PX: u32 = 16;
const APP_VIEWPORT: ViewportState = ViewportState {
    scale: [8.0, 8.0, 0.5],
    translate: [8.0, 8.0, 0.5],
};

/// A replay device failing allocation `fail` (None: a clean one).
fn device(fail: Option<u64>) -> Arc<SimDevice> {
    let inject = fail.map_or(String::new(), |n| {
        format!(r#"{{"what":"fail_allocation","allocation":{n}}}"#)
    });
    let json = format!(r#"{{"inject":[{inject}]}}"#);
    Arc::new(replay::with_fixture(Fixture::from_json(&json, "test").unwrap()).unwrap())
}

/// Bytes a level holds before generation: not zero, so a stray store of the (zero)
/// background over it shows.
fn before_bytes(level: u32) -> Vec<u8> {
    let side = (SIZE_PX >> level) as usize;
    (0..side * side * 4)
        .map(|i| 0x80 | (i as u8 ^ level as u8))
        .collect()
}

struct Run {
    rig: Rig,
    tex: Arc<sgx_pipe::Resource>,
    app_fb: FramebufferState,
    app_rt: Arc<sgx_pipe::Resource>,
}

/// The texture with level 0 patterned and every other level holding `before_bytes`, and the
/// application's own render target bound with its viewport.
fn set_up(dev: Arc<dyn Device>) -> Run {
    let mut rig = rig_on(dev);
    let tex = patterned(&mut rig, Format::B8G8R8A8_UNORM, SIZE_PX);
    for l in 1..=LAST {
        let side = SIZE_PX >> l;
        rig.ctx
            .texture_subdata(
                &tex,
                l,
                0,
                PipeBox::new(0, 0, side, side),
                &before_bytes(l),
                side as usize * 4,
                0,
            )
            .unwrap();
    }
    let app_rt = rig
        .screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            APP_RT_PX,
            APP_RT_PX,
            0,
            bind::RENDER_TARGET,
        ))
        .unwrap();
    let app_fb = FramebufferState::colour(Surface::new(&app_rt, 0, 0), APP_RT_PX, APP_RT_PX);
    rig.ctx.set_framebuffer_state(&app_fb).unwrap();
    rig.ctx.set_viewport_state(&APP_VIEWPORT).unwrap();
    Run {
        rig,
        tex,
        app_fb,
        app_rt,
    }
}

#[test]
fn an_allocation_failing_inside_a_pass_leaves_no_partial_batch() {
    // Which allocations generate_mipmap makes, counted on a clean device.
    let clean = device(None);
    let mut run = set_up(clean.clone());
    let first = clean.allocations();
    run.rig
        .blitter
        .generate_mipmap(&mut run.rig.ctx, &run.tex, 0, LAST)
        .unwrap();
    let end = clean.allocations();
    assert!(end > first + 1, "the passes allocate ({first}..{end})");
    let expected = pattern::expected_chain(&pattern::level0(SIZE_PX), SIZE_PX).unwrap();

    for fail in first..end {
        let sim = device(Some(fail));
        let dev: Arc<dyn Device> = sim.clone();
        let mut run = set_up(dev.clone());
        assert_eq!(sim.allocations(), first, "the same set-up");
        let vs_before = run.rig.ctx.vs_state().map(|s| s.id);
        let subs_before = dev.trace().totals.submissions;

        let err = run
            .rig
            .blitter
            .generate_mipmap(&mut run.rig.ctx, &run.tex, 0, LAST)
            .unwrap_err();
        let BlitError::Stopped { level, .. } = err else {
            panic!("allocation {fail}: {err:?}");
        };
        assert!(
            err.to_string().to_lowercase().contains("memory"),
            "allocation {fail}: {err}"
        );

        // The application's state is back.
        assert_eq!(
            run.rig.ctx.framebuffer_state(),
            run.app_fb,
            "allocation {fail}"
        );
        assert_eq!(run.rig.ctx.viewport_state(), APP_VIEWPORT);
        assert_eq!(run.rig.ctx.vs_state().map(|s| s.id), vs_before);

        // Only whole passes reached the GPU: one per level before the failed one, each done.
        let passes = (level - 1) as usize;
        dev.wait_idle(sgx_pipe::DEFAULT_TIMEOUT).unwrap();
        let trace = dev.trace();
        let during: Vec<_> = trace
            .entries
            .iter()
            .filter(|e| e.submission >= subs_before)
            .collect();
        assert_eq!(
            during.len(),
            passes,
            "allocation {fail} (failed pass for level {level}): submissions {:#?}",
            during
        );
        assert!(during.iter().all(|e| e.result == TraceResult::Done));

        // The next flush submits nothing: no stale record is waiting.
        run.rig.ctx.flush().unwrap();
        assert_eq!(dev.trace().totals.submissions, subs_before + passes as u64);

        // Levels: generated before the failure, untouched from it on.
        let got = read_all(&mut run.rig, &run.tex);
        for l in 1..=LAST {
            if l < level {
                assert_eq!(
                    got[l as usize], expected[l as usize],
                    "alloc {fail} level {l}"
                );
            } else {
                assert!(
                    got[l as usize] == before_bytes(l),
                    "allocation {fail}: level {l} changed after the failed pass"
                );
            }
        }

        // The application's own work goes where it was bound, in one submission.
        run.rig
            .ctx
            .clear(clear_flags::COLOR0, [1.0, 0.0, 0.0, 1.0], 1.0, 0)
            .unwrap();
        run.rig
            .ctx
            .flush()
            .unwrap()
            .unwrap()
            .wait(sgx_pipe::DEFAULT_TIMEOUT)
            .unwrap();
        let trace = dev.trace();
        let last = trace.entries.last().unwrap();
        assert_eq!(last.submission, subs_before + passes as u64);
        let rt_bo = run.app_rt.bo().id();
        let tex_bo = run.tex.bo().id();
        assert!(last.bos.iter().any(|b| b.bo == rt_bo));
        assert!(last.bos.iter().all(|b| b.bo != tex_bo));
        let px = run.rig.ctx.read_level(&run.app_rt, 0, 0).unwrap();
        assert!(px.chunks(4).all(|p| p == [0, 0, 255, 255]), "red in BGRA");
    }
}
