//! The direct-mapped table the TA's memos keep their entries in (`memo.rs`: shaded vertex
//! groups, `prim_memo.rs`: whole PRIMs): `N` slots indexed by a hash of a 32-bit key, an
//! entry replacing whatever shared its slot. Empty until the first entry is stored, so a job
//! that remembers nothing allocates nothing. The caller compares an entry's own key fields
//! on a lookup (two keys may share a slot).

/// `N` slots (a power of two, at least 2) of `E`.
pub(super) struct Slots<E, const N: usize> {
    slots: Vec<Option<E>>,
}

impl<E, const N: usize> Default for Slots<E, N> {
    fn default() -> Self {
        Slots { slots: Vec::new() }
    }
}

impl<E, const N: usize> Slots<E, N> {
    /// The slot of `key`: Fibonacci hashing, the top bits of the product.
    fn index(key: u32) -> usize {
        const { assert!(N.is_power_of_two() && N >= 2 && N <= 1 << 16) };
        // 0x9e37_79b9 is the 32-bit golden-ratio multiplier of Fibonacci hashing, not a
        // hardware fact: the table only needs a cheap, well-spread index.
        (key.wrapping_mul(0x9e37_79b9) >> (32 - N.trailing_zeros())) as usize
    }

    /// The entry in `key`'s slot, if any (it may be another key's).
    pub(super) fn get(&self, key: u32) -> Option<&E> {
        self.slots.get(Self::index(key))?.as_ref()
    }

    /// Stores `e` in `key`'s slot, replacing what was there.
    pub(super) fn put(&mut self, key: u32, e: E) {
        if self.slots.is_empty() {
            self.slots = (0..N).map(|_| None).collect();
        }
        self.slots[Self::index(key)] = Some(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_found_in_its_slot_and_replaced_by_a_key_sharing_it() {
        let mut t: Slots<u32, 4> = Slots::default();
        assert!(t.get(5).is_none(), "empty before the first put");
        t.put(5, 50);
        assert_eq!(t.get(5), Some(&50));
        // Keys of the same slot share the entry (the caller tells them apart); a key of
        // another slot sees none.
        let (same, other): (Vec<u32>, Vec<u32>) = (0..64)
            .filter(|&k| k != 5)
            .partition(|&k| Slots::<u32, 4>::index(k) == Slots::<u32, 4>::index(5));
        assert!(!same.is_empty() && !other.is_empty());
        assert_eq!(t.get(same[0]), Some(&50));
        assert!(other.iter().all(|&k| t.get(k).is_none()));
        t.put(same[0], 7);
        assert_eq!(t.get(5), Some(&7));
        // Every index is a slot.
        assert!((0..1000u32).all(|k| Slots::<u32, 4>::index(k.wrapping_mul(0x0101_0101)) < 4));
    }
}
