//! Executing decoded USSE programs: one instance (vertex) or a 2x2 quad in lockstep.
//!
//! Instances that diverge are scheduled by lowest program counter first, so they reconverge
//! without structured control flow; FDDX/FDDY and implicit-LOD TEX read the other instances'
//! registers as they stand.

// Instance index `i` addresses several parallel per-instance arrays at once (pcs, registers,
// predicates, masks); iterator rewrites would obscure that.
#![allow(clippy::needless_range_loop)]

use sgx_hwdocs::usse::{
    OpKind, Opcode, Pred, SrcMod, CALL_STACK_DEPTH, MAX_EXECUTED_PER_INSTANCE, SECONDARY_REGS,
};

use super::decode::{Dst, Instr, Program, Src, SrcReg};
use super::{Lod, QuadOut, Stage, Textures, UsseError, VertexOut};

mod straight;
pub(super) mod vertex;

const CALL_DEPTH: usize = CALL_STACK_DEPTH as usize;

/// Register state of up to four instances, reused across runs so no run allocates.
pub(crate) struct Machine {
    /// Take the fast paths (straight-line quads, quad texture sampling); else only the
    /// reference scheduling. Results are identical.
    pub(crate) fast: bool,
    temps: [[[u32; 4]; 4]; 64],
    outs: [[[u32; 4]; 4]; 16],
    preds: [[[bool; 4]; 3]; 4],
    a0: [[i32; 4]; 4],
}

/// Per-run control state.
struct Ctl {
    n: usize,
    pc: [u32; 4],
    running: [bool; 4],
    executed: [u64; 4],
    stack: [[u32; CALL_DEPTH]; 4],
    depth: [usize; 4],
    killed: [bool; 4],
    emitted: bool,
    colour: [[u32; 4]; 4],
    frag_depth: [Option<u32>; 4],
    vout: [[u32; 4]; 16],
}

#[inline(always)]
fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

#[inline(always)]
fn b(x: f32) -> u32 {
    x.to_bits()
}

#[inline(always)]
fn sat(x: u32) -> u32 {
    let v = f(x);
    // NaN fails both compares and lands on 0.
    if v >= 1.0 {
        b(1.0)
    } else if v > 0.0 {
        x
    } else {
        0
    }
}

#[inline(always)]
fn lanes(a: [u32; 4], g: impl Fn(u32) -> u32) -> [u32; 4] {
    [g(a[0]), g(a[1]), g(a[2]), g(a[3])]
}

#[inline(always)]
fn lanes2(a: [u32; 4], c: [u32; 4], g: impl Fn(u32, u32) -> u32) -> [u32; 4] {
    [g(a[0], c[0]), g(a[1], c[1]), g(a[2], c[2]), g(a[3], c[3])]
}

#[inline(always)]
fn mask_of(t: bool) -> u32 {
    if t {
        u32::MAX
    } else {
        0
    }
}

#[inline(always)]
fn one_of(t: bool) -> u32 {
    if t {
        b(1.0)
    } else {
        0
    }
}

