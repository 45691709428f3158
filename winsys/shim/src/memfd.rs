//! Buffer storage: one memfd per buffer, mapped into the shim for the model and mapped again
//! into the caller when it mmaps the buffer through the render node.

use std::ffi::{c_int, c_void};

use crate::real::real;

/// A memfd and the shim's shared mapping of it.
pub struct MemfdBacking {
    fd: c_int,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory with no thread affinity; the model and the caller
// only copy through raw pointers.
unsafe impl Send for MemfdBacking {}
// SAFETY: see Send.
unsafe impl Sync for MemfdBacking {}

impl MemfdBacking {
    /// `len` bytes (a multiple of the page size), zeroed; None on failure.
    pub fn new(len: usize) -> Option<MemfdBacking> {
        // SAFETY: memfd_create takes a NUL-terminated name and flags.
        let fd = unsafe { libc::memfd_create(c"sgx535-bo".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: fd is the memfd just created.
        if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
            // SAFETY: fd is ours and open.
            unsafe { (real().close)(fd) };
            return None;
        }
        // SAFETY: a fresh shared mapping of the whole memfd.
        let p = unsafe {
            (real().mmap)(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            // SAFETY: fd is ours and open.
            unsafe { (real().close)(fd) };
            return None;
        }
        Some(MemfdBacking {
            fd,
            ptr: p.cast(),
            len,
        })
    }

    /// The memfd, for mapping into the caller.
    pub fn fd(&self) -> c_int {
        self.fd
    }
}

impl sgx_sim::Backing for MemfdBacking {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    fn len_b(&self) -> usize {
        self.len
    }
}

impl Drop for MemfdBacking {
    fn drop(&mut self) {
        // SAFETY: ptr/len is this backing's own mapping, and fd its own memfd; both are released
        // once. The real close is called directly: the wrapped one would take the shim's lock.
        unsafe {
            libc::munmap(self.ptr.cast::<c_void>(), self.len);
            (real().close)(self.fd);
        }
    }
}
