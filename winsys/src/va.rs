//! GPU virtual address allocation in the SGX535's 32-bit space (hw-facts: 32-bit GPU VA, 4 KiB
//! pages). First fit over a free list that coalesces on free.

use std::collections::BTreeMap;

/// GPU MMU page size (hwdocs limits::PAGE_B).
pub const PAGE_B: u64 = sgx_hwdocs::limits::PAGE_B;

/// First address handed out. Address 0 stays unmapped so a null GPU pointer faults; the first
/// MiB is kept free too. MODEL choice.
pub const VA_START: u64 = 0x0010_0000;

/// One past the last address handed out: the GTT aperture sits at 0xE0000000 in gma500's
/// layout (hw-facts), so buffers stay below it. MODEL choice.
pub const VA_END: u64 = 0xE000_0000;

/// A first-fit allocator of page-aligned GPU address ranges.
#[derive(Clone, Debug)]
pub struct VaAllocator {
    /// Free ranges: start -> length, non-overlapping, non-adjacent.
    free: BTreeMap<u64, u64>,
    allocated_B: u64,
    start: u64,
    end: u64,
}

impl VaAllocator {
    /// An allocator over [start, end); both are rounded inward to pages, and 0 is never handed out.
    pub fn new(start: u64, end: u64) -> VaAllocator {
        let start = start.max(PAGE_B).div_ceil(PAGE_B) * PAGE_B;
        let end = (end.min(1 << sgx_hwdocs::limits::GPU_VA_BITS) / PAGE_B) * PAGE_B;
        let mut free = BTreeMap::new();
        if end > start {
            free.insert(start, end - start);
        }
        VaAllocator {
            free,
            allocated_B: 0,
            start,
            end,
        }
    }

    /// Size `size_B` rounded up to whole pages, as allocations take it.
    pub fn rounded_B(size_B: u64) -> u64 {
        size_B.div_ceil(PAGE_B).max(1) * PAGE_B
    }

    /// Allocates `size_B` bytes (rounded up to pages) aligned to `align_B` (a power of two; values
    /// below a page mean a page). None when no free range fits.
    pub fn alloc(&mut self, size_B: u64, align_B: u64) -> Option<u32> {
        if size_B == 0 || !align_B.is_power_of_two() && align_B != 0 {
            return None;
        }
        let size = Self::rounded_B(size_B);
        let align = align_B.max(PAGE_B);
        let (start, len, at) = self.free.iter().find_map(|(&s, &l)| {
            let at = s.div_ceil(align) * align;
            (at + size <= s + l).then_some((s, l, at))
        })?;
        self.free.remove(&start);
        if at > start {
            self.free.insert(start, at - start);
        }
        if at + size < start + len {
            self.free.insert(at + size, start + len - (at + size));
        }
        self.allocated_B += size;
        Some(at as u32)
    }

    /// Returns the range at `va` of `size_B` bytes (as passed to alloc). Freeing a range that is
    /// not allocated is a broken invariant of the caller and panics.
    pub fn free(&mut self, va: u32, size_B: u64) {
        let mut start = va as u64;
        let mut len = Self::rounded_B(size_B);
        assert!(
            start >= self.start && start + len <= self.end,
            "freeing {start:#x}+{len:#x} outside the address space"
        );
        if let Some((&ps, &pl)) = self.free.range(..=start).next_back() {
            assert!(ps + pl <= start, "double free of GPU range {start:#x}");
            if ps + pl == start {
                self.free.remove(&ps);
                start = ps;
                len += pl;
            }
        }
        if let Some((&ns, &nl)) = self.free.range(start + 1..).next() {
            assert!(start + len <= ns, "double free of GPU range {va:#x}");
            if start + len == ns {
                self.free.remove(&ns);
                len += nl;
            }
        }
        self.free.insert(start, len);
        self.allocated_B -= Self::rounded_B(size_B);
    }

    /// Bytes currently allocated.
    pub fn allocated_B(&self) -> u64 {
        self.allocated_B
    }

    /// Number of free ranges (1 when nothing is allocated: frees coalesce).
    pub fn free_ranges(&self) -> usize {
        self.free.len()
    }
}

impl Default for VaAllocator {
    fn default() -> Self {
        VaAllocator::new(VA_START, VA_END)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn never_hands_out_zero_and_aligns() {
        let mut va = VaAllocator::new(0, 1 << 24);
        let a = va.alloc(1, 0).unwrap();
        assert_eq!(a, 0x1000);
        let b = va.alloc(5000, 1 << 20).unwrap();
        assert_eq!(b, 0x10_0000);
        assert_eq!(va.allocated_B(), 0x1000 + 0x2000);
        let c = va.alloc(0x1000, 0).unwrap();
        assert_eq!(
            c, 0x2000,
            "first fit reuses the gap before the aligned block"
        );
        assert_eq!(va.alloc(0, 0), None);
        assert_eq!(va.alloc(16, 3), None);
    }

    #[test]
    fn full_space_refuses_then_reuses() {
        let mut va = VaAllocator::new(0x1000, 0x5000);
        let a = va.alloc(0x2000, 0).unwrap();
        let b = va.alloc(0x2000, 0).unwrap();
        assert_eq!(va.alloc(1, 0), None);
        va.free(a, 0x2000);
        assert_eq!(va.alloc(0x1000, 0), Some(a));
        va.free(b, 0x2000);
        va.free(a, 0x1000);
        assert_eq!(va.free_ranges(), 1);
        assert_eq!(va.allocated_B(), 0);
    }

    proptest! {
        #[test]
        fn allocations_never_overlap_and_frees_coalesce(
            ops in proptest::collection::vec((1u64..40_000, 0u32..4, any::<bool>()), 1..60)
        ) {
            let mut va = VaAllocator::new(VA_START, VA_START + (1 << 22));
            let mut live: Vec<(u32, u64)> = Vec::new();
            for (size, align_log, free_one) in ops {
                if free_one && !live.is_empty() {
                    let (a, s) = live.remove(size as usize % live.len());
                    va.free(a, s);
                    continue;
                }
                let align = PAGE_B << (align_log * 4);
                if let Some(a) = va.alloc(size, align) {
                    prop_assert!(a != 0);
                    prop_assert_eq!(a as u64 % align, 0);
                    let end = a as u64 + VaAllocator::rounded_B(size);
                    for &(b, s) in &live {
                        let bend = b as u64 + VaAllocator::rounded_B(s);
                        prop_assert!(end <= b as u64 || bend <= a as u64, "overlap");
                    }
                    live.push((a, size));
                }
            }
            let total: u64 = live.iter().map(|&(_, s)| VaAllocator::rounded_B(s)).sum();
            prop_assert_eq!(va.allocated_B(), total);
            for (a, s) in live.drain(..) {
                va.free(a, s);
            }
            prop_assert_eq!(va.allocated_B(), 0);
            prop_assert_eq!(va.free_ranges(), 1);
        }
    }
}
