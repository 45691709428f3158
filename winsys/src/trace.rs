//! The submission trace: every submission with its buffers, dependencies, fence, duration,
//! result and the GPU's counters; readable by callers and writable as JSON.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;

use crate::access::Access;
use crate::error::{Errno, JobError};
use crate::job_result::{Counters, JobReport};

/// How a traced submission ended: not yet, done, refused by the kernel, or with the error its
/// fence carries. In JSON a `status` names it (`pending`, `done`, `refused` with `errno`, or
/// the [`JobError`]'s own spelling: `fault` with `unit`, `addr`, `write`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TraceResult {
    /// Accepted, not finished (queued, running, or hung).
    Pending,
    /// Finished without error.
    Done,
    /// The kernel refused the submission; no job ran and no fence exists.
    Refused {
        /// Error name, e.g. "ENOSPC".
        errno: String,
    },
    /// Ended with this error (fault, out of memory, device lost, hang, ...).
    #[serde(untagged)]
    Error(JobError),
}

impl TraceResult {
    /// The trace result for a job that ended with `r`.
    pub fn from_job(r: Result<(), &JobError>) -> TraceResult {
        match r {
            Ok(()) => TraceResult::Done,
            Err(e) => TraceResult::Error(e.clone()),
        }
    }

    /// The trace result for a refused submission.
    pub fn refused(errno: Errno) -> TraceResult {
        TraceResult::Refused {
            errno: format!("{errno:?}"),
        }
    }
}

/// One buffer of a traced submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceBo {
    /// Buffer id.
    pub bo: u64,
    /// Its GPU address.
    pub gpu_addr: u32,
    /// Its size.
    pub size_B: u64,
    /// How the job used it.
    pub access: Access,
}

/// One submission.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceEntry {
    /// Submission number on the device (0-based, counting refused ones).
    pub submission: u64,
    /// "render" or "2d".
    pub kind: &'static str,
    /// Buffers and access.
    pub bos: Vec<TraceBo>,
    /// Fences the job was ordered after (implicit and explicit), by id.
    pub deps: Vec<u64>,
    /// The job's out-fence id (None when refused).
    pub fence: Option<u64>,
    /// How it ended.
    pub result: TraceResult,
    /// Wall-clock time the job ran on the worker (None until finished).
    pub duration_us: Option<u64>,
    /// GPU clock when the job started (None until finished).
    pub start_cycles: Option<u64>,
    /// GPU clock when it ended.
    pub end_cycles: Option<u64>,
    /// EVENT_STATUS bits raised.
    pub events: Option<u32>,
    /// The GPU's counters for the job.
    pub counters: Option<Counters>,
}

impl TraceEntry {
    /// A submitted job not finished yet: what it names, nothing measured.
    pub(crate) fn pending(
        submission: u64,
        kind: &'static str,
        bos: Vec<TraceBo>,
        deps: Vec<u64>,
        fence: Option<u64>,
    ) -> TraceEntry {
        TraceEntry {
            submission,
            kind,
            bos,
            deps,
            fence,
            result: TraceResult::Pending,
            duration_us: None,
            start_cycles: None,
            end_cycles: None,
            events: None,
            counters: None,
        }
    }

    /// A pending entry standing in for one the trace limit dropped.
    fn scratch(submission: u64) -> TraceEntry {
        TraceEntry::pending(submission, "render", Vec::new(), Vec::new(), None)
    }

    /// Records a finished job.
    pub(crate) fn finish(
        &mut self,
        r: Result<(), &JobError>,
        report: Option<&JobReport>,
        duration_us: u64,
    ) {
        self.result = TraceResult::from_job(r);
        self.duration_us = Some(duration_us);
        if let Some(rep) = report {
            self.start_cycles = Some(rep.start_cycles);
            self.end_cycles = Some(rep.end_cycles);
            self.events = Some(rep.events);
            self.counters = Some(rep.counters);
        }
    }
}

