#![allow(non_snake_case)]
//! Box reads and writes of 3D levels against a per-texel reference: every texel's address is
//! computed here from scratch (level offset, slice stride, Morton or row address), and every
//! byte of the allocation and of the linear buffer outside the box is checked untouched.

use sgx_hwdocs::Format;
use sgx_layout::*;

mod common;
use common::noise;

/// Morton offset in elements: Y in bit 0, X in bit 1 for the shorter side's bits, the longer
/// side's remaining bits above them.
fn morton(x: u64, y: u64, log2_w: u32, log2_h: u32) -> u64 {
    let s = log2_w.min(log2_h);
    let mut o = 0;
    for i in 0..s {
        o |= ((y >> i) & 1) << (2 * i);
        o |= ((x >> i) & 1) << (2 * i + 1);
    }
    let (rest, n) = if log2_w > log2_h {
        (x, log2_w)
    } else {
        (y, log2_h)
    };
    for i in s..n {
        o |= ((rest >> i) & 1) << (s + i);
    }
    o
}

/// Allocation offset of texel (x, y, z) of a level, from scratch.
fn addr(l: &Layout, level: u32, x: u32, y: u32, z: u32) -> usize {
    let v = &l.levels[level as usize];
    let bpe = u64::from(l.bytes_per_el);
    let (w, h) = (u64::from(v.extent_px.w), u64::from(v.extent_px.h));
    let slice_B = match l.tiling {
        Tiling::Twiddled => w * h * bpe,
        Tiling::Linear => v.stride_B * h,
    };
    let in_slice = match l.tiling {
        Tiling::Twiddled => {
            morton(x.into(), y.into(), w.trailing_zeros(), h.trailing_zeros()) * bpe
        }
        Tiling::Linear => u64::from(y) * v.stride_B + u64::from(x) * bpe,
    };
    (v.offset_B + u64::from(z) * slice_B + in_slice) as usize
}

/// For each texel of box `b` of a level: its allocation offset (`addr`) and its offset in a
/// linear buffer of rows `stride` and slices `slice` bytes apart.
fn texel_pairs(
    l: &Layout,
    level: u32,
    b: Box3,
    stride: usize,
    slice: usize,
) -> Vec<(usize, usize)> {
    let bpe = l.bytes_per_el as usize;
    let mut v = Vec::new();
    for z in 0..b.d {
        for y in 0..b.h {
            for x in 0..b.w {
                let a = addr(l, level, b.x + x, b.y + y, b.z + z);
                v.push((
                    a,
                    z as usize * slice + y as usize * stride + x as usize * bpe,
                ));
            }
        }
    }
    v
}

/// Boxes at odd offsets inside a `w x h x d` level: whole, a middle box, one texel, one slice,
/// one row through every slice.
fn boxes(w: u32, h: u32, d: u32) -> Vec<Box3> {
    let mut v = vec![
        Box3::full(w, h, d),
        Box3::new(w / 3, h / 5, d / 3, w - w / 3 - w / 4, h - h / 5, d - d / 3),
        Box3::new(w - 1, h - 1, d - 1, 1, 1, 1),
        Box3::new(w / 2, 0, d / 2, w - w / 2, h, 1),
        Box3::new(0, h / 2, 0, w, 1, d),
    ];
    if w > 2 && h > 2 && d > 2 {
        v.push(Box3::new(1, 1, 1, w - 2, h - 2, d - 2));
    }
    v
}

fn templates() -> Vec<Template> {
    vec![
        Template::new_3d(Format::B8G8R8A8_UNORM, 16, 8, 5).with_full_chain(),
        Template::new_3d(Format::B8G8R8A8_UNORM, 20, 12, 5).with_full_chain(),
        Template::new_3d(Format::L8_UNORM, 8, 8, 3).with_full_chain(),
        Template::new_3d(Format::B5G6R5_UNORM, 6, 10, 7).with_full_chain(),
        Template::new_3d(Format::R16_FLOAT, 4, 32, 2).with_full_chain(),
    ]
}

#[test]
fn box_writes_and_reads_match_the_per_texel_reference() {
    let mut seed = 1;
    for t in templates() {
        let l = Layout::new(&t).unwrap();
        let bpe = l.bytes_per_el as usize;
        for level in 0..l.level_count() {
            let v = l.levels[level as usize];
            for b in boxes(v.extent_px.w, v.extent_px.h, v.depth_px) {
                seed += 1;
                let ctx = format!("{:?} {:?} level {level} {b:?}", l.format, l.tiling);
                // Padded rows and slices in the linear buffer.
                let stride = b.w as usize * bpe + 3;
                let slice = stride * b.h as usize + 5;
                let src = noise(slice * b.d as usize, seed);
                let before = noise(l.size_B as usize + 17, seed + 1000);

                let mut got = before.clone();
                l.write_box(&mut got, 0, level, b, &src, stride, slice)
                    .unwrap();
                let mut want = before.clone();
                for (a, s) in texel_pairs(&l, level, b, stride, slice) {
                    want[a..a + bpe].copy_from_slice(&src[s..s + bpe]);
                }
                assert!(got == want, "write {ctx}");

                // The level-relative form writes the same bytes.
                let r = l.level_range_B(0, level).unwrap();
                let mut part = before[r.start as usize..r.end as usize].to_vec();
                l.write_box_in_level(&mut part, level, b, &src, stride, slice)
                    .unwrap();
                assert!(
                    part == want[r.start as usize..r.end as usize],
                    "in level {ctx}"
                );

                // Reading back into a noisy buffer: texels land at the reference places,
                // padding keeps its bytes.
                let pad = noise(src.len(), seed + 2000);
                let mut out = pad.clone();
                l.read_box(&before, 0, level, b, &mut out, stride, slice)
                    .unwrap();
                let mut want_out = pad.clone();
                for (a, s) in texel_pairs(&l, level, b, stride, slice) {
                    want_out[s..s + bpe].copy_from_slice(&before[a..a + bpe]);
                }
                assert!(out == want_out, "read {ctx}");
                let mut out2 = pad.clone();
                l.read_box_in_level(
                    &before[r.start as usize..r.end as usize],
                    level,
                    b,
                    &mut out2,
                    stride,
                    slice,
                )
                .unwrap();
                assert!(out2 == want_out, "read in level {ctx}");
            }
        }
    }
}

