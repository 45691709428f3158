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

use sgx_hwdocs::isp::{CompareFunc, CullMode, IspState, Scissor, StencilOp};
use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, Swizzle, TexState};
use sgx_hwdocs::tsp::{BlendFactor, BlendFunc, Interp};
use sgx_hwdocs::usse::{Opcode, Pred};
use sgx_hwdocs::{limits, Format, FormatKind};

/// Cube face and linear stride alignment of the scenes' textures (hwdocs limits).
pub(crate) const FACE_ALIGN: usize = limits::CUBE_FACE_ALIGN_B as usize;
pub(crate) const STRIDE_ALIGN: usize = limits::LINEAR_STRIDE_ALIGN_B as usize;

use crate::kit::*;
use crate::raster::Threads;
use crate::{Backing, JobDesc, JobResult, JobStatus, Perm};

mod bg_tiles;
mod depth_span;
mod gl21;
mod states;
mod vertex;

type Built = (Vec<JobDesc>, Vec<Arc<Mem>>);

/// Runs the scene `build` makes through both paths, the fast one on one thread, on a pool
/// of three, and on a pool of three whose worker 1 is late (asleep inside its first tile of
/// every job, as if preempted there); returns the (identical) results.
fn check(name: &str, build: impl Fn(&mut Scene) -> Built) -> Vec<JobResult> {
    let run = |reference: bool, threads: Threads| {
        let mut s = Scene::new();
        let (jobs, bufs) = build(&mut s);
        s.gpu.set_reference_paths(reference);
        s.gpu.threads = threads;
        let results: Vec<JobResult> = jobs.iter().map(|j| s.gpu.run(j)).collect();
        (results, bufs.iter().map(|b| b.bytes()).collect::<Vec<_>>())
    };
    let (fast, fast_b) = run(false, Threads::Serial);
    let late = Duration::from_millis(2);
    for (what, reference, threads) in [
        ("reference", true, Threads::Serial),
        ("3 threads", false, Threads::with(3)),
        ("3 threads, one late", false, Threads::stalled(3, late)),
    ] {
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
    let mut d = DrawDesc::new(
        Topology::TRIANGLE_STRIP,
        &verts,
        TEX_FS(Opcode::TEX),
        viewport(33.0, 17.0),
    );
    d.textures = vec![st];
    (vec![build(s, &rd, &[d])], vec![fb, m])
}

fn level_bytes(st: &TexState) -> usize {
    let bpe = st.format.info().bytes_per_el as usize;
    let (w0, h0) = (st.width_m1 as usize + 1, st.height_m1 as usize + 1);
    let faces = if st.cube { 6 } else { 1 };
    let chain: usize = (0..st.levels as usize)
        .map(|l| {
            let (w, h) = ((w0 >> l).max(1), (h0 >> l).max(1));
            if st.layout == MemLayout::TWIDDLED {
                w * h * bpe
            } else {
                (w * bpe).div_ceil(STRIDE_ALIGN) * STRIDE_ALIGN * h
            }
        })
        .sum();
    // Generous: cube faces are 4 KiB aligned; linear strides are padded.
    faces * (chain.div_ceil(FACE_ALIGN) * FACE_ALIGN) + FACE_ALIGN
}

const TEX_FS: fn(Opcode) -> Vec<u32> = |op| {
    words(&[
        tex_full(op, dr(0), pa(0), 0, if op == Opcode::TEXD { 2 } else { 0 }),
        emitpix(r(0)),
        end(),
    ])
};

#[test]
fn every_texture_format_layout_filter_and_wrap() {
    let wraps = [
        (AddrMode::REPEAT, AddrMode::CLAMP_TO_EDGE),
        (AddrMode::MIRRORED_REPEAT, AddrMode::REPEAT),
        (AddrMode::CLAMP_TO_EDGE, AddrMode::MIRRORED_REPEAT),
    ];
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().sampleable)
        .collect();
    assert!(formats.len() >= 10);
    for &f in &formats {
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            if layout == MemLayout::TWIDDLED && !f.info().twiddlable {
                continue;
            }
            let r = check(&format!("{f:?} {layout:?}"), |s| {
                let mut rng = Rng(0x1234_5678 ^ f.raw());
                let (rd, fb) = target(s, 37, 23);
                let (w, h) = if layout == MemLayout::TWIDDLED {
                    (16, 4)
                } else {
                    (13, 7)
                };
                let mut draws = Vec::new();
                let mut bufs = vec![fb];
                for (k, &(ws, wt)) in wraps.iter().enumerate() {
                    for (j, filter) in [Filter::NEAREST, Filter::LINEAR].into_iter().enumerate() {
                        let mut st = TexState {
                            format: f,
                            layout,
                            width_m1: w - 1,
                            height_m1: h - 1,
                            min_filter: filter,
                            mag_filter: filter,
                            wrap_s: ws,
                            wrap_t: wt,
                            ..TexState::default()
                        };
                        if k == 1 {
                            swizzle_b1r0(&mut st);
                        }
                        let size_B = level_bytes(&st);
                        bufs.push(random_texture(s, &mut rng, &mut st, size_B));
                        // Six strips of the window, each its own texture and state.
                        let y0 = (k * 2 + j) as f32 * 23.0 / 6.0;
                        let verts = rect(
                            (0.0, y0, 37.0, y0 + 23.0 / 6.0),
                            (-1.3, -0.7, 2.2, 1.9),
                            37.0,
                            23.0,
                            0.5,
                            1.0 + k as f32 * 0.7,
                        );
                        let mut d = DrawDesc::new(
                            Topology::TRIANGLES,
                            &verts,
                            TEX_FS(Opcode::TEX),
                            viewport(37.0, 23.0),
                        );
                        d.textures = vec![st];
                        draws.push(d);
                    }
                }
                (vec![build(s, &rd, &draws)], bufs)
            });
            all_done(&format!("{f:?}"), &r);
            assert!(r[0].counters.texels_fetched > 0);
        }
    }
}

