//! Clears that need a draw, and blits: scissored clears and clear_render_target touch exactly
//! their rectangle; a scaled, format-converting blit gives the expected pixels; the
//! application's state is as it was.

mod common;

use common::*;
use sgx_blitter::BlitInfo;
use sgx_pipe::state::*;
use sgx_pipe::{bind, clear_flags, Format, PipeBox, ResourceTemplate};

fn rt(r: &Rig, format: Format, w: u32, h: u32) -> std::sync::Arc<sgx_pipe::Resource> {
    r.screen
        .resource_create(&ResourceTemplate::texture_2d(
            format,
            w,
            h,
            0,
            bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        ))
        .unwrap()
}

#[test]
fn a_scissored_clear_touches_exactly_its_rectangle() {
    let mut r = rig();
    let t = rt(&r, Format::B8G8R8A8_UNORM, 40, 24);
    let fb = FramebufferState::colour(Surface::new(&t, 0, 0), 40, 24);
    r.ctx.set_framebuffer_state(&fb).unwrap();
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 1.0, 1.0], 1.0, 0)
        .unwrap();
    let vp = ViewportState::rect(1.0, 2.0, 3.0, 4.0);
    r.ctx.set_viewport_state(&vp).unwrap();
    let sc = ScissorState {
        minx: 5,
        miny: 3,
        maxx: 23,
        maxy: 17,
    };
    r.blitter
        .clear_scissored(
            &mut r.ctx,
            clear_flags::COLOR0,
            &sc,
            [0.0, 1.0, 0.0, 1.0],
            1.0,
            0,
        )
        .unwrap();
    assert_eq!(r.ctx.viewport_state(), vp, "viewport restored");
    let px = r.ctx.read_level(&t, 0, 0).unwrap();
    for y in 0..24u32 {
        for x in 0..40u32 {
            let inside = (5..23).contains(&x) && (3..17).contains(&y);
            let want = if inside {
                [0, 255, 0, 255]
            } else {
                [255, 0, 0, 255]
            };
            assert_eq!(px[((y * 40 + x) * 4) as usize..][..4], want, "({x},{y})");
        }
    }
}

#[test]
fn clear_render_target_fills_a_rectangle_of_any_level() {
    let mut r = rig();
    let t = r
        .screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B5G6R5_UNORM,
            32,
            32,
            2,
            bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        ))
        .unwrap();
    let before1 = r.ctx.read_level(&t, 0, 0).unwrap();
    r.blitter
        .clear_render_target(&mut r.ctx, &t, 1, [1.0, 0.0, 0.0, 1.0], 2, 4, 9, 5)
        .unwrap();
    let px = r.ctx.read_level(&t, 1, 0).unwrap();
    for y in 0..16u32 {
        for x in 0..16u32 {
            let inside = (2..11).contains(&x) && (4..9).contains(&y);
            let v = u16::from_le_bytes([
                px[((y * 16 + x) * 2) as usize],
                px[((y * 16 + x) * 2 + 1) as usize],
            ]);
            assert_eq!(v, if inside { 0xF800 } else { 0 }, "({x},{y})");
        }
    }
    assert_eq!(
        r.ctx.read_level(&t, 0, 0).unwrap(),
        before1,
        "level 0 untouched"
    );
    assert!(r
        .blitter
        .clear_render_target(&mut r.ctx, &t, 1, [1.0; 4], 10, 10, 7, 1)
        .is_err());
}

