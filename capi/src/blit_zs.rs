//! Depth and stencil blits, on the CPU: the blitter draws colour only (the PBE writes colour
//! targets), so `glCopyPixels(GL_DEPTH)`, `glBlitFramebuffer` of depth or stencil and st/mesa's
//! depth copies come here, the documented CPU step of such blits. Unscaled, one format: the
//! masked channels' bits of each element are copied, the others are kept.

use std::sync::Arc;

use sgx_pipe::{map_flags, Context, PipeBox, Resource};

use crate::status::{unsupported, Result};

/// `PIPE_MASK_Z`.
pub(crate) const MASK_Z: u32 = 1 << 4;
/// `PIPE_MASK_S`.
pub(crate) const MASK_S: u32 = 1 << 5;

/// The bits of one element of `r`'s format that the Z and S bits of `mask` select.
fn element_mask(r: &Resource, mask: u32) -> u64 {
    let mut m = 0u64;
    for c in r.format().info().channels {
        let on = match c.name {
            "z" => mask & MASK_Z != 0,
            "s" => mask & MASK_S != 0,
            _ => false,
        };
        if on {
            m |= ((1u64 << c.bits) - 1) << c.lo;
        }
    }
    m
}

/// One face or slice of each side: (resource, level, face, box).
pub(crate) type Side<'a> = (&'a Arc<Resource>, u32, u32, PipeBox);

/// Copies the masked depth/stencil bits of `src`'s box into `dst`'s box.
pub(crate) fn blit(ctx: &mut Context, src: Side<'_>, dst: Side<'_>, mask: u32) -> Result<()> {
    let (sr, slevel, sface, sbox) = src;
    let (dr, dlevel, dface, dbox) = dst;
    if sr.format() != dr.format() {
        return unsupported(format!(
            "depth/stencil blits between formats ({} to {})",
            sr.format().name(),
            dr.format().name()
        ));
    }
    if (sbox.width, sbox.height, sbox.depth) != (dbox.width, dbox.height, dbox.depth) {
        return unsupported("scaled depth/stencil blits");
    }
    let m = element_mask(dr, mask);
    if m == 0 {
        return Ok(());
    }
    // The source is read whole first, so a copy within one level (overlapping or not) reads
    // the bytes as they were before the blit.
    let s = ctx.transfer_map(sr, slevel, sface, map_flags::READ, sbox)?;
    let mut d = ctx.transfer_map(dr, dlevel, dface, map_flags::READ | map_flags::WRITE, dbox)?;
    let bpe = dr.format().info().bytes_per_el as usize;
    for (de, se) in d.data.chunks_exact_mut(bpe).zip(s.data.chunks_exact(bpe)) {
        let mut dv = [0u8; 8];
        let mut sv = [0u8; 8];
        dv[..bpe].copy_from_slice(de);
        sv[..bpe].copy_from_slice(se);
        let v = (u64::from_le_bytes(dv) & !m) | (u64::from_le_bytes(sv) & m);
        de.copy_from_slice(&v.to_le_bytes()[..bpe]);
    }
    ctx.transfer_unmap(d)?;
    Ok(())
}
