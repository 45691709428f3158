//! `sgx535_resource_read_box`: the box's rows in the caller's memory, as a read map gives
//! them, on a linear (37x21) and a twiddled (16x16) level; bytes between and after the rows
//! untouched; short memory and bad boxes refused.

mod common;

use common::*;
use sgx535::*;

fn read_into(
    c: sgx535_context,
    r: sgx535_resource,
    b: &sgx535_box,
    stride: u32,
    dst: &mut [u8],
) -> sgx535_status {
    // SAFETY: `dst` holds dst.len() writable bytes.
    unsafe {
        sgx535_resource_read_box(
            c,
            r,
            0,
            b,
            dst.as_mut_ptr().cast(),
            stride,
            dst.len() as u64,
        )
    }
}

#[test]
fn read_box_gives_the_rows_a_read_map_gives() {
    for (w, h) in [(37u32, 21u32), (16, 16)] {
        let (s, c) = model();
        let (rt, _) = target(s, c, w, h);
        let data: Vec<u8> = (0..w * h * 4).map(|i| (i * 13 % 251) as u8).collect();
        upload(c, rt, 0, w, h, &data);
        let b = sgx535_box {
            x: 2,
            y: 3,
            z: 0,
            width: w as i32 - 5,
            height: h as i32 - 4,
            depth: 1,
        };
        let row = (b.width * 4) as usize;
        let stride = row + 8;
        let mut dst = vec![0xeeu8; stride * b.height as usize];
        ok(read_into(c, rt, &b, stride as u32, &mut dst));
        let want = read_box(c, rt, 0, &b, 4);
        for y in 0..b.height as usize {
            assert_eq!(
                &dst[y * stride..][..row],
                &want[y * row..][..row],
                "{w}x{h} row {y}"
            );
            assert!(
                dst[y * stride + row..][..8].iter().all(|&x| x == 0xee),
                "{w}x{h} row {y} padding"
            );
        }
        ok(sgx535_screen_destroy(s));
    }
}

#[test]
fn read_box_refuses_short_memory_and_boxes_outside_the_level() {
    let (s, c) = model();
    let (rt, _) = target(s, c, 37, 21);
    let b = full_box(37, 21);
    let mut short = vec![0u8; 37 * 4 * 21 - 1];
    assert_eq!(
        read_into(c, rt, &b, 37 * 4, &mut short),
        SGX535_ERROR_INVALID_ARGUMENT
    );
    let mut dst = vec![0u8; 38 * 4 * 21];
    let outside = sgx535_box { x: 1, ..b };
    assert_eq!(
        read_into(c, rt, &outside, 37 * 4, &mut dst),
        SGX535_ERROR_INVALID_ARGUMENT
    );
    assert!(dst.iter().all(|&x| x == 0));
    // SAFETY: a NULL destination is refused before use.
    let st = unsafe { sgx535_resource_read_box(c, rt, 0, &b, std::ptr::null_mut(), 37 * 4, 100) };
    assert_eq!(st, SGX535_ERROR_INVALID_ARGUMENT);
    ok(sgx535_screen_destroy(s));
}
