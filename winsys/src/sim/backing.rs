//! Buffer storage for the model: zeroed, page-aligned heap memory.

use std::alloc::Layout;

use crate::va::PAGE_B;

/// Page-aligned zeroed heap memory, shared with the model's MMU.
pub(crate) struct HeapBacking {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the memory is plain bytes owned by this value; it has no thread affinity, and the
// winsys and the model only copy through the pointer.
unsafe impl Send for HeapBacking {}
// SAFETY: see Send; shared access is through raw-pointer copies only.
unsafe impl Sync for HeapBacking {}

impl HeapBacking {
    /// `len_b` bytes rounded up to pages, zeroed; None if the allocation fails.
    pub(crate) fn new(len_b: u64) -> Option<HeapBacking> {
        let len = usize::try_from(len_b.div_ceil(PAGE_B).max(1) * PAGE_B).ok()?;
        let layout = Layout::from_size_align(len, PAGE_B as usize).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        (!ptr.is_null()).then_some(HeapBacking { ptr, layout })
    }
}

impl sgx_sim::Backing for HeapBacking {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    fn len_b(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for HeapBacking {
    fn drop(&mut self) {
        // SAFETY: ptr came from alloc_zeroed with this layout and is freed once.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}
