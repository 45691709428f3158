//! `sgx535`: the command-line program of the sgx535 driver library.
#![allow(non_snake_case)] // byte counts end in _B (CONTRIBUTING.md)

mod cmd_bench;
mod cmd_bench_draws;
mod cmd_bench_peers;
mod cmd_caps;
mod cmd_compile;
mod cmd_demo;
mod cmd_hwdocs;
mod cmd_info;
mod cmd_layout;
mod cmd_mipgen;
mod cmd_qualify;
mod cmd_replay;
mod cmd_trace;
mod errors;
mod out;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "sgx535",
    version,
    about = "PowerVR SGX535 (GMA500) userspace driver tools"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the device in use (SGX535_DEVICE), its memory, caps, hwdocs evidence counts and
    /// the admission table for its kind.
    Info(cmd_info::Args),
    /// Print a recorded submission trace (JSON) as a table.
    Trace(cmd_trace::Args),
    /// Print the hardware definition blocks and their evidence summary.
    Hwdocs(cmd_hwdocs::Args),
    /// Print the GL versions Mesa would expose on this driver (`--all`: every cap and format).
    Caps(cmd_caps::Args),
    /// Print where every level and face of a texture lives.
    Layout(cmd_layout::Args),
    /// Measure: `twiddle` (copies vs the best plain copies vs reference), `sim` (the device
    /// model vs a CPU reference; `--peers`: and Mesa's softpipe/llvmpipe), `draws` (draws per
    /// second through the pipe).
    Bench(cmd_bench::Args),
    /// Compile TGSI text to USSE model code and print the disassembly and statistics.
    Compile(cmd_compile::CompileArgs),
    /// Disassemble USSE model code (a file of little-endian 32-bit words).
    Disasm(cmd_compile::DisasmArgs),
    /// Generate a mip chain on the GPU model, one fenced submission per level, and compare it
    /// byte for byte with the CPU reference.
    Mipgen(cmd_mipgen::Args),
    /// Qualify formats, sizes and windows for the GPU mip route by pixel and trace
    /// comparisons; write report.json and index.html; `--record` admits what passed.
    Qualify(cmd_qualify::Args),
    /// Run driver scenarios on the replay device with host fixtures' failures injected, step
    /// by step, and check each fixture's `expect` block.
    Replay(cmd_replay::Args),
    /// Render the lit, textured cube or glxgears' gears on the GPU model and write PNGs.
    Demo(cmd_demo::Args),
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::new().filter_or("SGX_LOG", "warn")).init();
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Hwdocs(a) => cmd_hwdocs::run(&a),
        Cmd::Caps(a) => cmd_caps::run(&a),
        Cmd::Layout(a) => cmd_layout::run(&a),
        Cmd::Bench(a) => cmd_bench::run(&a),
        Cmd::Compile(a) => cmd_compile::run_compile(&a),
        Cmd::Disasm(a) => cmd_compile::run_disasm(&a),
        Cmd::Mipgen(a) => cmd_mipgen::run(&a),
        Cmd::Demo(a) => cmd_demo::run(&a),
        Cmd::Replay(a) => cmd_replay::run(&a),
        Cmd::Qualify(a) => cmd_qualify::run(&a),
        Cmd::Info(a) => cmd_info::run(&a),
        Cmd::Trace(a) => cmd_trace::run(&a),
    };
    let r = r.and_then(|()| Ok(out::flush()?));
    if let Err(e) = r {
        if e.downcast_ref::<out::StdoutError>()
            .is_some_and(out::StdoutError::is_broken_pipe)
        {
            // The reader has what it wanted (`| head`); nothing to report.
            return;
        }
        eprintln!("sgx535: {}", errors::chain(&e));
        std::process::exit(1);
    }
}
