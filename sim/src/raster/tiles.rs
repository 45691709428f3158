//! The 3D phase's tile loop, on this thread or on a thread pool.
//!
//! The 3D core renders independent tiles, and so may the model: shading a tile (background or
//! load, then its primitives) only reads memory, into the tile's own buffers. So workers shade
//! a batch of tiles in any order, each with its own rasteriser (USSE machine, draw and program
//! caches), and the calling thread then stores the batch through the PBE and ZLS in raster
//! order. What order could change is merged in raster order too: each tile's counters and
//! query counts are kept apart and summed tile by tile, and the first failing tile (in shading
//! or in its store) gives the job's error and ends the sums and the stores, as the serial loop
//! would. So the result is the serial one byte for byte, counters included, faults too.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use rayon::prelude::*;

use sgx_hwdocs::render::TileCtrl;

use super::{Job3d, Tile};
use crate::job::{JobErr, ProgramCache};
use crate::Counters;

/// How the model runs a job's tiles.
#[derive(Clone, Default)]
pub enum Threads {
    /// One after another on the caller's thread (`SGX_THREADS=1`).
    #[default]
    Serial,
    /// On rayon's global pool (one thread per core; the default: see [`Threads::from_env`]).
    Global,
    /// On a pool of its own (a set thread count).
    Pool(Arc<rayon::ThreadPool>),
}

impl Threads {
    /// `n` threads: 1 is [`Threads::Serial`], 0 the global pool (one per core), else a pool
    /// of `n` (or serial, with a warning, if the system refuses the threads).
    pub fn with(n: usize) -> Threads {
        match n {
            0 => Threads::Global,
            1 => Threads::Serial,
            _ => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
                Ok(p) => Threads::Pool(Arc::new(p)),
                Err(e) => {
                    log::warn!("no pool of {n} threads ({e}): rendering tiles serially");
                    Threads::Serial
                }
            },
        }
    }

    /// From `SGX_THREADS`: unset or empty is one thread per core ([`Threads::Global`]); `1`
    /// forces the serial loop (for debugging: results are the same). A bad value is warned
    /// about and taken as unset. The pool is safe where the drm-shim runs the model inside
    /// its ioctl: the shim's wrappers no longer take its device lock for descriptors that
    /// are not the node's (a pool thread's start mmaps its signal stack; the core count
    /// opens and closes cgroup files), which deadlocked before.
    pub fn from_env() -> Threads {
        match std::env::var("SGX_THREADS") {
            Err(_) => Threads::Global,
            Ok(v) if v.trim().is_empty() => Threads::Global,
            Ok(v) => match v.trim().parse::<usize>() {
                Ok(n) => Threads::with(n),
                Err(_) => {
                    log::warn!("SGX_THREADS={v:?} is not a thread count: one per core");
                    Threads::Global
                }
            },
        }
    }

    /// Threads tiles may run on.
    pub fn count(&self) -> usize {
        match self {
            Threads::Serial => 1,
            Threads::Global => rayon::current_num_threads(),
            Threads::Pool(p) => p.current_num_threads(),
        }
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Threads::Serial => write!(f, "Serial"),
            Threads::Global => write!(f, "Global({})", self.count()),
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
    if n < MIN_PARALLEL_TILES || threads.count() < 2 {
        return serial(job, progs, c);
    }
    let shared = Shared(job);
    let mut queries: HashMap<u32, u32> = HashMap::new();
    // Batches bound the shaded tiles held before their stores (a tile's buffers are 5 KiB).
    let batch = BATCH_PER_THREAD * threads.count();
    let chunks = CHUNKS_PER_THREAD * threads.count();
    for start in (0..n).step_by(batch) {
        let tiles = start..(start + batch).min(n);
        let done = match threads {
            Threads::Pool(p) => p.install(|| shade_batch(&shared, progs, tiles, chunks)),
            _ => shade_batch(&shared, progs, tiles, chunks),
        };
        for d in done {
            add(c, &d.c);
            let (tile, ctrl) = match d.shaded {
                Err(e) => return Err(e),
                Ok(None) => continue,
                Ok(Some(s)) => s,
            };
            for (addr, k) in d.queries {
                let q = queries.entry(addr).or_insert(0);
                *q = q.wrapping_add(k);
            }
            job.store(c, &tile, d.tx, d.ty, ctrl)?;
        }
    }
    Ok(queries)
}

