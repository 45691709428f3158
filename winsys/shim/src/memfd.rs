//! Buffer storage: one memfd per buffer, mapped into the shim for the model and mapped again
//! into the caller when it mmaps the buffer through the render node.

use std::ffi::{c_int, c_void};

use crate::real::real;

/// A memfd (or an imported dma-buf) and the shim's shared mapping of it.
pub struct MemfdBacking {
    fd: c_int,
    ptr: *mut u8,
    len: usize,
    ident: (u64, u64),
}

/// The (device, inode) of the file behind `fd`: what PRIME import matches buffers by.
pub fn file_ident(fd: c_int) -> Option<(u64, u64)> {
    // SAFETY: an all-zero stat is a valid value to be overwritten.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat writes into `st`, a valid stat.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    Some((st.st_dev as u64, st.st_ino as u64))
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
        MemfdBacking::map(fd, len)
    }

    /// Maps a caller's dma-buf or memfd (PRIME import): its whole pages. The fd is duplicated.
    /// None when it is not a mappable file of at least one page.
    pub fn import(fd: c_int) -> Option<MemfdBacking> {
        // SAFETY: lseek on a caller's descriptor; a bad one fails with EBADF.
        let size = unsafe { libc::lseek(fd, 0, libc::SEEK_END) };
        let len = (size.max(0) as u64 / sgx_winsys::va::PAGE_B * sgx_winsys::va::PAGE_B) as usize;
        if len == 0 {
            return None;
        }
        // SAFETY: duplicates the caller's descriptor; the copy is this backing's own.
        let own = unsafe { (real().fcntl)(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if own < 0 {
            return None;
        }
        MemfdBacking::map(own, len)
    }

    /// Maps `fd` (owned; closed on failure) shared, `len` bytes.
    fn map(fd: c_int, len: usize) -> Option<MemfdBacking> {
        let Some(ident) = file_ident(fd) else {
            // SAFETY: fd is ours and open.
            unsafe { (real().close)(fd) };
            return None;
        };
        // SAFETY: a fresh shared mapping of the whole file.
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
            ident,
        })
    }

    /// The file's (device, inode).
    pub fn ident(&self) -> (u64, u64) {
        self.ident
    }

    /// The memfd, for mapping into the caller.
    pub fn fd(&self) -> c_int {
        self.fd
    }
}

// SAFETY: `ptr`/`len` are this backing's own shared mapping of its memfd, made at creation
// and unmapped only in Drop; nothing in Rust holds a reference into it.
unsafe impl sgx_sim::Backing for MemfdBacking {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    fn len_B(&self) -> usize {
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
