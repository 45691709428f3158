//! What the device, its buffers and the reaper share: the card, the kernel contexts, the jobs
//! in flight; and the submission of an accepted job to the kernel.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::{Mutex, MutexGuard};

use drm::control::syncobj;

use super::card::*;
use super::uapi::*;
use crate::bo::WeakBo;
use crate::device::DeviceInfo;
use crate::error::{Errno, Result, WinsysError};
use crate::fence::Fence;
use crate::job::JobKind;
use crate::reset::ResetRecord;
use crate::submit::{Accepted, Core, Engine};

/// A job the kernel accepted and the reaper waits for.
pub(crate) struct InFlight {
    pub syncobj: syncobj::Handle,
    pub job_id: u64,
    pub acc: Accepted,
    pub submitted: std::time::Instant,
}

/// A fence imported from a sync file: its syncobj, which the reaper waits for, and the sync
/// file, which says how it ended.
pub(crate) struct Imported {
    pub syncobj: syncobj::Handle,
    pub fence: Fence,
    pub sync_file: OwnedFd,
    pub _token: crate::live::LiveToken,
}

pub(crate) struct Pending {
    pub jobs: Vec<InFlight>,
    pub imports: Vec<Imported>,
    pub shutdown: bool,
}

pub(crate) struct DrmShared {
    pub core: Core,
    pub card: Card,
    /// Kernel contexts by job context (`Job::context`); 0, a job naming no context, has the
    /// one made at open.
    pub(super) ctxs: Mutex<HashMap<u64, u32>>,
    /// The kernel's hang budget (GET_PARAM), for `JobError::Hang`.
    pub hang_budget_ms: u64,
    /// Resets a job of this device caused (recorded by the reaper), and, after them, resets of
    /// other files (FOREIGN_CONTEXT), found by CTX_RESET_STATUS.
    pub resets: Mutex<Vec<ResetRecord>>,
    pub(super) info: DeviceInfo,
    pub pending: Mutex<Pending>,
    /// Signalled by submit to wake the reaper so it waits for the new job too.
    pub wake: syncobj::Handle,
    /// Buffers by GEM handle. The kernel gives an imported dma-buf the handle the file already
    /// has for it, so an import must find that buffer rather than own the handle twice. Held
    /// across FD_TO_HANDLE and GEM_CLOSE so that a handle is not reused in between.
    pub(super) handles: Mutex<HashMap<u32, WeakBo>>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each critical section leaves its data consistent before anything can panic.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn regs(list: &[(u32, u32)]) -> Vec<drm_sgx535_reg> {
    list.iter()
        .map(|&(offset, value)| drm_sgx535_reg { offset, value })
        .collect()
}

impl DrmShared {
    /// The kernel context of job context `context`, made on first use.
    pub(super) fn kernel_ctx(&self, context: u64) -> Result<u32> {
        let mut ctxs = lock(&self.ctxs);
        if let Some(&id) = ctxs.get(&context) {
            return Ok(id);
        }
        let id = self.card.ctx_create().map_err(|e| match e {
            WinsysError::Os { op, errno } => self.ioctl_error(op, errno),
            e => e,
        })?;
        ctxs.insert(context, id);
        Ok(id)
    }

