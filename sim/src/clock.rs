//! The model clock: a deterministic cycle estimate per job (MODEL; no SGX535 timings are
//! public). It only has to be monotonic and plausible in scale.

use crate::{Counters, JobDesc};

/// Cycles a job takes on the model clock.
pub(crate) fn job_cycles(job: &JobDesc, c: &Counters) -> u64 {
    let setup = match job {
        JobDesc::Render { ta_regs, td_regs } => 2000 + 4 * (ta_regs.len() + td_regs.len()) as u64,
        JobDesc::TwoD { regs } => 500 + 4 * regs.len() as u64,
    };
    // Two USE pipes (hw-facts); one texel per cycle; 8 PBE bytes per cycle; a tile's ISP pass.
    setup
        + 20 * c.prims_binned
        + 64 * c.tiles_rendered
        + c.usse_instructions / 2
        + c.texels_fetched
        + c.pbe_bytes_written / 8
        + c.pixels_shaded / 4
}
