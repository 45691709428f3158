//! The drm backend: a render node speaking include/drm-uapi/sgx535_drm.h. The `drm` crate opens
//! the node, checks the driver name and handles syncobjs; nix issues the driver's ioctls and
//! maps buffers. No GMA500 kernel exposes this uapi today: in tests the node is the drm-shim
//! (winsys/shim), which serves it with the device model.
//!
//! Dependencies are computed from the winsys's own reservations and passed as in-syncobjs, so
//! the ordering rules are the same as the other backends'. A reaper thread waits for the
//! out-syncobjs and signals the fences, asking JOB_INFO how each job ended.
//!
//! Hang recovery follows the kernel: each of the winsys's job contexts (`Job::context`, pipe's
//! context id) gets a kernel context of its own, so the kernel's reset (after a hang past its
//! budget, or an MMU fault) cancels only that context's queued jobs. The reaper records a
//! reset when a job of ours ends HANG or FAULT; CTX_RESET_STATUS (MODEL: no gma500 kernel has
//! it) tells of resets that other files' jobs caused, which leave every context here innocent.
//!
//! A loss (ENODEV or EIO from any ioctl, on a caller's thread or in the reaper's wait or
//! JOB_INFO) goes through `Core::lose` wherever it is found first: every job in flight is
//! traced lost before `is_lost()` shows it, and the call answers DeviceLost
//! (`DrmShared::ioctl_error`); the reaper then ends their fences, and imported ones, lost.

mod card;
mod reaper;
mod shared;
mod storage;
pub mod sync_file;
pub mod uapi;

use std::collections::HashMap;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{JoinHandle, ThreadId};
use std::time::Duration;

use crate::bo::{Bo, BoDesc, Caching, WeakBo};
use crate::device::sealed::WithCore;
use crate::device::{Backend, Device, DeviceInfo};
use crate::error::{Errno, Result, WinsysError};
use crate::fence::{Fence, UserFence};
use crate::job::Job;
use crate::live::LiveCounts;
use crate::reset::{ResetRecord, FOREIGN_CONTEXT};
use crate::submit::Core;
use card::*;
use shared::*;
use storage::DrmStorage;
use uapi::*;

/// Environment variable naming the render node to open (default: the first sgx535 node among
/// /dev/dri/renderD128..renderD191).
pub const NODE_ENV: &str = "SGX_DRM_NODE";

/// A device on a DRM render node.
pub struct DrmDevice {
    shared: Arc<DrmShared>,
    reaper: Option<JoinHandle<()>>,
    reaper_id: ThreadId,
    path: String,
}

impl DrmDevice {
    /// Opens the node named by `SGX_DRM_NODE`, else the first render node whose driver is
    /// sgx535.
    pub fn open_default() -> Result<DrmDevice> {
        if let Ok(p) = std::env::var(NODE_ENV) {
            return DrmDevice::open(std::path::Path::new(&p));
        }
        let mut tried = Vec::new();
        for minor in 128..192 {
            let path = format!("/dev/dri/renderD{minor}");
            match DrmDevice::open(std::path::Path::new(&path)) {
                Ok(d) => return Ok(d),
                Err(e) => {
                    log::debug!("drm: {path}: {e}");
                    tried.push(path);
                }
            }
        }
        Err(WinsysError::NoDevice {
            tried: format!("{} to {}", tried[0], tried[tried.len() - 1]),
        })
    }

    /// Opens a render node; refuses one whose driver is not sgx535 or that lacks syncobjs.
    /// A failed system call names the node.
    pub fn open(path: &std::path::Path) -> Result<DrmDevice> {
        let name = path.display().to_string();
        DrmDevice::open_unnamed(path).map_err(|e| match e {
            WinsysError::Os { op, errno } => WinsysError::Node {
                path: name,
                op,
                errno,
            },
            e => e,
        })
    }

