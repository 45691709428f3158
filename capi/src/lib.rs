//! sgx535 capi (under construction).
