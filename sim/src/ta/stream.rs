//! The control stream read a window at a time (the fast path): the reference reads each
//! object's words from the MMU as it meets them (the first word, then the object), a lookup
//! and a copy per read, about a tenth of the model's time in drawoverhead's glCallList tests
//! once PRIMs were remembered. Here up to `WINDOW_B` bytes from an object to the end of its
//! page are copied at once when they all lie in one mapping's storage (`Mmu::span`); reads
//! inside the window are served from it. Nothing writes memory while the TA walks the stream
//! (the premise of `ta::Decoded`), so the window reads as the memory does. Where the window
//! cannot be taken (the page's storage ends, or it is not readable) the reader reads the
//! object as the reference does, so a fault comes at the same address.

use sgx_hwdocs::limits::PAGE_B;

use crate::mmu::Mmu;
use crate::{Fault, Unit};

/// Bytes copied at a time: a model choice for speed, not a hardware fact.
const WINDOW_B: usize = 256;

pub(super) struct Reader {
    fast: bool,
    /// Address of `buf[0]`.
    base: u32,
    /// Bytes of `buf` that hold memory.
    len_B: usize,
    buf: [u8; WINDOW_B],
}

impl Reader {
    pub(super) fn new(fast: bool) -> Reader {
        Reader {
            fast,
            base: 0,
            len_B: 0,
            buf: [0; WINDOW_B],
        }
    }

    /// The `N` dwords at `addr` (little-endian), as `Mmu::read_dwords` reads them for `unit`.
    pub(super) fn words<const N: usize>(
        &mut self,
        mmu: &Mmu,
        unit: Unit,
        addr: u32,
    ) -> Result<[u32; N], Fault> {
        if self.fast {
            if let Some(w) = self.window(addr) {
                return Ok(w);
            }
            self.fill(mmu, addr);
            if let Some(w) = self.window(addr) {
                return Ok(w);
            }
        }
        let mut w = [0u32; N];
        mmu.read_dwords(unit, addr, &mut w)?;
        Ok(w)
    }

    fn window<const N: usize>(&self, addr: u32) -> Option<[u32; N]> {
        let off = addr.wrapping_sub(self.base) as usize;
        let b = self.buf[..self.len_B].get(off..off.checked_add(4 * N)?)?;
        Some(std::array::from_fn(|i| {
            u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        }))
    }

    /// Copies memory from `addr` to the end of its page (at most `WINDOW_B` bytes) when it
    /// lies in one readable mapping's storage; else empties the window.
    fn fill(&mut self, mmu: &Mmu, addr: u32) {
        let to_page_end = (PAGE_B - u64::from(addr) % PAGE_B) as usize;
        let n = to_page_end.min(WINDOW_B);
        self.len_B = 0;
        if let Some(p) = mmu.span(addr, n, false) {
            // SAFETY: span checked that `n` bytes from `p` lie in the mapping's storage;
            // `buf` holds WINDOW_B >= n bytes and is a distinct host buffer.
            unsafe { std::ptr::copy_nonoverlapping(p, self.buf.as_mut_ptr(), n) };
            self.base = addr;
            self.len_B = n;
        }
    }
}
