//! Vertex shading through both paths: the fast one shades straight vertex programs four
//! vertices at a time (`usse::Machine::run_vertex4`), the reference one a vertex at a time.
//! Vertex counts that leave a batch part-full, indices that repeat, a branching program
//! (shaded one by one on both paths) between batched ones, outputs a program leaves
//! unwritten (they keep what the machine held), and attribute fetches that fault mid-batch.

use sgx_hwdocs::isp::{CullMode, Scissor};
use sgx_hwdocs::render::AttrType;
use sgx_hwdocs::ta_stream::{IndexType, Topology};
use sgx_hwdocs::usse::{Opcode, Pred};

use super::{all_done, check, target};
use crate::kit::*;
use crate::JobStatus;

/// Straight: predicates, the address register, an indexed and a plain secondary, LDC,
/// a partial write of o2, and a write after EMITVTX.
fn vs_straight() -> Vec<u32> {
    use Opcode::*;
    words(&[
        alu(FMUL, dr(0), pa(1), sa(0)),
        alu(FMAD, dr(0), pa(1).sw("yzwx"), sa(1).sw("xxxx")),
        mov(dout(0), pa(0)),
        alu(FSLT, dp(0), pa(1), sa(1)),
        alu_full(MOV, Pred::P0, false, dr(0).m(0b0101), r(0).sw("zzzz"), r(0)),
        mov(da(), imm(1)),
        alu(FADD, dout(1), sai(0), r(0)),
        alu(LDC, dr(1), imm(2), imm(0)),
        alu(FMAX, dout(2).m(0b0011), r(0), r(1)),
        emitvtx(),
        mov(dout(1), sa(2)),
        end(),
    ])
}

/// Straight, writing o0 and o1 only: o2 is whatever the bank held.
fn vs_short() -> Vec<u32> {
    use Opcode::*;
    words(&[
        mov(dout(0), pa(0)),
        alu(FMUL, dout(1), pa(1), sa(2)),
        emitvtx(),
        end(),
    ])
}

/// A branch on the colour's red: shaded one by one on both paths.
fn vs_branching() -> Vec<u32> {
    use Opcode::*;
    words(&[
        mov(dout(0), pa(0)),
        mov(dout(1), pa(1)),
        alu(FSLT, dp(1), pa(1).sw("xxxx"), sa(1).sw("yyyy")),
        flow(BR, Pred::P1, 5),
        alu(FMUL, dout(1), pa(1), sa(0)),
        alu(FADD, dout(2), pa(1), sa(2)),
        emitvtx(),
        end(),
    ])
}

fn fs() -> Vec<u32> {
    words(&[
        alu(Opcode::FADD, dr(0), pa(0), pa(1).sw("wzyx")),
        emitpix(r(0)),
        end(),
    ])
}

const W: f32 = 31.0;
const H: f32 = 27.0;

fn verts(rng: &mut Rng, n: usize) -> Vec<([f32; 4], [f32; 4])> {
    (0..n)
        .map(|_| {
            let p = clip_xy(
                rng.f(-6.0, W + 6.0),
                rng.f(-6.0, H + 6.0),
                W,
                H,
                rng.f(0.0, 1.0),
            );
            let c = [rng.f(0.0, 1.0), rng.f(0.0, 1.0), rng.f(0.0, 1.0), 1.0];
            (p, c)
        })
        .collect()
}

fn draw(vs: Vec<u32>, topology: Topology, v: &[([f32; 4], [f32; 4])]) -> DrawDesc {
    let mut d = DrawDesc::new(topology, v, fs(), viewport(W, H));
    d.vs = vs;
    d.vs_consts = vec![
        fv([0.5, 0.25, 2.0, -1.0]),
        fv([0.4, 0.6, 0.1, 0.9]),
        fv([0.3, 0.7, 0.2, 0.5]),
    ];
    d.tsp.varying_count = 2;
    d
}

fn u16s(ids: &[u16]) -> Vec<u8> {
    ids.iter().flat_map(|i| i.to_le_bytes()).collect()
}

#[test]
fn batched_vertex_shading_equals_one_by_one() {
    let r = check("vertex batches", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(0x5eed_0001);
        let mut draws = Vec::new();
        for (n, topology) in [
            (11, Topology::TRIANGLE_STRIP),
            (6, Topology::TRIANGLE_FAN),
            (3, Topology::TRIANGLES),
            (10, Topology::LINE_STRIP),
        ] {
            draws.push(draw(vs_straight(), topology, &verts(&mut rng, n)));
        }
        // Indexed, each vertex met more than once, 5 distinct ones in 15 indices: looked up
        // by a scan on the fast path (ta/fetch.rs SMALL_PRIM), in the hash table by the
        // reference.
        let mut d = draw(vs_short(), Topology::TRIANGLES, &verts(&mut rng, 9));
        let ids = [0u16, 1, 2, 2, 1, 8, 0, 8, 3, 3, 8, 1, 0, 2, 3];
        d.index = Some((IndexType::U16, u16s(&ids)));
        d.count = ids.len() as u32;
        draws.push(d);
        draws.push(draw(
            vs_branching(),
            Topology::TRIANGLE_STRIP,
            &verts(&mut rng, 7),
        ));
        draws.push(draw(vs_short(), Topology::TRIANGLES, &verts(&mut rng, 9)));
        (vec![build(s, &rd, &draws)], vec![fb])
    });
    all_done("vertex batches", &r);
    assert!(r[0].counters.usse_instructions > 0);
}

