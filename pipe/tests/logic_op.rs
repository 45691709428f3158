//! glLogicOp through the pipe on the model: every one of the 16 ops, on an 8-bit and a 5/6-bit
//! target, compared byte for byte with a CPU reference written from GL's table; the colour
//! mask still applies; pixels outside the draw keep their bytes.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
const H: u32 = 16;
/// The drawn rectangle, exclusive end: inside two tiles, not covering the target.
const RECT: (u32, u32, u32, u32) = (4, 2, 28, 14);

/// GL 1.1's table of logic ops (s source, d destination), one channel's stored bits.
fn reference(op: LogicOp, s: u32, d: u32, max: u32) -> u32 {
    let r = match op {
        LogicOp::CLEAR => 0,
        LogicOp::AND => s & d,
        LogicOp::AND_REVERSE => s & !d,
        LogicOp::COPY => s,
        LogicOp::AND_INVERTED => !s & d,
        LogicOp::NOOP => d,
        LogicOp::XOR => s ^ d,
        LogicOp::OR => s | d,
        LogicOp::NOR => !(s | d),
        LogicOp::EQUIV => !(s ^ d),
        LogicOp::INVERT => !d,
        LogicOp::OR_REVERSE => s | !d,
        LogicOp::COPY_INVERTED => !s,
        LogicOp::OR_INVERTED => !s | d,
        LogicOp::NAND => !(s & d),
        LogicOp::SET => !0,
    };
    r & max
}

/// A target format's channels: (shift, bits, RGBA lane), and its bytes per element.
struct Layout {
    format: Format,
    channels: &'static [(u32, u32, usize)],
    bpe: usize,
}

const LAYOUTS: [Layout; 2] = [
    Layout {
        format: Format::B8G8R8A8_UNORM,
        channels: &[(0, 8, 2), (8, 8, 1), (16, 8, 0), (24, 8, 3)],
        bpe: 4,
    },
    Layout {
        format: Format::B5G6R5_UNORM,
        channels: &[(0, 5, 2), (5, 6, 1), (11, 5, 0)],
        bpe: 2,
    },
];

fn element(data: &[u8], i: usize, bpe: usize) -> u32 {
    data[i * bpe..(i + 1) * bpe]
        .iter()
        .rev()
        .fold(0, |v, &b| v << 8 | u32::from(b))
}

/// Runs `op` with `mask` over a patterned target; returns (what the model wrote, the
/// reference).
fn run(l: &Layout, op: LogicOp, mask: u8) -> (Vec<u8>, Vec<u8>) {
    let mut r = rig();
    let t = target(&r, l.format, W, H);
    bind_const(&mut r, &fb(&t, None));
    // A destination where every pixel differs (a multiplicative hash of its index).
    let n = (W * H) as usize;
    let dst: Vec<u8> = (0..n * l.bpe)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_right(13) as u8)
        .collect();
    r.ctx
        .texture_subdata(
            &t,
            0,
            0,
            PipeBox::new(0, 0, W, H),
            &dst,
            W as usize * l.bpe,
            0,
        )
        .unwrap();
    // A source whose stored value per channel is exact: q / max, with bit patterns that
    // meet every (s, d) combination across the destination's bits.
    let pattern = [0b1010_0101u32, 0b0011_1100, 0b1100_0011, 0b0110_1001];
    let mut src_q = [0u32; 4];
    let mut colour = [0.0f32; 4];
    for &(_, bits, lane) in l.channels {
        let max = (1 << bits) - 1;
        src_q[lane] = pattern[lane] & max;
        colour[lane] = src_q[lane] as f32 / max as f32;
    }
    set_colour(&mut r, colour);
    let blend = r.ctx.create_blend_state(&BlendState {
        logicop_enable: true,
        logicop_func: op,
        colormask: mask,
        // Ignored while the logic op is on (GL: logic ops on unorm targets replace blending).
        blend_enable: true,
        rgb_dst_factor: BlendFactor::ONE,
        ..Default::default()
    });
    r.ctx.bind_blend_state(Some(&blend));
    let (x0, y0, x1, y1) = RECT;
    rect(&mut r, x0, y0, x1, y1, 0.0);
    let got = r.ctx.read_level(&t, 0, 0).unwrap();

    let mut want = dst.clone();
    for y in y0..y1 {
        for x in x0..x1 {
            let i = (y * W + x) as usize;
            let d = element(&dst, i, l.bpe);
            let mut v = d;
            for &(shift, bits, lane) in l.channels {
                if mask & (1 << lane) == 0 {
                    continue;
                }
                let max = (1 << bits) - 1;
                let c = reference(op, src_q[lane], (d >> shift) & max, max);
                v = (v & !(max << shift)) | c << shift;
            }
            want[i * l.bpe..(i + 1) * l.bpe].copy_from_slice(&v.to_le_bytes()[..l.bpe]);
        }
    }
    (got, want)
}

