//! The crate's error type.

use sgx_hwdocs::PackError;

/// Everything that can go wrong between TGSI text and USSE words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompileError {
    /// The TGSI text does not parse.
    #[error("{line}:{col}: expected {expected}, found {found}")]
    Parse {
        /// 1-based line.
        line: u32,
        /// 1-based column (in characters).
        col: u32,
        /// What the parser wanted there.
        expected: String,
        /// What it saw instead.
        found: String,
    },
    /// The text parses but says something inconsistent (undeclared register, bad nesting, ...).
    #[error("{line}: {msg}")]
    Semantic {
        /// 1-based line of the offending statement.
        line: u32,
        /// What is wrong.
        msg: String,
    },
    /// A TGSI opcode, operand form or declaration this backend does not implement.
    #[error("line {line}: unsupported {what}")]
    Unsupported {
        /// 1-based line.
        line: u32,
        /// The opcode or form, by name.
        what: String,
    },
    /// A texture target this backend does not sample (RECT, arrays, SHADOWCUBE, MSAA, ...),
    /// or one texture unit sampled with two different targets; `col` is the target word's.
    #[error("{line}:{col}: {msg}")]
    Target {
        /// 1-based line.
        line: u32,
        /// 1-based column of the target word (1 when the instruction names none).
        col: u32,
        /// What is wrong.
        msg: String,
    },
    /// The shader does not fit the hardware (model) limits.
    #[error("shader exceeds {limit}: needs {need}, the limit is {max}")]
    Limit {
        /// The hwdocs limit's name, e.g. `usse::TEMP_REGS`.
        limit: &'static str,
        /// What the shader needs.
        need: u64,
        /// What hwdocs allows.
        max: u64,
    },
    /// Vertex and fragment shaders do not link.
    #[error("link: {0}")]
    Link(String),
    /// A hwdocs packer refused an instruction (a compiler bug or an out-of-range operand).
    #[error("encoding instruction {index}: {source}")]
    Encode {
        /// Instruction index.
        index: usize,
        /// The packer's complaint.
        source: PackError,
    },
    /// USSE assembly text does not assemble.
    #[error("asm line {line}: {msg}")]
    Asm {
        /// 1-based line.
        line: u32,
        /// What is wrong.
        msg: String,
    },
    /// Words that cannot be disassembled (an odd count).
    #[error("disasm: {0}")]
    Disasm(String),
}

/// Shorthand used throughout the crate.
pub type Result<T> = std::result::Result<T, CompileError>;
