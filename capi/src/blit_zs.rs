//! Depth and stencil blits, on the CPU: the blitter draws colour only (the PBE writes colour
//! targets), so `glCopyPixels(GL_DEPTH)`, `glBlitFramebuffer` of depth or stencil and st/mesa's
//! depth copies come here, the documented CPU step of such blits. Unscaled; the masked
//! channels of each element are copied, the others kept. Between two depth formats
//! (`glCopyTexImage` of a Z24S8 framebuffer into a Z16 texture) depth converts as unorm,
//! rounded to nearest, and stencil copies where both sides have it.

use std::sync::Arc;

use sgx_pipe::{map_flags, Context, PipeBox, Resource};

use crate::status::{unsupported, Result};

/// `PIPE_MASK_Z`.
pub(crate) const MASK_Z: u32 = 1 << 4;
/// `PIPE_MASK_S`.
pub(crate) const MASK_S: u32 = 1 << 5;

/// Whether channel `name` is one the Z and S bits of `mask` select.
fn selected(name: &str, mask: u32) -> bool {
    match name {
        "z" => mask & MASK_Z != 0,
        "s" => mask & MASK_S != 0,
        _ => false,
    }
}

/// `v`, a unorm value of `from` bits, as a unorm value of `to` bits, rounded to nearest.
fn rescale_unorm(v: u64, from: u32, to: u32) -> u64 {
    if from == to {
        return v;
    }
    let (smax, dmax) = ((1u64 << from) - 1, (1u64 << to) - 1);
    (v * dmax + smax / 2) / smax
}

/// One destination element `d` with the channels `mask` selects taken from source element
/// `s` (of `sf`'s format): depth rescaled as unorm, stencil copied; a channel the source does
/// not have is kept.
fn merge(d: u64, df: sgx_pipe::Format, s: u64, sf: sgx_pipe::Format, mask: u32) -> u64 {
    let mut out = d;
    for c in df.info().channels.iter().filter(|c| selected(c.name, mask)) {
        let Some(sc) = sf.info().channels.iter().find(|sc| sc.name == c.name) else {
            continue;
        };
        let v = (s >> sc.lo) & ((1u64 << sc.bits) - 1);
        let v = if c.name == "z" {
            rescale_unorm(v, sc.bits, c.bits)
        } else {
            v & ((1u64 << c.bits) - 1)
        };
        let m = ((1u64 << c.bits) - 1) << c.lo;
        out = (out & !m) | (v << c.lo);
    }
    out
}

/// One face or slice of each side: (resource, level, face, box).
pub(crate) type Side<'a> = (&'a Arc<Resource>, u32, u32, PipeBox);

/// Copies the masked depth/stencil bits of `src`'s box into `dst`'s box.
pub(crate) fn blit(ctx: &mut Context, src: Side<'_>, dst: Side<'_>, mask: u32) -> Result<()> {
    let (sr, slevel, sface, sbox) = src;
    let (dr, dlevel, dface, dbox) = dst;
    let depth_like = |f: sgx_pipe::Format| f.info().channels.iter().any(|c| c.name == "z");
    if sr.format() != dr.format() && !(depth_like(sr.format()) && depth_like(dr.format())) {
        return unsupported(format!(
            "depth/stencil blits between formats ({} to {})",
            sr.format().name(),
            dr.format().name()
        ));
    }
    if (sbox.width, sbox.height, sbox.depth) != (dbox.width, dbox.height, dbox.depth) {
        return unsupported("scaled depth/stencil blits");
    }
    let (sf, df) = (sr.format(), dr.format());
    if !df.info().channels.iter().any(|c| selected(c.name, mask)) {
        return Ok(());
    }
    // The source is read whole first, so a copy within one level (overlapping or not) reads
    // the bytes as they were before the blit.
    let s = ctx.transfer_map(sr, slevel, sface, map_flags::READ, sbox)?;
    let mut d = ctx.transfer_map(dr, dlevel, dface, map_flags::READ | map_flags::WRITE, dbox)?;
    let (sbpe, dbpe) = (
        sf.info().bytes_per_el as usize,
        df.info().bytes_per_el as usize,
    );
    let el = |b: &[u8]| {
        let mut v = [0u8; 8];
        v[..b.len()].copy_from_slice(b);
        u64::from_le_bytes(v)
    };
    for (de, se) in d.data.chunks_exact_mut(dbpe).zip(s.data.chunks_exact(sbpe)) {
        let v = merge(el(de), df, el(se), sf, mask);
        de.copy_from_slice(&v.to_le_bytes()[..dbpe]);
    }
    ctx.transfer_unmap(d)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgx_pipe::Format;

    #[test]
    fn depth_rescales_as_unorm_and_stencil_copies() {
        assert_eq!(rescale_unorm(0xFFFF, 16, 24), 0xFF_FFFF);
        assert_eq!(rescale_unorm(0xFF_FFFF, 24, 16), 0xFFFF);
        assert_eq!(rescale_unorm(0, 24, 16), 0);
        // 0x800000 / 0xFFFFFF * 0xFFFF = 32767.998..., to nearest 0x8000.
        assert_eq!(rescale_unorm(0x80_0000, 24, 16), 0x8000);
        assert_eq!(rescale_unorm(0x8000, 16, 24), 0x80_0080);
        let (z24s8, z16) = (Format::Z24_UNORM_S8_UINT, Format::Z16_UNORM);
        // Z24S8 -> Z16: depth only (Z16 has no stencil).
        assert_eq!(
            merge(0x1234, z16, 0xA5FF_FFFF, z24s8, MASK_Z | MASK_S),
            0xFFFF
        );
        // Z16 -> Z24S8: depth rescaled, the destination's stencil kept.
        assert_eq!(
            merge(0x5A00_0000, z24s8, 0xFFFF, z16, MASK_Z | MASK_S),
            0x5AFF_FFFF
        );
        // Stencil only, same format.
        assert_eq!(
            merge(0x5A12_3456, z24s8, 0xA5FF_FFFF, z24s8, MASK_S),
            0xA512_3456
        );
    }
}
