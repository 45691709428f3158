//! Pieces of work (a job's tiles) handed out one at a time, in order, to whichever thread
//! asks, each filled into a slot of a ring that one consumer empties in order.
//!
//! Piece `i` goes into slot `i % len`. A slot's state says who may touch its data:
//! - `FREE`: nobody; the claimer of the next piece for the slot may take it;
//! - `FILLING`: the thread that claimed the piece (it alone);
//! - `READY`: the consumer, once the piece is the next it empties;
//! - `TAKEN`: still the filler, whose work is discarded: the consumer made the piece itself
//!   (its filler was slow, e.g. preempted), and the filler frees the slot when it is done.
//!
//! A piece is claimed only when its slot is free, so a filler never waits for the consumer
//! except when the ring is full; the consumer never waits for a filler: when the next piece
//! is not ready and there is nothing left to claim, it takes the piece over.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

const FREE: u8 = 0;
const FILLING: u8 = 1;
const READY: u8 = 2;
const TAKEN: u8 = 3;

struct Slot<T> {
    state: AtomicU8,
    data: UnsafeCell<T>,
}

/// The ring: its slots, the next piece to claim and the job's piece count.
pub(crate) struct Ring<T> {
    slots: Box<[Slot<T>]>,
    /// Pieces of the current job.
    n: usize,
    /// The next piece to claim.
    next: AtomicUsize,
    /// Claims end (an error ended the job).
    stop: AtomicBool,
    /// A consumer exists for the current job.
    consumed: AtomicBool,
    /// Pieces the consumer took over in the current job.
    takeovers: AtomicUsize,
}

// SAFETY: a slot's data is reached only by the one thread the slot's state names (see the
// module comment); every hand-over is a Release store or successful exchange of the state
// matched by an Acquire load or exchange of the receiver. `T: Send` because the data moves
// between threads.
unsafe impl<T: Send> Sync for Ring<T> {}

impl<T> Ring<T> {
    /// A ring of `len` slots (at least one), each with `make()`'s data.
    pub(crate) fn new(len: usize, mut make: impl FnMut() -> T) -> Ring<T> {
        let slots = (0..len.max(1))
            .map(|_| Slot {
                state: AtomicU8::new(FREE),
                data: UnsafeCell::new(make()),
            })
            .collect();
        Ring {
            slots,
            n: 0,
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            consumed: AtomicBool::new(false),
            takeovers: AtomicUsize::new(0),
        }
    }

    /// Starts a job of `n` pieces (no thread is inside the ring: `&mut`).
    pub(crate) fn reset(&mut self, n: usize) {
        for s in self.slots.iter_mut() {
            *s.state.get_mut() = FREE;
        }
        self.n = n;
        *self.next.get_mut() = 0;
        *self.stop.get_mut() = false;
        *self.consumed.get_mut() = false;
        *self.takeovers.get_mut() = 0;
    }

    fn slot(&self, i: usize) -> &Slot<T> {
        &self.slots[i % self.slots.len()]
    }

    /// Claims the next piece if there is one and its slot is free.
    pub(crate) fn claim(&self) -> Option<Filling<'_, T>> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return None;
            }
            let i = self.next.load(Ordering::Acquire);
            if i >= self.n {
                return None;
            }
            let slot = self.slot(i);
            // The slot is taken before the piece: were the piece taken first, a claimer
            // preempted before marking the slot would leave it FREE while `len` later claims
            // run on, and the claimer of piece i + len would fill the same slot (two fillers,
            // one piece lost, the consumer waiting for it for ever). Acquire: the consumer's
            // (or a late filler's) last use of the data happened before.
            if slot
                .state
                .compare_exchange(FREE, FILLING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                return None;
            }
            #[cfg(test)]
            tests::widen_the_claim_window();
            if self
                .next
                .compare_exchange(i, i + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some(Filling {
                    slot,
                    index: i,
                    // SAFETY: the slot is this claimer's alone until `finish`: it moved it
                    // from FREE to FILLING, and piece i is its own.
                    data: unsafe { &mut *slot.data.get() },
                });
            }
            // Piece i went to another claimer or to the consumer (or `i` was stale): give
            // the slot back untouched.
            slot.state.store(FREE, Ordering::Release);
        }
    }

    /// No piece is left to claim (all claimed, or claims stopped).
    pub(crate) fn exhausted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.next.load(Ordering::Relaxed) >= self.n
    }

    /// Ends claims: pieces not yet claimed stay unmade.
    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The job's consumer. Invariant: one per job (it alone empties slots).
    pub(crate) fn consumer(&self) -> Consumer<'_, T> {
        let again = self.consumed.swap(true, Ordering::Relaxed);
        assert!(!again, "one consumer per ring job (invariant)");
        Consumer {
            ring: self,
            head: 0,
        }
    }

    /// Pieces the consumer took over in the last job.
    pub(crate) fn takeovers(&self) -> usize {
        self.takeovers.load(Ordering::Relaxed)
    }
}

