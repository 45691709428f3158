//! sgx535 pipe: the Gallium-style screen and context.
//!
//! A [`Screen`] per winsys device and [`Context`]s that take state, resources and draws and
//! turn them into SGX535 jobs, as a Mesa Gallium driver does for Mesa's state tracker. Models:
//! Mesa's lima and v3d drivers, Gallium's p_screen.h and p_context.h.

// Byte units are `_B` (CONTRIBUTING.md).
#![allow(non_snake_case)]
// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

mod arena;
mod batch;
pub mod caps;
mod clear;
mod const_attr;
mod context;
mod dirty;
mod draw;
mod draw_split;
mod draw_state;
mod emit;
mod emit_memo;
mod error;
mod flush;
mod job_watch;
pub mod mesa_version;
mod poly;
mod program;
mod query;
mod query_ops;
mod readback;
mod reset;
mod resource;
mod screen;
mod shader_cache;
mod sprite;
pub mod state;
mod state_ops;
mod transfer;
mod vertex_format;
mod vertex_translate;

pub use batch::{DEFAULT_PB_BUDGET_B, HELD_BUDGET_B};
pub use caps::{Cap, CapF, ShaderCap, ShaderStage};
pub use clear::clear_flags;
pub use context::{
    Context, ContextStats, RenderCondition, DEFAULT_TIMEOUT, MAX_SAMPLERS, MAX_VERTEX_BUFFERS,
    MAX_VERTEX_SAMPLERS,
};
pub use draw::{DrawInfo, PrimMode};
pub use error::{PipeError, Result};
pub use job_watch::{JobFailure, MAX_KEPT_FAILURES};
pub use mesa_version::MesaVersions;
pub use program::{Program, ShaderState};
pub use query::{Query, QueryType};
pub use reset::{ResetCallback, ResetStatus};
pub use resource::{bind, render_format, Resource, ResourceTarget, ResourceTemplate, Storage};
pub use screen::{HandleLayout, Screen};
pub use sgx_hwdocs::Format;
pub use shader_cache::{CacheStats, ShaderCache};
pub use transfer::{map_flags, PipeBox, Transfer};
