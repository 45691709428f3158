//! Buffer storage for the device model, shared by its two hosts (winsys's sim backend and the
//! drm-shim): a memfd, mapped shared, so that a buffer can be exported as a file descriptor
//! (standing in for a dma-buf) and an imported one mapped into the model.
//!
//! The shim wraps libc's `mmap`, `close` and `fcntl` to serve its render node; its own buffers
//! must not re-enter those wrappers (they take the shim's lock), so the three calls are a
//! [`FileCalls`] the host passes in: [`Libc`] here, the shim's `dlsym(RTLD_NEXT)` entries there.

use std::num::NonZeroUsize;
use std::os::fd::{BorrowedFd, IntoRawFd, RawFd};
use std::ptr::NonNull;

use nix::sys::mman::{mmap, munmap, MapFlags, ProtFlags};

use crate::error::{Errno, Result, WinsysError};
use crate::va::VaAllocator;

/// The file calls a host may wrap, done on its behalf without its wrappers.
pub trait FileCalls: Sync {
    /// `mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)`.
    fn map_shared(&self, fd: BorrowedFd<'_>, len: NonZeroUsize) -> Result<NonNull<u8>>;
    /// `fcntl(fd, F_DUPFD_CLOEXEC, 0)`: a descriptor the backing will own.
    fn dup_cloexec(&self, fd: BorrowedFd<'_>) -> Result<RawFd>;
    /// `close(fd)` of a descriptor the backing owns.
    fn close(&self, fd: RawFd);
}

fn os(op: &'static str) -> impl Fn(Errno) -> WinsysError {
    move |errno| WinsysError::Os { op, errno }
}

/// libc's calls (through nix), for a process with nothing wrapped.
pub struct Libc;

impl FileCalls for Libc {
    fn map_shared(&self, fd: BorrowedFd<'_>, len: NonZeroUsize) -> Result<NonNull<u8>> {
        // SAFETY: a fresh shared mapping of the file's first `len` bytes; it overlaps no Rust
        // object, and its owner unmaps it.
        let p = unsafe {
            mmap(
                None,
                len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
                fd,
                0,
            )
        }
        .map_err(os("mmap of a buffer's memfd"))?;
        Ok(p.cast())
    }

    fn dup_cloexec(&self, fd: BorrowedFd<'_>) -> Result<RawFd> {
        rustix::io::fcntl_dupfd_cloexec(fd, 0)
            .map(IntoRawFd::into_raw_fd)
            .map_err(|e| WinsysError::Os {
                op: "dup of an imported buffer",
                errno: Errno::from_raw(e.raw_os_error()),
            })
    }

    fn close(&self, fd: RawFd) {
        if let Err(e) = nix::unistd::close(fd) {
            log::error!("memfd: close of a buffer's file: {e}");
        }
    }
}

/// A memfd (or an imported dma-buf) and this process's shared mapping of its first `len` bytes.
pub struct MemfdBacking {
    fd: RawFd,
    ptr: NonNull<u8>,
    len: usize,
    ident: (u64, u64),
    calls: &'static dyn FileCalls,
}

// SAFETY: the mapping is plain shared memory owned by this value with no thread affinity; the
// hosts and the model only copy through the pointer.
unsafe impl Send for MemfdBacking {}
// SAFETY: see Send; shared access is through raw-pointer copies only.
unsafe impl Sync for MemfdBacking {}

/// The size of the file behind `fd` (a memfd or a dma-buf: both report it to SEEK_END).
pub fn fd_size_B(fd: BorrowedFd<'_>) -> Result<u64> {
    rustix::fs::seek(fd, rustix::fs::SeekFrom::End(0)).map_err(|e| WinsysError::Os {
        op: "lseek(SEEK_END) of an imported buffer",
        errno: Errno::from_raw(e.raw_os_error()),
    })
}

/// The (device, inode) of the file behind `fd`: what PRIME import matches buffers by.
pub fn file_ident(fd: BorrowedFd<'_>) -> Result<(u64, u64)> {
    let st = rustix::fs::fstat(fd).map_err(|e| WinsysError::Os {
        op: "fstat of a buffer's file",
        errno: Errno::from_raw(e.raw_os_error()),
    })?;
    #[allow(clippy::unnecessary_cast)]
    Ok((st.st_dev as u64, st.st_ino as u64))
}

impl MemfdBacking {
    /// `len_B` bytes rounded up to pages, zeroed.
    pub fn new(len_B: u64, calls: &'static dyn FileCalls) -> Result<MemfdBacking> {
        let len = VaAllocator::rounded_B(len_B);
        let fd = rustix::fs::memfd_create(c"sgx535-bo", rustix::fs::MemfdFlags::CLOEXEC).map_err(
            |e| WinsysError::Os {
                op: "memfd_create",
                errno: Errno::from_raw(e.raw_os_error()),
            },
        )?;
        rustix::fs::ftruncate(&fd, len).map_err(|_| WinsysError::OutOfMemory { size_B: len_B })?;
        // The descriptor is handed to the backing, which closes it through `calls`.
        let raw = fd.into_raw_fd();
        MemfdBacking::map(raw, len, calls)
    }

    /// Maps a caller's memfd or dma-buf: `len_B` bytes rounded up to pages, which the file must
    /// hold in full (a GPU access past its end would fault the process, not the GPU). The
    /// descriptor is duplicated; the caller keeps its own.
    pub fn import(
        fd: BorrowedFd<'_>,
        len_B: u64,
        calls: &'static dyn FileCalls,
    ) -> Result<MemfdBacking> {
        let len = VaAllocator::rounded_B(len_B);
        let have = fd_size_B(fd)?;
        if len == 0 || have < len {
            return Err(WinsysError::InvalidArgument(format!(
                "imported buffer holds {have} bytes; {len_B} bytes ({len} in whole pages) asked"
            )));
        }
        let own = calls.dup_cloexec(fd)?;
        MemfdBacking::map(own, len, calls)
    }

    /// Maps `fd` (owned: closed through `calls` on failure and in Drop), `len` bytes.
    fn map(fd: RawFd, len: u64, calls: &'static dyn FileCalls) -> Result<MemfdBacking> {
        // SAFETY: `fd` is open and owned by this call until it is stored or closed below.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        let mapped = || -> Result<_> {
            let n = usize::try_from(len)
                .ok()
                .and_then(NonZeroUsize::new)
                .ok_or(WinsysError::OutOfMemory { size_B: len })?;
            Ok((file_ident(borrowed)?, n, calls.map_shared(borrowed, n)?))
        };
        match mapped() {
            Ok((ident, n, ptr)) => Ok(MemfdBacking {
                fd,
                ptr,
                len: n.get(),
                ident,
                calls,
            }),
            Err(e) => {
                calls.close(fd);
                Err(e)
            }
        }
    }

    /// The file, for export or for mapping into a caller.
    pub fn fd(&self) -> BorrowedFd<'_> {
        // SAFETY: `self.fd` stays open until Drop, which needs `&mut self`.
        unsafe { BorrowedFd::borrow_raw(self.fd) }
    }

