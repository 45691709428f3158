//! Errors of the pipe: bad input from a caller, or what the layers below reported.

use sgx_hwdocs::Format;

/// What went wrong in a screen or context call.
#[derive(Debug, thiserror::Error)]
pub enum PipeError {
    /// An argument is out of range or inconsistent.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The format cannot be used that way.
    #[error("format {} is not supported {what}", .format.name())]
    UnsupportedFormat {
        /// The format.
        format: Format,
        /// For what use.
        what: &'static str,
    },
    /// A feature the driver or the model does not have.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// State needed by a draw is not bound.
    #[error("nothing bound for {0}")]
    NotBound(&'static str),
    /// A shader did not compile or link.
    #[error("shader: {0}")]
    Shader(#[from] sgx_compiler::CompileError),
    /// The texture layout refused the request.
    #[error("layout: {0}")]
    Layout(#[from] sgx_layout::LayoutError),
    /// The winsys refused a call, or a job failed.
    #[error("winsys: {0}")]
    Winsys(#[from] sgx_winsys::WinsysError),
    /// A state word could not be packed (a value out of the hardware's range).
    #[error("state word: {0}")]
    Pack(#[from] sgx_hwdocs::PackError),
}

/// Result of pipe calls.
pub type Result<T> = std::result::Result<T, PipeError>;

/// A `NotBound` error, for `ok_or_else` on a draw's path: `ok_or(PipeError::NotBound(..))`
/// built and dropped one on every draw (1.9% of drawoverhead test 2's app thread).
#[cold]
pub(crate) fn not_bound(what: &'static str) -> PipeError {
    PipeError::NotBound(what)
}

/// Shorthand for an invalid-argument error.
pub(crate) fn invalid<T>(msg: impl Into<String>) -> Result<T> {
    Err(PipeError::InvalidArgument(msg.into()))
}
