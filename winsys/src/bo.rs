//! Buffer objects: storage with a GPU address, a reservation, and CPU maps that wait by
//! dma-resv rules. Reference counted; the storage is freed when the last reference is gone, and
//! every job that uses a buffer holds a reference until it finishes, so a buffer outlives its
//! last fence too.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::access::Access;
use crate::error::{Result, WinsysError};
use crate::fence::Fence;
use crate::live::{LiveCounters, LiveKind, LiveToken};
use crate::reservation::Reservation;

/// How the CPU maps a buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Caching {
    /// Write-combined: fast CPU writes, slow CPU reads.
    #[default]
    WriteCombined,
    /// Cached.
    Cached,
}

/// Buffer flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoFlags {
    /// CPU caching of maps.
    pub caching: Caching,
    /// The GPU MMU maps the buffer read-only; a job may not write it.
    pub gpu_read_only: bool,
    /// The buffer may start with any bytes instead of zeros: a buffer the model's pool kept
    /// is handed out without clearing it. For memory a job writes before anything reads it
    /// (a render's parameter memory). The bytes are ones this device held before (the pool
    /// is the device's, and keeps no exported buffer); backends that always clear ignore it.
    pub undefined_contents: bool,
}

/// What to allocate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoDesc {
    /// Size in bytes (the allocation is rounded up to pages).
    pub size_B: u64,
    /// GPU address alignment in bytes: a power of two; 0 means one page. PDS programs need
    /// 1 MiB (hw-facts: PDS_EXEC_BASE is 1 MiB aligned).
    pub align_B: u64,
    /// Flags.
    pub flags: BoFlags,
}

impl BoDesc {
    /// A write-combined, GPU-writable buffer of `size_B` bytes, page aligned.
    pub fn new(size_B: u64) -> BoDesc {
        BoDesc {
            size_B,
            align_B: 0,
            flags: BoFlags::default(),
        }
    }

    /// With a GPU address alignment.
    pub fn align(mut self, align_B: u64) -> BoDesc {
        self.align_B = align_B;
        self
    }

    /// With flags.
    pub fn flags(mut self, flags: BoFlags) -> BoDesc {
        self.flags = flags;
        self
    }

    /// Checks size and alignment against the 32-bit GPU address space.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.size_B == 0 {
            return Err(WinsysError::InvalidArgument("buffer size is 0".into()));
        }
        if self.size_B > u32::MAX as u64 {
            return Err(WinsysError::OutOfMemory {
                size_B: self.size_B,
            });
        }
        if self.align_B != 0 && (!self.align_B.is_power_of_two() || self.align_B > 1 << 31) {
            return Err(WinsysError::InvalidArgument(format!(
                "buffer alignment {} is not a power of two up to 2 GiB",
                self.align_B
            )));
        }
        Ok(())
    }
}

/// A backend's storage of one buffer. Dropping it frees the storage and the GPU range.
pub(crate) trait BoStorage: Send + Sync {
    /// CPU address of the storage (valid while the storage lives); may map on first use.
    fn cpu_ptr(&self) -> Result<*mut u8>;
    /// True once the owning device is lost.
    fn device_lost(&self) -> bool;
    /// Kernel GEM handle (drm backend), 0 elsewhere.
    fn handle(&self) -> u32 {
        0
    }
    /// The file behind the storage that an export duplicates (sim backend), if any.
    fn shared_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        None
    }
}

pub(crate) struct BoInner {
    id: u64,
    device: u64,
    size_B: u64,
    gpu_addr: u32,
    flags: BoFlags,
    resv: Mutex<Reservation>,
    storage: Box<dyn BoStorage>,
    _live: LiveToken,
}

/// A buffer object. Cheap to clone (a reference).
#[derive(Clone)]
pub struct Bo(Arc<BoInner>);

impl std::fmt::Debug for Bo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bo")
            .field("id", &self.0.id)
            .field("size_B", &self.0.size_B)
            .field("gpu_addr", &format_args!("{:#010x}", self.0.gpu_addr))
            .finish()
    }
}

impl Bo {
    pub(crate) fn new(
        device: u64,
        id: u64,
        desc: &BoDesc,
        gpu_addr: u32,
        storage: Box<dyn BoStorage>,
        live: &Arc<LiveCounters>,
    ) -> Bo {
        Bo(Arc::new(BoInner {
            id,
            device,
            size_B: desc.size_B,
            gpu_addr,
            flags: desc.flags,
            resv: Mutex::new(Reservation::default()),
            storage,
            _live: live.token(LiveKind::Bo),
        }))
    }

