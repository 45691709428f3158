//! sgx535 sim: the SGX535 device model.
//!
//! It executes the jobs a kernel would hand the GPU, programmed as `hwdocs` describes: an MMU
//! of 4 KiB pages, the TA (control stream, vertex fetch, vertex program, clip, viewport, cull,
//! binning into parameter memory), the 3D phase (ISP rasterisation with the top-left rule,
//! depth/stencil, TSP texturing, pixel program, blend, PBE store, ZLS), the 2D core, events,
//! counters and fault injection. It decodes with hwdocs' unpackers and its own address
//! arithmetic only (never `layout` or `compiler`), so it cross-checks them.
#![allow(non_snake_case)]
// byte counts end in _B (CONTRIBUTING.md)

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

use std::sync::Arc;

use sgx_hwdocs::limits::CORE_CLOCK_HZ;

mod bench;
mod clock;
mod coverage;
mod depth;
mod host_mem;
mod job;
mod line;
mod mmu;
mod num;
mod pbe;
mod raster;
mod regs;
mod render;
mod ta;
mod tsp;
mod twod;
pub mod usse;
mod zls;

#[cfg(test)]
mod depth_tests;
#[cfg(test)]
mod fastpaths;
mod kit;
#[cfg(test)]
mod tests;

pub use bench::{bench_sim, format_bench, pattern as bench_pattern, BenchRow};
pub use host_mem::HostMem;

/// Memory shared with the winsys: a BO's storage, mapped into the GPU address space.
///
/// # Safety
///
/// The model reads and writes the storage through the raw pointer, from whichever thread
/// runs the job, while other holders (the winsys' CPU maps) may touch it too. An
/// implementation promises:
/// - `as_ptr()` is non-null and valid for reads and writes of `len_B()` bytes for as long as
///   the Backing is alive; both values are the same on every call (the storage is never
///   moved, resized or freed while the Backing lives);
/// - the implementation itself holds no Rust reference (`&[u8]`, `&mut [u8]`) to the storage
///   that claims it unchanging or exclusive while the model may write it: the storage is raw
///   memory (an mmap) or sits in an `UnsafeCell`;
/// - `Send + Sync` are honest: the storage may be reached from any thread.
///
/// Ordering between the model's accesses and the CPU's is not the Backing's concern: the
/// winsys orders them with fences and reservations.
pub unsafe trait Backing: Send + Sync {
    /// Start of the storage; valid for len_B() bytes for the Backing's lifetime.
    fn as_ptr(&self) -> *mut u8;
    /// Storage length in bytes.
    fn len_B(&self) -> usize;
}

/// Page permission of a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Perm {
    /// Units may read.
    pub read: bool,
    /// Units may write.
    pub write: bool,
}

impl Perm {
    /// Read and write.
    pub const RW: Perm = Perm {
        read: true,
        write: true,
    };
    /// Read only.
    pub const RO: Perm = Perm {
        read: true,
        write: false,
    };
}

/// Errors of the host-side API (mapping); job errors are [`JobStatus`] values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The GPU address is not page aligned.
    #[error("GPU address {va:#x} is not 4 KiB aligned")]
    Unaligned {
        /// The address.
        va: u32,
    },
    /// The backing has no bytes.
    #[error("empty backing mapped at {va:#x}")]
    EmptyBacking {
        /// The address.
        va: u32,
    },
    /// The mapping would run past the 32-bit address space.
    #[error("mapping of {len_B} bytes at {va:#x} runs past 4 GiB")]
    OutOfRange {
        /// The address.
        va: u32,
        /// Backing length.
        len_B: u64,
    },
    /// The range overlaps an existing mapping.
    #[error("mapping at {va:#x} overlaps the page at {at:#x}, already mapped")]
    Overlap {
        /// The address.
        va: u32,
        /// First overlapping page.
        at: u32,
    },
    /// No mapping starts at that address.
    #[error("no mapping starts at {va:#x}")]
    NotMapped {
        /// The address.
        va: u32,
    },
}

/// A requester of memory accesses, in BIF_INT_STAT bit order (bit 1 + index). Fixtures and
/// traces spell it in lower case (`twod`, `usse_pds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Cache.
    Cache,
    /// Tile accelerator.
    Ta,
    /// Vertex data master (control stream).
    Vdm,
    /// 2D core.
    #[serde(rename = "twod")]
    TwoD,
    /// Pixel backend.
    Pbe,
    /// Texture and shading processor.
    Tsp,
    /// Image synthesis processor.
    Isp,
    /// USSE / PDS (program fetch).
    UssePds,
    /// Host.
    Host,
}

