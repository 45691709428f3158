//! Parameter memory need not be cleared before a render: the TA writes every record, every
//! tile header and every reference the 3D phase reads, and the 3D phase starts only after a
//! TA phase that succeeded. The pipe takes a render's parameter memory from the device's
//! pool uncleared (winsys `BoFlags::undefined_contents`); here the same scenes render over
//! zeroed parameter memory, random bytes, all ones and the parameter memory another render
//! left, and the results, the targets and the parameter memory the TA used must agree byte
//! for byte.

use sgx_hwdocs::regs as rg;
use sgx_hwdocs::render::FillMode;
use sgx_hwdocs::ta_stream::Topology;

use crate::kit::*;
use crate::{JobDesc, JobResult, JobStatus, Perm};

const W: usize = 96;
const H: usize = 48;
const PB_B: usize = 1 << 16;

/// Random triangles (some off the target, some clipped, some culled), filled and outlined,
/// lines and points, on the left half of the target and around it: the tiles on the right
/// reference nothing.
fn scene(seed: u32) -> Vec<DrawDesc> {
    let mut g = Rng(seed);
    let fs = || words(&[emitpix(pa(0)), end()]);
    let verts = |n: usize, g: &mut Rng| -> Vec<([f32; 4], [f32; 4])> {
        (0..n)
            .map(|_| {
                let (x, y) = (g.f(-20.0, W as f32 / 2.0), g.f(-20.0, H as f32 + 20.0));
                let c = [g.f(0.0, 1.0), g.f(0.0, 1.0), g.f(0.0, 1.0), 1.0];
                (clip_xy(x, y, W as f32, H as f32, g.f(-0.2, 1.2)), c)
            })
            .collect()
    };
    let vp = viewport(W as f32, H as f32);
    let mut draws = Vec::new();
    for topology in [
        Topology::TRIANGLES,
        Topology::TRIANGLE_STRIP,
        Topology::LINE_STRIP,
        Topology::POINTS,
    ] {
        let v = verts(12, &mut g);
        let mut d = DrawDesc::new(topology, &v, fs(), vp);
        d.raster.point_size = 3.0;
        draws.push(d);
    }
    let v = verts(9, &mut g);
    let mut d = DrawDesc::new(Topology::TRIANGLE_FAN, &v, fs(), vp);
    d.poly.fill_front = FillMode::LINE;
    d.poly.fill_back = FillMode::POINT;
    d.raster.line_width = 2.0;
    draws.push(d);
    draws
}

/// Renders `draws` with its parameter memory starting as `pb`: the result, the target's
/// bytes and the parameter memory the TA used (its first `pb_bytes_used` bytes).
fn render(draws: &[DrawDesc], pb: &[u8], reference: bool) -> (JobResult, Vec<u8>, Vec<u8>) {
    let mut s = Scene::new();
    let fb = Mem::filled(W * H * 4, 0x5a);
    let fb_va = s.alloc_with(fb.clone(), Perm::RW);
    let mut rd = RenderDesc::linear(fb_va, W as u32, H as u32, (W * 4) as u32);
    rd.pb_size = PB_B as u32;
    let mut job = build(&mut s, &rd, draws);
    let pb_mem = Mem::new(PB_B);
    pb_mem.write(0, pb);
    let pb_va = s.alloc_with(pb_mem.clone(), Perm::RW);
    let JobDesc::Render { ta_regs, td_regs } = &mut job else {
        unreachable!("build makes a render");
    };
    for (reg, v) in ta_regs.iter_mut().chain(td_regs.iter_mut()) {
        if *reg == rg::DPM_PB_BASE {
            *v = pb_va;
        }
    }
    s.gpu.set_reference_paths(reference);
    let r = s.gpu.run(&job);
    assert_eq!(r.status, JobStatus::Done);
    let used = r.counters.pb_bytes_used as usize;
    (r, fb.bytes(), pb_mem.bytes()[..used].to_vec())
}

#[test]
fn stale_parameter_memory_changes_nothing() {
    let zero = vec![0u8; PB_B];
    // What a render of another scene left in its parameter memory.
    let (_, _, left) = render(&scene(0xbeef), &zero, false);
    let mut previous = zero.clone();
    previous[..left.len()].copy_from_slice(&left);
    let stale = [Rng(0x57a1e).bytes(PB_B), vec![0xff; PB_B], previous];
    for seed in 1..4 {
        let draws = scene(seed);
        for reference in [false, true] {
            let (r, fb, pb) = render(&draws, &zero, reference);
            assert!(pb.len() > 1000, "seed {seed}: {} bytes binned", pb.len());
            assert!(
                fb.chunks(4).filter(|p| p != &[0x5a; 4]).count() > 100,
                "seed {seed}: few pixels drawn"
            );
            for (k, bytes) in stale.iter().enumerate() {
                let (r2, fb2, pb2) = render(&draws, bytes, reference);
                let what = format!("seed {seed}, stale contents {k}, reference {reference}");
                assert_eq!(r, r2, "{what}: results differ");
                assert!(fb == fb2, "{what}: targets differ");
                assert!(pb == pb2, "{what}: parameter memory differs");
            }
        }
    }
}
