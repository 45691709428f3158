//! `sgx535 demo cube|gears|shadow [--frames N] [--out DIR]`: render through the pipe API on the
//! device model and write one PNG per frame (DIR/cube-000.png, ...).

mod cube;
pub(crate) mod gears;
mod math;
mod shaders;
mod shadow;
mod shadow_scene;
mod target;

use crate::out::outln;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use sgx_pipe::Screen;
use sgx_winsys::Device;

/// One PNG per frame: a bound so a mistyped count cannot fill a disk for hours.
const MAX_FRAMES: i64 = 1000;

#[derive(clap::Args)]
pub struct Args {
    /// Which demo.
    #[arg(value_parser = ["cube", "gears", "shadow"])]
    which: String,
    /// Frames to render (1 to 1000); the scene turns between them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_FRAMES))]
    frames: u32,
    /// Directory for the PNGs (created if missing).
    #[arg(long, default_value = ".")]
    out: PathBuf,
    /// demo shadow only: look the shadow map up with compare function ALWAYS, so every
    /// lookup reads lit (tests diff the two renderings).
    #[arg(long, hide = true)]
    unshadowed: bool,
}

enum Scene {
    Cube(cube::Cube),
    Gears(gears::Gears),
    Shadow(shadow::Shadow),
}

impl Scene {
    fn target(&self) -> &target::Target {
        match self {
            Scene::Cube(c) => c.target(),
            Scene::Gears(g) => g.target(),
            Scene::Shadow(s) => s.target(),
        }
    }

    fn draw(&self, ctx: &mut sgx_pipe::Context, n: u32) -> anyhow::Result<()> {
        match self {
            Scene::Cube(c) => c.draw(ctx, n),
            Scene::Gears(g) => g.draw(ctx, n),
            Scene::Shadow(s) => s.draw(ctx, n),
        }
    }
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    if a.unshadowed && a.which != "shadow" {
        anyhow::bail!("--unshadowed applies to demo shadow only");
    }
    if a.out.exists() && !a.out.is_dir() {
        anyhow::bail!(
            "--out {} is a file: give a directory for the PNGs",
            a.out.display()
        );
    }
    let out = target::OutDir::create(&a.out)?;
    render(a, &out)?;
    out.keep();
    Ok(())
}

