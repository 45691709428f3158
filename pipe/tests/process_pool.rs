//! The process's pool (crate `sgx-pool`, which the model's tiles and large twiddle copies share)
//! starts with the first job large enough to use it, not with the device: every thread costs the process a 64 MiB malloc arena of address space,
//! and GL programs set an address-space limit after making their context (piglit's
//! `glsl-*-unroll-explosion`, `rlimit 268435456`, ran out in Mesa's front end while the
//! idle pool held its arena). One test in this binary: the process's pool is its own.

mod common;

use common::*;
use sgx_pipe::Format;

/// A full-target constant-colour rectangle into a fresh `w`x`h` target; returns its bytes.
fn fill(r: &mut Rig, w: u32, h: u32) -> Vec<u8> {
    let t = target(r, Format::B8G8R8A8_UNORM, w, h);
    bind_const(r, &fb(&t, None));
    set_colour(r, [0.0, 1.0, 0.0, 1.0]);
    rect(r, 0, 0, w, h, 0.0);
    r.ctx.read_level(&t, 0, 0).unwrap()
}

#[test]
fn the_tile_pool_starts_with_the_first_job_that_takes_it() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // SGX_THREADS other than unset/0 picks a pool of its own size or none, made with the device.
    let process_pool =
        std::env::var("SGX_THREADS").map_or(true, |v| v.trim().is_empty() || v.trim() == "0");
    if !process_pool {
        return;
    }
    let mut r = rig();
    assert_eq!(
        sgx_pool::live_workers(),
        0,
        "no tile worker with a new device"
    );
    // 32x32 pixels: 4 tiles, under the pool's threshold (16 tiles): on the caller.
    let small = fill(&mut r, 32, 32);
    assert!(small.chunks(4).all(|p| p == [0, 255, 0, 255]));
    assert_eq!(
        sgx_pool::live_workers(),
        0,
        "no tile worker for a 4-tile job"
    );
    // 128x128 pixels: 64 tiles, on the pool, which starts with one worker per other core.
    let big = fill(&mut r, 128, 128);
    assert!(big.chunks(4).all(|p| p == [0, 255, 0, 255]));
    assert_eq!(
        sgx_pool::live_workers(),
        cores - 1,
        "the process's pool for a 64-tile job"
    );
}
