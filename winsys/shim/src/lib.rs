//! sgx535 drm-shim: an LD_PRELOAD library in the manner of Mesa's src/drm-shim. It wraps libc's
//! open, close, ioctl and mmap so that opening the render node path (default
//! /dev/dri/renderD128, or `SGX535_SHIM_NODE`) yields a file that speaks
//! include/drm-uapi/sgx535_drm.h, served by the device model. Every other file passes through.
//! `SGX535_SHIM_FIXTURE` names a host fixture (fixtures/README.md) whose failures the fake
//! kernel injects; `SGX535_SHIM_HANG_BUDGET_MS` sets its watchdog's hang budget.
//!
//! The wrappers are defined with fixed arguments although libc declares open and ioctl
//! variadic: on the x86-64 and AArch64 Linux ABIs the optional argument arrives where a fixed
//! one would.
#![allow(non_snake_case)]
// byte counts end in _B (CONTRIBUTING.md)

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

mod device;
mod fakefs;
mod memfd;
mod real;

use sgx_winsys::drm::sync_file::{SyncFenceInfo, SyncFileInfo, SYNC_IOC_FILE_INFO};
use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CStr, CString};
use std::sync::OnceLock;

use device::Shim;
use real::real;

/// Environment variable: the node path the shim presents.
const NODE_ENV: &str = "SGX535_SHIM_NODE";
/// Environment variable: a host fixture to inject.
const FIXTURE_ENV: &str = "SGX535_SHIM_FIXTURE";
/// Environment variable: the watchdog's hang budget in milliseconds.
const HANG_BUDGET_ENV: &str = "SGX535_SHIM_HANG_BUDGET_MS";
const DEFAULT_NODE: &str = "/dev/dri/renderD128";

static SHIM: OnceLock<Shim> = OnceLock::new();

pub(crate) fn node() -> &'static CStr {
    static NODE: OnceLock<CString> = OnceLock::new();
    NODE.get_or_init(|| {
        let p = std::env::var(NODE_ENV).unwrap_or_else(|_| DEFAULT_NODE.into());
        CString::new(p).unwrap_or_else(|_| CString::from(c"/dev/dri/renderD128"))
    })
}

/// The device, made at the first open of the node. Its fixture is read then, outside any lock
/// of the shim (reading it goes through the wrapped open and close).
fn shim() -> &'static Shim {
    SHIM.get_or_init(|| {
        let fixture = std::env::var_os(FIXTURE_ENV).map(|p| {
            sgx_winsys::replay::Fixture::load(std::path::Path::new(&p)).unwrap_or_else(|e| {
                eprintln!("sgx535 drm-shim: {e}");
                std::process::abort();
            })
        });
        let budget = match std::env::var(HANG_BUDGET_ENV) {
            Ok(v) => match v.parse::<u64>() {
                Ok(ms) if ms > 0 => std::time::Duration::from_millis(ms),
                _ => {
                    eprintln!(
                        "sgx535 drm-shim: {HANG_BUDGET_ENV}={v:?}: a number of milliseconds from 1 is allowed"
                    );
                    std::process::abort();
                }
            },
            Err(_) => sgx_winsys::DEFAULT_HANG_BUDGET,
        };
        Shim::new(fixture, budget)
    })
}

/// What the fake kernel holds, for leak checks (the soak test finds it with dlsym): read-only.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Sgx535ShimLive {
    /// GEM buffers (held by a handle or a queued job).
    pub bos: u64,
    /// Bytes of GPU address space allocated.
    pub va_B: u64,
    /// Syncobjs of every open file.
    pub syncobjs: u64,
    /// Job records kept (pending, or ended and not yet retired).
    pub job_records: u64,
    /// Open files of the node.
    pub files: u64,
}

/// Fills `out` with the fake kernel's live counts (all zero before the node was first
/// opened). Returns 0, or -1 when `out` is NULL.
///
/// # Safety
/// `out` is NULL or points at a writable `Sgx535ShimLive`.
#[no_mangle]
pub unsafe extern "C" fn sgx535_drm_shim_live(out: *mut Sgx535ShimLive) -> c_int {
    if out.is_null() {
        return -1;
    }
    let live = SHIM.get().map(Shim::live).unwrap_or_default();
    // SAFETY: the caller passes a writable Sgx535ShimLive.
    unsafe { out.write(live) };
    0
}