/// Tiles shaded per worker thread before the calling thread stores them.
const BATCH_PER_THREAD: usize = 256;

/// Fewest tiles a job needs to go on the pool: below it, handing tiles over costs more than
/// it saves (measured: a 64x64 mip chain, at most 4 tiles a render, ran slower on two threads).
/// The crate's tests render small scenes, which must take the pool too.
const MIN_PARALLEL_TILES: usize = if cfg!(test) { 2 } else { 16 };

/// Chunks of a batch per worker thread.
const CHUNKS_PER_THREAD: usize = 4;

fn serial(
    job: &Job3d,
    progs: &ProgramCache,
    c: &mut Counters,
) -> Result<HashMap<u32, u32>, JobErr> {
    let mut rs = job.raster(progs);
    let mut tile = Tile::boxed();
    let r = (|| {
        for ty in 0..job.h_tl {
            for tx in 0..job.w_tl {
                if let Some(ctrl) = job.shade(&mut rs, &mut tile, tx, ty)? {
                    job.store(&mut rs.c, &tile, tx, ty, ctrl)?;
                }
            }
        }
        Ok(())
    })();
    add(c, &rs.c);
    r.map(|()| rs.queries)
}

/// One tile's outcome, merged in raster order.
struct Done {
    tx: u32,
    ty: u32,
    c: Counters,
    queries: HashMap<u32, u32>,
    /// The shaded tile and how to store it; None for a skipped tile.
    shaded: Result<Option<(Box<Tile>, TileCtrl)>, JobErr>,
}

/// The job as the workers see it.
struct Shared<'a, 'b>(&'a Job3d<'b>);

// SAFETY: what `Job3d` holds that is not `Sync` is the `Mmu`'s raw pointers into backings
// (which are `Send + Sync` and outlive the job). While workers hold a `Shared`, the page
// tables are only read (mapping takes `&mut Gpu`) and nothing writes through the pointers:
// shading only reads memory; stores and query writes happen on the calling thread after the
// batch's workers have joined.
unsafe impl Sync for Shared<'_, '_> {}

impl<'b> Shared<'_, 'b> {
    fn job(&self) -> &Job3d<'b> {
        self.0
    }
}

fn shade_batch(
    shared: &Shared,
    progs: &ProgramCache,
    tiles: Range<usize>,
    chunks: usize,
) -> Vec<Done> {
    let w = shared.job().w_tl as usize;
    let len = tiles.len().div_ceil(chunks);
    // Contiguous chunks, each with one rasteriser (which loads its draw states once), several
    // per thread so that work stealing evens out tiles of unequal cost; `collect` keeps the
    // chunks, and so the tiles, in raster order.
    let per_chunk: Vec<Vec<Done>> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let job = shared.job();
            let mut rs = job.raster(progs);
            let from = (tiles.start + k * len).min(tiles.end);
            let to = (from + len).min(tiles.end);
            (from..to)
                .map(|t| {
                    let (tx, ty) = ((t % w) as u32, (t / w) as u32);
                    let mut tile = Tile::boxed();
                    let shaded = job
                        .shade(&mut rs, &mut tile, tx, ty)
                        .map(|ctrl| ctrl.map(|ctrl| (tile, ctrl)));
                    Done {
                        tx,
                        ty,
                        c: std::mem::take(&mut rs.c),
                        queries: std::mem::take(&mut rs.queries),
                        shaded,
                    }
                })
                .collect()
        })
        .collect();
    per_chunk.into_iter().flatten().collect()
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
        assert!(matches!(Threads::with(0), Threads::Global));
        assert_eq!(Threads::with(0).count(), rayon::current_num_threads());
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
