//! The 3D phase's tile loop, on this thread or with a pool's workers.
//!
//! The 3D core renders independent tiles, and so may the model: shading a tile (background or
//! load, then its primitives) only reads memory, into the tile's own buffers. So the tiles
//! are handed out one at a time, in raster order, to whichever thread asks (the caller and
//! the pool's workers, each with its own rasteriser: USSE machine, draw and program caches,
//! and tile), shaded into the thread's own tile and handed over, in the form the store reads
//! ([`handover`](super::handover)), into a ring ([`ring`](super::ring)); the calling thread
//! stores them through the PBE and ZLS in raster order as they are ready, shading tiles
//! itself in between. When the next tile to store is still being shaded and nothing is left
//! to claim, the caller shades that tile itself and the late worker's copy is dropped: a
//! worker the scheduler preempted holds the frame up only for the tile it is in at the
//! frame's end.
//! What order could change is merged in raster order too: each tile's counters and query
//! counts are kept apart and summed tile by tile, and the first failing tile (in shading or in
//! its store) gives the job's error and ends the sums and the stores, as the serial loop
//! would. So the result is the serial one byte for byte, counters included, faults too.
//!
//! Workers shade while the caller stores earlier tiles: both touch the same bytes only when a
//! draw samples the memory the job writes (a feedback loop; GL leaves its result undefined).
//! Such a job's result could then depend on the timing, as it depended on the batch size
//! before this loop; the model does not detect it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sgx_hwdocs::render::TileCtrl;

use super::backoff::Backoff;
use super::handover::{Handover, Stored};
use super::ring::Ring;
use super::{Job3d, Raster, Tile};
use crate::job::{JobErr, ProgramCache};
use crate::pbe::ENCODED_TILE_B;
use crate::Counters;
use sgx_pool::{self as pool, Pool};

/// How the model runs a job's tiles.
#[derive(Clone, Default)]
pub enum Threads {
    /// One after another on the caller's thread (`SGX_THREADS=1`).
    #[default]
    Serial,
    /// The process's pool ([`pool::global`], one thread per core, shared with the large
    /// twiddle copies), started by the first job with enough tiles to take it, not at device
    /// creation (why: [`pool::global`]).
    Global,
    /// With a pool's workers: the process's (once started) or one of a set size.
    Pool(Arc<Crew>),
}

/// A pool and the tile buffers its jobs go through (kept from job to job: a frame spawns
/// and allocates nothing but the rasterisers, as the serial loop does).
pub struct Crew {
    pool: Arc<Pool>,
    /// Locked by the job running on the pool; another job meanwhile runs serially.
    bufs: Mutex<Bufs>,
    /// Whether the next jobs skip the pool (its workers were late).
    backoff: Backoff,
    /// The process's pool, for `Debug`.
    global: bool,
    /// Test only: worker 1 sleeps this long inside its first tile of every job, as if
    /// preempted there.
    #[cfg(test)]
    stall: Option<std::time::Duration>,
}

struct Bufs {
    ring: Ring<Shaded>,
    /// The caller's buffers for a tile it takes over.
    own: Shaded,
}

impl Crew {
    fn new(pool: Arc<Pool>, global: bool) -> Crew {
        let ring = Ring::new(RING_TILES, Shaded::new);
        Crew {
            pool,
            bufs: Mutex::new(Bufs {
                ring,
                own: Shaded::new(),
            }),
            backoff: Backoff::default(),
            global,
            #[cfg(test)]
            stall: None,
        }
    }

    /// Threads tiles may run on: the workers and the caller.
    fn count(&self) -> usize {
        self.pool.workers() + 1
    }
}

/// Tiles in the ring: enough that a worker goes on shading for a few milliseconds while the
/// caller is preempted (half a 512x512 frame), and a bound on the memory (a tile handed over
/// holds 1 KiB for a 4-byte target without depth, 6 KiB at most: 0.5 to 3.2 MiB a pool). Not
/// hardware: a model tuning value.
const RING_TILES: usize = 512;

/// The process's pool, once started.
static GLOBAL: OnceLock<Option<Arc<Crew>>> = OnceLock::new();

/// The process's pool with its tile buffers (None on one core); started by the first call.
fn global() -> Option<Arc<Crew>> {
    GLOBAL
        .get_or_init(|| pool::global().map(|p| Arc::new(Crew::new(p, true))))
        .clone()
}

impl Threads {
    /// `n` threads: 1 is [`Threads::Serial`], 0 the process's pool (one thread per core,
    /// started by the first job that takes it), else a pool of `n - 1` workers beside the
    /// caller (or serial, with a warning, if the system refuses every thread).
    pub fn with(n: usize) -> Threads {
        match n {
            0 if pool::cores() > 1 => Threads::Global,
            0 => Threads::Serial,
            1 => Threads::Serial,
            _ => {
                let crew = Crew::new(Arc::new(Pool::new(n - 1)), false);
                if crew.pool.workers() == 0 {
                    log::warn!("no worker thread started: rendering tiles serially");
                    Threads::Serial
                } else {
                    Threads::Pool(Arc::new(crew))
                }
            }
        }
    }

