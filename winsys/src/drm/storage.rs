//! A buffer's storage on the drm backend: a GEM object, mapped for the CPU on first use.

use std::collections::HashMap;
use std::os::fd::AsFd;
use std::sync::{Arc, MutexGuard, OnceLock, Weak};

use super::card::{ioctl_gem_info, os};
use super::shared::{lock, DrmShared};
use super::uapi::*;
use crate::bo::{Bo, BoDesc, BoStorage, WeakBo};
use crate::error::{Result, WinsysError};
use crate::submit::LostFlag;

/// A buffer's storage: a GEM object, mapped for the CPU on first use.
pub(super) struct DrmStorage {
    pub(super) shared: Weak<DrmShared>,
    pub(super) lost: LostFlag,
    pub(super) handle: u32,
    pub(super) size_B: u64,
    pub(super) offset: u64,
    pub(super) map: OnceLock<usize>,
}

impl BoStorage for DrmStorage {
    fn cpu_ptr(&self) -> Result<*mut u8> {
        if let Some(&p) = self.map.get() {
            return Ok(p as *mut u8);
        }
        let shared = self.shared.upgrade().ok_or(WinsysError::DeviceLost)?;
        let len = std::num::NonZeroUsize::new(self.size_B as usize)
            .ok_or_else(|| WinsysError::InvalidArgument("empty buffer".into()))?;
        let offset = i64::try_from(self.offset)
            .map_err(|_| WinsysError::InvalidArgument("mmap offset out of range".into()))?;
        // SAFETY: a fresh shared mapping of the GEM object at the offset the kernel gave; it
        // overlaps no Rust object and is unmapped in Drop.
        let p = unsafe {
            nix::sys::mman::mmap(
                None,
                len,
                nix::sys::mman::ProtFlags::PROT_READ | nix::sys::mman::ProtFlags::PROT_WRITE,
                nix::sys::mman::MapFlags::MAP_SHARED,
                shared.card.as_fd(),
                offset,
            )
        }
        .map_err(os("mmap of a GEM object"))?;
        let p = p.as_ptr() as usize;
        match self.map.set(p) {
            Ok(()) => Ok(p as *mut u8),
            Err(_) => {
                // Another thread mapped it first: keep theirs.
                // SAFETY: `p` is the mapping made just above, of `len` bytes, unused elsewhere.
                let _ = unsafe {
                    nix::sys::mman::munmap(std::ptr::NonNull::new_unchecked(p as *mut _), len.get())
                };
                Ok(*self.map.get().expect("set by the other thread") as *mut u8)
            }
        }
    }

    fn device_lost(&self) -> bool {
        self.lost.get()
    }

    fn handle(&self) -> u32 {
        self.handle
    }
}

impl Drop for DrmStorage {
    fn drop(&mut self) {
        if let Some(&p) = self.map.get() {
            // SAFETY: `p` is this storage's own mapping of size_B bytes; no Mapping outlives
            // the storage (each holds the buffer).
            let r = unsafe {
                nix::sys::mman::munmap(
                    std::ptr::NonNull::new_unchecked(p as *mut _),
                    self.size_B as usize,
                )
            };
            if let Err(e) = r {
                log::error!("drm: munmap of GEM object {}: {e}", self.handle);
            }
        }
        if let Some(s) = self.shared.upgrade() {
            let mut handles = lock(&s.handles);
            if handles
                .get(&self.handle)
                .is_some_and(|w| w.upgrade().is_none())
            {
                handles.remove(&self.handle);
            }
            if let Some(h) = drm::control::from_u32(self.handle) {
                if let Err(e) = drm::control::Device::close_buffer(&s.card, h) {
                    log::error!("drm: GEM_CLOSE of {}: {e}", self.handle);
                }
            }
        }
    }
}

impl DrmShared {
    /// Asks GEM_INFO for a new handle's address and mmap offset and makes it a buffer,
    /// registered under its handle. `storage` closes the handle if this fails.
    pub(super) fn wrap_handle(
        self: &Arc<Self>,
        mut storage: DrmStorage,
        desc: &BoDesc,
        mut handles: MutexGuard<'_, HashMap<u32, WeakBo>>,
    ) -> Result<Bo> {
        let handle = storage.handle;
        let mut i = drm_sgx535_gem_info {
            handle,
            ..Default::default()
        };
        // SAFETY: `i` is a live drm_sgx535_gem_info, the struct this request carries.
        if let Err(e) = unsafe { ioctl_gem_info(self.card.fd(), &mut i) } {
            // Storage's Drop takes the table lock to close the handle.
            drop(handles);
            drop(storage);
            return Err(self.ioctl_error("DRM_IOCTL_SGX535_GEM_INFO", e));
        }
        storage.offset = i.offset;
        let bo = Bo::new(
            self.core.id,
            self.core.next_bo_id(),
            desc,
            i.va,
            Box::new(storage),
            &self.core.live,
        );
        handles.insert(handle, bo.downgrade());
        Ok(bo)
    }
}