#[test]
fn rects_address_slice_zero_and_whole_levels_every_slice() {
    for t in templates() {
        let l = Layout::new(&t).unwrap();
        let bpe = l.bytes_per_el as usize;
        let v = l.levels[0];
        let (w, h, d) = (v.extent_px.w, v.extent_px.h, v.depth_px);
        let src = noise(w as usize * h as usize * bpe, 7);
        let before = noise(l.size_B as usize, 8);
        let mut a = before.clone();
        let mut b = before.clone();
        let r = Rect::new(1, 1, w - 1, h - 1);
        let stride = w as usize * bpe;
        l.write_rect(&mut a, 0, 0, r, &src, stride).unwrap();
        l.write_box(&mut b, 0, 0, Box3::from_rect(r, 0, 1), &src, stride, 0)
            .unwrap();
        assert!(a == b);
        // Only slice 0 changed.
        let s0 = l.slice_range_B(0, 0, 0).unwrap();
        for i in 0..a.len() {
            if !s0.contains(&(i as u64)) {
                assert_eq!(a[i], before[i]);
            }
        }
        // write_level / read_level cover every slice, tightly packed.
        let vol = noise(w as usize * h as usize * d as usize * bpe, 9);
        let mut c = before.clone();
        l.write_level(&mut c, 0, 0, &vol).unwrap();
        assert_eq!(l.read_level(&c, 0, 0).unwrap(), vol);
        let last = (h - 1) as usize * stride + (w - 1) as usize * bpe;
        let z = (d - 1) as usize * h as usize * stride;
        let at = addr(&l, 0, w - 1, h - 1, d - 1);
        assert_eq!(&c[at..at + bpe], &vol[z + last..z + last + bpe]);
    }
}

#[test]
fn bad_boxes_are_errors_and_write_nothing() {
    use LayoutError::*;
    let l =
        Layout::new(&Template::new_3d(Format::B8G8R8A8_UNORM, 8, 8, 4).with_full_chain()).unwrap();
    let before = noise(l.size_B as usize, 3);
    let mut a = before.clone();
    let src = noise(8 * 8 * 4 * 4, 4);
    // Slices past the level (level 1 has 2).
    assert!(matches!(
        l.write_box(&mut a, 0, 1, Box3::new(0, 0, 1, 2, 2, 2), &src, 16, 64),
        Err(BoxOutOfRange { level_d_px: 2, .. })
    ));
    assert!(matches!(
        l.read_box(
            &before,
            0,
            0,
            Box3::new(0, 0, 4, 1, 1, 1),
            &mut a.clone(),
            4,
            4
        ),
        Err(BoxOutOfRange { .. })
    ));
    // A slice stride past any buffer is too small a buffer, not an overflow.
    assert!(matches!(
        l.write_box(
            &mut a,
            0,
            0,
            Box3::new(0, 0, 0, 2, 2, 3),
            &src,
            16,
            usize::MAX
        ),
        Err(BufferTooSmall { .. })
    ));
    // x/y outside keeps its 2D error.
    assert!(matches!(
        l.write_box(&mut a, 0, 0, Box3::new(7, 0, 0, 2, 1, 1), &src, 16, 64),
        Err(RectOutOfRange { .. })
    ));
    // Overlapping slices.
    assert!(matches!(
        l.write_box(&mut a, 0, 0, Box3::new(0, 0, 0, 4, 4, 2), &src, 16, 60),
        Err(SliceStrideTooSmall {
            slice_stride_B: 60,
            slice_B: 64
        })
    ));
    // A source one byte short of the last slice: nothing is written, not even slice 0.
    let need = 3 * 64 + 64;
    assert!(matches!(
        l.write_box(
            &mut a,
            0,
            0,
            Box3::new(0, 0, 0, 4, 4, 4),
            &src[..need - 1],
            16,
            64
        ),
        Err(BufferTooSmall { .. })
    ));
    l.write_box(
        &mut a,
        0,
        0,
        Box3::new(0, 0, 0, 4, 4, 4),
        &src[..need],
        16,
        64,
    )
    .unwrap();
    assert!(matches!(
        l.write_box_in_level(
            &mut a[..l.levels[0].size_B as usize - 1],
            0,
            Box3::full(8, 8, 4),
            &src,
            32,
            256
        ),
        Err(BufferTooSmall { .. })
    ));
    let mut c = before.clone();
    assert!(matches!(
        l.write_box(
            &mut c,
            0,
            0,
            Box3::new(0, 0, 0, 4, 4, 4),
            &src[..need - 1],
            16,
            64,
        ),
        Err(BufferTooSmall { .. })
    ));
    assert_eq!(c, before);
    // Empty boxes do nothing.
    l.write_box(&mut c, 0, 0, Box3::new(3, 3, 1, 2, 2, 0), &[], 8, 0)
        .unwrap();
    assert_eq!(c, before);
}
