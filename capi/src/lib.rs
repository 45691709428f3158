//! libsgx535: the sgx535 driver's C ABI, for Mesa's Gallium glue and an emulator's GL layer.
//!
//! One C call per Gallium callback (screen, resources, contexts, state objects, draws,
//! transfers, queries, fences), with Gallium's names and Mesa 22.3's numbering of every enum,
//! so the glue passes values through; the layout engine without a device; a versioned table of
//! entry points in the manner of libglvnd's vendor interface (`sgx535_get_interface`).
//!
//! The contract every entry point keeps (written once here rather than on each):
//! - it returns `sgx535_status`; on failure the calling thread's
//!   `sgx535_last_error_message()` says why. A Rust panic never crosses into C: it becomes
//!   `SGX535_ERROR_INTERNAL`.
//! - # Safety: every pointer argument is NULL or valid for what its type says for the duration
//!   of the call (a struct read or written, `count` array elements, a NUL-terminated string,
//!   the number of bytes given); the library checks NULL and alignment, and never keeps a
//!   pointer after the call returns, except the one `sgx535_transfer_map` hands out.
//! - handles are values, not pointers: a null, destroyed, wrong-type or foreign handle is
//!   `SGX535_ERROR_INVALID_HANDLE`, never a crash.
//! - threads: a screen and its resources and fences may be used from any thread; a context,
//!   and the objects made on it, from one thread at a time (as Gallium's p_context.h says).

#![allow(clippy::missing_safety_doc)] // The crate-level contract above covers every entry.
#![allow(non_snake_case)] // Byte units in names: offset_B, size_B.

mod blit_zs;
mod box_;
mod call_lock;
mod context;
mod cso;
mod device;
mod draw;
mod failures;
mod fence;
mod ffi;
mod gallium;
mod gallium_enums;
mod handles;
mod interface;
mod layout_api;
mod params;
mod query;
mod resource;
mod screen;
mod stats;
mod status;
mod transfer;
mod views;

pub use box_::*;
pub use context::*;
pub use cso::*;
pub use device::*;
pub use draw::*;
pub use failures::*;
pub use fence::*;
pub use ffi::sgx535_last_error_message;
pub use interface::*;
pub use layout_api::*;
pub use params::*;
pub use query::*;
pub use resource::*;
pub use screen::*;
pub use stats::*;
pub use status::sgx535_status;
pub use status::sgx535_status::*;
pub use transfer::*;
pub use views::*;

/// Objects alive in the handle table (for leak checks).
pub fn live_handles() -> usize {
    handles::live_count()
}
