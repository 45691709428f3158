//! The edge of the ABI: every entry point runs inside [`guard`], which turns an `Err` into a
//! status and the thread's last-error message, and a panic into `SGX535_ERROR_INTERNAL` (a
//! panic must never unwind into C). Pointer arguments are checked here before use.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::status::{invalid, sgx535_status, Error, Result, SGX535_ERROR_INTERNAL, SGX535_OK};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(msg: &str) {
    // A message with an interior NUL keeps the part before it.
    let text = msg.split('\0').next().unwrap_or_default();
    let c = CString::new(text).unwrap_or_default();
    // try_with: during thread exit (a call from an atexit handler or a TLS destructor) the slot
    // may be gone; the status still says what happened.
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = c);
}

/// Runs one ABI call: Ok -> SGX535_OK (the last error is left as it was, as errno is),
/// Err -> its status with the message stored, panic -> SGX535_ERROR_INTERNAL.
pub(crate) fn guard(f: impl FnOnce() -> Result<()>) -> sgx535_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => SGX535_OK,
        Ok(Err(Error { status, msg })) => {
            log::debug!("sgx535: {status:?}: {msg}");
            set_last_error(&msg);
            status
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            log::error!("sgx535: internal error: {what}");
            set_last_error(&format!("internal error (a bug in libsgx535): {what}"));
            SGX535_ERROR_INTERNAL
        }
    }
}

/// The message of the calling thread's last failed call ("" when none). Valid until the
/// thread's next failing call.
#[no_mangle]
pub extern "C" fn sgx535_last_error_message() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

fn check_ptr<T>(p: *const T, what: &str) -> Result<()> {
    if p.is_null() {
        return invalid(format!("{what} is NULL"));
    }
    if !(p as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return invalid(format!("{what} is not aligned for its type"));
    }
    Ok(())
}

/// Reads a caller's struct.
///
/// # Safety
/// `p` is NULL or points to a readable `T` (checked: NULL and misalignment are errors).
pub(crate) unsafe fn read<T: Copy>(p: *const T, what: &str) -> Result<T> {
    check_ptr(p, what)?;
    // SAFETY: non-null and aligned (checked); the caller promises it is readable. Every T
    // passed here is a plain C struct for which any bit pattern is valid.
    Ok(unsafe { std::ptr::read(p) })
}

/// Reads an optional struct (NULL -> None).
///
/// # Safety
/// As [`read`].
pub(crate) unsafe fn read_opt<T: Copy>(p: *const T, what: &str) -> Result<Option<T>> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: as read's contract, forwarded.
    unsafe { read(p, what).map(Some) }
}

/// Writes an output.
///
/// # Safety
/// `p` is NULL or points to a writable `T` (NULL and misalignment are errors).
pub(crate) unsafe fn write<T>(p: *mut T, what: &str, v: T) -> Result<()> {
    check_ptr(p, what)?;
    // SAFETY: non-null and aligned (checked); the caller promises it is writable.
    unsafe { std::ptr::write(p, v) };
    Ok(())
}

/// Checks an output pointer before work is done, so a NULL output does not throw away work
/// (an object created and then lost).
pub(crate) fn check_out<T>(p: *mut T, what: &str) -> Result<()> {
    check_ptr(p.cast_const(), what)
}

/// A caller's array of `n` elements (n may be 0 with a NULL pointer).
///
/// # Safety
/// `p` is NULL (only with n == 0) or points to `n` readable `T`s.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    check_ptr(p, what)?;
    if n > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return invalid(format!("{what}: {n} elements is too many"));
    }
    // SAFETY: non-null, aligned, and the size fits isize (checked); the caller promises n
    // readable elements that it does not change during the call.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Bytes of a caller's buffer.
///
/// # Safety
/// As [`slice`].
pub(crate) unsafe fn bytes<'a>(
    p: *const std::ffi::c_void,
    n: usize,
    what: &str,
) -> Result<&'a [u8]> {
    // SAFETY: forwarded.
    unsafe { slice(p.cast::<u8>(), n, what) }
}

/// A caller's writable bytes.
///
/// # Safety
/// `p` is NULL (only with n == 0) or points to `n` writable bytes not otherwise borrowed.
pub(crate) unsafe fn bytes_mut<'a>(
    p: *mut std::ffi::c_void,
    n: usize,
    what: &str,
) -> Result<&'a mut [u8]> {
    if n == 0 {
        return Ok(&mut []);
    }
    check_ptr(p.cast_const().cast::<u8>(), what)?;
    if n > isize::MAX as usize {
        return invalid(format!("{what}: {n} bytes is too many"));
    }
    // SAFETY: non-null and the size fits isize (checked); the caller promises n writable bytes.
    Ok(unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), n) })
}

/// A caller's NUL-terminated UTF-8 string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn string(p: *const c_char, what: &str) -> Result<String> {
    if p.is_null() {
        return invalid(format!("{what} is NULL"));
    }
    // SAFETY: non-null; the caller promises a NUL-terminated string.
    let c = unsafe { CStr::from_ptr(p) };
    c.to_str().map(str::to_owned).map_err(|e| {
        Error::new(
            crate::status::SGX535_ERROR_INVALID_ARGUMENT,
            format!("{what} is not UTF-8: {e}"),
        )
    })
}

/// A C flag: 0 false, anything else true.
pub(crate) fn flag(v: u8) -> bool {
    v != 0
}