    /// Device-unique id.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    pub(crate) fn device(&self) -> u64 {
        self.0.device
    }

    pub(crate) fn handle(&self) -> u32 {
        self.0.storage.handle()
    }

    pub(crate) fn shared_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        self.0.storage.shared_fd()
    }

    /// A reference that does not keep the buffer alive.
    pub(crate) fn downgrade(&self) -> WeakBo {
        WeakBo(Arc::downgrade(&self.0))
    }

    /// Size in bytes, as requested.
    pub fn size_B(&self) -> u64 {
        self.0.size_B
    }

    /// GPU virtual address of byte 0.
    pub fn gpu_addr(&self) -> u32 {
        self.0.gpu_addr
    }

    /// Flags.
    pub fn flags(&self) -> BoFlags {
        self.0.flags
    }

    /// A snapshot of the buffer's reservation.
    pub fn reservation(&self) -> Reservation {
        self.resv().clone()
    }

    pub(crate) fn resv(&self) -> MutexGuard<'_, Reservation> {
        // Reservation updates are single assignments; a poisoned lock still holds a valid one.
        self.0.resv.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the CPU may access the buffer with `access` (read: the writer has finished;
    /// write: every job has). A job that finished with an error still counts as finished: its
    /// fence reports the error. Err(Timeout) if a fence is still pending at the timeout.
    pub fn wait(&self, access: Access, timeout: Duration) -> Result<()> {
        if self.0.storage.device_lost() {
            return Err(WinsysError::DeviceLost);
        }
        let deadline = Instant::now().checked_add(timeout);
        let fences: Vec<Fence> = self.resv().fences_for(access);
        for f in fences {
            let left = deadline.map_or(Duration::MAX, |d| {
                d.saturating_duration_since(Instant::now())
            });
            match f.wait(left) {
                Ok(()) | Err(WinsysError::Job { .. }) => {}
                Err(WinsysError::Timeout { fence, .. }) => {
                    return Err(WinsysError::Timeout {
                        fence,
                        waited_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
                    })
                }
                Err(e) => return Err(e),
            }
        }
        self.resv().prune();
        Ok(())
    }

    /// Maps the buffer for the CPU after waiting by dma-resv rules (see [`Bo::wait`]).
    pub fn map(&self, access: Access, timeout: Duration) -> Result<Mapping> {
        self.wait(access, timeout)?;
        self.map_unsynchronized(access)
    }

    /// Maps without waiting: the caller guarantees no pending job touches the bytes it accesses
    /// (for example a ring of uploads at distinct offsets).
    pub fn map_unsynchronized(&self, access: Access) -> Result<Mapping> {
        let ptr = self.live_ptr()?;
        Ok(Mapping {
            bo: self.clone(),
            ptr,
            access,
        })
    }

    /// Copies `data` to `offset_B` without waiting, as a write through
    /// [`Bo::map_unsynchronized`] would, with the same errors; no mapping is made (a mapping
    /// holds the buffer by a count, and the C ABI's per-draw uploads measured its changes).
    pub fn write_unsynchronized(&self, offset_B: u64, data: &[u8]) -> Result<()> {
        let p = self.unsynchronized_at(offset_B, data.len())?;
        // SAFETY: `p` starts data.len() bytes within the storage, which `self` keeps alive for
        // the copy; `data` is a distinct caller buffer.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
        Ok(())
    }

    /// Copies `out.len()` bytes from `offset_B` without waiting, as
    /// [`Bo::write_unsynchronized`] writes.
    pub fn read_unsynchronized(&self, offset_B: u64, out: &mut [u8]) -> Result<()> {
        let p = self.unsynchronized_at(offset_B, out.len())?;
        // SAFETY: as in write_unsynchronized; `out` is a distinct caller buffer.
        unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// The CPU address of byte `offset_B`, when `len` bytes from it lie within the buffer and
    /// the device is not lost.
    fn unsynchronized_at(&self, offset_B: u64, len: usize) -> Result<*mut u8> {
        let ptr = self.live_ptr()?;
        let off = self.range(offset_B, len)?;
        // SAFETY: off is within the storage of size_B bytes (checked by range).
        Ok(unsafe { ptr.add(off) })
    }

    /// The CPU address of byte 0, unless the device is lost.
    fn live_ptr(&self) -> Result<*mut u8> {
        if self.0.storage.device_lost() {
            return Err(WinsysError::DeviceLost);
        }
        self.0.storage.cpu_ptr()
    }

    /// `offset_B` as an index when `len` bytes from it lie within the buffer.
    fn range(&self, offset_B: u64, len: usize) -> Result<usize> {
        match offset_B.checked_add(len as u64) {
            Some(end) if end <= self.size_B() => Ok(offset_B as usize),
            _ => Err(WinsysError::InvalidArgument(format!(
                "range {offset_B}+{len} outside buffer {} of {} bytes",
                self.id(),
                self.size_B()
            ))),
        }
    }

    /// Writes `data` at `offset_B` through a synchronized write map.
    pub fn write(&self, offset_B: u64, data: &[u8], timeout: Duration) -> Result<()> {
        self.map(Access::Write, timeout)?.write_at(offset_B, data)
    }

    /// Reads the whole buffer through a synchronized read map.
    pub fn read_all(&self, timeout: Duration) -> Result<Vec<u8>> {
        Ok(self.map(Access::Read, timeout)?.to_vec())
    }
}

/// A buffer reference that does not keep it alive (the drm backend's table of GEM handles).
#[derive(Clone)]
pub(crate) struct WeakBo(std::sync::Weak<BoInner>);

impl WeakBo {
    /// The buffer, if it is still alive.
    pub(crate) fn upgrade(&self) -> Option<Bo> {
        self.0.upgrade().map(Bo)
    }
}

/// A CPU mapping of a buffer. It keeps the buffer alive. Access goes through copies
/// ([`Mapping::read_at`], [`Mapping::write_at`]) because the GPU may share the bytes; raw
/// access is `unsafe`.
pub struct Mapping {
    bo: Bo,
    ptr: *mut u8,
    access: Access,
}

// SAFETY: the pointer is into storage owned by `bo` (kept alive by this mapping); the storage is
// plain memory with no thread affinity.
unsafe impl Send for Mapping {}
// SAFETY: shared use only copies through the pointer; see Send.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// The buffer.
    pub fn bo(&self) -> &Bo {
        &self.bo
    }

    /// Mapped length in bytes (the buffer's size).
    pub fn len_B(&self) -> u64 {
        self.bo.size_B()
    }

    /// CPU address of byte 0.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    fn range(&self, offset_B: u64, len: usize) -> Result<usize> {
        self.bo.range(offset_B, len)
    }

    /// Copies `out.len()` bytes from `offset_B`.
    pub fn read_at(&self, offset_B: u64, out: &mut [u8]) -> Result<()> {
        if !self.access.reads() {
            return Err(WinsysError::InvalidArgument(
                "read through a write-only map".into(),
            ));
        }
        let off = self.range(offset_B, out.len())?;
        // SAFETY: off + out.len() is within the storage (checked above); `out` is a distinct
        // caller buffer, so the ranges do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.add(off), out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    /// Copies `data` to `offset_B`.
    pub fn write_at(&self, offset_B: u64, data: &[u8]) -> Result<()> {
        if !self.access.writes() {
            return Err(WinsysError::InvalidArgument(
                "write through a read-only map".into(),
            ));
        }
        let off = self.range(offset_B, data.len())?;
        // SAFETY: off + data.len() is within the storage (checked above); `data` is a distinct
        // caller buffer.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(off), data.len()) };
        Ok(())
    }

    /// The whole buffer, copied.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = vec![0; self.len_B() as usize];
        // A map without read access still yields the bytes here: the copy is what was asked for.
        // SAFETY: the storage holds len_B() bytes.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr, v.as_mut_ptr(), v.len()) };
        v
    }

    /// The bytes as a slice.
    ///
    /// # Safety
    /// No job may write the buffer, and no other mapping may write it, while the slice lives.
    pub unsafe fn as_slice(&self) -> &[u8] {
        // SAFETY: the caller upholds the exclusivity; the storage holds len_B() bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len_B() as usize) }
    }

    /// The bytes as a mutable slice.
    ///
    /// # Safety
    /// No job may use the buffer, and no other mapping may access it, while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn as_mut_slice(&self) -> &mut [u8] {
        // SAFETY: the caller upholds the exclusivity; the storage holds len_B() bytes.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len_B() as usize) }
    }
}
