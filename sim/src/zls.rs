//! Depth/stencil load and store (ZLS) for Z16 and Z24S8 linear buffers.

use sgx_hwdocs::limits::TILE_W_PX;
use sgx_hwdocs::regs as r;

use crate::depth::Precision;
use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::regs::RegFile;
use crate::{Fault, Unit};

#[cfg(target_arch = "x86_64")]
mod avx2;

const T: u32 = TILE_W_PX as u32;

/// The depth buffer of a render, when ISP_ZLSCTL enables it.
pub(crate) struct Zls {
    prec: Precision,
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
        let prec = match Precision::of(Some(ctl.format)) {
            Some(p) => p,
            None => {
                return Err(JobErr::bad(
                    Unit::Isp,
                    format!("ZLS format {} is not a depth format", ctl.format.name()),
                ))
            }
        };
        let base = r::ZlsZbase::unpack(&[regs.get(r::ZLS_ZBASE)])
            .map_err(bad)?
            .addr;
        let stride = r::ZlsStride::unpack(&[regs.get(r::ZLS_STRIDE)])
            .map_err(bad)?
            .stride_B;
        Ok(Some(Zls { prec, base, stride }))
    }

    /// The precision the ISP keeps this buffer's depth at.
    pub(crate) fn precision(&self) -> Precision {
        self.prec
    }

    fn bpe(&self) -> usize {
        if self.prec == Precision::Unorm16 {
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
        self.each_row(mmu, (tx, ty), rect, fast, false, |row| {
            let n = row.xs.len();
            if let Some(p) = row.span {
                let i = row.index(row.xs.start);
                let d = depth.as_deref_mut().map(|d| &mut d[i..i + n]);
                let st = stencil.as_deref_mut().map(|s| &mut s[i..i + n]);
                let mut b = [0u8; 4 * T as usize];
                // SAFETY: span checked that n * bpe bytes at p lie in a readable backing.
                unsafe { std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n * bpe) };
                decode_row_fast(self.prec, &b[..n * bpe], d, st);
                return Ok(());
            }
            for x in row.xs.clone() {
                let mut b = [0u8; 4];
                let a = row.addr.wrapping_add(x * bpe as u32);
                mmu.read(Unit::Isp, a, &mut b[..bpe])?;
                let i = row.index(x);
                let (mut dv, mut sv) = (0.0, 0);
                decode(self.prec, u32::from_le_bytes(b), &mut dv, &mut sv);
                if let Some(d) = depth.as_deref_mut() {
                    d[i] = dv;
                }
                if let (Some(s), true) = (stencil.as_deref_mut(), self.prec == Precision::Unorm24) {
                    s[i] = sv;
                }
            }
            Ok(())
        })
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
        self.each_row(mmu, (tx, ty), rect, fast, true, |row| {
            let n = row.xs.len();
            if let Some(p) = row.span {
                let mut b = [0u8; 4 * T as usize];
                let i = row.index(row.xs.start);
                encode_row_fast(
                    self.prec,
                    &depth[i..i + n],
                    &stencil[i..i + n],
                    &mut b[..n * bpe],
                );
                // SAFETY: span checked that n * bpe bytes at p lie in a writable backing.
                unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p, n * bpe) };
                return Ok(());
            }
            for x in row.xs.clone() {
                let i = row.index(x);
                let v = encode(self.prec, depth[i], stencil[i]);
                let a = row.addr.wrapping_add(x * bpe as u32);
                mmu.write(Unit::Isp, a, &v.to_le_bytes()[..bpe])?;
            }
            Ok(())
        })
    }

    /// Calls `f` for each row of tile (tx, ty) inside `rect`, top first; with `fast`,
    /// a non-empty row whose bytes lie in one mapping (writable when `write`, else readable)
    /// comes with the host pointer to them.
    fn each_row(
        &self,
        mmu: &Mmu,
        (tx, ty): (u32, u32),
        rect: (u32, u32, u32, u32),
        fast: bool,
        write: bool,
        mut f: impl FnMut(Row) -> Result<(), Fault>,
    ) -> Result<(), Fault> {
        let bpe = self.bpe();
        let [xs, ys] = self.window(tx, ty, rect);
        for y in ys {
            let addr = self.base.wrapping_add(y * self.stride);
            let n = xs.len();
            let start = addr.wrapping_add(xs.start * bpe as u32);
            f(Row {
                addr,
                i0: ((y - ty * T) * T) as usize,
                x0: tx * T,
                xs: xs.clone(),
                span: if fast && n > 0 {
                    mmu.span(start, n * bpe, write)
                } else {
                    None
                },
            })?;
        }
        Ok(())
    }
}

