//! Query entry points of the context.

use std::sync::Arc;

use sgx_winsys::{Access, BoDesc};

use crate::context::Context;
use crate::error::{invalid, PipeError, Result};
use crate::query::{cycles_to_ns, Query, QueryType, QUERY_SLOTS};

impl Context {
    /// `create_query`.
    pub fn create_query(&mut self, kind: QueryType) -> Arc<Query> {
        Query::new(kind)
    }

    /// `begin_query`: the result starts over (queries latch at begin).
    pub fn begin_query(&mut self, q: &Arc<Query>) -> Result<()> {
        if q.st().active {
            return invalid("query is already active");
        }
        match q.kind() {
            QueryType::OcclusionCounter | QueryType::OcclusionPredicate => {
                if self.active_queries.iter().any(|a| a.kind().is_occlusion()) {
                    return Err(PipeError::Unsupported(
                        "two occlusion queries active at once".into(),
                    ));
                }
                // A fresh zeroed buffer: the GPU adds into its slots.
                let bo = self
                    .dev()
                    .create_bo(&BoDesc::new(u64::from(QUERY_SLOTS) * 4))?;
                let mut st = q.st();
                st.bo = Some(bo);
                st.slots_used = 0;
                st.slot_renders.clear();
            }
            QueryType::TimeElapsed => {
                let f = self.flush()?;
                let at = self.device_clock_cycles();
                let mut st = q.st();
                st.begin_fence = f.filter(|f| f.is_pending());
                st.begin_cycles = at;
            }
            QueryType::Timestamp => return invalid("TIMESTAMP queries have no begin"),
            QueryType::GpuFinished => return invalid("GPU_FINISHED queries have no begin"),
        }
        let mut st = q.st();
        st.active = true;
        st.ended = false;
        st.result = None;
        st.end_fence = None;
        drop(st);
        self.active_queries.push(q.clone());
        Ok(())
    }

    /// `end_query`.
    pub fn end_query(&mut self, q: &Arc<Query>) -> Result<()> {
        let was_active = q.st().active;
        match q.kind() {
            QueryType::Timestamp | QueryType::GpuFinished => {
                let f = self.flush()?;
                let mut st = q.st();
                st.end_fence = f;
                st.result = None;
            }
            QueryType::TimeElapsed => {
                if !was_active {
                    return invalid("query was not begun");
                }
                let f = self.flush()?;
                q.st().end_fence = f;
            }
            _ => {
                if !was_active {
                    return invalid("query was not begun");
                }
            }
        }
        self.active_queries.retain(|a| !Arc::ptr_eq(a, q));
        let mut st = q.st();
        st.active = false;
        st.ended = true;
        Ok(())
    }

    /// `get_query_result`: `None` when `wait` is false and the GPU has not finished. Read once:
    /// later calls return the cached value.
    pub fn get_query_result(&mut self, q: &Arc<Query>, wait: bool) -> Result<Option<u64>> {
        if let Some(r) = q.st().result {
            return Ok(Some(r));
        }
        if !q.st().ended {
            return invalid("query has not ended");
        }
        let timeout = if wait {
            self.timeout
        } else {
            std::time::Duration::ZERO
        };
        let r = match q.kind() {
            QueryType::OcclusionCounter | QueryType::OcclusionPredicate => {
                // Work counting into it may still sit in the batch.
                if self
                    .batch
                    .as_ref()
                    .is_some_and(|b| b.query_slots.iter().any(|(x, _)| Arc::ptr_eq(x, q)))
                {
                    if !wait {
                        return Ok(None);
                    }
                    self.flush_batch()?;
                }
                let (bo, used, renders) = {
                    let st = q.st();
                    (st.bo.clone(), st.slots_used, st.slot_renders.clone())
                };
                let Some(bo) = bo else { return Ok(Some(0)) };
                let map = match bo.map(Access::Read, timeout) {
                    Ok(m) => m,
                    Err(sgx_winsys::WinsysError::Timeout { .. }) if !wait => return Ok(None),
                    Err(e) => return Err(e.into()),
                };
                let mut bytes = vec![0u8; used as usize * 4];
                map.read_at(0, &mut bytes)?;
                let sum: u64 = bytes
                    .chunks(4)
                    .zip(renders.iter().chain(std::iter::repeat(&1)))
                    .map(|(c, &n)| {
                        u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]) / n.max(1))
                    })
                    .sum();
                if q.kind() == QueryType::OcclusionPredicate {
                    u64::from(sum != 0)
                } else {
                    sum
                }
            }
            QueryType::GpuFinished => {
                let f = q.st().end_fence.clone();
                match f {
                    None => 1,
                    Some(f) => match f.wait(timeout) {
                        Ok(()) => 1,
                        Err(sgx_winsys::WinsysError::Timeout { .. }) => {
                            if wait {
                                return Err(PipeError::Winsys(sgx_winsys::WinsysError::Timeout {
                                    fence: f.id(),
                                    waited_ms: timeout.as_millis() as u64,
                                }));
                            }
                            return Ok(Some(0));
                        }
                        Err(e) => return Err(e.into()),
                    },
                }
            }
            QueryType::Timestamp | QueryType::TimeElapsed => {
                let (b, b_cycles, e) = {
                    let st = q.st();
                    (
                        st.begin_fence.clone(),
                        st.begin_cycles,
                        st.end_fence.clone(),
                    )
                };
                let end = match e {
                    Some(f) => match f.wait(timeout) {
                        Ok(()) => self.fence_end_cycles(f.id()),
                        Err(sgx_winsys::WinsysError::Timeout { .. }) if !wait => return Ok(None),
                        Err(err) => return Err(err.into()),
                    },
                    None => self.device_clock_cycles(),
                };
                if q.kind() == QueryType::Timestamp {
                    cycles_to_ns(end)
                } else {
                    let start = match b {
                        Some(f) => {
                            f.wait(self.timeout)?;
                            self.fence_end_cycles(f.id())
                        }
                        None => b_cycles,
                    };
                    cycles_to_ns(end.saturating_sub(start))
                }
            }
        };
        q.st().result = Some(r);
        Ok(Some(r))
    }

    fn fence_end_cycles(&self, fence: u64) -> u64 {
        self.dev()
            .trace()
            .entries
            .iter()
            .find(|e| e.fence == Some(fence))
            .and_then(|e| e.end_cycles)
            .unwrap_or(0)
    }

    fn device_clock_cycles(&self) -> u64 {
        // The running totals, not a trace snapshot: cheap however long the device has run.
        self.dev().trace_totals().end_cycles
    }
}
