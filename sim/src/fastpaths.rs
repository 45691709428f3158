//! The fast paths against the reference paths, and one thread against several, on whole
//! renders: every scene is built three times, run with `Gpu::set_reference_paths(true)`, and
//! without on one thread and on three (`Gpu::set_threads`), and the job results (status,
//! events, counters, clock) and every byte of every buffer must agree. Scenes cover
//! every texture format, layout, filter and wrap mode, mip and cube sampling, every target
//! format and layout with clipped and partial tiles, straight and branching programs,
//! depth/stencil/blend state, random triangles, and faults; `gl21` adds volumes, border
//! colour, shadow compare, sRGB and depth textures.

use std::sync::Arc;
use std::time::Duration;

use sgx_hwdocs::limits;
use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, Swizzle, TexState};
use sgx_hwdocs::usse::Opcode;

/// Cube face and linear stride alignment of the scenes' textures (hwdocs limits).
pub(crate) const FACE_ALIGN: usize = limits::CUBE_FACE_ALIGN_B as usize;
pub(crate) const STRIDE_ALIGN: usize = limits::LINEAR_STRIDE_ALIGN_B as usize;

use crate::kit::*;
use crate::raster::Threads;
use crate::{Backing, JobDesc, JobResult, JobStatus, Perm};

mod bg_tiles;
mod depth_span;
mod faults;
mod gl21;
mod programs;
mod spans;
mod states;
mod targets;
mod textures;
mod vertex;

type Built = (Vec<JobDesc>, Vec<Arc<Mem>>);

/// Runs the scene `build` makes through both paths, the fast one on one thread, on a pool
/// of three, and on a pool of three whose worker 1 is late (asleep inside its first tile of
/// every job, as if preempted there); returns the (identical) results.
fn check(name: &str, build: impl Fn(&mut Scene) -> Built) -> Vec<JobResult> {
    let late = Duration::from_millis(2);
    check_against(
        name,
        build,
        [
            ("reference", true, Threads::Serial),
            ("3 threads", false, Threads::with(3)),
            ("3 threads, one late", false, Threads::stalled(3, late)),
        ],
    )
}

/// Runs the scene `build` makes on the fast path on one thread, then as each of `others`
/// says (a name, whether on the reference paths, the threads); returns the (identical)
/// results.
fn check_against<const N: usize>(
    name: &str,
    build: impl Fn(&mut Scene) -> Built,
    others: [(&str, bool, Threads); N],
) -> Vec<JobResult> {
    let run = |reference: bool, threads: Threads| {
        let mut s = Scene::new();
        let (jobs, bufs) = build(&mut s);
        s.gpu.set_reference_paths(reference);
        s.gpu.threads = threads;
        let results: Vec<JobResult> = jobs.iter().map(|j| s.gpu.run(j)).collect();
        (results, bufs.iter().map(|b| b.bytes()).collect::<Vec<_>>())
    };
    let (fast, fast_b) = run(false, Threads::Serial);
    for (what, reference, threads) in others {
        let (other, other_b) = run(reference, threads);
        assert_eq!(fast, other, "{name}: job results differ, fast vs {what}");
        for (k, (a, b)) in fast_b.iter().zip(&other_b).enumerate() {
            if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
                panic!(
                    "{name}: buffer {k} differs first at byte {i}: fast {} vs {what} {}",
                    a[i], b[i]
                );
            }
        }
    }
    fast
}

/// A worker the scheduler preempts inside a tile (here: made to sleep there) holds the frame
/// up only for that tile: the caller shades it itself and stores on, and the result is still
/// the serial one byte for byte, counters included.
#[test]
fn a_late_workers_tile_is_taken_over_and_the_result_is_unchanged() {
    let run = |threads: Threads| {
        // 4096 tiles: long enough for the worker to wake and claim tiles on a busy machine.
        let (mut s, jobs, mem, _) = crate::bench::quad_scene(1024, 256);
        s.gpu.threads = threads;
        let r: Vec<JobResult> = jobs.iter().map(|j| s.gpu.run(j)).collect();
        (r, mem.bytes(), s.gpu.threads.takeovers())
    };
    let (serial, serial_b, _) = run(Threads::Serial);
    all_done("quad", &serial);
    let mut took = 0;
    for _ in 0..10 {
        let (r, b, t) = run(Threads::stalled(2, Duration::from_millis(50)));
        assert_eq!(r, serial, "job results differ, serial vs a late worker");
        if let Some(i) = serial_b.iter().zip(&b).position(|(x, y)| x != y) {
            panic!(
                "byte {i} differs: serial {} vs a late worker {}",
                serial_b[i], b[i]
            );
        }
        took += t;
        if took > 0 {
            break;
        }
    }
    assert!(took > 0, "the late worker never claimed a tile in 10 runs");
}