#[test]
fn mipmaps_lod_and_every_tex_opcode() {
    for op in [Opcode::TEX, Opcode::TEXB, Opcode::TEXL, Opcode::TEXD] {
        for mip in [MipFilter::NONE, MipFilter::NEAREST, MipFilter::LINEAR] {
            let r = check(&format!("{op:?} {mip:?}"), |s| {
                let mut rng = Rng(0x9e37_79b9);
                let (rd, fb) = target(s, 45, 29);
                let mut bufs = vec![fb];
                let mut draws = Vec::new();
                for (k, layout) in [MemLayout::TWIDDLED, MemLayout::LINEAR]
                    .into_iter()
                    .enumerate()
                {
                    let mut st = TexState {
                        layout,
                        width_m1: 31,
                        height_m1: 15,
                        levels: 6,
                        base_level: k as u32,
                        max_level: 5,
                        min_filter: if k == 0 {
                            Filter::LINEAR
                        } else {
                            Filter::NEAREST
                        },
                        mag_filter: if k == 0 {
                            Filter::NEAREST
                        } else {
                            Filter::LINEAR
                        },
                        mip_filter: mip,
                        lod_bias: 5 - 11 * k as i32,
                        wrap_s: AddrMode::REPEAT,
                        wrap_t: AddrMode::MIRRORED_REPEAT,
                        ..TexState::default()
                    };
                    let size_B = level_bytes(&st);
                    bufs.push(random_texture(s, &mut rng, &mut st, size_B));
                    let y0 = k as f32 * 14.0;
                    // Texcoords spanning many texels per pixel, with perspective, so the LOD
                    // varies over the draw.
                    let mut verts = rect(
                        (0.0, y0, 45.0, y0 + 15.0),
                        (0.0, 0.0, 9.0, 3.5),
                        45.0,
                        29.0,
                        0.5,
                        3.0,
                    );
                    for (i, v) in verts.iter_mut().enumerate() {
                        v.1[3] = (i as f32 - 2.0) * 0.9; // bias / explicit LOD
                    }
                    let fs = if op == Opcode::TEXD {
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
                    };
                    let mut d =
                        DrawDesc::new(Topology::TRIANGLES, &verts, fs, viewport(45.0, 29.0));
                    d.textures = vec![st];
                    draws.push(d);
                }
                (vec![build(s, &rd, &draws)], bufs)
            });
            all_done(&format!("{op:?} {mip:?}"), &r);
        }
    }
}

