//! Throughput figures of the model (`sgx535 bench sim`): a full-screen bilinear-textured
//! 512x512 render, and a 64x64 -> 1x1 chain of mip-generation-style passes (one render per
//! level, sampling level L-1, writing level L through a twiddled PBE target). Each is timed on
//! one thread and on every core, interleaved with its CPU reference ([`cpu`]).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, TexState};

use crate::kit::{
    build, clip_xy, dr, emitpix, end, pa, r, tex, viewport, words, DrawDesc, Mem, RenderDesc, Scene,
};
use crate::{JobDesc, JobStatus, Perm};

mod cpu;

/// One measured figure: the model on one thread and on every core, and the CPU reference.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// What was rendered.
    pub name: String,
    /// Pixels written per run.
    pub pixels: u64,
    /// Rounds timed (each runs all three once, interleaved).
    pub runs: u32,
    /// Wall seconds of the fastest run on one thread.
    pub secs_1t: f64,
    /// Threads of the parallel runs.
    pub threads: usize,
    /// Wall seconds of the fastest run on `threads` threads.
    pub secs_nt: f64,
    /// Wall seconds of the fastest run of the CPU reference loop.
    pub cpu_secs: f64,
}

fn mpix(pixels: u64, secs: f64) -> f64 {
    pixels as f64 / secs.max(1e-12) / 1e6
}

impl BenchRow {
    /// Millions of pixels per second on one thread.
    pub fn mpix_per_s(&self) -> f64 {
        mpix(self.pixels, self.secs_1t)
    }

    /// Millions of pixels per second on `threads` threads.
    pub fn mpix_per_s_nt(&self) -> f64 {
        mpix(self.pixels, self.secs_nt)
    }

    /// The CPU reference's millions of pixels per second.
    pub fn cpu_mpix_per_s(&self) -> f64 {
        mpix(self.pixels, self.cpu_secs)
    }

    /// Takes in another pass of the same row: the fastest run of each kind over both, the
    /// rounds of both.
    pub fn merge_pass(&mut self, other: &BenchRow) {
        debug_assert_eq!(self.name, other.name, "passes of one row (invariant)");
        self.runs += other.runs;
        self.secs_1t = self.secs_1t.min(other.secs_1t);
        self.secs_nt = self.secs_nt.min(other.secs_nt);
        self.cpu_secs = self.cpu_secs.min(other.cpu_secs);
    }
}

fn textured_quad(size: f32, st: TexState) -> DrawDesc {
    let p = |x: f32, y: f32| {
        (
            clip_xy(x, y, size, size, 0.5),
            [x / size, y / size, 0.0, 1.0],
        )
    };
    let verts = [p(0.0, 0.0), p(0.0, size), p(size, 0.0), p(size, size)];
    let fs = words(&[tex(dr(0), pa(0), 0), emitpix(r(0)), end()]);
    let mut d = DrawDesc::new(Topology::TRIANGLE_STRIP, &verts, fs, viewport(size, size));
    d.textures = vec![st];
    d
}

/// The benchmarks' texel pattern: bytes that vary along a row and between rows (not
/// hardware: any non-constant content serves), shared with the peers' run of the same work.
pub fn pattern(len: usize) -> Vec<u8> {
    // A row-dependent offset every 64 bytes: any non-constant content serves.
    (0..len).map(|i| (i * 7 + i / 64) as u8).collect()
}

/// Fastest wall times of the jobs on one thread, on every core, and of `cpu`, in `runs`
/// interleaved rounds (load from other processes falls on all three alike).
fn time(gpu: &mut crate::Gpu, jobs: &[JobDesc], runs: u32, mut cpu: impl FnMut()) -> [f64; 3] {
    for j in jobs {
        let r = gpu.run(j);
        assert_eq!(r.status, JobStatus::Done, "benchmark job failed");
    }
    let mut best = [f64::MAX; 3];
    for _ in 0..runs {
        for (k, b) in best.iter_mut().enumerate() {
            if k < 2 {
                gpu.set_threads(if k == 0 { 1 } else { 0 });
            }
            let t = Instant::now();
            if k < 2 {
                for j in jobs {
                    gpu.run(j);
                }
            } else {
                cpu();
            }
            *b = b.min(t.elapsed().as_secs_f64());
        }
    }
    best
}

