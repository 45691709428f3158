//! What a host fixture says a scenario must end with (`expect`) and how the scenario is set up
//! (`setup`). The winsys only parses these; `sgx535 replay` runs the scenarios and checks them.
//! The fields are documented in fixtures/README.md.

use serde::{Deserialize, Serialize};

/// The error kind a caller received, as `expect.error` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The scenario ended without an error.
    None,
    /// The kernel refused a submission (EINVAL, ENOSPC, EBUSY).
    Refused,
    /// A buffer allocation failed with ENOMEM.
    OutOfMemory,
    /// A job ran out of parameter memory (the DPM's out-of-memory event).
    JobOutOfMemory,
    /// A job faulted in the GPU MMU.
    Fault,
    /// A job failed for a reason the kernel reported.
    Failed,
    /// A wait timed out (a job hung).
    Timeout,
    /// The device was lost.
    DeviceLost,
    /// Anything else (a bug in the driver or the scenario).
    Other,
}

impl ErrorKind {
    /// The name fixtures use.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::None => "none",
            ErrorKind::Refused => "refused",
            ErrorKind::OutOfMemory => "out_of_memory",
            ErrorKind::JobOutOfMemory => "job_out_of_memory",
            ErrorKind::Fault => "fault",
            ErrorKind::Failed => "failed",
            ErrorKind::Timeout => "timeout",
            ErrorKind::DeviceLost => "device_lost",
            ErrorKind::Other => "other",
        }
    }
}

/// The expected end of one scenario; a field left out is not checked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The kind of error the caller received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorKind>,
    /// Submissions that reached the kernel, refused ones included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submissions: Option<u64>,
    /// Fences that signalled without error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fences_signalled: Option<u64>,
    /// Parts (levels, steps or frames: the scenario says which) whose bytes are the expected
    /// result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written: Option<Vec<u32>>,
    /// Parts whose bytes are exactly as before the scenario.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<Vec<u32>>,
    /// The CPU generator produced the levels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<bool>,
    /// Buffers, fences and jobs still alive after the driver's objects and the device are
    /// gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaked: Option<u64>,
}

/// Expected ends, per scenario.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expects {
    /// `mipgen`: generate_mipmap of a seed-patterned chain through the blitter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mipgen: Option<Expect>,
    /// `upload`: texture uploads and read-backs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload: Option<Expect>,
    /// `draw`: three flushed draws into one render target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw: Option<Expect>,
    /// `demo`: two frames of glxgears' gears.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demo: Option<Expect>,
}

impl Expects {
    /// The block for scenario `name`.
    pub fn get(&self, name: &str) -> Option<&Expect> {
        match name {
            "mipgen" => self.mipgen.as_ref(),
            "upload" => self.upload.as_ref(),
            "draw" => self.draw.as_ref(),
            "demo" => self.demo.as_ref(),
            _ => None,
        }
    }

    /// Names of the scenarios that have a block, in the order above.
    pub fn scenarios(&self) -> Vec<&'static str> {
        ["mipgen", "upload", "draw", "demo"]
            .into_iter()
            .filter(|n| self.get(n).is_some())
            .collect()
    }
}

/// How scenarios are set up; every field has a default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Side of the mipgen scenario's square texture (a power of two, 2..=2048).
    #[serde(default = "default_mipgen_size")]
    pub mipgen_size_px: u32,
}

fn default_mipgen_size() -> u32 {
    // A small chain (seven levels), not a limit.
    64
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            mipgen_size_px: default_mipgen_size(),
        }
    }
}