/// The shim, if `fd` is one of its files.
/// The shim when `fd` is a node file. Any other descriptor (an anonymous mmap's -1, a file
/// the model's thread pool opens to count cores) is told apart under the node-fd set's own
/// lock, never the device's: the model runs inside an ioctl that holds the device lock, and
/// a pool thread starting then (its signal stack is an anonymous mmap) or the caller closing
/// a cgroup file deadlocked on it.
fn ours(fd: c_int) -> Option<&'static Shim> {
    if !fakefs::is_node_fd(fd) {
        return None;
    }
    SHIM.get().filter(|s| s.is_ours(fd))
}

fn set_errno(e: c_int) {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = e };
}

/// Opens the node: a memfd stands in for the file descriptor.
fn open_node() -> c_int {
    // SAFETY: memfd_create takes a NUL-terminated name and flags.
    let fd = unsafe { libc::memfd_create(c"sgx535-render-node".as_ptr(), libc::MFD_CLOEXEC) };
    if fd >= 0 {
        shim().open_file(fd);
        fakefs::add_fd(fd);
    }
    fd
}

/// True when `path` is the node.
///
/// # Safety
/// `path` is null or NUL-terminated.
unsafe fn is_node(path: *const c_char) -> bool {
    // SAFETY: the caller passes a NUL-terminated path (or null).
    !path.is_null() && unsafe { CStr::from_ptr(path) } == node()
}

/// Opens the node when `path` is it, else returns `real_open()` (the libc call an open
/// function stands in for).
///
/// # Safety
/// `path` is null or NUL-terminated.
unsafe fn node_or(path: *const c_char, real_open: impl FnOnce() -> c_int) -> c_int {
    // SAFETY: the caller passes a NUL-terminated path (or null).
    if unsafe { is_node(path) } {
        open_node()
    } else {
        real_open()
    }
}

/// # Safety
/// As libc's open.
#[no_mangle]
pub unsafe extern "C" fn open(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { node_or(path, || (real().open)(path, flags, mode)) }
}

/// # Safety
/// As libc's open64.
#[no_mangle]
pub unsafe extern "C" fn open64(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { node_or(path, || (real().open64)(path, flags, mode)) }
}

/// # Safety
/// As glibc's fortified __open_2.
#[no_mangle]
pub unsafe extern "C" fn __open_2(path: *const c_char, flags: c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { open(path, flags, 0) }
}

/// # Safety
/// As glibc's fortified __open64_2.
#[no_mangle]
pub unsafe extern "C" fn __open64_2(path: *const c_char, flags: c_int) -> c_int {
    // SAFETY: forwarded from our caller.
    unsafe { open64(path, flags, 0) }
}

/// # Safety
/// As libc's openat.
#[no_mangle]
pub unsafe extern "C" fn openat(
    dir: c_int,
    path: *const c_char,
    flags: c_int,
    mode: c_uint,
) -> c_int {
    // SAFETY: forwarded from our caller; the node path is absolute, so `dir` does not matter.
    unsafe { node_or(path, || (real().openat)(dir, path, flags, mode)) }
}

/// # Safety
/// As libc's openat64.
#[no_mangle]
pub unsafe extern "C" fn openat64(
    dir: c_int,
    path: *const c_char,
    flags: c_int,
    mode: c_uint,
) -> c_int {
    // SAFETY: forwarded from our caller; the node path is absolute.
    unsafe { node_or(path, || (real().openat64)(dir, path, flags, mode)) }
}

/// # Safety
/// As libc's close.
#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    // Only node files take the device lock (see `ours`).
    if let Some(s) = SHIM.get().filter(|_| fakefs::is_node_fd(fd)) {
        s.close_file(fd);
        fakefs::remove_fd(fd);
    }
    // SAFETY: forwarded; for a node file this closes its stand-in memfd.
    unsafe { (real().close)(fd) }
}

fn name32(text: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    out[..text.len().min(31)].copy_from_slice(&text.as_bytes()[..text.len().min(31)]);
    out
}

/// SYNC_IOC_FILE_INFO on one of the shim's sync files: its one fence's status, as the kernel
/// answers (num_fences 0 in: only the count out).
///
/// # Safety
/// `arg` is null or points at a struct sync_file_info whose sync_fence_info, when num_fences
/// is not 0, points at that many struct sync_fence_info.
unsafe fn sync_file_info(s: &Shim, fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    #[allow(clippy::unnecessary_cast)]
    if request as u64 != SYNC_IOC_FILE_INFO || arg.is_null() {
        set_errno(libc::ENOTTY);
        return -1;
    }
    let status = match s.sync_file_status(fd) {
        Ok(v) => v,
        Err(e) => {
            set_errno(e);
            return -1;
        }
    };
    // SAFETY: the caller passes the struct the request encodes.
    let info = unsafe { &mut *arg.cast::<SyncFileInfo>() };
    if info.flags != 0 || info.pad != 0 {
        set_errno(libc::EINVAL);
        return -1;
    }
    info.name = name32("sgx535-shim");
    info.status = status;
    if info.num_fences != 0 && info.sync_fence_info != 0 {
        // SAFETY: the caller gave room for num_fences (at least one) fence infos there.
        let fence = unsafe { &mut *(info.sync_fence_info as *mut SyncFenceInfo) };
        *fence = SyncFenceInfo {
            obj_name: name32("sgx535 job"),
            driver_name: name32("sgx535"),
            status,
            flags: 0,
            timestamp_ns: 0,
        };
    }
    info.num_fences = 1;
    0
}

