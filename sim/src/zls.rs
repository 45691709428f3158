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
            .stride_b;
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

    /// Loads the pixels of tile (tx, ty) inside `rect` (exclusive end).
    pub(crate) fn load(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        rect: (u32, u32, u32, u32),
        depth: &mut [f32; 256],
        stencil: &mut [u8; 256],
    ) -> Result<(), Fault> {
        let bpe = self.bpe();
        for y in (ty * T).max(rect.1)..((ty + 1) * T).min(rect.3) {
            for x in (tx * T).max(rect.0)..((tx + 1) * T).min(rect.2) {
                let mut b = [0u8; 4];
                let a = self
                    .base
                    .wrapping_add(y * self.stride)
                    .wrapping_add(x * bpe as u32);
                mmu.read(Unit::Isp, a, &mut b[..bpe])?;
                let v = u32::from_le_bytes(b);
                let i = ((y - ty * T) * T + x - tx * T) as usize;
                if bpe == 2 {
                    depth[i] = v as f32 / 65535.0;
                } else {
                    depth[i] = (v & 0xff_ffff) as f32 / 16_777_215.0;
                    stencil[i] = (v >> 24) as u8;
                }
            }
        }
        Ok(())
    }

    /// Stores the pixels of tile (tx, ty) inside `rect`.
    pub(crate) fn store(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        rect: (u32, u32, u32, u32),
        depth: &[f32; 256],
        stencil: &[u8; 256],
    ) -> Result<(), Fault> {
        let bpe = self.bpe();
        for y in (ty * T).max(rect.1)..((ty + 1) * T).min(rect.3) {
            for x in (tx * T).max(rect.0)..((tx + 1) * T).min(rect.2) {
                let i = ((y - ty * T) * T + x - tx * T) as usize;
                let v = encode(bpe, depth[i], stencil[i]);
                let a = self
                    .base
                    .wrapping_add(y * self.stride)
                    .wrapping_add(x * bpe as u32);
                mmu.write(Unit::Isp, a, &v.to_le_bytes()[..bpe])?;
            }
        }
        Ok(())
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