    /// The file's (device, inode).
    pub fn ident(&self) -> (u64, u64) {
        self.ident
    }
}

// SAFETY: `ptr`/`len` are this backing's own shared mapping of its memfd, made at creation
// and unmapped only in Drop; nothing in Rust holds a reference into it.
unsafe impl sgx_sim::Backing for MemfdBacking {
    fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    fn len_B(&self) -> usize {
        self.len
    }
}

impl Drop for MemfdBacking {
    fn drop(&mut self) {
        // SAFETY: ptr/len is this backing's own mapping, unmapped once; the model and every
        // Mapping hold the backing (or its buffer) while they use it.
        if let Err(e) = unsafe { munmap(self.ptr.cast(), self.len) } {
            log::error!("memfd: munmap of a buffer: {e}");
        }
        self.calls.close(self.fd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgx_sim::Backing;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_new_backing_is_zeroed_whole_pages() {
        let b = MemfdBacking::new(5, &Libc).unwrap();
        assert_eq!(b.len_B() as u64, VaAllocator::rounded_B(5));
        assert_eq!(fd_size_B(b.fd()).unwrap(), b.len_B() as u64);
        // SAFETY: the backing's own mapping of len_B bytes, alive for the borrow.
        let bytes = unsafe { std::slice::from_raw_parts(b.as_ptr(), b.len_B()) };
        assert!(bytes.iter().all(|&x| x == 0));
    }

    #[test]
    fn an_import_shares_the_bytes_and_the_file() {
        let a = MemfdBacking::new(4096, &Libc).unwrap();
        // SAFETY: a's own mapping, at least one byte long.
        unsafe { *a.as_ptr().add(17) = 0x5a };
        let b = MemfdBacking::import(a.fd(), 4096, &Libc).unwrap();
        assert_eq!(a.ident(), b.ident());
        assert_ne!(a.fd().as_raw_fd(), b.fd().as_raw_fd());
        // SAFETY: b's own mapping, at least one page long.
        assert_eq!(unsafe { *b.as_ptr().add(17) }, 0x5a);
    }

    #[test]
    fn an_import_longer_than_the_file_is_refused() {
        let a = MemfdBacking::new(4096, &Libc).unwrap();
        let e = MemfdBacking::import(a.fd(), 4097, &Libc).err().unwrap();
        assert!(matches!(e, WinsysError::InvalidArgument(_)), "{e}");
    }
}
