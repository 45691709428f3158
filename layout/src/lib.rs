//! sgx535 layout (under construction).
