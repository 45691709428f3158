//! Shared set-up of the blitter tests: a device, a context, a texture with the seed pattern.

#![allow(dead_code)]

use std::sync::Arc;

use sgx_blitter::{pattern, Blitter};
use sgx_pipe::{bind, Context, Format, PipeBox, Resource, ResourceTemplate, Screen, ShaderCache};
use sgx_winsys::{Device, SimDevice};

pub struct Rig {
    pub dev: Arc<dyn Device>,
    pub screen: Screen,
    pub ctx: Context,
    pub blitter: Blitter,
}

pub fn rig_on(dev: Arc<dyn Device>) -> Rig {
    let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
    let ctx = screen.context_create();
    let blitter = Blitter::with_admission(&ctx, sgx_blitter::Admission::builtin()).unwrap();
    Rig {
        dev,
        screen,
        ctx,
        blitter,
    }
}

pub fn rig() -> Rig {
    rig_on(Arc::new(SimDevice::new().unwrap()))
}

pub fn levels_of(size: u32) -> u32 {
    32 - size.leading_zeros()
}

/// A square texture with the full chain, level 0 holding the seed pattern.
pub fn patterned(r: &mut Rig, format: Format, size: u32) -> Arc<Resource> {
    let res = r
        .screen
        .resource_create(&ResourceTemplate::texture_2d(
            format,
            size,
            size,
            levels_of(size) - 1,
            bind::SAMPLER_VIEW | bind::RENDER_TARGET,
        ))
        .unwrap();
    let bpe = format.info().bytes_per_el as usize;
    let l0 = if format == Format::B8G8R8A8_UNORM {
        pattern::level0(size)
    } else {
        (0..size as usize * size as usize * bpe)
            .map(|i| (i * 7 + i / 5) as u8)
            .collect()
    };
    r.ctx
        .texture_subdata(
            &res,
            0,
            0,
            PipeBox::new(0, 0, size, size),
            &l0,
            size as usize * bpe,
            0,
        )
        .unwrap();
    res
}

/// Every level of a texture as linear rows.
pub fn read_all(r: &mut Rig, res: &Arc<Resource>) -> Vec<Vec<u8>> {
    (0..=res.last_level())
        .map(|l| r.ctx.read_level(res, l, 0).unwrap())
        .collect()
}

/// The whole allocation, raw.
pub fn raw(res: &Arc<Resource>) -> Vec<u8> {
    res.bo().read_all(sgx_pipe::DEFAULT_TIMEOUT).unwrap()
}

/// The drm-shim library built next to the tests.
pub fn shim_library() -> std::path::PathBuf {
    sgx_winsys::built_shim_library()
        .expect("libsgx535_drm_shim.so is built next to the test (a dev-dependency)")
}

/// Re-runs this test binary's test `test` alone in a child process with the drm-shim
/// preloaded, the replay fixture `fixture_json` injected (through the temporary file `file`)
/// and the variables `env` set; returns the child's stdout, once it has exited successfully.
pub fn run_under_shim(
    test: &str,
    file: &str,
    fixture_json: &str,
    env: &[(&str, String)],
) -> String {
    let path = std::env::temp_dir().join(file);
    std::fs::write(&path, fixture_json).unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture"])
        .env("LD_PRELOAD", shim_library())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("SGX535_SHIM_FIXTURE", &path)
        .env_remove("SGX_DRM_NODE")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{test} failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