#[test]
fn cube_maps() {
    let r = check("cube", |s| {
        let st = TexState {
            cube: true,
            width_m1: 7,
            height_m1: 7,
            levels: 4,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            mip_filter: MipFilter::LINEAR,
            ..TexState::default()
        };
        cube_strip(s, &mut Rng(77), st, level_bytes(&st), [0.0; 4])
    });
    all_done("cube", &r);
}

#[test]
fn every_target_format_and_layout_with_clips() {
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().renderable && f.info().kind == FormatKind::Unorm)
        .collect();
    assert!(formats.len() >= 5);
    for &f in &formats {
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            if layout == MemLayout::TWIDDLED && !f.info().twiddlable {
                continue;
            }
            let r = check(&format!("target {f:?} {layout:?}"), |s| {
                let bpe = f.info().bytes_per_el;
                let (w, h) = (37u32, 21u32);
                let m = Mem::filled(64 * 32 * 4 + 4096, 0xa5);
                let va = s.alloc_with(m.clone(), Perm::RW);
                let pbe = PbeState {
                    base_addr: va,
                    format: f,
                    layout,
                    log2_w: 6,
                    log2_h: 5,
                    stride_B: (w * bpe).div_ceil(32) * 32 + 32,
                    extent_w_tl: 3,
                    extent_h_tl: 2,
                    clip_xmin: 3,
                    clip_ymin: 2,
                    clip_xmax: w - 2,
                    clip_ymax: h - 1,
                };
                let rd = RenderDesc {
                    pbe,
                    bg: [0.25, -1.0, 2.0, 0.5],
                    ..RenderDesc::linear(va, 48, 32, 256)
                };
                // Colour = the varying, which runs outside [0, 1] to hit the clamps.
                let verts = [
                    (clip_xy(1.5, 0.5, 48.0, 32.0, 0.5), [-0.2, 0.1, 1.3, 0.7]),
                    (clip_xy(46.0, 4.0, 48.0, 32.0, 0.5), [1.2, 0.5, -0.1, 0.2]),
                    (clip_xy(9.0, 31.0, 48.0, 32.0, 0.5), [0.4, 1.1, 0.6, 1.4]),
                ];
                let d = DrawDesc::new(
                    Topology::TRIANGLES,
                    &verts,
                    words(&[emitpix(pa(0)), end()]),
                    viewport(48.0, 32.0),
                );
                (vec![build(s, &rd, &[d])], vec![m])
            });
            all_done(&format!("target {f:?}"), &r);
            assert!(r[0].counters.pbe_bytes_written > 0);
        }
    }
}

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

/// Every depth format the ZLS takes, and a Z24S8 buffer 100 bytes short of its last rows
/// (its rows there are past the backing: the ZLS's row copies give way to the byte path).
#[test]
fn depth_stencil_blend_masks_loads() {
    for (fmt, bpe, short_B) in [
        (Format::Z24_UNORM_S8_UINT, 4u32, 0usize),
        (Format::Z16_UNORM, 2, 0),
        (Format::Z24_UNORM_S8_UINT, 4, 100),
    ] {
        depth_stencil_blend_masks_loads_on(fmt, bpe, short_B);
    }
}

