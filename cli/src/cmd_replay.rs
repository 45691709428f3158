//! `sgx535 replay FIXTURE... [--scenario mipgen|upload|draw|demo|all] [--json]`: runs driver
//! scenarios on the replay device with each host fixture's failures injected, prints what
//! happened step by step, and checks the fixture's `expect` blocks (fixtures/README.md).

mod outcome;
mod record;
mod scenario;

use crate::out::outln;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use sgx_winsys::replay::{self, ErrorKind, Fixture, Inject};
use sgx_winsys::{Device, LiveCounts};

use outcome::Outcome;

#[derive(clap::Args)]
pub struct Args {
    /// Host fixture files (JSON).
    #[arg(required_unless_present = "record")]
    fixtures: Vec<PathBuf>,
    /// Instead of replaying: run the scenario (`--scenario`, default mipgen) on the device
    /// `--device` or SGX535_DEVICE names (a drm device: what the kernel really did) and write
    /// a fixture of its refusals, faults, failures, hangs and loss, with the outcome as its
    /// `expect` block.
    #[arg(long, value_name = "FILE", conflicts_with = "fixtures")]
    record: Option<PathBuf>,
    /// The device `--record` runs on: model, drm, drm:NODE or replay:FILE (default:
    /// SGX535_DEVICE, else model).
    #[arg(long, requires = "record")]
    device: Option<String>,
    /// Scenario to run on each fixture; default: those the fixture has `expect` blocks for
    /// (mipgen when it has none).
    #[arg(long, value_parser = ["mipgen", "upload", "draw", "demo", "all"])]
    scenario: Option<String>,
    /// Print one JSON document instead of the step-by-step text.
    #[arg(long)]
    json: bool,
    /// Write each run's submission trace to DIR/<fixture>-<scenario>.json (`sgx535 trace`
    /// reads them).
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
}

#[derive(Serialize)]
struct ScenarioReport {
    #[serde(flatten)]
    outcome: Outcome,
    /// Failed checks: `expect` fields not met and the scenario's own checks.
    mismatches: Vec<String>,
    pass: bool,
    #[serde(skip)]
    trace: sgx_winsys::Trace,
}

#[derive(Serialize)]
struct FixtureReport {
    fixture: String,
    description: String,
    /// A fixture that could not be read or parsed.
    error: Option<String>,
    scenarios: Vec<ScenarioReport>,
    pass: bool,
}

fn total(c: LiveCounts) -> u64 {
    c.bos + c.fences + c.jobs
}

/// Injections whose index the run never reached, as "inject[i] (job 9)".
fn unfired(fx: &Fixture, submissions: u64, jobs: u64, allocations: u64) -> Vec<String> {
    fx.inject
        .iter()
        .enumerate()
        .filter_map(|(i, inj)| {
            let (what, n, reached) = match inj {
                Inject::RefuseSubmission { submission, .. } => {
                    ("submission", *submission, submissions)
                }
                Inject::FailAllocation { allocation } => ("allocation", *allocation, allocations),
                other => ("job", other.job().unwrap_or(0), jobs),
            };
            (n >= reached).then(|| format!("inject[{i}] ({what} {n}; the run reached {reached})"))
        })
        .collect()
}

/// Runs one scenario on a fresh replay device with the fixture's failures.
fn run_scenario(name: &'static str, fx: &Fixture) -> anyhow::Result<ScenarioReport> {
    let sim = Arc::new(replay::with_fixture(fx.clone())?);
    let watch = sim.live_watch();
    let dev: Arc<dyn Device> = sim.clone();
    let mut parts = scenario::Parts::default();
    let r = scenario::run(name, &dev, &fx.setup, &mut parts);
    let trace = dev.trace();
    let allocations = sim.allocations();
    drop(dev);
    // Every driver object is gone; what is still alive is held by the device (a hung job's
    // buffers and fence) and goes with it.
    let held_until_close = total(watch.counts());
    let mut problems = std::mem::take(&mut parts.problems);
    match Arc::try_unwrap(sim) {
        Ok(sim) => drop(sim),
        Err(_) => problems.push("the device is still referenced after the scenario".into()),
    }
    let leaked = total(watch.counts());
    let (submissions, fences_signalled) = outcome::trace_counts(&trace);
    let jobs = trace.entries.iter().filter(|e| e.fence.is_some()).count() as u64;
    let (error, message) = match &r {
        Ok(()) => (ErrorKind::None, None),
        Err(e) => (outcome::classify(e), Some(outcome::message(e))),
    };
    let never = unfired(fx, submissions, jobs, allocations);
    let mut steps = parts.steps;
    steps.extend(outcome::trace_lines(&trace));
    let trace = trace.clone();
    if error == ErrorKind::None {
        // The scenario ran to its end: an injection it never reached is out of its range.
        problems.extend(
            never
                .iter()
                .map(|n| format!("{n} never fired: index out of range")),
        );
    } else {
        steps.extend(never.iter().map(|n| format!("{n} not reached")));
    }
    let outcome = Outcome {
        scenario: name,
        part: scenario::part_name(name),
        error,
        message,
        submissions,
        fences_signalled,
        allocations,
        written: parts.written,
        unchanged: parts.unchanged,
        unreadable: parts.unreadable,
        fallback: parts.fallback,
        leaked,
        held_until_close,
        steps,
    };
    let mut mismatches = fx
        .expect
        .get(name)
        .map(|x| outcome::mismatches(&outcome, x))
        .unwrap_or_default();
    mismatches.extend(problems);
    Ok(ScenarioReport {
        pass: mismatches.is_empty(),
        outcome,
        mismatches,
        trace,
    })
}