/// The textured-quad scene: its jobs and target.
pub(crate) fn quad_scene(size: u32, tex_side: u32) -> (Scene, Vec<JobDesc>, Arc<Mem>, Vec<u8>) {
    let mut s = Scene::new();
    let texels = pattern((tex_side * tex_side * 4) as usize);
    let tb = s.put_bytes(&texels);
    let st = TexState {
        base_addr: tb,
        width_m1: tex_side - 1,
        height_m1: tex_side - 1,
        min_filter: Filter::LINEAR,
        mag_filter: Filter::LINEAR,
        wrap_s: AddrMode::CLAMP_TO_EDGE,
        wrap_t: AddrMode::CLAMP_TO_EDGE,
        ..TexState::default()
    };
    let (fb, mem) = s.alloc((size * size * 4) as usize);
    let rd = RenderDesc::linear(fb, size, size, size * 4);
    let job = build(&mut s, &rd, &[textured_quad(size as f32, st)]);
    (s, vec![job], mem, texels)
}

/// The mip-chain scene (`base` square, one render per level): its jobs and the chain.
fn chain_scene(base: u32) -> (Scene, Vec<JobDesc>, Arc<Mem>, u64) {
    let levels = base.trailing_zeros() + 1;
    let mut s = Scene::new();
    let chain_B: usize = (0..levels).map(|l| ((base >> l) as usize).pow(2) * 4).sum();
    let mem = Mem::new(chain_B);
    mem.write(0, &pattern((base * base * 4) as usize));
    let addr = s.alloc_with(mem.clone(), Perm::RW);
    let mut jobs = Vec::new();
    let mut pixels = 0u64;
    let mut off = 0u32;
    for l in 1..levels {
        let prev = base >> (l - 1);
        off += prev * prev * 4;
        let size = base >> l;
        pixels += u64::from(size * size);
        let st = TexState {
            base_addr: addr,
            width_m1: base - 1,
            height_m1: base - 1,
            levels,
            base_level: l - 1,
            max_level: l - 1,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            wrap_s: AddrMode::CLAMP_TO_EDGE,
            wrap_t: AddrMode::CLAMP_TO_EDGE,
            ..TexState::default()
        };
        let tile_px = sgx_hwdocs::limits::TILE_W_PX as u32;
        let tl = size.div_ceil(tile_px);
        let pbe = PbeState {
            base_addr: addr + off,
            layout: MemLayout::TWIDDLED,
            log2_w: levels - 1 - l,
            log2_h: levels - 1 - l,
            extent_w_tl: tl,
            extent_h_tl: tl,
            clip_xmax: size - 1,
            clip_ymax: size - 1,
            ..PbeState::default()
        };
        let rd = RenderDesc {
            pbe,
            // The PBE writes the twiddled level; the linear stride is unused.
            ..RenderDesc::linear(0, tl * tile_px, tl * tile_px, 64)
        };
        jobs.push(build(&mut s, &rd, &[textured_quad(size as f32, st)]));
    }
    (s, jobs, mem, pixels)
}

/// Runs the model benchmarks, each beside its CPU reference.
pub fn bench_sim() -> Vec<BenchRow> {
    let mut rows = Vec::new();
    let threads = crate::raster::Threads::with(0).count();
    // 512x512 target, 256x256 twiddled BGRA8 texture magnified with bilinear filtering.
    let (mut s, jobs, _, texels) = quad_scene(512, 256);
    let mut fb = vec![0u8; 512 * 512 * 4];
    // Enough rounds that, on a shared machine, some find both cores free for the pool.
    let runs = 30;
    let [secs_1t, secs_nt, cpu_secs] = time(&mut s.gpu, &jobs, runs, || {
        cpu::textured_quad(black_box(&mut fb), 512, black_box(&texels), 256)
    });
    rows.push(BenchRow {
        name: "512x512 full-screen bilinear textured quad".into(),
        pixels: 512 * 512,
        runs,
        secs_1t,
        threads,
        secs_nt,
        cpu_secs,
    });

    // 64x64 -> 1x1 twiddled BGRA8 chain, one render per level.
    let (mut s, jobs, mem, pixels) = chain_scene(64);
    let mut chain = mem.bytes();
    let runs = 200;
    let [secs_1t, secs_nt, cpu_secs] = time(&mut s.gpu, &jobs, runs, || {
        cpu::mip_chain(black_box(&mut chain), 64)
    });
    rows.push(BenchRow {
        name: "64x64 -> 1x1 mip chain, 6 renders (pixels per chain)".into(),
        pixels,
        runs,
        secs_1t,
        threads,
        secs_nt,
        cpu_secs,
    });
    rows
}

