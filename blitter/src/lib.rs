//! sgx535 blitter (under construction).