    fn open_unnamed(path: &std::path::Path) -> Result<DrmDevice> {
        let name = path.display().to_string();
        let file = File::options()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| WinsysError::Os {
                op: "opening the render node",
                errno: io_errno(&e),
            })?;
        DrmDevice::from_file(file, name)
    }

    /// A device on an already open render node (the caller's fd, e.g. one Mesa's loader
    /// opened); `name` is how logs and errors call it. Refused as `open` refuses.
    pub fn from_fd(fd: std::os::fd::OwnedFd, name: &str) -> Result<DrmDevice> {
        DrmDevice::from_file(File::from(fd), name.to_string())
    }

    fn from_file(file: File, name: String) -> Result<DrmDevice> {
        let card = Card(file);
        let driver = drm::Device::get_driver(&card).map_err(|e| WinsysError::Os {
            op: "DRM_IOCTL_VERSION",
            errno: io_errno(&e),
        })?;
        let driver = driver.name().to_string_lossy().into_owned();
        if driver != driver_name() {
            return Err(WinsysError::NotSgx535 { path: name, driver });
        }
        let syncobjs =
            drm::Device::get_driver_capability(&card, drm::DriverCapability::SyncObj).unwrap_or(0);
        if syncobjs == 0 {
            return Err(WinsysError::Unsupported {
                backend: "drm",
                what: "a render node without syncobjs",
            });
        }
        let info = DeviceInfo {
            backend: Backend::Drm,
            driver,
            core_revision: card.get_param(DRM_SGX535_PARAM_CORE_REVISION)? as u32,
            va_start: card.get_param(DRM_SGX535_PARAM_VA_START)?,
            va_end: card.get_param(DRM_SGX535_PARAM_VA_END)?,
            page_B: card.get_param(DRM_SGX535_PARAM_PAGE_SIZE)?,
            is_model: card.get_param(DRM_SGX535_PARAM_IS_MODEL)? != 0,
        };
        let hang_budget_ms = match card.get_param(DRM_SGX535_PARAM_HANG_BUDGET_MS) {
            Ok(ms) => ms,
            // A kernel without the parameter: say the default.
            Err(_) => crate::reset::DEFAULT_HANG_BUDGET.as_millis() as u64,
        };
        let ctx = card.ctx_create()?;
        let wake =
            drm::control::Device::create_syncobj(&card, false).map_err(|e| WinsysError::Os {
                op: "DRM_IOCTL_SYNCOBJ_CREATE",
                errno: io_errno(&e),
            })?;
        let shared = Arc::new(DrmShared {
            core: Core::new(Some(crate::sim::DEFAULT_TRACE_LIMIT)),
            card,
            ctxs: Mutex::new(HashMap::from([(0, ctx)])),
            hang_budget_ms,
            resets: Mutex::new(Vec::new()),
            info,
            pending: Mutex::new(Pending {
                jobs: Vec::new(),
                imports: Vec::new(),
                shutdown: false,
            }),
            wake,
            handles: Mutex::new(HashMap::new()),
        });
        let for_reaper = Arc::clone(&shared);
        let reaper = std::thread::Builder::new()
            .name("sgx-drm-reaper".into())
            .spawn(move || reaper::run(for_reaper))
            .map_err(|e| WinsysError::Os {
                op: "spawning the drm reaper",
                errno: io_errno(&e),
            })?;
        let reaper_id = reaper.thread().id();
        log::info!(
            "drm: opened {name} (core revision {:#x})",
            shared.info.core_revision
        );
        Ok(DrmDevice {
            shared,
            reaper: Some(reaper),
            reaper_id,
            path: name,
        })
    }

    /// The node's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The thread that signals fences.
    pub fn reaper_thread(&self) -> ThreadId {
        self.reaper_id
    }

    /// The kernel's own implicit-sync wait (GEM_WAIT): until `bo` is idle for `access`.
    pub fn kernel_wait(&self, bo: &Bo, access: crate::Access, timeout: Duration) -> Result<()> {
        let now_ns = now_ns();
        let w = drm_sgx535_gem_wait {
            handle: bo.handle(),
            op: if access.writes() {
                SGX535_GEM_WAIT_WRITE
            } else {
                SGX535_GEM_WAIT_READ
            },
            timeout_ns: now_ns.saturating_add(timeout.as_nanos().min(i64::MAX as u128) as i64),
        };
        // SAFETY: `w` is a live drm_sgx535_gem_wait, the struct this request carries.
        match unsafe { ioctl_gem_wait(self.shared.card.fd(), &w) } {
            Ok(_) => Ok(()),
            Err(Errno::ETIME) | Err(Errno::ETIMEDOUT) => Err(WinsysError::Timeout {
                fence: 0,
                waited_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
            }),
            Err(e) => Err(self.shared.ioctl_error("DRM_IOCTL_SGX535_GEM_WAIT", e)),
        }
    }
}

impl WithCore for DrmDevice {
    fn core(&self) -> &Core {
        &self.shared.core
    }
}

impl Device for DrmDevice {
    fn info(&self) -> DeviceInfo {
        self.shared.info.clone()
    }

