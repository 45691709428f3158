//! Errors of the blitter.

/// What went wrong in an internal draw or a mip generation.
#[derive(Debug, thiserror::Error)]
pub enum BlitError {
    /// Bad input from the caller.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The admission table could not be read.
    #[error("admission table {path}: {msg}")]
    Admission {
        /// Which file.
        path: String,
        /// What is wrong with it.
        msg: String,
    },
    /// A generation pass failed after submissions had been attempted: generation stopped.
    /// Fences already issued and the resource's storage are as they were; levels from
    /// `first_stale` on are marked for regeneration.
    #[error("mip generation stopped at level {level}: {source}")]
    Stopped {
        /// The level whose pass failed.
        level: u32,
        /// First level left stale.
        first_stale: u32,
        /// The cause.
        source: sgx_pipe::PipeError,
    },
    /// The pipe refused a call.
    #[error(transparent)]
    Pipe(#[from] sgx_pipe::PipeError),
    /// The CPU generator refused.
    #[error("CPU mip generator: {0}")]
    Layout(#[from] sgx_layout::LayoutError),
    /// The winsys refused a call.
    #[error("winsys: {0}")]
    Winsys(#[from] sgx_winsys::WinsysError),
}

/// Result of blitter calls.
pub type Result<T> = std::result::Result<T, BlitError>;
