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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

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
    /// Made here and never handed out as a file: its memory may serve a later buffer.
    reusable: AtomicBool,
    /// Where its memory goes when it is dropped, while the pool's owner lives.
    pool: Option<Weak<Mutex<Pool>>>,
}

/// One kept buffer: its memfd and mapping, and how to close them.
struct Kept {
    fd: RawFd,
    ptr: NonNull<u8>,
    len: usize,
    ident: (u64, u64),
    calls: &'static dyn FileCalls,
}

/// Freed buffers' memfds and mappings, kept for the next buffer of the same size on the same
/// device. An app that makes and drops a texture per frame (piglit's streaming-texture-leak:
/// 5000 of 4 MiB) spent most of its time faulting in and tearing down fresh shmem pages; a kept
/// buffer is zeroed instead, which touches pages already there. The device owns the pool: it
/// closes and unmaps what it keeps when it goes.
#[derive(Default)]
pub struct Pool {
    free: Vec<Kept>,
    held_B: usize,
}

// SAFETY: the pool owns the mappings it holds (each unmapped or handed to one new backing);
// they are plain shared memory with no thread affinity.
unsafe impl Send for Pool {}

impl Drop for Pool {
    fn drop(&mut self) {
        for k in self.free.drain(..) {
            // SAFETY: a kept mapping, owned by the pool alone, unmapped once.
            if let Err(e) = unsafe { munmap(k.ptr.cast(), k.len) } {
                log::error!("memfd: munmap of a pooled buffer: {e}");
            }
            k.calls.close(k.fd);
        }
    }
}

/// A device's pool, shared with its buffers' backings.
pub type SharedPool = Arc<Mutex<Pool>>;

/// Buffers from one page up to this size are kept.
const POOL_MAX_BUFFER_B: usize = 16 << 20;
/// At most this much memory is kept: above the pipe's HELD_BUDGET_B, so a batch's worth of
/// freed buffers fits.
const POOL_MAX_B: usize = 96 << 20;

fn lock_pool(p: &Mutex<Pool>) -> std::sync::MutexGuard<'_, Pool> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

