//! Soak: 8 threads share one device, each with its own context, and mix uploads, textured
//! draws, mip chains and buffer churn while the device injects MMU faults, failed jobs,
//! refused submissions, failed allocations (and, on the model, hangs). Every operation that
//! reports success is checked byte for byte; every failure must be one of the injected kinds.
//! Afterwards the live buffers, fences, jobs, GPU address space, file descriptors and threads
//! are back where they started, and resident memory grew by a bounded amount.
//!
//! The model runs here; the drm backend runs in a child process with the drm-shim preloaded
//! (the same test binary, as in pipe/tests/shim.rs). `cargo test` runs a short version; the
//! long one (10,000 submissions per thread) is
//! `cargo test -p sgx-blitter --test soak -- --ignored --nocapture`.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sgx_blitter::shaders::{FS_TEXTURE, VS_PASSTHROUGH};
use sgx_blitter::{Admission, Blitter};
use sgx_pipe::state::*;
use sgx_pipe::*;
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{Device, DrmDevice, LiveCounts, SimDevice, SimOptions, Unit};

const THREADS: usize = 8;
const SHORT_PER_THREAD: u64 = 100;
const LONG_PER_THREAD: u64 = 10_000;
/// Long enough never to end a wait that is not stuck (a hang ends within its budget).
const WAIT: Duration = Duration::from_secs(20);
const HANG_BUDGET: Duration = Duration::from_millis(50);
const TEX_PX: u32 = 32;
const TEX_LAST: u32 = 5;
const RT_PX: u32 = 16;
const CHILD_ENV: &str = "SGX535_SOAK_CHILD";
/// The counts are the whole process's: the tests of this file run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());
const MARK: &str = "SOAK-FIGURES ";

/// Messages of the failures the device injects; anything else is a bug the soak found.
const INJECTED: [&str; 6] = [
    "out of memory",
    "MMU fault",
    "job failed",
    "submission refused",
    "GPU hang",
    "canceled",
];

/// Failures at fixed strides of the device's global counters, so every thread meets them.
fn fixture(per_thread: u64, hangs: bool) -> Fixture {
    let jobs = per_thread * THREADS as u64 * 2;
    let mut inject = Vec::new();
    // One injection per job: the fixture refuses two for the same index.
    let mut taken = std::collections::HashSet::new();
    // A few hangs only: each stalls the GPU for its budget.
    if hangs {
        for job in (57..jobs).step_by(jobs as usize / 4 + 1) {
            taken.insert(job);
            inject.push(Inject::HangJob { job });
        }
    }
    for job in (13..jobs).step_by(41).filter(|j| taken.insert(*j)) {
        inject.push(Inject::FaultJob {
            job,
            unit: Unit::Pbe,
            addr: 0x3000_1000,
        });
    }
    for job in (29..jobs).step_by(97).filter(|j| taken.insert(*j)) {
        inject.push(Inject::FailJob {
            job,
            reason: "soak".into(),
        });
    }
    for submission in (7..jobs).step_by(89) {
        inject.push(Inject::RefuseSubmission {
            submission,
            errno: serde_json::from_str("\"EBUSY\"").unwrap(),
        });
    }
    for allocation in (300..jobs * 3).step_by(53) {
        inject.push(Inject::FailAllocation { allocation });
    }
    Fixture {
        description: "soak".into(),
        inject,
        ..Fixture::default()
    }
}

/// One reading of what the process holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Census {
    live: LiveCounts,
    /// The drm-shim's kernel side, when it is preloaded: buffers, VA bytes, syncobjs, job
    /// records, files.
    kernel: [u64; 5],
    fds: usize,
    threads: usize,
    /// Memory mappings (/proc/self/maps lines): a buffer mapped and never unmapped shows here.
    maps: usize,
    /// Bytes malloc has handed out and not had back (glibc's mallinfo2: uordblks + hblkhd).
    heap_B: u64,
    rss_kib: u64,
}

