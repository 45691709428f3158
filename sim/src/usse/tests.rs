//! USSE interpreter tests, per opcode class, with programs assembled by hwdocs' packers.

use sgx_hwdocs::usse::{Opcode::*, Pred, UsseAlu};

use super::*;
use crate::kit::*;

fn vprog(body: &[W]) -> Program {
    let mut v = body.to_vec();
    v.push(emitvtx());
    v.push(end());
    Program::decode(&words(&v), Stage::Vertex).unwrap()
}

/// Runs `body` as a vertex program with pa0 = a, pa1 = b; returns o0.
fn run1(body: &[W], a: [u32; 4], b: [u32; 4]) -> [u32; 4] {
    let p = vprog(body);
    run_vertex(&p, &[a, b], &[], &mut NoTextures).unwrap().out[0]
}

fn runf(op: sgx_hwdocs::usse::Opcode, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    ff(run1(&[alu(op, dout(0), pa(0), pa(1))], fv(a), fv(b)))
}

#[test]
fn moves_swizzles_modifiers_limm() {
    let o = run1(
        &[mov(dout(0), pa(0).sw("wzyx").neg())],
        fv([1.0, 2.0, 3.0, -4.0]),
        [0; 4],
    );
    assert_eq!(ff(o), [4.0, -3.0, -2.0, -1.0]);
    let o = run1(
        &[mov(dout(0), pa(0).abs())],
        fv([-1.0, 2.0, -0.0, -4.0]),
        [0; 4],
    );
    assert_eq!(o, fv([1.0, 2.0, 0.0, 4.0]));
    let o = run1(&[limm(dout(0).m(0b0101), 0xdead_beef)], [0; 4], [0; 4]);
    assert_eq!(o, [0xdead_beef, 0, 0xdead_beef, 0]);
    let o = run1(&[mov(dout(0), imm(7))], [0; 4], [0; 4]);
    assert_eq!(ff(o), [7.0; 4]);
}

#[test]
fn float_arithmetic() {
    assert_eq!(
        runf(FADD, [1.0, 2.0, 3.0, 4.0], [0.5; 4]),
        [1.5, 2.5, 3.5, 4.5]
    );
    assert_eq!(
        runf(FMUL, [1.0, 2.0, 3.0, 4.0], [2.0; 4]),
        [2.0, 4.0, 6.0, 8.0]
    );
    assert_eq!(
        runf(FDP3, [1.0, 2.0, 3.0, 100.0], [4.0, 5.0, 6.0, 100.0]),
        [32.0; 4]
    );
    assert_eq!(
        runf(FDP4, [1.0, 2.0, 3.0, 4.0], [4.0, 5.0, 6.0, 7.0]),
        [60.0; 4]
    );
    assert_eq!(
        runf(FDP2, [1.0, 2.0, 3.0, 4.0], [4.0, 5.0, 6.0, 7.0]),
        [14.0; 4]
    );
    let m = runf(FMIN, [f32::NAN, 1.0, -1.0, 0.0], [2.0, f32::NAN, 1.0, 0.0]);
    assert_eq!(m, [2.0, 1.0, -1.0, 0.0]);
    assert_eq!(
        runf(FMAX, [1.0, 5.0, -1.0, 0.0], [2.0, 3.0, 1.0, 0.0]),
        [2.0, 5.0, 1.0, 0.0]
    );
    assert_eq!(
        runf(FRCP, [2.0, 4.0, -0.5, 1.0], [0.0; 4]),
        [0.5, 0.25, -2.0, 1.0]
    );
    assert_eq!(
        runf(FRSQ, [4.0, 16.0, 1.0, 0.25], [0.0; 4]),
        [0.5, 0.25, 1.0, 2.0]
    );
    assert_eq!(
        runf(FFLR, [1.5, -1.5, 2.0, -0.0], [0.0; 4]),
        [1.0, -2.0, 2.0, -0.0]
    );
    assert_eq!(
        runf(FRND, [0.5, 1.5, 2.5, -2.5], [0.0; 4]),
        [0.0, 2.0, 2.0, -2.0]
    );
    assert_eq!(
        runf(FTRC, [1.7, -1.7, 0.2, -0.2], [0.0; 4]),
        [1.0, -1.0, 0.0, -0.0]
    );
    assert_eq!(
        runf(FCEIL, [1.2, -1.2, 3.0, 0.5], [0.0; 4]),
        [2.0, -1.0, 3.0, 1.0]
    );
    assert_eq!(
        runf(FFRC, [1.25, -1.25, 3.0, 0.5], [0.0; 4]),
        [0.25, 0.75, 0.0, 0.5]
    );
    assert_eq!(
        runf(FSGN, [3.0, -2.0, 0.0, f32::NAN], [0.0; 4]),
        [1.0, -1.0, 0.0, 0.0]
    );
    assert_eq!(
        runf(FEXP, [3.0, 0.0, -1.0, 1.0], [0.0; 4]),
        [8.0, 1.0, 0.5, 2.0]
    );
    let l = runf(FLOG, [8.0, 1.0, 0.0, -1.0], [0.0; 4]);
    assert_eq!(&l[..3], &[3.0, 0.0, f32::NEG_INFINITY]);
    assert!(l[3].is_nan());
    // FMAD adds the destination's prior value; saturate clamps, NaN to 0.
    let o = run1(
        &[mov(dout(0), pa(1)), alu(FMAD, dout(0), pa(0), pa(0))],
        fv([2.0, 3.0, 0.5, 1.0]),
        fv([1.0, -1.0, 0.25, 0.0]),
    );
    assert_eq!(ff(o), [5.0, 8.0, 0.5, 1.0]);
    let o = run1(
        &[alu_full(FADD, Pred::ALWAYS, true, dout(0), pa(0), pa(1))],
        fv([0.5, 2.0, -3.0, f32::NAN]),
        fv([0.0; 4]),
    );
    assert_eq!(ff(o), [0.5, 1.0, 0.0, 0.0]);
}

