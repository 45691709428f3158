//! The file-system face of the fake render node, for libdrm's device enumeration
//! (drmGetDevice2, which Mesa's GBM and EGL call on the fd): fstat and stat of the node say it is
//! DRM character device 226:<minor>; `/sys/dev/char/226:<minor>/...` and the node's folder are
//! served from a small tree in a temporary folder, describing a platform device "sgx535" (the
//! keys libdrm reads: a `device/drm` folder, `device/subsystem` pointing at a platform bus, and
//! `OF_FULLNAME` / `OF_COMPATIBLE_*` in `device/uevent`).

use std::collections::HashSet;
use std::ffi::{c_char, c_int, CStr, CString};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use crate::node;

/// Linux's DRM character-device major number.
const DRM_MAJOR: u32 = 226;

/// Descriptors of the node (opened or duplicated). Under their own lock, not the device's:
/// the fstat wrapper reads it, and the device's code calls fstat while it holds its lock.
static NODE_FDS: Mutex<Option<HashSet<c_int>>> = Mutex::new(None);

fn node_fds() -> std::sync::MutexGuard<'static, Option<HashSet<c_int>>> {
    NODE_FDS.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn add_fd(fd: c_int) {
    node_fds().get_or_insert_with(HashSet::new).insert(fd);
}

pub fn remove_fd(fd: c_int) {
    if let Some(s) = node_fds().as_mut() {
        s.remove(&fd);
    }
}

pub fn is_node_fd(fd: c_int) -> bool {
    node_fds().as_ref().is_some_and(|s| s.contains(&fd))
}

/// The node's file name and folder ("renderD128", "/dev/dri").
fn node_parts() -> (String, String) {
    let path = node().to_string_lossy().into_owned();
    match path.rsplit_once('/') {
        Some((dir, name)) => (
            name.to_string(),
            if dir.is_empty() {
                "/".into()
            } else {
                dir.into()
            },
        ),
        None => (path, ".".into()),
    }
}

/// The node's minor number: the digits ending its name (128 for renderD128), else 128.
pub fn minor() -> u32 {
    let (name, _) = node_parts();
    let digits: String = name
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits
        .chars()
        .rev()
        .collect::<String>()
        .parse()
        .unwrap_or(128) // the first render node's minor: a Linux convention
}

fn sys_prefix() -> String {
    format!("/sys/dev/char/{DRM_MAJOR}:{}", minor())
}

/// The temporary tree, made at first use; None if it could not be made.
static TREE: OnceLock<Option<PathBuf>> = OnceLock::new();

fn tree() -> Option<&'static PathBuf> {
    TREE.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("sgx535-drm-shim-{}", std::process::id()));
        let dev = base.join(sys_prefix().trim_start_matches('/')).join("device");
        let (name, dir) = node_parts();
        let node_dir = base.join(dir.trim_start_matches('/'));
        let made = (|| -> std::io::Result<()> {
            std::fs::create_dir_all(dev.join("drm"))?;
            std::fs::create_dir_all(base.join("sys/bus/platform"))?;
            std::fs::create_dir_all(&node_dir)?;
            std::fs::write(
                dev.join("uevent"),
                "DRIVER=sgx535\nOF_FULLNAME=/sgx535\nOF_COMPATIBLE_N=1\nOF_COMPATIBLE_0=img,sgx535\n",
            )?;
            let link = dev.join("subsystem");
            if std::fs::symlink_metadata(&link).is_err() {
                std::os::unix::fs::symlink(base.join("sys/bus/platform"), &link)?;
            }
            std::fs::write(node_dir.join(name), "")?;
            Ok(())
        })();
        match made {
            Ok(()) => {
                // SAFETY: registers a plain function, run once at normal exit.
                unsafe { libc::atexit(remove_tree) };
                Some(base)
            }
            Err(e) => {
                eprintln!("sgx535 drm-shim: cannot make the fake sysfs in {}: {e}", base.display());
                None
            }
        }
    })
    .as_ref()
}

/// Removes the temporary tree at exit.
extern "C" fn remove_tree() {
    if let Some(Some(base)) = TREE.get() {
        let _ = std::fs::remove_dir_all(base);
    }
}

/// Where a path of the fake device's sysfs or the node's folder really is; None for any other.
///
/// # Safety
/// `path` is null or NUL-terminated.
pub unsafe fn redirect(path: *const c_char) -> Option<CString> {
    if path.is_null() {
        return None;
    }
    // SAFETY: the caller passes a NUL-terminated path.
    let p = unsafe { CStr::from_ptr(path) }.to_str().ok()?;
    let prefix = sys_prefix();
    let (_, dir) = node_parts();
    let ours = p
        .strip_prefix(&prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        || p.trim_end_matches('/') == dir;
    if !ours {
        return None;
    }
    let real = tree()?.join(p.trim_start_matches('/'));
    CString::new(real.into_os_string().into_encoded_bytes()).ok()
}

/// Makes `st` describe the node: a character device 226:minor, readable and writable by all.
pub fn node_stat(st: &mut libc::stat64) {
    st.st_mode = libc::S_IFCHR | 0o666;
    st.st_rdev = libc::makedev(DRM_MAJOR, minor());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_node_is_render_minor_128() {
        assert_eq!(minor(), 128);
        assert_eq!(sys_prefix(), "/sys/dev/char/226:128");
    }

    #[test]
    fn only_the_devices_sysfs_and_the_nodes_folder_are_redirected() {
        // SAFETY: NUL-terminated literals.
        unsafe {
            let r = redirect(c"/sys/dev/char/226:128/device/uevent".as_ptr()).unwrap();
            let text = std::fs::read_to_string(r.to_str().unwrap()).unwrap();
            assert!(text.contains("OF_COMPATIBLE_0=img,sgx535\n"));
            let sub = redirect(c"/sys/dev/char/226:128/device/subsystem".as_ptr()).unwrap();
            let link = std::fs::read_link(sub.to_str().unwrap()).unwrap();
            assert!(link.ends_with("sys/bus/platform"));
            let dir = redirect(c"/dev/dri".as_ptr()).unwrap();
            let names: Vec<String> = std::fs::read_dir(dir.to_str().unwrap())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(names, ["renderD128"]);
            assert!(redirect(c"/sys/dev/char/226:1280/device".as_ptr()).is_none());
            assert!(redirect(c"/sys/dev/char/226:0/device".as_ptr()).is_none());
            assert!(redirect(c"/dev/null".as_ptr()).is_none());
            assert!(redirect(std::ptr::null()).is_none());
        }
    }
}
