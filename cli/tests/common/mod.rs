//! Running the `sgx535` binary from the integration tests.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs `sgx535 ARGS` on the default device (SGX535_DEVICE unset, whatever the caller's
/// environment holds).
pub fn sgx535(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sgx535"))
        .args(args)
        .env_remove("SGX535_DEVICE")
        .output()
        .expect("running sgx535")
}

/// Standard output then standard error, as text.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
