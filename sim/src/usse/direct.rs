//! Pixel programs in a precompiled form: the commonest textured-draw program, `TEX rN, paK,
//! sS; EMITPIX rN; END`, recognised once per draw state and run as what it does (sample
//! primary K's four components on unit S for the quad, emit them), without the interpreter's
//! per-instruction dispatch. Equal to [`super::Machine::run_quad`] on the fast paths (the test
//! below runs both on random inputs; whole renders in `crate::fastpaths` compare it with the
//! reference interpreter).

use sgx_hwdocs::usse::{InstrFormat, Opcode, Pred, SrcMod};

use super::decode::{Dst, Program, SrcReg};
use super::{Lod, QuadOut, Stage, Textures, UsseError};

/// A recognised `TEX rN, paK, sS; EMITPIX rN; END` (or `RET`) program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TexEmit {
    /// The primary attribute K holding the coordinates.
    slot: usize,
    /// The texture unit S.
    unit: u32,
}

impl TexEmit {
    /// The program's precompiled form, when it is exactly that program: TEX (not TEXB, TEXL
    /// or TEXD) unpredicated, unsaturated, writing all of a temporary from a primary
    /// attribute read whole and unmodified; EMITPIX of that temporary, whole and unmodified;
    /// then the end.
    pub(crate) fn of(p: &Program) -> Option<TexEmit> {
        let [tex, emit, end] = p.ins.as_slice() else {
            return None;
        };
        let whole = |s: &super::decode::Src| s.swz == [0, 1, 2, 3] && s.modi == SrcMod::NONE;
        let (Dst::Temp(n), SrcReg::Primary(k)) = (tex.dst, tex.s0.reg) else {
            return None;
        };
        let ok = p.stage == Stage::Pixel
            && tex.op == Opcode::TEX
            && tex.pred == Pred::ALWAYS
            && !tex.sat
            && tex.mask == 0b1111
            && whole(&tex.s0)
            && emit.op == Opcode::EMITPIX
            && emit.pred == Pred::ALWAYS
            && emit.s0.reg == SrcReg::Temp(n)
            && whole(&emit.s0)
            && end.op.format() == InstrFormat::FLOW
            && matches!(end.op, Opcode::END | Opcode::RET)
            && end.pred == Pred::ALWAYS;
        ok.then_some(TexEmit {
            slot: usize::from(k),
            unit: u32::from(tex.sampler),
        })
    }

    /// The primary attribute holding the coordinates.
    pub(crate) fn slot(&self) -> usize {
        self.slot
    }

    /// The texture unit sampled.
    pub(crate) fn unit(&self) -> u32 {
        self.unit
    }

    /// Instructions one pixel runs (TEX, EMITPIX, END), as [`Self::run`] counts them.
    pub(crate) const INSTRUCTIONS_PER_PX: u64 = 3;

    /// Whether the run needs no level of detail (else the interpreter works it out).
    pub(crate) fn lod_free(&self, tex: &impl Textures) -> bool {
        !tex.needs_lod(self.unit)
    }

    /// Runs the program on a quad whose unit needs no level of detail ([`Self::lod_free`]):
    /// what the interpreter's straight-line path does for it (all four pixels sample,
    /// helpers too; nothing is killed; no depth is written; three instructions each).
    #[inline(always)]
    pub(crate) fn run(
        &self,
        pa: &[[[u32; 4]; 16]; 4],
        tex: &mut impl Textures,
        out: &mut QuadOut,
    ) -> Result<(), UsseError> {
        let c: [[f32; 4]; 4] = [0, 1, 2, 3].map(|i| pa[i][self.slot].map(f32::from_bits));
        // The lod is not read for a unit that needs none.
        let lod = [Lod::Explicit(0.0); 4];
        tex.sample_quad(self.unit, &c, &lod, [true; 4], &mut out.colour)
            .map_err(UsseError::Fault)?;
        out.killed = [false; 4];
        out.depth = [None; 4];
        out.instructions = 4 * Self::INSTRUCTIONS_PER_PX;
        Ok(())
    }
}

