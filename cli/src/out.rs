//! Standard output that fails with an error instead of a panic.
//!
//! `println!` panics when stdout cannot be written (a closed pipe, a full disk). The CLI's
//! commands print with [`out!`] and [`outln!`], which return a [`StdoutError`] from the
//! enclosing function; `main` exits quietly on a closed pipe and reports anything else.

use std::io::Write as _;

/// Writing to stdout failed.
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output: {0}")]
pub struct StdoutError(#[from] pub std::io::Error);

impl StdoutError {
    /// The reader went away (`| head`): not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        self.0.kind() == std::io::ErrorKind::BrokenPipe
    }
}

/// Writes formatted text to stdout.
pub fn write_fmt(args: std::fmt::Arguments<'_>) -> Result<(), StdoutError> {
    std::io::stdout().lock().write_fmt(args)?;
    Ok(())
}

/// Flushes stdout, so a full disk is reported before the process exits.
pub fn flush() -> Result<(), StdoutError> {
    std::io::stdout().lock().flush()?;
    Ok(())
}

/// `print!` that returns a [`StdoutError`] from the enclosing function on failure.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write_fmt(format_args!($($arg)*))?
    };
}

/// `println!` that returns a [`StdoutError`] from the enclosing function on failure.
macro_rules! outln {
    () => {
        $crate::out::write_fmt(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::out::write_fmt(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

pub(crate) use {out, outln};
