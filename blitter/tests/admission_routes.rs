//! Every admitted size and window on the GPU route with exact pixels; the largest texture's
//! (2048x2048) private chain;
//! windows leaving the levels outside them byte-identical; refusals giving the CPU result.

mod common;

use common::*;

/// The largest texture side (hwdocs limits) and its last level.
const MAX_PX: u32 = sgx_hwdocs::limits::MAX_TEXTURE_PX as u32;
const MAX_PX_LAST: u32 = sgx_hwdocs::limits::MAX_TEXTURE_LEVELS as u32 - 1;
use sgx_blitter::{pattern, Route};
use sgx_pipe::{Format, PipeBox};

#[test]
fn every_admitted_size_generates_on_the_gpu_with_exact_pixels() {
    for size in [32u32, 64, 128, 256, 512] {
        let mut r = rig();
        let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, size);
        let expected = pattern::expected_chain(&pattern::level0(size), size).unwrap();
        let last = levels_of(size) - 1;
        let rep = r
            .blitter
            .generate_mipmap(&mut r.ctx, &tex, 0, last)
            .unwrap();
        r.blitter
            .wait_mipmap(&tex, &rep, sgx_pipe::DEFAULT_TIMEOUT)
            .unwrap();
        assert_eq!(rep.route, Route::Gpu, "{size}");
        assert_eq!(rep.passes.len() as u32, last, "{size}: one pass per level");
        assert!(!rep.private_chain);
        let got = read_all(&mut r, &tex);
        for l in 0..=last as usize {
            assert_eq!(got[l], expected[l], "{size} level {l}");
        }
        assert_eq!(tex.stale_levels(), 0);
    }
}

#[test]
fn a_2048_source_generates_into_a_private_chain_the_resource_adopts() {
    let mut r = rig();
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, MAX_PX);
    let old_bo = tex.bo().id();
    let expected = pattern::expected_chain(&pattern::level0(MAX_PX), MAX_PX).unwrap();
    let rep = r
        .blitter
        .generate_mipmap(&mut r.ctx, &tex, 0, MAX_PX_LAST)
        .unwrap();
    r.blitter
        .wait_mipmap(&tex, &rep, sgx_pipe::DEFAULT_TIMEOUT)
        .unwrap();
    assert_eq!(rep.route, Route::Gpu);
    assert!(rep.private_chain);
    assert_eq!(rep.passes.len(), MAX_PX_LAST as usize);
    assert_eq!(
        rep.passes[0].level, 1,
        "the largest generated destination is level 1, 1024x1024"
    );
    assert_ne!(tex.bo().id(), old_bo, "storage adopted");
    let got = read_all(&mut r, &tex);
    for l in 0..=MAX_PX_LAST as usize {
        assert_eq!(got[l], expected[l], "level {l}");
    }
}

#[test]
fn windows_of_a_2048_chain_leave_the_other_levels_as_they_were() {
    for (base, last) in [(2u32, MAX_PX_LAST), (4, MAX_PX_LAST), (2, 6), (4, 9)] {
        let mut r = rig();
        let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, MAX_PX);
        let expected = pattern::expected_chain(&pattern::level0(MAX_PX), MAX_PX).unwrap();
        // Levels 1..=base hold the expected chain (the window samples them); the rest holds
        // a marker the window must overwrite (inside) or keep (outside).
        for l in 1..=MAX_PX_LAST {
            let s = MAX_PX >> l;
            let data: Vec<u8> = if l <= base {
                expected[l as usize].clone()
            } else {
                vec![0xA5; (s * s * 4) as usize]
            };
            r.ctx
                .texture_subdata(
                    &tex,
                    l,
                    0,
                    PipeBox::new(0, 0, s, s),
                    &data,
                    s as usize * 4,
                    0,
                )
                .unwrap();
        }
        let before = raw(&tex);
        let layout = tex.layout().unwrap();
        let window = layout.window(base + 1, last).unwrap();
        let rep = r
            .blitter
            .generate_mipmap(&mut r.ctx, &tex, base, last)
            .unwrap();
        r.blitter
            .wait_mipmap(&tex, &rep, sgx_pipe::DEFAULT_TIMEOUT)
            .unwrap();
        assert_eq!(rep.route, Route::Gpu, "window {base}..={last}");
        assert!(!rep.private_chain);
        let after = raw(&tex);
        assert_eq!(before.len(), after.len());
        let outside_changed = (0..after.len())
            .filter(|&i| !window.contains_B(i as u64) && before[i] != after[i])
            .count();
        assert_eq!(
            outside_changed, 0,
            "window {base}..={last}: bytes outside it changed"
        );
        let got = read_all(&mut r, &tex);
        for l in base + 1..=last {
            assert_eq!(
                got[l as usize], expected[l as usize],
                "window {base}..={last} level {l}"
            );
        }
    }
}

#[test]
fn refused_requests_fall_back_to_the_cpu_with_the_same_pixels() {
    // A format outside the table, a size outside it, and a window outside it.
    for (format, size, base) in [
        (Format::B5G6R5_UNORM, 64u32, 0u32),
        (Format::B4G4R4A4_UNORM, 64, 0),
        (Format::B8G8R8A8_UNORM, 16, 0),
        (Format::B8G8R8A8_UNORM, 1024, 0),
        (Format::B8G8R8A8_UNORM, 64, 1),
    ] {
        let mut r = rig();
        let tex = patterned(&mut r, format, size);
        let last = levels_of(size) - 1;
        // The CPU reference over a copy of the same allocation.
        let mut want = raw(&tex);
        sgx_layout::mipgen::generate_mipmaps(&tex.layout().unwrap(), &mut want, base, last)
            .unwrap();
        let rep = r
            .blitter
            .generate_mipmap(&mut r.ctx, &tex, base, last)
            .unwrap();
        assert!(
            matches!(rep.route, Route::Cpu { .. }),
            "{format:?} {size} {base}"
        );
        assert!(rep.passes.is_empty());
        assert!(
            r.dev.trace().entries.is_empty(),
            "no submission on a refusal"
        );
        assert_eq!(raw(&tex), want, "{format:?} {size} base {base}");
    }
}

#[test]
fn bad_level_ranges_are_errors() {
    let mut r = rig();
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, 32);
    assert!(matches!(
        r.blitter.generate_mipmap(&mut r.ctx, &tex, 0, 6),
        Err(sgx_blitter::BlitError::InvalidArgument(_))
    ));
    assert!(matches!(
        r.blitter.generate_mipmap(&mut r.ctx, &tex, 3, 2),
        Err(sgx_blitter::BlitError::InvalidArgument(_))
    ));
    let rep = r.blitter.generate_mipmap(&mut r.ctx, &tex, 2, 2).unwrap();
    assert!(rep.passes.is_empty());
}

#[test]
fn an_empty_window_submits_nothing_and_names_the_route_admission_chose() {
    let mut r = rig();
    let tex = patterned(&mut r, Format::B8G8R8A8_UNORM, 64);
    let before = r.dev.trace().entries.len();
    // 64 from base 0 is admitted; from base 3 it is not.
    let rep = r.blitter.generate_mipmap(&mut r.ctx, &tex, 0, 0).unwrap();
    assert_eq!(rep.route, Route::Gpu);
    let rep = r.blitter.generate_mipmap(&mut r.ctx, &tex, 3, 3).unwrap();
    assert!(
        matches!(&rep.route, Route::Cpu { reason } if reason.contains("base level 3")),
        "{:?}",
        rep.route
    );
    assert!(rep.passes.is_empty());
    assert_eq!(r.dev.trace().entries.len(), before, "no job ran");
}