#[test]
fn a_scaled_format_converting_blit() {
    let mut r = rig();
    // A 4x4 B8G8R8A8 source of four 2x2 colour blocks, blitted nearest and doubled into an
    // R8G8B8A8 8x8 destination.
    let src = rt(&r, Format::B8G8R8A8_UNORM, 4, 4);
    let colours: [[u8; 4]; 4] = [
        [0, 0, 255, 255],
        [0, 255, 0, 255],
        [255, 0, 0, 255],
        [255, 255, 255, 255],
    ];
    let mut data = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            data.extend_from_slice(&colours[(y / 2) * 2 + x / 2]);
        }
    }
    r.ctx
        .texture_subdata(&src, 0, 0, PipeBox::new(0, 0, 4, 4), &data, 16, 0)
        .unwrap();
    let dst = rt(&r, Format::R8G8B8A8_UNORM, 8, 8);
    r.blitter
        .blit(
            &mut r.ctx,
            &BlitInfo {
                dst: dst.clone(),
                dst_level: 0,
                dst_face: 0,
                dst_box: PipeBox::new(0, 0, 8, 8),
                src,
                src_level: 0,
                src_face: 0,
                src_box: PipeBox::new(0, 0, 4, 4),
                linear: false,
            },
        )
        .unwrap();
    let px = r.ctx.read_level(&dst, 0, 0).unwrap();
    for y in 0..8usize {
        for x in 0..8usize {
            let [b, g, rr, a] = colours[(y / 4) * 2 + x / 4];
            assert_eq!(px[(y * 8 + x) * 4..][..4], [rr, g, b, a], "({x},{y})");
        }
    }
}

/// Distinct bytes for `n` RGBA8 texels.
fn texels(n: usize, seed: u8) -> Vec<u8> {
    (0..n * 4)
        .map(|i| (i as u8).wrapping_mul(29).wrapping_add(seed))
        .collect()
}

/// A copy of `info`-style boxes on linear RGBA8 rows of `w` texels: what an unscaled nearest
/// blit writes, reading the whole source box first (a copy within one image may overlap).
#[allow(clippy::too_many_arguments)]
fn cpu_copy(
    dst: &mut [u8],
    src: &[u8],
    w: usize,
    sx: usize,
    sy: usize,
    dx: usize,
    dy: usize,
    bw: usize,
    bh: usize,
) {
    let rows: Vec<Vec<u8>> = (0..bh)
        .map(|y| src[((sy + y) * w + sx) * 4..][..bw * 4].to_vec())
        .collect();
    for (y, row) in rows.iter().enumerate() {
        dst[((dy + y) * w + dx) * 4..][..bw * 4].copy_from_slice(row);
    }
}

#[test]
fn an_overlapping_blit_within_one_level_reads_the_source_before_writing() {
    let mut r = rig();
    let tex = rt(&r, Format::R8G8B8A8_UNORM, 16, 16);
    let before = texels(16 * 16, 3);
    r.ctx
        .texture_subdata(&tex, 0, 0, PipeBox::new(0, 0, 16, 16), &before, 64, 0)
        .unwrap();
    let info = BlitInfo {
        dst: tex.clone(),
        dst_level: 0,
        dst_face: 0,
        dst_box: PipeBox::new(5, 3, 9, 7),
        src: tex.clone(),
        src_level: 0,
        src_face: 0,
        src_box: PipeBox::new(1, 1, 9, 7),
        linear: false,
    };
    r.blitter.blit(&mut r.ctx, &info).unwrap();
    let mut expected = before.clone();
    cpu_copy(&mut expected, &before, 16, 1, 1, 5, 3, 9, 7);
    assert_eq!(r.ctx.read_level(&tex, 0, 0).unwrap(), expected);
}

