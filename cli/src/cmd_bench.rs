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

/// Passes of `bench sim --peers` (each the model's rounds, then every peer once).
const PEER_PASSES: u32 = 3;

pub fn run(a: &Args) -> anyhow::Result<()> {
    match a.what.as_str() {
        "twiddle" => {
            let rows = sgx_layout::bench_twiddle(&sgx_layout::bench::BENCH_CASES)?;
            out!("{}", sgx_layout::format_bench(&rows));
        }
        "draws" => crate::cmd_bench_draws::run()?,
        _ if a.peer_child => crate::cmd_bench_peers::child()?,
        _ => {
            use crate::cmd_bench_peers as peers;
            let with_peers = a.peers && peers::available();
            // With peers, the model and the peers take turns, so that both are sampled over
            // the same minutes of a machine whose speed comes and goes.
            let passes = if with_peers { PEER_PASSES } else { 1 };
            let mut rows = sgx_sim::bench_sim();
            let n = rows.first().map_or(1, |r| r.threads);
            let mut figures = Vec::new();
            for pass in 0..passes {
                if pass > 0 {
                    for (r, p) in rows.iter_mut().zip(sgx_sim::bench_sim()) {
                        r.merge_pass(&p);
                    }
                }
                if with_peers {
                    peers::merge(&mut figures, peers::measure(n));
                }
            }
            out!("{}", sgx_sim::format_bench(&rows));
            if with_peers {
                peers::print(&rows, &figures, passes);
            }
        }
    }
    Ok(())
}
