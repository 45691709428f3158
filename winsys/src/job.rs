//! Jobs: one render (TA then 3D) or one 2D job, with the buffers it uses and its in-fences.

use sgx_hwdocs::regs;

use crate::access::Access;
use crate::bo::Bo;
use crate::error::{Result, WinsysError};
use crate::fence::Fence;

/// What a job runs: register writes (offset, value) per phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// A render: the TA phase (ends with VDM_START), then the 3D phase (ends with ISP_START_RENDER).
    Render {
        /// TA phase register writes.
        ta_regs: Vec<(u32, u32)>,
        /// 3D phase register writes.
        td_regs: Vec<(u32, u32)>,
    },
    /// A 2D job: register writes ending with TWOD_START.
    TwoD {
        /// 2D register writes.
        regs: Vec<(u32, u32)>,
    },
}

impl JobKind {
    /// "render" or "2d", as the trace names it.
    pub fn name(&self) -> &'static str {
        match self {
            JobKind::Render { .. } => "render",
            JobKind::TwoD { .. } => "2d",
        }
    }
}

/// One submission: what to run, the buffers it uses (control streams, programs, targets,
/// textures: every buffer the GPU touches) and explicit in-fences.
#[derive(Clone, Debug)]
pub struct Job {
    /// What to run.
    pub kind: JobKind,
    /// Buffers and how the job uses them; the job is ordered after their implicit fences.
    pub bos: Vec<(Bo, Access)>,
    /// Explicit fences to wait for, besides the implicit ones.
    pub in_fences: Vec<Fence>,
    /// The submitting context (0: none). A hang makes it the guilty context of the reset.
    pub context: u64,
}

impl Job {
    /// A render job.
    pub fn render(ta_regs: Vec<(u32, u32)>, td_regs: Vec<(u32, u32)>) -> Job {
        Job {
            kind: JobKind::Render { ta_regs, td_regs },
            bos: Vec::new(),
            in_fences: Vec::new(),
            context: 0,
        }
    }

    /// A 2D job.
    pub fn two_d(regs: Vec<(u32, u32)>) -> Job {
        Job {
            kind: JobKind::TwoD { regs },
            bos: Vec::new(),
            in_fences: Vec::new(),
            context: 0,
        }
    }

    /// Adds a buffer the job uses.
    pub fn with_bo(mut self, bo: &Bo, access: Access) -> Job {
        self.bos.push((bo.clone(), access));
        self
    }

    /// Names the submitting context (see [`Job::context`]).
    pub fn in_context(mut self, context: u64) -> Job {
        self.context = context;
        self
    }

    /// Adds an explicit in-fence.
    pub fn after(mut self, fence: &Fence) -> Job {
        self.in_fences.push(fence.clone());
        self
    }

    /// Checks the job and merges duplicate buffers (their accesses united). `device` is the
    /// submitting device's id: buffers and fences of other devices are refused.
    pub(crate) fn validate(mut self, device: u64) -> Result<Job> {
        match &self.kind {
            JobKind::Render { ta_regs, td_regs } => {
                check_regs("TA", ta_regs, regs::VDM_START)?;
                check_regs("3D", td_regs, regs::ISP_START_RENDER)?;
            }
            JobKind::TwoD { regs: r } => check_regs("2D", r, regs::TWOD_START)?,
        }
        let mut merged: Vec<(Bo, Access)> = Vec::with_capacity(self.bos.len());
        for (bo, access) in self.bos.drain(..) {
            if bo.device() != device {
                return Err(WinsysError::ForeignObject("buffer"));
            }
            match merged.iter_mut().find(|(b, _)| b.id() == bo.id()) {
                Some((_, a)) => *a = a.union(access),
                None => merged.push((bo, access)),
            }
        }
        for (bo, access) in &merged {
            if access.writes() && bo.flags().gpu_read_only {
                return Err(WinsysError::InvalidJob(format!(
                    "buffer {} is GPU read-only but the job writes it",
                    bo.id()
                )));
            }
        }
        self.bos = merged;
        if self.in_fences.iter().any(|f| f.device() != device) {
            return Err(WinsysError::ForeignObject("fence"));
        }
        Ok(self)
    }
}

/// A phase's register list: 4-byte aligned offsets, ending with its kick (bit 0 set).
fn check_regs(phase: &str, list: &[(u32, u32)], kick: u32) -> Result<()> {
    if let Some((off, _)) = list.iter().find(|(off, _)| off % 4 != 0) {
        return Err(WinsysError::InvalidJob(format!(
            "{phase} register offset {off:#x} is not 4-byte aligned"
        )));
    }
    match list.last() {
        Some(&(off, val)) if off == kick && val & 1 == 1 => Ok(()),
        _ => Err(WinsysError::InvalidJob(format!(
            "{phase} register list must end with a write of bit 0 to {kick:#x}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_lists_must_end_with_their_kick() {
        let ok = Job::two_d(vec![(regs::TWOD_CMD_COUNT, 1), (regs::TWOD_START, 1)]);
        assert!(ok.validate(0).is_ok());
        let no_kick = Job::two_d(vec![(regs::TWOD_CMD_COUNT, 1)]);
        assert!(matches!(
            no_kick.validate(0),
            Err(WinsysError::InvalidJob(_))
        ));
        let zero_kick = Job::two_d(vec![(regs::TWOD_START, 0)]);
        assert!(matches!(
            zero_kick.validate(0),
            Err(WinsysError::InvalidJob(_))
        ));
        let unaligned = Job::two_d(vec![(0x12, 1), (regs::TWOD_START, 1)]);
        assert!(matches!(
            unaligned.validate(0),
            Err(WinsysError::InvalidJob(_))
        ));
        let render = Job::render(vec![(regs::VDM_START, 1)], vec![]);
        assert!(matches!(
            render.validate(0),
            Err(WinsysError::InvalidJob(_))
        ));
        let render = Job::render(
            vec![(regs::VDM_START, 1)],
            vec![(regs::ISP_START_RENDER, 1)],
        );
        assert!(render.validate(0).is_ok());
    }
}