#[test]
fn a_fetch_fault_mid_batch_agrees() {
    // One page of vertices 48 bytes apart: vertex 85 is the last whole one, so the fault
    // comes at the third vertex of the batch 84..88.
    let r = check("non-indexed fetch fault", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(7);
        let mut d = draw(vs_straight(), Topology::TRIANGLE_STRIP, &verts(&mut rng, 1));
        let data: Vec<u8> = (0..4096 / 4)
            .flat_map(|_| rng.f(-1.0, 1.0).to_le_bytes())
            .collect();
        d.attrs = vec![
            (AttrType::FLOAT32, 4, 48, data.clone()),
            (AttrType::FLOAT32, 4, 48, data[16..].to_vec()),
        ];
        d.count = 90;
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
    // An index far past the buffer, second in a batch of new vertices.
    let r = check("indexed fetch fault", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(9);
        let mut d = draw(vs_straight(), Topology::TRIANGLES, &verts(&mut rng, 8));
        let ids: Vec<u32> = vec![0, 1, 2, 3, 4, 0x00ff_ffff, 5, 6, 7];
        d.index = Some((
            IndexType::U32,
            ids.iter().flat_map(|i| i.to_le_bytes()).collect(),
        ));
        d.count = ids.len() as u32;
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
}

/// Draws repeated within a job: the fast path takes the second and later shadings of a
/// group of vertices from the TA's memo (`ta/memo.rs`) and restores the machine's outputs;
/// the reference shades them again. `vs_short` leaves o2 unwritten, so it reads the bank the
/// draw before left: after a remembered draw, that must be the remembered draw's last vertex
/// (not the one shaded last), and its own vertices are never remembered. Draw 5's triangles
/// have no area but its last. The PRIM memo (`ta/prim_memo.rs`), which would take the
/// repeated draws over whole, is off.
#[test]
fn remembered_vertex_groups_draw_as_shaded_again() {
    crate::ta::set_prim_memo_off(true);
    let hits_before = crate::ta::memo_hits();
    let r = check("remembered vertex groups", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(0x5eed_0002);
        let mut draws = vec![
            draw(vs_straight(), Topology::TRIANGLES, &verts(&mut rng, 3)),
            draw(vs_straight(), Topology::TRIANGLE_STRIP, &verts(&mut rng, 9)),
            draw(vs_short(), Topology::TRIANGLES, &verts(&mut rng, 6)),
            draw(vs_branching(), Topology::TRIANGLE_FAN, &verts(&mut rng, 5)),
        ];
        // Indexed, vertices repeated within the PRIM too.
        let mut d = draw(vs_straight(), Topology::TRIANGLES, &verts(&mut rng, 9));
        let ids = [0u16, 1, 2, 2, 1, 8, 0, 8, 3, 3, 8, 1, 5, 6, 7];
        d.index = Some((IndexType::U16, u16s(&ids)));
        d.count = ids.len() as u32;
        draws.push(d);
        // Triangles of no area (culled before projection on the fast path, after it on the
        // reference): two equal vertices, all three equal, three on a line; then one with area.
        let v = verts(&mut rng, 3);
        let (a, b, c) = (v[0], v[1], v[2]);
        let mid = |p: [f32; 4], q: [f32; 4]| std::array::from_fn(|i| (p[i] + q[i]) / 2.0);
        let on_line = ((mid(a.0, b.0)), c.1);
        let flat = [a, a, b, c, c, c, a, b, on_line, a, b, c];
        draws.push(draw(vs_straight(), Topology::TRIANGLES, &flat));
        let order = [
            0, 0, 2, 1, 0, 2, 4, 1, 5, 4, 2, 3, 0, 5, 3, 2, 1, 1, 4, 0, 2, 5,
        ];
        (vec![build_ordered(s, &rd, &draws, &order)], vec![fb])
    });
    all_done("remembered vertex groups", &r);
    assert!(r[0].counters.prims_binned > 0);
    // The fast runs (one thread, three, three with one late) each took groups from the memo.
    assert!(crate::ta::memo_hits() - hits_before >= 3 * 8);
    crate::ta::set_prim_memo_off(false);
}

/// Triangles set up from their window positions before their varyings are projected (the
/// fast path, `ta/setup.rs`) against `fan` after projecting whole vertices: small ones that
/// cover a pixel centre or none, each cull mode, a scissor that takes some and not others,
/// and large ones that cross tile edges and the target's.
#[test]
fn triangles_set_up_from_positions_bin_as_projected_ones() {
    let r = check("position set-up", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(0x5eed_0003);
        let mut draws = Vec::new();
        for k in 0..12 {
            // Triangles of up to 0.4, 3 or 40 pixels around random points.
            let reach = [0.4, 3.0, 40.0][k % 3];
            let mut verts = Vec::new();
            for _ in 0..8 {
                let (cx, cy) = (rng.f(-2.0, W + 2.0), rng.f(-2.0, H + 2.0));
                for _ in 0..3 {
                    let (x, y) = (cx + rng.f(-reach, reach), cy + rng.f(-reach, reach));
                    let col = [rng.f(0.0, 1.0), rng.f(0.0, 1.0), rng.f(0.0, 1.0), 1.0];
                    verts.push((clip_xy(x, y, W, H, rng.f(0.0, 1.0)), col));
                }
            }
            let mut d = draw(vs_straight(), Topology::TRIANGLES, &verts);
            d.isp.cull = [
                CullMode::NONE,
                CullMode::BACK,
                CullMode::FRONT,
                CullMode::FRONT_AND_BACK,
            ][k % 4];
            d.isp.front_ccw = k % 5 < 2;
            d.isp.scissor = k % 3 == 1;
            d.scissor = Scissor {
                xmin: 4,
                ymin: 3,
                xmax: 20,
                ymax: 17,
            };
            draws.push(d);
        }
        (vec![build(s, &rd, &draws)], vec![fb])
    });
    all_done("position set-up", &r);
    assert!(r[0].counters.prims_binned > 20);
    assert!(r[0].counters.pixels_shaded > 0);
}

