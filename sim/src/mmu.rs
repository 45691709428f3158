//! The GPU virtual address space: 4 KiB pages mapped onto winsys backings, with read/write
//! permission; every unit access is checked and a miss is a [`Fault`].

use std::sync::Arc;

use sgx_hwdocs::limits::{GPU_VA_BITS, MMU_DIR_SHIFT, PAGE_B};

use crate::{Backing, Fault, Perm, SimError, Unit};

const PAGE: u32 = PAGE_B as u32;
const PAGE_SHIFT: u32 = PAGE.trailing_zeros();
/// Second-level table size (VA[21:12]), as the SGX MMU's two levels (hwdocs limits).
const TABLE_SHIFT: u32 = MMU_DIR_SHIFT as u32 - PAGE_SHIFT;
const TABLE: usize = 1 << TABLE_SHIFT;
/// Directory size (VA[31:22]).
const DIR: usize = 1 << (GPU_VA_BITS as u32 - MMU_DIR_SHIFT as u32);

struct Mapping {
    va: u32,
    /// Mapped length, whole pages.
    len_B: u64,
    /// Backing storage length; mapped bytes past it read 0 and drop writes.
    store_B: usize,
    ptr: *mut u8,
    perm: Perm,
    _backing: Arc<dyn Backing>,
}

/// Page tables and mappings.
pub(crate) struct Mmu {
    maps: Vec<Option<Mapping>>,
    /// dir[VA[31:22]] -> table of mapping index + 1 per page (0 = unmapped).
    dir: Vec<Option<Box<[u32; TABLE]>>>,
}

// SAFETY: the raw pointers point into `Backing`s that are `Send + Sync` and kept alive by the
// `Arc` stored beside them; the MMU never hands them out beyond a call.
unsafe impl Send for Mmu {}

fn fault(unit: Unit, addr: u32, write: bool) -> Fault {
    Fault { unit, addr, write }
}

impl Mmu {
    pub(crate) fn new() -> Mmu {
        Mmu {
            maps: Vec::new(),
            dir: (0..DIR).map(|_| None).collect(),
        }
    }

    pub(crate) fn map(
        &mut self,
        va: u32,
        backing: Arc<dyn Backing>,
        perm: Perm,
    ) -> Result<(), SimError> {
        if va & (PAGE - 1) != 0 {
            return Err(SimError::Unaligned { va });
        }
        let store_B = backing.len_B();
        if store_B == 0 {
            return Err(SimError::EmptyBacking { va });
        }
        let len_B = (store_B as u64).div_ceil(PAGE_B) * PAGE_B;
        if u64::from(va) + len_B > 1u64 << 32 {
            return Err(SimError::OutOfRange {
                va,
                len_B: store_B as u64,
            });
        }
        let pages = (len_B / PAGE_B) as u32;
        let first = va >> PAGE_SHIFT;
        for p in first..first + pages {
            if self.slot(p) != 0 {
                return Err(SimError::Overlap {
                    va,
                    at: p << PAGE_SHIFT,
                });
            }
        }
        let ptr = backing.as_ptr();
        let m = Mapping {
            va,
            len_B,
            store_B,
            ptr,
            perm,
            _backing: backing,
        };
        let idx = match self.maps.iter().position(Option::is_none) {
            Some(i) => {
                self.maps[i] = Some(m);
                i
            }
            None => {
                self.maps.push(Some(m));
                self.maps.len() - 1
            }
        };
        for p in first..first + pages {
            let t =
                self.dir[(p >> TABLE_SHIFT) as usize].get_or_insert_with(|| Box::new([0; TABLE]));
            t[(p as usize) & (TABLE - 1)] = idx as u32 + 1;
        }
        Ok(())
    }

