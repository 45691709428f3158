//! The register file a job programs: (offset, value) writes, checked against hwdocs.

use sgx_hwdocs::regs as r;
use sgx_hwdocs::DecodeError;

use crate::job::JobErr;
use crate::Unit;

/// Register values a job wrote (unwritten registers read 0).
pub(crate) struct RegFile {
    vals: Vec<u32>,
}

fn check(off: u32, v: u32) -> Option<Result<(), DecodeError>> {
    let d = [v];
    let arr = |base: u32, count: u32, stride: u32| {
        off >= base && off < base + count * stride && base + (off - base) / stride * stride == off
    };
    Some(match off {
        r::CORE_REVISION => r::CoreRevision::unpack(&d).map(drop),
        r::SOFT_RESET => r::SoftReset::unpack(&d).map(drop),
        r::EVENT_HOST_ENABLE2 => r::EventHostEnable2::unpack(&d).map(drop),
        r::EVENT_HOST_CLEAR2 => r::EventHostClear2::unpack(&d).map(drop),
        r::EVENT_STATUS2 => r::EventStatus2::unpack(&d).map(drop),
        r::EVENT_STATUS => r::EventStatus::unpack(&d).map(drop),
        r::EVENT_HOST_ENABLE | r::EVENT_HOST_CLEAR => Ok(()),
        r::VDM_START => r::VdmStart::unpack(&d).map(drop),
        r::VDM_CTRL_STREAM_BASE => r::VdmCtrlStreamBase::unpack(&d).map(drop),
        r::TE_SCREEN => r::TeScreen::unpack(&d).map(drop),
        r::ISP_START_RENDER => r::IspStartRender::unpack(&d).map(drop),
        r::ISP_ZLSCTL => r::IspZlsctl::unpack(&d).map(drop),
        r::ISP_BGOBJDEPTH => r::IspBgobjdepth::unpack(&d).map(drop),
        r::PDS_EXEC_BASE => r::PdsExecBase::unpack(&d).map(drop),
        r::BIF_CTRL => r::BifCtrl::unpack(&d).map(drop),
        r::BIF_INT_STAT => r::BifIntStat::unpack(&d).map(drop),
        r::BIF_FAULT => r::BifFault::unpack(&d).map(drop),
        r::BIF_TWOD_REQ_BASE | r::BIF_TA_REQ_BASE | r::BIF_3D_REQ_BASE => Ok(()),
        r::DPM_PB_BASE => r::DpmPbBase::unpack(&d).map(drop),
        r::DPM_PB_SIZE => Ok(()),
        r::TILE_CTRL_BASE => r::TileCtrlBase::unpack(&d).map(drop),
        r::BGOBJ_STENCIL => r::BgobjStencil::unpack(&d).map(drop),
        r::ZLS_ZBASE => r::ZlsZbase::unpack(&d).map(drop),
        r::ZLS_STRIDE => r::ZlsStride::unpack(&d).map(drop),
        r::TWOD_CMD_BASE => r::TwodCmdBase::unpack(&d).map(drop),
        r::TWOD_CMD_COUNT => Ok(()),
        r::TWOD_START => r::TwodStart::unpack(&d).map(drop),
        _ if arr(
            r::USE_CODE_BASE,
            r::USE_CODE_BASE_COUNT,
            r::USE_CODE_BASE_STRIDE,
        ) =>
        {
            r::UseCodeBase::unpack(&d).map(drop)
        }
        _ if arr(r::PBE_STATE, r::PBE_STATE_COUNT, r::PBE_STATE_STRIDE) => Ok(()),
        _ if arr(
            r::BGOBJ_COLOUR,
            r::BGOBJ_COLOUR_COUNT,
            r::BGOBJ_COLOUR_STRIDE,
        ) =>
        {
            Ok(())
        }
        _ => return None,
    })
}

impl RegFile {
    /// Applies `writes` in order; an unknown offset or a value a register cannot hold is
    /// BadState of `unit`. The list must end with a write of bit 0 to `kick`.
    pub(crate) fn load(writes: &[(u32, u32)], kick: u32, unit: Unit) -> Result<RegFile, JobErr> {
        // The register window the model keeps (the hwdocs offsets all sit below 4 KiB).
        let mut vals = vec![0u32; 0x1000 / 4];
        for &(off, v) in writes {
            match check(off, v) {
                None => {
                    return Err(JobErr::bad(
                        unit,
                        format!("write to unknown register {off:#x}"),
                    ))
                }
                Some(Err(e)) => {
                    return Err(JobErr::bad(
                        unit,
                        format!("register {off:#x} = {v:#x}: {e}"),
                    ))
                }
                Some(Ok(())) => vals[(off / 4) as usize] = v,
            }
        }
        match writes.last() {
            Some(&(off, v)) if off == kick && v & 1 == 1 => Ok(RegFile { vals }),
            _ => Err(JobErr::bad(
                unit,
                format!("register list does not end with the kick ({kick:#x} = 1)"),
            )),
        }
    }

    pub(crate) fn get(&self, off: u32) -> u32 {
        self.vals[(off / 4) as usize]
    }
}