impl Unit {
    /// Every unit, in BIF_INT_STAT order.
    pub const ALL: [Unit; 9] = [
        Unit::Cache,
        Unit::Ta,
        Unit::Vdm,
        Unit::TwoD,
        Unit::Pbe,
        Unit::Tsp,
        Unit::Isp,
        Unit::UssePds,
        Unit::Host,
    ];

    /// Position in BIF_INT_STAT order (0 = cache); the uapi's `unit` field.
    pub fn index(self) -> u32 {
        Unit::ALL.iter().position(|&u| u == self).unwrap_or(0) as u32
    }

    /// The unit at `index` in BIF_INT_STAT order.
    pub fn from_index(index: u32) -> Option<Unit> {
        Unit::ALL.get(index as usize).copied()
    }

    /// Lower-case name, as fixtures and traces spell it.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Cache => "cache",
            Unit::Ta => "ta",
            Unit::Vdm => "vdm",
            Unit::TwoD => "twod",
            Unit::Pbe => "pbe",
            Unit::Tsp => "tsp",
            Unit::Isp => "isp",
            Unit::UssePds => "usse_pds",
            Unit::Host => "host",
        }
    }

    /// The unit named `name` (see [`Unit::name`]).
    pub fn from_name(name: &str) -> Option<Unit> {
        Unit::ALL.iter().copied().find(|u| u.name() == name)
    }

    /// The BIF_INT_STAT requester bit of this unit (hwdocs regs::BifIntStat).
    pub fn bif_bit(self) -> u32 {
        use sgx_hwdocs::regs::BifIntStat as B;
        match self {
            Unit::Cache => B::FAULT_CACHE_MASK,
            Unit::Ta => B::FAULT_TA_MASK,
            Unit::Vdm => B::FAULT_VDM_MASK,
            Unit::TwoD => B::FAULT_TWOD_MASK,
            Unit::Pbe => B::FAULT_PBE_MASK,
            Unit::Tsp => B::FAULT_TSP_MASK,
            Unit::Isp => B::FAULT_ISP_MASK,
            Unit::UssePds => B::FAULT_USSE_PDS_MASK,
            Unit::Host => B::FAULT_HOST_MASK,
        }
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An MMU fault: which unit, which address, read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The requester.
    pub unit: Unit,
    /// The faulting GPU address.
    pub addr: u32,
    /// A write (else a read).
    pub write: bool,
}

/// One job for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobDesc {
    /// Register writes (offset, value) for the TA phase (ends with VDM_START) and the 3D phase
    /// (ends with ISP_START_RENDER).
    Render {
        /// TA phase register writes.
        ta_regs: Vec<(u32, u32)>,
        /// 3D phase register writes.
        td_regs: Vec<(u32, u32)>,
    },
    /// 2D core: register writes ending with TWOD_START.
    TwoD {
        /// Register writes.
        regs: Vec<(u32, u32)>,
    },
}

/// How a job ended.
#[derive(Clone, Debug, PartialEq)]
pub enum JobStatus {
    /// Completed.
    Done,
    /// MMU fault: unit, address, write.
    Fault(Fault),
    /// Parameter memory exhausted (DPM OOM event raised).
    OutOfMemory,
    /// A USSE program was illegal or ran away.
    IllegalInstruction {
        /// The unit that ran it.
        unit: Unit,
        /// Instruction index.
        pc: u32,
        /// Why.
        reason: String,
    },
    /// Undecodable state word, reserved bits, bad register, unsupported configuration.
    BadState {
        /// The unit that refused it.
        unit: Unit,
        /// Why.
        reason: String,
    },
    /// Injected hang: the job never completes.
    Hang,
    /// Injected generic failure.
    Failed(String),
}

/// Per-job counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Tiles the 3D phase processed.
    pub tiles_rendered: u64,
    /// Tiles whose colour was loaded from the target.
    pub tiles_loaded: u64,
    /// Tiles stored through the PBE.
    pub tiles_stored: u64,
    /// Pixel-program invocations on covered pixels.
    pub pixels_shaded: u64,
    /// Texels read by the TSP (filter taps: a CLAMP_TO_BORDER tap outside the level counts
    /// as one, though it reads the border colour and no memory).
    pub texels_fetched: u64,
    /// USSE instructions executed (per instance).
    pub usse_instructions: u64,
    /// Bytes the PBE wrote.
    pub pbe_bytes_written: u64,
    /// Primitives binned into at least one tile.
    pub prims_binned: u64,
    /// Parameter memory the TA used.
    pub pb_bytes_used: u64,
}

