//! TGSI texture instructions (TEX, TXP, TXB, TXL, TXD) -> USSE TEX / TEXB / TEXL / TEXD.
//!
//! The USSE's TEX takes a vec4 coordinate and the unit's TexState decides how the TSP reads
//! it (2D: c.xy, cube and volume: c.xyz; with compare, the reference in c.z for 2D), so a
//! TGSI target only shapes the coordinate: 1D is a 2D texture of height 1, SHADOW1D/2D keep
//! the reference in c.z where TGSI puts it, and TXP divides the lanes the TSP reads by w.

use sgx_hwdocs::usse::{Opcode, Pred, SrcMod};

use super::Lower;
use crate::error::{CompileError, Result};
use crate::ir::{Dst, Item, MInst, Reg, RegFile, Src};
use crate::opt::live::GRAD_LANES;
use crate::tgsi::{File, Indirect, Instruction, ShaderStage, TexTarget};

/// How the coordinate of a supported target reaches the TSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TargetPlan {
    /// Coordinate lanes the TSP reads for the lookup (the bias / LOD lane w aside).
    pub tsp_lanes: u8,
    /// The TSP sees a 2D texture of height 1: the compiler writes c.y = 0.5.
    pub height1: bool,
}

impl TargetPlan {
    /// The lanes the TGSI coordinate supplies (all the TSP reads but a height-1 y).
    pub fn tgsi_lanes(self) -> u8 {
        if self.height1 {
            self.tsp_lanes & !0b0010
        } else {
            self.tsp_lanes
        }
    }
}

/// The plan of a target GL 2.1 needs; `None` for the rest (arrays, SHADOWCUBE, MSAA, buffers),
/// which the TSP model cannot sample.
pub(crate) fn plan(t: TexTarget) -> Option<TargetPlan> {
    let (tsp_lanes, height1) = match t {
        TexTarget::D1 => (0b0011, true),
        TexTarget::Shadow1D => (0b0111, true),
        // RECT: the sampler takes its texel coordinates (the unit's unnormalised sampler).
        TexTarget::D2 | TexTarget::Rect => (0b0011, false),
        TexTarget::Shadow2D | TexTarget::ShadowRect | TexTarget::D3 | TexTarget::Cube => {
            (0b0111, false)
        }
        _ => return None,
    };
    Some(TargetPlan { tsp_lanes, height1 })
}

/// The message for a target `plan` refuses.
pub(crate) fn unsupported_target(what: &str, t: TexTarget) -> String {
    format!(
        "unsupported {what} texture target {} (supported: 1D, 2D, 3D, CUBE, RECT, SHADOW1D, SHADOW2D, SHADOWRECT)",
        t.name()
    )
}

/// The row centre of a height-1 texture: y = 0.5 samples its one row under every filter,
/// wrap mode and border colour.
const HEIGHT1_Y: f32 = 0.5;