/// glibc's `struct mallinfo2`.
#[repr(C)]
struct MallInfo2 {
    arena: usize,
    ordblks: usize,
    smblks: usize,
    hblks: usize,
    hblkhd: usize,
    usmblks: usize,
    fsmblks: usize,
    uordblks: usize,
    fordblks: usize,
    keepcost: usize,
}

extern "C" {
    fn mallinfo2() -> MallInfo2;
}

fn heap_in_use_B() -> u64 {
    // SAFETY: mallinfo2 takes nothing and returns a struct by value.
    let m = unsafe { mallinfo2() };
    (m.uordblks + m.hblkhd) as u64
}

/// The drm-shim's `Sgx535ShimLive` (winsys/shim/src/lib.rs).
#[repr(C)]
#[derive(Default)]
struct ShimLive {
    bos: u64,
    va_B: u64,
    syncobjs: u64,
    job_records: u64,
    files: u64,
}

extern "C" {
    fn dlsym(
        handle: *mut std::ffi::c_void,
        symbol: *const std::ffi::c_char,
    ) -> *mut std::ffi::c_void;
}

/// The fake kernel's counts through the preloaded shim's `sgx535_drm_shim_live`, or zeros
/// when the shim is not loaded.
fn shim_live() -> [u64; 5] {
    // SAFETY: RTLD_DEFAULT (NULL) searches the loaded objects for a NUL-terminated name.
    let f = unsafe { dlsym(std::ptr::null_mut(), c"sgx535_drm_shim_live".as_ptr()) };
    if f.is_null() {
        return [0; 5];
    }
    // SAFETY: the symbol is the shim's `unsafe extern "C" fn(*mut Sgx535ShimLive) -> c_int`,
    // whose layout ShimLive repeats.
    let f: unsafe extern "C" fn(*mut ShimLive) -> std::ffi::c_int =
        unsafe { std::mem::transmute(f) };
    let mut l = ShimLive::default();
    // SAFETY: `l` is a writable ShimLive.
    unsafe { f(&mut l) };
    [l.bos, l.va_B, l.syncobjs, l.job_records, l.files]
}

fn count_dir(p: &str) -> usize {
    std::fs::read_dir(p).map_or(0, |d| d.count())
}

fn status_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The names of the process's threads (to say which one a count difference is).
fn thread_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| std::fs::read_to_string(e.path().join("comm")).ok())
                .map(|s| s.trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Threads the soak starts carry this name, so a census can wait for them to be gone.
const THREAD_NAME: &str = "sgx-soak";

fn spawn_named<'s, 'e>(s: &'s std::thread::Scope<'s, 'e>, f: impl FnOnce() + Send + 's) {
    std::thread::Builder::new()
        .name(THREAD_NAME.into())
        .spawn_scoped(s, f)
        .unwrap();
}

/// The counts once the soak's own threads, joined, have left the kernel's task list.
fn census(dev: &dyn Device) -> Census {
    // What the backend keeps for reuse is not live: counted out, it cannot hide a leak.
    dev.release_caches();
    let start = Instant::now();
    while thread_names().iter().any(|n| n == THREAD_NAME)
        && start.elapsed() < Duration::from_secs(2)
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    Census {
        live: dev.live(),
        kernel: shim_live(),
        fds: count_dir("/proc/self/fd"),
        threads: count_dir("/proc/self/task"),
        heap_B: heap_in_use_B(),
        maps: std::fs::read_to_string("/proc/self/maps").map_or(0, |m| m.lines().count()),
        rss_kib: status_kib("VmRSS:"),
    }
}

/// What the soak did and found.
#[derive(Default)]
struct Tally {
    submissions: AtomicU64,
    checked: AtomicU64,
    failed: AtomicU64,
    unexpected: Mutex<Vec<String>>,
    peak_rss_kib: AtomicU64,
}

impl Tally {
    /// An operation's result: checked when it succeeded, a failure of an injected kind, or a
    /// finding.
    fn note<E: std::fmt::Display>(&self, what: &str, r: std::result::Result<(), E>) {
        match r {
            Ok(()) => {
                self.checked.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                let msg = e.to_string();
                self.failed.fetch_add(1, Ordering::Relaxed);
                if !INJECTED.iter().any(|k| msg.contains(k)) {
                    self.unexpected
                        .lock()
                        .unwrap()
                        .push(format!("{what}: {msg}"));
                }
            }
        }
    }
}

type AnyResult = std::result::Result<(), Box<dyn std::error::Error>>;

fn uniform(bgra: [u8; 4], px: u32) -> Vec<u8> {
    bgra.repeat((px * px) as usize)
}

fn colour_of(t: usize, i: u64) -> [u8; 4] {
    [(i * 7) as u8, (t * 31) as u8, (i >> 3) as u8 ^ 0x5a, 255]
}

fn check_uniform(got: &[u8], bgra: [u8; 4], what: &str) -> AnyResult {
    match got.chunks(4).position(|p| p != bgra) {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: pixel {i} is {:?}, drawn {bgra:?}",
            &got[i * 4..i * 4 + 4]
        )
        .into()),
    }
}

