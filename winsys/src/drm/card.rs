//! The open render node and the driver's own ioctls, each a typed call.

use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use super::uapi::*;
use crate::error::{Errno, Result, WinsysError};

/// An open render node.
pub(crate) struct Card(pub(super) File);

impl AsFd for Card {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}
impl drm::Device for Card {}
impl drm::control::Device for Card {}

pub(super) fn os(op: &'static str) -> impl Fn(Errno) -> WinsysError {
    move |errno| WinsysError::Os { op, errno }
}

/// CLOCK_MONOTONIC now, in nanoseconds: the clock of the uapi's absolute timeouts.
pub(crate) fn now_ns() -> i64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() * 1_000_000_000 + t.tv_nsec())
        .unwrap_or(0)
}

pub(super) fn io_errno(e: &std::io::Error) -> Errno {
    Errno::from_raw(e.raw_os_error().unwrap_or(0))
}

nix::ioctl_readwrite_bad!(ioctl_get_param, IOCTL_GET_PARAM, drm_sgx535_get_param);
nix::ioctl_readwrite_bad!(ioctl_gem_create, IOCTL_GEM_CREATE, drm_sgx535_gem_create);
nix::ioctl_readwrite_bad!(ioctl_gem_info, IOCTL_GEM_INFO, drm_sgx535_gem_info);
nix::ioctl_readwrite_bad!(ioctl_gem_submit, IOCTL_GEM_SUBMIT, drm_sgx535_gem_submit);
nix::ioctl_write_ptr_bad!(ioctl_gem_wait, IOCTL_GEM_WAIT, drm_sgx535_gem_wait);
nix::ioctl_read_bad!(ioctl_ctx_create, IOCTL_CTX_CREATE, drm_sgx535_ctx_create);
nix::ioctl_write_ptr_bad!(ioctl_ctx_free, IOCTL_CTX_FREE, drm_sgx535_ctx_free);
nix::ioctl_readwrite_bad!(ioctl_job_info, IOCTL_JOB_INFO, drm_sgx535_job_info);
nix::ioctl_readwrite_bad!(
    ioctl_ctx_reset_status,
    IOCTL_CTX_RESET_STATUS,
    drm_sgx535_ctx_reset_status
);

impl Card {
    pub(super) fn fd(&self) -> i32 {
        self.0.as_raw_fd()
    }

    pub(super) fn get_param(&self, param: drm_sgx535_param) -> Result<u64> {
        let mut p = drm_sgx535_get_param {
            param,
            ..Default::default()
        };
        // SAFETY: `p` is a live drm_sgx535_get_param, the struct this request carries.
        unsafe { ioctl_get_param(self.fd(), &mut p) }.map_err(os("DRM_IOCTL_SGX535_GET_PARAM"))?;
        Ok(p.value)
    }

    pub(super) fn ctx_create(&self) -> Result<u32> {
        let mut ctx = drm_sgx535_ctx_create::default();
        // SAFETY: `ctx` is a live drm_sgx535_ctx_create, the struct this request carries.
        unsafe { ioctl_ctx_create(self.fd(), &mut ctx) }
            .map_err(os("DRM_IOCTL_SGX535_CTX_CREATE"))?;
        Ok(ctx.id)
    }

    pub(super) fn ctx_free(&self, id: u32) {
        let free = drm_sgx535_ctx_free { id, pad: 0 };
        // SAFETY: `free` is a live drm_sgx535_ctx_free, the struct this request carries.
        if let Err(e) = unsafe { ioctl_ctx_free(self.fd(), &free) } {
            log::error!("drm: CTX_FREE of {id}: {e}");
        }
    }

    pub(super) fn ctx_reset_status(&self, ctx: u32) -> Result<drm_sgx535_ctx_reset_status> {
        let mut r = drm_sgx535_ctx_reset_status {
            ctx,
            ..Default::default()
        };
        // SAFETY: `r` is a live drm_sgx535_ctx_reset_status, the struct this request carries.
        unsafe { ioctl_ctx_reset_status(self.fd(), &mut r) }
            .map_err(os("DRM_IOCTL_SGX535_CTX_RESET_STATUS"))?;
        Ok(r)
    }

    pub(crate) fn job_info(&self, job_id: u64) -> std::result::Result<drm_sgx535_job_info, Errno> {
        let mut info = drm_sgx535_job_info {
            job_id,
            ..Default::default()
        };
        // SAFETY: `info` is a live drm_sgx535_job_info, the struct this request carries.
        unsafe { ioctl_job_info(self.fd(), &mut info) }?;
        Ok(info)
    }
}