    /// Test only: `n` threads of which worker 1 sleeps `d` inside its first tile of every
    /// job (a worker the scheduler preempted mid-tile).
    #[cfg(test)]
    pub(crate) fn stalled(n: usize, d: std::time::Duration) -> Threads {
        assert!(
            n >= 2,
            "a stalled worker needs a pool (invariant of the tests)"
        );
        let mut crew = Crew::new(Arc::new(Pool::new(n - 1)), false);
        crew.stall = Some(d);
        Threads::Pool(Arc::new(crew))
    }

    /// Tiles the caller took over from a late worker in the last job (0 when serial).
    #[cfg(test)]
    pub(crate) fn takeovers(&self) -> usize {
        match self {
            Threads::Serial => 0,
            Threads::Global => match GLOBAL.get() {
                Some(Some(c)) => c.bufs.lock().map_or(0, |b| b.ring.takeovers()),
                _ => 0,
            },
            Threads::Pool(c) => c.bufs.lock().map_or(0, |b| b.ring.takeovers()),
        }
    }

    /// From `SGX_THREADS`: unset or empty is one thread per core (the process's pool); `1`
    /// forces the serial loop (for debugging: results are the same). A bad value is warned
    /// about and taken as unset. The pool is safe where the drm-shim runs the model inside
    /// its ioctl: the shim's wrappers no longer take its device lock for descriptors that
    /// are not the node's (a pool thread's start mmaps its signal stack; the core count
    /// opens and closes cgroup files), which deadlocked before.
    pub fn from_env() -> Threads {
        Threads::with(pool::threads_from_env().unwrap_or(0))
    }

    /// Threads tiles may run on (the process's pool is started to count its workers).
    pub fn count(&self) -> usize {
        match self {
            Threads::Serial => 1,
            Threads::Global => global().map_or(1, |c| c.count()),
            Threads::Pool(c) => c.count(),
        }
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threads::Serial => write!(f, "Serial"),
            Threads::Global => write!(f, "Global(not started)"),
            Threads::Pool(c) if c.global => write!(f, "Global({})", self.count()),
            Threads::Pool(_) => write!(f, "Pool({})", self.count()),
        }
    }
}

/// Adds `d` into `c`, field by field (destructured, so a new counter must be added here).
fn add(c: &mut Counters, d: &Counters) {
    let Counters {
        tiles_rendered,
        tiles_loaded,
        tiles_stored,
        pixels_shaded,
        texels_fetched,
        usse_instructions,
        pbe_bytes_written,
        prims_binned,
        pb_bytes_used,
    } = *d;
    c.tiles_rendered += tiles_rendered;
    c.tiles_loaded += tiles_loaded;
    c.tiles_stored += tiles_stored;
    c.pixels_shaded += pixels_shaded;
    c.texels_fetched += texels_fetched;
    c.usse_instructions += usse_instructions;
    c.pbe_bytes_written += pbe_bytes_written;
    c.prims_binned += prims_binned;
    c.pb_bytes_used += pb_bytes_used;
}

/// Renders every tile; returns the query counts to add to memory.
pub(super) fn render_all(
    job: &Job3d,
    progs: &ProgramCache,
    threads: &Threads,
    c: &mut Counters,
) -> Result<HashMap<u32, u32>, JobErr> {
    let n = job.w_tl as usize * job.h_tl as usize;
    let started;
    let threads = match threads {
        Threads::Global if n >= MIN_PARALLEL_TILES => {
            started = global().map_or(Threads::Serial, Threads::Pool);
            &started
        }
        t => t,
    };
    match threads {
        // The pool did not pay lately: this job runs alone (and is timed for the comparison).
        Threads::Pool(crew) if n >= MIN_PARALLEL_TILES && BACKOFF && crew.backoff.take_alone() => {
            let started = std::time::Instant::now();
            let r = serial(job, progs, c);
            crew.backoff.record_alone(n, started.elapsed());
            r
        }
        Threads::Pool(crew) if n >= MIN_PARALLEL_TILES => match crew.bufs.try_lock() {
            Ok(mut bufs) => parallel(job, progs, crew, &mut bufs, c),
            // Another job (another `Gpu` sharing the process's pool) has it.
            Err(_) => serial(job, progs, c),
        },
        _ => serial(job, progs, c),
    }
}

/// Whether pools back off when they do not pay. The crate's tests turn it off: their scenes
/// must take the pool (the back-off has tests of its own).
const BACKOFF: bool = !cfg!(test);

