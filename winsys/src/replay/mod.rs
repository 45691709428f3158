//! The replay backend: the device model with a host fixture's failures injected (a refused
//! submission, a failed allocation, a faulting, hanging or failing job, a lost device). The
//! fixture format is documented in fixtures/README.md.

mod expect;
mod fixture;

use std::path::Path;
use std::sync::Arc;

pub use expect::{ErrorKind, Expect, Expects, Setup};
pub use fixture::{Fixture, Inject, RefuseErrno, MAX_INDEX};

use crate::error::Result;
use crate::sim::{SimDevice, SimOptions};

/// A replay device for the fixture file at `path`.
pub fn open(path: &Path) -> Result<SimDevice> {
    with_fixture(Fixture::load(path)?)
}

/// A replay device for a parsed fixture.
pub fn with_fixture(fixture: Fixture) -> Result<SimDevice> {
    SimDevice::with_options(SimOptions {
        faults: Some(Arc::new(fixture)),
        ..SimOptions::default()
    })
}
