//! The scenarios `sgx535 replay` runs on a replay device: each builds driver objects on the
//! device, does its work, and reads back what it wrote. A part (a level, an upload, a draw step,
//! a frame) is *written* when its bytes are the expected result and *unchanged* when they are
//! as before the scenario touched it.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::Context as _;
use sgx_blitter::{pattern, Admission, BlitInfo, Blitter, Route};
use sgx_pipe::{bind, Context, Format, PipeBox, ResourceTemplate, Screen, ShaderCache};
use sgx_winsys::replay::Setup;
use sgx_winsys::{Device, SimDevice};

use crate::cmd_demo::gears::Gears;

/// How long a replay waits for a fence or a map: model jobs of these sizes finish in
/// milliseconds, so a wait this long means a hung job.
pub const WAIT: Duration = Duration::from_secs(1);

/// Scenario names, in the order `all` runs them.
pub const ALL: [&str; 4] = ["mipgen", "upload", "draw", "demo"];

/// What a scenario found, filled as it runs.
#[derive(Default)]
pub struct Parts {
    pub written: Vec<u32>,
    pub unchanged: Vec<u32>,
    pub unreadable: Vec<(u32, String)>,
    pub fallback: bool,
    pub steps: Vec<String>,
    /// The scenario's own checks that failed (bytes outside every write changed, ...).
    pub problems: Vec<String>,
}

impl Parts {
    fn step(&mut self, s: impl Into<String>) {
        self.steps.push(s.into());
    }

    /// Sorts part `n` by its bytes: the expected result, as before, or neither.
    fn judge(&mut self, n: u32, got: &[u8], want: &[u8], before: &[u8]) {
        if got == want {
            self.written.push(n);
        } else if got == before {
            self.unchanged.push(n);
        } else {
            let diff = got.iter().zip(want).filter(|(a, b)| a != b).count();
            self.step(format!(
                "part {n}: {diff} of {} bytes are neither the result nor as before",
                want.len()
            ));
        }
    }

    /// Whether read-backs can run: not on a lost device, not behind a hung job (a map would
    /// wait on its fence). When they cannot, every part is recorded unreadable. The wait
    /// outlasts the model's watchdog, so a hung job has always been ended by a reset before
    /// the parts are read: the outcome does not depend on how long the scenario took.
    fn readable(&mut self, dev: &Arc<dyn Device>, parts: impl Iterator<Item = u32>) -> bool {
        let why = if dev.is_lost() {
            Some("the device is lost")
        } else if dev
            .wait_idle(WAIT + sgx_winsys::DEFAULT_HANG_BUDGET)
            .is_err()
        {
            Some("a job never finished: a map would wait on its fence")
        } else {
            None
        };
        match why {
            None => true,
            Some(w) => {
                self.unreadable.extend(parts.map(|n| (n, w.to_string())));
                false
            }
        }
    }
}

fn screen_on(dev: &Arc<dyn Device>) -> (Screen, Context) {
    let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
    let mut ctx = screen.context_create();
    ctx.set_timeout(WAIT);
    (screen, ctx)
}

fn levels_of(size_px: u32) -> u32 {
    32 - size_px.leading_zeros()
}

/// Runs scenario `name`; every driver object it made is dropped when it returns.
pub fn run(name: &str, dev: &Arc<dyn Device>, setup: &Setup, p: &mut Parts) -> anyhow::Result<()> {
    match name {
        "mipgen" => mipgen(dev, setup.mipgen_size_px, p),
        "upload" => upload(dev, p),
        "draw" => draw(dev, p),
        "demo" => demo(dev, p),
        other => anyhow::bail!("unknown scenario {other:?} (mipgen, upload, draw, demo)"),
    }
}

/// The part a scenario's `written`/`unchanged` lists count.
pub fn part_name(name: &str) -> &'static str {
    match name {
        "mipgen" | "upload" => "level",
        "draw" => "step",
        _ => "frame",
    }
}