/// One thread's objects: a context, its blitter, a texture with a chain, a render target.
struct Worker {
    ctx: Context,
    blitter: Blitter,
    tex: Arc<Resource>,
    rt: Arc<Resource>,
    vs: Arc<ShaderState>,
    fs: Arc<ShaderState>,
}

impl Worker {
    fn new(screen: &Screen) -> std::result::Result<Worker, Box<dyn std::error::Error>> {
        let mut ctx = screen.context_create();
        ctx.set_timeout(WAIT);
        let blitter = Blitter::with_admission(&ctx, Admission::builtin())?;
        let tex = screen.resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            TEX_PX,
            TEX_PX,
            TEX_LAST,
            bind::SAMPLER_VIEW | bind::RENDER_TARGET,
        ))?;
        let rt = screen.resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            RT_PX,
            RT_PX,
            0,
            bind::RENDER_TARGET,
        ))?;
        let vs = ctx.create_vs_state(VS_PASSTHROUGH)?;
        let fs = ctx.create_fs_state(FS_TEXTURE)?;
        let ve = ctx.create_vertex_elements_state(&VertexElement::packed(&[
            VertexFormat::R32G32B32A32_FLOAT,
            VertexFormat::R32G32_FLOAT,
        ]))?;
        ctx.bind_vertex_elements_state(Some(&ve));
        let samp = ctx.create_sampler_state(&SamplerState::default())?;
        ctx.bind_sampler_states(0, &[Some(samp)])?;
        Ok(Worker {
            ctx,
            blitter,
            tex,
            rt,
            vs,
            fs,
        })
    }

    /// Level 0 of the texture to one colour (a CPU upload).
    fn upload(&mut self, bgra: [u8; 4]) -> AnyResult {
        let b = PipeBox::new(0, 0, TEX_PX, TEX_PX);
        let s = TEX_PX as usize * 4;
        self.ctx
            .texture_subdata(&self.tex, 0, 0, b, &uniform(bgra, TEX_PX), s, 0)?;
        check_uniform(&self.ctx.read_level(&self.tex, 0, 0)?, bgra, "upload")
    }

    /// A clear, then a quad covering the target that samples level 0: every pixel is its colour.
    fn draw(&mut self, bgra: [u8; 4]) -> AnyResult {
        let c = &mut self.ctx;
        c.set_framebuffer_state(&FramebufferState::colour(
            Surface::new(&self.rt, 0, 0),
            RT_PX,
            RT_PX,
        ))?;
        c.set_viewport_state(&ViewportState::rect(0.0, 0.0, RT_PX as f32, RT_PX as f32))?;
        c.clear(clear_flags::COLOR0, [0.0, 1.0, 0.0, 1.0], 1.0, 0)?;
        c.bind_vs_state(Some(&self.vs))?;
        c.bind_fs_state(Some(&self.fs))?;
        c.set_sampler_views(0, &[Some(SamplerView::new(&self.tex).levels(0, 0))])?;
        let mut v = Vec::new();
        for (x, y, s, t) in [
            (-1.0f32, -1.0f32, 0.0f32, 0.0f32),
            (1.0, -1.0, 1.0, 0.0),
            (-1.0, 1.0, 0.0, 1.0),
            (1.0, 1.0, 1.0, 1.0),
        ] {
            for q in [x, y, 0.0, 1.0, s, t] {
                v.push(q);
            }
        }
        c.set_vertex_buffers(0, &[Some(VertexBuffer::user_f32(6, &v))])?;
        c.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))?;
        if let Some(f) = c.flush()? {
            f.wait(WAIT)?;
        }
        check_uniform(&c.read_level(&self.rt, 0, 0)?, bgra, "draw")
    }

    /// The texture's chain from a uniform level 0: every level is the same colour.
    fn mipmap(&mut self, bgra: [u8; 4]) -> AnyResult {
        let rep = self
            .blitter
            .generate_mipmap(&mut self.ctx, &self.tex, 0, TEX_LAST)?;
        self.blitter.wait_mipmap(&self.tex, &rep, WAIT)?;
        for l in 1..=TEX_LAST {
            check_uniform(&self.ctx.read_level(&self.tex, l, 0)?, bgra, "mip level")?;
        }
        Ok(())
    }

    /// Buffer churn: a new texture, uploaded, cleared as a render target, read and dropped.
    fn churn(&mut self, screen: &Screen, bgra: [u8; 4]) -> AnyResult {
        let t = screen.resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            8,
            8,
            0,
            bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        ))?;
        self.ctx
            .texture_subdata(&t, 0, 0, PipeBox::new(0, 0, 8, 8), &uniform(bgra, 8), 32, 0)?;
        check_uniform(&self.ctx.read_level(&t, 0, 0)?, bgra, "churn upload")?;
        self.ctx
            .set_framebuffer_state(&FramebufferState::colour(Surface::new(&t, 0, 0), 8, 8))?;
        self.ctx
            .clear(clear_flags::COLOR0, [0.0, 0.0, 1.0, 1.0], 1.0, 0)?;
        // A read waits for the clear's job but does not report how it ended: its fence does.
        if let Some(f) = self.ctx.flush()? {
            f.wait(WAIT)?;
        }
        check_uniform(
            &self.ctx.read_level(&t, 0, 0)?,
            [255, 0, 0, 255],
            "churn clear",
        )
    }
}