#[test]
fn compares() {
    assert_eq!(
        runf(FSLT, [1.0, 2.0, f32::NAN, 0.0], [2.0, 2.0, 1.0, -1.0]),
        [1.0, 0.0, 0.0, 0.0]
    );
    assert_eq!(
        runf(FSGE, [1.0, 2.0, f32::NAN, 0.0], [2.0, 2.0, 1.0, -1.0]),
        [0.0, 1.0, 0.0, 1.0]
    );
    assert_eq!(
        runf(FSNE, [1.0, 2.0, f32::NAN, 0.0], [2.0, 2.0, f32::NAN, -0.0]),
        [1.0, 0.0, 1.0, 0.0]
    );
    let o = run1(
        &[alu(FCLT, dout(0), pa(0), pa(1))],
        fv([1.0, 2.0, 3.0, -1.0]),
        fv([2.0; 4]),
    );
    assert_eq!(o, [!0, 0, 0, !0]);
    let o = run1(
        &[alu(ICLT, dout(0), pa(0), pa(1))],
        [(-1i32) as u32, 5, 0, 3],
        [0, 5, 1, 2],
    );
    assert_eq!(o, [!0, 0, !0, 0]);
    let o = run1(
        &[alu(UCLT, dout(0), pa(0), pa(1))],
        [(-1i32) as u32, 5, 0, 3],
        [0, 5, 1, 2],
    );
    assert_eq!(o, [0, 0, !0, 0]);
    let o = run1(
        &[alu(ICEQ, dout(0), pa(0), pa(1))],
        [1, 2, 3, 4],
        [1, 0, 3, 0],
    );
    assert_eq!(o, [!0, 0, !0, 0]);
}

#[test]
fn integer_ops() {
    let m = (-2i32 << 30) as u32; // i32::MIN
    let o = run1(
        &[alu(IDIV, dout(0), pa(0), pa(1))],
        [7, (-7i32) as u32, 5, m],
        [2, 2, 0, (-1i32) as u32],
    );
    assert_eq!(o, [3, (-3i32) as u32, 0xffff_ffff, m]);
    let o = run1(
        &[alu(UDIV, dout(0), pa(0), pa(1))],
        [7, 9, 5, 1],
        [2, 3, 0, 1],
    );
    assert_eq!(o, [3, 3, 0xffff_ffff, 1]);
    let o = run1(
        &[alu(UMOD, dout(0), pa(0), pa(1))],
        [7, 9, 5, 1],
        [2, 4, 0, 1],
    );
    assert_eq!(o, [1, 1, 0xffff_ffff, 0]);
    let o = run1(
        &[alu(SHL, dout(0), pa(0), pa(1))],
        [1, 1, 3, 0xffff_ffff],
        [4, 33, 0, 31],
    );
    assert_eq!(o, [16, 2, 3, 0x8000_0000]);
    let o = run1(
        &[alu(ISHR, dout(0), pa(0), pa(1))],
        [0x8000_0000, 16, 3, 1],
        [4, 2, 0, 1],
    );
    assert_eq!(o, [0xf800_0000, 4, 3, 0]);
    let o = run1(
        &[alu(USHR, dout(0), pa(0), pa(1))],
        [0x8000_0000, 16, 3, 1],
        [4, 2, 0, 1],
    );
    assert_eq!(o, [0x0800_0000, 4, 3, 0]);
    let o = run1(
        &[alu1(INEG, dout(0), pa(0))],
        [1, 0, 0x8000_0000, 5],
        [0; 4],
    );
    assert_eq!(o, [0xffff_ffff, 0, 0x8000_0000, (-5i32) as u32]);
    let o = run1(
        &[alu(IMAX, dout(0), pa(0), pa(1))],
        [(-1i32) as u32, 2, 3, 4],
        [1, 1, 5, 4],
    );
    assert_eq!(o, [1, 2, 5, 4]);
    let o = run1(
        &[alu(UMAX, dout(0), pa(0), pa(1))],
        [(-1i32) as u32, 2, 3, 4],
        [1, 1, 5, 4],
    );
    assert_eq!(o, [0xffff_ffff, 2, 5, 4]);
    let o = run1(
        &[alu(XOR, dout(0), pa(0), pa(1))],
        [0xff, 0, 1, 2],
        [0x0f, 0, 1, 1],
    );
    assert_eq!(o, [0xf0, 0, 0, 3]);
}

