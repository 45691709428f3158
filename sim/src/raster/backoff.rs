//! When the pool does not pay, the caller stops offering it its jobs for a while: after a
//! pooled job that took longer per tile than the jobs run alone lately (the job after a pool's
//! first runs alone for a figure), or whose caller
//! waited for a late worker (one the scheduler preempted inside a tile, which the caller must
//! wait for: it borrows the job) for more than a quarter of the caller's own time in the job,
//! the next 1, then 2, 4 ... up to 64 jobs run on the caller alone before the pool is tried
//! again; a pooled job that pays ends the back-off. On a loaded machine (where the process's
//! threads share one scheduler weight, see `tiles::RING_FULL_NAP`) a job then costs what it
//! costs on one thread, not that plus a scheduler's time slice; on a free one nothing changes.
//! Results are the same either way.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// Most jobs run alone between two tries of the pool (a model tuning value).
const MAX_ALONE: u32 = 64;

/// The back-off state of one pool (shared by the jobs that use it).
#[derive(Default)]
pub(crate) struct Backoff {
    /// Jobs still to run alone.
    alone_left: AtomicU32,
    /// Length of the last back-off (0: none since the last pooled job that paid).
    streak: AtomicU32,
    /// Wall nanoseconds per tile of the jobs run alone, a moving average (0: none yet).
    alone_ns_per_tile: AtomicU64,
    /// A pooled job has been recorded.
    pooled: AtomicBool,
}

/// A job's wall nanoseconds per tile.
fn per_tile(tiles: usize, wall: Duration) -> u64 {
    (wall.as_nanos() / tiles.max(1) as u128).min(u128::from(u64::MAX)) as u64
}

impl Backoff {
    /// Whether the next job is to run alone; counts it when so. The job after the first
    /// pooled one runs alone, to have a figure to compare the pool's with.
    pub(crate) fn take_alone(&self) -> bool {
        (self.alone_ns_per_tile.load(Ordering::Relaxed) == 0 && self.pooled.load(Ordering::Relaxed))
            || self
                .alone_left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok()
    }

    /// Records a job run alone: its tiles and wall time.
    pub(crate) fn record_alone(&self, tiles: usize, wall: Duration) {
        let x = per_tile(tiles, wall);
        let old = self.alone_ns_per_tile.load(Ordering::Relaxed);
        // A quarter of each new figure: one slow job moves the average little.
        let avg = if old == 0 { x } else { old - old / 4 + x / 4 };
        self.alone_ns_per_tile.store(avg.max(1), Ordering::Relaxed);
    }

    /// Records a job the pool ran: its tiles, wall time, and the caller's wait for the
    /// workers at its end.
    pub(crate) fn record(&self, tiles: usize, wall: Duration, waited: Duration) {
        self.pooled.store(true, Ordering::Relaxed);
        let own = wall.saturating_sub(waited);
        let alone = self.alone_ns_per_tile.load(Ordering::Relaxed);
        let slower = alone != 0 && per_tile(tiles, wall) > alone;
        if slower || waited > own / 4 {
            let next = (self.streak.load(Ordering::Relaxed) * 2).clamp(1, MAX_ALONE);
            self.streak.store(next, Ordering::Relaxed);
            self.alone_left.store(next, Ordering::Relaxed);
        } else {
            self.streak.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alone_run(b: &Backoff) -> u32 {
        let mut k = 0;
        while b.take_alone() {
            k += 1;
        }
        k
    }

    #[test]
    fn long_waits_double_the_jobs_run_alone_up_to_a_bound_and_a_good_job_resets() {
        let ms = Duration::from_millis;
        let b = Backoff::default();
        // The first job goes on the pool; the next alone, for a figure (here too slow to make
        // the pool look slow). A wait of a quarter of the caller's time is tolerated.
        assert!(!b.take_alone());
        b.record(100, ms(5), ms(1));
        assert!(b.take_alone());
        b.record_alone(1, ms(1000));
        assert_eq!(alone_run(&b), 0);
        let mut want = 1;
        for _ in 0..9 {
            b.record(100, ms(16), ms(12));
            assert_eq!(alone_run(&b), want);
            want = (want * 2).min(MAX_ALONE);
        }
        assert_eq!(want, MAX_ALONE);
        // A good job ends the streak: the next long wait starts again from one.
        b.record(100, ms(4), Duration::ZERO);
        b.record(100, ms(6), ms(2));
        assert_eq!(alone_run(&b), 1);
    }

    #[test]
    fn a_pooled_job_slower_per_tile_than_the_jobs_run_alone_backs_off() {
        let ms = Duration::from_millis;
        let b = Backoff::default();
        b.record(100, ms(3), Duration::ZERO);
        assert!(b.take_alone());
        // 40 us a tile alone.
        b.record_alone(100, ms(4));
        assert!(!b.take_alone());
        // Pooled at 30 us a tile: pays.
        b.record(200, ms(6), Duration::ZERO);
        assert_eq!(alone_run(&b), 0);
        // Pooled at 50 us a tile, no wait at the end: does not pay.
        b.record(100, ms(5), Duration::ZERO);
        assert_eq!(alone_run(&b), 1);
        // The average moves by a quarter of a new figure: 40 -> 40 - 10 + 20 = 50 us.
        b.record_alone(100, ms(8));
        b.record(100, Duration::from_micros(4900), Duration::ZERO);
        assert_eq!(alone_run(&b), 0);
        b.record(100, Duration::from_micros(5100), Duration::ZERO);
        assert_eq!(alone_run(&b), 1);
    }
}
