//! `sgx535 demo cube|gears [--frames N] [--out DIR]`: render through the pipe API on the device
//! model and write one PNG per frame (DIR/cube-000.png, ...).

mod cube;
mod gears;
mod math;
mod shaders;
mod target;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use sgx_pipe::Screen;
use sgx_winsys::{Device, SimDevice};

#[derive(clap::Args)]
pub struct Args {
    /// Which demo.
    #[arg(value_parser = ["cube", "gears"])]
    which: String,
    /// Frames to render; the scene turns between them.
    #[arg(long, default_value_t = 1)]
    frames: u32,
    /// Directory for the PNGs (created if missing).
    #[arg(long, default_value = ".")]
    out: PathBuf,
}

enum Scene {
    Cube(cube::Cube),
    Gears(gears::Gears),
}

impl Scene {
    fn target(&self) -> &target::Target {
        match self {
            Scene::Cube(c) => c.target(),
            Scene::Gears(g) => g.target(),
        }
    }

    fn draw(&self, ctx: &mut sgx_pipe::Context, n: u32) -> anyhow::Result<()> {
        match self {
            Scene::Cube(c) => c.draw(ctx, n),
            Scene::Gears(g) => g.draw(ctx, n),
        }
    }
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    if a.frames == 0 {
        anyhow::bail!("--frames must be at least 1");
    }
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let dev: Arc<dyn Device> = Arc::new(SimDevice::new()?);
    let screen = Screen::new(dev.clone());
    let mut ctx = screen.context_create();
    let scene = match a.which.as_str() {
        "cube" => {
            let c = cube::Cube::new(&screen, &mut ctx)?;
            println!(
                "cube: {0}x{0}, 12 triangles, texture mip chain by {1}",
                cube::SIZE_PX,
                c.mip_route
            );
            Scene::Cube(c)
        }
        _ => {
            let g = gears::Gears::new(&screen, &mut ctx)?;
            println!(
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
        let path = a.out.join(format!("{}-{n:03}.png", a.which));
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
        println!(
            "{}: {} jobs, {pixels} pixels shaded, {texels} texels fetched, {cycles} model cycles, {:.1} ms",
            path.display(),
            trace.entries.len() - jobs_before,
            elapsed.as_secs_f64() * 1e3
        );
    }
    let s = ctx.stats();
    println!(
        "context: {} draws, {} state blocks ({} words), {} submissions",
        s.draws, s.state_blocks_emitted, s.state_words_emitted, s.submissions
    );
    Ok(())
}