/// A claimed piece: its index and its slot's data, until `finish`.
pub(crate) struct Filling<'r, T> {
    slot: &'r Slot<T>,
    index: usize,
    data: &'r mut T,
}

impl<T> Filling<'_, T> {
    /// The piece's index in the job.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// The slot's data, to fill.
    pub(crate) fn data(&mut self) -> &mut T {
        self.data
    }

    /// Hands the filled slot to the consumer, or frees it when the consumer took the piece
    /// over meanwhile. (Dropped unfinished, the slot stays with this filler and the consumer
    /// takes the piece over.)
    pub(crate) fn finish(self) {
        if self
            .slot
            .state
            .compare_exchange(FILLING, READY, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // TAKEN: the consumer made the piece; the data is not wanted.
            self.slot.state.store(FREE, Ordering::Release);
        }
    }
}

/// The one thread that empties the ring, piece by piece in order.
pub(crate) struct Consumer<'r, T> {
    ring: &'r Ring<T>,
    head: usize,
}

impl<'r, T> Consumer<'r, T> {
    /// Every piece has been consumed.
    pub(crate) fn done(&self) -> bool {
        self.head >= self.ring.n
    }

    /// The next piece's slot data when it is ready; `Ready::release` moves on.
    pub(crate) fn ready(&mut self) -> Option<Ready<'_, 'r, T>> {
        if self.done() {
            return None;
        }
        let slot = self.ring.slot(self.head);
        if slot.state.load(Ordering::Acquire) != READY {
            return None;
        }
        Some(Ready {
            // SAFETY: READY slots are the consumer's, and this is the one consumer; `Ready`
            // borrows it mutably, so no other access to the slot is made meanwhile.
            data: unsafe { &mut *slot.data.get() },
            slot,
            head: &mut self.head,
        })
    }

