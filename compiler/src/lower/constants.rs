//! Constants past the secondary bank and indexed constants: LDC loads from constant memory.
//!
//! A program's constants live in constant memory (ProgramState `*_const_count` vec4s); the
//! first usse::SECONDARY_REGS are also the sa bank, which direct reads use. Reads past the
//! bank, and every indexed read (`CONST[ADDR[0].x+k]`, GLSL uniform arrays: skinning palettes,
//! light arrays), are LDC loads. An indexed read is clamped into the declared range of its
//! buffer: GL leaves an out-of-range index undefined, this driver reads the nearest element.

use sgx_hwdocs::usse::Opcode;

use super::Lower;
use crate::error::Result;
use crate::ir::{Dst, MInst, Reg, Src};
use crate::tgsi::RegRef;

impl Lower<'_> {
    /// A fresh temporary loaded with the constant-memory vec4 lane x of `at` selects.
    pub(super) fn load_const(&mut self, at: Src) -> Reg {
        let t = self.scratch();
        self.push(MInst::alu(
            Opcode::LDC,
            Dst { reg: t, mask: 0xF },
            at.splat(0),
            at.splat(0),
        ));
        t
    }

    /// `CONST[d][ADDR[0].c + k]` of a buffer at memory `base` declared `first..=last`.
    pub(super) fn indexed_const(
        &mut self,
        r: &RegRef,
        base: u32,
        first: u32,
        last: u32,
    ) -> Result<Reg> {
        let Some(ind) = r.indirect else {
            unreachable!("indexed_const is called for indirect operands only")
        };
        let a = self.addr_lane(ind, "CONST")?;
        // Clamped before the offset is added, so nothing wraps around i32:
        // element = clamp(a, first - k, last - k) + k, all within the declared range.
        let k = r.index;
        let lo = i32::try_from(i64::from(first) - k).ok();
        let hi = i32::try_from(i64::from(last) - k).ok();
        let mem = i32::try_from(i64::from(base) + k).ok();
        let (Some(lo), Some(hi), Some(mem)) = (lo, hi, mem) else {
            return Err(self.unsupported(format!("indirect constant offset {k}")));
        };
        let i = self.clamped_index(a, lo, hi, mem);
        Ok(self.load_const(Src::of(i)))
    }

    /// `clamp(a, lo, hi) + add` (integers) in lane x of a fresh temporary: an indirect index
    /// held inside its declared range before its offset is added, so nothing wraps.
    pub(super) fn clamped_index(&mut self, a: Src, lo: i32, hi: i32, add: i32) -> Reg {
        let i = self.scratch();
        let ix = Dst { reg: i, mask: 1 };
        let lo = self.materialize([lo as u32; 4], [0; 4]);
        self.push(MInst::alu(Opcode::IMAX, ix, a, lo));
        let hi = self.materialize([hi as u32; 4], [0; 4]);
        self.push(MInst::alu(Opcode::IMIN, ix, Src::of(i), hi));
        if add != 0 {
            let o = self.materialize([add as u32; 4], [0; 4]);
            self.push(MInst::alu(Opcode::IADD, ix, Src::of(i), o));
        }
        i
    }
}
