//! `sgx535 bench twiddle|sim|draws`: figures side by side in one run.

#[derive(clap::Args)]
pub struct Args {
    /// What to measure.
    #[arg(value_parser = ["twiddle", "sim", "draws"])]
    what: String,
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    match a.what.as_str() {
        "twiddle" => {
            let rows = sgx_layout::bench_twiddle(&sgx_layout::bench::BENCH_CASES)?;
            print!("{}", sgx_layout::format_bench(&rows));
        }
        "draws" => crate::cmd_bench_draws::run()?,
        _ => {
            let rows = sgx_sim::bench_sim();
            print!("{}", sgx_sim::format_bench(&rows));
        }
    }
    Ok(())
}
