//! sgx535 blitter: internal draws on a context that leave the application's state and queries
//! as they were — above all generate_mipmap through fenced per-level submissions, as the
//! project's seed article describes. State handling after Mesa's u_blitter.

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

mod admission;
mod blit;
mod blitter;
mod clear;
mod error;
mod mipgen;
pub mod pattern;
mod save;
pub mod shaders;

pub use admission::{
    record as record_admission, Admission, AdmissionEntry, DeviceKind, Evidence, MipRequest,
};
pub use blit::BlitInfo;
pub use blitter::Blitter;
pub use clear::SurfaceRect;
pub use error::{BlitError, Result};
pub use mipgen::{MipgenReport, Pass, Route};
pub use save::{SaveGuard, SavedState};