#[test]
fn conversions() {
    let o = run1(
        &[alu1(F2I, dout(0), pa(0))],
        fv([1.9, -1.9, 3e10, f32::NAN]),
        [0; 4],
    );
    assert_eq!(o, [1, (-1i32) as u32, i32::MAX as u32, 0]);
    let o = run1(
        &[alu1(F2U, dout(0), pa(0))],
        fv([1.9, -1.9, 5e9, f32::NAN]),
        [0; 4],
    );
    assert_eq!(o, [1, 0, u32::MAX, 0]);
    let o = run1(
        &[alu1(I2F, dout(0), pa(0))],
        [(-3i32) as u32, 16_777_217, 0, 1],
        [0; 4],
    );
    assert_eq!(ff(o), [-3.0, 16_777_216.0, 0.0, 1.0]);
    let o = run1(&[alu1(U2F, dout(0), pa(0))], [u32::MAX, 2, 0, 1], [0; 4]);
    assert_eq!(ff(o), [4_294_967_296.0, 2.0, 0.0, 1.0]);
}

#[test]
fn predicates_and_indexing() {
    // p0 = pa0 < pa1 per lane; o0 = pa1 where p0 else stays 0.
    let body = [
        alu(FCLT, dp(0), pa(0), pa(1)),
        alu_full(MOV, Pred::P0, false, dout(0), pa(1), r(0)),
        alu_full(MOV, Pred::NOT_P0, false, dout(1), pa(0), r(0)),
    ];
    let p = vprog(&body);
    let v = run_vertex(
        &p,
        &[fv([1.0, 5.0, 1.0, 5.0]), fv([2.0; 4])],
        &[],
        &mut NoTextures,
    )
    .unwrap();
    assert_eq!(ff(v.out[0]), [2.0, 0.0, 2.0, 0.0]);
    assert_eq!(ff(v.out[1]), [0.0, 5.0, 0.0, 5.0]);
    // a0.x = 2; o0 = sa[1 + a0.x] = sa3; an index past the bank reads 0.
    let body = [limm(da(), 2), mov(dout(0), sai(1)), mov(dout(1), sai(126))];
    let p = vprog(&body);
    let sa: Vec<[u32; 4]> = (0..4).map(|i| [i, i, i, i]).collect();
    let v = run_vertex(&p, &[], &sa, &mut NoTextures).unwrap();
    assert_eq!(v.out[0], [3; 4]);
    assert_eq!(v.out[1], [0; 4]);
}

#[test]
fn ldc_reads_constant_memory_past_the_bank_and_clamps() {
    // 300 vec4s of constant memory: sa reads stop at the bank, LDC reaches all of them.
    let sa: Vec<[u32; 4]> = (0..300)
        .map(|i| [i, i + 1000, i + 2000, i + 3000])
        .collect();
    let idx = |v: i32| [v as u32, 7, 7, 7];
    for (n, want) in [
        (0, 0),
        (5, 5),
        (127, 127),
        (128, 128),
        (299, 299),
        (300, 299),
        (-1, 0),
        (i32::MIN, 0),
        (i32::MAX, 299),
    ] {
        let body = [
            alu1(LDC, dout(0), pa(0)),
            alu1(
                LDC,
                D {
                    mask: 0b0110,
                    ..dout(1)
                },
                pa(0),
            ),
        ];
        let p = vprog(&body);
        let v = run_vertex(&p, &[idx(n)], &sa, &mut NoTextures).unwrap();
        assert_eq!(v.out[0], sa[want as usize], "index {n}");
        // The write mask holds: lanes x and w stay 0.
        assert_eq!(
            v.out[1],
            [0, sa[want as usize][1], sa[want as usize][2], 0],
            "index {n}"
        );
    }
    // No constant memory: every lane reads 0.
    let p = vprog(&[alu1(LDC, dout(0), pa(0))]);
    assert_eq!(
        run_vertex(&p, &[idx(3)], &[], &mut NoTextures).unwrap().out[0],
        [0; 4]
    );
}

