//! sgx535 winsys (under construction).
