//! Per-buffer reservations with dma-resv rules (ARCHITECTURE.md, "Reservations"): one write fence and a set of read
//! fences. A reader waits for the writer; a writer waits for the writer and every reader. CPU
//! maps follow the same rules.

use crate::access::Access;
use crate::fence::Fence;

/// The implicit fences of one buffer.
#[derive(Clone, Debug, Default)]
pub struct Reservation {
    write: Option<Fence>,
    reads: Vec<Fence>,
}

impl Reservation {
    /// The last job that writes the buffer (None once it finished and was pruned).
    pub fn write_fence(&self) -> Option<&Fence> {
        self.write.as_ref()
    }

    /// Jobs that read the buffer since the last writer.
    pub fn read_fences(&self) -> &[Fence] {
        &self.reads
    }

    /// The fences a use with `access` must wait for: read -> the writer; write -> all.
    pub fn fences_for(&self, access: Access) -> Vec<Fence> {
        let mut out: Vec<Fence> = self.write.iter().cloned().collect();
        if access.writes() {
            out.extend(self.reads.iter().cloned());
        }
        out
    }

    /// True when no fence of this reservation is pending.
    pub fn is_idle(&self) -> bool {
        self.write
            .iter()
            .chain(&self.reads)
            .all(|f| !f.is_pending())
    }

    /// Records a job that uses the buffer with `access`. A writer replaces everything: it was
    /// ordered after the old writer and every reader, so waiting for it covers them. A reader
    /// joins the read set; the writer stays, since later readers must still wait for it.
    pub fn add(&mut self, fence: &Fence, access: Access) {
        if access.writes() {
            self.write = Some(fence.clone());
            self.reads.clear();
        } else {
            self.prune();
            if !self.reads.iter().any(|f| f.id() == fence.id()) {
                self.reads.push(fence.clone());
            }
        }
    }

    /// Drops fences that have finished, so a buffer read by many jobs holds few fences.
    pub fn prune(&mut self) {
        self.reads.retain(Fence::is_pending);
        if self.write.as_ref().is_some_and(|f| !f.is_pending()) {
            self.write = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::LiveCounters;
    use std::sync::Arc;

    fn fences(n: u64) -> Vec<Fence> {
        let live = Arc::new(LiveCounters::default());
        (0..n).map(|i| Fence::new(1, i, &live)).collect()
    }

    fn ids(v: &[Fence]) -> Vec<u64> {
        v.iter().map(Fence::id).collect()
    }

    #[test]
    fn reader_waits_for_writer_only_and_writer_waits_for_all() {
        let f = fences(4);
        let mut r = Reservation::default();
        r.add(&f[0], Access::Write);
        r.add(&f[1], Access::Read);
        r.add(&f[2], Access::Read);
        assert_eq!(ids(&r.fences_for(Access::Read)), vec![0]);
        assert_eq!(ids(&r.fences_for(Access::Write)), vec![0, 1, 2]);
        assert_eq!(ids(&r.fences_for(Access::ReadWrite)), vec![0, 1, 2]);
        r.add(&f[3], Access::ReadWrite);
        assert_eq!(ids(&r.fences_for(Access::Read)), vec![3]);
        assert!(r.read_fences().is_empty());
    }

    #[test]
    fn finished_fences_are_pruned() {
        let f = fences(3);
        let mut r = Reservation::default();
        r.add(&f[0], Access::Write);
        r.add(&f[1], Access::Read);
        assert!(!r.is_idle());
        f[0].signal(Ok(()));
        f[1].signal(Ok(()));
        assert!(r.is_idle());
        r.add(&f[2], Access::Read);
        assert_eq!(ids(r.read_fences()), vec![2]);
        assert!(r.write_fence().is_none());
    }
}
