//! Sync files (linux/sync_file.h) and importing one into a syncobj: what the drm backend needs
//! for fences that come from outside the process. The drm crate's import passes no target
//! syncobj, which the kernel requires for a sync file, so the ioctl is issued here.

use std::os::fd::{AsRawFd, BorrowedFd};

use crate::error::Errno;

/// linux/sync_file.h's struct sync_file_info (the drm-shim serves it for its sync files).
#[repr(C)]
#[derive(Default)]
pub struct SyncFileInfo {
    pub name: [u8; 32],
    pub status: i32,
    pub flags: u32,
    pub num_fences: u32,
    pub pad: u32,
    pub sync_fence_info: u64,
}

/// linux/sync_file.h's struct sync_fence_info.
#[repr(C)]
pub struct SyncFenceInfo {
    pub obj_name: [u8; 32],
    pub driver_name: [u8; 32],
    pub status: i32,
    pub flags: u32,
    pub timestamp_ns: u64,
}

/// SYNC_IOC_FILE_INFO: `_IOWR('>', 4, struct sync_file_info)` (Linux uapi, not the GPU).
pub const SYNC_IOC_FILE_INFO: u64 =
    nix::request_code_readwrite!(b'>', 4, std::mem::size_of::<SyncFileInfo>()) as u64;

/// drm.h's struct drm_syncobj_handle.
#[repr(C)]
#[derive(Default)]
struct SyncobjHandle {
    handle: u32,
    flags: u32,
    fd: i32,
    pad: u32,
    point: u64,
}

/// drm.h's DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE.
const IMPORT_SYNC_FILE: u32 = 1;

nix::ioctl_readwrite!(sync_ioc_file_info, b'>', 4, SyncFileInfo);
nix::ioctl_readwrite!(syncobj_fd_to_handle, b'd', 0xC2, SyncobjHandle);

/// SYNC_IOC_FILE_INFO's status: 1 signalled, 0 active, a negative errno for an error.
pub fn status(fd: BorrowedFd<'_>) -> Result<i32, Errno> {
    let mut info = SyncFileInfo::default();
    // SAFETY: `info` is a live sync_file_info asking for no fence array.
    unsafe { sync_ioc_file_info(fd.as_raw_fd(), &mut info) }?;
    Ok(info.status)
}

/// Puts the fence of sync file `sync_file` into syncobj `handle` of the node `card`.
pub(crate) fn import(
    card: BorrowedFd<'_>,
    handle: u32,
    sync_file: BorrowedFd<'_>,
) -> Result<(), Errno> {
    let mut h = SyncobjHandle {
        handle,
        flags: IMPORT_SYNC_FILE,
        fd: sync_file.as_raw_fd(),
        ..SyncobjHandle::default()
    };
    // SAFETY: `h` is a live drm_syncobj_handle, the struct this request carries.
    unsafe { syncobj_fd_to_handle(card.as_raw_fd(), &mut h) }?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request numbers, from Linux's _IOC layout, as the headers define them.
    #[test]
    fn request_numbers_match_the_kernel_headers() {
        assert_eq!(std::mem::size_of::<SyncFileInfo>(), 56);
        assert_eq!(std::mem::size_of::<SyncobjHandle>(), 24);
        assert_eq!(SYNC_IOC_FILE_INFO, 0xC038_3E04);
        assert_eq!(std::mem::size_of::<SyncFenceInfo>(), 80);
        assert_eq!(
            nix::request_code_readwrite!(b'd', 0xC2, std::mem::size_of::<SyncobjHandle>()),
            0xC018_64C2
        );
    }
}
