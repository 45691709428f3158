//! Prints the twiddle copy benchmark: `cargo run --release -p sgx-layout --example bench_twiddle`.

fn main() {
    match sgx_layout::bench_twiddle(&sgx_layout::bench::BENCH_CASES) {
        Ok(rows) => print!("{}", sgx_layout::format_bench(&rows)),
        Err(e) => {
            eprintln!("bench_twiddle: {e}");
            std::process::exit(1);
        }
    }
}