/// One row of a tile's window (`Zls::each_row`).
struct Row {
    /// Address of the row's pixel 0 in the buffer.
    addr: u32,
    /// Tile index of the tile's first pixel in this row.
    i0: usize,
    /// The tile's first column.
    x0: u32,
    /// The window's columns.
    xs: std::ops::Range<u32>,
    /// The host pointer to the window's bytes of this row, when they may be copied at once.
    span: Option<*mut u8>,
}

impl Row {
    /// The tile index of column `x` of this row.
    fn index(&self, x: u32) -> usize {
        self.i0 + (x - self.x0) as usize
    }
}

/// A depth/stencil element's depth (and stencil, for Z24S8).
#[inline(always)]
// Z24S8 keeps its 24 bits of depth under 8 of stencil, as hwdocs's formats define it.
fn decode(p: Precision, v: u32, depth: &mut f32, stencil: &mut u8) {
    *depth = p.decode(v & p.max_code());
    if p == Precision::Unorm24 {
        *stencil = (v >> 24) as u8;
    }
}

/// [`decode`] of a row of elements `b` into those of `depth` and `stencil` that are given (a
/// Z16 element has no stencil: its `stencil` is left as it is), in loops of one format each
/// that the compiler vectorises; the same operations per element.
#[inline(always)]
fn decode_row(p: Precision, b: &[u8], depth: Option<&mut [f32]>, stencil: Option<&mut [u8]>) {
    if p == Precision::Unorm16 {
        if let Some(d) = depth {
            for (d, e) in d.iter_mut().zip(b.chunks_exact(2)) {
                *d = p.decode(u32::from(u16::from_le_bytes([e[0], e[1]])));
            }
        }
        return;
    }
    if let Some(d) = depth {
        for (d, e) in d.iter_mut().zip(b.chunks_exact(4)) {
            let v = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
            *d = p.decode(v & p.max_code());
        }
    }
    if let Some(s) = stencil {
        for (s, e) in s.iter_mut().zip(b.chunks_exact(4)) {
            *s = e[3];
        }
    }
}

/// [`decode_row`] with Z24S8's stencil eight elements at a time where the CPU has AVX2.
#[inline(always)]
fn decode_row_fast(p: Precision, b: &[u8], depth: Option<&mut [f32]>, stencil: Option<&mut [u8]>) {
    #[cfg(target_arch = "x86_64")]
    if p == Precision::Unorm24 && stencil.is_some() && std::arch::is_x86_feature_detected!("avx2") {
        decode_row(p, b, depth, None);
        if let Some(s) = stencil {
            // SAFETY: AVX2 was detected just above.
            unsafe { avx2::stencil_z24s8(b, s) };
        }
        return;
    }
    decode_row(p, b, depth, stencil);
}

/// [`encode_row`] eight Z24S8 elements at a time where the CPU has AVX2.
#[inline(always)]
fn encode_row_fast(p: Precision, depth: &[f32], stencil: &[u8], b: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if p == Precision::Unorm24 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected just above.
        unsafe { avx2::encode_z24s8(depth, stencil, b) };
        return;
    }
    encode_row(p, depth, stencil, b);
}

