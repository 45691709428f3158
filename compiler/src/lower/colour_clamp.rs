//! GL 2.1 clamps the colours a vertex program writes to [0, 1] before interpolation (there is
//! no ARB_color_buffer_float here: the screen answers PIPE_CAP_VERTEX_COLOR_UNCLAMPED with 0,
//! so st/mesa leaves the clamp to the driver). The vertex epilogue saturates every COLOR and
//! BCOLOR output in place, only the lanes the output owns when it shares a packed slot.

use sgx_hwdocs::usse::Opcode;

use super::{imm_src, Lower};
use crate::io::declared;
use crate::ir::{Dst, MInst, RegFile, Src};
use crate::tgsi::{File, SemanticName};

impl Lower<'_> {
    pub(super) fn clamp_colours(&mut self) {
        let colours: Vec<u32> = declared(self.sh, File::Output)
            .into_iter()
            .filter(|(_, d)| {
                matches!(
                    d.semantic.map(|s| s.name),
                    Some(SemanticName::Color | SemanticName::BColor)
                )
            })
            .map(|(i, _)| i)
            .collect();
        for i in colours {
            let Some(&reg) = self.outs.get(&i) else {
                continue;
            };
            if reg.file != RegFile::Output {
                continue;
            }
            let mask = match self.io.output_lanes.get(&i) {
                Some(&(shift, lanes)) => (((1u16 << lanes.min(4)) - 1) << shift) as u8 & 0xF,
                None => 0xF,
            };
            let mut m = MInst::alu(Opcode::FMUL, Dst { reg, mask }, Src::of(reg), imm_src(1));
            m.sat = true;
            self.code.push(m);
        }
    }
}