fn depth_stencil_blend_masks_loads_on(fmt: Format, bpe: u32, short_B: usize) {
    let name = format!("state {} short {short_B}", fmt.name());
    let r = check(&name, |s| {
        let (w, h) = (40u32, 24u32);
        let (mut rd, fb) = target(s, w, h);
        let zb = Mem::new((w * bpe * h) as usize - short_B);
        // ZLS rows are w * bpe = 160 or 80 bytes, 16-byte aligned.
        let mut rng = Rng(5);
        zb.write(0, &rng.bytes(zb.len_B()));
        let zva = s.alloc_with(zb.clone(), Perm::RW);
        rd.zls = Some((fmt, zva, w * bpe));
        rd.tile_ctrl = Some(vec![0b1111; 6]);
        let mut draws = Vec::new();
        let funcs = [
            (
                BlendFunc::ADD,
                BlendFactor::SRC_ALPHA,
                BlendFactor::INV_SRC_ALPHA,
            ),
            (
                BlendFunc::REV_SUBTRACT,
                BlendFactor::DST_COLOR,
                BlendFactor::CONST_ALPHA,
            ),
            (BlendFunc::MAX, BlendFactor::ONE, BlendFactor::ONE),
        ];
        for k in 0..6 {
            let z = 0.2 + 0.12 * k as f32;
            let o = k as f32 * 3.0;
            let verts = [
                (
                    clip_xy(-2.0 + o, 1.0, w as f32, h as f32, z),
                    [0.9, 0.1 * k as f32, 0.3, 0.6],
                ),
                (
                    clip_xy(38.0, 3.0 + o, w as f32, h as f32, 1.0 - z),
                    [0.2, 0.8, 0.1, 0.4],
                ),
                (
                    clip_xy(12.0 + o, 25.0, w as f32, h as f32, z),
                    [0.5, 0.4, 0.9, 0.9],
                ),
            ];
            let mut d = DrawDesc::new(
                Topology::TRIANGLES,
                &verts,
                words(&[emitpix(pa(0)), end()]),
                viewport(w as f32, h as f32),
            );
            let (func, src, dst) = funcs[k % 3];
            d.tsp.blend = k % 2 == 0;
            d.tsp.rgb_func = func;
            d.tsp.rgb_src = src;
            d.tsp.rgb_dst = dst;
            d.tsp.a_func = funcs[(k + 1) % 3].0;
            d.tsp.a_src = funcs[(k + 2) % 3].1;
            d.tsp.blend_a = 100;
            d.tsp.colour_mask = [0b1111, 0b0111, 0b1010][k % 3];
            d.tsp.v0_interp = [Interp::PERSPECTIVE, Interp::LINEAR, Interp::FLAT][k % 3];
            d.isp = IspState {
                depth_test: k != 3,
                depth_write: k != 4,
                depth_func: [
                    CompareFunc::LESS,
                    CompareFunc::GEQUAL,
                    CompareFunc::NOTEQUAL,
                ][k % 3],
                stencil_test: k >= 2,
                front_func: CompareFunc::NOTEQUAL,
                front_ref: 3,
                front_read_mask: 0xff,
                front_write_mask: 0x0f,
                front_fail: StencilOp::INCR,
                front_zfail: StencilOp::INVERT,
                front_zpass: StencilOp::REPLACE,
                back_func: CompareFunc::ALWAYS,
                back_write_mask: 0xff,
                back_zpass: StencilOp::DECR_WRAP,
                two_sided: true,
                scissor: k == 5,
                cull: CullMode::NONE,
                ..IspState::default()
            };
            d.scissor = Scissor {
                xmin: 5,
                ymin: 3,
                xmax: 30,
                ymax: 17,
            };
            draws.push(d);
        }
        (vec![build(s, &rd, &draws)], vec![fb, zb])
    });
    all_done(&name, &r);
}

