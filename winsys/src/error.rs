//! Errors of the winsys: one enum for calls, one for how a job ended.

use crate::job_result::Unit;

/// How a job ended badly; carried by its fence. Serialised as the trace writes it: a
/// `status` in snake case and the variant's fields (`Failed`'s text as `reason`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum JobError {
    /// The GPU MMU faulted on an access by `unit` at `addr`.
    #[error("MMU fault: {unit} {} at {addr:#010x}", if *.write { "write" } else { "read" })]
    Fault {
        /// Requester that faulted (BIF_INT_STAT order).
        unit: Unit,
        /// Faulting GPU virtual address (BIF_FAULT).
        addr: u32,
        /// The access was a write.
        write: bool,
    },
    /// Parameter memory ran out (DPM out-of-memory event).
    #[error("out of memory (parameter memory exhausted)")]
    OutOfMemory,
    /// A shader program could not run.
    #[error("illegal instruction in {unit} at pc {pc}: {reason}")]
    IllegalInstruction {
        /// Unit that ran the program.
        unit: Unit,
        /// Instruction index.
        pc: u32,
        /// What was wrong.
        reason: String,
    },
    /// A state word, register or control stream could not be decoded.
    #[error("bad state for {unit}: {reason}")]
    BadState {
        /// Unit that rejected the state.
        unit: Unit,
        /// What was wrong.
        reason: String,
    },
    /// The job failed for another reason (an injected failure, or one the kernel reported).
    #[error("job failed: {0}")]
    #[serde(serialize_with = "reason_field")]
    Failed(String),
    /// The device was lost before the job finished.
    #[error("device lost before the job finished")]
    DeviceLost,
    /// The job ran past its time budget; the watchdog reset the GPU and ended it.
    #[error("GPU hang: the job ran past its {budget_ms} ms budget and the GPU was reset")]
    Hang {
        /// The budget it exceeded.
        budget_ms: u64,
    },
    /// The job never ran: it was queued behind a job of the same context that hung, and
    /// that context's later work is not run after a reset (its inputs may be the hung job's
    /// unfinished output, as with a kernel's ECANCELED for a guilty context).
    #[error("canceled: an earlier job of the same context hung")]
    Canceled,
}

/// `JobError::Failed`'s text as a `reason` field (an internally tagged variant holds fields).
fn reason_field<S: serde::Serializer>(reason: &str, s: S) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut st = s.serialize_struct("Failed", 1)?;
    st.serialize_field("reason", reason)?;
    st.end()
}

/// Errors of winsys calls. Bad input from a caller is an error, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum WinsysError {
    /// A wait (fence, map, idle) did not finish in time.
    #[error("timed out after {waited_ms} ms waiting for fence {fence}")]
    Timeout {
        /// Id of the fence still pending.
        fence: u64,
        /// The timeout the caller gave, in milliseconds.
        waited_ms: u64,
    },
    /// The job behind a fence ended with an error.
    #[error("job of fence {fence} failed: {error}")]
    Job {
        /// Id of the fence.
        fence: u64,
        /// How the job ended.
        error: JobError,
    },
    /// The device is lost: every call after the loss fails with this.
    #[error("device lost")]
    DeviceLost,
    /// A buffer allocation failed (ENOMEM, or the GPU address space is full).
    #[error("cannot allocate a buffer of {size_B} bytes: out of memory")]
    OutOfMemory {
        /// Requested size.
        size_B: u64,
    },
    /// The kernel (or a fixture standing in for it) refused a submission.
    #[error("submission refused: {errno}")]
    Refused {
        /// EINVAL, ENOSPC, EBUSY, ...
        errno: Errno,
    },
    /// A caller's argument is out of range or inconsistent.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A job is malformed (register lists, buffer list, access).
    #[error("invalid job: {0}")]
    InvalidJob(String),
    /// A buffer or fence of another device was passed.
    #[error("{0} belongs to another device")]
    ForeignObject(&'static str),
    /// The backend does not offer this operation.
    #[error("not supported by the {backend} backend: {what}")]
    Unsupported {
        /// Backend name.
        backend: &'static str,
        /// The operation.
        what: &'static str,
    },
    /// A system call failed.
    #[error("{op}: {errno}")]
    Os {
        /// What was being done.
        op: &'static str,
        /// The error number.
        errno: Errno,
    },
    /// A system call on a named render node failed (opening it, or a query while opening).
    #[error("{path}: {op}: {errno}")]
    Node {
        /// Node path.
        path: String,
        /// What was being done.
        op: &'static str,
        /// The error number.
        errno: Errno,
    },
    /// The render node's kernel driver is not sgx535.
    #[error("{path}: driver {driver:?} is not sgx535")]
    NotSgx535 {
        /// Node path.
        path: String,
        /// Driver name it reported.
        driver: String,
    },
    /// No render node with the sgx535 driver was found.
    #[error("no sgx535 render node found (tried {tried})")]
    NoDevice {
        /// Paths tried.
        tried: String,
    },
    /// A host fixture could not be read or parsed.
    #[error("fixture {path}: {reason}")]
    Fixture {
        /// Fixture path (or "<inline>").
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// Writing a trace failed.
    #[error("writing the trace: {0}")]
    TraceIo(#[from] std::io::Error),
}

/// Error numbers, as the kernel returns them.
pub use nix::errno::Errno;

/// Result with a [`WinsysError`].
pub type Result<T> = std::result::Result<T, WinsysError>;
