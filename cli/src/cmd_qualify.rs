//! `sgx535 qualify`: qualifies formats, sizes and windows for the GPU mip route by pixel and
//! trace comparisons, writes report.json and index.html (with PNGs), and with `--record`
//! adds what passed to the blitter's admission table for the device's kind.

mod case;
mod report;
mod texels;

use crate::out::outln;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;
use sgx_blitter::{AdmissionEntry, DeviceKind, Evidence};
use sgx_hwdocs::{Format, FormatKind};
use sgx_pipe::{Screen, ShaderCache};
use sgx_winsys::DeviceSpec;

use case::Spec;
use texels::Pattern;

#[derive(clap::Args)]
pub struct Args {
    /// Format to qualify (a Gallium name; `_UNORM` may be left off); repeatable. Default: every
    /// colour format the texture unit samples and the CPU generator filters.
    #[arg(long = "format")]
    formats: Vec<String>,
    /// Level-0 side in pixels (a power of two up to 2048); repeatable. Default: 32..512, 2048.
    #[arg(long = "size")]
    sizes: Vec<u32>,
    /// Window `BASE` or `BASE..LAST` (LAST defaults to the 1x1 level); repeatable. Default:
    /// base 0 at every size, and bases 2 and 4 at 2048.
    #[arg(long = "window")]
    windows: Vec<String>,
    /// Device: model, drm, drm:NODE or replay:FILE. Default: SGX535_DEVICE, else model.
    #[arg(long)]
    device: Option<String>,
    /// Level-0 pattern.
    #[arg(long, default_value = "all", value_parser = ["exact", "gradient", "random", "all"])]
    pattern: String,
    /// Directory for report.json, index.html and png/.
    #[arg(long, default_value = "qualification")]
    out: PathBuf,
    /// Write the passing cases into the admission table of the device's kind.
    #[arg(long)]
    record: bool,
    /// The table file `--record` writes (default: the blitter's admission/<kind>.json).
    #[arg(long)]
    table: Option<PathBuf>,
    /// Print report.json to stdout instead of the text summary.
    #[arg(long)]
    json: bool,
    /// Levels up to this side get images in the report.
    #[arg(long, default_value_t = 64)]
    images_max_px: u32,
}

/// The largest side the hardware samples (hwdocs).
const MAX_PX: u32 = sgx_hwdocs::limits::MAX_TEXTURE_PX as u32;
// Sizes a qualification runs by default: small to large, and the hardware's largest.
const DEFAULT_SIZES: [u32; 6] = [32, 64, 128, 256, 512, MAX_PX];

fn parse_format(name: &str) -> anyhow::Result<Format> {
    Format::from_name(name)
        .or_else(|| Format::from_name(&format!("{name}_UNORM")))
        .with_context(|| format!("unknown format {name:?}"))
}

/// Every colour format the texture unit can sample and the CPU reference can filter.
fn default_formats() -> Vec<Format> {
    sgx_hwdocs::FORMATS
        .iter()
        .filter(|i| {
            i.sampleable
                && matches!(
                    i.kind,
                    FormatKind::Unorm | FormatKind::Srgb | FormatKind::Float
                )
                && !i.channels.iter().any(|c| c.name == "z" || c.name == "s")
                && sgx_layout::mipgen::can_generate(i.format)
        })
        .map(|i| i.format)
        .collect()
}

fn parse_window(w: &str) -> anyhow::Result<(u32, Option<u32>)> {
    let bad = || anyhow::anyhow!("--window {w:?}: expected BASE or BASE..LAST");
    match w.split_once("..") {
        None => Ok((w.parse().map_err(|_| bad())?, None)),
        Some((b, l)) => Ok((
            b.parse().map_err(|_| bad())?,
            Some(l.trim_start_matches('=').parse().map_err(|_| bad())?),
        )),
    }
}