/// One thread: operations in turn until its context made `subs` submissions.
fn work(screen: &Screen, t: usize, subs: u64, tally: &Tally) {
    let mut w = None;
    let mut i = 0u64;
    // A bound on attempts, so a device that refuses everything still ends the soak.
    while i < subs * 8 {
        let Some(wk) = w.as_mut() else {
            match Worker::new(screen) {
                Ok(x) => w = Some(x),
                Err(e) => tally.note("set-up", Err(e)),
            }
            i += 1;
            continue;
        };
        if wk.ctx.stats().submissions >= subs {
            break;
        }
        let c = colour_of(t, i);
        // Each colour is uploaded before the draw and the chain that check for it.
        match i % 4 {
            0 => tally.note("upload", wk.upload(c)),
            1 => {
                let r = wk.upload(c).and_then(|()| wk.draw(c));
                tally.note("draw", r);
            }
            2 => {
                let r = wk.upload(c).and_then(|()| wk.mipmap(c));
                tally.note("mipmap", r);
            }
            _ => tally.note("churn", wk.churn(screen, c)),
        }
        i += 1;
    }
    if let Some(wk) = &w {
        tally
            .submissions
            .fetch_add(wk.ctx.stats().submissions, Ordering::Relaxed);
    }
}

/// What one soak printed and the parent checks.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Figures {
    backend: String,
    threads: usize,
    submissions: u64,
    checked: u64,
    failed: u64,
    unexpected: Vec<String>,
    secs: f64,
    before: [u64; 13],
    after: [u64; 13],
    peak_rss_kib: u64,
    heap_B: [u64; 2],
}