/// Unmaps and closes every buffer `pool` keeps; buffers freed later are kept again.
pub fn empty_pool(pool: &SharedPool) {
    let kept = std::mem::take(&mut *lock_pool(pool));
    drop(kept);
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

    /// As [`MemfdBacking::new`], taking a buffer of the same size from `pool` when it keeps
    /// one (zeroed when `zero`, else as its last owner left it), and giving the memory back
    /// to it when dropped, unless exported.
    pub fn new_pooled(
        len_B: u64,
        calls: &'static dyn FileCalls,
        pool: &SharedPool,
        zero: bool,
    ) -> Result<MemfdBacking> {
        let len = VaAllocator::rounded_B(len_B) as usize;
        let kept = {
            let mut p = lock_pool(pool);
            let at = p.free.iter().position(|k| k.len == len);
            at.map(|i| {
                let k = p.free.swap_remove(i);
                p.held_B -= k.len;
                k
            })
        };
        let mut b = match kept {
            Some(k) => {
                if zero {
                    // SAFETY: `k.ptr` is the kept shared mapping of `k.len` bytes, owned by
                    // nobody else since its backing dropped; a new buffer starts zeroed, as a
                    // fresh memfd.
                    unsafe { std::ptr::write_bytes(k.ptr.as_ptr(), 0, k.len) };
                }
                MemfdBacking {
                    fd: k.fd,
                    ptr: k.ptr,
                    len: k.len,
                    ident: k.ident,
                    calls: k.calls,
                    reusable: AtomicBool::new(false),
                    pool: None,
                }
            }
            None => MemfdBacking::new(len_B, calls)?,
        };
        b.reusable.store(true, Ordering::Relaxed);
        b.pool = Some(Arc::downgrade(pool));
        Ok(b)
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
                reusable: AtomicBool::new(false),
                pool: None,
            }),
            Err(e) => {
                calls.close(fd);
                Err(e)
            }
        }
    }

    /// The file, for export or for mapping into a caller.
    pub fn fd(&self) -> BorrowedFd<'_> {
        // Someone else may hold the file from now on: its memory is never reused.
        self.reusable.store(false, Ordering::Relaxed);
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
        let pool = self.pool.as_ref().and_then(Weak::upgrade);
        if let Some(pool) =
            pool.filter(|_| self.reusable.load(Ordering::Relaxed) && self.len <= POOL_MAX_BUFFER_B)
        {
            let mut p = lock_pool(&pool);
            if p.held_B + self.len <= POOL_MAX_B {
                // The memfd and its mapping move to the pool, which unmaps and closes them.
                p.held_B += self.len;
                p.free.push(Kept {
                    fd: self.fd,
                    ptr: self.ptr,
                    len: self.len,
                    ident: self.ident,
                    calls: self.calls,
                });
                return;
            }
        }
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
        let a = MemfdBacking::new_pooled(len_B, &Libc, &pool, true).unwrap();
        fill(&a, 0xAB);
        let p = a.as_ptr();
        drop(a);
        let b = MemfdBacking::new_pooled(len_B, &Libc, &pool, true).unwrap();
        assert_eq!(b.as_ptr(), p, "the kept mapping is reused");
        assert!(zeroed(&b));
        // Emptied, the pool serves nothing until a buffer is freed again.
        let d = MemfdBacking::new_pooled(len_B, &Libc, &pool, true).unwrap();
        drop(d);
        empty_pool(&pool);
        assert!(lock_pool(&pool).free.is_empty());
        assert_eq!(lock_pool(&pool).held_B, 0);
        // Another size is not served from it.
        let c = MemfdBacking::new_pooled(2 * len_B, &Libc, &pool, true).unwrap();
        assert_ne!(c.as_ptr(), p);
        // With the device (its pool) gone, a dropped buffer is unmapped, not kept.
        drop(pool);
        drop(b);
    }

    #[test]
    fn a_buffer_of_undefined_contents_keeps_the_last_owners_bytes() {
        let pool = SharedPool::default();
        let len_B = 11 * 4096;
        // A fresh one is zeroed all the same (a new memfd).
        let a = MemfdBacking::new_pooled(len_B, &Libc, &pool, false).unwrap();
        assert!(zeroed(&a));
        fill(&a, 0x5A);
        let p = a.as_ptr();
        drop(a);
        let b = MemfdBacking::new_pooled(len_B, &Libc, &pool, false).unwrap();
        assert_eq!(b.as_ptr(), p, "the kept mapping is reused");
        // SAFETY: as in fill.
        let bytes = unsafe { std::slice::from_raw_parts(b.as_ptr(), b.len_B()) };
        assert!(bytes.iter().all(|&x| x == 0x5A), "not cleared");
        drop(b);
        // The next owner that asks for zeros gets them from the same mapping.
        let c = MemfdBacking::new_pooled(len_B, &Libc, &pool, true).unwrap();
        assert_eq!(c.as_ptr(), p);
        assert!(zeroed(&c));
    }

    #[test]
    fn an_exported_buffer_is_never_reused() {
        let pool = SharedPool::default();
        let len_B = 17 * 4096;
        let a = MemfdBacking::new_pooled(len_B, &Libc, &pool, true).unwrap();
        let _ = a.fd();
        fill(&a, 0xCD);
        drop(a);
        assert!(lock_pool(&pool).free.is_empty());
        let b = MemfdBacking::new_pooled(len_B, &Libc, &pool, true).unwrap();
        assert!(zeroed(&b));
    }

    #[test]
    fn an_import_longer_than_the_file_is_refused() {
        let a = MemfdBacking::new(4096, &Libc).unwrap();
        let e = MemfdBacking::import(a.fd(), 4097, &Libc).err().unwrap();
        assert!(matches!(e, WinsysError::InvalidArgument(_)), "{e}");
    }
}
