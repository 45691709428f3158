//! `sgx535`: the command-line program of the sgx535 driver library.

mod cmd_hwdocs;

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
    /// Print the hardware definition blocks and their evidence summary.
    Hwdocs(cmd_hwdocs::Args),
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::new().filter_or("SGX_LOG", "warn")).init();
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Hwdocs(a) => cmd_hwdocs::run(&a),
    };
    if let Err(e) = r {
        eprintln!("sgx535: {e:#}");
        std::process::exit(1);
    }
}
