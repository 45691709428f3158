//! Helpers shared by the integration tests: tiny 2D jobs on 32-bit pixels.
#![allow(dead_code)]

pub mod hang;
pub mod loss;
pub mod preload;

use std::time::Duration;

use sgx_hwdocs::Format;
use sgx_winsys::twod::{self, Rect, Surface};
use sgx_winsys::{Access, Bo, BoDesc, Device, Fence, Job, Result};

/// Long enough never to matter when nothing is wrong.
pub const LONG: Duration = Duration::from_secs(60);

/// A row of `n` B8G8R8A8 pixels.
pub fn row(dev: &dyn Device, n: u32) -> Bo {
    dev.create_bo(&BoDesc::new(u64::from(n) * 4)).unwrap()
}

fn surface(bo: &Bo) -> Surface<'_> {
    Surface {
        bo,
        offset_B: 0,
        stride_B: bo.size_B() as u32,
        format: Format::B8G8R8A8_UNORM,
    }
}

/// A command buffer for one 2D command.
pub fn cmd_bo(dev: &dyn Device) -> Bo {
    dev.create_bo(&BoDesc::new(twod::list_size_B(1))).unwrap()
}

/// A job filling pixel `x` of `dst` with `value` (its own command buffer).
pub fn fill_job(dev: &dyn Device, dst: &Bo, x: u32, value: u32) -> Job {
    let cmd = twod::fill(&surface(dst), Rect::new(x, 0, 1, 1), value).unwrap();
    twod::job(&cmd_bo(dev), &[cmd], LONG)
        .unwrap()
        .with_bo(dst, Access::Write)
}

/// A job copying `n` pixels from `src` at `sx` to `dst` at `dx`.
pub fn copy_job(dev: &dyn Device, src: &Bo, sx: u32, dst: &Bo, dx: u32, n: u32) -> Job {
    let cmd = twod::copy(&surface(src), Rect::new(sx, 0, n, 1), &surface(dst), dx, 0).unwrap();
    twod::job(&cmd_bo(dev), &[cmd], LONG)
        .unwrap()
        .with_bo(src, Access::Read)
        .with_bo(dst, Access::Write)
}

/// Submits a fill of pixel `x`.
pub fn fill(dev: &dyn Device, dst: &Bo, x: u32, value: u32) -> Result<Fence> {
    dev.submit(fill_job(dev, dst, x, value))
}

/// The pixels of a row buffer, after a synchronized read map.
pub fn pixels(bo: &Bo) -> Vec<u32> {
    bo.read_all(LONG)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