fn flat(c: &Census) -> [u64; 13] {
    [
        c.live.bos,
        c.live.fences,
        c.live.jobs,
        c.live.va_B,
        c.kernel[0],
        c.kernel[1],
        c.kernel[2],
        c.kernel[3],
        c.kernel[4],
        c.fds as u64,
        c.threads as u64,
        c.maps as u64,
        c.rss_kib,
    ]
}

/// Runs the soak on `dev` (which nothing else holds) and returns its figures.
fn soak(dev: Arc<dyn Device>, per_thread: u64) -> Figures {
    // Whatever the first use of the driver sets up once (statics, allocator arenas) is not a
    // leak: a one-thread warm-up runs before the counts are taken.
    {
        let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
        let warm = Tally::default();
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let screen = &screen;
                let warm = &warm;
                spawn_named(s, move || work(screen, t, 4, warm));
            }
        });
    }
    dev.wait_idle(WAIT).unwrap();
    let before = census(&*dev);
    let tally = Tally::default();
    let start = Instant::now();
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        // RSS is sampled while the soak runs; VmHWM would include the warm-up's.
        spawn_named(s, || {
            while !done.load(Ordering::Relaxed) {
                tally
                    .peak_rss_kib
                    .fetch_max(status_kib("VmRSS:"), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
        std::thread::scope(|w| {
            for t in 0..THREADS {
                let (screen, tally) = (&screen, &tally);
                spawn_named(w, move || work(screen, t, per_thread, tally));
            }
        });
        drop(screen);
        done.store(true, Ordering::Relaxed);
    });
    let secs = start.elapsed().as_secs_f64();
    dev.wait_idle(WAIT).unwrap();
    let after = census(&*dev);
    if after.threads != before.threads {
        eprintln!("threads now: {:?}", thread_names());
    }
    Figures {
        backend: dev.info().backend.name().into(),
        threads: THREADS,
        submissions: tally.submissions.load(Ordering::Relaxed),
        checked: tally.checked.load(Ordering::Relaxed),
        failed: tally.failed.load(Ordering::Relaxed),
        unexpected: tally.unexpected.into_inner().unwrap(),
        secs,
        before: flat(&before),
        after: flat(&after),
        peak_rss_kib: tally.peak_rss_kib.load(Ordering::Relaxed),
        heap_B: [before.heap_B, after.heap_B],
    }
}

fn print(f: &Figures) {
    println!(
        "soak on {}: {} threads, {} submissions in {:.1} s ({:.0}/s); {} operations checked, {} \
         failed as injected",
        f.backend,
        f.threads,
        f.submissions,
        f.secs,
        f.submissions as f64 / f.secs,
        f.checked,
        f.failed
    );
    let names = [
        "buffers",
        "fences",
        "jobs",
        "GPU VA bytes",
        "shim buffers",
        "shim VA bytes",
        "shim syncobjs",
        "shim job recs",
        "shim files",
        "fds",
        "threads",
        "mappings",
    ];
    for (i, n) in names.iter().enumerate() {
        println!(
            "  {n:<13} before {:>10} after {:>10}",
            f.before[i], f.after[i]
        );
    }
    println!(
        "  RSS KiB       before {:>10} after {:>10} peak {:>10} (growth {} KiB)",
        f.before[12],
        f.after[12],
        f.peak_rss_kib,
        f.after[12] as i64 - f.before[12] as i64
    );
    println!(
        "  heap KiB      before {:>10} after {:>10} (malloc's bytes in use)",
        f.heap_B[0] >> 10,
        f.heap_B[1] >> 10
    );
}

/// The promises: no unexpected failure, enough work checked, everything released, RSS bounded.
fn judge(f: &Figures, per_thread: u64, rss_bound_kib: u64) {
    print(f);
    assert!(
        f.unexpected.is_empty(),
        "failures the device did not inject ({}): {:#?}",
        f.unexpected.len(),
        &f.unexpected[..f.unexpected.len().min(10)]
    );
    assert!(
        f.submissions >= per_thread * THREADS as u64,
        "{} submissions",
        f.submissions
    );
    assert!(f.failed > 0, "the injected failures were met");
    assert!(
        f.checked > f.failed,
        "most operations succeed and are checked"
    );
    assert_eq!(
        f.before[..11],
        f.after[..11],
        "live counts back where they started"
    );
    // New malloc arenas and glibc's cache of joined threads' stacks stay mapped: a few, not
    // one per buffer.
    let maps = f.after[11].saturating_sub(f.before[11]);
    assert!(maps <= 32, "{maps} more memory mappings");
    let growth = f.after[12].saturating_sub(f.before[12]);
    assert!(
        growth <= rss_bound_kib,
        "RSS grew by {growth} KiB (bound {rss_bound_kib} KiB)"
    );
}

fn model(per_thread: u64) -> Arc<dyn Device> {
    Arc::new(
        SimDevice::with_options(SimOptions {
            trace_limit: Some(4096),
            faults: Some(Arc::new(fixture(per_thread, true))),
            hang_budget: Some(HANG_BUDGET),
        })
        .unwrap(),
    )
}

#[test]
fn soak_short_on_the_model() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let f = soak(model(SHORT_PER_THREAD), SHORT_PER_THREAD);
    judge(&f, SHORT_PER_THREAD, 64 << 10);
}