    fn create_bo(&self, desc: &BoDesc) -> Result<Bo> {
        let s = &self.shared;
        s.core.check_alive()?;
        desc.validate()?;
        let mut c = drm_sgx535_gem_create {
            size: desc.size_B as u32,
            flags: if desc.flags.caching == Caching::Cached {
                SGX535_BO_CACHED
            } else {
                0
            } | if desc.flags.gpu_read_only {
                SGX535_BO_GPU_READ_ONLY
            } else {
                0
            },
            va_align: desc.align_B as u32,
            handle: 0,
        };
        // SAFETY: `c` is a live drm_sgx535_gem_create, the struct this request carries.
        if let Err(errno) = unsafe { ioctl_gem_create(s.card.fd(), &mut c) } {
            return Err(match errno {
                Errno::ENOMEM | Errno::ENOSPC => WinsysError::OutOfMemory {
                    size_B: desc.size_B,
                },
                errno => s.ioctl_error("DRM_IOCTL_SGX535_GEM_CREATE", errno),
            });
        }
        // Made before GEM_INFO so that its Drop closes the handle if GEM_INFO fails.
        let storage = DrmStorage {
            shared: Arc::downgrade(s),
            lost: s.core.lost_flag(),
            handle: c.handle,
            size_B: desc.size_B,
            offset: 0,
            map: OnceLock::new(),
        };
        let handles = lock(&s.handles);
        s.wrap_handle(storage, desc, handles)
    }

    fn export_bo(&self, bo: &Bo) -> Result<OwnedFd> {
        let s = &self.shared;
        s.core.check_alive()?;
        if bo.device() != s.core.id {
            return Err(WinsysError::ForeignObject("buffer"));
        }
        let h = drm::control::from_u32(bo.handle())
            .ok_or_else(|| WinsysError::InvalidArgument("buffer without a GEM handle".into()))?;
        drm::control::Device::buffer_to_prime_fd(
            &s.card,
            h,
            (libc::O_CLOEXEC | libc::O_RDWR) as u32,
        )
        .map_err(|e| s.ioctl_error("DRM_IOCTL_PRIME_HANDLE_TO_FD", io_errno(&e)))
    }

    fn import_bo(&self, fd: BorrowedFd<'_>, size_B: u64) -> Result<Bo> {
        let s = &self.shared;
        s.core.check_alive()?;
        let desc = BoDesc::new(size_B);
        desc.validate()?;
        let have = crate::memfd::fd_size_B(fd)?;
        let need = crate::va::VaAllocator::rounded_B(size_B);
        if have < need {
            return Err(WinsysError::InvalidArgument(format!(
                "imported buffer holds {have} bytes; {size_B} bytes ({need} in whole pages) asked"
            )));
        }
        let handles = lock(&s.handles);
        let h = drm::control::Device::prime_fd_to_buffer(&s.card, fd)
            .map_err(|e| s.ioctl_error("DRM_IOCTL_PRIME_FD_TO_HANDLE", io_errno(&e)))?;
        let handle: u32 = h.into();
        let existing = handles.get(&handle).and_then(WeakBo::upgrade);
        if let Some(bo) = existing {
            // Dropping a buffer takes the table lock.
            drop(handles);
            // Already ours (exported here, or imported before): the same buffer.
            if bo.size_B() < size_B {
                return Err(WinsysError::InvalidArgument(format!(
                    "buffer {} has {} bytes; {size_B} asked",
                    bo.id(),
                    bo.size_B()
                )));
            }
            return Ok(bo);
        }
        let storage = DrmStorage {
            shared: Arc::downgrade(s),
            lost: s.core.lost_flag(),
            handle,
            size_B,
            offset: 0,
            map: OnceLock::new(),
        };
        s.wrap_handle(storage, &desc, handles)
    }

    fn submit(&self, job: Job) -> Result<Fence> {
        self.shared.core.submit(job, &*self.shared)
    }