fn all_done(name: &str, r: &[JobResult]) {
    for (k, j) in r.iter().enumerate() {
        assert_eq!(j.status, JobStatus::Done, "{name}: job {k}");
    }
}

/// A linear BGRA8 target of w x h pixels with a padded stride, pre-filled with a pattern.
fn target(s: &mut Scene, w: u32, h: u32) -> (RenderDesc, Arc<Mem>) {
    // Strides are 32-byte aligned; one spare 32 bytes per row pads it.
    let stride = (w * 4).div_ceil(32) * 32 + 32;
    let m = Mem::filled((stride * h) as usize, 0x5a);
    let va = s.alloc_with(m.clone(), Perm::RW);
    (RenderDesc::linear(va, w, h, stride), m)
}

/// Two triangles over the whole `w` x `h` window, texcoords (0, 0)-(1, 1), at depth 0.5.
fn window_rect(w: f32, h: f32) -> Vec<([f32; 4], [f32; 4])> {
    rect((0.0, 0.0, w, h), (0.0, 0.0, 1.0, 1.0), w, h, 0.5, 1.0)
}

/// A draw of `verts` as `topology` over a `w` x `h` viewport whose program `fs` samples the
/// one texture `st`.
fn textured(
    topology: Topology,
    verts: &[([f32; 4], [f32; 4])],
    fs: Vec<u32>,
    (w, h): (f32, f32),
    st: TexState,
) -> DrawDesc {
    let mut d = DrawDesc::new(topology, verts, fs, viewport(w, h));
    d.textures = vec![st];
    d
}

/// Two triangles over [x0, x1] x [y0, y1] of a w x h window with texcoords (u0, v0)-(u1, v1)
/// at depth z; `w_right` > 1 puts the right edge further away (perspective).
#[allow(clippy::too_many_arguments)]
fn rect(
    (x0, y0, x1, y1): (f32, f32, f32, f32),
    (u0, v0, u1, v1): (f32, f32, f32, f32),
    w: f32,
    h: f32,
    z: f32,
    w_right: f32,
) -> Vec<([f32; 4], [f32; 4])> {
    let p = |x: f32, y: f32, u: f32, v: f32, ww: f32| {
        let c = clip_xy(x, y, w, h, z);
        ([c[0] * ww, c[1] * ww, c[2] * ww, ww], [u, v, 0.5, 1.0])
    };
    vec![
        p(x0, y0, u0, v0, 1.0),
        p(x1, y0, u1, v0, w_right),
        p(x0, y1, u0, v1, 1.0),
        p(x1, y0, u1, v0, w_right),
        p(x1, y1, u1, v1, w_right),
        p(x0, y1, u0, v1, 1.0),
    ]
}

/// A texture's memory: `size_B` random bytes, mapped read-only at `st.base_addr`.
fn random_texture(s: &mut Scene, rng: &mut Rng, st: &mut TexState, size_B: usize) -> Arc<Mem> {
    let m = Mem::new(size_B);
    m.write(0, &rng.bytes(m.len_B()));
    st.base_addr = s.alloc_with(m.clone(), Perm::RO);
    m
}

/// The swizzle some scenes give every other texture: (B, 1, R, 0), each kind of source but G.
fn swizzle_b1r0(st: &mut TexState) {
    st.swz_r = Swizzle::B;
    st.swz_g = Swizzle::ONE;
    st.swz_b = Swizzle::R;
    st.swz_a = Swizzle::ZERO;
}

