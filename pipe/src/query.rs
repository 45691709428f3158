//! Queries: occlusion counters and predicates (counted by the ISP into a query buffer),
//! timestamps and elapsed time from the model clock, GPU_FINISHED.
//!
//! A query latches at begin (its result starts over) and is read once after end: the sum of
//! its slots, cached. Each batch that draws while an occlusion query is active gets its own
//! slot in the query's buffer, so a query spanning several renders sums them.

use std::sync::{Arc, Mutex, MutexGuard};

use sgx_winsys::{Bo, Fence};

/// Query kinds (Gallium's `PIPE_QUERY_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryType {
    /// Samples passing depth and stencil.
    OcclusionCounter,
    /// Whether any sample passed.
    OcclusionPredicate,
    /// GPU time at the end, in nanoseconds.
    Timestamp,
    /// GPU time between begin and end, in nanoseconds.
    TimeElapsed,
    /// Whether the GPU finished the work before end.
    GpuFinished,
}

impl QueryType {
    /// Counted by the ISP.
    pub fn is_occlusion(self) -> bool {
        matches!(
            self,
            QueryType::OcclusionCounter | QueryType::OcclusionPredicate
        )
    }
}

/// Slots per query buffer: one u32 per batch that counted.
pub(crate) const QUERY_SLOTS: u32 = 1024;

#[derive(Debug, Default)]
pub(crate) struct QueryState {
    /// Counting buffer (occlusion), allocated at first begin.
    pub bo: Option<Bo>,
    /// Slots handed out since begin.
    pub slots_used: u32,
    /// Per slot handed out, how many renders counted into it: a render replayed for more than
    /// one colour buffer counts the same samples once per replay (flush.rs).
    pub slot_renders: Vec<u32>,
    /// Between begin and end.
    pub active: bool,
    /// Ended at least once since the last begin.
    pub ended: bool,
    /// Fence of the work up to begin (time queries).
    pub begin_fence: Option<Fence>,
    /// Model clock at begin when no work was pending then.
    pub begin_cycles: u64,
    /// Fence of the work up to end.
    pub end_fence: Option<Fence>,
    /// The result, once read.
    pub result: Option<u64>,
}

/// A query object.
#[derive(Debug)]
pub struct Query {
    kind: QueryType,
    pub(crate) state: Mutex<QueryState>,
}

impl Query {
    pub(crate) fn new(kind: QueryType) -> Arc<Query> {
        Arc::new(Query {
            kind,
            state: Mutex::new(QueryState::default()),
        })
    }

    /// Its kind.
    pub fn kind(&self) -> QueryType {
        self.kind
    }

    pub(crate) fn st(&self) -> MutexGuard<'_, QueryState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(crate) fn cycles_to_ns(c: u64) -> u64 {
    // The model clock counts core cycles (hwdocs limits.CORE_CLOCK_HZ).
    (u128::from(c) * 1_000_000_000 / u128::from(sgx_hwdocs::limits::CORE_CLOCK_HZ)) as u64
}