fn scenarios_for(fx: &Fixture, choice: Option<&str>) -> Vec<&'static str> {
    match choice {
        Some("all") => scenario::ALL.to_vec(),
        Some(one) => scenario::ALL
            .iter()
            .copied()
            .filter(|s| *s == one)
            .collect(),
        None => {
            let named = fx.expect.scenarios();
            if named.is_empty() {
                vec!["mipgen"]
            } else {
                named
            }
        }
    }
}

fn run_fixture(path: &Path, choice: Option<&str>) -> FixtureReport {
    let name = path.display().to_string();
    let fx = match Fixture::load(path) {
        Ok(f) => f,
        Err(e) => {
            return FixtureReport {
                fixture: name,
                description: String::new(),
                error: Some(e.to_string()),
                scenarios: Vec::new(),
                pass: false,
            }
        }
    };
    let mut scenarios = Vec::new();
    let mut error = None;
    for s in scenarios_for(&fx, choice) {
        match run_scenario(s, &fx) {
            Ok(r) => scenarios.push(r),
            Err(e) => {
                error = Some(format!("scenario {s}: {e:#}"));
                break;
            }
        }
    }
    FixtureReport {
        pass: error.is_none() && scenarios.iter().all(|s| s.pass),
        fixture: name,
        description: fx.description,
        error,
        scenarios,
    }
}

fn list(v: &[u32]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    }
}

fn print_text(r: &FixtureReport) -> Result<(), crate::out::StdoutError> {
    outln!("== {}: {}", r.fixture, r.description);
    if let Some(e) = &r.error {
        outln!("   error: {e}");
    }
    for s in &r.scenarios {
        let o = &s.outcome;
        outln!("-- scenario {}", o.scenario);
        for line in &o.steps {
            outln!("   {line}");
        }
        match &o.message {
            None => outln!("   caller received: no error"),
            Some(m) => outln!("   caller received: {} ({m})", o.error.name()),
        }
        outln!(
            "   fallback to the CPU: {}",
            if o.fallback { "yes" } else { "no" }
        );
        outln!(
            "   {}s written: {}; unchanged: {}",
            o.part,
            list(&o.written),
            list(&o.unchanged)
        );
        for (n, why) in &o.unreadable {
            outln!("   {} {n} not read back: {why}", o.part);
        }
        outln!(
            "   {} submissions, {} fences signalled, {} allocations",
            o.submissions,
            o.fences_signalled,
            o.allocations
        );
        outln!(
            "   freed: {} objects held by the device until it closed, {} leaked after",
            o.held_until_close,
            o.leaked
        );
        for m in &s.mismatches {
            outln!("   MISMATCH {m}");
        }
    }
    let names: Vec<&str> = r.scenarios.iter().map(|s| s.outcome.scenario).collect();
    outln!(
        "{}: {} ({})",
        r.fixture,
        if r.pass { "pass" } else { "FAIL" },
        names.join(", ")
    );
    Ok(())
}

fn write_traces(dir: &Path, fixture: &Path, r: &FixtureReport) -> anyhow::Result<()> {
    use anyhow::Context as _;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let stem = fixture
        .file_stem()
        .map_or("fixture".into(), |s| s.to_string_lossy().into_owned());
    for s in &r.scenarios {
        let p = dir.join(format!("{stem}-{}.json", s.outcome.scenario));
        let f = std::fs::File::create(&p).with_context(|| format!("creating {}", p.display()))?;
        s.trace.write_json(std::io::BufWriter::new(f))?;
    }
    Ok(())
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    if let Some(path) = &a.record {
        let want = a.scenario.as_deref().unwrap_or("mipgen");
        let name = scenario::ALL
            .iter()
            .copied()
            .find(|s| *s == want)
            .ok_or_else(|| anyhow::anyhow!("--record runs one scenario, not {want:?}"))?;
        let spec = match &a.device {
            Some(d) => sgx_winsys::DeviceSpec::parse(d)?,
            None => sgx_winsys::DeviceSpec::from_env()?,
        };
        return record::record(name, spec.open()?, path);
    }
    let mut reports = Vec::new();
    for path in &a.fixtures {
        let r = run_fixture(path, a.scenario.as_deref());
        if let Some(dir) = &a.trace_dir {
            write_traces(dir, path, &r)?;
        }
        if !a.json {
            print_text(&r)?;
        }
        reports.push(r);
    }
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&reports)?);
    }
    let failed: Vec<&str> = reports
        .iter()
        .filter(|r| !r.pass)
        .map(|r| r.fixture.as_str())
        .collect();
    if failed.is_empty() {
        if !a.json {
            outln!("replay: {} fixtures pass", reports.len());
        }
        Ok(())
    } else {
        anyhow::bail!(
            "{} of {} fixtures failed: {}",
            failed.len(),
            reports.len(),
            failed.join(" ")
        )
    }
}