/// A 33x17 target covered by one strip sampling the cube `st` (`size_B` random bytes), its
/// corners (top left, top right, bottom left, bottom right) at directions sweeping every
/// face, with the shadow references `refs` in w: the scene's job and buffers.
fn cube_strip(
    s: &mut Scene,
    rng: &mut Rng,
    mut st: TexState,
    size_B: usize,
    refs: [f32; 4],
) -> Built {
    let (rd, fb) = target(s, 33, 17);
    let m = random_texture(s, rng, &mut st, size_B);
    let corners = [
        (0.0, 0.0, [-1.0, -1.2, 0.9]),
        (33.0, 0.0, [1.3, -0.8, -1.1]),
        (0.0, 17.0, [-0.7, 1.1, -0.6]),
        (33.0, 17.0, [0.9, 1.4, 1.2]),
    ];
    let verts: Vec<_> = corners
        .into_iter()
        .zip(refs)
        .map(|((x, y, d), w)| (clip_xy(x, y, 33.0, 17.0, 0.5), [d[0], d[1], d[2], w]))
        .collect();
    let d = textured(
        Topology::TRIANGLE_STRIP,
        &verts,
        TEX_FS(Opcode::TEX),
        (33.0, 17.0),
        st,
    );
    (vec![build(s, &rd, &[d])], vec![fb, m])
}

/// Bytes of `st`'s whole chain (every slice and face), generously.
fn chain_bytes(st: &TexState) -> usize {
    let bpe = st.format.info().bytes_per_el as usize;
    let (w0, h0, d0) = (
        st.width_m1 as usize + 1,
        st.height_m1 as usize + 1,
        st.depth_m1 as usize + 1,
    );
    let faces = if st.cube { 6 } else { 1 };
    let chain: usize = (0..st.levels as usize)
        .map(|l| {
            let (w, h, d) = ((w0 >> l).max(1), (h0 >> l).max(1), (d0 >> l).max(1));
            let slice = if st.layout == MemLayout::TWIDDLED {
                w * h * bpe
            } else {
                (w * bpe).div_ceil(STRIDE_ALIGN) * STRIDE_ALIGN * h
            };
            slice * d
        })
        .sum();
    faces * (chain.div_ceil(FACE_ALIGN) * FACE_ALIGN) + FACE_ALIGN
}

const TEX_FS: fn(Opcode) -> Vec<u32> = |op| {
    words(&[
        tex_full(op, dr(0), pa(0), 0, if op == Opcode::TEXD { 2 } else { 0 }),
        emitpix(r(0)),
        end(),
    ])
};

/// The fragment program of `op`; TEXD takes scaled screen derivatives of the coordinate.
fn sample_fs(op: Opcode) -> Vec<u32> {
    if op == Opcode::TEXD {
        words(&[
            alu(Opcode::FDDX, dr(2), pa(0), pa(0)),
            alu(Opcode::FDDY, dr(3), pa(0), pa(0)),
            alu(Opcode::FMUL, dr(3), r(3), imm(3)),
            tex_full(op, dr(0), pa(0), 0, 2),
            emitpix(r(0)),
            end(),
        ])
    } else {
        TEX_FS(op)
    }
}

#[test]
fn the_benchmark_scenes_agree() {
    // The same kind of job the benchmark times, small: a twiddled BGRA8 texture magnified.
    let r = check("bench-like", |s| {
        let mut rng = Rng(3);
        let tb = s.put_bytes(&rng.bytes(64 * 64 * 4));
        let st = TexState {
            base_addr: tb,
            width_m1: 63,
            height_m1: 63,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            wrap_s: AddrMode::CLAMP_TO_EDGE,
            wrap_t: AddrMode::CLAMP_TO_EDGE,
            ..TexState::default()
        };
        let (rd, fb) = target(s, 100, 70);
        let p = |x: f32, y: f32| {
            (
                clip_xy(x, y, 100.0, 70.0, 0.5),
                [x / 100.0, y / 70.0, 0.0, 1.0],
            )
        };
        let verts = [p(0.0, 0.0), p(0.0, 70.0), p(100.0, 0.0), p(100.0, 70.0)];
        let d = textured(
            Topology::TRIANGLE_STRIP,
            &verts,
            TEX_FS(Opcode::TEX),
            (100.0, 70.0),
            st,
        );
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    all_done("bench-like", &r);
    assert_eq!(r[0].counters.pixels_shaded, 100 * 70);
}