impl Counters {
    /// The counters as an array in the uapi's `drm_sgx535_counter` order.
    pub fn to_array(&self) -> [u64; 9] {
        [
            self.tiles_rendered,
            self.tiles_loaded,
            self.tiles_stored,
            self.pixels_shaded,
            self.texels_fetched,
            self.usse_instructions,
            self.pbe_bytes_written,
            self.prims_binned,
            self.pb_bytes_used,
        ]
    }

    /// Counters from an array in the uapi's `drm_sgx535_counter` order.
    pub fn from_array(a: [u64; 9]) -> Counters {
        Counters {
            tiles_rendered: a[0],
            tiles_loaded: a[1],
            tiles_stored: a[2],
            pixels_shaded: a[3],
            texels_fetched: a[4],
            usse_instructions: a[5],
            pbe_bytes_written: a[6],
            prims_binned: a[7],
            pb_bytes_used: a[8],
        }
    }
}

/// The outcome of one job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    /// How it ended.
    pub status: JobStatus,
    /// EVENT_STATUS bits raised (hwdocs regs::EventStatus layout).
    pub events: u32,
    /// EVENT_STATUS2 bits.
    pub events2: u32,
    /// BIF_INT_STAT as the fault set it (0 if none).
    pub bif_int_stat: u32,
    /// BIF_FAULT address.
    pub bif_fault: u32,
    /// Counters.
    pub counters: Counters,
    /// Model clock when the job started.
    pub start_cycles: u64,
    /// Model clock when it ended.
    pub end_cycles: u64,
}

/// Fault injection for tests and host fixtures; `job` counts jobs run from the injection on
/// (0 = the next).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Injection {
    /// The job faults at `addr` in `unit` (a read) without touching memory.
    Fault {
        /// Which job.
        job: u64,
        /// Faulting unit.
        unit: Unit,
        /// Faulting address.
        addr: u32,
    },
    /// The job never completes.
    Hang {
        /// Which job.
        job: u64,
    },
    /// The job fails with `reason`.
    Fail {
        /// Which job.
        job: u64,
        /// The message.
        reason: String,
    },
    /// The job's TA runs out of parameter memory before binning anything (the DPM
    /// out-of-memory event, nothing rendered), as if DPM_PB_SIZE were too small.
    OutOfMemory {
        /// Which job.
        job: u64,
    },
}

/// The event bits the model raises, named from hwdocs' register fields (one home for the bits).
pub mod event {
    use sgx_hwdocs::regs::{BifIntStat, EventStatus, EventStatus2};

    /// EVENT_STATUS: TA finished.
    pub const TA_FINISHED: u32 = EventStatus::TA_FINISHED_MASK;
    /// EVENT_STATUS: PIXELBE end of render.
    pub const PIXELBE_END_RENDER: u32 = EventStatus::PIXELBE_END_RENDER_MASK;
    /// EVENT_STATUS: DPM 3D memory free.
    pub const DPM_3D_MEM_FREE: u32 = EventStatus::DPM_3D_MEM_FREE_MASK;
    /// EVENT_STATUS: DPM out of memory, global.
    pub const DPM_OOM_GLOBAL: u32 = EventStatus::DPM_OOM_GLOBAL_MASK;
    /// EVENT_STATUS: 2D complete.
    pub const TWOD_COMPLETE: u32 = EventStatus::TWOD_COMPLETE_MASK;
    /// EVENT_STATUS2: BIF requester fault.
    pub const BIF_REQUESTER_FAULT2: u32 = EventStatus2::BIF_REQUESTER_FAULT_MASK;
    /// BIF_INT_STAT: page fault, not read/write.
    pub const BIF_PAGE_FAULT: u32 = BifIntStat::PAGE_FAULT_NOT_RW_MASK;
}

/// The device model: an address space, a model clock, pending injections.
pub struct Gpu {
    mmu: mmu::Mmu,
    clock_cycles: u64,
    jobs_run: u64,
    injections: Vec<(u64, Injection)>,
    /// Fast paths on (the default) or only the reference paths.
    fast: bool,
    /// The TA bins aliased lines as the reference's runs (`set_line_runs`).
    line_runs: bool,
    /// Where the 3D phase runs its tiles.
    threads: raster::Threads,
}

impl Default for Gpu {
    fn default() -> Self {
        Gpu::new()
    }
}

/// What a job phase reports besides counters: status and events.
pub(crate) struct Outcome {
    pub status: JobStatus,
    pub events: u32,
}

impl Gpu {
    /// An empty address space at clock 0.
    pub fn new() -> Gpu {
        Gpu {
            mmu: mmu::Mmu::new(),
            clock_cycles: 0,
            jobs_run: 0,
            injections: Vec::new(),
            fast: true,
            line_runs: false,
            threads: raster::Threads::from_env(),
        }
    }