impl Lower<'_> {
    /// An error at the target word of the current line (column 1 when there is none).
    pub(super) fn target_error(&self, col: u32, msg: String) -> CompileError {
        CompileError::Target {
            line: self.line,
            col: col.max(1),
            msg,
        }
    }

    pub(super) fn texture(&mut self, ins: &Instruction) -> Result<()> {
        let op = ins.opcode.as_str();
        let txd = op == "TXD";
        // TXD: coordinate, d/dx, d/dy, sampler.
        let samp_at = if txd { 3 } else { 1 };
        self.counts(ins, 1, samp_at + 1)?;
        let d = self.dst(&ins.dst[0])?;
        let samp = ins.src[samp_at].reg;
        if samp.file != File::Sampler {
            return Err(self.semantic(format!("{op}: source {} must be SAMP[n]", samp_at + 1)));
        }
        let units = match samp.indirect {
            None => vec![u32::try_from(samp.index).unwrap_or(u32::MAX)],
            Some(_) => self.declared_samplers(),
        };
        let Some(&last_unit) = units.last() else {
            return Err(self.semantic(format!("{op}: SAMP is indexed but none is declared")));
        };
        crate::io::check_limit(
            "limits::MAX_TEXTURE_UNITS",
            u64::from(last_unit) + 1,
            sgx_hwdocs::limits::MAX_TEXTURE_UNITS,
        )?;
        let target = ins.target.unwrap_or(TexTarget::D2);
        let col = ins.target_col;
        let plan =
            plan(target).ok_or_else(|| self.target_error(col, unsupported_target(op, target)))?;
        for unit in &units {
            if let Some(prev) = self.info.samplers.get(unit) {
                if *prev != target {
                    return Err(self.target_error(
                        col,
                        format!(
                            "SAMP[{unit}] sampled as {} here but as {} before: a unit has one target",
                            target.name(),
                            prev.name()
                        ),
                    ));
                }
            }
        }
        let lod_lane = if matches!(op, "TXB" | "TXL") { 8 } else { 0 };
        let mut c = self.src(&ins.src[0], false)?;
        if op == "TXP" {
            // x, y, z (a shadow reference too) over w, in the lanes the TSP reads.
            let t = self.scratch();
            self.push(MInst::alu(
                Opcode::FRCP,
                Dst { reg: t, mask: 8 },
                c.splat(3),
                c,
            ));
            self.push(MInst::alu(
                Opcode::FMUL,
                Dst {
                    reg: t,
                    mask: plan.tgsi_lanes(),
                },
                c,
                Src::of(t).splat(3),
            ));
            c = Src::of(t);
        } else if c.modi != SrcMod::NONE || plan.height1 {
            // The TEX word has no source modifier, and a height-1 coordinate needs its y.
            let t = self.scratch();
            self.push(MInst::alu(
                Opcode::MOV,
                Dst {
                    reg: t,
                    mask: plan.tgsi_lanes() | lod_lane,
                },
                c,
                c,
            ));
            c = Src::of(t);
        }
        if plan.height1 {
            // `c` is a scratch temporary of this instruction here: writing y is safe.
            let mut i = MInst::new(Opcode::LIMM);
            i.dst = Dst {
                reg: c.reg,
                mask: 0b0010,
            };
            i.imm = HEIGHT1_Y.to_bits();
            self.push(i);
        }
        let top = match op {
            "TXB" => Opcode::TEXB,
            "TXL" => Opcode::TEXL,
            "TXD" => Opcode::TEXD,
            _ => Opcode::TEX,
        };
        let grad = if txd { self.gradients(ins, target)? } else { 0 };
        if matches!(top, Opcode::TEX | Opcode::TEXB) && self.sh.stage == ShaderStage::Fragment {
            self.info.derivatives = true;
        }
        let mut i = MInst::new(top);
        i.dst = d;
        i.src[0] = c;
        i.grad = grad;
        i.sat = ins.sat;
        i.coord_lanes = plan.tsp_lanes | lod_lane;
        let Some(ind) = samp.indirect else {
            self.info.samplers.insert(last_unit, target);
            i.sampler = last_unit;
            self.push(i);
            return Ok(());
        };
        // A chain over the declared units: the USSE's TEX names its unit in the word, so a
        // dynamic index (GLSL sampler arrays indexed by a loop counter) branches to the TEX
        // of the unit it selects. The coordinate is computed before the chain, so implicit
        // LODs see the whole quad's coordinates even where the quad diverges.
        let index = self.sampler_index(ind, samp.index, &units)?;
        let end = self.code.label();
        for (k, &unit) in units.iter().enumerate() {
            self.info.samplers.insert(unit, target);
            let chained = k + 1 < units.len();
            let next = self.code.label();
            if chained {
                let kk = self.materialize([unit; 4], [0; 4]);
                let p0 = Dst {
                    reg: Reg {
                        file: RegFile::Predicate,
                        num: 0,
                    },
                    mask: 0b0001,
                };
                self.push(MInst::alu(Opcode::ICEQ, p0, index, kk));
                self.branch(Opcode::BR, Pred::NOT_P0, next);
            }
            let mut t = i;
            t.sampler = unit;
            self.push(t);
            if chained {
                self.branch(Opcode::BR, Pred::ALWAYS, end);
                self.code.items.push(Item::Label(next));
            }
        }
        self.code.items.push(Item::Label(end));
        Ok(())
    }

    /// The units of the `SAMP` declarations, in order.
    fn declared_samplers(&self) -> Vec<u32> {
        let mut units: Vec<u32> = self
            .sh
            .decls
            .iter()
            .filter(|d| d.file == File::Sampler)
            .flat_map(|d| d.first..=d.last)
            .collect();
        units.sort_unstable();
        units.dedup();
        units
    }

    /// The unit `SAMP[ADDR[n].c + offset]` selects, in lane x of a fresh temporary: clamped
    /// into the declared units (GL leaves an out-of-range index undefined; this driver reads
    /// the nearest declared unit, and the last one for an index between declarations).
    fn sampler_index(&mut self, ind: Indirect, offset: i64, units: &[u32]) -> Result<Src> {
        let a = self.addr_lane(ind, "SAMP")?;
        let (first, last) = (units[0], units[units.len() - 1]);
        // Clamped before the offset is added, so nothing wraps around i32.
        let lo = i32::try_from(i64::from(first) - offset).ok();
        let hi = i32::try_from(i64::from(last) - offset).ok();
        let (Some(lo), Some(hi), Ok(off)) = (lo, hi, i32::try_from(offset)) else {
            return Err(self.unsupported(format!("indirect sampler offset {offset}")));
        };
        let i = self.clamped_index(a, lo, hi, off);
        Ok(Src::of(i).splat(0))
    }
}

