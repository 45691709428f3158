//! Per-fragment operations after shading: depth and stencil compares, stencil ops, the
//! [0, 1] clamp, blend factors and equations, logic ops, the colour mask.

use sgx_hwdocs::isp::{CompareFunc, StencilOp};
use sgx_hwdocs::tsp::{BlendFactor, BlendFunc, LogicOp};

use super::DrawCtx;

#[inline(always)]
pub(super) fn compare(f: CompareFunc, a: f32, b: f32) -> bool {
    match f {
        CompareFunc::NEVER => false,
        CompareFunc::LESS => a < b,
        CompareFunc::EQUAL => a == b,
        CompareFunc::LEQUAL => a <= b,
        CompareFunc::GREATER => a > b,
        CompareFunc::NOTEQUAL => a != b,
        CompareFunc::GEQUAL => a >= b,
        CompareFunc::ALWAYS => true,
    }
}

pub(super) fn stencil_op(op: StencilOp, s: u8, reference: u8) -> u8 {
    match op {
        StencilOp::KEEP => s,
        StencilOp::ZERO => 0,
        StencilOp::REPLACE => reference,
        StencilOp::INCR => s.saturating_add(1),
        StencilOp::DECR => s.saturating_sub(1),
        StencilOp::INVERT => !s,
        StencilOp::INCR_WRAP => s.wrapping_add(1),
        StencilOp::DECR_WRAP => s.wrapping_sub(1),
    }
}

/// Clamp to [0, 1], NaN to 0 (`if x >= 1 { 1 } else if x > 0 { x } else { 0 }`, in the
/// branch-free form `num` holds equal to it).
#[inline(always)]
pub(super) fn clamp01(x: f32) -> f32 {
    crate::num::clamp01_fast(x)
}

pub(super) fn factor(f: BlendFactor, s: [f32; 4], d: [f32; 4], k: [f32; 4], i: usize) -> f32 {
    match f {
        BlendFactor::ZERO => 0.0,
        BlendFactor::ONE => 1.0,
        BlendFactor::SRC_COLOR => s[i],
        BlendFactor::INV_SRC_COLOR => 1.0 - s[i],
        BlendFactor::SRC_ALPHA => s[3],
        BlendFactor::INV_SRC_ALPHA => 1.0 - s[3],
        BlendFactor::DST_ALPHA => d[3],
        BlendFactor::INV_DST_ALPHA => 1.0 - d[3],
        BlendFactor::DST_COLOR => d[i],
        BlendFactor::INV_DST_COLOR => 1.0 - d[i],
        BlendFactor::SRC_ALPHA_SATURATE => {
            if i == 3 {
                1.0
            } else {
                s[3].min(1.0 - d[3])
            }
        }
        BlendFactor::CONST_COLOR => k[i],
        BlendFactor::INV_CONST_COLOR => 1.0 - k[i],
        BlendFactor::CONST_ALPHA => k[3],
        BlendFactor::INV_CONST_ALPHA => 1.0 - k[3],
    }
}

pub(super) fn blend_eq(f: BlendFunc, s: f32, d: f32, fs: f32, fd: f32) -> f32 {
    match f {
        BlendFunc::ADD => s * fs + d * fd,
        BlendFunc::SUBTRACT => s * fs - d * fd,
        BlendFunc::REV_SUBTRACT => d * fd - s * fs,
        BlendFunc::MIN => s.min(d),
        BlendFunc::MAX => s.max(d),
    }
}

/// `op` on the stored bits of one channel whose largest value is `max` (2^bits - 1): the
/// op's value is its truth table, result bit = (op >> (2 * s + d)) & 1 (hwdocs tsp.json).
#[inline]
pub(super) fn logic_op(op: LogicOp, s: u32, d: u32, max: u32) -> u32 {
    let t = op.raw();
    let pick = |bit: u32, ones: u32| if t & (1 << bit) != 0 { ones } else { 0 };
    (pick(0, !s & !d) | pick(1, !s & d) | pick(2, s & !d) | pick(3, s & d)) & max
}

/// A clamped source and a stored colour through the logic op, channel by channel on the
/// values the target stores (the source rounded as the PBE rounds it; the stored colour is
/// already one of those values, so it rounds back exactly). The result is again such a
/// value, which the PBE stores unchanged.
fn logic(op: LogicOp, s: [f32; 4], dst: [f32; 4], chan_max: [u32; 4]) -> [f32; 4] {
    let mut out = [0.0; 4];
    for i in 0..4 {
        let max = chan_max[i];
        let q = |x: f32| (x * max as f32 + 0.5) as u32;
        out[i] = logic_op(op, q(s[i]), q(dst[i]), max) as f32 / max as f32;
    }
    out
}

#[inline]
pub(super) fn blend(ctx: &DrawCtx, src: [f32; 4], dst: [f32; 4], chan_max: [u32; 4]) -> [f32; 4] {
    let t = &ctx.ds.tsp;
    let mut s = [0.0; 4];
    for i in 0..4 {
        s[i] = clamp01(src[i]);
    }
    let mut out = if t.logic_op_enable {
        logic(t.logic_op, s, dst, chan_max)
    } else if t.blend {
        let k = ctx.blend_const;
        let mut o = [0.0; 4];
        for i in 0..4 {
            let (func, sf, df) = if i < 3 {
                (t.rgb_func, t.rgb_src, t.rgb_dst)
            } else {
                (t.a_func, t.a_src, t.a_dst)
            };
            o[i] = clamp01(blend_eq(
                func,
                s[i],
                dst[i],
                factor(sf, s, dst, k, i),
                factor(df, s, dst, k, i),
            ));
        }
        o
    } else {
        s
    };
    for (i, o) in out.iter_mut().enumerate() {
        if t.colour_mask & (1 << i) == 0 {
            *o = dst[i];
        }
    }
    out
}
