//! `sgx535 compile FILE.tgsi [--stage-pair VS FS] [--verbose]` and `sgx535 disasm FILE.bin`.

use crate::out::{out, outln};
use anyhow::Context;

#[derive(clap::Args)]
pub struct CompileArgs {
    /// A TGSI file (VERT or FRAG).
    file: Option<std::path::PathBuf>,
    /// Compile and link a vertex and a fragment shader.
    #[arg(long, num_args = 2, value_names = ["VS", "FS"], conflicts_with = "file")]
    stage_pair: Option<Vec<std::path::PathBuf>>,
    /// Also list where every input and output lives, packed varyings' lanes included.
    #[arg(long)]
    verbose: bool,
}

#[derive(clap::Args)]
pub struct DisasmArgs {
    /// File of little-endian 32-bit words, two per instruction.
    file: std::path::PathBuf,
}

fn read(p: &std::path::Path) -> anyhow::Result<String> {
    std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))
}

pub fn run_compile(a: &CompileArgs) -> anyhow::Result<()> {
    let out = match (&a.file, &a.stage_pair) {
        (Some(f), None) => sgx_compiler::compile_report(&read(f)?, None, a.verbose)?,
        (None, Some(p)) => {
            sgx_compiler::compile_report(&read(&p[0])?, Some(&read(&p[1])?), a.verbose)?
        }
        _ => anyhow::bail!("give a TGSI file, or --stage-pair VS FS"),
    };
    out!("{out}");
    Ok(())
}

pub fn run_disasm(a: &DisasmArgs) -> anyhow::Result<()> {
    let bytes = std::fs::read(&a.file).with_context(|| format!("reading {}", a.file.display()))?;
    if bytes.len() % 8 != 0 {
        anyhow::bail!(
            "{} bytes: not a whole number of 8-byte instructions",
            bytes.len()
        );
    }
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let text = sgx_compiler::disasm_words(&words)?;
    outln!("{}", text.trim_end());
    Ok(())
}
