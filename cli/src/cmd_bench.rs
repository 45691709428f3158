//! `sgx535 bench twiddle|sim|draws`: figures side by side in one run.

use crate::out::out;
#[derive(clap::Args)]
pub struct Args {
    /// What to measure.
    #[arg(value_parser = ["twiddle", "sim", "draws"])]
    what: String,
    /// With `sim`: also run the same work on Mesa's softpipe and llvmpipe through OSMesa.
    #[arg(long)]
    peers: bool,
    /// Internal: run the peer workloads on this process's OSMesa driver and print them.
    #[arg(long, hide = true)]
    peer_child: bool,
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    match a.what.as_str() {
        "twiddle" => {
            let rows = sgx_layout::bench_twiddle(&sgx_layout::bench::BENCH_CASES)?;
            out!("{}", sgx_layout::format_bench(&rows));
        }
        "draws" => crate::cmd_bench_draws::run()?,
        _ if a.peer_child => crate::cmd_bench_peers::child()?,
        _ => {
            let rows = sgx_sim::bench_sim();
            out!("{}", sgx_sim::format_bench(&rows));
            if a.peers {
                crate::cmd_bench_peers::run(&rows)?;
            }
        }
    }
    Ok(())
}
