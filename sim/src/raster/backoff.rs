//! When the pool's workers do not get the CPU, the caller stops offering them its jobs for a
//! while: after a job whose caller waited for a late worker (one the scheduler preempted
//! inside a tile, which the caller must wait for: it borrows the job) for more than a quarter
//! of the caller's own time in the job, the next 1, then 2, 4 ... up to 64 jobs run on the
//! caller alone before the pool is tried again; a job without such a wait ends the back-off.
//! On a loaded machine a job then costs what it costs on one thread, not that plus a
//! scheduler's time slice; on a free one nothing changes (the last tile's wait is
//! microseconds). Results are the same either way.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Most jobs run alone between two tries of the pool (a model tuning value).
const MAX_ALONE: u32 = 64;

/// The back-off state of one pool (shared by the jobs that use it).
#[derive(Default)]
pub(crate) struct Backoff {
    /// Jobs still to run alone.
    alone_left: AtomicU32,
    /// Length of the last back-off (0: none since the last good job).
    streak: AtomicU32,
}

impl Backoff {
    /// Whether the next job is to run alone; counts it when so.
    pub(crate) fn take_alone(&self) -> bool {
        self.alone_left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    }

    /// Records a job the pool ran: the caller's own time in it and its wait for the workers.
    pub(crate) fn record(&self, own: Duration, waited: Duration) {
        if waited > own / 4 {
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
        assert!(!b.take_alone());
        // A wait of a quarter of the caller's time is tolerated.
        b.record(ms(4), ms(1));
        assert_eq!(alone_run(&b), 0);
        let mut want = 1;
        for _ in 0..9 {
            b.record(ms(4), ms(12));
            assert_eq!(alone_run(&b), want);
            want = (want * 2).min(MAX_ALONE);
        }
        assert_eq!(want, MAX_ALONE);
        // A good job ends the streak: the next long wait starts again from one.
        b.record(ms(4), Duration::ZERO);
        b.record(ms(4), ms(2));
        assert_eq!(alone_run(&b), 1);
    }
}