/// [`encode_fast`] of a row into elements `b`, in loops of one format each (no per-element
/// size dispatch or slicing).
#[inline(always)]
fn encode_row(p: Precision, depth: &[f32], stencil: &[u8], b: &mut [u8]) {
    if p == Precision::Unorm16 {
        for (e, &d) in b.chunks_exact_mut(2).zip(depth) {
            e.copy_from_slice(&(encode_fast(p, d, 0) as u16).to_le_bytes());
        }
    } else {
        for (e, (&d, &s)) in b.chunks_exact_mut(4).zip(depth.iter().zip(stencil)) {
            e.copy_from_slice(&encode_fast(p, d, s).to_le_bytes());
        }
    }
}

/// [`encode`] with the depth's fast encoder.
#[inline(always)]
fn encode_fast(p: Precision, depth: f32, stencil: u8) -> u32 {
    pack(p, p.encode_fast(depth), stencil)
}

/// A depth/stencil element: Z16, or Z24 in bits 23:0 with stencil in 31:24.
fn encode(p: Precision, depth: f32, stencil: u8) -> u32 {
    pack(p, p.encode(depth), stencil)
}

#[inline(always)]
fn pack(p: Precision, code: u32, stencil: u8) -> u32 {
    if p == Precision::Unorm24 {
        code | (u32::from(stencil) << 24)
    } else {
        code
    }
}

#[cfg(test)]
mod tests {
    use crate::depth::Precision::{Unorm16, Unorm24};

    /// The fast element encoder equals the reference on depths around each code's halfway
    /// points, on the ends, out of range and on NaN, with every kind of stencil.
    #[test]
    fn fast_encode_equals_the_reference() {
        let mut vals = vec![0.0f32, -0.0, 1.0, 2.0, -1.0, f32::NAN, f32::INFINITY, 1e-30];
        for (p, k) in [(Unorm16, 65535u32), (Unorm24, 16_777_215)] {
            for code in (0..k).step_by(if p == Unorm16 { 1 } else { 97 }) {
                let half = ((f64::from(code) + 0.5) / f64::from(k)) as f32;
                for d in -2i32..=2 {
                    vals.push(f32::from_bits(half.to_bits().wrapping_add_signed(d)));
                }
            }
            for &v in &vals {
                for s in [0u8, 0x5a, 0xff] {
                    assert_eq!(
                        super::encode_fast(p, v, s),
                        super::encode(p, v, s),
                        "{p:?} {v:e} {s}"
                    );
                }
            }
        }
    }

    #[test]
    fn depth_one_stays_in_its_bits_and_stencil_is_kept() {
        assert_eq!(super::encode(Unorm24, 1.0, 0), 0x00ff_ffff);
        assert_eq!(super::encode(Unorm24, 1.0, 0x5a), 0x5aff_ffff);
        assert_eq!(super::encode(Unorm24, 0.0, 7), 0x0700_0000);
        assert_eq!(super::encode(Unorm24, 0.5, 0), 0x0080_0000);
        assert_eq!(super::encode(Unorm24, 2.0, 0), 0x00ff_ffff);
        assert_eq!(super::encode(Unorm16, 1.0, 9), 0xffff);
        assert_eq!(super::encode(Unorm16, -1.0, 9), 0);
    }

    /// A Z24S8 element decodes its depth from bits 23:0 and its stencil from 31:24; a Z16
    /// element leaves the stencil as it was.
    #[test]
    fn elements_decode_depth_and_stencil() {
        let (mut d, mut s) = (0.0f32, 3u8);
        super::decode(Unorm24, 0x5a80_0000, &mut d, &mut s);
        assert_eq!((d, s), (8_388_608.0 / 16_777_215.0, 0x5a));
        super::decode(Unorm16, 0x8000, &mut d, &mut s);
        assert_eq!((d, s), (32768.0 / 65535.0, 0x5a));
    }
}
