//! sgx535 compiler: TGSI text (Mesa's `tgsi_dump` dialect) to USSE model code.
//!
//! Pipeline: [`tgsi::parse`] -> lowering to an IR of USSE instructions over virtual
//! temporaries -> copy propagation, immediate folding, dead code, move coalescing ->
//! linear-scan allocation onto hwdocs' register banks -> encoding with hwdocs' packers.
//! [`link`] compiles a vertex/fragment pair with the varying remap. The disassembler's text
//! assembles back to the same words ([`assemble`]).

/// The compiler's version: part of every shader cache key, so a new compiler never reads an
/// old one's output.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

mod asm;
mod disasm;
mod encode;
pub mod error;
pub mod io;
mod ir;
mod link;
mod lower;
mod opt;
mod regalloc;
mod report;
mod shader;
pub mod tgsi;

pub use asm::assemble;
pub use error::CompileError;
pub use io::{InputLoc, IoLayout, OutputLoc};
pub use link::{link, LinkedProgram, LinkedVarying};
pub use report::{compile_report, disasm_words};
pub use shader::{
    compile, compile_with, CompiledShader, ConstRange, SamplerUse, ShaderInput, ShaderOutput,
};
pub use tgsi::{parse, ShaderStage};
