//! Where the drm-shim library is, for tests that preload it into a child process.

use std::path::PathBuf;

/// The file cargo builds for the `sgx-drm-shim` crate.
pub const SHIM_LIBRARY_FILE: &str = "libsgx535_drm_shim.so";

/// The drm-shim library cargo built beside the running executable: a test binary sits in
/// `target/<profile>/deps`, the library in that folder or its parent (the crate must be a
/// dev-dependency, or built, for it to be there).
pub fn built_shim_library() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    let found = [Some(deps), deps.parent()]
        .into_iter()
        .flatten()
        .map(|d| d.join(SHIM_LIBRARY_FILE))
        .find(|p| p.exists());
    found
}
