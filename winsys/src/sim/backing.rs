//! Buffer storage for the model: a memfd, mapped shared, so that a buffer can be exported as a
//! file descriptor (standing in for a dma-buf) and an imported one mapped into the model.

use std::num::NonZeroUsize;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;

use nix::sys::mman::{mmap, munmap, MapFlags, ProtFlags};

use crate::error::{Errno, Result, WinsysError};
use crate::va::VaAllocator;

/// A memfd (or an imported dma-buf) and this process's shared mapping of its first `len` bytes.
pub(crate) struct MemfdBacking {
    fd: OwnedFd,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value with no thread affinity; the
// winsys and the model only copy through the pointer.
unsafe impl Send for MemfdBacking {}
// SAFETY: see Send; shared access is through raw-pointer copies only.
unsafe impl Sync for MemfdBacking {}

fn os(op: &'static str) -> impl Fn(Errno) -> WinsysError {
    move |errno| WinsysError::Os { op, errno }
}

/// The size of the file behind `fd` (a memfd or a dma-buf: both report it to SEEK_END).
pub(crate) fn fd_size_B(fd: BorrowedFd<'_>) -> Result<u64> {
    rustix::fs::seek(fd, rustix::fs::SeekFrom::End(0)).map_err(|e| WinsysError::Os {
        op: "lseek(SEEK_END) of an imported buffer",
        errno: Errno::from_raw(e.raw_os_error()),
    })
}

impl MemfdBacking {
    /// `len_B` bytes rounded up to pages, zeroed.
    pub(crate) fn new(len_B: u64) -> Result<MemfdBacking> {
        let len = VaAllocator::rounded_B(len_B);
        let fd = rustix::fs::memfd_create(c"sgx535-sim-bo", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| WinsysError::Os {
                op: "memfd_create",
                errno: Errno::from_raw(e.raw_os_error()),
            })?;
        rustix::fs::ftruncate(&fd, len).map_err(|_| WinsysError::OutOfMemory { size_B: len_B })?;
        MemfdBacking::map(fd, len)
    }

    /// Maps a caller's memfd or dma-buf: `len_B` bytes rounded up to pages, which the file must
    /// hold in full (a GPU access past its end would fault the process, not the GPU).
    pub(crate) fn import(fd: BorrowedFd<'_>, len_B: u64) -> Result<MemfdBacking> {
        let len = VaAllocator::rounded_B(len_B);
        let have = fd_size_B(fd)?;
        if have < len {
            return Err(WinsysError::InvalidArgument(format!(
                "imported buffer holds {have} bytes; {len_B} bytes ({len} in whole pages) asked"
            )));
        }
        let own = fd.try_clone_to_owned().map_err(|e| WinsysError::Os {
            op: "dup of an imported buffer",
            errno: Errno::from_raw(e.raw_os_error().unwrap_or(0)),
        })?;
        MemfdBacking::map(own, len)
    }

    fn map(fd: OwnedFd, len: u64) -> Result<MemfdBacking> {
        let n = usize::try_from(len)
            .ok()
            .and_then(NonZeroUsize::new)
            .ok_or(WinsysError::OutOfMemory { size_B: len })?;
        // SAFETY: a fresh shared mapping of the file's first `n` bytes (the file holds them);
        // it overlaps no Rust object and is unmapped in Drop.
        let p = unsafe {
            mmap(
                None,
                n,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
                fd.as_fd(),
                0,
            )
        }
        .map_err(os("mmap of a buffer's memfd"))?;
        Ok(MemfdBacking {
            fd,
            ptr: p.cast(),
            len: n.get(),
        })
    }

    /// The file, for export.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
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
            log::error!("sim: munmap of a buffer: {e}");
        }
    }
}
