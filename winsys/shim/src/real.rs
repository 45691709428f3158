//! The libc functions the shim wraps, looked up with dlsym(RTLD_NEXT) as Mesa's drm-shim does.

use std::ffi::{c_char, c_int, c_ulong, c_void, CStr};
use std::sync::OnceLock;

pub type OpenFn = unsafe extern "C" fn(*const c_char, c_int, ...) -> c_int;
pub type OpenatFn = unsafe extern "C" fn(c_int, *const c_char, c_int, ...) -> c_int;
pub type CloseFn = unsafe extern "C" fn(c_int) -> c_int;
pub type Stat64Fn = unsafe extern "C" fn(*const c_char, *mut libc::stat64) -> c_int;
pub type Fstat64Fn = unsafe extern "C" fn(c_int, *mut libc::stat64) -> c_int;
pub type ReadlinkFn =
    unsafe extern "C" fn(*const c_char, *mut c_char, libc::size_t) -> libc::ssize_t;
pub type OpendirFn = unsafe extern "C" fn(*const c_char) -> *mut libc::DIR;
pub type FopenFn = unsafe extern "C" fn(*const c_char, *const c_char) -> *mut libc::FILE;
pub type FcntlFn = unsafe extern "C" fn(c_int, c_int, ...) -> c_int;
pub type Dup2Fn = unsafe extern "C" fn(c_int, c_int) -> c_int;
pub type Dup3Fn = unsafe extern "C" fn(c_int, c_int, c_int) -> c_int;
pub type IoctlFn = unsafe extern "C" fn(c_int, c_ulong, ...) -> c_int;
pub type MmapFn = unsafe extern "C" fn(
    *mut c_void,
    libc::size_t,
    c_int,
    c_int,
    c_int,
    libc::off_t,
) -> *mut c_void;

/// The next definitions of the wrapped functions (libc's).
pub struct Real {
    pub open: OpenFn,
    pub open64: OpenFn,
    pub openat: OpenatFn,
    pub openat64: OpenatFn,
    pub close: CloseFn,
    pub dup: CloseFn,
    pub dup2: Dup2Fn,
    pub dup3: Dup3Fn,
    pub fcntl: FcntlFn,
    pub fcntl64: FcntlFn,
    pub stat64: Stat64Fn,
    pub fstat64: Fstat64Fn,
    pub readlink: ReadlinkFn,
    pub opendir: OpendirFn,
    pub fopen: FopenFn,
    pub fopen64: FopenFn,
    pub ioctl: IoctlFn,
    pub mmap: MmapFn,
    pub mmap64: MmapFn,
}

fn sym(name: &CStr) -> *mut c_void {
    // SAFETY: dlsym with RTLD_NEXT and a NUL-terminated name has no other preconditions.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    if p.is_null() {
        eprintln!("sgx535 drm-shim: cannot resolve {name:?}");
        std::process::abort();
    }
    p
}

/// The real functions (resolved once; the lookup calls none of the wrapped functions).
pub fn real() -> &'static Real {
    static REAL: OnceLock<Real> = OnceLock::new();
    REAL.get_or_init(|| {
        // SAFETY: each symbol is libc's definition of the function whose type it is cast to.
        unsafe {
            Real {
                open: std::mem::transmute::<*mut c_void, OpenFn>(sym(c"open")),
                open64: std::mem::transmute::<*mut c_void, OpenFn>(sym(c"open64")),
                openat: std::mem::transmute::<*mut c_void, OpenatFn>(sym(c"openat")),
                openat64: std::mem::transmute::<*mut c_void, OpenatFn>(sym(c"openat64")),
                close: std::mem::transmute::<*mut c_void, CloseFn>(sym(c"close")),
                dup: std::mem::transmute::<*mut c_void, CloseFn>(sym(c"dup")),
                dup2: std::mem::transmute::<*mut c_void, Dup2Fn>(sym(c"dup2")),
                dup3: std::mem::transmute::<*mut c_void, Dup3Fn>(sym(c"dup3")),
                fcntl: std::mem::transmute::<*mut c_void, FcntlFn>(sym(c"fcntl")),
                fcntl64: std::mem::transmute::<*mut c_void, FcntlFn>(sym(c"fcntl64")),
                stat64: std::mem::transmute::<*mut c_void, Stat64Fn>(sym(c"stat64")),
                fstat64: std::mem::transmute::<*mut c_void, Fstat64Fn>(sym(c"fstat64")),
                readlink: std::mem::transmute::<*mut c_void, ReadlinkFn>(sym(c"readlink")),
                opendir: std::mem::transmute::<*mut c_void, OpendirFn>(sym(c"opendir")),
                fopen: std::mem::transmute::<*mut c_void, FopenFn>(sym(c"fopen")),
                fopen64: std::mem::transmute::<*mut c_void, FopenFn>(sym(c"fopen64")),
                ioctl: std::mem::transmute::<*mut c_void, IoctlFn>(sym(c"ioctl")),
                mmap: std::mem::transmute::<*mut c_void, MmapFn>(sym(c"mmap")),
                mmap64: std::mem::transmute::<*mut c_void, MmapFn>(sym(c"mmap64")),
            }
        }
    })
}