    pub(crate) fn unmap(&mut self, va: u32) -> Result<(), SimError> {
        let idx = self
            .maps
            .iter()
            .position(|m| m.as_ref().is_some_and(|m| m.va == va))
            .ok_or(SimError::NotMapped { va })?;
        let m = self.maps[idx].take().expect("position found it");
        let first = va >> PAGE_SHIFT;
        for p in first..first + (m.len_B / PAGE_B) as u32 {
            if let Some(t) = self.dir[(p >> TABLE_SHIFT) as usize].as_mut() {
                t[(p as usize) & (TABLE - 1)] = 0;
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn slot(&self, page: u32) -> u32 {
        match &self.dir[(page >> TABLE_SHIFT) as usize] {
            Some(t) => t[(page as usize) & (TABLE - 1)],
            None => 0,
        }
    }

    #[inline(always)]
    fn mapping(&self, addr: u32) -> Option<&Mapping> {
        let s = self.slot(addr >> PAGE_SHIFT);
        if s == 0 {
            None
        } else {
            self.maps[(s - 1) as usize].as_ref()
        }
    }

    /// A host pointer for `[addr, addr + len)` when it lies inside one mapping's storage with
    /// the permission asked; None otherwise (callers then take the checked byte path, which
    /// faults at the exact address).
    #[inline]
    pub(crate) fn span(&self, addr: u32, len: usize, write: bool) -> Option<*mut u8> {
        let m = self.mapping(addr)?;
        let ok = if write { m.perm.write } else { m.perm.read };
        let off = (addr - m.va) as usize;
        if !ok || off.checked_add(len)? > m.store_B {
            return None;
        }
        // SAFETY: off + len <= store_B, inside the backing's storage.
        Some(unsafe { m.ptr.add(off) })
    }

    /// Reads `buf.len()` bytes at `addr`; faults at the first byte not readable.
    pub(crate) fn read(&self, unit: Unit, addr: u32, buf: &mut [u8]) -> Result<(), Fault> {
        if let Some(p) = self.span(addr, buf.len(), false) {
            // SAFETY: span checked the range lies in the backing; buf is a distinct host buffer.
            unsafe { std::ptr::copy_nonoverlapping(p, buf.as_mut_ptr(), buf.len()) };
            return Ok(());
        }
        self.walk(unit, addr, buf.len(), false, |done, m, off, n| {
            for k in 0..n {
                buf[done + k] = if off + k < m.store_B {
                    // SAFETY: off + k < store_B.
                    unsafe { *m.ptr.add(off + k) }
                } else {
                    0
                };
            }
        })
    }

    /// Writes `buf` at `addr`; faults at the first byte not writable (bytes before it land).
    pub(crate) fn write(&self, unit: Unit, addr: u32, buf: &[u8]) -> Result<(), Fault> {
        if let Some(p) = self.span(addr, buf.len(), true) {
            // SAFETY: span checked the range lies in the backing.
            unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), p, buf.len()) };
            return Ok(());
        }
        self.walk(unit, addr, buf.len(), true, |done, m, off, n| {
            for k in 0..n {
                if off + k < m.store_B {
                    // SAFETY: off + k < store_B.
                    unsafe { *m.ptr.add(off + k) = buf[done + k] };
                }
            }
        })
    }

    /// Walks `len_B` bytes from `addr` a page at a time through mappings that allow the access:
    /// `each(done_B, mapping, offset in it, n_B)` for each run; faults at the first byte that
    /// is not mapped with that permission, or where the address wraps past 4 GiB.
    fn walk(
        &self,
        unit: Unit,
        addr: u32,
        len_B: usize,
        write: bool,
        mut each: impl FnMut(usize, &Mapping, usize, usize),
    ) -> Result<(), Fault> {
        let mut a = addr;
        let mut done = 0usize;
        while done < len_B {
            let m = self
                .mapping(a)
                .filter(|m| if write { m.perm.write } else { m.perm.read })
                .ok_or(fault(unit, a, write))?;
            let off = (a - m.va) as usize;
            let in_page = (PAGE - (a % PAGE)) as usize;
            let n = in_page.min(len_B - done);
            each(done, m, off, n);
            done += n;
            a = a.wrapping_add(n as u32);
            if done < len_B && a == 0 {
                return Err(fault(unit, a, write));
            }
        }
        Ok(())
    }

    /// Reads little-endian dwords.
    pub(crate) fn read_dwords(&self, unit: Unit, addr: u32, out: &mut [u32]) -> Result<(), Fault> {
        let mut bytes = [0u8; 64];
        let mut a = addr;
        for chunk in out.chunks_mut(16) {
            let nb = chunk.len() * 4;
            self.read(unit, a, &mut bytes[..nb])?;
            for (i, d) in chunk.iter_mut().enumerate() {
                *d = u32::from_le_bytes([
                    bytes[4 * i],
                    bytes[4 * i + 1],
                    bytes[4 * i + 2],
                    bytes[4 * i + 3],
                ]);
            }
            a = a.wrapping_add(nb as u32);
        }
        Ok(())
    }

    pub(crate) fn read_u32(&self, unit: Unit, addr: u32) -> Result<u32, Fault> {
        let mut b = [0u8; 4];
        self.read(unit, addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub(crate) fn write_dwords(&self, unit: Unit, addr: u32, v: &[u32]) -> Result<(), Fault> {
        let mut bytes = [0u8; 64];
        let mut a = addr;
        for chunk in v.chunks(16) {
            for (i, d) in chunk.iter().enumerate() {
                bytes[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
            }
            let nb = chunk.len() * 4;
            self.write(unit, a, &bytes[..nb])?;
            a = a.wrapping_add(nb as u32);
        }
        Ok(())
    }
}
