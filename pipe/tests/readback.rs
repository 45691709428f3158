//! Reading a box straight into the caller's rows (`read_box_into`, a present's one copy) and
//! unsynchronized buffer writes (`buffer_subdata_usage`, an upload ring's flush): the bytes a
//! read map and a synchronized write give, bytes outside the box or range left intact, and
//! bad boxes refused.

#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::*;

/// A target drawn with a red triangle over a blue clear.
fn drawn(r: &mut Rig, w: u32, h: u32) -> Arc<Resource> {
    let t = target(r, Format::B8G8R8A8_UNORM, w, h);
    bind_const(r, &fb(&t, None));
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 1.0, 1.0], 1.0, 0)
        .unwrap();
    set_colour(r, [1.0, 0.0, 0.0, 1.0]);
    let (fw, fh) = (w as f32, h as f32);
    draw_px(
        r,
        PrimMode::TRIANGLES,
        &[(1.0, 1.0, 0.0), (fw - 3.0, 2.0, 0.0), (2.0, fh - 1.0, 0.0)],
    );
    t
}

#[test]
fn read_box_into_gives_a_read_maps_rows_and_writes_nothing_else() {
    // 37x21 is a linear (stride) level, read row by row; 32x32 is twiddled, read through a map.
    for (w, h) in [(37, 21), (32, 32)] {
        let mut r = rig();
        let t = drawn(&mut r, w, h);
        let b = PipeBox::new(3, 2, w - 7, h - 5);
        let row_B = b.width as usize * 4;
        let stride_B = row_B + 12;
        let mut dst = vec![0xabu8; stride_B * b.height as usize + 20];
        r.ctx
            .read_box_into(&t, 0, 0, b, &mut dst, stride_B)
            .unwrap();
        let map = r.ctx.transfer_map(&t, 0, 0, map_flags::READ, b).unwrap();
        let mut red = 0;
        for y in 0..b.height as usize {
            let got = &dst[y * stride_B..][..row_B];
            assert_eq!(
                got,
                &map.data[y * map.stride_B..][..row_B],
                "{w}x{h} row {y}"
            );
            red += got.chunks(4).filter(|p| p == &[0, 0, 255, 255]).count();
            let pad = if y + 1 == b.height as usize { 20 } else { 12 };
            assert!(
                dst[y * stride_B + row_B..][..pad]
                    .iter()
                    .all(|&x| x == 0xab),
                "{w}x{h}: bytes after row {y} written"
            );
        }
        assert!(red > 0, "{w}x{h}: the triangle is in the box");
        r.ctx.transfer_unmap(map).unwrap();
    }
}

#[test]
fn read_box_into_refuses_short_memory_and_boxes_outside_the_level() {
    let mut r = rig();
    let t = drawn(&mut r, 37, 21);
    let b = PipeBox::new(0, 0, 37, 21);
    let mut short = vec![0u8; 37 * 4 * 21 - 1];
    let e = r.ctx.read_box_into(&t, 0, 0, b, &mut short, 37 * 4);
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))), "{e:?}");
    let mut dst = vec![0u8; 37 * 4 * 21];
    // Rows closer than a row's bytes.
    let e = r.ctx.read_box_into(&t, 0, 0, b, &mut dst, 36 * 4);
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))), "{e:?}");
    let e = r
        .ctx
        .read_box_into(&t, 0, 0, PipeBox::new(1, 0, 37, 21), &mut dst, 37 * 4);
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))), "{e:?}");
    assert!(dst.iter().all(|&x| x == 0), "a refused read wrote bytes");
}

#[test]
fn an_unsynchronized_buffer_write_lands_without_a_submission() {
    let mut r = rig();
    let t = const_target(&mut r, 16, 16, [1.0, 0.0, 0.0, 1.0]);
    let vb = r
        .screen
        .resource_create(&ResourceTemplate::buffer(256, bind::VERTEX_BUFFER))
        .unwrap();
    let old: Vec<u8> = verts_px(
        &[(0.0, 0.0, 0.0), (16.0, 0.0, 0.0), (0.0, 16.0, 0.0)],
        16,
        16,
    )
    .into_iter()
    .chain((48..256).map(|i| i as u8))
    .collect();
    r.ctx.buffer_subdata(&vb, 0, &old).unwrap();
    bind_vertex_resource(&mut r, &vb);
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 3))
        .unwrap();
    // The pending batch reads the buffer: a synchronized write would submit it first.
    let before = r.ctx.stats().submissions;
    let new = [0x5au8; 8];
    r.ctx
        .buffer_subdata_usage(&vb, map_flags::WRITE | map_flags::UNSYNCHRONIZED, 100, &new)
        .unwrap();
    assert_eq!(
        r.ctx.stats().submissions,
        before,
        "an unsynchronized write submitted"
    );
    let map = r
        .ctx
        .transfer_map(&vb, 0, 0, map_flags::READ, PipeBox::new(0, 0, 256, 1))
        .unwrap();
    let mut want = old.clone();
    want[100..108].copy_from_slice(&new);
    assert_eq!(map.data, want);
    r.ctx.transfer_unmap(map).unwrap();
    let e = r
        .ctx
        .buffer_subdata_usage(&vb, map_flags::UNSYNCHRONIZED, 250, &new);
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))), "{e:?}");
    let e = r
        .ctx
        .buffer_subdata_usage(&t, map_flags::UNSYNCHRONIZED, 0, &new);
    assert!(matches!(e, Err(PipeError::InvalidArgument(_))), "{e:?}");
}
