//! Opening the device behind a screen: the model, a DRM render node (the caller's fd or a path),
//! or the model with a host fixture replayed — chosen by the caller or by `SGX535_DEVICE`.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::Arc;

use sgx_winsys::{Device, DeviceSpec, DrmDevice};

use crate::status::{invalid, Result};

/// `sgx535_device_desc.kind`: the device named by the `SGX535_DEVICE` environment variable
/// (`model`, the default; `drm` or `drm:/dev/dri/renderD128`; `replay:FILE`).
pub const SGX535_DEVICE_DEFAULT: u32 = 0;
/// The device model, in this process.
pub const SGX535_DEVICE_MODEL: u32 = 1;
/// A DRM render node: `fd` (duplicated), or `path`, or the first sgx535 node.
pub const SGX535_DEVICE_DRM: u32 = 2;
/// The model with the host fixture at `path` injected.
pub const SGX535_DEVICE_REPLAY: u32 = 3;

/// Opens a device spec (winsys parses `SGX535_DEVICE` for the CLI, this ABI and the Mesa
/// driver alike). A replay fixture that is not there is no device.
fn open_spec(spec: DeviceSpec) -> Result<Arc<dyn Device>> {
    if let DeviceSpec::Replay(file) = &spec {
        if !Path::new(file).is_file() {
            return Err(crate::status::Error::new(
                crate::status::SGX535_ERROR_NO_DEVICE,
                format!("replay device: no fixture file at {file}"),
            ));
        }
    }
    Ok(spec.open()?)
}

/// The device a descriptor asks for.
pub(crate) fn open(kind: u32, fd: i32, path: Option<String>) -> Result<Arc<dyn Device>> {
    match kind {
        SGX535_DEVICE_DEFAULT => open_spec(DeviceSpec::from_env()?),
        SGX535_DEVICE_MODEL => open_spec(DeviceSpec::Model),
        SGX535_DEVICE_DRM if fd >= 0 => {
            // SAFETY: the caller passes an open fd it keeps; we only borrow it to duplicate it.
            let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
            let owned: OwnedFd = borrowed.try_clone_to_owned().map_err(|e| {
                crate::status::Error::new(
                    crate::status::SGX535_ERROR_INVALID_ARGUMENT,
                    format!("fd {fd}: {e}"),
                )
            })?;
            Ok(Arc::new(DrmDevice::from_fd(owned, &format!("fd {fd}"))?))
        }
        SGX535_DEVICE_DRM => open_spec(DeviceSpec::Drm(path)),
        SGX535_DEVICE_REPLAY => match path {
            Some(p) => open_spec(DeviceSpec::Replay(p)),
            None => invalid("a replay device needs the fixture's path"),
        },
        _ => invalid(format!("device kind {kind}")),
    }
}