/// A recognised `EMITPIX paK; END` (or `RET`) program: the pixel's colour is primary
/// attribute K, whole (a colour varying: `MOV OUT[0], IN[0]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VaryEmit {
    /// The primary attribute K emitted.
    slot: usize,
}

impl VaryEmit {
    /// The program's precompiled form, when it is exactly that program: an unpredicated
    /// EMITPIX of a primary attribute read whole and unmodified, then the end. It writes no
    /// register, uses no output, predicate or address register, and what a run resets first
    /// (the temporaries it may read before writing) no later run reads before resetting or
    /// writing it: so skipping its runs leaves nothing a later program could see.
    pub(crate) fn of(p: &Program) -> Option<VaryEmit> {
        let [emit, end] = p.ins.as_slice() else {
            return None;
        };
        let SrcReg::Primary(k) = emit.s0.reg else {
            return None;
        };
        let ok = p.stage == Stage::Pixel
            && emit.op == Opcode::EMITPIX
            && emit.pred == Pred::ALWAYS
            && emit.s0.swz == [0, 1, 2, 3]
            && emit.s0.modi == SrcMod::NONE
            && end.op.format() == InstrFormat::FLOW
            && matches!(end.op, Opcode::END | Opcode::RET)
            && end.pred == Pred::ALWAYS
            && p.outs_used == 0
            && !p.uses_pred_addr;
        ok.then_some(VaryEmit {
            slot: usize::from(k),
        })
    }

    /// The primary attribute emitted.
    pub(crate) fn slot(&self) -> usize {
        self.slot
    }

    /// Instructions one pixel runs (EMITPIX, END), as the interpreter counts them.
    pub(crate) const INSTRUCTIONS_PER_PX: u64 = 2;
}

#[cfg(test)]
mod tests {
    use sgx_hwdocs::usse::Opcode::{FMUL, TEX, TEXL};

    use super::super::Machine;
    use super::*;
    use crate::kit::*;
    use crate::{Fault, Unit};

    /// A sampler whose result depends on the unit and on each coordinate component, so a
    /// wrong slot, unit or pixel order shows; a coordinate below -100 faults.
    struct Mix;
    impl Textures for Mix {
        fn sample(&mut self, unit: u32, c: [f32; 4], _lod: Lod) -> Result<[f32; 4], Fault> {
            if c[0] < -100.0 {
                return Err(Fault {
                    unit: Unit::Tsp,
                    addr: c[1].to_bits(),
                    write: false,
                });
            }
            Ok([c[1], c[0] * 0.5, c[2] + unit as f32, c[3] - 1.0])
        }

        fn needs_lod(&self, _unit: u32) -> bool {
            false
        }
    }

    fn prog(ins: &[W]) -> Program {
        Program::decode(&words(ins), Stage::Pixel).unwrap()
    }

    fn blank() -> QuadOut {
        QuadOut {
            colour: [[7.0; 4]; 4],
            killed: [true; 4],
            depth: [Some(0.5); 4],
            instructions: 0,
        }
    }

    #[test]
    fn recognises_only_tex_emit_end() {
        let te = TexEmit::of(&prog(&[tex(dr(3), pa(2), 5), emitpix(r(3)), end()]));
        assert_eq!(te, Some(TexEmit { slot: 2, unit: 5 }));
        for ins in [
            vec![tex(dr(3), pa(2).sw("yxzw"), 0), emitpix(r(3)), end()],
            vec![tex(dr(3), pa(2), 0), emitpix(r(3).sw("xxxx")), end()],
            vec![tex(dr(3), pa(2), 0), emitpix(r(4)), end()],
            vec![tex(dr(3), r(2), 0), emitpix(r(3)), end()],
            vec![tex_full(TEXL, dr(3), pa(2), 0, 0), emitpix(r(3)), end()],
            vec![tex_full(TEX, dout(0), pa(2), 0, 0), emitpix(o(0)), end()],
            vec![
                tex(dr(3), pa(2), 0),
                alu(FMUL, dr(3), r(3), r(3)),
                emitpix(r(3)),
                end(),
            ],
        ] {
            assert_eq!(TexEmit::of(&prog(&ins)), None, "{ins:?}");
        }
    }

