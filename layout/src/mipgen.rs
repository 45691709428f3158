//! The CPU mip generator the blitter falls back to: level L to L+1 with a 2x2 box filter.
//!
//! Box rules (as GL's reference mipmap code): destination (x, y) averages source columns
//! 2x, 2x+1 and rows 2y, 2y+1; an odd side drops its last column or row; a side of 1 is not
//! halved, so its two taps are the same texel and the other side's pair is averaged.
//! unorm channels round exactly at their own width, `(a + b + c + d + 2) / 4`; packed 565,
//! 4444 and 1555 are unpacked, averaged per channel and repacked. Float channels (16 or 32
//! bits) are averaged in f64 and rounded once, to nearest even, into their format.

use half::f16;
use sgx_hwdocs::{Format, FormatKind};

use crate::{Layout, LayoutError};

/// Whether the CPU generator can filter a format: sampleable, uncompressed, unorm or float,
/// at most 8 bytes per texel, float channels of 16 or 32 bits.
pub fn can_generate(format: Format) -> bool {
    let info = format.info();
    let shape_ok =
        info.sampleable && info.block_w_px == 1 && info.block_h_px == 1 && info.bytes_per_el <= 8;
    shape_ok
        && match info.kind {
            FormatKind::Unorm => info.channels.iter().all(|c| c.bits <= 32),
            FormatKind::Float => info.channels.iter().all(|c| c.bits == 16 || c.bits == 32),
            _ => false,
        }
}

fn read_el(src: &[u8], i: usize, bpe: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..bpe].copy_from_slice(&src[i * bpe..][..bpe]);
    u64::from_le_bytes(b)
}

/// Averages four texels of `format` (packed little-endian in u64s).
fn average(format: Format, t: [u64; 4]) -> u64 {
    let info = format.info();
    let mut out = 0u64;
    for c in info.channels {
        let mask = (1u64 << c.bits) - 1;
        let ch = t.map(|v| (v >> c.lo) & mask);
        let v = match info.kind {
            FormatKind::Float if c.bits == 16 => {
                let sum: f64 = ch
                    .iter()
                    .map(|&h| f64::from(f16::from_bits(h as u16)))
                    .sum();
                u64::from(f16::from_f64(sum / 4.0).to_bits())
            }
            FormatKind::Float => {
                let sum: f64 = ch
                    .iter()
                    .map(|&f| f64::from(f32::from_bits(f as u32)))
                    .sum();
                u64::from(((sum / 4.0) as f32).to_bits())
            }
            _ => (ch.iter().sum::<u64>() + 2) >> 2,
        };
        out |= (v & mask) << c.lo;
    }
    out
}

/// Box-filters a tightly packed `w_px x h_px` image of `format` into the next level,
/// `max(1, w/2) x max(1, h/2)`, tightly packed.
pub fn downsample(
    format: Format,
    src: &[u8],
    w_px: u32,
    h_px: u32,
) -> Result<Vec<u8>, LayoutError> {
    if !can_generate(format) {
        return Err(LayoutError::MipFormat { format });
    }
    if w_px == 0 || h_px == 0 {
        return Err(LayoutError::ZeroSize {
            width_px: w_px,
            height_px: h_px,
        });
    }
    let bpe = format.info().bytes_per_el as usize;
    let (w, h) = (w_px as usize, h_px as usize);
    let need_B = (w * h * bpe) as u64;
    if (src.len() as u64) < need_B {
        return Err(LayoutError::BufferTooSmall {
            what: "source image",
            len_B: src.len(),
            need_B,
        });
    }
    let (dw, dh) = ((w / 2).max(1), (h / 2).max(1));
    // A side of 1 keeps its one texel as both taps.
    let (dx1, dy1) = (usize::from(w > 1), usize::from(h > 1));
    let mut out = vec![0u8; dw * dh * bpe];
    for y in 0..dh {
        let (r0, r1) = (y * (1 + dy1) * w, (y * (1 + dy1) + dy1) * w);
        for x in 0..dw {
            let (c0, c1) = (x * (1 + dx1), x * (1 + dx1) + dx1);
            let t = [r0 + c0, r0 + c1, r1 + c0, r1 + c1].map(|i| read_el(src, i, bpe));
            let v = average(format, t).to_le_bytes();
            out[(y * dw + x) * bpe..][..bpe].copy_from_slice(&v[..bpe]);
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
        let src = layout.level(level - 1)?.extent_px;
        let next = downsample(layout.format, &cur, src.w, src.h)?;
        layout.write_level(alloc, face, level, &next)?;
        cur = next;
    }
    Ok(())
}

/// Generates levels `base+1..=last` of every face (one for 2D, six for a cube).
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
    if (alloc.len() as u64) < layout.size_B {
        return Err(LayoutError::BufferTooSmall {
            what: "allocation",
            len_B: alloc.len(),
            need_B: layout.size_B,
        });
    }
    for face in 0..layout.faces {
        generate_face_mipmaps(layout, alloc, face, base, last)?;
    }
    Ok(())
}