/// Running totals of a device's submissions since it was opened, kept whatever the trace
/// limit drops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TraceTotals {
    /// Submissions that reached the kernel (refused ones included).
    pub submissions: u64,
    /// Submissions refused.
    pub refused: u64,
    /// Jobs that finished without error.
    pub completed: u64,
    /// Jobs that ended with an error (fault, failure, device loss, ...).
    pub failed: u64,
    /// The GPU's counters summed over finished jobs.
    pub counters: Counters,
    /// The latest GPU clock at which a job ended (the device's "now" for timestamps).
    pub end_cycles: u64,
}

impl TraceTotals {
    fn account(&mut self, r: &TraceResult, c: Option<&Counters>, end_cycles: Option<u64>) {
        self.end_cycles = self.end_cycles.max(end_cycles.unwrap_or(0));
        match r {
            TraceResult::Pending => {}
            TraceResult::Done => self.completed += 1,
            TraceResult::Refused { .. } => self.refused += 1,
            _ => self.failed += 1,
        }
        if let Some(c) = c {
            let sum: Vec<u64> = self
                .counters
                .to_array()
                .iter()
                .zip(c.to_array())
                .map(|(a, b)| a.saturating_add(b))
                .collect();
            self.counters = Counters::from_array(sum.try_into().expect("nine counters"));
        }
    }
}

/// A snapshot of a device's trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Trace {
    /// Submissions, oldest first.
    pub entries: Vec<TraceEntry>,
    /// Older entries dropped because of the trace limit.
    pub dropped: u64,
    /// Totals since the device was opened.
    pub totals: TraceTotals,
}

impl Trace {
    /// The entry of submission `n`, if kept.
    pub fn submission(&self, n: u64) -> Option<&TraceEntry> {
        self.entries.iter().find(|e| e.submission == n)
    }

    /// The entry whose out-fence is `fence`.
    pub fn by_fence(&self, fence: u64) -> Option<&TraceEntry> {
        self.entries.iter().find(|e| e.fence == Some(fence))
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("trace serializes")
    }

    /// Writes pretty JSON.
    pub fn write_json<W: std::io::Write>(&self, w: W) -> crate::error::Result<()> {
        serde_json::to_writer_pretty(w, self).map_err(std::io::Error::from)?;
        Ok(())
    }
}

struct TraceBuf {
    entries: VecDeque<TraceEntry>,
    dropped: u64,
    limit: Option<usize>,
    totals: TraceTotals,
}

/// A device's trace, shared with its worker.
pub(crate) struct TraceLog(Mutex<TraceBuf>);

impl TraceLog {
    /// A trace keeping at most `limit` entries (None: all).
    pub(crate) fn new(limit: Option<usize>) -> TraceLog {
        TraceLog(Mutex::new(TraceBuf {
            entries: VecDeque::new(),
            dropped: 0,
            limit,
            totals: TraceTotals::default(),
        }))
    }

    fn buf(&self) -> std::sync::MutexGuard<'_, TraceBuf> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a submission's entry, unless `refuse()`, asked under the trace's lock, says no
    /// (false: nothing added). The device's loss is decided under the same lock
    /// ([`TraceLog::end_pending`]), so no entry appears pending after it.
    pub(crate) fn push_unless(&self, e: TraceEntry, refuse: impl FnOnce() -> bool) -> bool {
        let mut b = self.buf();
        if refuse() {
            return false;
        }
        b.totals.submissions += 1;
        if b.limit == Some(0) {
            b.dropped += 1;
            return true;
        }
        b.entries.push_back(e);
        if b.limit.is_some_and(|l| b.entries.len() > l) {
            b.entries.pop_front();
            b.dropped += 1;
        }
        true
    }

    /// Updates submission `n`'s entry, if still kept (entries are in submission order), and
    /// the totals when the update ends it. An entry the limit dropped is updated as a scratch
    /// copy, so the totals still count it (only pending entries are ever updated).
    pub(crate) fn update(&self, n: u64, f: impl FnOnce(&mut TraceEntry)) {
        let mut b = self.buf();
        let (result, counters, end) = match b.entries.binary_search_by_key(&n, |e| e.submission) {
            Ok(i) => {
                let e = &mut b.entries[i];
                let was_pending = e.result == TraceResult::Pending;
                f(e);
                if !was_pending {
                    return;
                }
                (e.result.clone(), e.counters, e.end_cycles)
            }
            Err(_) => {
                let mut e = TraceEntry::scratch(n);
                f(&mut e);
                (e.result, e.counters, e.end_cycles)
            }
        };
        b.totals.account(&result, counters.as_ref(), end);
    }

