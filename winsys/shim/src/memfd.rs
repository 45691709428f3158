//! Buffer storage: winsys's `MemfdBacking` (one memfd per buffer, mapped into the shim for the
//! model and mapped again into the caller when it mmaps the buffer through the render node),
//! with its file calls made through libc's own entry points: the shim's wrappers of `mmap`,
//! `fcntl` and `close` would take the shim's lock, which the caller of these already holds.

use std::num::NonZeroUsize;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::ptr::NonNull;

use sgx_winsys::memfd::{fd_size_B, FileCalls};
pub use sgx_winsys::memfd::{file_ident, MemfdBacking};
use sgx_winsys::va::PAGE_B;
use sgx_winsys::{Errno, Result, WinsysError};

use crate::real::real;

/// libc's calls, past the shim's wrappers.
pub struct RealCalls;

fn last_errno() -> Errno {
    Errno::from_raw(
        std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

impl FileCalls for RealCalls {
    fn map_shared(&self, fd: BorrowedFd<'_>, len: NonZeroUsize) -> Result<NonNull<u8>> {
        // SAFETY: a fresh shared mapping of the file's first `len` bytes (the caller checked
        // the file holds them); the backing owns and unmaps it.
        let p = unsafe {
            (real().mmap)(
                std::ptr::null_mut(),
                len.get(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(WinsysError::Os {
                op: "mmap of a buffer's memfd",
                errno: last_errno(),
            });
        }
        NonNull::new(p.cast()).ok_or(WinsysError::Os {
            op: "mmap of a buffer's memfd",
            errno: Errno::EINVAL,
        })
    }

    fn dup_cloexec(&self, fd: BorrowedFd<'_>) -> Result<RawFd> {
        // SAFETY: duplicates an open descriptor; the copy is the backing's own.
        let own = unsafe { (real().fcntl)(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) };
        if own < 0 {
            return Err(WinsysError::Os {
                op: "dup of an imported buffer",
                errno: last_errno(),
            });
        }
        Ok(own)
    }

    fn close(&self, fd: RawFd) {
        // SAFETY: `fd` is the backing's own descriptor, closed once.
        unsafe { (real().close)(fd) };
    }
}

/// A new zeroed buffer of `len_B` bytes (whole pages).
pub fn new_backing(len_B: u64) -> Result<MemfdBacking> {
    MemfdBacking::new(len_B, &RealCalls)
}

/// Maps a caller's dma-buf or memfd (PRIME import): its whole pages. The fd is duplicated.
/// A file shorter than a page is refused.
pub fn import_backing(fd: BorrowedFd<'_>) -> Result<MemfdBacking> {
    let len_B = fd_size_B(fd)? / PAGE_B * PAGE_B;
    MemfdBacking::import(fd, len_B, &RealCalls)
}
