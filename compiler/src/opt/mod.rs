//! The passes that pay for themselves: copy propagation with immediate folding, dead code,
//! and move coalescing, run to a fixed point.

mod coalesce;
mod copyprop;
mod dce;
pub mod live;

use crate::ir::Code;

/// Optimises `code` in place.
pub fn optimize(code: &mut Code) {
    // Each pass only removes instructions or rewrites operands, so this terminates; the
    // bound is a guard against a pass pair undoing each other.
    for _ in 0..16 {
        let mut changed = copyprop::propagate(code);
        changed |= dce::dead_code(code);
        changed |= coalesce::coalesce(code);
        if !changed {
            break;
        }
    }
}
