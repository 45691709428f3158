//! Depth/stencil load and store (ZLS) for Z16 and Z24S8 linear buffers.

use sgx_hwdocs::limits::TILE_W_PX;
use sgx_hwdocs::regs as r;
use sgx_hwdocs::Format;

use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::regs::RegFile;
use crate::{Fault, Unit};

const T: u32 = TILE_W_PX as u32;

/// The depth buffer of a render, when ISP_ZLSCTL enables it.
pub(crate) struct Zls {
    fmt: Format,
    base: u32,
    stride: u32,
}

impl Zls {
    pub(crate) fn from_regs(regs: &RegFile) -> Result<Option<Zls>, JobErr> {
        let bad = |e: sgx_hwdocs::DecodeError| JobErr::bad(Unit::Isp, e.to_string());
        let ctl = r::IspZlsctl::unpack(&[regs.get(r::ISP_ZLSCTL)]).map_err(bad)?;
        if ctl.enable == 0 {
            return Ok(None);
        }
        if !matches!(ctl.format, Format::Z16_UNORM | Format::Z24_UNORM_S8_UINT) {
            return Err(JobErr::bad(
                Unit::Isp,
                format!("ZLS format {} is not a depth format", ctl.format.name()),
            ));
        }
        let base = r::ZlsZbase::unpack(&[regs.get(r::ZLS_ZBASE)])
            .map_err(bad)?
            .addr;
        let stride = r::ZlsStride::unpack(&[regs.get(r::ZLS_STRIDE)])
            .map_err(bad)?
            .stride_B;
        Ok(Some(Zls {
            fmt: ctl.format,
            base,
            stride,
        }))
    }

    fn bpe(&self) -> usize {
        if self.fmt == Format::Z16_UNORM {
            2
        } else {
            4
        }
    }

    /// The columns of tile (tx, ty) inside `rect` (exclusive end), and its rows.
    fn window(&self, tx: u32, ty: u32, rect: (u32, u32, u32, u32)) -> [std::ops::Range<u32>; 2] {
        [
            (tx * T).max(rect.0)..((tx + 1) * T).min(rect.2),
            (ty * T).max(rect.1)..((ty + 1) * T).min(rect.3),
        ]
    }

    /// Loads the pixels of tile (tx, ty) inside `rect` (exclusive end) into `depth` and
    /// `stencil`, each when given (a partial clear keeps one half from memory: every element
    /// is read either way). With `fast`, each row held in one mapping is read in one copy and
    /// decoded a row at a time (others, pixel by pixel as the reference).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn load(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        rect: (u32, u32, u32, u32),
        mut depth: Option<&mut [f32; 256]>,
        mut stencil: Option<&mut [u8; 256]>,
        fast: bool,
    ) -> Result<(), Fault> {
        let bpe = self.bpe();
        let [xs, ys] = self.window(tx, ty, rect);
        for y in ys {
            let row = self.base.wrapping_add(y * self.stride);
            let i0 = ((y - ty * T) * T) as usize;
            let n = xs.len();
            if let (true, Some(p)) = (
                fast && n > 0,
                mmu.span(row.wrapping_add(xs.start * bpe as u32), n * bpe, false),
            ) {
                let i = i0 + (xs.start - tx * T) as usize;
                let d = depth.as_deref_mut().map(|d| &mut d[i..i + n]);
                let st = stencil.as_deref_mut().map(|s| &mut s[i..i + n]);
                let mut b = [0u8; 4 * T as usize];
                // SAFETY: span checked that n * bpe bytes at p lie in a readable backing.
                unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n * bpe) };
                decode_row(bpe, &b[..n * bpe], d, st);
                continue;
            }
            for x in xs.clone() {
                let mut b = [0u8; 4];
                let a = row.wrapping_add(x * bpe as u32);
                mmu.read(Unit::Isp, a, &mut b[..bpe])?;
                let i = i0 + (x - tx * T) as usize;
                let (mut dv, mut sv) = (0.0, 0);
                decode(bpe, u32::from_le_bytes(b), &mut dv, &mut sv);
                if let Some(d) = depth.as_deref_mut() {
                    d[i] = dv;
                }
                if let (Some(s), 4) = (stencil.as_deref_mut(), bpe) {
                    s[i] = sv;
                }
            }
        }
        Ok(())
    }

    /// Stores the pixels of tile (tx, ty) inside `rect`. With `fast`, each row held in one
    /// mapping is encoded then written in one copy (others, pixel by pixel as the reference,
    /// which faults at the first pixel not writable with the pixels before it written).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn store(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        rect: (u32, u32, u32, u32),
        depth: &[f32; 256],
        stencil: &[u8; 256],
        fast: bool,
    ) -> Result<(), Fault> {
        let bpe = self.bpe();
        let [xs, ys] = self.window(tx, ty, rect);
        for y in ys {
            let row = self.base.wrapping_add(y * self.stride);
            let i0 = ((y - ty * T) * T) as usize;
            let n = xs.len();
            if let (true, Some(p)) = (
                fast && n > 0,
                mmu.span(row.wrapping_add(xs.start * bpe as u32), n * bpe, true),
            ) {
                let mut b = [0u8; 4 * T as usize];
                let i = i0 + (xs.start - tx * T) as usize;
                encode_row(bpe, &depth[i..i + n], &stencil[i..i + n], &mut b[..n * bpe]);
                // SAFETY: span checked that n * bpe bytes at p lie in a writable backing.
                unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, n * bpe) };
                continue;
            }
            for x in xs.clone() {
                let i = i0 + (x - tx * T) as usize;
                let v = encode(bpe, depth[i], stencil[i]);
                let a = row.wrapping_add(x * bpe as u32);
                mmu.write(Unit::Isp, a, &v.to_le_bytes()[..bpe])?;
            }
        }
        Ok(())
    }
}

