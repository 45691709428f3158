//! Status codes and the error each library error becomes at the ABI.

use sgx_blitter::BlitError;
use sgx_compiler::CompileError;
use sgx_layout::LayoutError;
use sgx_pipe::PipeError;
use sgx_winsys::{Errno, JobError, WinsysError};

/// What a call did: `SGX535_OK` (0), or why it failed. The message of the calling thread's
/// last failure is in `sgx535_last_error_message()`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum sgx535_status {
    /// Success.
    SGX535_OK = 0,
    /// An argument is out of range, inconsistent, or a required pointer is NULL.
    SGX535_ERROR_INVALID_ARGUMENT = 1,
    /// A handle is null, destroyed (stale), of the wrong type, or belongs to another screen or
    /// context.
    SGX535_ERROR_INVALID_HANDLE = 2,
    /// Memory (host or GPU) ran out.
    SGX535_ERROR_OUT_OF_MEMORY = 3,
    /// The device is lost; every later call on it fails the same way.
    SGX535_ERROR_DEVICE_LOST = 4,
    /// A wait timed out, or the kernel was busy.
    SGX535_ERROR_TIMEOUT = 5,
    /// A valid request the hardware or the library cannot do.
    SGX535_ERROR_UNSUPPORTED = 6,
    /// A GPU job ended in a fault or a failure.
    SGX535_ERROR_GPU_FAULT = 7,
    /// A bug in the library (a panic was caught at the ABI).
    SGX535_ERROR_INTERNAL = 8,
    /// No device could be opened (no render node, not an sgx535 node, a bad fixture path).
    SGX535_ERROR_NO_DEVICE = 9,
}

pub use sgx535_status::*;

/// An error on its way to the ABI: a status and a message.
#[derive(Debug)]
pub(crate) struct Error {
    pub status: sgx535_status,
    pub msg: String,
}

/// Result of the ABI's internal calls.
pub(crate) type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(status: sgx535_status, msg: impl Into<String>) -> Error {
        Error {
            status,
            msg: msg.into(),
        }
    }
}

/// An invalid-argument error.
pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::new(SGX535_ERROR_INVALID_ARGUMENT, msg))
}

/// An unsupported-feature error.
pub(crate) fn unsupported<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::new(SGX535_ERROR_UNSUPPORTED, msg))
}

pub(crate) fn job_status(e: &JobError) -> sgx535_status {
    match e {
        JobError::DeviceLost => SGX535_ERROR_DEVICE_LOST,
        JobError::OutOfMemory => SGX535_ERROR_OUT_OF_MEMORY,
        _ => SGX535_ERROR_GPU_FAULT,
    }
}

pub(crate) fn winsys_status(e: &WinsysError) -> sgx535_status {
    match e {
        WinsysError::Timeout { .. } => SGX535_ERROR_TIMEOUT,
        WinsysError::Job { error, .. } => job_status(error),
        WinsysError::DeviceLost => SGX535_ERROR_DEVICE_LOST,
        WinsysError::OutOfMemory { .. } => SGX535_ERROR_OUT_OF_MEMORY,
        WinsysError::Refused { errno } => match *errno {
            Errno::EBUSY | Errno::EAGAIN => SGX535_ERROR_TIMEOUT,
            Errno::ENOSPC | Errno::ENOMEM => SGX535_ERROR_OUT_OF_MEMORY,
            Errno::ENODEV => SGX535_ERROR_DEVICE_LOST,
            _ => SGX535_ERROR_INVALID_ARGUMENT,
        },
        WinsysError::InvalidArgument(_) | WinsysError::InvalidJob(_) => {
            SGX535_ERROR_INVALID_ARGUMENT
        }
        WinsysError::ForeignObject(_) => SGX535_ERROR_INVALID_HANDLE,
        WinsysError::Unsupported { .. } => SGX535_ERROR_UNSUPPORTED,
        WinsysError::Os { errno, .. } | WinsysError::Node { errno, .. }
            if *errno == Errno::ENOMEM =>
        {
            SGX535_ERROR_OUT_OF_MEMORY
        }
        WinsysError::Node { .. } => SGX535_ERROR_NO_DEVICE,
        WinsysError::Os { .. } | WinsysError::NotSgx535 { .. } | WinsysError::NoDevice { .. } => {
            SGX535_ERROR_NO_DEVICE
        }
        WinsysError::Fixture { .. } => SGX535_ERROR_INVALID_ARGUMENT,
        WinsysError::TraceIo(_) => SGX535_ERROR_INTERNAL,
    }
}

pub(crate) fn pipe_status(e: &PipeError) -> sgx535_status {
    match e {
        PipeError::InvalidArgument(_) | PipeError::NotBound(_) | PipeError::Pack(_) => {
            SGX535_ERROR_INVALID_ARGUMENT
        }
        PipeError::UnsupportedFormat { .. } | PipeError::Unsupported(_) => SGX535_ERROR_UNSUPPORTED,
        PipeError::Shader(
            CompileError::Unsupported { .. }
            | CompileError::Target { .. }
            | CompileError::Limit { .. },
        ) => SGX535_ERROR_UNSUPPORTED,
        PipeError::Shader(_) => SGX535_ERROR_INVALID_ARGUMENT,
        PipeError::Layout(l) => layout_status(l),
        PipeError::Winsys(w) => winsys_status(w),
    }
}

pub(crate) fn layout_status(e: &LayoutError) -> sgx535_status {
    match e {
        LayoutError::MipFormat { .. } => SGX535_ERROR_UNSUPPORTED,
        _ => SGX535_ERROR_INVALID_ARGUMENT,
    }
}

pub(crate) fn blit_status(e: &BlitError) -> sgx535_status {
    match e {
        BlitError::InvalidArgument(_) | BlitError::Admission { .. } => {
            SGX535_ERROR_INVALID_ARGUMENT
        }
        BlitError::Stopped { source, .. } => pipe_status(source),
        BlitError::Pipe(p) => pipe_status(p),
        BlitError::Layout(l) => layout_status(l),
        BlitError::Winsys(w) => winsys_status(w),
    }
}

impl From<PipeError> for Error {
    fn from(e: PipeError) -> Error {
        Error::new(pipe_status(&e), e.to_string())
    }
}

impl From<BlitError> for Error {
    fn from(e: BlitError) -> Error {
        Error::new(blit_status(&e), e.to_string())
    }
}

impl From<WinsysError> for Error {
    fn from(e: WinsysError) -> Error {
        Error::new(winsys_status(&e), e.to_string())
    }
}

impl From<LayoutError> for Error {
    fn from(e: LayoutError) -> Error {
        Error::new(layout_status(&e), e.to_string())
    }
}