/// PRIMs repeated within a job: the fast path bins the triangles a PRIM binned before again
/// (`ta/prim_memo.rs`) where the reference fetches, shades, clips and sets them up again.
/// Triangles that cross the view volume (clipped), culled ones, flat varyings from the first
/// vertex, quads, an indexed PRIM, one past the size the memo keeps (always shaded), and
/// `vs_short` draws between them, which read the output bank the PRIM before left: last,
/// after a remembered PRIM that follows the large one.
#[test]
fn remembered_prims_bin_as_processed_again() {
    let hits_before = crate::ta::prim_memo_hits();
    let r = check("remembered prims", |s| {
        let (rd, fb) = target(s, W as u32, H as u32);
        let mut rng = Rng(0x5eed_0004);
        let wide = |n: usize, rng: &mut Rng| -> Vec<([f32; 4], [f32; 4])> {
            (0..n)
                .map(|_| {
                    let p = clip_xy(
                        rng.f(-W, 2.0 * W),
                        rng.f(-H, 2.0 * H),
                        W,
                        H,
                        rng.f(-0.5, 1.5),
                    );
                    (p, [rng.f(0.0, 1.0), rng.f(0.0, 1.0), rng.f(0.0, 1.0), 1.0])
                })
                .collect()
        };
        let mut draws = vec![
            draw(vs_straight(), Topology::TRIANGLES, &wide(12, &mut rng)),
            draw(vs_straight(), Topology::TRIANGLE_STRIP, &wide(9, &mut rng)),
            draw(vs_short(), Topology::TRIANGLES, &verts(&mut rng, 6)),
            draw(vs_straight(), Topology::QUADS, &wide(8, &mut rng)),
            draw(
                vs_straight(),
                Topology::TRIANGLE_STRIP,
                &verts(&mut rng, 70),
            ),
        ];
        let mut d = draw(vs_straight(), Topology::TRIANGLE_FAN, &wide(7, &mut rng));
        d.prim.flat_first = true;
        d.tsp.v0_interp = sgx_hwdocs::tsp::Interp::FLAT;
        d.isp.cull = CullMode::BACK;
        draws.push(d);
        let mut d = draw(vs_straight(), Topology::TRIANGLES, &wide(9, &mut rng));
        let ids = [0u16, 1, 2, 2, 1, 8, 0, 8, 3, 3, 8, 1, 5, 6, 7];
        d.index = Some((IndexType::U16, u16s(&ids)));
        d.count = ids.len() as u32;
        draws.push(d);
        let order = [
            0, 1, 0, 2, 3, 1, 3, 2, 4, 5, 4, 5, 6, 0, 6, 2, 5, 1, 3, 3, 6, 4, 0, 2,
        ];
        (vec![build_ordered(s, &rd, &draws, &order)], vec![fb])
    });
    all_done("remembered prims", &r);
    assert!(r[0].counters.prims_binned > 30);
    // The fast runs (one thread, three, three with one late) each took PRIMs from the memo.
    assert!(crate::ta::prim_memo_hits() - hits_before >= 3 * 10);
}
