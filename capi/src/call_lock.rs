//! The lock a context's calls take: one thread at a time, as the ABI asks of its callers.
//!
//! In a correct program it is never contended, so what it costs is its atomic operations,
//! and every call into a context pays them (a draw makes three to five calls). A `std` mutex
//! takes a locked compare-exchange to lock and a locked swap to unlock (the swap learns
//! whether a waiter needs waking); a locked operation waits for every store before it to
//! drain, which on the Xeon VM here was about 6% of drawoverhead test 6's CPU time. This lock
//! unlocks with a plain release store (on x86 an ordinary `mov`), so a call pays one locked
//! operation. A thread that finds the lock taken (a program breaking the one-thread rule)
//! waits by yielding until it is free: still serialised, never woken by the holder.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// A value reached by one thread at a time.
pub(crate) struct CallLock<T> {
    held: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reached only through a `CallGuard`, and `held` lets one guard exist at
// a time (acquired with Acquire, released with Release, so each holder sees the previous
// holder's writes): the lock hands `T` between threads as a mutex does.
unsafe impl<T: Send> Sync for CallLock<T> {}

impl<T> CallLock<T> {
    pub(crate) fn new(value: T) -> CallLock<T> {
        CallLock {
            held: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the lock, waiting (yielding) while another thread holds it.
    pub(crate) fn lock(&self) -> CallGuard<'_, T> {
        while self
            .held
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::thread::yield_now();
        }
        CallGuard { lock: self }
    }
}

/// The value, held; the lock is released when this drops (also when a panic unwinds
/// through it: the ABI's guard catches the panic and the context stays usable).
pub(crate) struct CallGuard<'a, T> {
    lock: &'a CallLock<T>,
}

impl<T> Deref for CallGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard is the only one (see the Sync impl), so no `&mut T` exists.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for CallGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard is the only one, and it is borrowed mutably.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for CallGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.held.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn threads_that_break_the_one_thread_rule_are_serialised() {
        // Unsynchronised read-modify-writes of a plain counter: any overlap loses counts.
        let lock = Arc::new(CallLock::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let lock = lock.clone();
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        let mut g = lock.lock();
                        let v = *g;
                        std::hint::black_box(&v);
                        *g = v + 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*lock.lock(), 80_000);
    }

    #[test]
    fn a_panic_while_held_releases_the_lock() {
        let lock = CallLock::new(1u32);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _g = lock.lock();
            panic!("inside a call");
        }));
        assert!(r.is_err());
        *lock.lock() += 1;
        assert_eq!(*lock.lock(), 2);
    }
}