    /// Ends every pending entry with `err`, then runs `then` before anyone can read the trace
    /// again or add to it: a loss of the device settles every job it hit before it shows.
    pub(crate) fn end_pending(&self, err: &JobError, then: impl FnOnce()) {
        let mut b = self.buf();
        let b = &mut *b;
        for e in b.entries.iter_mut() {
            if e.result == TraceResult::Pending {
                e.result = TraceResult::from_job(Err(err));
                b.totals.account(&e.result, None, None);
            }
        }
        then();
    }

    /// Records that submission `n`'s job ended with `r` (see [`TraceEntry::finish`]), unless
    /// its entry ended already (the device's loss settled it): then how it ended there. The
    /// result is what the job's fence should say, so that the trace and the fence agree.
    pub(crate) fn finish(
        &self,
        n: u64,
        r: Result<(), JobError>,
        report: Option<&JobReport>,
        duration_us: u64,
    ) -> Result<(), JobError> {
        let mut out = r.clone();
        self.update(n, |e| match &e.result {
            TraceResult::Pending => e.finish(r.as_ref().map(|_| ()), report, duration_us),
            TraceResult::Error(err) => out = Err(err.clone()),
            // Done or refused cannot be a job still in flight; keep the job's own result.
            _ => {}
        });
        out
    }

    /// The running totals.
    pub(crate) fn totals(&self) -> TraceTotals {
        self.buf().totals
    }

