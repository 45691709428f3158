//! 3D textures through the pipe: creation, boxes in and out, copies, rendering into a
//! slice and sampling (mip generation, the blitter's, is tested in blitter/tests/cpu_route.rs).
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const WAIT: std::time::Duration = std::time::Duration::from_secs(10);

fn volume(r: &Rig, w: u32, h: u32, d: u32, last_level: u32, bind: u32) -> Arc<Resource> {
    r.screen
        .resource_create(&ResourceTemplate::texture_3d(
            Format::B8G8R8A8_UNORM,
            w,
            h,
            d,
            last_level,
            bind,
        ))
        .unwrap()
}

/// Distinct bytes for `n` texels, seeded.
fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n * 4)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

#[test]
fn a_box_written_into_a_level_reads_back_and_nothing_else_changes() {
    let mut r = rig();
    // Power-of-two sides (twiddled slices) with an odd depth, and an NPOT one (linear).
    for (w, h, d) in [(8, 4, 5), (6, 3, 4)] {
        let tex = volume(&r, w, h, d, 1, bind::SAMPLER_VIEW);
        let before = bytes((w * h * d) as usize, 1);
        r.ctx
            .texture_subdata(
                &tex,
                0,
                0,
                PipeBox::new_3d(0, 0, 0, w, h, d),
                &before,
                (w * 4) as usize,
                (w * h * 4) as usize,
            )
            .unwrap();
        assert_eq!(r.ctx.read_level(&tex, 0, 0).unwrap(), before);
        // A box at an odd corner, its rows padded to 32 bytes in the source and its slices
        // one row further apart than the box is high (GL_UNPACK_IMAGE_HEIGHT).
        let (bx, by, bz, bw, bh, bd) = (1, 1, 1, 3, 2, 3);
        let stride = 32usize;
        let layer = stride * (bh as usize + 1);
        let src = bytes(layer / 4 * bd as usize, 99);
        r.ctx
            .texture_subdata(
                &tex,
                0,
                0,
                PipeBox::new_3d(bx, by, bz, bw, bh, bd),
                &src,
                stride,
                layer,
            )
            .unwrap();
        let after = r.ctx.read_level(&tex, 0, 0).unwrap();
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let at = (((z * h + y) * w + x) * 4) as usize;
                    let inside = (bx..bx + bw).contains(&x)
                        && (by..by + bh).contains(&y)
                        && (bz..bz + bd).contains(&z);
                    let want = if inside {
                        let s = (z - bz) as usize * layer
                            + (y - by) as usize * stride
                            + ((x - bx) * 4) as usize;
                        &src[s..s + 4]
                    } else {
                        &before[at..at + 4]
                    };
                    assert_eq!(&after[at..at + 4], want, "{w}x{h}x{d} ({x},{y},{z})");
                }
            }
        }
        // Level 1 is (w/2)x(h/2)x(d/2) and separate.
        let l1 = r.ctx.read_level(&tex, 1, 0).unwrap();
        assert_eq!(
            l1.len(),
            ((w / 2).max(1) * (h / 2).max(1) * (d / 2).max(1) * 4) as usize
        );
        assert!(l1.iter().all(|&b| b == 0));
    }
}

