//! sgx535 sim (under construction).