#[test]
fn a_blit_between_3d_slices_touches_only_the_destination_slice_box() {
    let mut r = rig();
    let tex = r
        .screen
        .resource_create(&ResourceTemplate::texture_3d(
            Format::R8G8B8A8_UNORM,
            8,
            8,
            3,
            0,
            bind::SAMPLER_VIEW | bind::RENDER_TARGET,
        ))
        .unwrap();
    let before = texels(8 * 8 * 3, 11);
    r.ctx
        .texture_subdata(
            &tex,
            0,
            0,
            PipeBox::new_3d(0, 0, 0, 8, 8, 3),
            &before,
            32,
            256,
        )
        .unwrap();
    // Slice 0's box (2,1) 5x4 into slice 2 at (0,3).
    let info = BlitInfo {
        dst: tex.clone(),
        dst_level: 0,
        dst_face: 0,
        dst_box: PipeBox::new_3d(0, 3, 2, 5, 4, 1),
        src: tex.clone(),
        src_level: 0,
        src_face: 0,
        src_box: PipeBox::new_3d(2, 1, 0, 5, 4, 1),
        linear: false,
    };
    r.blitter.blit(&mut r.ctx, &info).unwrap();
    let mut expected = before.clone();
    let (s0, s2) = (before[..256].to_vec(), &mut expected[512..]);
    cpu_copy(s2, &s0, 8, 2, 1, 0, 3, 5, 4);
    assert_eq!(r.ctx.read_level(&tex, 0, 0).unwrap(), expected);
}

/// An sRGB texture blitted through its UNORM twin (st/mesa's glGetTexImage of an sRGB
/// texture) copies its bytes undecoded, also when staged (a copy within one image); a
/// view in a format of other bytes is an invalid argument that draws nothing.
#[test]
fn a_blit_through_the_srgb_twin_view_copies_the_bytes_undecoded() {
    let mut r = rig();
    let src = rt(&r, Format::R8G8B8A8_SRGB, 16, 16);
    let dst = rt(&r, Format::R8G8B8A8_UNORM, 16, 16);
    let (sp, dp) = (texels(16 * 16, 5), texels(16 * 16, 6));
    let whole = PipeBox::new(0, 0, 16, 16);
    r.ctx
        .texture_subdata(&src, 0, 0, whole, &sp, 64, 0)
        .unwrap();
    r.ctx
        .texture_subdata(&dst, 0, 0, whole, &dp, 64, 0)
        .unwrap();
    let info = BlitInfo {
        dst: dst.clone(),
        dst_level: 0,
        dst_face: 0,
        dst_box: PipeBox::new(4, 2, 7, 9),
        src: src.clone(),
        src_level: 0,
        src_face: 0,
        src_box: PipeBox::new(1, 3, 7, 9),
        linear: false,
    };
    r.blitter
        .blit_src_view(&mut r.ctx, &info, Format::R8G8B8A8_UNORM)
        .unwrap();
    let mut expected = dp.clone();
    cpu_copy(&mut expected, &sp, 16, 1, 3, 4, 2, 7, 9);
    assert_eq!(r.ctx.read_level(&dst, 0, 0).unwrap(), expected);
    // The decoding view (the resource's own sRGB format) gives other bytes: the view counts.
    r.blitter.blit(&mut r.ctx, &info).unwrap();
    assert_ne!(r.ctx.read_level(&dst, 0, 0).unwrap(), expected);

    // Within one image (staged through a temporary), undecoded too.
    let within = BlitInfo {
        dst: src.clone(),
        dst_box: PipeBox::new(6, 5, 7, 9),
        ..info.clone()
    };
    r.blitter
        .blit_src_view(&mut r.ctx, &within, Format::R8G8B8A8_UNORM)
        .unwrap();
    let mut expected = sp.clone();
    cpu_copy(&mut expected, &sp, 16, 1, 3, 6, 5, 7, 9);
    assert_eq!(r.ctx.read_level(&src, 0, 0).unwrap(), expected);

    let before = r.ctx.read_level(&dst, 0, 0).unwrap();
    let e = r
        .blitter
        .blit_src_view(&mut r.ctx, &info, Format::B8G8R8A8_UNORM)
        .unwrap_err();
    assert!(
        matches!(e, sgx_blitter::BlitError::InvalidArgument(_)),
        "{e}"
    );
    r.ctx.flush().unwrap();
    assert_eq!(r.ctx.read_level(&dst, 0, 0).unwrap(), before);
}