impl Lower<'_> {
    /// TXD's d/dx and d/dy in a fresh pair of consecutive temporaries (TEXD reads `grad` and
    /// `grad` + 1): the lanes the target has derivatives in, the rest of xyz 0 (a height-1
    /// texture has none in y; a shadow reference none at all). Returns the first.
    fn gradients(&mut self, ins: &Instruction, target: TexTarget) -> Result<u32> {
        let lanes = match target {
            TexTarget::D1 | TexTarget::Shadow1D => 0b0001,
            TexTarget::D3 | TexTarget::Cube => 0b0111,
            _ => 0b0011,
        };
        let dx = self.src(&ins.src[1], false)?;
        let dy = self.src(&ins.src[2], false)?;
        let g = self.scratch();
        let g1 = self.scratch();
        debug_assert_eq!(g1.num, g.num + 1, "vregs are numbered in order");
        for (reg, from) in [(g, dx), (g1, dy)] {
            self.push(MInst::alu(
                Opcode::MOV,
                Dst { reg, mask: lanes },
                from,
                from,
            ));
            let zero = GRAD_LANES & !lanes;
            if zero != 0 {
                let mut i = MInst::new(Opcode::LIMM);
                i.dst = Dst { reg, mask: zero };
                i.imm = 0f32.to_bits();
                self.push(i);
            }
        }
        Ok(g.num)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cover_exactly_the_gl21_targets() {
        let ok: Vec<&str> = TexTarget::ALL
            .iter()
            .filter(|t| plan(**t).is_some())
            .map(|t| t.name())
            .collect();
        assert_eq!(
            ok,
            [
                "1D",
                "2D",
                "3D",
                "CUBE",
                "RECT",
                "SHADOW1D",
                "SHADOW2D",
                "SHADOWRECT"
            ]
        );
    }

    #[test]
    fn height1_targets_take_y_from_the_compiler() {
        let d1 = plan(TexTarget::D1).unwrap();
        assert_eq!((d1.tsp_lanes, d1.tgsi_lanes()), (0b0011, 0b0001));
        let s1 = plan(TexTarget::Shadow1D).unwrap();
        assert_eq!((s1.tsp_lanes, s1.tgsi_lanes()), (0b0111, 0b0101));
        let s2 = plan(TexTarget::Shadow2D).unwrap();
        assert_eq!(
            (s2.tsp_lanes, s2.tgsi_lanes(), s2.height1),
            (0b0111, 0b0111, false)
        );
    }
}