fn render(a: &Args, out: &target::OutDir) -> anyhow::Result<()> {
    let dev: Arc<dyn Device> = sgx_winsys::open_from_env()?;
    let screen = Screen::new(dev.clone());
    let mut ctx = screen.context_create();
    let scene = match a.which.as_str() {
        "cube" => {
            let c = cube::Cube::new(&screen, &mut ctx)?;
            outln!(
                "cube: {0}x{0}, 12 triangles, texture mip chain by {1}",
                cube::SIZE_PX,
                c.mip_route
            );
            Scene::Cube(c)
        }
        "shadow" => {
            let lookup = if a.unshadowed {
                shadow::Lookup::ForcedLit
            } else {
                shadow::Lookup::Shadowed
            };
            let s = shadow::Shadow::new(&screen, &mut ctx, lookup)?;
            outln!(
                "shadow: {0}x{0}, a box on a floor, {1}x{1} Z24S8 shadow map, 2 passes per frame{2}",
                shadow_scene::SIZE_PX,
                shadow_scene::SHADOW_MAP_PX,
                if a.unshadowed { " (lookups forced lit)" } else { "" }
            );
            Scene::Shadow(s)
        }
        _ => {
            let g = gears::Gears::new(&screen, &mut ctx)?;
            outln!(
                "gears: {0}x{0}, {1} triangles in 3 draws",
                gears::SIZE_PX,
                g.triangles()
            );
            Scene::Gears(g)
        }
    };
    ctx.flush()?;
    dev.wait_idle(sgx_pipe::DEFAULT_TIMEOUT)?;

    for n in 0..a.frames {
        let t0 = Instant::now();
        let jobs_before = dev.trace().entries.len();
        scene.draw(&mut ctx, n)?;
        let fence = ctx.flush()?.context("a frame submitted nothing")?;
        fence
            .wait(sgx_pipe::DEFAULT_TIMEOUT)
            .with_context(|| format!("frame {n}"))?;
        let elapsed = t0.elapsed();
        let t = scene.target();
        let rgba = t.read_rgba(&mut ctx)?;
        let path = out.path().join(format!("{}-{n:03}.png", a.which));
        target::write_png(&path, t.width_px, t.height_px, &rgba)?;
        let trace = dev.trace();
        let (mut pixels, mut texels, mut cycles) = (0, 0, 0);
        for e in &trace.entries[jobs_before..] {
            if let Some(c) = e.counters {
                pixels += c.pixels_shaded;
                texels += c.texels_fetched;
            }
            if let (Some(s), Some(e)) = (e.start_cycles, e.end_cycles) {
                cycles += e - s;
            }
        }
        outln!(
            "{}: {} jobs, {pixels} pixels shaded, {texels} texels fetched, {cycles} model cycles, {:.1} ms",
            path.display(),
            trace.entries.len() - jobs_before,
            elapsed.as_secs_f64() * 1e3
        );
    }
    let s = ctx.stats();
    outln!(
        "context: {} draws, {} state blocks ({} words), {} submissions",
        s.draws,
        s.state_blocks_emitted,
        s.state_words_emitted,
        s.submissions
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Arc<dyn Device>, sgx_pipe::Context, Screen) {
        let dev: Arc<dyn Device> = Arc::new(sgx_winsys::SimDevice::new().expect("model"));
        let screen = Screen::with_shader_cache(dev.clone(), sgx_pipe::ShaderCache::in_memory());
        let ctx = screen.context_create();
        (dev, ctx, screen)
    }

    fn frame(scene: &Scene, ctx: &mut sgx_pipe::Context, n: u32) -> Vec<u8> {
        scene.draw(ctx, n).expect("draw");
        ctx.flush().expect("flush");
        scene.target().read_rgba(ctx).expect("read back")
    }

    /// Centroid (x, y) and count of pixels where `pick` holds.
    fn blob(rgba: &[u8], w: u32, pick: impl Fn(u16, u16, u16) -> bool) -> (f32, f32, u32) {
        let (mut sx, mut sy, mut n) = (0.0, 0.0, 0);
        for (i, p) in rgba.chunks_exact(4).enumerate() {
            if pick(p[0].into(), p[1].into(), p[2].into()) {
                sx += (i as u32 % w) as f32;
                sy += (i as u32 / w) as f32;
                n += 1;
            }
        }
        (sx / n.max(1) as f32, sy / n.max(1) as f32, n)
    }

    /// Sets up gears and renders frame 0 on `dev`; the frame's RGBA.
    fn gears_frame_on(dev: Arc<dyn Device>) -> anyhow::Result<(Vec<u8>, sgx_pipe::Context)> {
        let screen = Screen::with_shader_cache(dev.clone(), sgx_pipe::ShaderCache::in_memory());
        let mut ctx = screen.context_create();
        let scene = Scene::Gears(gears::Gears::new(&screen, &mut ctx)?);
        scene.draw(&mut ctx, 0)?;
        if let Some(f) = ctx.flush()? {
            f.wait(std::time::Duration::from_secs(30))?;
        }
        let rgba = scene.target().read_rgba(&mut ctx)?;
        Ok((rgba, ctx))
    }

    #[test]
    fn after_a_hang_at_any_job_of_a_gears_frame_a_new_context_renders_it_exactly() {
        use sgx_winsys::replay::{Fixture, Inject};
        use sgx_winsys::SimDevice;
        let clean: Arc<dyn Device> = Arc::new(SimDevice::new().expect("model"));
        let (want, _) = gears_frame_on(clean.clone()).expect("a clean frame");
        let jobs = clean.trace().entries.len() as u64;
        assert!(jobs >= 1);
        for job in 0..jobs {
            let dev: Arc<dyn Device> = Arc::new(
                SimDevice::with_options(sgx_winsys::SimOptions {
                    faults: Some(Arc::new(Fixture {
                        description: format!("hang at job {job}"),
                        inject: vec![Inject::HangJob { job }],
                        ..Default::default()
                    })),
                    hang_budget: Some(std::time::Duration::from_millis(20)),
                    ..Default::default()
                })
                .expect("model"),
            );
            let hung = gears_frame_on(dev.clone());
            let e = hung
                .err()
                .unwrap_or_else(|| panic!("job {job}: the frame hid its hang"));
            assert!(format!("{e:#}").contains("GPU hang"), "job {job}: {e:#}");
            assert_eq!(dev.resets().len(), 1, "job {job}");
            let (got, mut ctx) = gears_frame_on(dev).expect("a frame after the reset");
            assert_eq!(
                ctx.get_device_reset_status(),
                sgx_pipe::ResetStatus::NoReset
            );
            assert!(got == want, "job {job}: the frame after the reset differs");
        }
    }

    const SHIM_CHILD_ENV: &str = "SGX535_DEMO_SHIM_HANG_JOB";

    /// In a child with the drm-shim preloaded (started by the test below): the frame with a
    /// hang at the job the fixture names, then a new context's frame, printed as a checksum.
    #[test]
    fn child_gears_frame_after_a_hang_through_the_shim() {
        let Ok(job) = std::env::var(SHIM_CHILD_ENV) else {
            return; // only meaningful under the shim
        };
        let dev: Arc<dyn Device> =
            Arc::new(sgx_winsys::drm::DrmDevice::open_default().expect("the shim's node"));
        let hung = gears_frame_on(dev.clone());
        let e = hung
            .err()
            .unwrap_or_else(|| panic!("job {job}: the frame hid its hang"));
        assert!(format!("{e:#}").contains("GPU hang"), "job {job}: {e:#}");
        let (got, mut ctx) = gears_frame_on(dev).expect("a frame after the reset");
        assert_eq!(
            ctx.get_device_reset_status(),
            sgx_pipe::ResetStatus::NoReset
        );
        let out = std::env::var("SGX535_DEMO_SHIM_OUT").expect("where the frame goes");
        std::fs::write(out, &got).unwrap();
    }

    #[test]
    fn after_a_hang_at_any_job_of_a_gears_frame_through_the_shim_a_new_context_renders_it_exactly()
    {
        use sgx_winsys::replay::{Fixture, Inject};
        if std::env::var_os(SHIM_CHILD_ENV).is_some() {
            return;
        }
        let clean: Arc<dyn Device> = Arc::new(sgx_winsys::SimDevice::new().expect("model"));
        let (want, _) = gears_frame_on(clean.clone()).expect("a clean frame");
        let jobs = clean.trace().entries.len() as u64;
        assert!(jobs >= 1);
        let shim = sgx_winsys::built_shim_library().expect("the drm-shim (a dev-dependency)");
        for job in 0..jobs {
            let fixture = Fixture {
                description: format!("hang at job {job}"),
                inject: vec![Inject::HangJob { job }],
                ..Default::default()
            };
            let path = std::env::temp_dir().join(format!(
                "sgx535-demo-shim-hang-{}-{job}.json",
                std::process::id()
            ));
            std::fs::write(&path, serde_json::to_string(&fixture).unwrap()).unwrap();
            let frame = path.with_extension("rgba");
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "child_gears_frame_after_a_hang_through_the_shim",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env("LD_PRELOAD", &shim)
                .env(SHIM_CHILD_ENV, job.to_string())
                .env("SGX535_SHIM_FIXTURE", &path)
                .env("SGX535_SHIM_HANG_BUDGET_MS", "20")
                .env("SGX535_DEMO_SHIM_OUT", &frame)
                .env_remove("SGX_DRM_NODE")
                .output()
                .unwrap();
            let _ = std::fs::remove_file(&path);
            let got = std::fs::read(&frame).unwrap_or_default();
            let _ = std::fs::remove_file(&frame);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "job {job}: {stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(got == want, "job {job}: the frame after the reset differs");
        }
    }

    #[test]
    fn gears_frame_shows_red_green_and_blue_gears_where_glxgears_puts_them() {
        let (_dev, mut ctx, screen) = setup();
        let scene = Scene::Gears(gears::Gears::new(&screen, &mut ctx).expect("gears"));
        let img = frame(&scene, &mut ctx, 0);
        let w = gears::SIZE_PX;
        let red = blob(&img, w, |r, g, b| r > 60 && r > 2 * g.max(b));
        let green = blob(&img, w, |r, g, b| g > 60 && g > 2 * r.max(b));
        let blue = blob(&img, w, |r, g, b| b > 60 && b > 2 * r.max(g));
        let c = w as f32 / 2.0;
        // Red: the big gear, lower left; green: right; blue: top.
        assert!(red.2 > 10_000 && red.0 < c && red.1 > c, "red {red:?}");
        assert!(green.2 > 2_000 && green.0 > c, "green {green:?}");
        assert!(blue.2 > 2_000 && blue.1 < c, "blue {blue:?}");
        assert!(red.2 > green.2 && red.2 > blue.2);
        // Background black at the corners; the gear's hole shows the background too.
        assert_eq!(&img[..4], &[0, 0, 0, 255]);
    }

    #[test]
    fn cube_frame_is_textured_lit_and_on_the_clear_colour() {
        let (_dev, mut ctx, screen) = setup();
        let scene = Scene::Cube(cube::Cube::new(&screen, &mut ctx).expect("cube"));
        let img = frame(&scene, &mut ctx, 0);
        let w = cube::SIZE_PX;
        // The clear colour (0.08, 0.09, 0.14) at the corners.
        assert_eq!(&img[..4], &[20, 23, 36, 255]);
        // Warm and cool checker squares, both around the centre.
        let warm = blob(&img, w, |r, _, b| r > 100 && r > 2 * b);
        let cool = blob(&img, w, |r, _, b| b > 60 && b > 2 * r);
        let c = w as f32 / 2.0;
        for (name, (x, y, n)) in [("warm", warm), ("cool", cool)] {
            assert!(n > 3_000, "{name}: {n} pixels");
            assert!(
                (x - c).abs() < 30.0 && (y - c).abs() < 30.0,
                "{name} centred at {x}, {y}"
            );
        }
        // Lighting: the brightest warm texels are much brighter than the dimmest.
        let reds: Vec<u8> = img
            .chunks_exact(4)
            .filter(|p| u16::from(p[0]) > 2 * u16::from(p[2]) && p[0] > 40)
            .map(|p| p[0])
            .collect();
        let (lo, hi) = (
            reds.iter().min().copied().unwrap_or(0),
            reds.iter().max().copied().unwrap_or(0),
        );
        assert!(hi > 200 && lo < 150, "warm texels lit from {lo} to {hi}");
    }

    #[test]
    fn cube_depth_test_hides_back_faces_as_culling_does() {
        let (_dev, mut ctx, screen) = setup();
        let mut scene = Scene::Cube(cube::Cube::new(&screen, &mut ctx).expect("cube"));
        let culled = frame(&scene, &mut ctx, 2);
        if let Scene::Cube(c) = &mut scene {
            c.set_cull(&ctx, sgx_pipe::state::CullMode::NONE)
                .expect("rasterizer state");
        }
        let depth_only = frame(&scene, &mut ctx, 2);
        let differ = culled
            .chunks_exact(4)
            .zip(depth_only.chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differ, 0, "pixels where depth testing and culling disagree");
    }
}