    #[test]
    fn recognises_only_emitpix_of_a_primary_then_end() {
        assert_eq!(
            VaryEmit::of(&prog(&[emitpix(pa(3)), end()])),
            Some(VaryEmit { slot: 3 })
        );
        for ins in [
            vec![emitpix(pa(3).sw("yxzw")), end()],
            vec![emitpix(r(3)), end()],
            vec![emitpix(pa(3)), emitpix(pa(2)), end()],
            vec![tex(dr(3), pa(2), 0), emitpix(r(3)), end()],
            vec![alu(FMUL, dr(3), pa(1), pa(1)), emitpix(pa(1)), end()],
        ] {
            assert_eq!(VaryEmit::of(&prog(&ins)), None, "{ins:?}");
        }
    }

    /// What `VaryEmit` stands for, the interpreter's count and colours: primary K whole,
    /// two instructions per instance, nothing killed, no depth.
    #[test]
    fn vary_emit_is_what_the_interpreter_runs() {
        let mut rng = Rng(0x0bad_cafe);
        for slot in [0u32, 1, 5] {
            let p = prog(&[emitpix(pa(slot)), end()]);
            let ve = VaryEmit::of(&p).unwrap();
            assert_eq!(ve.slot(), slot as usize);
            let mut pa = [[[0u32; 4]; 16]; 4];
            for px in &mut pa {
                for v in px.iter_mut() {
                    *v = [0; 4].map(|_: u32| rng.next());
                }
            }
            for fast in [false, true] {
                let mut out = blank();
                Machine::with_paths(fast)
                    .run_quad(&p, &pa, [true; 4], &[], &mut Mix, &mut out)
                    .unwrap();
                assert_eq!(out.instructions, 4 * VaryEmit::INSTRUCTIONS_PER_PX);
                assert_eq!(out.killed, [false; 4]);
                assert_eq!(out.depth, [None; 4]);
                for (i, (c, px)) in out.colour.iter().zip(&pa).enumerate() {
                    let want = px[slot as usize];
                    assert_eq!(c.map(f32::to_bits), want, "fast {fast} px {i}");
                }
            }
        }
    }

    #[test]
    fn runs_as_the_interpreter_does() {
        let mut rng = Rng(0x1234_5678);
        for unit in 0..3 {
            let p = prog(&[tex(dr(1), pa(unit + 1), unit), emitpix(r(1)), end()]);
            let te = TexEmit::of(&p).unwrap();
            assert!(te.lod_free(&Mix));
            for k in 0..200 {
                let mut pa = [[[0u32; 4]; 16]; 4];
                for px in &mut pa {
                    for slot in px.iter_mut() {
                        // Small floats, some of them below -100 (a fault) in later rounds.
                        *slot = [0; 4].map(|_: u32| {
                            let v = (rng.next() % 4001) as f32 / 16.0 - 100.0;
                            (if k < 100 { v.abs() } else { v }).to_bits()
                        });
                    }
                }
                let live = [k % 2 == 0, true, k % 3 == 0, true];
                for fast in [false, true] {
                    let (mut want, mut got) = (blank(), blank());
                    let w =
                        Machine::with_paths(fast).run_quad(&p, &pa, live, &[], &mut Mix, &mut want);
                    let g = te.run(&pa, &mut Mix, &mut got);
                    assert_eq!(g, w, "unit {unit} round {k}");
                    if w.is_ok() {
                        assert_eq!(got, want, "unit {unit} round {k}");
                    }
                }
            }
        }
    }
}