    /// Maps `backing` at GPU virtual address `va` (page aligned; backing len rounded up to
    /// pages; mapped bytes past the backing's end read 0 and drop writes).
    pub fn map(&mut self, va: u32, backing: Arc<dyn Backing>, perm: Perm) -> Result<(), SimError> {
        self.mmu.map(va, backing, perm)
    }

    /// Removes the mapping that starts at `va`.
    pub fn unmap(&mut self, va: u32) -> Result<(), SimError> {
        self.mmu.unmap(va)
    }

    /// Fault injection: applies to the N-th job run from now (0 = next).
    pub fn inject(&mut self, inj: Injection) {
        let n = match &inj {
            Injection::Fault { job, .. }
            | Injection::Hang { job }
            | Injection::Fail { job, .. }
            | Injection::OutOfMemory { job } => *job,
        };
        self.injections.push((self.jobs_run.saturating_add(n), inj));
    }

    /// With `on`, later jobs run only the slow, obvious reference paths of the model instead
    /// of its fast paths (per-quad texturing, straight-line shading, incremental edges, span
    /// stores). Results are byte-identical either way; this exists to cross-check them.
    pub fn set_reference_paths(&mut self, on: bool) {
        self.fast = !on;
    }

    /// With `on`, the TA of later jobs bins an aliased line as two triangles per run of its
    /// pixels (the reference, whose parameter memory grows with the line's length) instead
    /// of one LINE record. The pixels are byte-identical either way; prims_binned,
    /// pb_bytes_used and the clock differ.
    #[cfg(test)]
    pub(crate) fn set_line_runs(&mut self, on: bool) {
        self.line_runs = on;
    }

    /// Renders later jobs' tiles on `n` threads: 1 on the caller's thread, 0 one per core (the
    /// default, unless `SGX_THREADS` says otherwise). Results, counters included, are
    /// byte-identical whatever the count.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = raster::Threads::with(n);
    }

    /// Threads the 3D phase renders tiles on.
    pub fn threads(&self) -> usize {
        self.threads.count()
    }

    /// Model clock, in core cycles since creation.
    pub fn clock_cycles(&self) -> u64 {
        self.clock_cycles
    }

    /// The model clock's rate (hwdocs CORE_CLOCK_HZ).
    pub fn clock_hz(&self) -> u64 {
        CORE_CLOCK_HZ
    }

    /// Runs one job to completion on the caller's thread.
    pub fn run(&mut self, job: &JobDesc) -> JobResult {
        let index = self.jobs_run;
        self.jobs_run += 1;
        let start_cycles = self.clock_cycles;
        let mut counters = Counters::default();
        let injected = self
            .injections
            .iter()
            .position(|(n, _)| *n == index)
            .map(|i| self.injections.remove(i).1);
        let outcome = match injected {
            Some(Injection::Fault { unit, addr, .. }) => Outcome {
                status: JobStatus::Fault(Fault {
                    unit,
                    addr,
                    write: false,
                }),
                events: 0,
            },
            Some(Injection::Hang { .. }) => Outcome {
                status: JobStatus::Hang,
                events: 0,
            },
            Some(Injection::Fail { reason, .. }) => Outcome {
                status: JobStatus::Failed(reason),
                events: 0,
            },
            Some(Injection::OutOfMemory { .. }) => Outcome {
                status: JobStatus::OutOfMemory,
                events: event::DPM_OOM_GLOBAL,
            },
            None => match job {
                JobDesc::Render { ta_regs, td_regs } => render::run(
                    &self.mmu,
                    ta_regs,
                    td_regs,
                    ta::Paths {
                        fast: self.fast,
                        line_runs: self.line_runs,
                    },
                    &self.threads,
                    &mut counters,
                ),
                JobDesc::TwoD { regs } => twod::run(&self.mmu, regs, &mut counters),
            },
        };
        let (bif_int_stat, bif_fault, events2) = match &outcome.status {
            JobStatus::Fault(f) => (
                f.unit.bif_bit() | event::BIF_PAGE_FAULT,
                f.addr,
                event::BIF_REQUESTER_FAULT2,
            ),
            _ => (0, 0, 0),
        };
        let cycles = clock::job_cycles(job, &counters);
        self.clock_cycles += cycles;
        log::debug!(
            "job {index}: {:?} in {cycles} cycles, {counters:?}",
            outcome.status
        );
        JobResult {
            status: outcome.status,
            events: outcome.events,
            events2,
            bif_int_stat,
            bif_fault,
            counters,
            start_cycles,
            end_cycles: self.clock_cycles,
        }
    }
}