    /// A sync file's fence into a syncobj (SYNCOBJ_FD_TO_HANDLE with IMPORT_SYNC_FILE) that
    /// the reaper waits for: the fence ends when it signals, with an error
    /// (`JobError::Failed` naming the errno) when SYNC_IOC_FILE_INFO reports one.
    fn import_fence(&self, fd: BorrowedFd<'_>) -> Result<Fence> {
        let s = &self.shared;
        s.core.check_alive()?;
        let sync_file = fd.try_clone_to_owned().map_err(|e| WinsysError::Os {
            op: "dup of a sync file",
            errno: io_errno(&e),
        })?;
        let h = drm::control::Device::create_syncobj(&s.card, false)
            .map_err(|e| s.ioctl_error("DRM_IOCTL_SYNCOBJ_CREATE", io_errno(&e)))?;
        if let Err(errno) = sync_file::import(s.card.as_fd(), h.into(), fd) {
            let _ = drm::control::Device::destroy_syncobj(&s.card, h);
            return Err(s.ioctl_error("DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE", errno));
        }
        let fence = s.core.new_fence();
        let mut p = lock(&s.pending);
        if p.shutdown {
            let _ = drm::control::Device::destroy_syncobj(&s.card, h);
            return Err(WinsysError::DeviceLost);
        }
        p.imports.push(Imported {
            syncobj: h,
            fence: fence.clone(),
            sync_file,
            _token: s.core.live.token(crate::live::LiveKind::Job),
        });
        drop(p);
        if let Err(e) = drm::control::Device::syncobj_signal(&s.card, &[s.wake]) {
            log::error!("drm: waking the reaper: {e}");
        }
        Ok(fence)
    }

    /// A pending job's out-syncobj exported as a sync file. A fence that has already ended has
    /// no syncobj left (the reaper destroys it): it gets a signalled one's sync file, which
    /// carries no error (ask the fence how the job ended).
    fn export_fence(&self, fence: &Fence) -> Result<OwnedFd> {
        let s = &self.shared;
        s.core.check_alive()?;
        if fence.device() != s.core.id {
            return Err(WinsysError::ForeignObject("fence"));
        }
        let export = |h| {
            drm::control::Device::syncobj_to_fd(&s.card, h, true)
                .map_err(|e| s.ioctl_error("DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD", io_errno(&e)))
        };
        {
            // Under the lock the reaper takes to destroy a finished job's syncobj.
            let p = lock(&s.pending);
            if let Some(j) = p.jobs.iter().find(|j| j.acc.fence.id() == fence.id()) {
                return export(j.syncobj);
            }
        }
        if fence.is_pending() {
            // Accepted but not yet listed, or a user fence: the in-process form.
            return fence.export_fd();
        }
        let h = drm::control::Device::create_syncobj(&s.card, true)
            .map_err(|e| s.ioctl_error("DRM_IOCTL_SYNCOBJ_CREATE", io_errno(&e)))?;
        let r = export(h);
        if let Err(e) = drm::control::Device::destroy_syncobj(&s.card, h) {
            log::error!("drm: destroying a syncobj: {e}");
        }
        r
    }

    fn user_fence(&self) -> Result<UserFence> {
        Err(WinsysError::Unsupported {
            backend: "drm",
            what: "user fences",
        })
    }

    fn live(&self) -> LiveCounts {
        self.shared.core.live()
    }

    /// The resets the reaper saw jobs of this device cause, then those CTX_RESET_STATUS
    /// reports beyond them (other files' jobs: every context here is innocent of those).
    fn resets(&self) -> Vec<ResetRecord> {
        let s = &self.shared;
        let ctxs: Vec<u32> = lock(&s.ctxs).values().copied().collect();
        let mut total = None;
        let mut ours = 0u32;
        for ctx in ctxs {
            match s.card.ctx_reset_status(ctx) {
                Ok(r) => {
                    // The first answer's count: a reset of ours between the queries then
                    // only raises `ours`, and is never taken for another client's.
                    total.get_or_insert(r.resets);
                    ours = ours.saturating_add(r.guilty);
                }
                Err(e) => log::debug!("drm: {e}"),
            }
        }
        let mut records = lock(&s.resets);
        if let Some(total) = total {
            let foreign = records
                .iter()
                .filter(|r| r.guilty_context == Some(FOREIGN_CONTEXT))
                .count() as u32;
            // A reset of ours the reaper has not recorded yet is in `ours` already.
            for _ in foreign..total.saturating_sub(ours) {
                records.push(ResetRecord {
                    fence: 0,
                    guilty_context: Some(FOREIGN_CONTEXT),
                });
            }
        }
        records.clone()
    }
}

impl Drop for DrmDevice {
    /// Stops the reaper; jobs still in flight end with DeviceLost (nobody is left to reap them).
    fn drop(&mut self) {
        lock(&self.shared.pending).shutdown = true;
        let _ = drm::control::Device::syncobj_signal(&self.shared.card, &[self.shared.wake]);
        if let Some(r) = self.reaper.take() {
            if r.join().is_err() {
                log::error!("drm: the reaper thread panicked");
            }
        }
        let ctxs: Vec<u32> = lock(&self.shared.ctxs).drain().map(|(_, id)| id).collect();
        for id in ctxs {
            self.shared.card.ctx_free(id);
        }
    }
}
