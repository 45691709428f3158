//! The CPU mip generator the blitter falls back to: level L to L+1 with a 2x2 box filter, or
//! 2x2x2 for 3D levels.
//!
//! Box rules (as GL's reference mipmap code): destination (x, y, z) averages source columns
//! 2x, 2x+1, rows 2y, 2y+1 and slices 2z, 2z+1; an odd side drops its last column, row or
//! slice; a side of 1 is not halved, so its two taps are the same texel (a 2D level is a 3D
//! level of depth 1: its 2x2 box is the 2x2x2 box with every texel taken twice).
//! unorm channels round exactly at their own width, `(sum of 8 + 4) / 8` (which is
//! `(a + b + c + d + 2) / 4` for a 2x2 box); packed 565, 4444 and 1555 are unpacked, averaged
//! per channel and repacked. Float channels (16 or 32 bits) are averaged in f64 and rounded
//! once, to nearest even, into their format. sRGB channels (R, G, B of an sRGB format) are
//! decoded to linear with the IEC 61966-2-1 formula, averaged in f64 and encoded back,
//! rounded to nearest; their alpha is linear, as unorm. Depth channels are unorm and filter as
//! unorm (GL generates mipmaps of depth textures, ARB_depth_texture); a stencil channel is
//! not filtered: each destination texel keeps its box's first (top-left, front) tap.

use half::f16;
use sgx_hwdocs::{Channel, Format, FormatKind};

use crate::{Layout, LayoutError};

/// Whether the CPU generator can filter a format: a sampleable, uncompressed format (unorm,
/// sRGB with 8-bit channels, float with 16- or 32-bit channels, or depth, with or without
/// stencil) of at most 8 bytes per texel.
pub fn can_generate(format: Format) -> bool {
    let info = format.info();
    let shape_ok =
        info.sampleable && info.block_w_px == 1 && info.block_h_px == 1 && info.bytes_per_el <= 8;
    shape_ok
        && match info.kind {
            FormatKind::Unorm | FormatKind::Depth | FormatKind::DepthStencil => {
                info.channels.iter().all(|c| c.bits <= 32)
            }
            FormatKind::Srgb => info.channels.iter().all(|c| c.bits == 8),
            FormatKind::Float => info.channels.iter().all(|c| c.bits == 16 || c.bits == 32),
            _ => false,
        }
}

fn read_el(src: &[u8], i: usize, bpe: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..bpe].copy_from_slice(&src[i * bpe..][..bpe]);
    u64::from_le_bytes(b)
}

