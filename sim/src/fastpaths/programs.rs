//! Fragment programs through both paths: an ALU mix (swizzles, modifiers, LIMM, predicates,
//! derivatives), integer ops with a predicated EMITPIX, divergent branches, loops and calls,
//! and KILL.

use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::usse::{Opcode, Pred};

use super::{all_done, check, target};
use crate::kit::*;

#[test]
fn straight_and_branching_programs() {
    use Opcode::*;
    let programs: Vec<Vec<W>> = vec![
        // ALU mix: swizzles, modifiers, saturate, LIMM, FMAD, predicates, derivatives.
        vec![
            alu(FMUL, dr(0), pa(1), sa(0)),
            alu_full(
                FADD,
                Pred::ALWAYS,
                true,
                dr(1),
                r(0).sw("yxwz"),
                pa(0).neg(),
            ),
            limmf(dr(2).m(0b1010), 0.75),
            alu(FMAD, dr(2), r(1).abs(), sa(1).sw("wwxy")),
            alu(FSLT, dp(0), r(0), sa(1)),
            alu_full(MOV, Pred::P0, false, dr(2).m(0b0101), r(1).sw("zzzz"), r(1)),
            alu(FDDX, dr(3), pa(0), pa(0)),
            alu(FDDY, dr(4), r(1), r(1)),
            alu(FMAD, dr(2), r(3), r(4)),
            alu1(
                FFRC,
                dr(2).m(0b0011),
                S {
                    m: sgx_hwdocs::usse::SrcMod::NEG_ABS,
                    ..r(2)
                },
            ),
            mov(da(), imm(1)),
            alu(FADD, dr(2).m(0b1000), sai(0), r(2)),
            emitpix(r(2)),
            end(),
        ],
        // A predicated EMITPIX, integer ops and a RET ending the program.
        vec![
            alu(F2I, dr(0), pa(1), pa(1)),
            alu(AND, dr(0), r(0), imm(1)),
            alu(ICNE, dp(1), r(0), imm(0)),
            emitpix(pa(0)),
            alu_full(EMITPIX, Pred::P1, false, dr(0), sa(0), sa(0)),
            flow(RET, Pred::ALWAYS, 0),
        ],
        // Divergence: a branch on the pixel's x parity, a loop, a call.
        vec![
            alu(F2I, dr(0), pa(1), pa(1)),
            alu(AND, dr(0), r(0), imm(1)),
            alu(ICEQ, dp(0), r(0), imm(0)),
            mov(dr(1), pa(0)),
            flow(BR, Pred::P0, 7),
            alu(FMUL, dr(1), r(1), sa(0)),
            flow(CALL, Pred::ALWAYS, 9),
            emitpix(r(1)),
            end(),
            alu(FADD, dr(1), r(1), sa(1).sw("xxxx")),
            flow(RET, Pred::ALWAYS, 0),
        ],
        // KILL on some pixels.
        vec![
            alu(FSLT, dp(2), pa(0).sw("xxxx"), sa(1).sw("yyyy")),
            flow(KILL, Pred::P2, 0),
            emitpix(pa(0)),
            end(),
        ],
    ];
    for (k, prog) in programs.iter().enumerate() {
        let r = check(&format!("program {k}"), |s| {
            let (rd, fb) = target(s, 29, 19);
            let verts = [
                (clip_xy(-3.0, 1.0, 29.0, 19.0, 0.5), [0.1, 0.9, 0.3, 0.6]),
                (clip_xy(27.5, -2.0, 29.0, 19.0, 0.5), [0.8, 0.2, 0.7, 0.1]),
                (clip_xy(14.0, 22.0, 29.0, 19.0, 0.5), [0.5, 0.4, -0.2, 1.2]),
            ];
            let mut d = DrawDesc::new(
                Topology::TRIANGLES,
                &verts,
                words(prog),
                viewport(29.0, 19.0),
            );
            d.fs_consts = vec![
                fv([0.03, 0.05, 0.5, 2.0]),
                fv([0.4, 0.55, -0.25, 0.125]),
                fv([0.2, 0.1, 0.3, 0.9]),
            ];
            d.tsp.pos_enable = true;
            d.tsp.pos_slot = 1;
            (vec![build(s, &rd, &[d])], vec![fb])
        });
        all_done(&format!("program {k}"), &r);
    }
}
