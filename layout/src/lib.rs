//! sgx535 texture layout engine.
//!
//! - [`Layout`]: where every level and face of a texture lives (2D, cube or 3D; one plain
//!   struct, filled by the pure [`Layout::new`] from a [`Template`]), with small queries: a
//!   level window's byte ranges, a slice's range, a texel's address, a level's PBE clip and
//!   state.
//! - [`copy`]: linear <-> twiddled copies, a per-texel [`copy::reference`] and a fast tile
//!   walk, for whole levels and sub-rectangles; [`Layout::write_rect`] / [`Layout::read_rect`]
//!   apply them to a level of an allocation, [`Layout::write_box`] / [`Layout::read_box`] to
//!   a [`Box3`] of slices of a 3D level, slice by slice.
//! - [`mipgen`]: the CPU box-filter mip generator over a level window (2x2, or 2x2x2 for 3D;
//!   sRGB averaged in linear space).
//! - [`level_table`] and [`mod@bench`] for the `sgx535 layout` and `sgx535 bench twiddle` commands.
//!
//! Naming: sizes and offsets carry their unit as a suffix, `_px`, `_el`, `_tl` and `_B` for
//! bytes, upper case as CONTRIBUTING.md says (hence `non_snake_case`); serialised field
//! names keep the same spelling (`offset_B`).

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]
#![allow(non_snake_case)]
#![warn(missing_docs)]

pub mod bench;
pub mod copy;
mod error;
mod layout;
pub mod mipgen;
pub mod morton;
mod table;
mod transfer;

pub use bench::{bench_twiddle, format_bench, BenchRow};
pub use copy::Rect;
pub use error::LayoutError;
pub use layout::{
    chain_levels, chain_levels_3d, Extent, Layout, LevelLayout, LevelWindow, PbeClip, Target,
    Template, Tiling, CUBE_FACES, CUBE_FACE_NAMES,
};
pub use morton::Twiddle;
pub use table::level_table;
pub use transfer::Box3;