/// Formats rows as a table with Mpix/s: the model on one thread and on every core, the CPU
/// reference, and the model's figures as fractions of the reference's.
pub fn format_bench(rows: &[BenchRow]) -> String {
    let threads = rows.first().map_or(1, |r| r.threads);
    let mut s = format!(
        "{:<54} {:>8}  {:>12} {:>12} {:>12}  {:>9} {:>9}\n",
        "sgx-sim model (Mpix/s)",
        "px",
        "model 1t",
        format!("model {threads}t"),
        "CPU ref",
        "1t/CPU",
        format!("{threads}t/CPU")
    );
    for r in rows {
        s.push_str(&format!(
            "{:<54} {:>8}  {:>12.2} {:>12.2} {:>12.2}  {:>8.3}x {:>8.3}x\n",
            r.name,
            r.pixels,
            r.mpix_per_s(),
            r.mpix_per_s_nt(),
            r.cpu_mpix_per_s(),
            r.cpu_secs / r.secs_1t,
            r.cpu_secs / r.secs_nt,
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_has_mpix_and_ratios() {
        let rows = [BenchRow {
            name: "x".into(),
            pixels: 1_000_000,
            runs: 1,
            secs_1t: 0.5,
            threads: 2,
            secs_nt: 0.25,
            cpu_secs: 0.05,
        }];
        let t = format_bench(&rows);
        assert!(
            t.contains("2.00") && t.contains("4.00") && t.contains("20.00"),
            "{t}"
        );
        assert!(
            t.contains("0.100x") && t.contains("0.200x") && t.contains("model 2t"),
            "{t}"
        );
    }

    #[test]
    fn a_merged_pass_keeps_each_kinds_fastest_run() {
        let row = |secs_1t, secs_nt, cpu_secs| BenchRow {
            name: "x".into(),
            pixels: 1,
            runs: 30,
            secs_1t,
            threads: 2,
            secs_nt,
            cpu_secs,
        };
        let mut a = row(0.5, 0.2, 0.9);
        a.merge_pass(&row(0.4, 0.3, 1.0));
        assert_eq!(
            a,
            BenchRow {
                runs: 60,
                ..row(0.4, 0.2, 0.9)
            }
        );
    }

    /// Largest per-byte difference.
    fn max_diff(a: &[u8], b: &[u8]) -> u8 {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap()
    }

    #[test]
    fn cpu_references_write_the_models_pixels() {
        // Same work: the references' bytes are the model's, give or take the model's
        // interpolated (not exact) texture coordinates' last bit.
        let (mut s, jobs, mem, texels) = quad_scene(64, 32);
        for j in &jobs {
            assert_eq!(s.gpu.run(j).status, JobStatus::Done);
        }
        let mut fb = vec![0u8; 64 * 64 * 4];
        cpu::textured_quad(&mut fb, 64, &texels, 32);
        assert!(max_diff(&fb, &mem.bytes()) <= 1);
        let (mut s, jobs, mem, _) = chain_scene(32);
        let mut chain = mem.bytes();
        for j in &jobs {
            assert_eq!(s.gpu.run(j).status, JobStatus::Done);
        }
        cpu::mip_chain(&mut chain, 32);
        assert!(max_diff(&chain, &mem.bytes()) <= 1);
    }
}