#[test]
#[ignore = "long: 10,000 submissions per thread (RELIABILITY.md)"]
fn soak_long_on_the_model() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let f = soak(model(LONG_PER_THREAD), LONG_PER_THREAD);
    judge(&f, LONG_PER_THREAD, 64 << 10);
}

/// Runs the soak in a child with the drm-shim preloaded and its fixture injected.
fn soak_under_shim(per_thread: u64) -> Figures {
    // The shim has no hang recovery yet: a hang would stall its GPU for good.
    let stdout = common::run_under_shim(
        "child_soak_under_the_shim",
        &format!("sgx535-soak-{}.json", std::process::id()),
        &serde_json::to_string(&fixture(per_thread, false)).unwrap(),
        &[(CHILD_ENV, per_thread.to_string())],
    );
    let line = stdout
        .lines()
        .find_map(|l| l.find(MARK).map(|i| &l[i + MARK.len()..]))
        .unwrap_or_else(|| panic!("no figures from the child:\n{stdout}"));
    serde_json::from_str(line).unwrap()
}

#[test]
fn child_soak_under_the_shim() {
    let Some(n) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let per_thread: u64 = n.to_str().unwrap().parse().unwrap();
    let dev = DrmDevice::open_default().expect("the shim's render node");
    let f = soak(Arc::new(dev), per_thread);
    println!("{MARK}{}", serde_json::to_string(&f).unwrap());
}

#[test]
fn soak_short_through_the_drm_shim() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let f = soak_under_shim(SHORT_PER_THREAD);
    judge(&f, SHORT_PER_THREAD, 64 << 10);
}

#[test]
#[ignore = "long: 10,000 submissions per thread (RELIABILITY.md)"]
fn soak_long_through_the_drm_shim() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let f = soak_under_shim(LONG_PER_THREAD);
    judge(&f, LONG_PER_THREAD, 64 << 10);
}