#[test]
fn flow_loops_calls_watchdog() {
    // r0 = 0; loop: r0 += 1; p0 = r0 < 5; BR p0 loop. Then CALL sub (o0 = r0 * 2).
    let ins = [
        limmf(dr(0), 0.0),
        alu(FADD, dr(0), r(0), imm(1)),
        alu(FCLT, dp(0).m(1), r(0), imm(5)),
        flow(BR, Pred::P0, 1),
        flow(CALL, Pred::ALWAYS, 7),
        emitvtx(),
        end(),
        alu(FMUL, dout(0), r(0), imm(2)),
        flow(RET, Pred::ALWAYS, 0),
    ];
    let p = Program::decode(&words(&ins), Stage::Vertex).unwrap();
    let v = run_vertex(&p, &[], &[], &mut NoTextures).unwrap();
    assert_eq!(ff(v.out[0]), [10.0; 4]);
    assert_eq!(v.instructions, 1 + 5 * 3 + 1 + 2 + 2);
    // An endless loop trips the watchdog.
    let p = Program::decode(&words(&[flow(BR, Pred::ALWAYS, 0), end()]), Stage::Vertex).unwrap();
    assert_eq!(
        run_vertex(&p, &[], &[], &mut NoTextures),
        Err(UsseError::Watchdog { pc: 0 })
    );
    // Recursion past CALL_STACK_DEPTH is illegal.
    let p = Program::decode(&words(&[flow(CALL, Pred::ALWAYS, 0), end()]), Stage::Vertex).unwrap();
    assert!(matches!(
        run_vertex(&p, &[], &[], &mut NoTextures),
        Err(UsseError::Illegal { pc: 0, .. })
    ));
}

#[test]
fn illegal_programs() {
    let dec = |ins: &[W], st| Program::decode(&words(ins), st).err();
    // Unknown opcode 127.
    assert!(matches!(
        dec(&[[127, 0], end()], Stage::Vertex),
        Some(UsseError::Illegal { pc: 0, .. })
    ));
    // Saturate on an integer op; modifier on an integer op.
    assert!(dec(
        &[alu_full(IADD, Pred::ALWAYS, true, dr(0), r(0), r(1)), end()],
        Stage::Vertex
    )
    .is_some());
    assert!(dec(&[alu(IADD, dr(0), r(0).neg(), r(1)), end()], Stage::Vertex).is_some());
    // Registers past their banks.
    let mut w = UsseAlu::unpack(&alu(MOV, dr(0), r(0), r(0))).unwrap();
    w.dst_num = 64;
    assert!(dec(&[w.pack().unwrap(), end()], Stage::Vertex).is_some());
    assert!(dec(&[mov(dout(16), r(0)), end()], Stage::Vertex).is_some());
    assert!(dec(&[mov(dp(3), r(0)), end()], Stage::Vertex).is_some());
    assert!(dec(&[mov(dr(0), pa(16)), end()], Stage::Vertex).is_some());
    // Stage-only opcodes, branch past the end, reserved bits in a TEX word.
    assert!(dec(&[flow(KILL, Pred::ALWAYS, 0), end()], Stage::Vertex).is_some());
    assert!(dec(&[emitpix(r(0)), end()], Stage::Vertex).is_some());
    assert!(dec(&[emitvtx(), end()], Stage::Pixel).is_some());
    assert!(dec(&[flow(BR, Pred::ALWAYS, 2), end()], Stage::Vertex).is_some());
    let mut t = tex(dr(0), r(0), 0);
    t[1] |= 1 << 31;
    assert!(matches!(
        dec(&[t, end()], Stage::Pixel),
        Some(UsseError::Illegal { pc: 0, .. })
    ));
    // Odd word count, empty.
    assert!(Program::decode(&[0], Stage::Vertex).is_err());
    assert!(Program::decode(&[], Stage::Vertex).is_err());
    // Run-time: END before EMITVTX, EMITVTX twice, falling off the end.
    let p = Program::decode(&words(&[end()]), Stage::Vertex).unwrap();
    assert!(matches!(
        run_vertex(&p, &[], &[], &mut NoTextures),
        Err(UsseError::Illegal { .. })
    ));
    let p = Program::decode(&words(&[emitvtx(), emitvtx(), end()]), Stage::Vertex).unwrap();
    assert!(matches!(
        run_vertex(&p, &[], &[], &mut NoTextures),
        Err(UsseError::Illegal { pc: 1, .. })
    ));
    let p = Program::decode(&words(&[emitvtx()]), Stage::Vertex).unwrap();
    assert!(matches!(
        run_vertex(&p, &[], &[], &mut NoTextures),
        Err(UsseError::Illegal { pc: 1, .. })
    ));
}

