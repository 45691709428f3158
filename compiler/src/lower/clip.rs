//! Clip distances in the fragment program: a pixel whose interpolated distance is negative
//! lies outside a user clip plane and is discarded, as GL clips it.
//!
//! The model's clipper knows only the view volume, so clip distances (st/mesa's lowering of
//! `glClipPlane` and `gl_ClipVertex` when the driver does not claim PIPE_CAP_CLIP_PLANES) reach
//! the pixel program as varyings, the way Mesa's `nir_lower_clip_fs` does for hardware
//! without clip distances.

use sgx_hwdocs::usse::{Opcode, Pred};

use super::{imm_src, Lower};
use crate::ir::{Dst, MInst, Reg, RegFile, Src};

impl Lower<'_> {
    /// Discards the pixel if any clip distance lane is negative (NaN compares false: kept).
    /// Emitted in the epilogue, not first: a pixel that stops early freezes its lanes, and
    /// its quad neighbours' derivatives (DDX, implicit-LOD sampling) must still see it run.
    pub(super) fn clip_discard(&mut self) {
        let p0 = Dst {
            reg: Reg {
                file: RegFile::Predicate,
                num: 0,
            },
            mask: 1,
        };
        for &(pa, mask) in &self.io.clip_dists {
            let d = Src::of(Reg {
                file: RegFile::Primary,
                num: pa,
            });
            for c in (0..4u8).filter(|c| mask & (1 << c) != 0) {
                self.code
                    .push(MInst::alu(Opcode::FCLT, p0, d.splat(c), imm_src(0)));
                let mut k = MInst::new(Opcode::KILL);
                k.pred = Pred::P0;
                self.code.push(k);
                self.info.discards = true;
            }
        }
    }
}
