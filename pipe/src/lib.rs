//! sgx535 pipe (under construction).