#[test]
fn slices_written_one_at_a_time_change_only_their_own_bytes() {
    // Mesa uploads a 3D image one slice per map: each write-back must touch that slice's
    // bytes alone (row padding of a stride level included), not the whole level.
    let mut r = rig();
    for (w, h, d) in [(8, 8, 4), (6, 3, 3)] {
        let tex = volume(&r, w, h, d, 0, bind::SAMPLER_VIEW);
        let bo = tex.bo();
        // Every byte of the allocation (padding too) set, so a stray zero shows.
        let len_B = bo.size_B() as usize;
        bo.write(0, &vec![0xA5; len_B], WAIT).unwrap();
        let slice_px = (w * h) as usize;
        let mut want_level = vec![0xA5; slice_px * 4 * d as usize];
        for z in [2, 0] {
            let before = bo.read_all(WAIT).unwrap();
            let src = bytes(slice_px, z as u8 * 50 + 3);
            r.ctx
                .texture_subdata(
                    &tex,
                    0,
                    0,
                    PipeBox::new_3d(0, 0, z, w, h, 1),
                    &src,
                    (w * 4) as usize,
                    0,
                )
                .unwrap();
            let after = bo.read_all(WAIT).unwrap();
            let l = tex.layout().unwrap();
            let slice = l.slice_range_B(0, 0, z).unwrap();
            let (s0, s1) = (slice.start as usize, slice.end as usize);
            assert_eq!(after[..s0], before[..s0], "{w}x{h}x{d} before slice {z}");
            assert_eq!(after[s1..], before[s1..], "{w}x{h}x{d} after slice {z}");
            // A stride level's row ends are not texels: the write keeps them.
            let stride_B = l.level(0).unwrap().stride_B as usize;
            if stride_B > (w * 4) as usize {
                for y in 0..h as usize {
                    let row = s0 + y * stride_B;
                    let pad = &after[row + (w * 4) as usize..row + stride_B];
                    assert!(pad.iter().all(|&b| b == 0xA5), "{w}x{h} row {y} padding");
                }
            }
            let at = slice_px * 4 * z as usize;
            want_level[at..at + slice_px * 4].copy_from_slice(&src);
        }
        assert_eq!(r.ctx.read_level(&tex, 0, 0).unwrap(), want_level);
    }
}

#[test]
fn boxes_outside_the_level_or_slices_of_a_2d_texture_are_refused() {
    let mut r = rig();
    let tex = volume(&r, 4, 4, 4, 2, bind::SAMPLER_VIEW);
    let data = vec![0u8; 4 * 4 * 4 * 4];
    let bad = [
        (0, PipeBox::new_3d(0, 0, 3, 4, 4, 2)),
        (0, PipeBox::new_3d(0, 0, 0, 4, 4, 0)),
        (1, PipeBox::new_3d(0, 0, 0, 2, 2, 3)),
        (2, PipeBox::new_3d(0, 0, 1, 1, 1, 1)),
    ];
    for (level, b) in bad {
        let e = r.ctx.texture_subdata(&tex, level, 0, b, &data, 16, 64);
        assert!(
            matches!(e, Err(PipeError::InvalidArgument(_))),
            "{level} {b:?}"
        );
    }
    // Strides that overflow, or slices closer than a slice is long, are refused, not a panic.
    let whole = PipeBox::new_3d(0, 0, 0, 4, 4, 4);
    for (stride, layer) in [(usize::MAX, 64), (16, usize::MAX), (16, 48)] {
        let e = r
            .ctx
            .texture_subdata(&tex, 0, 0, whole, &data, stride, layer);
        assert!(
            matches!(e, Err(PipeError::InvalidArgument(_))),
            "{stride} {layer}"
        );
    }
    // A buffer copy has no levels, faces, rows or slices.
    let buf = r
        .screen
        .resource_create(&ResourceTemplate::buffer(64, bind::VERTEX_BUFFER))
        .unwrap();
    let e = r
        .ctx
        .resource_copy_region(&buf, 0, 0, 0, 0, 1, &buf, 0, 0, PipeBox::new(0, 0, 4, 1));
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))));
    let flat = target(&r, Format::B8G8R8A8_UNORM, 4, 4);
    let e = r
        .ctx
        .texture_subdata(&flat, 0, 0, PipeBox::new_3d(0, 0, 0, 4, 4, 2), &data, 16, 0);
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))));
    // Depth on a 2D template, and a 3D depth-format texture, are refused at creation.
    let mut t = ResourceTemplate::texture_2d(Format::B8G8R8A8_UNORM, 4, 4, 0, bind::SAMPLER_VIEW);
    t.depth = 2;
    assert!(r.screen.resource_create(&t).is_err());
    let z3 = ResourceTemplate::texture_3d(Format::Z16_UNORM, 4, 4, 4, 0, bind::SAMPLER_VIEW);
    assert!(matches!(
        r.screen.resource_create(&z3),
        Err(PipeError::UnsupportedFormat { .. })
    ));
}