/// sRGB-encoded 8-bit value to linear, IEC 61966-2-1.
pub fn srgb_to_linear(v: u8) -> f64 {
    let c = f64::from(v) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear value in [0, 1] to an sRGB-encoded 8-bit value, rounded to nearest.
pub fn linear_to_srgb(l: f64) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

/// Whether a channel of a format of `kind` is sRGB-encoded (alpha never is).
fn is_srgb(kind: FormatKind, c: &Channel) -> bool {
    kind == FormatKind::Srgb && c.name != "a"
}

/// Sums eight channel values in f64 as two slices of four, so that a 2D box (both slices
/// the same) sums to exactly twice its four taps, whatever the rounding of the additions.
fn sum_f64(ch: &[u64; 8], f: impl Fn(u64) -> f64) -> f64 {
    let s0: f64 = ch[..4].iter().map(|&v| f(v)).sum();
    let s1: f64 = ch[4..].iter().map(|&v| f(v)).sum();
    s0 + s1
}

/// Averages eight texels of `format` (packed little-endian in u64s), slice 0's four first.
fn average(format: Format, t: [u64; 8]) -> u64 {
    let info = format.info();
    let mut out = 0u64;
    for c in info.channels {
        let mask = (1u64 << c.bits) - 1;
        let ch = t.map(|v| (v >> c.lo) & mask);
        let v = match info.kind {
            FormatKind::Float if c.bits == 16 => {
                let sum = sum_f64(&ch, |h| f64::from(f16::from_bits(h as u16)));
                u64::from(f16::from_f64(sum / 8.0).to_bits())
            }
            FormatKind::Float => {
                let sum = sum_f64(&ch, |f| f64::from(f32::from_bits(f as u32)));
                u64::from(((sum / 8.0) as f32).to_bits())
            }
            // Stencil values are not filtered.
            _ if c.name == "s" => ch[0],
            kind if is_srgb(kind, c) => {
                let sum = sum_f64(&ch, |v| srgb_to_linear(v as u8));
                u64::from(linear_to_srgb(sum / 8.0))
            }
            _ => (ch.iter().sum::<u64>() + 4) >> 3,
        };
        out |= (v & mask) << c.lo;
    }
    out
}

fn check_format(format: Format) -> Result<(), LayoutError> {
    if can_generate(format) {
        Ok(())
    } else {
        Err(LayoutError::MipFormat { format })
    }
}

/// Box-filters a tightly packed `w_px x h_px` image of `format` into the next level,
/// `max(1, w/2) x max(1, h/2)`, tightly packed.
pub fn downsample(
    format: Format,
    src: &[u8],
    w_px: u32,
    h_px: u32,
) -> Result<Vec<u8>, LayoutError> {
    // One slice: downsample_3d's checks are the 2D ones.
    downsample_3d(format, src, w_px, h_px, 1)
}

/// Box-filters a tightly packed `w_px x h_px x d_px` volume of `format` (slices of `h_px`
/// rows one after the other) into the next level, `max(1, w/2) x max(1, h/2) x max(1, d/2)`,
/// tightly packed.
pub fn downsample_3d(
    format: Format,
    src: &[u8],
    w_px: u32,
    h_px: u32,
    d_px: u32,
) -> Result<Vec<u8>, LayoutError> {
    check_format(format)?;
    if w_px == 0 || h_px == 0 {
        return Err(LayoutError::ZeroSize {
            width_px: w_px,
            height_px: h_px,
        });
    }
    if d_px == 0 {
        return Err(LayoutError::ZeroDepth {
            target: crate::Target::Tex3D,
        });
    }
    let bpe = format.info().bytes_per_el as usize;
    let (w, h, d) = (w_px as usize, h_px as usize, d_px as usize);
    let need_B = [h, d, bpe]
        .iter()
        .try_fold(w as u64, |n, &k| n.checked_mul(k as u64))
        .unwrap_or(u64::MAX);
    LayoutError::check_len("source image", src.len(), need_B)?;
    let (dw, dh, dd) = ((w / 2).max(1), (h / 2).max(1), (d / 2).max(1));
    // A side of 1 keeps its one texel as both taps.
    let (dx1, dy1, dz1) = (usize::from(w > 1), usize::from(h > 1), usize::from(d > 1));
    let mut out = vec![0u8; dw * dh * dd * bpe];
    let mut o = 0;
    for z in 0..dd {
        let (s0, s1) = (z * (1 + dz1) * h, (z * (1 + dz1) + dz1) * h);
        for y in 0..dh {
            let (y0, y1) = (y * (1 + dy1), y * (1 + dy1) + dy1);
            let rows = [(s0 + y0) * w, (s0 + y1) * w, (s1 + y0) * w, (s1 + y1) * w];
            for x in 0..dw {
                let (c0, c1) = (x * (1 + dx1), x * (1 + dx1) + dx1);
                let t = [
                    rows[0] + c0,
                    rows[0] + c1,
                    rows[1] + c0,
                    rows[1] + c1,
                    rows[2] + c0,
                    rows[2] + c1,
                    rows[3] + c0,
                    rows[3] + c1,
                ]
                .map(|i| read_el(src, i, bpe));
                let v = average(format, t).to_le_bytes();
                out[o..o + bpe].copy_from_slice(&v[..bpe]);
                o += bpe;
            }
        }
    }
    Ok(out)
}

/// Generates levels `base+1..=last` of one face from level `base`, in place in the
/// allocation; bytes outside those levels are left as they were.
pub fn generate_face_mipmaps(
    layout: &Layout,
    alloc: &mut [u8],
    face: u32,
    base: u32,
    last: u32,
) -> Result<(), LayoutError> {
    layout.window(base, last)?;
    layout.face_offset_B(face)?;
    if !can_generate(layout.format) {
        return Err(LayoutError::MipFormat {
            format: layout.format,
        });
    }
    let mut cur = layout.read_level(alloc, face, base)?;
    for level in base + 1..=last {
        let src = layout.level(level - 1)?;
        let next = downsample_3d(
            layout.format,
            &cur,
            src.extent_px.w,
            src.extent_px.h,
            src.depth_px,
        )?;
        layout.write_level(alloc, face, level, &next)?;
        cur = next;
    }
    Ok(())
}

/// Generates levels `base+1..=last` of every face (one for 2D and 3D, six for a cube).
pub fn generate_mipmaps(
    layout: &Layout,
    alloc: &mut [u8],
    base: u32,
    last: u32,
) -> Result<(), LayoutError> {
    // Check everything before writing anything, so an error leaves the allocation untouched.
    layout.window(base, last)?;
    if !can_generate(layout.format) {
        return Err(LayoutError::MipFormat {
            format: layout.format,
        });
    }
    LayoutError::check_len("allocation", alloc.len(), layout.size_B)?;
    for face in 0..layout.faces {
        generate_face_mipmaps(layout, alloc, face, base, last)?;
    }
    Ok(())
}
