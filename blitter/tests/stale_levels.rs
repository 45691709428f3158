//! Which levels a generation marks fresh or stale: only the generated window `base+1..=last`
//! is cleared on success (the base level and those below keep what they had), on both routes;
//! a failed pass of a private chain leaves every generated level stale, not only those from the
//! failed pass on. Each pass samples the level just above the one it writes.

mod common;

use std::sync::Arc;

use common::*;
use sgx_blitter::{BlitError, Route};
use sgx_pipe::{bind, Format, PipeBox, ResourceTemplate};
use sgx_winsys::replay::{self, Fixture};

fn mask(from: u32, to: u32) -> u32 {
    (from..=to).fold(0, |m, l| m | 1 << l)
}

/// The largest texture side (hwdocs limits) and its last level.
fn largest() -> (u32, u32) {
    (
        sgx_hwdocs::limits::MAX_TEXTURE_PX as u32,
        sgx_hwdocs::limits::MAX_TEXTURE_LEVELS as u32 - 1,
    )
}

#[test]
fn a_gpu_window_from_a_middle_level_clears_only_the_levels_it_generates() {
    // The seed's qualified window: base level 2 of an existing 2048 chain.
    let (max_px, last) = largest();
    let mut r = rig();
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, max_px);
    tex.mark_stale(mask(0, last));
    let rep = r
        .blitter
        .generate_mipmap(&mut r.ctx, &tex, 2, last)
        .unwrap();
    assert_eq!(rep.route, Route::Gpu);
    let pairs: Vec<(u32, u32)> = rep.passes.iter().map(|p| (p.level, p.src_level)).collect();
    let expected: Vec<(u32, u32)> = (3..=last).map(|l| (l, l - 1)).collect();
    assert_eq!(pairs, expected);
    r.blitter
        .wait_mipmap(&tex, &rep, sgx_pipe::DEFAULT_TIMEOUT)
        .unwrap();
    assert_eq!(
        tex.stale_levels(),
        mask(0, 2),
        "levels 0..=2 were not generated"
    );
}

#[test]
fn a_cpu_window_from_a_middle_level_clears_only_the_levels_it_generates() {
    let mut r = rig();
    // A volume chain: the GPU route refuses it.
    let tex = r
        .screen
        .resource_create(&ResourceTemplate::texture_3d(
            Format::B8G8R8A8_UNORM,
            16,
            16,
            16,
            4,
            bind::SAMPLER_VIEW,
        ))
        .unwrap();
    let bytes: Vec<u8> = (0..16 * 16 * 16 * 4)
        .map(|i| (i * 13 % 251) as u8)
        .collect();
    r.ctx
        .texture_subdata(
            &tex,
            0,
            0,
            PipeBox::new_3d(0, 0, 0, 16, 16, 16),
            &bytes,
            64,
            1024,
        )
        .unwrap();
    tex.mark_stale(mask(0, 4));
    let rep = r.blitter.generate_mipmap(&mut r.ctx, &tex, 1, 4).unwrap();
    assert!(matches!(rep.route, Route::Cpu { .. }), "{:?}", rep.route);
    assert_eq!(
        tex.stale_levels(),
        mask(0, 1),
        "levels 0 and 1 were not generated"
    );
}

#[test]
fn a_failed_pass_of_a_private_chain_leaves_every_generated_level_stale() {
    let (max_px, last) = largest();
    // A refused submission fails synchronously, before a later pass (a GPU fault may surface
    // only when the passes are waited for, after the chain was adopted).
    let fixture = r#"{"inject":[{"what":"refuse_submission","submission":2,"errno":"EINVAL"}]}"#;
    let dev = Arc::new(replay::with_fixture(Fixture::from_json(fixture, "test").unwrap()).unwrap());
    let mut r = rig_on(dev);
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, max_px);
    let err = r
        .blitter
        .generate_mipmap(&mut r.ctx, &tex, 0, last)
        .unwrap_err();
    match err {
        // Stopped before a later pass: the private chain is not adopted, so every level of
        // the resource's own chain is stale.
        BlitError::Stopped {
            level, first_stale, ..
        } => assert_eq!((level, first_stale), (3, 1)),
        e => panic!("{e:?}"),
    }
    assert_eq!(tex.stale_levels() & mask(1, last), mask(1, last));
}