    pub(crate) fn snapshot(&self) -> Trace {
        let b = self.buf();
        Trace {
            entries: b.entries.iter().cloned().collect(),
            dropped: b.dropped,
            totals: b.totals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job_result::Unit;

    fn entry(n: u64) -> TraceEntry {
        let bo = TraceBo {
            bo: 1,
            gpu_addr: 0x10_0000,
            size_B: 64,
            access: Access::Write,
        };
        TraceEntry::pending(n, "2d", vec![bo], vec![], Some(n))
    }

    #[test]
    fn totals_count_every_end_even_of_dropped_entries() {
        let log = TraceLog::new(Some(1));
        for n in 0..3 {
            log.push_unless(entry(n), || false);
        }
        // Entry 0 was dropped by the limit; its end still counts.
        log.update(0, |e| e.result = TraceResult::Done);
        log.update(1, |e| {
            e.result = TraceResult::Error(JobError::Failed("x".into()))
        });
        log.update(2, |e| {
            e.result = TraceResult::Done;
            e.counters = Some(Counters {
                pixels_shaded: 7,
                ..Default::default()
            });
        });
        // A second update of an ended entry does not count twice.
        log.update(2, |e| e.result = TraceResult::Done);
        let t = log.totals();
        assert_eq!(
            (t.submissions, t.completed, t.failed, t.refused),
            (3, 2, 1, 0)
        );
        assert_eq!(t.counters.pixels_shaded, 7);
        assert_eq!(log.snapshot().totals, t);
    }

    #[test]
    fn limit_drops_oldest_and_updates_find_by_submission() {
        let log = TraceLog::new(Some(2));
        for n in 0..3 {
            log.push_unless(entry(n), || false);
        }
        log.update(2, |e| {
            e.finish(
                Err(&JobError::Fault {
                    unit: Unit::Pbe,
                    addr: 0x1234,
                    write: true,
                }),
                None,
                7,
            )
        });
        // A dropped entry is updated as a scratch copy: counted, never brought back.
        log.update(0, |e| e.result = TraceResult::Done);
        let t = log.snapshot();
        assert!(t.submission(0).is_none());
        assert_eq!((t.totals.completed, t.totals.failed), (1, 1));
        assert_eq!(t.dropped, 1);
        assert_eq!(t.entries.len(), 2);
        assert_eq!(
            t.submission(2).unwrap().result,
            TraceResult::Error(JobError::Fault {
                unit: Unit::Pbe,
                addr: 0x1234,
                write: true
            })
        );
    }

    /// A loss ends every pending entry, counted once, before `then` (which makes the loss
    /// visible) runs; a job's end after it keeps the loss and says so, and a refused push
    /// adds nothing.
    #[test]
    fn a_loss_settles_every_pending_entry_and_wins_over_a_later_end() {
        let log = TraceLog::new(None);
        for n in 0..3 {
            assert!(log.push_unless(entry(n), || false));
        }
        log.update(0, |e| e.result = TraceResult::Done);
        let mut ran = false;
        log.end_pending(&JobError::DeviceLost, || ran = true);
        assert!(ran);
        let lost = TraceResult::Error(JobError::DeviceLost);
        let t = log.snapshot();
        let results: Vec<_> = t.entries.iter().map(|e| e.result.clone()).collect();
        assert_eq!(results, [TraceResult::Done, lost.clone(), lost.clone()]);
        assert_eq!((t.totals.completed, t.totals.failed), (1, 2));
        // JOB_INFO said done after the loss had settled the entry: the loss stands.
        assert_eq!(log.finish(1, Ok(()), None, 5), Err(JobError::DeviceLost));
        assert_eq!(log.snapshot().submission(1).unwrap().result, lost);
        assert_eq!(log.snapshot().submission(1).unwrap().duration_us, None);
        // A pending entry is finished as the job ended.
        assert!(log.push_unless(entry(3), || false));
        assert_eq!(log.finish(3, Ok(()), None, 5), Ok(()));
        assert_eq!(log.snapshot().submission(3).unwrap().duration_us, Some(5));
        assert!(!log.push_unless(entry(4), || true));
        let t = log.snapshot();
        assert_eq!(t.entries.len(), 4);
        assert_eq!(
            (t.totals.submissions, t.totals.completed, t.totals.failed),
            (4, 2, 2)
        );
    }

    /// The trace's JSON spelling of every way a submission ends, byte for byte (tools and
    /// recorded traces read it).
    #[test]
    fn json_of_every_result_is_pinned() {
        let job = |e: JobError| TraceResult::from_job(Err(&e));
        let cases = [
            (TraceResult::Pending, r#"{"status":"pending"}"#),
            (TraceResult::from_job(Ok(())), r#"{"status":"done"}"#),
            (
                job(JobError::Fault {
                    unit: Unit::Pbe,
                    addr: 0x1234,
                    write: true,
                }),
                r#"{"status":"fault","unit":"pbe","addr":4660,"write":true}"#,
            ),
            (job(JobError::OutOfMemory), r#"{"status":"out_of_memory"}"#),
            (
                job(JobError::IllegalInstruction {
                    unit: Unit::UssePds,
                    pc: 7,
                    reason: "x".into(),
                }),
                r#"{"status":"illegal_instruction","unit":"usse_pds","pc":7,"reason":"x"}"#,
            ),
            (
                job(JobError::BadState {
                    unit: Unit::TwoD,
                    reason: "y".into(),
                }),
                r#"{"status":"bad_state","unit":"twod","reason":"y"}"#,
            ),
            (
                job(JobError::Failed("z".into())),
                r#"{"status":"failed","reason":"z"}"#,
            ),
            (job(JobError::DeviceLost), r#"{"status":"device_lost"}"#),
            (
                job(JobError::Hang { budget_ms: 500 }),
                r#"{"status":"hang","budget_ms":500}"#,
            ),
            (job(JobError::Canceled), r#"{"status":"canceled"}"#),
            (
                TraceResult::refused(Errno::ENOSPC),
                r#"{"status":"refused","errno":"ENOSPC"}"#,
            ),
        ];
        for (result, json) in cases {
            assert_eq!(serde_json::to_string(&result).unwrap(), json, "{result:?}");
        }
    }

    #[test]
    fn json_names_fields_and_statuses() {
        let mut e = entry(5);
        e.result = TraceResult::refused(Errno::ENOSPC);
        let t = Trace {
            entries: vec![e],
            dropped: 0,
            totals: TraceTotals::default(),
        };
        let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        let e = &v["entries"][0];
        assert_eq!(e["submission"], 5);
        assert_eq!(e["kind"], "2d");
        assert_eq!(e["bos"][0]["access"], "write");
        assert_eq!(e["result"]["status"], "refused");
        assert_eq!(e["result"]["errno"], "ENOSPC");
    }
}