/// generate_mipmap of a seed-patterned square BGRA8 chain through the blitter, then waiting
/// for its passes. Parts: the generated levels 1..=last.
fn mipgen(dev: &Arc<dyn Device>, size_px: u32, p: &mut Parts) -> anyhow::Result<()> {
    let last = levels_of(size_px) - 1;
    let (screen, mut ctx) = screen_on(dev);
    let blitter = Blitter::with_admission(&ctx, Admission::builtin())?;
    let res = screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            size_px,
            size_px,
            last,
            bind::SAMPLER_VIEW | bind::RENDER_TARGET,
        ))
        .context("creating the texture")?;
    p.step(format!(
        "texture {size_px}x{size_px} B8G8R8A8_UNORM, levels 0..={last}, buffer {}",
        res.bo().id()
    ));
    let l0 = pattern::level0(size_px);
    let expected = pattern::expected_chain(&l0, size_px).map_err(|e| anyhow::anyhow!(e))?;
    let s = size_px as usize * 4;
    ctx.texture_subdata(&res, 0, 0, PipeBox::new(0, 0, size_px, size_px), &l0, s, 0)?;
    let before: Vec<Vec<u8>> = (1..=last)
        .map(|l| ctx.read_level(&res, l, 0))
        .collect::<sgx_pipe::Result<_>>()?;
    let r = blitter
        .generate_mipmap(&mut ctx, &res, 0, last)
        .map_err(anyhow::Error::from)
        .and_then(|rep| {
            match &rep.route {
                Route::Gpu => p.step(format!(
                    "generate_mipmap: GPU route, {} passes submitted{}",
                    rep.passes.len(),
                    if rep.private_chain {
                        " into a private chain"
                    } else {
                        ""
                    }
                )),
                Route::Cpu { reason } => {
                    p.fallback = true;
                    p.step(format!("generate_mipmap: CPU generator ({reason})"));
                }
            }
            blitter.wait_mipmap(&res, &rep, WAIT)?;
            Ok(())
        });
    if let Err(e) = &r {
        p.step(format!(
            "generate_mipmap: error: {}",
            super::outcome::message(e)
        ));
        p.step(format!(
            "levels marked for regeneration: {:#b}",
            res.stale_levels()
        ));
    }
    if p.readable(dev, 1..=last) {
        for l in 1..=last {
            let got = ctx.read_level(&res, l, 0)?;
            p.judge(l, &got, &expected[l as usize], &before[l as usize - 1]);
        }
        if ctx.read_level(&res, 0, 0)? != l0 {
            p.problems.push("level 0 (the source) changed".into());
        }
    }
    r
}

/// Every level of a 64x64 BGRA8 chain uploaded with texture_subdata, then read back. Parts:
/// the levels.
fn upload(dev: &Arc<dyn Device>, p: &mut Parts) -> anyhow::Result<()> {
    const SIZE_PX: u32 = 64; // a scenario size, not a limit
    let last = levels_of(SIZE_PX) - 1;
    let (screen, mut ctx) = screen_on(dev);
    let res = screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            SIZE_PX,
            SIZE_PX,
            last,
            bind::SAMPLER_VIEW,
        ))
        .context("creating the texture")?;
    p.step(format!(
        "texture {SIZE_PX}x{SIZE_PX} B8G8R8A8_UNORM, levels 0..={last}, buffer {}",
        res.bo().id()
    ));
    let data: Vec<Vec<u8>> = pattern::expected_chain(&pattern::level0(SIZE_PX), SIZE_PX)
        .map_err(|e| anyhow::anyhow!(e))?;
    let mut r = Ok(());
    for l in 0..=last {
        let s = (SIZE_PX >> l).max(1);
        let b = PipeBox::new(0, 0, s, s);
        if let Err(e) = ctx.texture_subdata(&res, l, 0, b, &data[l as usize], s as usize * 4, 0) {
            p.step(format!("upload of level {l}: error: {e}"));
            r = Err(anyhow::Error::from(e).context(format!("uploading level {l}")));
            break;
        }
        p.step(format!("upload of level {l} ({s}x{s}): done"));
    }
    if let Err(e) = ctx.flush() {
        r = r.and(Err(e.into()));
    }
    if p.readable(dev, 0..=last) {
        for l in 0..=last {
            let got = ctx.read_level(&res, l, 0)?;
            p.judge(l, &got, &data[l as usize], &vec![0; got.len()]);
        }
    }
    r
}

const DRAW_PX: u32 = 32;
const Q: u32 = DRAW_PX / 2;

