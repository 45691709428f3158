//! Long programs cost time in proportion to their length: too long is refused before the
//! optimiser runs, and what the optimiser does run is near-linear (a dead chain is removed
//! whole, not one link per pass).

use std::time::{Duration, Instant};

use sgx_compiler::{compile, CompileError};

/// A vertex shader with `n` dependent MADs; `used` says whether the chain reaches OUT[0].
fn chain(n: usize, used: bool) -> String {
    let mut s = String::from(
        "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL TEMP[0]\n  0: MOV TEMP[0], IN[0]\n",
    );
    for i in 0..n {
        s += &format!("  {}: MAD TEMP[0], TEMP[0], IN[0], IN[0]\n", i + 1);
    }
    let src = if used { "TEMP[0]" } else { "IN[0]" };
    s += &format!("  {}: MOV OUT[0], {src}\n  {}: END\n", n + 1, n + 2);
    s
}

#[test]
fn a_chain_far_past_the_limit_is_refused_before_optimising() {
    let t0 = Instant::now();
    let e = compile(&chain(20_000, true)).expect_err("too long");
    assert!(
        matches!(e, CompileError::Limit { limit, need: 40_004, max: 16_384 } if limit.contains("before optimisation")),
        "{e}"
    );
    // 9.7 s and 1.6 GB before the check existed; measured 0.03 s since.
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
}

#[test]
fn a_dead_chain_just_under_the_headroom_is_removed_in_near_linear_time() {
    let t0 = Instant::now();
    // 8,000 MADs lower to 16,000 instructions, none of which reaches the output.
    let s = compile(&chain(8_000, false)).expect("compiles to the one MOV");
    assert!(s.instructions <= 4, "{} instructions", s.instructions);
    // Dead code used to be peeled one link per liveness pass (16,000 passes here); one
    // strong-liveness pass measured 0.02 s.
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

#[test]
fn a_live_chain_under_the_headroom_reaches_the_final_limit_quickly() {
    let t0 = Instant::now();
    let e = compile(&chain(8_000, true)).expect_err("16,002 instructions do not fit");
    assert!(
        matches!(
            e,
            CompileError::Limit {
                limit: "usse::MAX_INSTRUCTIONS",
                need: 16_002,
                ..
            }
        ),
        "{e}"
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}