/// A depth/stencil element's depth (and stencil, for Z24S8).
#[inline(always)]
// The depth formats' own numbers (Z16: 65535; Z24S8: 24 bits of depth under 8 of stencil),
// as hwdocs's formats define them.
fn decode(bpe: usize, v: u32, depth: &mut f32, stencil: &mut u8) {
    if bpe == 2 {
        *depth = v as f32 / 65535.0;
    } else {
        *depth = (v & 0xff_ffff) as f32 / 16_777_215.0;
        *stencil = (v >> 24) as u8;
    }
}

/// [`decode`] of a row of elements `b` into those of `depth` and `stencil` that are given (a
/// Z16 element has no stencil: its `stencil` is left as it is), in loops of one format each
/// that the compiler vectorises; the same IEEE operations per element.
#[inline(always)]
fn decode_row(bpe: usize, b: &[u8], depth: Option<&mut [f32]>, stencil: Option<&mut [u8]>) {
    if bpe == 2 {
        if let Some(d) = depth {
            for (d, e) in d.iter_mut().zip(b.chunks_exact(2)) {
                *d = f32::from(u16::from_le_bytes([e[0], e[1]])) / 65535.0;
            }
        }
        return;
    }
    if let Some(d) = depth {
        for (d, e) in d.iter_mut().zip(b.chunks_exact(4)) {
            let v = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            // Z24S8's 24 depth bits, as in `decode` (the format's numbers, hwdocs formats).
            *d = (v & 0xff_ffff) as f32 / 16_777_215.0;
        }
    }
    if let Some(s) = stencil {
        for (s, e) in s.iter_mut().zip(b.chunks_exact(4)) {
            *s = e[3];
        }
    }
}

/// [`encode_fast`] of a row into elements `b`, in loops of one format each (no per-element
/// size dispatch or slicing).
#[inline(always)]
fn encode_row(bpe: usize, depth: &[f32], stencil: &[u8], b: &mut [u8]) {
    if bpe == 2 {
        for (e, &d) in b.chunks_exact_mut(2).zip(depth) {
            e.copy_from_slice(&(encode_fast(2, d, 0) as u16).to_le_bytes());
        }
    } else {
        for (e, (&d, &s)) in b.chunks_exact_mut(4).zip(depth.iter().zip(stencil)) {
            e.copy_from_slice(&encode_fast(4, d, s).to_le_bytes());
        }
    }
}

/// [`encode`] without the libm call: for d in [0, 1], `d * 65535` and `d * 16777215` are
/// exact in f64 (24-bit by at most 24-bit mantissas), and so is adding 0.5 below 2^24; the
/// truncation of that is `round()` (half away from zero) for these non-negative values, and
/// NaN goes to 0 in both.
#[inline(always)]
// The same depth format numbers as `decode`.
fn encode_fast(bpe: usize, depth: f32, stencil: u8) -> u32 {
    let d = f64::from(depth.clamp(0.0, 1.0));
    if bpe == 2 {
        (d * 65535.0 + 0.5) as u32
    } else {
        ((d * 16_777_215.0 + 0.5) as u32).min(0xff_ffff) | (u32::from(stencil) << 24)
    }
}

/// A depth/stencil element: Z16, or Z24 in bits 23:0 with stencil in 31:24.
fn encode(bpe: usize, depth: f32, stencil: u8) -> u32 {
    // In f64: in f32, 1.0 * 16777215 + 0.5 rounds up to 2^24 and would carry into the stencil.
    let d = f64::from(depth.clamp(0.0, 1.0));
    if bpe == 2 {
        (d * 65535.0).round() as u32
    } else {
        ((d * 16_777_215.0).round() as u32).min(0xff_ffff) | (u32::from(stencil) << 24)
    }
}

#[cfg(test)]
mod tests {
    /// The fast encoder equals the reference on every f32 in [0, 1] near each code's
    /// halfway points, on the ends, out of range and on NaN.
    #[test]
    fn fast_encode_equals_the_reference() {
        let mut vals = vec![0.0f32, -0.0, 1.0, 2.0, -1.0, f32::NAN, f32::INFINITY, 1e-30];
        for (bpe, k) in [(2usize, 65535u32), (4, 16_777_215)] {
            for code in (0..k).step_by(if bpe == 2 { 1 } else { 97 }) {
                let half = ((f64::from(code) + 0.5) / f64::from(k)) as f32;
                for d in -2i32..=2 {
                    vals.push(f32::from_bits(half.to_bits().wrapping_add_signed(d)));
                }
            }
            for &v in &vals {
                for s in [0u8, 0x5a, 0xff] {
                    assert_eq!(
                        super::encode_fast(bpe, v, s),
                        super::encode(bpe, v, s),
                        "{bpe} {v:e} {s}"
                    );
                }
            }
        }
    }

    #[test]
    fn depth_one_stays_in_its_bits_and_stencil_is_kept() {
        assert_eq!(super::encode(4, 1.0, 0), 0x00ff_ffff);
        assert_eq!(super::encode(4, 1.0, 0x5a), 0x5aff_ffff);
        assert_eq!(super::encode(4, 0.0, 7), 0x0700_0000);
        assert_eq!(super::encode(4, 0.5, 0), 0x0080_0000);
        assert_eq!(super::encode(4, 2.0, 0), 0x00ff_ffff);
        assert_eq!(super::encode(2, 1.0, 9), 0xffff);
        assert_eq!(super::encode(2, -1.0, 9), 0);
    }
}