/// Fewest tiles a job needs to go on the pool: below it, handing tiles over costs more than
/// it saves (measured: a 64x64 mip chain, at most 4 tiles a render, ran slower on two threads).
/// The crate's tests render small scenes, which must take the pool too.
const MIN_PARALLEL_TILES: usize = if cfg!(test) { 2 } else { 16 };

fn serial(
    job: &Job3d,
    progs: &ProgramCache,
    c: &mut Counters,
) -> Result<HashMap<u32, u32>, JobErr> {
    let mut rs = job.raster(progs);
    let mut tile = Tile::boxed();
    let mut bytes = Box::new([0u8; ENCODED_TILE_B]);
    let r = (|| {
        for ty in 0..job.h_tl {
            for tx in 0..job.w_tl {
                if let Some(ctrl) = job.shade(&mut rs, &mut tile, tx, ty)? {
                    job.store(&mut rs.c, &tile, &mut bytes, (tx, ty), ctrl)?;
                }
            }
        }
        Ok(())
    })();
    add(c, &rs.c);
    r.map(|()| rs.queries)
}

/// One shaded tile, kept until the caller stores it in raster order.
struct Shaded {
    /// What its store reads (the shading thread shades into a tile of its own).
    hand: Handover,
    c: Counters,
    queries: HashMap<u32, u32>,
    /// How to store the tile (None: skipped), or why shading failed.
    ctrl: Result<Option<TileCtrl>, JobErr>,
}

impl Shaded {
    fn new() -> Shaded {
        Shaded {
            hand: Handover::new(),
            c: Counters::default(),
            queries: HashMap::new(),
            ctrl: Ok(None),
        }
    }
}

/// The job as the workers see it.
struct Shared<'a, 'b>(&'a Job3d<'b>);

// SAFETY: what `Job3d` holds that is not `Sync` is the `Mmu`'s raw pointers into backings
// (which are `Send + Sync` and outlive the job). While workers hold a `Shared`, the page
// tables are only read (mapping takes `&mut Gpu`); workers only read memory through the
// pointers, and the calling thread's stores (PBE, ZLS) write the bytes of tiles already
// shaded, which no other tile's shading reads (save a feedback loop: see the module comment).
unsafe impl Sync for Shared<'_, '_> {}

impl<'b> Shared<'_, 'b> {
    fn job(&self) -> &Job3d<'b> {
        self.0
    }

    /// Tile `t`'s position in raster order.
    fn xy(&self, t: usize) -> (u32, u32) {
        let w = self.0.w_tl as usize;
        ((t % w) as u32, (t / w) as u32)
    }

    /// Shades tile `t` with `rs` into `tile` (the thread's own), then hands it over in `s`
    /// with the counters and query counts it made.
    fn shade(&self, rs: &mut Raster, tile: &mut Tile, t: usize, s: &mut Shaded) {
        let (tx, ty) = self.xy(t);
        s.ctrl = self.0.shade(rs, tile, tx, ty);
        if let Ok(Some(ctrl)) = s.ctrl {
            let job = self.0;
            let colour = ctrl
                .colour_store
                .then(|| Stored::of(&job.colour(tile, s.hand.bytes_mut())));
            s.hand.fill(tile, colour, ctrl.depth_store && job.has_zls());
        }
        s.c = std::mem::take(&mut rs.c);
        // Swapped, not taken: both maps keep their room from tile to tile.
        s.queries.clear();
        std::mem::swap(&mut s.queries, &mut rs.queries);
    }

    /// Adds shaded tile `t` to the job in raster order: its counters, its query counts, its
    /// store; the tile's error, or its store's, ends the job.
    fn merge(
        &self,
        t: usize,
        s: &mut Shaded,
        c: &mut Counters,
        queries: &mut HashMap<u32, u32>,
    ) -> Result<(), JobErr> {
        add(c, &s.c);
        // The tile's store as `ctrl` said is in `s.hand`.
        match std::mem::replace(&mut s.ctrl, Ok(None)) {
            Err(e) => return Err(e),
            Ok(None) => return Ok(()),
            Ok(Some(_)) => {}
        }
        for (&addr, &k) in &s.queries {
            let q = queries.entry(addr).or_insert(0);
            *q = q.wrapping_add(k);
        }
        let (tx, ty) = self.xy(t);
        let (colour, depth) = s.hand.parts();
        self.0.store_parts(c, colour, depth, tx, ty)
    }
}

/// Spins a worker does, when the ring is full, before it sleeps (a model tuning value).
const SPINS_BEFORE_NAP: u32 = 64;