    /// Takes the next piece over when it is not ready: claimed by a filler that has not
    /// finished (its work will be discarded), or not claimed (its slot still held by a late
    /// filler). Returns its index, which the caller must then make itself; None when it
    /// cannot be taken (it became ready, or was claimed just now: look again).
    pub(crate) fn take_over(&mut self) -> Option<usize> {
        if self.done() {
            return None;
        }
        let i = self.head;
        let ring = self.ring;
        let taken = if i < ring.next.load(Ordering::Acquire) {
            // Claimed: its slot is FILLING (or already READY).
            ring.slot(i)
                .state
                .compare_exchange(FILLING, TAKEN, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        } else {
            ring.next
                .compare_exchange(i, i + 1, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        };
        if !taken {
            return None;
        }
        ring.takeovers.fetch_add(1, Ordering::Relaxed);
        self.head += 1;
        Some(i)
    }
}

/// The next piece, ready: its data until `release`.
pub(crate) struct Ready<'c, 'r, T> {
    slot: &'r Slot<T>,
    data: &'r mut T,
    head: &'c mut usize,
}

impl<T> Ready<'_, '_, T> {
    /// The piece's index.
    pub(crate) fn index(&self) -> usize {
        *self.head
    }

    /// The piece's data.
    pub(crate) fn data(&mut self) -> &mut T {
        self.data
    }

    /// Frees the slot and moves on to the next piece.
    pub(crate) fn release(self) {
        self.slot.state.store(FREE, Ordering::Release);
        *self.head += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    thread_local! {
        static CLAIMS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }

    /// Yields inside every third claim, between taking the slot and taking the piece, so
    /// that the tests below meet the interleavings a preempted claimer makes.
    pub(super) fn widen_the_claim_window() {
        CLAIMS.with(|c| {
            c.set(c.get().wrapping_add(1));
            if c.get() % 3 == 0 {
                std::thread::yield_now();
            }
        });
    }

    /// One move of the consumer, which fills pieces too: takes the next ready piece (checking
    /// its value is index * 3), else fills a free one, else takes a late filler's piece over
    /// (and computes its value itself). False when it could do none of these.
    fn step(ring: &Ring<u64>, c: &mut Consumer<'_, u64>, out: &mut Vec<u64>) -> bool {
        if let Some(mut r) = c.ready() {
            let i = r.index() as u64;
            assert_eq!(*r.data(), i * 3);
            out.push(*r.data());
            r.release();
        } else if let Some(mut f) = ring.claim() {
            *f.data() = f.index() as u64 * 3;
            f.finish();
        } else if let Some(i) = c.take_over() {
            out.push(i as u64 * 3);
        } else {
            return false;
        }
        true
    }

    /// Runs a job of `n` pieces (piece i's value is i * 3) on the consumer and `helpers`
    /// threads, helper 0 sleeping `nap` inside its first piece; returns the values in the
    /// order consumed and the takeover count.
    fn job(ring: &mut Ring<u64>, n: usize, helpers: usize, nap: Duration) -> (Vec<u64>, usize) {
        ring.reset(n);
        let ring = &*ring;
        let out = std::thread::scope(|sc| {
            for h in 0..helpers {
                sc.spawn(move || {
                    let mut first = true;
                    loop {
                        match ring.claim() {
                            Some(mut f) => {
                                if h == 0 && first {
                                    std::thread::sleep(nap);
                                }
                                first = false;
                                *f.data() = f.index() as u64 * 3;
                                f.finish();
                            }
                            None if ring.exhausted() => break,
                            None => std::thread::yield_now(),
                        }
                    }
                });
            }
            let mut out = Vec::new();
            let mut c = ring.consumer();
            while !c.done() {
                step(ring, &mut c, &mut out);
            }
            out
        });
        (out, ring.takeovers())
    }

    #[test]
    fn every_piece_once_in_order_whatever_the_helpers() {
        let mut ring = Ring::new(8, || 0u64);
        for helpers in [0, 1, 3] {
            for n in [0, 1, 7, 8, 9, 500] {
                let (out, _) = job(&mut ring, n, helpers, Duration::ZERO);
                let want: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
                assert_eq!(out, want, "{helpers} helpers, {n} pieces");
            }
        }
    }

    #[test]
    fn a_late_fillers_piece_is_taken_over_and_its_slot_freed_when_it_finishes() {
        let mut ring = Ring::new(4, || 0u64);
        ring.reset(10);
        // A filler claims piece 0 and stalls (finishes only after the job).
        let mut late = ring.claim().expect("piece 0");
        assert_eq!(late.index(), 0);
        let mut c = ring.consumer();
        let mut out = Vec::new();
        while !c.done() {
            assert!(
                step(&ring, &mut c, &mut out),
                "the consumer can always move on"
            );
        }
        assert_eq!(out, (0..10u64).map(|i| i * 3).collect::<Vec<_>>());
        // Piece 0, then 4 and 8, whose slot the late filler still holds.
        assert_eq!(ring.takeovers(), 3);
        // The late filler's work is dropped and its slot freed for the next job.
        *late.data() = 999;
        late.finish();
        let (out, _) = job(&mut ring, 10, 2, Duration::ZERO);
        assert_eq!(out, (0..10u64).map(|i| i * 3).collect::<Vec<_>>());
    }

    #[test]
    fn a_sleeping_helper_does_not_change_the_order() {
        let mut ring = Ring::new(4, || 0u64);
        for _ in 0..3 {
            let (out, _) = job(&mut ring, 200, 2, Duration::from_millis(5));
            assert_eq!(out, (0..200u64).map(|i| i * 3).collect::<Vec<_>>());
        }
    }

    #[test]
    fn stop_ends_claims() {
        let mut ring = Ring::new(4, || 0u64);
        ring.reset(10);
        let f = ring.claim().expect("piece 0");
        assert_eq!(f.index(), 0);
        f.finish();
        ring.stop();
        assert!(ring.exhausted());
        assert!(ring.claim().is_none());
    }

    #[test]
    #[should_panic(expected = "one consumer")]
    fn one_consumer_per_job() {
        let mut ring = Ring::new(4, || 0u64);
        ring.reset(3);
        let _a = ring.consumer();
        let _b = ring.consumer();
    }

    /// A ring of two slots laps hundreds of times per job, with more fillers than cores:
    /// every piece still arrives once, in order, in its own slot. (With the piece claimed
    /// before its slot, a claimer preempted between the two let the claimer of the piece
    /// two laps on fill the same slot, and the consumer waited for ever: the job runs on a
    /// thread of its own so that a hang fails the test instead of stalling the suite.)
    #[test]
    fn many_laps_of_a_small_ring_keep_every_piece_in_its_slot() {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut ring = Ring::new(2, || 0u64);
            for _ in 0..200 {
                let (out, _) = job(&mut ring, 300, 3, Duration::ZERO);
                if out != (0..300u64).map(|i| i * 3).collect::<Vec<_>>() {
                    let _ = tx.send(Err(out));
                    return;
                }
            }
            let _ = tx.send(Ok(()));
        });
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(())) => {}
            Ok(Err(out)) => panic!("pieces out of order or lost: {out:?}"),
            Err(_) => panic!("the ring hung: a piece was never handed to the consumer"),
        }
    }
}
