//! Large twiddle copies run on the process's pool (crate `sgx-pool`), started by the first copy
//! large enough (4 MiB), not by a small one: every thread costs the process a 64 MiB malloc
//! arena of address space (why that matters: `sgx_pool::global`). One test in this binary: the
//! process's pool is its own.

use sgx_layout::copy::fast;
use sgx_layout::{Rect, Twiddle};

/// A `side`x`side` B8G8R8A8 twiddled->linear copy; checks a few texels against the Morton
/// offsets.
fn untwiddle(side: u32) {
    let g = Twiddle::from_extent(side, side).unwrap();
    let tw: Vec<u8> = (0..g.len_el() * 4)
        .map(|i| (i / 4 * 7 + i % 4) as u8)
        .collect();
    let mut lin = vec![0u8; tw.len()];
    let stride = side as usize * 4;
    fast::twiddled_to_linear(&mut lin, stride, &tw, &g, Rect::full(side, side), 4).unwrap();
    for (x, y) in [
        (0, 0),
        (side - 1, 0),
        (3, side - 1),
        (side / 2 + 1, side / 3),
    ] {
        let t = g.offset_el(x, y).unwrap() as usize * 4;
        let l = y as usize * stride + x as usize * 4;
        assert_eq!(lin[l..l + 4], tw[t..t + 4], "({x},{y}) of {side}x{side}");
    }
}

#[test]
fn the_pool_starts_with_the_first_copy_that_takes_it() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let serial = std::env::var("SGX_THREADS").is_ok_and(|v| v.trim() == "1");
    assert_eq!(
        sgx_pool::live_workers(),
        0,
        "no pool worker before any copy"
    );
    // 256x256 B8G8R8A8, 256 KiB: on the caller.
    untwiddle(256);
    assert_eq!(
        sgx_pool::live_workers(),
        0,
        "no pool worker for a 256 KiB copy"
    );
    // 1024x1024 B8G8R8A8, 4 MiB: on the pool, one worker per other core (none with
    // SGX_THREADS=1).
    untwiddle(1024);
    let want = if serial { 0 } else { cores - 1 };
    assert_eq!(
        sgx_pool::live_workers(),
        want,
        "the process's pool for a 4 MiB copy"
    );
}
