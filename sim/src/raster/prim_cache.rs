//! Primitive records a thread has read in the current job, by address, on the fast paths: a
//! tile's primitives are mostly its neighbour's (a large triangle is read again by every tile
//! it covers), and reading one (two MMU reads, the header's unpacking, the vertices') was a
//! tenth of a full-screen textured quad's time in the model. Direct-mapped, a fixed number of
//! records a thread, so a scene of many small primitives costs a tag compare per read and no
//! memory beyond the slots. Parameter memory is not written during the 3D phase (a target
//! over it would be a feedback loop, whose result the model leaves undefined), so a record
//! read once reads the same again.

use super::Prim;

/// Slots (a model tuning value: a 16x16 tile of a large scene rarely touches more).
const SLOTS: usize = 64;

struct Slot {
    /// The address of the record in `prim` (None: `prim` holds none).
    addr: Option<u32>,
    prim: Option<Box<Prim>>,
}

pub(super) struct PrimCache {
    slots: Vec<Slot>,
}

impl PrimCache {
    pub(super) fn new() -> PrimCache {
        PrimCache {
            slots: (0..SLOTS)
                .map(|_| Slot {
                    addr: None,
                    prim: None,
                })
                .collect(),
        }
    }

    fn slot(&mut self, addr: u32) -> &mut Slot {
        // Fibonacci hashing: records are laid out at a stride, which a plain modulo would
        // map onto a few slots.
        let i = (addr.wrapping_mul(0x9e37_79b1) >> (32 - SLOTS.trailing_zeros())) as usize;
        &mut self.slots[i]
    }

    /// The slot's record for `addr` to use (true: it is the record at `addr`; false: it
    /// must be read into it), until `put` returns it.
    pub(super) fn take(&mut self, addr: u32) -> (Box<Prim>, bool) {
        let s = self.slot(addr);
        let hit = s.addr.take() == Some(addr);
        let p = s.prim.take().unwrap_or_default();
        (p, hit)
    }

    /// Returns a record `take` gave out, read from `addr`.
    pub(super) fn put(&mut self, addr: u32, p: Box<Prim>) {
        let s = self.slot(addr);
        s.addr = Some(addr);
        s.prim = Some(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_put_back_is_found_and_a_colliding_one_replaces_it() {
        let mut c = PrimCache::new();
        let (mut p, hit) = c.take(0x1000);
        assert!(!hit);
        p.nvar = 3;
        c.put(0x1000, p);
        let (p, hit) = c.take(0x1000);
        assert!(hit);
        assert_eq!(p.nvar, 3);
        c.put(0x1000, p);
        // An address in the same slot takes it over.
        let other = (1..u32::MAX)
            .map(|k| 0x1000 + 4 * k)
            .find(|&a| std::ptr::eq(c.slot(a), c.slot(0x1000)))
            .unwrap();
        let (p, hit) = c.take(other);
        assert!(!hit);
        c.put(other, p);
        let (_, hit) = c.take(0x1000);
        assert!(!hit, "the colliding record replaced it");
    }

    #[test]
    fn a_record_taken_and_not_put_back_is_not_found() {
        let mut c = PrimCache::new();
        let (p, _) = c.take(0x2000);
        c.put(0x2000, p);
        let (_p, hit) = c.take(0x2000);
        assert!(hit);
        // Dropped (its read failed): the slot no longer claims the address.
        let (_, hit) = c.take(0x2000);
        assert!(!hit);
    }
}