#[test]
fn every_logic_op_equals_the_cpu_reference_byte_for_byte() {
    assert_eq!(LogicOp::ALL.len(), 16);
    for l in &LAYOUTS {
        for &op in LogicOp::ALL {
            let (got, want) = run(l, op, 0xF);
            assert!(
                got == want,
                "{:?} {op:?}: {}",
                l.format,
                first_diff(&got, &want)
            );
        }
    }
}

#[test]
fn the_colour_mask_still_applies_under_a_logic_op() {
    for l in &LAYOUTS {
        for mask in [0b1001, 0b0110, 0] {
            let (got, want) = run(l, LogicOp::XOR, mask);
            assert!(
                got == want,
                "{:?} mask {mask:#06b}: {}",
                l.format,
                first_diff(&got, &want)
            );
        }
    }
}

fn first_diff(got: &[u8], want: &[u8]) -> String {
    match got.iter().zip(want).position(|(a, b)| a != b) {
        Some(i) => format!("byte {i}: got {:#04x}, want {:#04x}", got[i], want[i]),
        None => "equal".into(),
    }
}

/// piglit's gl-1.1-xor: a diamond of XOR lines changes the target, and the same lines drawn
/// again give every byte back (no pixel drawn twice at the strip's shared vertices). The
/// diagonal lines bin a rectangle per pixel: the draw's parameter memory must be sized for
/// that, or the TA runs out and the lines are lost.
#[test]
fn xor_lines_change_the_target_and_drawn_twice_restore_it() {
    const S: u32 = 64;
    for width in [1.0f32, 4.0] {
        let mut r = rig();
        let t = patterned_target(&mut r, S);
        let before = r.ctx.read_level(&t, 0, 0).unwrap();
        bind_blend(&mut r, &xor_blend());
        bind_rasterizer(
            &mut r,
            &RasterizerState {
                line_width: width,
                ..Default::default()
            },
        );
        set_colour(&mut r, [1.0; 4]);
        let h = S as f32 / 2.0;
        let diamond = [
            (h, 0.05 * h, 0.0),
            (1.95 * h, h, 0.0),
            (h, 1.95 * h, 0.0),
            (0.05 * h, h, 0.0),
            (h, 0.05 * h, 0.0),
        ];
        draw_px(&mut r, PrimMode::LINE_STRIP, &diamond);
        let once = r.ctx.read_level(&t, 0, 0).unwrap();
        let changed = once
            .chunks(4)
            .zip(before.chunks(4))
            .filter(|(a, b)| a != b)
            .count();
        assert!(changed > 0, "width {width}: the XOR lines changed no pixel");
        draw_px(&mut r, PrimMode::LINE_STRIP, &diamond);
        let twice = r.ctx.read_level(&t, 0, 0).unwrap();
        assert!(
            twice == before,
            "width {width}: {}",
            first_diff(&twice, &before)
        );
    }
}
