//! `sgx535 mipgen --size N`: the seed article's experiment on the device model.

use crate::out::outln;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context as _};
use sgx_blitter::{pattern, Blitter, Route};
use sgx_pipe::{bind, Format, PipeBox, ResourceTemplate, Screen};
use sgx_winsys::Device;

#[derive(clap::Args)]
pub struct Args {
    /// Side of the square B8G8R8A8_UNORM source, in pixels.
    #[arg(long, default_value_t = 64)]
    size: u32,
    /// First level of the window (the level sampled by the first pass).
    #[arg(long, default_value_t = 0)]
    base: u32,
    /// Last level generated (default: the 1x1 level).
    #[arg(long)]
    last: Option<u32>,
}

/// The window's last level, once `--base` and `--last` are known to name a window of at
/// least one generated level inside the chain.
fn window(a: &Args, levels: u32) -> anyhow::Result<u32> {
    let top = levels - 1;
    let chain = format!("a {0}x{0} chain has levels 0..={top}", a.size);
    if top == 0 {
        bail!(
            "--size {} has a single level: there is nothing to generate",
            a.size
        );
    }
    if a.base >= top {
        bail!(
            "--base {} leaves no level to generate: {chain}, so --base takes 0..={}",
            a.base,
            top - 1
        );
    }
    let last = a.last.unwrap_or(top);
    if last > top {
        bail!("--last {last} is past the chain: {chain}");
    }
    if last <= a.base {
        bail!(
            "--last {last} generates nothing from --base {}: --last takes {}..={top}",
            a.base,
            a.base + 1
        );
    }
    Ok(last)
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let max_px = sgx_hwdocs::limits::MAX_TEXTURE_PX as u32;
    if !a.size.is_power_of_two() || a.size > max_px {
        bail!("--size {} is not a power of two from 1 to {max_px}", a.size);
    }
    let levels = 32 - a.size.leading_zeros();
    let last = window(a, levels)?;
    let dev: Arc<dyn Device> = sgx_winsys::open_from_env()?;
    let screen = Screen::new(dev.clone());
    let mut ctx = screen.context_create();
    let blitter = Blitter::new(&ctx)?;
    let res = screen.resource_create(&ResourceTemplate::texture_2d(
        Format::B8G8R8A8_UNORM,
        a.size,
        a.size,
        levels - 1,
        bind::SAMPLER_VIEW | bind::RENDER_TARGET,
    ))?;

    // The pattern and its expected chain, checked on the CPU before anything is submitted.
    let l0 = pattern::level0(a.size);
    let expected =
        pattern::expected_chain(&l0, a.size).map_err(|e| anyhow::anyhow!("pattern: {e}"))?;
    outln!("source: {0}x{0} B8G8R8A8_UNORM, levels 0..={1}; CPU averaging check: every 2x2 average exact", a.size, levels - 1);
    ctx.texture_subdata(
        &res,
        0,
        0,
        PipeBox::new(0, 0, a.size, a.size),
        &l0,
        a.size as usize * 4,
        0,
    )?;
    // A window starting above level 0 samples levels the source does not fill: fill them
    // with the expected chain first.
    for l in 1..=a.base {
        let s = (a.size >> l).max(1);
        ctx.texture_subdata(
            &res,
            l,
            0,
            PipeBox::new(0, 0, s, s),
            &expected[l as usize],
            s as usize * 4,
            0,
        )?;
    }
    ctx.flush()?;
    dev.wait_idle(sgx_pipe::DEFAULT_TIMEOUT)?;
    let before = dev.trace().entries.len();

    let t0 = Instant::now();
    let report = blitter.generate_mipmap(&mut ctx, &res, a.base, last)?;
    blitter.wait_mipmap(&res, &report, sgx_pipe::DEFAULT_TIMEOUT)?;
    let elapsed = t0.elapsed();
    match &report.route {
        Route::Gpu => outln!(
            "route: GPU, {} generation submissions{}",
            report.passes.len(),
            if report.private_chain {
                ", private chain adopted"
            } else {
                ""
            }
        ),
        Route::Cpu { reason } => outln!("route: CPU ({reason})"),
    }
    let layout = res.layout().context("texture layout")?;
    let trace = dev.trace();
    outln!(
        "{:>5} {:>9} {:>6} {:>6} {:>10} {:>12} {:>12}  result",
        "level",
        "size",
        "sub",
        "fence",
        "after",
        "pbe_bytes",
        "footprint_B"
    );
    let mut bytes_ok = true;
    for p in &report.passes {
        let e = trace
            .entries
            .iter()
            .find(|e| e.fence == Some(p.fence.id()))
            .context("pass missing from the trace")?;
        let s = (a.size >> p.level).max(1);
        let footprint = layout.level(p.level)?.footprint_B;
        let written = e.counters.map(|c| c.pbe_bytes_written).unwrap_or(0);
        bytes_ok &= written == footprint;
        let deps: Vec<String> = e.deps.iter().map(|d| d.to_string()).collect();
        outln!(
            "{:>5} {:>9} {:>6} {:>6} {:>10} {:>12} {:>12}  {:?}",
            p.level,
            format!("{s}x{s}"),
            e.submission,
            p.fence.id(),
            if deps.is_empty() {
                "-".into()
            } else {
                deps.join(",")
            },
            written,
            footprint,
            e.result
        );
    }
    let mut all_equal = true;
    for l in a.base + 1..=last {
        let got = ctx.read_level(&res, l, 0)?;
        let want = &expected[l as usize];
        let diff = got.iter().zip(want.iter()).filter(|(a, b)| a != b).count();
        all_equal &= diff == 0 && got.len() == want.len();
        if diff != 0 {
            outln!("level {l}: {diff} of {} bytes differ", want.len());
        }
    }
    let jobs = dev.trace().entries.len() - before;
    outln!(
        "compare: levels {}..={} {} the CPU reference byte for byte; pbe bytes {} footprints; {} jobs in {:.1} ms",
        a.base + 1,
        last,
        if all_equal { "equal" } else { "DIFFER FROM" },
        if bytes_ok { "equal" } else { "DIFFER FROM" },
        jobs,
        elapsed.as_secs_f64() * 1e3
    );
    if !all_equal || (report.route == Route::Gpu && !bytes_ok) {
        bail!("mip chain does not match");
    }
    Ok(())
}
