//! sgx535 winsys: how the driver gets buffers, GPU addresses, submissions and fences from "the
//! kernel": a real one through DRM ([`drm`]), the device model ([`sim`]), or the model with a
//! host fixture's failures injected ([`replay`]).
//!
//! Every backend implements [`Device`]. Buffers ([`Bo`]) carry a [`Reservation`] with dma-resv
//! rules: a job that reads a buffer runs after its writer, a job that writes it after everything;
//! CPU maps wait the same way and time out rather than hang. Each submission returns a
//! [`Fence`], signalled by the backend's worker thread, and is recorded in the [`Trace`].
#![allow(non_snake_case)]
// byte counts end in _B (CONTRIBUTING.md)

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

mod access;
mod bo;
mod device;
pub mod drm;
mod error;
mod faults;
mod fence;
mod job;
mod job_result;
mod live;
pub mod memfd;
mod open;
pub mod replay;
mod reservation;
mod reset;
mod shim_library;
pub mod sim;
mod submit;
mod trace;
pub mod twod;
pub mod va;

pub use crate::drm::DrmDevice;
pub use access::Access;
pub use bo::{Bo, BoDesc, BoFlags, Caching, Mapping};
pub use device::{Backend, Device, DeviceInfo};
pub use error::{Errno, JobError, Result, WinsysError};
pub use faults::{Faults, JobFault};
pub use fence::{signalled_fd, Fence, FenceStatus, UserFence};
pub use job::{Job, JobKind};
pub use job_result::{Counters, JobReport, Unit};
pub use live::{LiveCounts, LiveWatch};
pub use open::{open_from_env, DeviceSpec, DEVICE_ENV};
pub use reservation::Reservation;
pub use reset::{ResetRecord, ResetStatus, DEFAULT_HANG_BUDGET, FOREIGN_CONTEXT};
pub use shim_library::{built_shim_library, SHIM_LIBRARY_FILE};
pub use sim::{SimDevice, SimOptions, MODEL_CORE_REVISION};
pub use trace::{Trace, TraceBo, TraceEntry, TraceResult, TraceTotals};
