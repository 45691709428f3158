//! Texture layout parameters: every format, size, depth, level count and target either
//! refused or laid out consistently (levels in order, inside the allocation); and the fast
//! twiddle copies against the per-texel reference on arbitrary rectangles.
#![no_main]
// `_B` is the project's unit suffix for bytes.
#![allow(non_snake_case)]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use sgx_hwdocs::Format;
use sgx_layout::copy::{fast, reference};
use sgx_layout::{Layout, Rect, Template, Twiddle};

#[derive(Arbitrary, Debug)]
struct Params {
    format: u8,
    width_px: u32,
    height_px: u32,
    depth_px: u32,
    levels: Option<u32>,
    kind: u8,
}

#[derive(Arbitrary, Debug)]
struct Copy {
    log2_w: u8,
    log2_h: u8,
    rect: (u32, u32, u32, u32),
    bpe: u8,
    stride_pad_B: u8,
    seed: u8,
}

#[derive(Arbitrary, Debug)]
enum Input {
    Layout(Params),
    Copy(Copy),
}

fn layout(p: &Params) {
    let format = Format::ALL[usize::from(p.format) % Format::ALL.len()];
    let t = match p.kind % 3 {
        0 => Template::new_2d(format, p.width_px, p.height_px),
        1 => Template::new_cube(format, p.width_px),
        _ => Template::new_3d(format, p.width_px, p.height_px, p.depth_px),
    };
    let t = match p.levels {
        Some(n) => t.with_levels(n),
        None => t.with_full_chain(),
    };
    let Ok(l) = Layout::new(&t) else { return };
    assert_eq!(l.level_offsets_B.len(), l.levels.len() + 1);
    assert_eq!(l.level_offsets_B[l.levels.len()], l.chain_B);
    for (i, lv) in l.levels.iter().enumerate() {
        assert_eq!(lv.offset_B, l.level_offsets_B[i]);
        assert!(lv.footprint_B <= lv.size_B, "{lv:?}");
        assert_eq!(lv.offset_B + lv.size_B, l.level_offsets_B[i + 1], "{lv:?}");
    }
    assert!(l.face_stride_B >= l.chain_B);
    assert_eq!(l.size_B, u64::from(l.faces) * l.face_stride_B);
}

fn copy(c: &Copy) {
    let Ok(geom) = Twiddle::new(u32::from(c.log2_w % 9), u32::from(c.log2_h % 9)) else {
        return;
    };
    let bpe = [1usize, 2, 4, 8, 16][usize::from(c.bpe) % 5];
    let (x, y, w, h) = c.rect;
    let rect = Rect {
        x: x % 300,
        y: y % 300,
        w: w % 300,
        h: h % 300,
    };
    let stride_B = rect.w as usize * bpe + usize::from(c.stride_pad_B);
    let lin_len = stride_B * rect.h as usize;
    let tw_len = geom.len_el() as usize * bpe;
    let fill = |n: usize, k: u8| -> Vec<u8> {
        (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(k))
            .collect()
    };
    let lin = fill(lin_len, c.seed);
    let (mut a, mut b) = (fill(tw_len, 1), fill(tw_len, 1));
    let ra = fast::linear_to_twiddled(&mut a, &geom, rect, &lin, stride_B, bpe);
    let rb = reference::linear_to_twiddled(&mut b, &geom, rect, &lin, stride_B, bpe);
    assert_eq!(ra.is_ok(), rb.is_ok(), "{ra:?} vs {rb:?}");
    assert!(a == b, "linear_to_twiddled: fast and reference differ");
    let tw = fill(tw_len, c.seed);
    let (mut a, mut b) = (fill(lin_len, 2), fill(lin_len, 2));
    let ra = fast::twiddled_to_linear(&mut a, stride_B, &tw, &geom, rect, bpe);
    let rb = reference::twiddled_to_linear(&mut b, stride_B, &tw, &geom, rect, bpe);
    assert_eq!(ra.is_ok(), rb.is_ok(), "{ra:?} vs {rb:?}");
    assert!(a == b, "twiddled_to_linear: fast and reference differ");
}

fuzz_target!(|input: Input| {
    match input {
        Input::Layout(p) => layout(&p),
        Input::Copy(c) => copy(&c),
    }
});
