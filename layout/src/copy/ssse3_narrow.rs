//! Groups of whole 16x16 tiles of 1- and 2-byte elements, twiddled to linear, with SSSE3
//! (where the CPU has it but not AVX2: the Atom Z5xx beside the GMA500, for one).
//!
//! Why: SSE2 has no byte shuffle, so `sse2_narrow` undoes the unpack rounds by masking and
//! packing (sixteen operations per four vectors of 1-byte elements, twenty of 2-byte ones).
//! With `pshufb` one shuffle puts each 16-byte vector in row order and a transpose of 4-byte
//! pieces makes the rows: twelve shuffles (`unpack::blocks_to_band_pshufb`, AVX2's inverse
//! per lane). The other direction needs no byte shuffle (SSE2's unpacks interleave), so it
//! stays with `sse2_narrow`. As the AVX2 bodies, the rows are bounds-checked once and the
//! body is compiled once per store type.

use super::sse2_narrow::to_linear;
use super::vector::{per_store, Stores};

/// Whether this CPU runs these bodies (the standard library caches the detection).
pub(super) fn available() -> bool {
    std::arch::is_x86_feature_detected!("ssse3")
}

/// A group of `sse2_narrow::group_of(N)` whole tiles side by side (twiddled starts `ts`)
/// into linear rows `stride` apart from `lin[l..]`, band by band across the group, so each
/// band writes four whole 64-byte lines: `sse2_narrow::group_to_linear`'s body with
/// `pshufb`, compiled here with SSSE3.
///
/// # Safety
/// The CPU must have SSSE3 ([`available`]).
#[target_feature(enable = "ssse3")]
pub(super) unsafe fn group_to_linear<const N: usize>(
    lin: &mut [u8],
    l: usize,
    stride: usize,
    tw: &[u8],
    ts: [usize; 4],
    how: Stores,
) {
    per_store!(how, to_linear::<N, true>(lin, l, stride, tw, ts))
}