fn specs(a: &Args) -> anyhow::Result<Vec<Spec>> {
    let formats = if a.formats.is_empty() {
        default_formats()
    } else {
        a.formats
            .iter()
            .map(|f| parse_format(f))
            .collect::<anyhow::Result<_>>()?
    };
    let sizes = if a.sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        a.sizes.clone()
    };
    for s in &sizes {
        if !s.is_power_of_two() || *s < 2 || *s > MAX_PX {
            anyhow::bail!("--size {s}: a power of two in 2..={MAX_PX}");
        }
    }
    let windows: Vec<(u32, Option<u32>)> = a
        .windows
        .iter()
        .map(|w| parse_window(w))
        .collect::<anyhow::Result<_>>()?;
    let patterns: Vec<Pattern> = match a.pattern.as_str() {
        "exact" => vec![Pattern::Exact],
        "gradient" => vec![Pattern::Gradient],
        "random" => vec![Pattern::Random],
        _ => Pattern::ALL.to_vec(),
    };
    let mut out = Vec::new();
    for &format in &formats {
        if case::not_renderable(format).is_some() {
            // One row says why; there is nothing to run.
            out.push(Spec {
                format,
                size_px: sizes[0],
                base: 0,
                last: 0,
                pattern: patterns[0],
            });
            continue;
        }
        for &size_px in &sizes {
            let top = size_px.trailing_zeros();
            let ws: Vec<(u32, Option<u32>)> = if windows.is_empty() {
                let mut v = vec![(0, None)];
                // The largest texture also runs the windows of its last levels alone.
                if size_px == MAX_PX {
                    v.extend([(2, None), (4, None)]);
                }
                v
            } else {
                windows.clone()
            };
            for (base, last) in ws {
                let last = last.unwrap_or(top);
                if base >= last || last > top {
                    if !windows.is_empty() {
                        anyhow::bail!(
                            "window {base}..{last} does not fit a {size_px}x{size_px} chain (levels 0..={top})"
                        );
                    }
                    continue;
                }
                for &pattern in &patterns {
                    out.push(Spec {
                        format,
                        size_px,
                        base,
                        last,
                        pattern,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Today's UTC date, YYYY-MM-DD (civil-from-days, H. Hinnant).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Admission rows for what passed: per format and base level, the sizes whose every case (all
/// patterns run) passed.
fn rows(
    kind: DeviceKind,
    device: &str,
    date: &str,
    cases: &[case::Outcome],
    patterns: &[String],
) -> Vec<AdmissionEntry> {
    let mut by: BTreeMap<(String, u32), BTreeMap<u32, bool>> = BTreeMap::new();
    for c in cases.iter().filter(|c| c.status != "not renderable") {
        let ok = by
            .entry((c.spec.format.name().to_string(), c.spec.base))
            .or_default()
            .entry(c.spec.size_px)
            .or_insert(true);
        // A window that stops before the 1x1 level is not what the blitter admits.
        *ok &= c.status == "pass" && c.spec.last == c.spec.size_px.trailing_zeros();
    }
    by.into_iter()
        .filter_map(|((format, base), sizes)| {
            let sizes_px: Vec<u32> = sizes.into_iter().filter(|(_, ok)| *ok).map(|(s, _)| s).collect();
            (!sizes_px.is_empty()).then(|| AdmissionEntry {
                device: kind,
                format,
                sizes_px,
                base_levels: vec![base],
                source: "sgx535 qualify: direct and sampled pixel comparisons with the CPU reference".into(),
                evidence: Some(Evidence {
                    date: date.into(),
                    device: device.into(),
                    patterns: patterns.to_vec(),
                    trace: "one render submission per generated level, in order, each writing the texture's buffer; no fault; engine idle after; state and queries restored".into(),
                    tolerance: "0 (exact pattern); 1 unit of the channel (gradient, random)".into(),
                }),
            })
        })
        .collect()
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let spec = match &a.device {
        Some(s) => DeviceSpec::parse(s)?,
        None => DeviceSpec::from_env()?,
    };
    let specs = specs(a)?;
    let dev = spec.open()?;
    let info = dev.info();
    let device = format!(
        "{} ({}), core revision {:#010x}",
        info.backend.name(),
        if info.is_model { "model" } else { &info.driver },
        info.core_revision
    );
    let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
    let t0 = Instant::now();
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(specs.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut cases = Vec::with_capacity(specs.len());
    for s in &specs {
        let o = case::run(&screen, *s, a.images_max_px);
        let line = format!(
            "{:<16} {:>4} levels {:>2}..={:<2} {:<8} {:<14} direct {}B/{} sampled {}B/{} chain {}B/{} {:.0} ms{}",
            s.format.name(),
            s.size_px,
            s.base + 1,
            s.last,
            s.pattern.name(),
            o.status,
            o.direct.bytes,
            o.direct.max_channel_err,
            o.sampled.bytes,
            o.sampled.max_channel_err,
            o.chain.bytes,
            o.chain.max_channel_err,
            o.elapsed_ms,
            if o.failures.is_empty() {
                String::new()
            } else {
                format!(": {}", o.failures.join("; "))
            }
        );
        match &bar {
            Some(b) => {
                b.set_message(format!(
                    "{} {} {}",
                    s.format.name(),
                    s.size_px,
                    s.pattern.name()
                ));
                if o.status == "fail" {
                    b.println(line);
                }
                b.inc(1);
            }
            None if !a.json => outln!("{line}"),
            None => {}
        }
        cases.push(o);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let count = |s: &str| cases.iter().filter(|c| c.status == s).count();
    let rep = report::Report {
        device: device.clone(),
        date: today(),
        elapsed_s: t0.elapsed().as_secs_f64(),
        passed: count("pass"),
        failed: count("fail"),
        not_renderable: count("not renderable"),
        cases,
    };
    report::write(&a.out, &rep)?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&rep)?);
    } else {
        outln!(
            "qualify: {} passed, {} failed, {} not renderable in {:.2} s on {device}; report: {}",
            rep.passed,
            rep.failed,
            rep.not_renderable,
            rep.elapsed_s,
            a.out.join("index.html").display()
        );
    }
    if a.record {
        let kind = DeviceKind::of(&info);
        let patterns: Vec<String> = {
            let mut p: Vec<Pattern> = rep.cases.iter().map(|c| c.spec.pattern).collect();
            p.sort();
            p.dedup();
            p.iter().map(|p| p.name().to_string()).collect()
        };
        let new = rows(kind, &device, &rep.date, &rep.cases, &patterns);
        let path = a.table.clone().unwrap_or_else(|| kind.table_path());
        sgx_blitter::record_admission(&path, kind, &new)?;
        outln!(
            "recorded {} rows into {} ({} table)",
            new.len(),
            path.display(),
            kind.name()
        );
    }
    if rep.failed > 0 {
        anyhow::bail!("{} cases failed", rep.failed);
    }
    Ok(())
}
