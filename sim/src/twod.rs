//! The 2D core: FILL and COPY of linear rectangles from a TwodCmd list.

use sgx_hwdocs::regs as r;
use sgx_hwdocs::twod::{TwodCmd, TwodOp};

use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::regs::RegFile;
use crate::{event, Counters, JobStatus, Outcome, Unit};

fn exec(mmu: &Mmu, regs: &[(u32, u32)], c: &mut Counters) -> Result<(), JobErr> {
    let rf = RegFile::load(regs, r::TWOD_START, Unit::TwoD)?;
    let bad = |e: sgx_hwdocs::DecodeError| JobErr::bad(Unit::TwoD, e.to_string());
    let base = r::TwodCmdBase::unpack(&[rf.get(r::TWOD_CMD_BASE)])
        .map_err(bad)?
        .addr;
    let count = rf.get(r::TWOD_CMD_COUNT);
    let mut row = Vec::new();
    for i in 0..count {
        let mut w = [0u32; TwodCmd::DWORDS];
        mmu.read_dwords(
            Unit::TwoD,
            base.wrapping_add(i * 4 * TwodCmd::DWORDS as u32),
            &mut w,
        )?;
        let cmd = TwodCmd::unpack(&w).map_err(bad)?;
        let bpe = cmd.format.info().bytes_per_el;
        let (wpx, hpx) = (cmd.width_m1 + 1, cmd.height_m1 + 1);
        row.resize((wpx * bpe) as usize, 0);
        for y in 0..hpx {
            let dst = cmd
                .dst_addr
                .wrapping_add((cmd.dst_y + y).wrapping_mul(cmd.dst_stride_B))
                .wrapping_add(cmd.dst_x * bpe);
            match cmd.op {
                TwodOp::FILL => {
                    let v = cmd.fill.to_le_bytes();
                    for px in row.chunks_mut(bpe as usize) {
                        px.copy_from_slice(&v[..bpe as usize]);
                    }
                }
                TwodOp::COPY => {
                    let src = cmd
                        .src_addr
                        .wrapping_add((cmd.src_y + y).wrapping_mul(cmd.src_stride_B))
                        .wrapping_add(cmd.src_x * bpe);
                    mmu.read(Unit::TwoD, src, &mut row)?;
                }
            }
            mmu.write(Unit::TwoD, dst, &row)?;
            c.pbe_bytes_written += row.len() as u64;
        }
    }
    Ok(())
}

/// Runs a 2D job; completion raises twod_complete.
pub(crate) fn run(mmu: &Mmu, regs: &[(u32, u32)], c: &mut Counters) -> Outcome {
    match exec(mmu, regs, c) {
        Ok(()) => Outcome {
            status: JobStatus::Done,
            events: event::TWOD_COMPLETE,
        },
        Err(e) => Outcome {
            status: e.status(),
            events: 0,
        },
    }
}