/// # Safety
/// As libc's ioctl with a pointer argument.
#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    if let Some(s) = SHIM.get().filter(|s| s.is_sync_file(fd)) {
        // SAFETY: the caller passes the struct its request encodes.
        return unsafe { sync_file_info(s, fd, request, arg) };
    }
    match ours(fd) {
        // SAFETY: the caller passes the struct its request encodes.
        Some(s) => match unsafe { s.ioctl(fd, request, arg.cast()) } {
            Ok(()) => 0,
            Err(e) => {
                set_errno(e);
                -1
            }
        },
        // SAFETY: forwarded.
        None => unsafe { (real().ioctl)(fd, request, arg) },
    }
}

/// Records a new descriptor for node file or sync file `fd` (Mesa's loader and libsgx535 both
/// duplicate the render node's fd before using it).
fn note_dup(fd: c_int, out: c_int) -> c_int {
    if out >= 0 {
        if let Some(s) = ours(fd) {
            s.dup_file(fd, out);
            fakefs::add_fd(out);
        } else if let Some(s) = SHIM.get() {
            // A sync file's duplicate answers SYNC_IOC_FILE_INFO as the original does.
            s.dup_sync_file(fd, out);
        }
    }
    out
}

/// fcntl's result `out`, after noting a duplicate it made.
fn note_fcntl(fd: c_int, cmd: c_int, out: c_int) -> c_int {
    if cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC {
        note_dup(fd, out)
    } else {
        out
    }
}

/// # Safety
/// As libc's fcntl. Every command's optional argument is an int or a pointer, which the x86-64
/// and AArch64 Linux ABIs pass where a fixed `c_ulong` arrives.
#[no_mangle]
pub unsafe extern "C" fn fcntl(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    // SAFETY: forwarded.
    note_fcntl(fd, cmd, unsafe { (real().fcntl)(fd, cmd, arg) })
}

/// # Safety
/// As glibc's fcntl64 (what fcntl is with _FILE_OFFSET_BITS=64).
#[no_mangle]
pub unsafe extern "C" fn fcntl64(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    // SAFETY: forwarded.
    note_fcntl(fd, cmd, unsafe { (real().fcntl64)(fd, cmd, arg) })
}

/// # Safety
/// As libc's dup.
#[no_mangle]
pub unsafe extern "C" fn dup(fd: c_int) -> c_int {
    // SAFETY: forwarded.
    note_dup(fd, unsafe { (real().dup)(fd) })
}

/// # Safety
/// As libc's dup2: `new` is closed first (so a node file there is forgotten).
#[no_mangle]
pub unsafe extern "C" fn dup2(fd: c_int, new: c_int) -> c_int {
    if fd != new {
        if let Some(s) = SHIM.get().filter(|_| fakefs::is_node_fd(new)) {
            s.close_file(new);
            fakefs::remove_fd(new);
        }
    }
    // SAFETY: forwarded.
    note_dup(fd, unsafe { (real().dup2)(fd, new) })
}

/// # Safety
/// As libc's dup3.
#[no_mangle]
pub unsafe extern "C" fn dup3(fd: c_int, new: c_int, flags: c_int) -> c_int {
    if fd != new {
        if let Some(s) = SHIM.get().filter(|_| fakefs::is_node_fd(new)) {
            s.close_file(new);
            fakefs::remove_fd(new);
        }
    }
    // SAFETY: forwarded.
    note_dup(fd, unsafe { (real().dup3)(fd, new, flags) })
}

/// # Safety
/// As libc's stat64: the node is a DRM character device, the fake device's sysfs is served
/// from the temporary tree (fakefs).
#[no_mangle]
pub unsafe extern "C" fn stat64(path: *const c_char, buf: *mut libc::stat64) -> c_int {
    // SAFETY: forwarded from our caller, who passes a path and a stat64 to fill.
    unsafe {
        if is_node(path) {
            *buf = std::mem::zeroed();
            fakefs::node_stat(&mut *buf);
            return 0;
        }
        match fakefs::redirect(path) {
            Some(p) => (real().stat64)(p.as_ptr(), buf),
            None => (real().stat64)(path, buf),
        }
    }
}

