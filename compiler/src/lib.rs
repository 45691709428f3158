//! sgx535 compiler: TGSI text (Mesa's `tgsi_dump` dialect) to USSE model code.
//!
//! Pipeline: [`tgsi::parse`] -> lowering to an IR of USSE instructions over virtual
//! temporaries -> copy propagation, immediate folding, dead code, move coalescing ->
//! linear-scan allocation onto hwdocs' register banks -> encoding with hwdocs' packers.
//! [`link`] compiles a vertex/fragment pair with the varying remap. The disassembler's text
//! assembles back to the same words ([`assemble`]).

// Every unsafe block says why it is sound (RELIABILITY.md).
#![warn(clippy::undocumented_unsafe_blocks)]

/// The compiler's version and a hash of its sources and of the ISA definition: part of every
/// shader cache key, so a changed compiler never reads an older one's output.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("SGX_COMPILER_SOURCE_HASH")
);

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
mod validate;

pub use asm::assemble;
pub use error::CompileError;
pub use io::{InputLoc, IoLayout, OutputLoc};
pub use link::{link, LinkedProgram, LinkedVarying};
pub use report::{compile_report, disasm_words};
pub use shader::{
    compile, compile_with, CompiledShader, ConstRange, SamplerUse, ShaderInput, ShaderOutput,
};
pub use tgsi::{parse, ShaderStage};

#[cfg(test)]
mod version_tests {
    #[test]
    fn the_version_carries_a_source_hash() {
        let (ver, hash) = super::VERSION.split_once('+').expect("version+hash");
        assert_eq!(ver, env!("CARGO_PKG_VERSION"));
        assert_eq!(hash.len(), 16);
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