#[test]
fn random_triangles_odd_target() {
    let r = check("random", |s| {
        let mut rng = Rng(0xdead_beef);
        let (w, h) = (53.0, 41.0);
        let (rd, fb) = target(s, 53, 41);
        let mut verts = Vec::new();
        for k in 0..60 {
            let spread = if k % 10 == 9 { 400.0 } else { 70.0 };
            for _ in 0..3 {
                let x = rng.f(-spread, spread + w);
                let y = rng.f(-spread, spread + h);
                let c = [rng.f(0.0, 1.0), rng.f(0.0, 1.0), rng.f(0.0, 1.0), 1.0];
                verts.push((clip_xy(x, y, w, h, rng.f(0.0, 1.0)), c));
            }
        }
        let mut d = DrawDesc::new(
            Topology::TRIANGLES,
            &verts,
            words(&[emitpix(pa(0)), end()]),
            viewport(w, h),
        );
        d.isp.depth_test = true;
        d.isp.depth_write = true;
        d.isp.depth_func = CompareFunc::LEQUAL;
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    all_done("random", &r);
}

/// Depth tested at the buffer's precision (crate::depth): random sloped triangles at close
/// depths over a random Z16 or Z24S8 buffer, loaded and stored, under every compare, with
/// writes on and off; the fast quantiser against the reference one.
#[test]
fn depth_at_the_buffer_precision() {
    for (fmt, bpe) in [(Format::Z16_UNORM, 2u32), (Format::Z24_UNORM_S8_UINT, 4)] {
        let name = format!("depth precision {}", fmt.name());
        let r = check(&name, |s| {
            let (w, h) = (37u32, 29u32);
            let (mut rd, fb) = target(s, w, h);
            let zb = Mem::new((w * bpe * h) as usize);
            let mut rng = Rng(0x5eed + bpe);
            zb.write(0, &rng.bytes(zb.len_B()));
            let zva = s.alloc_with(zb.clone(), Perm::RW);
            rd.zls = Some((fmt, zva, w * bpe));
            rd.tile_ctrl = Some(vec![0b1111; 6]);
            let funcs = [
                CompareFunc::LESS,
                CompareFunc::EQUAL,
                CompareFunc::LEQUAL,
                CompareFunc::GREATER,
                CompareFunc::NOTEQUAL,
                CompareFunc::GEQUAL,
            ];
            let mut draws = Vec::new();
            for k in 0..24 {
                let mut verts = Vec::new();
                // Depths within a few Z16 steps of 0.5, so that rounding decides the tests.
                for _ in 0..3 {
                    let (x, y) = (rng.f(-8.0, 45.0), rng.f(-8.0, 37.0));
                    let z = rng.f(-1e-4, 1e-4);
                    verts.push((clip_xy(x, y, w as f32, h as f32, z), [0.1, 0.2, 0.3, 1.0]));
                }
                let mut d = DrawDesc::new(
                    Topology::TRIANGLES,
                    &verts,
                    words(&[emitpix(pa(0)), end()]),
                    viewport(w as f32, h as f32),
                );
                d.isp.depth_test = true;
                d.isp.depth_write = k % 4 != 3;
                d.isp.depth_func = funcs[k % funcs.len()];
                draws.push(d);
            }
            (vec![build(s, &rd, &draws)], vec![fb, zb])
        });
        all_done(&name, &r);
    }
}

#[test]
fn faults_agree() {
    // A texture whose level runs past its mapping: the fast path has no host pointer and
    // must fault at the same address as the reference.
    let r = check("texture fault", |s| {
        let (rd, fb) = target(s, 20, 20);
        let st = TexState {
            layout: MemLayout::LINEAR,
            width_m1: 63,
            height_m1: 63,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            base_addr: s.put_bytes(&[7; 3 * 4096]),
            ..TexState::default()
        };
        let mut d = DrawDesc::new(
            Topology::TRIANGLES,
            &rect(
                (0.0, 0.0, 20.0, 20.0),
                (0.0, 0.0, 1.0, 1.0),
                20.0,
                20.0,
                0.5,
                1.0,
            ),
            TEX_FS(Opcode::TEX),
            viewport(20.0, 20.0),
        );
        d.textures = vec![st];
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
    // A twiddled target larger than its buffer: bytes before the fault land alike.
    let r = check("target fault", |s| {
        // 64x64 BGRA8 is 16 KiB; the buffer maps two pages.
        let m = Mem::filled(5000, 0x11);
        let va = s.alloc_with(m.clone(), Perm::RW);
        let pbe = PbeState {
            base_addr: va,
            layout: MemLayout::TWIDDLED,
            log2_w: 6,
            log2_h: 6,
            extent_w_tl: 4,
            extent_h_tl: 4,
            clip_xmax: 63,
            clip_ymax: 63,
            ..PbeState::default()
        };
        let rd = RenderDesc {
            pbe,
            ..RenderDesc::linear(0, 64, 64, 256)
        };
        let d = DrawDesc::new(
            Topology::TRIANGLES,
            &rect(
                (0.0, 0.0, 64.0, 64.0),
                (0.0, 0.0, 1.0, 1.0),
                64.0,
                64.0,
                0.5,
                1.0,
            ),
            words(&[emitpix(pa(0)), end()]),
            viewport(64.0, 64.0),
        );
        (vec![build(s, &rd, &[d])], vec![m])
    });
    assert!(
        matches!(r[0].status, JobStatus::Fault(_)),
        "{:?}",
        r[0].status
    );
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
        let mut d = DrawDesc::new(
            Topology::TRIANGLE_STRIP,
            &verts,
            TEX_FS(Opcode::TEX),
            viewport(100.0, 70.0),
        );
        d.textures = vec![st];
        (vec![build(s, &rd, &[d])], vec![fb])
    });
    all_done("bench-like", &r);
    assert_eq!(r[0].counters.pixels_shaded, 100 * 70);
}

#[test]
fn span_path_scenes() {
    // Rectangles covering whole tiles with nothing tested or blended: the span path shades
    // their inner windows (every 8-bit RGBA kind, both layouts, odd texture sizes, every
    // wrap mode, a swizzle, each interpolation, perspective, coordinates far outside [0, 1]
    // that the span's packed footprints refuse), on an odd target whose last tiles are
    // partial; a window also ends mid-span (widths not a multiple of 8).
    let formats = [
        Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_UNORM,
        Format::B8G8R8X8_UNORM,
    ];
    let wraps = [
        (AddrMode::CLAMP_TO_EDGE, AddrMode::CLAMP_TO_EDGE),
        (AddrMode::REPEAT, AddrMode::MIRRORED_REPEAT),
        (AddrMode::MIRRORED_REPEAT, AddrMode::REPEAT),
    ];
    let interps = [Interp::PERSPECTIVE, Interp::LINEAR, Interp::FLAT];
    let span_px = crate::raster::SPAN_SHADED_PX.with(|c| c.get());
    for (n, &f) in formats.iter().enumerate() {
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            let name = format!("span {f:?} {layout:?}");
            let r = check(&name, |s| {
                let mut rng = Rng(0x5ba7_0000 ^ f.raw() ^ u32::from(layout == MemLayout::TWIDDLED));
                let (tw, th) = match layout {
                    MemLayout::TWIDDLED => (32, 8),
                    _ => (23, 17),
                };
                let (rd, fb) = target(s, 75, 53);
                let mut draws = Vec::new();
                let mut bufs = vec![fb];
                for (k, &(ws, wt)) in wraps.iter().enumerate() {
                    let mut st = TexState {
                        format: f,
                        layout,
                        width_m1: tw - 1,
                        height_m1: th - 1,
                        min_filter: Filter::LINEAR,
                        mag_filter: Filter::LINEAR,
                        wrap_s: ws,
                        wrap_t: wt,
                        ..TexState::default()
                    };
                    if (k + n) % 3 == 1 {
                        swizzle_b1r0(&mut st);
                    }
                    let size_B = level_bytes(&st);
                    bufs.push(random_texture(s, &mut rng, &mut st, size_B));
                    // Three rectangles, overlapping, each over several whole tiles, two with
                    // windows 4 and 6 pixels wide at their left; the last reaches 2^23 texels
                    // out and beyond.
                    let (x0, y0) = ([0.0, 12.0, 10.0][k], [0.0, 4.0, 18.0][k]);
                    let uv = [
                        (-0.2, -0.1, 1.3, 1.2),
                        (0.1, 0.9, 2.7, -1.4),
                        (-40.0, 3.0, 4.0e5, -2.5),
                    ][k];
                    let verts = rect(
                        (x0, y0, 75.0, 53.0),
                        uv,
                        75.0,
                        53.0,
                        0.5,
                        [1.0, 2.5, 1.3][k],
                    );
                    let mut d = DrawDesc::new(
                        Topology::TRIANGLES,
                        &verts,
                        TEX_FS(Opcode::TEX),
                        viewport(75.0, 53.0),
                    );
                    d.tsp.v0_interp = interps[(k + n) % 3];
                    d.textures = vec![st];
                    draws.push(d);
                }
                // The first rectangle again, polygon-stippled: a stipple drops pixels, so its
                // windows must leave the span path (which has no stipple) to the quad loop.
                let mut stippled = draws[0].clone();
                stippled.prim.poly_stipple = true;
                for (y, row) in stippled.poly_stipple.iter_mut().enumerate() {
                    *row = 0x9c3a_61f5u32.rotate_left(y as u32 * 5);
                }
                draws.push(stippled);
                (vec![build(s, &rd, &draws)], bufs)
            });
            all_done(&name, &r);
        }
    }
    // The scenes took the span path (counted on this thread, where one-thread runs shade).
    let taken = crate::raster::SPAN_SHADED_PX.with(|c| c.get()) - span_px;
    assert!(
        taken > 6 * 3 * 16 * 16,
        "{taken} pixels through the span path"
    );
}

#[test]
fn span_path_random_triangles() {
    // Random textured triangles, most smaller than a tile, so the span path meets windows it
    // covers in part: vertices on a half-pixel grid (pixel centres on edges, the top-left
    // rule), fans sharing edges, a few huge triangles (vertices too far out for the span), and
    // windows cut by the odd target's last tiles.
    let r = check("span random", |s| {
        let mut rng = Rng(0x0dd5_ba11);
        let (w, h) = (53.0, 41.0);
        let (rd, fb) = target(s, 53, 41);
        let mut st = TexState {
            layout: MemLayout::TWIDDLED,
            width_m1: 15,
            height_m1: 31,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            wrap_s: AddrMode::REPEAT,
            wrap_t: AddrMode::MIRRORED_REPEAT,
            ..TexState::default()
        };
        let size_B = level_bytes(&st);
        let m = random_texture(s, &mut rng, &mut st, size_B);
        let mut verts = Vec::new();
        // A vertex within `spread` of (cx, cy), on the half-pixel grid.
        let vert = |rng: &mut Rng, (cx, cy): (f32, f32), spread: f32| {
            let x = ((cx + rng.f(-spread, spread)) * 2.0).round() / 2.0;
            let y = ((cy + rng.f(-spread, spread)) * 2.0).round() / 2.0;
            let c = [rng.f(-1.0, 2.0), rng.f(-1.0, 2.0), 0.0, 1.0];
            (clip_xy(x, y, w, h, 0.5), c)
        };
        for k in 0..80 {
            let spread = if k % 20 == 19 { 1e6 } else { 12.0 };
            let at = (rng.f(0.0, w), rng.f(0.0, h));
            let centre = vert(&mut rng, at, 0.0);
            let (a, b) = (vert(&mut rng, at, spread), vert(&mut rng, at, spread));
            // A fan around the centre: the second triangle shares an edge with the first.
            let c = vert(&mut rng, at, spread);
            verts.extend([centre, a, b, centre, b, c]);
        }
        let mut d = DrawDesc::new(
            Topology::TRIANGLES,
            &verts,
            TEX_FS(Opcode::TEX),
            viewport(w, h),
        );
        d.textures = vec![st];
        (vec![build(s, &rd, &[d])], vec![fb, m])
    });
    all_done("span random", &r);
}