/// # Safety
/// As libc's stat (the same struct as stat64 on 64-bit Linux).
#[no_mangle]
pub unsafe extern "C" fn stat(path: *const c_char, buf: *mut libc::stat) -> c_int {
    // SAFETY: stat and stat64 are one layout on the 64-bit targets the shim builds for.
    unsafe { stat64(path, buf.cast()) }
}

/// # Safety
/// As libc's fstat64.
#[no_mangle]
pub unsafe extern "C" fn fstat64(fd: c_int, buf: *mut libc::stat64) -> c_int {
    // SAFETY: forwarded; for the node, the memfd's answer is then made a device's.
    unsafe {
        let r = (real().fstat64)(fd, buf);
        if r == 0 && fakefs::is_node_fd(fd) {
            fakefs::node_stat(&mut *buf);
        }
        r
    }
}

/// # Safety
/// As libc's fstat.
#[no_mangle]
pub unsafe extern "C" fn fstat(fd: c_int, buf: *mut libc::stat) -> c_int {
    // SAFETY: as stat.
    unsafe { fstat64(fd, buf.cast()) }
}

/// # Safety
/// As libc's readlink.
#[no_mangle]
pub unsafe extern "C" fn readlink(
    path: *const c_char,
    buf: *mut c_char,
    len: libc::size_t,
) -> libc::ssize_t {
    // SAFETY: forwarded.
    unsafe {
        match fakefs::redirect(path) {
            Some(p) => (real().readlink)(p.as_ptr(), buf, len),
            None => (real().readlink)(path, buf, len),
        }
    }
}

/// # Safety
/// As libc's opendir.
#[no_mangle]
pub unsafe extern "C" fn opendir(path: *const c_char) -> *mut libc::DIR {
    // SAFETY: forwarded.
    unsafe {
        match fakefs::redirect(path) {
            Some(p) => (real().opendir)(p.as_ptr()),
            None => (real().opendir)(path),
        }
    }
}

/// # Safety
/// As libc's fopen.
#[no_mangle]
pub unsafe extern "C" fn fopen(path: *const c_char, mode: *const c_char) -> *mut libc::FILE {
    // SAFETY: forwarded.
    unsafe {
        match fakefs::redirect(path) {
            Some(p) => (real().fopen)(p.as_ptr(), mode),
            None => (real().fopen)(path, mode),
        }
    }
}

/// # Safety
/// As libc's fopen64.
#[no_mangle]
pub unsafe extern "C" fn fopen64(path: *const c_char, mode: *const c_char) -> *mut libc::FILE {
    // SAFETY: forwarded.
    unsafe {
        match fakefs::redirect(path) {
            Some(p) => (real().fopen64)(p.as_ptr(), mode),
            None => (real().fopen64)(path, mode),
        }
    }
}

/// Maps a buffer of a node file: its memfd, at the buffer's own offset 0.
fn mmap_node(
    s: &Shim,
    addr: *mut c_void,
    len: libc::size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: i64,
) -> *mut c_void {
    match s.mmap_target(fd, offset, len) {
        // SAFETY: maps the buffer's memfd as the caller asked, within its length (checked).
        Ok(memfd) => unsafe { (real().mmap)(addr, len, prot, flags, memfd, 0) },
        Err(e) => {
            set_errno(e);
            libc::MAP_FAILED
        }
    }
}

/// # Safety
/// As libc's mmap.
#[no_mangle]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: libc::size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: libc::off_t,
) -> *mut c_void {
    match ours(fd) {
        Some(s) => mmap_node(s, addr, len, prot, flags, fd, offset),
        // SAFETY: forwarded.
        None => unsafe { (real().mmap)(addr, len, prot, flags, fd, offset) },
    }
}

/// # Safety
/// As libc's mmap64.
#[no_mangle]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: libc::size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: libc::off64_t,
) -> *mut c_void {
    match ours(fd) {
        Some(s) => mmap_node(s, addr, len, prot, flags, fd, offset),
        // SAFETY: forwarded.
        None => unsafe { (real().mmap64)(addr, len, prot, flags, fd, offset) },
    }
}

/// Present in the process only when the shim is preloaded: lets a program check.
#[no_mangle]
pub extern "C" fn sgx535_drm_shim_active() -> c_int {
    1
}