struct Recorder(Vec<(u32, [f32; 4], Lod)>);
impl Textures for Recorder {
    fn sample(&mut self, unit: u32, coord: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        self.0.push((unit, coord, lod));
        Ok([coord[0], coord[1], 0.25, 1.0])
    }
}

fn quad_pa(f: impl Fn(usize) -> [f32; 4]) -> [[[u32; 4]; 16]; 4] {
    let mut pa = [[[0u32; 4]; 16]; 4];
    for (i, p) in pa.iter_mut().enumerate() {
        p[0] = fv(f(i));
    }
    pa
}

#[test]
fn quad_derivatives_kill_emitpix_tex() {
    // pa0 = (x*2, y*3, 0, 1) over the quad.
    let pav = quad_pa(|i| [(i & 1) as f32 * 2.0, (i >> 1) as f32 * 3.0, 0.0, 1.0]);
    let ins = [
        alu1(FDDX, dr(0), pa(0)),
        alu1(FDDY, dr(1), pa(0)),
        alu(FADD, dr(2), r(0), r(1)),
        emitpix(r(2)),
        end(),
    ];
    let p = Program::decode(&words(&ins), Stage::Pixel).unwrap();
    let q = run_quad(&p, &pav, [true; 4], &[], &mut NoTextures).unwrap();
    for c in q.colour {
        assert_eq!(c, [2.0, 3.0, 0.0, 0.0]);
    }
    // KILL when pa0.x > 1 (pixels 1 and 3); pixel 3 is a helper, so reported not killed.
    let ins = [
        alu(FCLT, dp(0).m(1), imm(1), pa(0)),
        flow(KILL, Pred::P0, 0),
        emitpix(pa(0)),
        end(),
    ];
    let p = Program::decode(&words(&ins), Stage::Pixel).unwrap();
    let q = run_quad(&p, &pav, [true, true, true, false], &[], &mut NoTextures).unwrap();
    assert_eq!(q.killed, [false, true, false, false]);
    assert_eq!(q.colour[0], [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(q.colour[1], [0.0; 4]);
    // TEX takes the quad's derivatives; TEXL an explicit LOD; sampler index is passed.
    let ins = [
        tex(dr(0), pa(0), 3),
        tex_full(TEXL, dr(1), pa(0), 1, 0),
        emitpix(r(0)),
        end(),
    ];
    let p = Program::decode(&words(&ins), Stage::Pixel).unwrap();
    let mut rec = Recorder(Vec::new());
    let q = run_quad(&p, &pav, [true; 4], &[], &mut rec).unwrap();
    assert_eq!(q.colour[3], [2.0, 3.0, 0.25, 1.0]);
    assert_eq!(rec.0.len(), 8);
    assert_eq!(rec.0[0].0, 3);
    assert_eq!(
        rec.0[0].2,
        Lod::Implicit {
            ddx: [2.0, 0.0, 0.0, 0.0],
            ddy: [0.0, 3.0, 0.0, 0.0]
        }
    );
    assert_eq!(rec.0[4], (1, [0.0, 0.0, 0.0, 1.0], Lod::Explicit(1.0)));
    // NoTextures faults in the TSP.
    assert!(matches!(
        run_quad(&p, &pav, [true; 4], &[], &mut NoTextures),
        Err(UsseError::Fault(Fault {
            unit: Unit::Tsp,
            ..
        }))
    ));
}

#[test]
fn divergent_quad_reconverges() {
    // Pixels with pa0.x > 1 take a branch that adds 10; all then add 1.
    let pav = quad_pa(|i| [(i & 1) as f32 * 2.0, 0.0, 0.0, 0.0]);
    let ins = [
        mov(dr(0), pa(0)),
        alu(FCLT, dp(0).m(1), imm(1), pa(0)),
        flow(BR, Pred::NOT_P0, 4),
        alu(FADD, dr(0), r(0), imm(10)),
        alu(FADD, dr(0), r(0), imm(1)),
        emitpix(r(0)),
        end(),
    ];
    let p = Program::decode(&words(&ins), Stage::Pixel).unwrap();
    let q = run_quad(&p, &pav, [true; 4], &[], &mut NoTextures).unwrap();
    assert_eq!(q.colour.map(|c| c[0]), [1.0, 13.0, 1.0, 13.0]);
}

/// A machine reused across programs (as the 3D phase reuses one) gives each run the state a
/// fresh machine would: a program reading predicates or a0 without writing them first sees
/// them reset, though the program before set them and the one between (using neither) skipped
/// their reset; EMITPIX forms (plain temp, swizzled, twice) agree on both paths.
#[test]
fn reused_machine_matches_a_fresh_one() {
    let pav = quad_pa(|i| [i as f32, 1.5 - i as f32, 0.25, 2.0]);
    let sec: Vec<[u32; 4]> = (0..6).map(|i| fv([i as f32; 4])).collect();
    let progs: Vec<Vec<W>> = vec![
        // Sets every predicate and a0.
        vec![
            alu(FCLT, dp(0), imm(0), pa(0)),
            alu(FCLT, dp(1), imm(0), pa(0)),
            alu(FCLT, dp(2), imm(0), pa(0)),
            limm(da(), 3),
            limmf(dr(0), 10.0),
            limmf(dr(1), 11.0),
            limmf(dr(2), 12.0),
            limmf(dr(3), 13.0),
            limmf(dr(4), 14.0),
            limmf(dr(5), 15.0),
            limmf(dr(6), 16.0),
            limmf(dr(7), 17.0),
            emitpix(pa(0)),
            end(),
        ],
        // Uses neither; emits a plain temporary, then a swizzled one, then a plain one.
        vec![
            mov(dr(0), pa(0)),
            emitpix(r(0)),
            alu(FMUL, dr(1), r(0), sa(2)),
            emitpix(r(1).sw("wzyx")),
            emitpix(r(1)),
            end(),
        ],
        // Ends on a swizzled EMITPIX.
        vec![mov(dr(0), pa(0)), emitpix(r(0).sw("yxwz").neg()), end()],
        // TEX into a whole temporary (also its own source), and into part of one.
        vec![
            tex(dr(0), pa(0), 3),
            tex(dr(0), r(0).sw("yxzw"), 1),
            tex(dr(1).m(0b0110), r(0), 2),
            alu(FADD, dr(1), r(1), r(0)),
            emitpix(r(1)),
            end(),
        ],
        // Reads temporaries before writing them whole: EMITPIX names r4 but writes nothing,
        // a masked write keeps r2's other lanes, FMAD accumulates r3, TEXD reads r5 and r6.
        vec![
            alu_full(EMITPIX, Pred::ALWAYS, false, dr(4), pa(0), pa(0)),
            mov(dr(2).m(0b0101), pa(0)),
            alu(FMAD, dr(3), pa(0), pa(0)),
            tex_full(TEXD, dr(7), pa(0), 0, 5),
            alu(FADD, dr(0), r(2), r(3)),
            alu(FADD, dr(0), r(0), r(4)),
            alu(FADD, dr(0), r(0), r(7)),
            emitpix(r(0)),
            end(),
        ],
        // A predicated EMITDEPTH, then an unpredicated one that wins.
        vec![
            alu(FCLT, dp(0), imm(0), pa(0)),
            alu_full(EMITDEPTH, Pred::P0, false, dr(0), pa(0).sw("wzyx"), pa(0)),
            alu1(EMITDEPTH, dr(0), pa(0).sw("yxzw")),
            emitpix(pa(0)),
            end(),
        ],
        // Reads p0..p2 and a0 without writing them.
        vec![
            mov(dr(0), sa(1)),
            alu_full(MOV, Pred::P0, false, dr(0).m(0b0001), pa(0), pa(0)),
            alu_full(MOV, Pred::P1, false, dr(0).m(0b0010), pa(0), pa(0)),
            alu_full(MOV, Pred::P2, false, dr(0).m(0b0100), pa(0), pa(0)),
            alu(FADD, dr(0), r(0), sai(1)),
            emitpix(r(0)),
            end(),
        ],
    ];
    let progs: Vec<Program> = progs
        .iter()
        .map(|w| Program::decode(&words(w), Stage::Pixel).unwrap())
        .collect();
    for fast in [true, false] {
        let mut reused = Machine::with_paths(fast);
        for (k, p) in progs.iter().enumerate() {
            let run = |m: &mut Machine| {
                let mut out = QuadOut {
                    colour: [[0.0; 4]; 4],
                    killed: [false; 4],
                    depth: [None; 4],
                    instructions: 0,
                };
                m.run_quad(p, &pav, [true; 4], &sec, &mut LodEcho, &mut out)
                    .unwrap();
                out
            };
            let want = run(&mut Machine::with_paths(!fast));
            assert_eq!(run(&mut reused), want, "program {k}, fast {fast}");
        }
    }
    // The predicate reader on a fresh machine: no lane moved, a0 = 0 reads sa1.
    let q = run_quad(&progs[6], &pav, [true; 4], &sec, &mut NoTextures).unwrap();
    assert_eq!(q.colour, [[2.0; 4]; 4]);
    // The EMITPIX sequence: the last one (plain r1 = pa0 * 2) wins.
    let q = run_quad(&progs[1], &pav, [true; 4], &sec, &mut NoTextures).unwrap();
    assert_eq!(q.colour[1], [2.0, 1.0, 0.5, 4.0]);
}

/// Returns the coordinate plus the LOD's x derivative, so gradients show in the colour.
struct LodEcho;
impl Textures for LodEcho {
    fn sample(&mut self, _unit: u32, coord: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        let d = match lod {
            Lod::Implicit { ddx, .. } | Lod::Bias { ddx, .. } => ddx,
            Lod::Explicit(l) => [l; 4],
        };
        Ok(std::array::from_fn(|l| coord[l] + d[l]))
    }
}

/// EMITDEPTH: the last one executed wins, its lane x after the swizzle, clamped to [0, 1];
/// a pixel that executes none reports none; a vertex program may not contain one.
#[test]
fn emitdepth_last_wins_clamped_per_pixel() {
    let pav = quad_pa(|i| [i as f32 - 1.5, 1.5 - i as f32, 0.25, 2.0]);
    let w = vec![
        // p0: lane x of pa0 > 0 (pixels 2 and 3).
        alu(FCLT, dp(0), imm(0), pa(0)),
        alu_full(EMITDEPTH, Pred::P0, false, dr(0), pa(0).sw("zxyw"), pa(0)),
        alu_full(EMITDEPTH, Pred::P0, false, dr(0), pa(0).sw("yxzw"), pa(0)),
        emitpix(pa(0)),
        end(),
    ];
    let p = Program::decode(&words(&w), Stage::Pixel).unwrap();
    let out = run_quad(&p, &pav, [true; 4], &[], &mut LodEcho).unwrap();
    // Pixels 2 and 3: lane y = 1.5 - i = -0.5, -1.5, clamped to 0.
    assert_eq!(out.depth, [None, None, Some(0.0), Some(0.0)]);
    let w = vec![
        alu1(EMITDEPTH, dr(0), pa(0).sw("wxyz")),
        emitpix(pa(0)),
        end(),
    ];
    let p = Program::decode(&words(&w), Stage::Pixel).unwrap();
    let out = run_quad(&p, &pav, [true; 4], &[], &mut LodEcho).unwrap();
    assert_eq!(out.depth, [Some(1.0); 4], "lane w = 2.0 clamps to 1");
    let w = vec![
        alu1(EMITDEPTH, dr(0), pa(0).sw("zxyw")),
        emitpix(pa(0)),
        end(),
    ];
    let p = Program::decode(&words(&w), Stage::Pixel).unwrap();
    let out = run_quad(&p, &pav, [true; 4], &[], &mut LodEcho).unwrap();
    assert_eq!(out.depth, [Some(0.25); 4]);
    assert!(Program::decode(
        &words(&[alu1(EMITDEPTH, dr(0), pa(0)), end()]),
        Stage::Vertex
    )
    .is_err());
}

/// Denormals flush (hwdocs model-choices): FLOAT and CMP operations read a denormal operand
/// as the zero of its sign and write a denormal result as one; moves keep the bits. Both
/// paths (the straight-line quad and the scheduling interpreter) agree.
#[test]
fn float_operations_flush_denormals_and_moves_keep_them() {
    let tiny = 2f32.powi(-70); // normal; tiny * tiny = 2^-140 is a denormal
    let den = f32::from_bits(0x0000_0001); // 2^-149
    let o = run1(
        &[alu(FMUL, dout(0), pa(0), pa(1))],
        fv([tiny, -tiny, 2f32.powi(-60), 1.0]),
        fv([tiny, tiny, 2f32.powi(-60), den]),
    );
    // +0, -0, 2^-120 (normal, kept), and 1 * denormal read as 0.
    assert_eq!(o, [0, 0x8000_0000, 2f32.powi(-120).to_bits(), 0]);
    // A denormal operand of a compare is zero: 0 < den is false, 0 == -den is true.
    let o = run1(
        &[
            alu(FSLT, dout(0).m(0b0001), imm(0), pa(0)),
            alu(FSEQ, dout(0).m(0b0010), imm(0), pa(0).sw("yyyy")),
        ],
        fv([den, -den, 0.0, 0.0]),
        [0; 4],
    );
    assert_eq!(ff(o)[..2], [0.0, 1.0]);
    // EXP2 underflowing to a denormal gives 0; a MOV keeps a denormal's bits.
    let o = run1(
        &[
            alu1(FEXP, dout(0).m(0b0001), pa(0)),
            mov(dout(0).m(0b0010), pa(1)),
        ],
        fv([-140.0, 0.0, 0.0, 0.0]),
        fv([0.0, den, 0.0, 0.0]),
    );
    assert_eq!(o[..2], [0, 1]);
    // On a quad: FMUL, FADD, FMAD and FDDX on both paths.
    let pav = quad_pa(|i| [tiny * (i + 1) as f32, tiny, den * i as f32, 1.0]);
    let ins = [
        alu(FMUL, dr(0), pa(0).sw("xxxx"), pa(0).sw("yyyy")),
        alu(FADD, dr(1), pa(0).sw("zzzz"), imm(0)),
        mov(dr(2), pa(0).sw("zzzz")),
        alu(FMAD, dr(2), pa(0).sw("xxxx"), pa(0).sw("yyyy")),
        alu1(FDDX, dr(3), pa(0).sw("zzzz")),
        mov(dr(4).m(0b0001), r(0)),
        mov(dr(4).m(0b0010), r(1)),
        mov(dr(4).m(0b0100), r(2)),
        mov(dr(4).m(0b1000), r(3)),
        emitpix(r(4)),
        end(),
    ];
    let p = Program::decode(&words(&ins), Stage::Pixel).unwrap();
    for fast in [true, false] {
        let mut out = QuadOut {
            colour: [[1.0; 4]; 4],
            killed: [false; 4],
            depth: [None; 4],
            instructions: 0,
        };
        Machine::with_paths(fast)
            .run_quad(&p, &pav, [true; 4], &[], &mut NoTextures, &mut out)
            .unwrap();
        for (i, c) in out.colour.iter().enumerate() {
            assert_eq!(c.map(f32::to_bits), [0; 4], "pixel {i}, fast {fast}");
        }
    }
}

/// An implicit LOD is one per quad: every pixel of a TEX or TEXB samples with the derivatives
/// at pixel 2 ((0,1): `c3 - c2` across, `c2 - c0` down), on the straight and the general
/// path, not with its own row's and column's differences.
#[test]
fn implicit_lod_takes_the_quad_derivatives_of_pixel_2() {
    // Coordinates no plane holds, so each pixel's own differences differ from pixel 2's.
    let c = [
        [0.10, 0.20, 0.5, 1.0],
        [0.50, 0.30, 0.25, 2.0],
        [0.15, 0.90, 0.75, 0.5],
        [0.40, 1.70, 0.125, -1.0],
    ];
    let pav = quad_pa(|i| c[i]);
    let d = |a: [f32; 4], b: [f32; 4]| -> [f32; 4] { std::array::from_fn(|l| a[l] - b[l]) };
    let (ddx, ddy) = (d(c[3], c[2]), d(c[2], c[0]));
    // Pixel 0's own across difference is another vector: the test tells the two apart.
    assert_ne!(d(c[1], c[0]), ddx);
    for op in [TEX, TEXB] {
        let ins = [tex_full(op, dr(0), pa(0), 0, 0), emitpix(r(0)), end()];
        let p = Program::decode(&words(&ins), Stage::Pixel).unwrap();
        for fast in [true, false] {
            let mut rec = Recorder(Vec::new());
            let mut out = QuadOut {
                colour: [[0.0; 4]; 4],
                killed: [false; 4],
                depth: [None; 4],
                instructions: 0,
            };
            Machine::with_paths(fast)
                .run_quad(&p, &pav, [true; 4], &[], &mut rec, &mut out)
                .unwrap();
            assert_eq!(rec.0.len(), 4, "{op:?} fast {fast}");
            for (i, &(unit, coord, lod)) in rec.0.iter().enumerate() {
                assert_eq!((unit, coord), (0, c[i]), "{op:?} fast {fast} sample {i}");
                let want = if op == TEX {
                    Lod::Implicit { ddx, ddy }
                } else {
                    Lod::Bias {
                        ddx,
                        ddy,
                        bias: c[i][3],
                    }
                };
                assert_eq!(lod, want, "{op:?} fast {fast} pixel {i}");
            }
        }
    }
}