/// Three flushed draws into one 32x32 BGRA8 target, each into its own quadrant: a red clear
/// (top right), a green clear (top left), a blit of a patterned texture (bottom right). The
/// bottom-left quadrant is never drawn and must stay zero. Parts: the three steps.
fn draw(dev: &Arc<dyn Device>, p: &mut Parts) -> anyhow::Result<()> {
    let (screen, mut ctx) = screen_on(dev);
    let blitter = Blitter::with_admission(&ctx, Admission::builtin())?;
    let target = screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            DRAW_PX,
            DRAW_PX,
            0,
            bind::RENDER_TARGET | bind::SAMPLER_VIEW,
        ))
        .context("creating the render target")?;
    let src = screen
        .resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            Q,
            Q,
            0,
            bind::SAMPLER_VIEW,
        ))
        .context("creating the blit source")?;
    let src_px = pattern::level0(Q);
    ctx.texture_subdata(
        &src,
        0,
        0,
        PipeBox::new(0, 0, Q, Q),
        &src_px,
        Q as usize * 4,
        0,
    )?;
    p.step(format!(
        "target {DRAW_PX}x{DRAW_PX} B8G8R8A8_UNORM (buffer {}), blit source {Q}x{Q} (buffer {})",
        target.bo().id(),
        src.bo().id()
    ));
    // (origin x, y; the quadrant's expected bytes)
    let solid = |bgra: [u8; 4]| bgra.repeat((Q * Q) as usize);
    let quads: [(u32, u32, Vec<u8>); 3] = [
        (Q, 0, solid([0, 0, 255, 255])),
        (0, 0, solid([0, 255, 0, 255])),
        (Q, Q, src_px.clone()),
    ];
    let mut r = Ok(());
    for (n, (x, y, _)) in quads.iter().enumerate() {
        let recorded = match n {
            0 => blitter.clear_render_target(
                &mut ctx,
                &target,
                0,
                [1.0, 0.0, 0.0, 1.0],
                *x,
                *y,
                Q,
                Q,
            ),
            1 => blitter.clear_render_target(
                &mut ctx,
                &target,
                0,
                [0.0, 1.0, 0.0, 1.0],
                *x,
                *y,
                Q,
                Q,
            ),
            _ => blitter.blit(
                &mut ctx,
                &BlitInfo {
                    dst: target.clone(),
                    dst_level: 0,
                    dst_face: 0,
                    dst_box: PipeBox::new(*x, *y, Q, Q),
                    src: src.clone(),
                    src_level: 0,
                    src_face: 0,
                    src_box: PipeBox::new(0, 0, Q, Q),
                    linear: false,
                },
            ),
        };
        let done = recorded.map_err(anyhow::Error::from).and_then(|()| {
            let f = ctx.flush()?.context("the step submitted nothing")?;
            f.wait(WAIT)
                .with_context(|| format!("waiting for step {n}"))?;
            Ok(())
        });
        match done {
            Ok(()) => p.step(format!("step {n} at ({x},{y}): done")),
            Err(e) => {
                p.step(format!(
                    "step {n} at ({x},{y}): error: {}",
                    super::outcome::message(&e)
                ));
                r = Err(e.context(format!("draw step {n}")));
                break;
            }
        }
    }
    if p.readable(dev, 0..3) {
        let all = ctx.read_level(&target, 0, 0)?;
        let quadrant = |x: u32, y: u32| -> Vec<u8> {
            (y..y + Q)
                .flat_map(|row| {
                    let start = ((row * DRAW_PX + x) * 4) as usize;
                    all[start..start + (Q * 4) as usize].to_vec()
                })
                .collect()
        };
        let zero = vec![0; (Q * Q * 4) as usize];
        for (n, (x, y, want)) in quads.iter().enumerate() {
            p.judge(n as u32, &quadrant(*x, *y), want, &zero);
        }
        if quadrant(0, Q) != zero {
            p.problems
                .push("the bottom-left quadrant, never drawn, changed".into());
        }
    }
    r
}

const DEMO_FRAMES: u32 = 2;

/// Renders the frames; returns the target's bytes before frame 0 and after each frame that
/// ran and could be read back, with the error that stopped it.
fn demo_frames(dev: &Arc<dyn Device>, p: &mut Parts) -> (Vec<Vec<u8>>, anyhow::Result<()>) {
    let mut frames = Vec::new();
    let r = (|| -> anyhow::Result<()> {
        let (screen, mut ctx) = screen_on(dev);
        let gears = Gears::new(&screen, &mut ctx)?;
        ctx.flush()?;
        frames.push(ctx.read_level(&gears.target().colour, 0, 0)?);
        for n in 0..DEMO_FRAMES {
            let r = gears.draw(&mut ctx, n).and_then(|()| {
                let f = ctx.flush()?.context("a frame submitted nothing")?;
                f.wait(WAIT)
                    .with_context(|| format!("waiting for frame {n}"))?;
                Ok(())
            });
            if let Err(e) = r {
                p.step(format!("frame {n}: error: {}", super::outcome::message(&e)));
                if p.readable(dev, n..n + 1) {
                    frames.push(ctx.read_level(&gears.target().colour, 0, 0)?);
                }
                return Err(e.context(format!("frame {n}")));
            }
            p.step(format!("frame {n}: done"));
            frames.push(ctx.read_level(&gears.target().colour, 0, 0)?);
        }
        Ok(())
    })();
    (frames, r)
}

/// The frames of the demo on a device without failures, rendered once per process.
fn reference_frames() -> anyhow::Result<&'static Vec<Vec<u8>>> {
    static REF: OnceLock<Result<Vec<Vec<u8>>, String>> = OnceLock::new();
    REF.get_or_init(|| {
        let dev: Arc<dyn Device> = Arc::new(SimDevice::new().map_err(|e| e.to_string())?);
        let (frames, r) = demo_frames(&dev, &mut Parts::default());
        r.map(|()| frames).map_err(|e| format!("{e:#}"))
    })
    .as_ref()
    .map_err(|e| anyhow::anyhow!("the reference rendering failed: {e}"))
}

/// Two frames of glxgears' gears (300x300), each flushed and waited for. Parts: the frames; a
/// frame is written when its pixels equal a rendering without failures, unchanged when the
/// target still holds what it held before the frame. Frames after a failed one never run.
fn demo(dev: &Arc<dyn Device>, p: &mut Parts) -> anyhow::Result<()> {
    let reference = reference_frames()?;
    let (frames, r) = demo_frames(dev, p);
    for n in 1..frames.len() {
        p.judge(n as u32 - 1, &frames[n], &reference[n], &frames[n - 1]);
    }
    r
}