fn fsgn(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// A denormal as the zero of its sign. The USSE model flushes denormals: float (FLOAT and
/// CMP kind) operations read denormal operands as zero and write denormal results as zero,
/// as the GPUs of the SGX535's era do (hwdocs model-choices: a MODEL choice).
#[inline(always)]
pub(crate) fn ftz(x: u32) -> u32 {
    // IEEE 754 binary32: the exponent field and the sign bit (not hardware facts).
    if x & 0x7F80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

#[inline(always)]
fn ftz4(v: [u32; 4]) -> [u32; 4] {
    [ftz(v[0]), ftz(v[1]), ftz(v[2]), ftz(v[3])]
}

/// FDDX/FDDY's lanes: `x - y`, denormals flushed.
#[inline(always)]
fn fdiff(x: [u32; 4], y: [u32; 4]) -> [u32; 4] {
    ftz4(sub4(fv(ftz4(x)), fv(ftz4(y))).map(b))
}

/// Lane-wise (and dot-product) ALU operations of kinds FLOAT, CMP, INTCMP, INT, CONV, MOVE.
/// FLOAT and CMP operations flush denormals ([`ftz`]).
#[inline(always)]
fn alu(op: Opcode, a: [u32; 4], c: [u32; 4], d: [u32; 4]) -> [u32; 4] {
    if matches!(op.kind(), OpKind::FLOAT | OpKind::CMP) {
        ftz4(alu_exact(op, ftz4(a), ftz4(c), ftz4(d)))
    } else {
        alu_exact(op, a, c, d)
    }
}

/// `alu` without the denormal flush.
#[inline(always)]
fn alu_exact(op: Opcode, a: [u32; 4], c: [u32; 4], d: [u32; 4]) -> [u32; 4] {
    use Opcode::*;
    match op {
        MOV => a,
        FADD => lanes2(a, c, |x, y| b(f(x) + f(y))),
        FMUL => lanes2(a, c, |x, y| b(f(x) * f(y))),
        FMAD => {
            let p = lanes2(a, c, |x, y| b(f(x) * f(y)));
            lanes2(p, d, |x, y| b(f(x) + f(y)))
        }
        FDP2 => [b(f(a[0]) * f(c[0]) + f(a[1]) * f(c[1])); 4],
        FDP3 => [b((f(a[0]) * f(c[0]) + f(a[1]) * f(c[1])) + f(a[2]) * f(c[2])); 4],
        FDP4 => {
            [b(((f(a[0]) * f(c[0]) + f(a[1]) * f(c[1])) + f(a[2]) * f(c[2])) + f(a[3]) * f(c[3]));
                4]
        }
        FMIN => lanes2(a, c, |x, y| b(f(x).min(f(y)))),
        FMAX => lanes2(a, c, |x, y| b(f(x).max(f(y)))),
        FRCP => lanes(a, |x| b(1.0 / f(x))),
        FRSQ => lanes(a, |x| b(1.0 / f(x).sqrt())),
        FEXP => lanes(a, |x| b(f(x).exp2())),
        FLOG => lanes(a, |x| b(f(x).log2())),
        FSIN => lanes(a, |x| b(f(x).sin())),
        FCOS => lanes(a, |x| b(f(x).cos())),
        FFRC => lanes(a, |x| b(f(x) - f(x).floor())),
        FFLR => lanes(a, |x| b(f(x).floor())),
        FTRC => lanes(a, |x| b(f(x).trunc())),
        FCEIL => lanes(a, |x| b(f(x).ceil())),
        FRND => lanes(a, |x| b(f(x).round_ties_even())),
        FSGN => lanes(a, |x| b(fsgn(f(x)))),
        FSLT => lanes2(a, c, |x, y| one_of(f(x) < f(y))),
        FSGE => lanes2(a, c, |x, y| one_of(f(x) >= f(y))),
        FSEQ => lanes2(a, c, |x, y| one_of(f(x) == f(y))),
        FSNE => lanes2(a, c, |x, y| one_of(f(x) != f(y))),
        FCLT => lanes2(a, c, |x, y| mask_of(f(x) < f(y))),
        FCGE => lanes2(a, c, |x, y| mask_of(f(x) >= f(y))),
        FCEQ => lanes2(a, c, |x, y| mask_of(f(x) == f(y))),
        FCNE => lanes2(a, c, |x, y| mask_of(f(x) != f(y))),
        ICLT => lanes2(a, c, |x, y| mask_of((x as i32) < (y as i32))),
        ICGE => lanes2(a, c, |x, y| mask_of((x as i32) >= (y as i32))),
        UCLT => lanes2(a, c, |x, y| mask_of(x < y)),
        UCGE => lanes2(a, c, |x, y| mask_of(x >= y)),
        ICEQ => lanes2(a, c, |x, y| mask_of(x == y)),
        ICNE => lanes2(a, c, |x, y| mask_of(x != y)),
        IADD => lanes2(a, c, |x, y| x.wrapping_add(y)),
        IMUL => lanes2(a, c, |x, y| x.wrapping_mul(y)),
        // Division by zero gives all ones, as hwdocs's IDIV/UDIV/UMOD semantics say.
        IDIV => lanes2(a, c, |x, y| {
            if y == 0 {
                u32::MAX
            } else {
                (x as i32).wrapping_div(y as i32) as u32
            }
        }),
        UDIV => lanes2(a, c, |x, y| x.checked_div(y).unwrap_or(u32::MAX)),
        UMOD => lanes2(a, c, |x, y| x.checked_rem(y).unwrap_or(u32::MAX)),
        AND => lanes2(a, c, |x, y| x & y),
        OR => lanes2(a, c, |x, y| x | y),
        XOR => lanes2(a, c, |x, y| x ^ y),
        NOT => lanes(a, |x| !x),
        SHL => lanes2(a, c, |x, y| x << (y & 31)),
        ISHR => lanes2(a, c, |x, y| ((x as i32) >> (y & 31)) as u32),
        USHR => lanes2(a, c, |x, y| x >> (y & 31)),
        IMAX => lanes2(a, c, |x, y| (x as i32).max(y as i32) as u32),
        IMIN => lanes2(a, c, |x, y| (x as i32).min(y as i32) as u32),
        UMAX => lanes2(a, c, |x, y| x.max(y)),
        UMIN => lanes2(a, c, |x, y| x.min(y)),
        INEG => lanes(a, |x| 0u32.wrapping_sub(x)),
        I2F => lanes(a, |x| b(x as i32 as f32)),
        U2F => lanes(a, |x| b(x as f32)),
        // `as` saturates and maps NaN to 0, as the semantics ask.
        F2I => lanes(a, |x| f(x) as i32 as u32),
        F2U => lanes(a, |x| f(x) as u32),
        // Flow, TEX, LIMM, EMITPIX, FDDX/FDDY never reach here.
        _ => d,
    }
}

/// LDC: the constant-memory vec4 lane x of `a` selects (signed), clamped into the memory.
#[inline(always)]
fn ldc(a: [u32; 4], sa: &[[u32; 4]]) -> [u32; 4] {
    let Some(last) = sa.len().checked_sub(1) else {
        return [0; 4];
    };
    let n = i64::from(a[0] as i32).clamp(0, last as i64);
    sa[n as usize]
}

/// The pixel of a quad whose derivatives give the quad's implicit LOD (bit 0 is x, bit 1 is
/// y): the model's choice, see `lod_of`.
const LOD_PIXEL: usize = 2;

fn fv(v: [u32; 4]) -> [f32; 4] {
    [f(v[0]), f(v[1]), f(v[2]), f(v[3])]
}

fn sub4(x: [f32; 4], y: [f32; 4]) -> [f32; 4] {
    [x[0] - y[0], x[1] - y[1], x[2] - y[2], x[3] - y[3]]
}

impl Machine {
    /// A machine with zeroed registers.
    pub(crate) fn new() -> Machine {
        Machine {
            fast: true,
            temps: [[[0; 4]; 4]; 64],
            outs: [[[0; 4]; 4]; 16],
            preds: [[[false; 4]; 3]; 4],
            a0: [[0; 4]; 4],
        }
    }

    /// A machine with zeroed registers taking the fast paths or only the reference ones.
    pub(crate) fn with_paths(fast: bool) -> Machine {
        Machine {
            fast,
            ..Machine::new()
        }
    }

    /// Zeroes the first `temps` temporaries, the outputs and (when used) predicates and a0
    /// of instances 0..n.
    fn reset(&mut self, p: &Program, n: usize, temps: usize) {
        for r in &mut self.temps[..temps] {
            for inst in r.iter_mut().take(n) {
                *inst = [0; 4];
            }
        }
        for r in &mut self.outs[..p.outs_used] {
            for inst in r.iter_mut().take(n) {
                *inst = [0; 4];
            }
        }
        if p.uses_pred_addr {
            self.preds = [[[false; 4]; 3]; 4];
            self.a0 = [[0; 4]; 4];
        }
    }

    #[inline(always)]
    fn read(&self, s: &Src, inst: usize, pa: &[[[u32; 4]; 16]], sa: &[[u32; 4]]) -> [u32; 4] {
        let r = match s.reg {
            SrcReg::Temp(n) => self.temps[usize::from(n)][inst],
            SrcReg::Primary(n) => pa[inst][usize::from(n)],
            SrcReg::Secondary(n) => sa.get(usize::from(n)).copied().unwrap_or([0; 4]),
            SrcReg::Output(n) => self.outs[usize::from(n)][inst],
            SrcReg::Imm(bits) => [bits; 4],
            SrcReg::SecIndexed(n) => {
                let idx = i64::from(n) + i64::from(self.a0[inst][0]);
                if (0..SECONDARY_REGS as i64).contains(&idx) {
                    sa.get(idx as usize).copied().unwrap_or([0; 4])
                } else {
                    [0; 4]
                }
            }
        };
        let w = s.swz;
        let v = [
            r[usize::from(w[0])],
            r[usize::from(w[1])],
            r[usize::from(w[2])],
            r[usize::from(w[3])],
        ];
        match s.modi {
            SrcMod::NONE => v,
            SrcMod::NEG => lanes(v, |x| x ^ 0x8000_0000),
            SrcMod::ABS => lanes(v, |x| x & 0x7fff_ffff),
            SrcMod::NEG_ABS => lanes(v, |x| x | 0x8000_0000),
        }
    }

    #[inline(always)]
    fn pred_lanes(&self, pred: Pred, inst: usize) -> [bool; 4] {
        let p = &self.preds[inst];
        match pred {
            Pred::ALWAYS => [true; 4],
            Pred::P0 => p[0],
            Pred::P1 => p[1],
            Pred::P2 => p[2],
            Pred::NOT_P0 => p[0].map(|x| !x),
            Pred::NOT_P1 => p[1].map(|x| !x),
            Pred::NOT_P2 => p[2].map(|x| !x),
        }
    }

    #[inline(always)]
    fn dst_value(&self, d: Dst, inst: usize) -> [u32; 4] {
        match d {
            Dst::Temp(n) => self.temps[usize::from(n)][inst],
            Dst::Output(n) => self.outs[usize::from(n)][inst],
            Dst::Pred(n) => self.preds[inst][usize::from(n)].map(u32::from),
            Dst::Addr => self.a0[inst].map(|x| x as u32),
        }
    }

    #[inline(always)]
    fn write(&mut self, ins: &Instr, inst: usize, v: [u32; 4]) {
        let pl = self.pred_lanes(ins.pred, inst);
        let m = ins.mask;
        let v = if ins.sat { v.map(sat) } else { v };
        macro_rules! put {
            ($slot:expr, $conv:expr) => {
                for i in 0..4 {
                    if m & (1 << i) != 0 && pl[i] {
                        $slot[i] = $conv(v[i]);
                    }
                }
            };
        }
        match ins.dst {
            Dst::Temp(n) => put!(self.temps[usize::from(n)][inst], |x| x),
            Dst::Output(n) => put!(self.outs[usize::from(n)][inst], |x| x),
            Dst::Pred(n) => put!(self.preds[inst][usize::from(n)], |x| x != 0),
            Dst::Addr => put!(self.a0[inst], |x: u32| x as i32),
        }
    }

    /// Runs a vertex program on one instance.
    pub(crate) fn run_vertex(
        &mut self,
        p: &Program,
        pa: &[[u32; 4]],
        sa: &[[u32; 4]],
        tex: &mut dyn Textures,
    ) -> Result<VertexOut, UsseError> {
        if p.stage != Stage::Vertex {
            return Err(UsseError::Illegal {
                pc: 0,
                reason: "pixel program run as a vertex program".into(),
            });
        }
        let mut attrs = [[[0u32; 4]; 16]; 1];
        for (d, s) in attrs[0].iter_mut().zip(pa) {
            *d = *s;
        }
        let mut ctl = Ctl::new(1, [true, false, false, false]);
        let instructions = self.exec(p, &mut ctl, &attrs, sa, tex)?;
        Ok(VertexOut {
            out: ctl.vout,
            instructions,
        })
    }

    /// Runs a pixel program on a 2x2 quad into `out`.
    pub(crate) fn run_quad(
        &mut self,
        p: &Program,
        pa: &[[[u32; 4]; 16]; 4],
        live: [bool; 4],
        sa: &[[u32; 4]],
        tex: &mut dyn Textures,
        out: &mut QuadOut,
    ) -> Result<(), UsseError> {
        if p.stage != Stage::Pixel {
            return Err(UsseError::Illegal {
                pc: 0,
                reason: "vertex program run as a pixel program".into(),
            });
        }
        if self.fast && p.straight {
            // EMITPIX writes the raw bits straight into the caller's colours.
            out.colour = [[0.0; 4]; 4];
            let colour: &mut [[u32; 4]; 4] = bytemuck::cast_mut(&mut out.colour);
            out.instructions = self.exec_straight(p, colour, pa, sa, tex)?;
            // A straight program has no KILL and no EMITDEPTH.
            out.killed = [false; 4];
            out.depth = [None; 4];
            return Ok(());
        }
        let mut ctl = Ctl::new(4, [true; 4]);
        out.instructions = self.exec(p, &mut ctl, pa, sa, tex)?;
        for i in 0..4 {
            out.colour[i] = fv(ctl.colour[i]);
            out.killed[i] = live[i] && ctl.killed[i];
            // NaN becomes 0, as the colours' clamp makes it.
            out.depth[i] = ctl.frag_depth[i].map(|d| crate::num::clamp01_fast(f(d)));
        }
        Ok(())
    }

    fn exec(
        &mut self,
        p: &Program,
        ctl: &mut Ctl,
        pa: &[[[u32; 4]; 16]],
        sa: &[[u32; 4]],
        tex: &mut dyn Textures,
    ) -> Result<u64, UsseError> {
        let n = ctl.n;
        self.reset(p, n, p.temps_used);
        let len = p.ins.len() as u32;
        let mut total = 0u64;
        loop {
            let mut pc = u32::MAX;
            for i in 0..n {
                if ctl.running[i] && ctl.pc[i] < pc {
                    pc = ctl.pc[i];
                }
            }
            if pc == u32::MAX {
                break;
            }
            if pc >= len {
                return Err(UsseError::Illegal {
                    pc,
                    reason: "ran past the end of the program without END".into(),
                });
            }
            let mut ex = [false; 4];
            for i in 0..n {
                if ctl.running[i] && ctl.pc[i] == pc {
                    ex[i] = true;
                    ctl.executed[i] += 1;
                    total += 1;
                    if ctl.executed[i] > MAX_EXECUTED_PER_INSTANCE {
                        return Err(UsseError::Watchdog { pc });
                    }
                    ctl.pc[i] = pc + 1;
                }
            }
            let ins = &p.ins[pc as usize];
            self.step(p, ins, pc, ex, ctl, pa, sa, tex)?;
        }
        Ok(total)
    }

    /// The level of detail instance `i` of a TEX-kind instruction asks for. An implicit LOD
    /// is one per quad (MODEL, hwdocs model-choices "Texture LOD"): every pixel takes the
    /// derivatives at pixel 2 (x even, y odd), `c[3] - c[2]` across and `c[2] - c[0]` down,
    /// as Gallium's reference rasteriser (softpipe) does.
    #[inline(always)]
    fn lod_of(&self, ins: &Instr, stage: Stage, c: &[[f32; 4]; 4], i: usize) -> Lod {
        let ci = c[i];
        let quad_d = |bit: usize| sub4(c[LOD_PIXEL | bit], c[LOD_PIXEL & !bit]);
        match (ins.op, stage) {
            (Opcode::TEXL, _) => Lod::Explicit(ci[3]),
            (Opcode::TEXD, _) => Lod::Implicit {
                ddx: fv(self.temps[usize::from(ins.grad)][i]),
                ddy: fv(self.temps[usize::from(ins.grad) + 1][i]),
            },
            (Opcode::TEX, Stage::Vertex) => Lod::Explicit(0.0),
            (_, Stage::Vertex) => Lod::Explicit(ci[3]),
            (Opcode::TEX, Stage::Pixel) => Lod::Implicit {
                ddx: quad_d(1),
                ddy: quad_d(2),
            },
            (_, Stage::Pixel) => Lod::Bias {
                ddx: quad_d(1),
                ddy: quad_d(2),
                bias: ci[3],
            },
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step(
        &mut self,
        p: &Program,
        ins: &Instr,
        pc: u32,
        ex: [bool; 4],
        ctl: &mut Ctl,
        pa: &[[[u32; 4]; 16]],
        sa: &[[u32; 4]],
        tex: &mut dyn Textures,
    ) -> Result<(), UsseError> {
        let n = ctl.n;
        let illegal = |reason: &str| UsseError::Illegal {
            pc,
            reason: reason.into(),
        };
        match ins.op {
            Opcode::NOP => {}
            Opcode::END
            | Opcode::BR
            | Opcode::CALL
            | Opcode::RET
            | Opcode::KILL
            | Opcode::EMITVTX => {
                for i in 0..n {
                    if !ex[i] || !self.pred_lanes(ins.pred, i)[0] {
                        continue;
                    }
                    match ins.op {
                        Opcode::END => self.finish(p, pc, i, ctl)?,
                        Opcode::BR => ctl.pc[i] = ins.target,
                        Opcode::CALL => {
                            if ctl.depth[i] >= CALL_DEPTH {
                                return Err(illegal("CALL past CALL_STACK_DEPTH"));
                            }
                            ctl.stack[i][ctl.depth[i]] = pc + 1;
                            ctl.depth[i] += 1;
                            ctl.pc[i] = ins.target;
                        }
                        Opcode::RET => {
                            if ctl.depth[i] == 0 {
                                self.finish(p, pc, i, ctl)?;
                            } else {
                                ctl.depth[i] -= 1;
                                ctl.pc[i] = ctl.stack[i][ctl.depth[i]];
                            }
                        }
                        Opcode::KILL => {
                            ctl.killed[i] = true;
                            ctl.running[i] = false;
                        }
                        _ => {
                            if ctl.emitted {
                                return Err(illegal("EMITVTX executed twice"));
                            }
                            ctl.emitted = true;
                            for (o, r) in ctl.vout.iter_mut().zip(self.outs.iter()) {
                                *o = r[i];
                            }
                        }
                    }
                }
            }
            Opcode::EMITPIX => {
                for i in 0..n {
                    if ex[i] {
                        let a = self.read(&ins.s0, i, pa, sa);
                        let pl = self.pred_lanes(ins.pred, i);
                        for l in 0..4 {
                            if pl[l] {
                                ctl.colour[i][l] = a[l];
                            }
                        }
                    }
                }
            }
            Opcode::EMITDEPTH => {
                for i in 0..n {
                    if ex[i] && self.pred_lanes(ins.pred, i)[0] {
                        ctl.frag_depth[i] = Some(self.read(&ins.s0, i, pa, sa)[0]);
                    }
                }
            }
            Opcode::LIMM => {
                for i in 0..n {
                    if ex[i] {
                        self.write(ins, i, [ins.imm; 4]);
                    }
                }
            }
            Opcode::FDDX | Opcode::FDDY => {
                let mut v = [[0u32; 4]; 4];
                if p.stage == Stage::Pixel {
                    let mut a = [[0u32; 4]; 4];
                    for (i, ai) in a.iter_mut().enumerate().take(n) {
                        *ai = self.read(&ins.s0, i, pa, sa);
                    }
                    let bit = if ins.op == Opcode::FDDX { 1 } else { 2 };
                    for (i, vi) in v.iter_mut().enumerate().take(n) {
                        *vi = fdiff(a[i | bit], a[i & !bit]);
                    }
                }
                for i in 0..n {
                    if ex[i] {
                        self.write(ins, i, v[i]);
                    }
                }
            }
            Opcode::TEX | Opcode::TEXB | Opcode::TEXL | Opcode::TEXD => {
                let mut c = [[0f32; 4]; 4];
                for (i, ci) in c.iter_mut().enumerate().take(n) {
                    *ci = fv(self.read(&ins.s0, i, pa, sa));
                }
                if self.fast {
                    // One call per quad: writes land after all samples, which is the same as
                    // interleaving them (each instance reads only its own registers).
                    let mut lod = [Lod::Explicit(0.0); 4];
                    for i in 0..n {
                        if ex[i] {
                            lod[i] = self.lod_of(ins, p.stage, &c, i);
                        }
                    }
                    let mut r = [[0f32; 4]; 4];
                    tex.sample_quad(u32::from(ins.sampler), &c, &lod, ex, &mut r)
                        .map_err(UsseError::Fault)?;
                    for i in 0..n {
                        if ex[i] {
                            self.write(ins, i, r[i].map(b));
                        }
                    }
                } else {
                    for i in 0..n {
                        if !ex[i] {
                            continue;
                        }
                        let lod = self.lod_of(ins, p.stage, &c, i);
                        let r = tex
                            .sample(u32::from(ins.sampler), c[i], lod)
                            .map_err(UsseError::Fault)?;
                        self.write(ins, i, r.map(b));
                    }
                }
            }
            op => {
                let kind = op.kind();
                debug_assert!(kind != OpKind::FLOW && kind != OpKind::TEX);
                for i in 0..n {
                    if ex[i] {
                        let a = self.read(&ins.s0, i, pa, sa);
                        let c = self.read(&ins.s1, i, pa, sa);
                        let d = if op == Opcode::FMAD {
                            self.dst_value(ins.dst, i)
                        } else {
                            [0; 4]
                        };
                        let r = if op == Opcode::LDC {
                            ldc(a, sa)
                        } else {
                            alu(op, a, c, d)
                        };
                        self.write(ins, i, r);
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, p: &Program, pc: u32, i: usize, ctl: &mut Ctl) -> Result<(), UsseError> {
        if p.stage == Stage::Vertex && !ctl.emitted {
            return Err(UsseError::Illegal {
                pc,
                reason: "vertex program ended before EMITVTX".into(),
            });
        }
        ctl.running[i] = false;
        Ok(())
    }
}

impl Ctl {
    fn new(n: usize, running: [bool; 4]) -> Ctl {
        let mut r = [false; 4];
        r[..n].copy_from_slice(&running[..n]);
        Ctl {
            n,
            pc: [0; 4],
            running: r,
            executed: [0; 4],
            stack: [[0; CALL_DEPTH]; 4],
            depth: [0; 4],
            killed: [false; 4],
            emitted: false,
            colour: [[0; 4]; 4],
            frag_depth: [None; 4],
            vout: [[0; 4]; 16],
        }
    }
}
