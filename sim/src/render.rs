//! Render jobs: the TA phase, then the 3D phase.

use sgx_hwdocs::regs as r;

use crate::job::{JobErr, ProgramCache};
use crate::mmu::Mmu;
use crate::regs::RegFile;
use crate::{event, Counters, JobStatus, Outcome, Unit};

/// Runs a render job: TA, then 3D.
pub(crate) fn run(
    mmu: &Mmu,
    ta_regs: &[(u32, u32)],
    td_regs: &[(u32, u32)],
    paths: crate::ta::Paths,
    threads: &crate::raster::Threads,
    c: &mut Counters,
) -> Outcome {
    let mut events = 0;
    let res = (|| -> Result<(), JobErr> {
        let ta = RegFile::load(ta_regs, r::VDM_START, Unit::Vdm)?;
        let td = RegFile::load(td_regs, r::ISP_START_RENDER, Unit::Isp)?;
        let mut progs = ProgramCache::default();
        let headers_off = match crate::ta::run(mmu, &ta, &mut progs, paths, c) {
            Err(JobErr::Oom) => {
                events |= event::DPM_OOM_GLOBAL;
                return Err(JobErr::Oom);
            }
            r => r?,
        };
        events |= event::TA_FINISHED;
        crate::raster::run(mmu, &td, headers_off, &progs, paths.fast, threads, c)?;
        events |= event::PIXELBE_END_RENDER | event::DPM_3D_MEM_FREE;
        Ok(())
    })();
    Outcome {
        status: res.map_or_else(JobErr::status, |()| JobStatus::Done),
        events,
    }
}
