//! sgx535 compiler (under construction).
