//! Prints the twiddle copy benchmark: `cargo run --release -p sgx-layout --example bench_twiddle`
//! (every case of `BENCH_CASES`), or `... -- 2048x4 256x1` (square side x bytes per pixel) for
//! only those.

fn main() {
    let mut cases = Vec::new();
    for arg in std::env::args().skip(1) {
        let case = arg
            .split_once('x')
            .and_then(|(s, b)| Some((s.parse::<u32>().ok()?, b.parse::<usize>().ok()?)));
        match case {
            Some(c) => cases.push(c),
            None => {
                eprintln!("bench_twiddle: {arg:?} is not SIDExBYTES (e.g. 2048x4)");
                std::process::exit(2);
            }
        }
    }
    if cases.is_empty() {
        cases.extend(sgx_layout::bench::BENCH_CASES);
    }
    match sgx_layout::bench_twiddle(&cases) {
        Ok(rows) => print!("{}", sgx_layout::format_bench(&rows)),
        Err(e) => {
            eprintln!("bench_twiddle: {e}");
            std::process::exit(1);
        }
    }
}