/// A worker's sleep when the ring stays full: the caller is behind with its stores (or was
/// preempted). It sleeps rather than yields: under group scheduling (autogroup, cgroups)
/// the process's threads share one weight, so a worker spinning on `sched_yield` takes the
/// core from the very caller it waits for. A full ring is over 100 tiles of the caller's
/// work, so the nap (plus timer slack) costs the frame nothing. A model tuning value.
const RING_FULL_NAP: std::time::Duration = std::time::Duration::from_micros(50);

fn parallel(
    job: &Job3d,
    progs: &ProgramCache,
    crew: &Crew,
    bufs: &mut Bufs,
    c: &mut Counters,
) -> Result<HashMap<u32, u32>, JobErr> {
    let n = job.w_tl as usize * job.h_tl as usize;
    bufs.ring.reset(n);
    let (ring, own) = (&bufs.ring, &mut bufs.own);
    let shared = Shared(job);
    let raster = || shared.job().raster(progs);
    #[cfg(test)]
    let stall = crew.stall;
    let helper = |_who: usize| {
        // Made on the first tile claimed: a worker that comes too late allocates nothing.
        let mut rs = None;
        let mut tile = None;
        let mut idle = 0u32;
        #[cfg(test)]
        let mut first = true;
        loop {
            match ring.claim() {
                Some(mut f) => {
                    idle = 0;
                    #[cfg(test)]
                    if let (Some(d), 1, true) = (stall, _who, std::mem::take(&mut first)) {
                        std::thread::sleep(d);
                    }
                    let rs = rs.get_or_insert_with(raster);
                    let tile = tile.get_or_insert_with(Tile::boxed);
                    shared.shade(rs, tile, f.index(), f.data());
                    f.finish();
                }
                None if ring.exhausted() => break,
                // The ring is full: the caller is behind with its stores.
                None if idle < SPINS_BEFORE_NAP => {
                    idle += 1;
                    std::hint::spin_loop();
                }
                None => std::thread::sleep(RING_FULL_NAP),
            }
        }
    };
    let started = std::time::Instant::now();
    let (r, waited) = crew.pool.run_timed(&helper, || {
        let mut rs = raster();
        let mut tile = Tile::boxed();
        let mut queries = HashMap::new();
        let mut head = ring.consumer();
        let r = (|| {
            while !head.done() {
                if let Some(mut ready) = head.ready() {
                    let t = ready.index();
                    let r = shared.merge(t, ready.data(), c, &mut queries);
                    ready.release();
                    r?;
                } else if let Some(mut f) = ring.claim() {
                    shared.shade(&mut rs, &mut tile, f.index(), f.data());
                    f.finish();
                } else if let Some(t) = head.take_over() {
                    shared.shade(&mut rs, &mut tile, t, own);
                    shared.merge(t, own, c, &mut queries)?;
                }
                // Else the next tile became ready or was claimed just now: look again.
            }
            Ok(())
        })();
        if r.is_err() {
            ring.stop();
        }
        r.map(|()| queries)
    });
    crew.backoff.record(n, started.elapsed(), waited);
    let late = ring.takeovers();
    if late > 0 {
        log::debug!("{late} of {n} tiles taken over from late workers, then waited {waited:?}");
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_and_the_serial_knob() {
        assert!(matches!(Threads::with(1), Threads::Serial));
        assert_eq!(Threads::with(1).count(), 1);
        assert!(matches!(Threads::with(3), Threads::Pool(_)));
        assert_eq!(Threads::with(3).count(), 3);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(Threads::with(0).count(), cores);
        // The process's pool is made once and shared.
        let (Some(a), Some(b)) = (global(), global()) else {
            assert_eq!(cores, 1, "no process pool on {cores} cores");
            return;
        };
        assert!(Arc::ptr_eq(&a, &b));
        assert!(a.global);
        assert!(matches!(Threads::with(0), Threads::Global));
        let mut g = crate::Gpu::new();
        g.set_threads(1);
        assert_eq!(g.threads(), 1);
        g.set_threads(4);
        assert_eq!(g.threads(), 4);
    }

    #[test]
    fn sums_cover_every_counter() {
        let d = Counters {
            tiles_rendered: 1,
            tiles_loaded: 2,
            tiles_stored: 3,
            pixels_shaded: 4,
            texels_fetched: 5,
            usse_instructions: 6,
            pbe_bytes_written: 7,
            prims_binned: 8,
            pb_bytes_used: 9,
        };
        let mut c = d;
        add(&mut c, &d);
        assert_eq!(
            c,
            Counters {
                tiles_rendered: 2,
                tiles_loaded: 4,
                tiles_stored: 6,
                pixels_shaded: 8,
                texels_fetched: 10,
                usse_instructions: 12,
                pbe_bytes_written: 14,
                prims_binned: 16,
                pb_bytes_used: 18,
            }
        );
    }
}
