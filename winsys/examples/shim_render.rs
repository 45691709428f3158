//! Runs 2D jobs through the drm backend on the drm-shim's fake render node and prints the
//! trace as JSON. Re-executes itself with the shim preloaded when it is not already:
//!
//!     cargo run -p sgx-winsys --example shim_render
//!
//! No kernel implements sgx535_drm.h today; the node is served by the device model.

use std::time::Duration;

use sgx_hwdocs::Format;
use sgx_winsys::twod::{self, Rect, Surface};
use sgx_winsys::{Access, BoDesc, Device, DrmDevice};

const LONG: Duration = Duration::from_secs(60);

fn shim_active() -> bool {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no other preconditions.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"sgx535_drm_shim_active".as_ptr()) }.is_null()
}

/// Re-runs this program with the shim preloaded; returns its exit code.
fn rerun_under_shim() -> i32 {
    let exe = std::env::current_exe().expect("own path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target dir");
    let lib = [dir.join("deps"), dir.to_path_buf()]
        .iter()
        .map(|d| d.join("libsgx535_drm_shim.so"))
        .find(|p| p.exists())
        .expect("libsgx535_drm_shim.so not built: run through `cargo run -p sgx-winsys --example shim_render`");
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("LD_PRELOAD", lib)
        .status()
        .expect("re-running under the shim");
    status.code().unwrap_or(1)
}

fn main() -> sgx_winsys::Result<()> {
    if !shim_active() {
        std::process::exit(rerun_under_shim());
    }
    let dev = DrmDevice::open_default()?;
    let info = dev.info();
    eprintln!(
        "{}: driver {}, core revision {:#x}, model {}",
        dev.path(),
        info.driver,
        info.core_revision,
        info.is_model
    );
    let (w, h) = (16u32, 16u32);
    let target = dev.create_bo(&BoDesc::new(u64::from(w * h * 4)))?;
    let stripes = dev.create_bo(&BoDesc::new(u64::from(w * h * 4)))?;
    let surf = |bo| Surface {
        bo,
        offset_B: 0,
        stride_B: w * 4,
        format: Format::B8G8R8A8_UNORM,
    };
    let run = |cmds: &[sgx_hwdocs::twod::TwodCmd], bos: &[(&sgx_winsys::Bo, Access)]| {
        let cmd = dev.create_bo(&BoDesc::new(twod::list_size_B(cmds.len())))?;
        let mut job = twod::job(&cmd, cmds, LONG)?;
        for (b, a) in bos {
            job = job.with_bo(b, *a);
        }
        dev.submit(job)
    };
    // Stripes in one buffer, then copied into the target over a cleared background.
    let mut cmds = Vec::new();
    for i in 0..4 {
        let colour = [0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF, 0xFFFF_FFFF][i as usize];
        cmds.push(twod::fill(
            &surf(&stripes),
            Rect::new(0, i * 4, w, 4),
            colour,
        )?);
    }
    run(&cmds, &[(&stripes, Access::Write)])?;
    run(
        &[twod::fill(
            &surf(&target),
            Rect { x: 0, y: 0, w, h },
            0xFF20_2020,
        )?],
        &[(&target, Access::Write)],
    )?;
    let done = run(
        &[twod::copy(
            &surf(&stripes),
            Rect::new(0, 0, 8, h),
            &surf(&target),
            4,
            0,
        )?],
        &[(&stripes, Access::Read), (&target, Access::Write)],
    )?;
    done.wait(LONG)?;
    let px = target.read_all(LONG)?;
    for y in 0..h {
        let row: String = (0..w)
            .map(|x| {
                let i = ((y * w + x) * 4) as usize;
                match u32::from_le_bytes([px[i], px[i + 1], px[i + 2], px[i + 3]]) {
                    0xFFFF_0000 => 'R',
                    0xFF00_FF00 => 'G',
                    0xFF00_00FF => 'B',
                    0xFFFF_FFFF => 'W',
                    _ => '.',
                }
            })
            .collect();
        eprintln!("{row}");
    }
    dev.wait_idle(LONG)?;
    dev.trace().write_json(std::io::stdout())?;
    println!();
    Ok(())
}
