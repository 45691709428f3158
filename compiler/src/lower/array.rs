//! Indexed temporaries: `TEMP[ADDR[0].x+3](1)` reads and writes of a declared array.
//!
//! The USSE model has no indexed temporary addressing (only `sa[num + a0.x]` for
//! constants), so an access is lowered over the array's elements, which stay ordinary
//! virtual temporaries: the index is computed into a temporary from a copy of the ADDR
//! register (ARL/UARL write that copy, and a0 for ADDR[0]), clamped into the array, and each element is
//! selected with a predicated MOV (`p0 = index == k`). GL leaves an out-of-range index
//! undefined; clamping to the first or last element is this driver's definition, and never
//! faults. The cost is two instructions per element and access, which suits the small
//! arrays GLSL locals are; large uniform arrays are constants, not temporaries.

use sgx_hwdocs::usse::{Opcode, Pred};

use super::Lower;
use crate::error::Result;
use crate::ir::{Dst, MInst, Reg, RegFile, Src};
use crate::tgsi::{File, Indirect, RegRef};

/// A TEMP declaration's range and `ARRAY(n)` id (0 when it has none).
#[derive(Debug, Clone, Copy)]
pub(super) struct TempRange {
    pub first: u32,
    pub last: u32,
    pub id: u32,
}

/// An indexed write waiting for the instruction's value: after the instruction, `value`'s
/// `mask` lanes go to the element `index` selects.
pub(super) struct Scatter {
    value: Reg,
    elems: Vec<Reg>,
    index: Src,
    mask: u8,
}

const P0_ALL: Dst = Dst {
    reg: Reg {
        file: RegFile::Predicate,
        num: 0,
    },
    mask: 0xF,
};

impl Lower<'_> {
    /// The elements `r` may address and the clamped element number (lane x) of this access.
    fn array_access(&mut self, r: &RegRef) -> Result<(Vec<Reg>, Src)> {
        let Some(ind) = r.indirect else {
            unreachable!("array_access is called for indirect operands only")
        };
        let a = self.addr_lane(ind, "TEMP")?;
        // An access names its array by id; without one, the declaration holding the offset.
        let range = self
            .temp_ranges
            .iter()
            .find(|t| {
                if r.array_id != 0 {
                    t.id == r.array_id
                } else {
                    (i64::from(t.first)..=i64::from(t.last)).contains(&r.index)
                }
            })
            .copied()
            .ok_or_else(|| {
                self.semantic(if r.array_id != 0 {
                    format!("TEMP array {} is not declared", r.array_id)
                } else {
                    format!("TEMP[{}] is not in a declared range", r.index)
                })
            })?;
        let elems: Vec<Reg> = (range.first..=range.last).map(|i| self.temps[&i]).collect();
        let n = elems.len() as u32;
        let offset = r.index - i64::from(range.first);
        // Declarations are bounded (io_limit), so any offset that can reach the array fits.
        let offset = i32::try_from(offset)
            .ok()
            .filter(|o| o.checked_neg().is_some())
            .ok_or_else(|| self.unsupported(format!("indirect TEMP offset {}", r.index)))?;
        // Clamped before the offset is added, so that no index wraps around i32:
        // element = clamp(a, -offset, n - 1 - offset) + offset.
        let hi = (n as i32 - 1).wrapping_sub(offset);
        let i = self.clamped_index(a, offset.wrapping_neg(), hi, offset);
        Ok((elems, Src::of(i).splat(0)))
    }

    /// Sets every lane of p0 to `index == k`.
    fn select(&mut self, index: Src, k: u32) {
        let kk = self.materialize([k; 4], [0; 4]);
        self.push(MInst::alu(Opcode::ICEQ, P0_ALL, index, kk));
    }

    /// Reads an indexed temporary into a fresh temporary (all four lanes).
    pub(super) fn array_read(&mut self, r: &RegRef) -> Result<Reg> {
        let (elems, index) = self.array_access(r)?;
        let out = self.scratch();
        let od = Dst {
            reg: out,
            mask: 0xF,
        };
        self.push(MInst::alu(
            Opcode::MOV,
            od,
            Src::of(elems[0]),
            Src::of(elems[0]),
        ));
        for (k, e) in elems.iter().enumerate().skip(1) {
            self.select(index, k as u32);
            let mut m = MInst::alu(Opcode::MOV, od, Src::of(*e), Src::of(*e));
            m.pred = Pred::P0;
            self.push(m);
        }
        Ok(out)
    }

    /// The destination of an indexed write: a fresh temporary, scattered to the element
    /// after the instruction (`flush_scatter`).
    pub(super) fn array_write(&mut self, r: &RegRef, mask: u8) -> Result<Dst> {
        if self.scatter.is_some() {
            return Err(self.unsupported("two indexed destinations in one instruction"));
        }
        let (elems, index) = self.array_access(r)?;
        let value = self.scratch();
        self.scatter = Some(Scatter {
            value,
            elems,
            index,
            mask,
        });
        Ok(Dst { reg: value, mask })
    }

    /// Writes a pending indexed destination to its element.
    pub(super) fn flush_scatter(&mut self) {
        let Some(s) = self.scatter.take() else {
            return;
        };
        for (k, e) in s.elems.iter().enumerate() {
            let d = Dst {
                reg: *e,
                mask: s.mask,
            };
            let v = Src::of(s.value);
            let mut m = MInst::alu(Opcode::MOV, d, v, v);
            if s.elems.len() > 1 {
                self.select(s.index, k as u32);
                m.pred = Pred::P0;
            }
            self.push(m);
        }
    }

    /// The lane of an ADDR register an indirect operand of `file` reads.
    pub(super) fn addr_lane(&self, ind: Indirect, file: &str) -> Result<Src> {
        if ind.file != File::Addr {
            return Err(self.unsupported(format!(
                "indirect index {}[{}] of {file} (only ADDR)",
                ind.file.name(),
                ind.index
            )));
        }
        let shadow = self.addr_shadows.get(&ind.index).ok_or_else(|| {
            self.semantic(format!(
                "{file} is indexed by ADDR[{}], which is not declared",
                ind.index
            ))
        })?;
        Ok(Src::of(*shadow).splat(ind.comp))
    }
}
