//! Host memory for running the model on plain bytes (the crate's tests and benchmark, its
//! integration tests, the fuzz targets): a fixed-size byte buffer that is a [`Backing`].

use std::cell::UnsafeCell;

use crate::Backing;

/// A fixed-size byte buffer the model reads and writes through [`Backing`].
pub struct HostMem {
    pub(crate) buf: Box<[UnsafeCell<u8>]>,
}

// SAFETY: the storage is plain bytes in `UnsafeCell`s, reached only through raw pointers
// (Backing's contract) or by the unsafe readers below; ordering the model's accesses and the
// host's is the user's concern, as for every Backing.
unsafe impl Sync for HostMem {}

impl HostMem {
    /// `len_B` bytes: `init` first (as much of it as fits), zeros after it.
    pub fn with_bytes(len_B: usize, init: &[u8]) -> HostMem {
        let byte = |i: usize| init.get(i).copied().unwrap_or(0);
        HostMem {
            buf: (0..len_B).map(|i| UnsafeCell::new(byte(i))).collect(),
        }
    }

    /// A copy of the bytes.
    ///
    /// # Safety
    /// No job may run on the memory meanwhile (the model writes it through raw pointers).
    pub unsafe fn to_vec(&self) -> Vec<u8> {
        // SAFETY: the caller guarantees that nothing writes the cells meanwhile.
        self.buf.iter().map(|c| unsafe { *c.get() }).collect()
    }
}

// SAFETY: `buf` is a boxed slice of `UnsafeCell`s allocated once and never resized or freed
// before the HostMem, so the pointer and length are fixed; every access goes through the
// cells.
unsafe impl Backing for HostMem {
    fn as_ptr(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.buf.as_ptr())
    }
    fn len_B(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_bytes_starts_with_the_bytes_given_and_zeros_the_rest() {
        let m = HostMem::with_bytes(6, &[7, 8, 9]);
        assert_eq!(m.len_B(), 6);
        // SAFETY: no job runs on `m`.
        assert_eq!(unsafe { m.to_vec() }, [7, 8, 9, 0, 0, 0]);
        let cut = HostMem::with_bytes(2, &[7, 8, 9]);
        // SAFETY: as above.
        assert_eq!(unsafe { cut.to_vec() }, [7, 8]);
    }

    #[test]
    fn the_model_pointer_reaches_the_same_bytes() {
        let m = HostMem::with_bytes(4, &[1, 2, 3, 4]);
        // SAFETY: in bounds of the 4 bytes; no job runs on `m`.
        unsafe { *m.as_ptr().add(2) = 0xAA };
        // SAFETY: as above.
        assert_eq!(unsafe { m.to_vec() }, [1, 2, 0xAA, 4]);
    }
}
