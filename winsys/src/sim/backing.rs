//! Buffer storage for the model: a memfd, mapped shared, so that a buffer can be exported as a
//! file descriptor (standing in for a dma-buf) and an imported one mapped into the model.

use std::num::NonZeroUsize;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use nix::sys::mman::{mmap, munmap, MapFlags, ProtFlags};

use crate::error::{Errno, Result, WinsysError};
use crate::va::VaAllocator;

/// A memfd (or an imported dma-buf) and this process's shared mapping of its first `len` bytes.
pub(crate) struct MemfdBacking {
    fd: OwnedFd,
    ptr: NonNull<u8>,
    len: usize,
    /// Made here and never handed out as a file: its memory may serve a later buffer.
    reusable: AtomicBool,
    /// Where its memory goes when it is dropped, while the device lives.
    pool: Option<Weak<Mutex<Pool>>>,
}

/// Freed buffers' memfds and mappings, kept for the next buffer of the same size on the same
/// device. An app that makes and drops a texture per frame (piglit's streaming-texture-leak:
/// 5000 of 4 MiB) spent most of its time faulting in and tearing down fresh shmem pages; a kept
/// buffer is zeroed instead, which touches pages already there. The device owns the pool: it
/// closes and unmaps what it keeps when it goes.
#[derive(Default)]
pub(crate) struct Pool {
    free: Vec<(OwnedFd, NonNull<u8>, usize)>,
    held_B: usize,
}

// SAFETY: the pool owns the mappings it holds (each unmapped or handed to one new backing);
// they are plain shared memory with no thread affinity.
unsafe impl Send for Pool {}

impl Drop for Pool {
    fn drop(&mut self) {
        for (_fd, ptr, len) in self.free.drain(..) {
            // SAFETY: a kept mapping, owned by the pool alone, unmapped once.
            if let Err(e) = unsafe { munmap(ptr.cast(), len) } {
                log::error!("sim: munmap of a pooled buffer: {e}");
            }
        }
    }
}

/// A device's pool, shared with its buffers' backings.
pub(crate) type SharedPool = Arc<Mutex<Pool>>;

/// Buffers from one page up to this size are kept.
const POOL_MAX_BUFFER_B: usize = 16 << 20;
/// At most this much memory is kept: above the pipe's HELD_BUDGET_B, so a batch's worth of
/// freed buffers fits.
const POOL_MAX_B: usize = 96 << 20;

// SAFETY: the mapping is plain shared memory owned by this value with no thread affinity; the
// winsys and the model only copy through the pointer.
unsafe impl Send for MemfdBacking {}
// SAFETY: see Send; shared access is through raw-pointer copies only.
unsafe impl Sync for MemfdBacking {}

fn lock_pool(p: &Mutex<Pool>) -> std::sync::MutexGuard<'_, Pool> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

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
    pub(crate) fn new(len_B: u64, pool: &SharedPool) -> Result<MemfdBacking> {
        let len = VaAllocator::rounded_B(len_B);
        let kept = {
            let mut p = lock_pool(pool);
            let at = p.free.iter().position(|e| e.2 as u64 == len);
            at.map(|i| {
                let e = p.free.swap_remove(i);
                p.held_B -= e.2;
                e
            })
        };
        if let Some((fd, ptr, n)) = kept {
            // SAFETY: `ptr` is the kept shared mapping of `n` bytes, owned by nobody else
            // since its backing dropped; a new buffer starts zeroed, as a fresh memfd does.
            unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, n) };
            return Ok(MemfdBacking {
                fd,
                ptr,
                len: n,
                reusable: AtomicBool::new(true),
                pool: Some(Arc::downgrade(pool)),
            });
        }
        let fd = rustix::fs::memfd_create(c"sgx535-sim-bo", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| WinsysError::Os {
                op: "memfd_create",
                errno: Errno::from_raw(e.raw_os_error()),
            })?;
        rustix::fs::ftruncate(&fd, len).map_err(|_| WinsysError::OutOfMemory { size_B: len_B })?;
        let mut b = MemfdBacking::map(fd, len)?;
        b.reusable.store(true, Ordering::Relaxed);
        b.pool = Some(Arc::downgrade(pool));
        Ok(b)
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
            reusable: AtomicBool::new(false),
            pool: None,
        })
    }

    /// The file, for export.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        // Someone else may hold the file from now on: its memory is never reused.
        self.reusable.store(false, Ordering::Relaxed);
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
        let pool = self.pool.as_ref().and_then(Weak::upgrade);
        if let Some(pool) =
            pool.filter(|_| self.reusable.load(Ordering::Relaxed) && self.len <= POOL_MAX_BUFFER_B)
        {
            let mut p = lock_pool(&pool);
            if p.held_B + self.len <= POOL_MAX_B {
                // The memfd moves to the pool with its mapping; `self.fd` keeps a placeholder
                // that closes nothing of the pool's.
                if let Ok(fd) = self.fd.try_clone() {
                    p.held_B += self.len;
                    p.free.push((fd, self.ptr, self.len));
                    return;
                }
            }
        }
        // SAFETY: ptr/len is this backing's own mapping, unmapped once; the model and every
        // Mapping hold the backing (or its buffer) while they use it.
        if let Err(e) = unsafe { munmap(self.ptr.cast(), self.len) } {
            log::error!("sim: munmap of a buffer: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgx_sim::Backing;

    fn fill(b: &MemfdBacking, v: u8) {
        // SAFETY: the backing's own mapping of len_B() bytes, used by nothing else here.
        unsafe { std::ptr::write_bytes(b.as_ptr(), v, b.len_B()) };
    }

    fn zeroed(b: &MemfdBacking) -> bool {
        // SAFETY: as in fill.
        unsafe { std::slice::from_raw_parts(b.as_ptr(), b.len_B()) }
            .iter()
            .all(|&x| x == 0)
    }

    #[test]
    fn a_dropped_buffer_serves_the_next_of_its_size_zeroed() {
        let pool = SharedPool::default();
        let len_B = 13 * 4096;
        let a = MemfdBacking::new(len_B, &pool).unwrap();
        fill(&a, 0xAB);
        let p = a.as_ptr();
        drop(a);
        let b = MemfdBacking::new(len_B, &pool).unwrap();
        assert_eq!(b.as_ptr(), p, "the kept mapping is reused");
        assert!(zeroed(&b));
        // With the device (its pool) gone, a dropped buffer is unmapped, not kept.
        drop(pool);
        drop(b);
    }

    #[test]
    fn an_exported_buffer_is_never_reused() {
        let pool = SharedPool::default();
        let len_B = 17 * 4096;
        let a = MemfdBacking::new(len_B, &pool).unwrap();
        let _ = a.fd();
        fill(&a, 0xCD);
        drop(a);
        assert!(lock_pool(&pool).free.is_empty());
        let b = MemfdBacking::new(len_B, &pool).unwrap();
        assert!(zeroed(&b));
    }
}