#[test]
fn copy_region_moves_a_box_between_slices() {
    let mut r = rig();
    let a = volume(&r, 4, 4, 4, 0, bind::SAMPLER_VIEW);
    let b = volume(&r, 4, 4, 4, 0, bind::SAMPLER_VIEW);
    let src = bytes(64, 7);
    r.ctx
        .texture_subdata(&a, 0, 0, PipeBox::new_3d(0, 0, 0, 4, 4, 4), &src, 16, 64)
        .unwrap();
    // Slices 0..2, rows 1..3, columns 2..4 of `a` land at (0, 0, 2) of `b`.
    r.ctx
        .resource_copy_region(
            &b,
            0,
            0,
            0,
            0,
            2,
            &a,
            0,
            0,
            PipeBox::new_3d(2, 1, 0, 2, 2, 2),
        )
        .unwrap();
    let got = r.ctx.read_level(&b, 0, 0).unwrap();
    for z in 0..4u32 {
        for y in 0..4u32 {
            for x in 0..4u32 {
                let at = (((z * 4 + y) * 4 + x) * 4) as usize;
                let want = if z >= 2 && y < 2 && x < 2 {
                    let s = ((((z - 2) * 4 + y + 1) * 4 + x + 2) * 4) as usize;
                    src[s..s + 4].to_vec()
                } else {
                    vec![0; 4]
                };
                assert_eq!(got[at..at + 4], want[..], "({x},{y},{z})");
            }
        }
    }
}

#[test]
fn drawing_into_a_slice_changes_that_slice_only() {
    let mut r = rig();
    let tex = volume(&r, 16, 16, 4, 0, bind::SAMPLER_VIEW | bind::RENDER_TARGET);
    let fbs = FramebufferState::colour(Surface::new(&tex, 0, 2), 16, 16);
    bind_const(&mut r, &fbs);
    set_colour(&mut r, [1.0, 0.0, 0.0, 1.0]);
    rect(&mut r, 0, 0, 16, 16, 0.0);
    let got = r.ctx.read_level(&tex, 0, 0).unwrap();
    let slice_B = 16 * 16 * 4;
    for (z, s) in got.chunks(slice_B).enumerate() {
        let want: &[u8] = if z == 2 { &[0, 0, 255, 255] } else { &[0; 4] };
        assert!(s.chunks(4).all(|p| p == want), "slice {z}");
    }
    let mut bad = fbs.clone();
    bad.cbuf.as_mut().unwrap().face = 4;
    assert!(r.ctx.set_framebuffer_state(&bad).is_err());
}

/// Draws a 4x4 quad sampling `tex` (NEAREST) at s, t across the texture and r fixed.
fn sample_at_r(r: &mut Rig, tex: &Arc<Resource>, rr: f32, wrap_r: AddrMode) -> Vec<u8> {
    let sampler = SamplerState {
        wrap_r,
        ..Default::default()
    };
    let tc = corners(0.0, 0.0, 1.0, 1.0, rr, 1.0);
    let fs = fs_sample("TEX", "3D");
    draw_sampled(r, (4, 4), &fs, SamplerView::new(tex), sampler, tc).unwrap()
}

#[test]
fn sampling_a_volume_reads_the_slice_at_r() {
    let mut r = rig();
    let tex = volume(&r, 4, 4, 4, 0, bind::SAMPLER_VIEW);
    let src = bytes(64, 3);
    r.ctx
        .texture_subdata(&tex, 0, 0, PipeBox::new_3d(0, 0, 0, 4, 4, 4), &src, 16, 64)
        .unwrap();
    for k in 0..4usize {
        let got = sample_at_r(&mut r, &tex, (k as f32 + 0.5) / 4.0, AddrMode::REPEAT);
        assert_eq!(got, src[k * 64..(k + 1) * 64], "slice {k}");
    }
    // r = 1.3 repeats to slice 1 (0.3 * 4 = 1.2) and clamps to slice 3.
    assert_eq!(
        sample_at_r(&mut r, &tex, 1.3, AddrMode::REPEAT),
        src[64..128]
    );
    assert_eq!(
        sample_at_r(&mut r, &tex, 1.3, AddrMode::CLAMP_TO_EDGE),
        src[192..256]
    );
}
