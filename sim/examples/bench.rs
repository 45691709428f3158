//! Prints the model's throughput: `cargo run --release -p sgx-sim --example bench`.
fn main() {
    print!("{}", sgx_sim::format_bench(&sgx_sim::bench_sim()));
}