    /// A failed ioctl as the caller sees it: DeviceLost when the errno says the device is gone
    /// (ENODEV, EIO), else the call and its errno. The caller's thread may learn of a loss
    /// before the reaper does: the jobs in flight are traced as lost here, before the loss
    /// shows (`Core::lose`); the reaper ends their fences when it finds the loss too.
    pub(super) fn ioctl_error(&self, op: &'static str, errno: Errno) -> WinsysError {
        match errno {
            Errno::ENODEV | Errno::EIO => {
                self.core.lose();
                WinsysError::DeviceLost
            }
            errno => WinsysError::Os { op, errno },
        }
    }
}

impl Engine for DrmShared {
    fn enqueue(&self, acc: Accepted) -> Result<()> {
        let mut pending = lock(&self.pending);
        if pending.shutdown {
            return Err(WinsysError::DeviceLost);
        }
        // A dependency still pending is a job of ours whose syncobj the reaper has not yet
        // destroyed (it removes the job under this lock when it signals the fence).
        let mut in_syncs: Vec<u32> = Vec::new();
        for dep in acc.deps.iter().filter(|f| f.is_pending()) {
            let job = pending.jobs.iter().find(|j| j.acc.fence.id() == dep.id());
            let import = pending.imports.iter().find(|i| i.fence.id() == dep.id());
            match job.map(|j| j.syncobj).or(import.map(|i| i.syncobj)) {
                Some(h) => in_syncs.push(h.into()),
                None => {
                    return Err(WinsysError::InvalidJob(format!(
                        "fence {} is not a job of this device",
                        dep.id()
                    )))
                }
            }
        }
        let bos: Vec<drm_sgx535_gem_submit_bo> = acc
            .job
            .bos
            .iter()
            .map(|(bo, access)| drm_sgx535_gem_submit_bo {
                handle: bo.handle(),
                flags: if access.reads() {
                    SGX535_SUBMIT_BO_READ
                } else {
                    0
                } | if access.writes() {
                    SGX535_SUBMIT_BO_WRITE
                } else {
                    0
                },
            })
            .collect();
        let (pipe, ta, td, twod) = match &acc.job.kind {
            JobKind::Render { ta_regs, td_regs } => {
                (SGX535_PIPE_TA_3D, regs(ta_regs), regs(td_regs), Vec::new())
            }
            JobKind::TwoD { regs: r } => (SGX535_PIPE_2D, Vec::new(), Vec::new(), regs(r)),
        };
        let ctx = self.kernel_ctx(acc.job.context)?;
        let out = drm::control::Device::create_syncobj(&self.card, false)
            .map_err(|e| self.ioctl_error("DRM_IOCTL_SYNCOBJ_CREATE", io_errno(&e)))?;
        let ptr = |v: *const std::ffi::c_void, n: usize| if n == 0 { 0 } else { v as u64 };
        let mut submit = drm_sgx535_gem_submit {
            ctx,
            pipe,
            nr_bos: bos.len() as u32,
            nr_in_syncs: in_syncs.len() as u32,
            nr_regs_ta: ta.len() as u32,
            nr_regs_3d: td.len() as u32,
            nr_regs_2d: twod.len() as u32,
            out_sync: out.into(),
            bos: ptr(bos.as_ptr().cast(), bos.len()),
            in_syncs: ptr(in_syncs.as_ptr().cast(), in_syncs.len()),
            regs_ta: ptr(ta.as_ptr().cast(), ta.len()),
            regs_3d: ptr(td.as_ptr().cast(), td.len()),
            regs_2d: ptr(twod.as_ptr().cast(), twod.len()),
            ..Default::default()
        };
        // SAFETY: `submit` is a live drm_sgx535_gem_submit whose array pointers point at the
        // vectors above, alive until the call returns, with the counts given.
        if let Err(errno) = unsafe { ioctl_gem_submit(self.card.fd(), &mut submit) } {
            let _ = drm::control::Device::destroy_syncobj(&self.card, out);
            return Err(match errno {
                Errno::EINVAL | Errno::ENOSPC | Errno::EBUSY | Errno::ENOMEM | Errno::EAGAIN => {
                    WinsysError::Refused { errno }
                }
                errno => self.ioctl_error("DRM_IOCTL_SGX535_GEM_SUBMIT", errno),
            });
        }
        pending.jobs.push(InFlight {
            syncobj: out,
            job_id: submit.job_id,
            acc,
            submitted: std::time::Instant::now(),
        });
        drop(pending);
        if let Err(e) = drm::control::Device::syncobj_signal(&self.card, &[self.wake]) {
            log::error!("drm: waking the reaper: {e}");
        }
        Ok(())
    }
}
