//! A lost device through the drm backend and the drm-shim: whoever learns of the loss first (a
//! caller's ioctl failing with ENODEV, or the reaper's wait) traces every job the loss hit as
//! lost before `is_lost()` or a DeviceLost error can show it, so that a caller reading the
//! trace then (as `sgx535 replay --record` does) never finds one of them pending, which the
//! recorder would write down as a hang. Each scenario re-runs this test in a child process with
//! the shim preloaded and a fixture that loses the device.

mod common;

use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use common::hang::job_error;
use common::loss;
use common::preload::run_child;
use common::{fill_job, row, LONG};
use sgx_winsys::replay::{Fixture, Inject};
use sgx_winsys::{BoDesc, Device, DrmDevice, JobError, TraceResult, WinsysError};

const CHILD_ENV: &str = "SGX535_SHIM_LOSS_CHILD";
const BUDGET: Duration = Duration::from_millis(50);

fn in_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// Runs child test `name` under a fixture injecting `inject`, with `env` set.
fn run(name: &str, inject: Vec<Inject>, env: (&str, &str)) {
    let f = Fixture {
        description: format!("{name}: the device is lost"),
        inject,
        ..Default::default()
    };
    let path: PathBuf = std::env::temp_dir().join(format!(
        "sgx535-shim-loss-{}-{name}-{}.json",
        std::process::id(),
        env.1
    ));
    std::fs::write(&path, serde_json::to_string(&f).unwrap()).unwrap();
    let out = run_child(
        name,
        CHILD_ENV,
        &[
            ("SGX535_SHIM_FIXTURE", path.display().to_string()),
            ("SGX535_SHIM_HANG_BUDGET_MS", BUDGET.as_millis().to_string()),
            (env.0, env.1.to_string()),
        ],
    );
    let _ = std::fs::remove_file(&path);
    assert!(out.contains("CHILD-OK"), "{name}:\n{out}");
}

const LOST: TraceResult = TraceResult::Error(JobError::DeviceLost);

/// A logger that holds the reaper thread at its first error (the loss, as its wait reports
/// it) until released, so that the caller's thread is the first to learn of the loss.
struct HoldReaper {
    /// (the reaper is held, released)
    state: Mutex<(bool, bool)>,
    cv: Condvar,
}

static HOLD: HoldReaper = HoldReaper {
    state: Mutex::new((false, false)),
    cv: Condvar::new(),
};

impl log::Log for HoldReaper {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }

    fn log(&self, record: &log::Record) {
        if record.level() != log::Level::Error
            || std::thread::current().name() != Some("sgx-drm-reaper")
        {
            return;
        }
        let mut s = self.state.lock().unwrap();
        if s.1 {
            return;
        }
        s.0 = true;
        self.cv.notify_all();
        while !s.1 {
            s = self.cv.wait(s).unwrap();
        }
    }

    fn flush(&self) {}
}

impl HoldReaper {
    /// Waits until the reaper is held; false after `timeout`.
    fn wait_held(&self, timeout: Duration) -> bool {
        let s = self.state.lock().unwrap();
        let (s, _) = self.cv.wait_timeout_while(s, timeout, |s| !s.0).unwrap();
        s.0
    }

    fn release(&self) {
        self.state.lock().unwrap().1 = true;
        self.cv.notify_all();
    }
}

/// Lets the reaper go when dropped (before the device, whose drop joins it), also when an
/// assertion fails.
struct Release;

impl Drop for Release {
    fn drop(&mut self) {
        HOLD.release();
    }
}

/// Which call of the caller's is the first to learn of the loss (`child_caller_first`).
const FIRST_CALL_ENV: &str = "SGX535_LOSS_FIRST_CALL";

#[test]
fn a_loss_a_callers_ioctl_finds_first_is_traced_before_it_shows() {
    if in_child() {
        return;
    }
    for call in ["submit", "export_bo"] {
        run(
            "child_caller_first",
            vec![Inject::LoseDevice { job: 0 }],
            (FIRST_CALL_ENV, call),
        );
    }
}

/// The reaper is held at its report of the loss; the caller's next call (a submission that
/// reaches the kernel, or a PRIME export) fails with ENODEV and is the first to learn of the
/// loss. Before its DeviceLost reaches the caller, the job the loss hit must be traced as
/// lost (it was pending until then: the drm backend used to mark the device lost there and
/// leave the trace to the reaper; and the export's error was `Os` with ENODEV).
#[test]
fn child_caller_first() {
    if !in_child() {
        return;
    }
    log::set_logger(&HOLD).unwrap();
    log::set_max_level(log::LevelFilter::Error);
    let dev = DrmDevice::open_default().unwrap();
    let target = row(&dev, 2);
    // Built before the loss: they need buffers, which a lost device does not make.
    let raced = fill_job(&dev, &target, 1, 2);
    let after = fill_job(&dev, &target, 1, 3);
    let hit = dev.submit(fill_job(&dev, &target, 0, 1)).unwrap();
    let _release = Release;
    assert!(
        HOLD.wait_held(Duration::from_secs(10)),
        "the reaper never reported the loss"
    );
    // Nobody has noticed yet: the reaper is held before it acts on the loss.
    assert!(!dev.is_lost());
    assert!(hit.is_pending());
    let hit_entry = |dev: &DrmDevice| dev.trace().by_fence(hit.id()).unwrap().result.clone();
    assert_eq!(hit_entry(&dev), TraceResult::Pending);
    let first = std::env::var(FIRST_CALL_ENV).unwrap();
    let traced = match first.as_str() {
        // A submission that reached the kernel after the loss: refused as lost, traced so,
        // with no fence.
        "submit" => {
            assert!(matches!(dev.submit(raced), Err(WinsysError::DeviceLost)));
            2
        }
        "export_bo" => {
            assert!(matches!(
                dev.export_bo(&target),
                Err(WinsysError::DeviceLost)
            ));
            1
        }
        other => panic!("no first call {other}"),
    };
    assert!(dev.is_lost());
    assert_eq!(
        hit_entry(&dev),
        LOST,
        "{first}: the loss showed before the trace said so"
    );
    assert!(
        hit.is_pending(),
        "the reaper, held, has not ended the fence"
    );
    let t = dev.trace();
    assert_eq!(t.entries.len(), traced);
    if traced == 2 {
        assert_eq!(t.entries[1].fence, None);
        assert_eq!(t.entries[1].result, LOST);
    }
    // Once the loss shows, a submission is refused before it is traced: it never reaches the
    // kernel, and nothing of it is pending.
    assert!(matches!(dev.submit(after), Err(WinsysError::DeviceLost)));
    assert!(matches!(
        dev.create_bo(&BoDesc::new(4)),
        Err(WinsysError::DeviceLost)
    ));
    assert_eq!(dev.trace(), t);
    assert_eq!(
        (t.totals.submissions, t.totals.failed, t.totals.completed),
        (traced as u64, traced as u64, 0)
    );
    HOLD.release();
    assert_eq!(job_error(hit.wait(LONG)), JobError::DeviceLost);
    dev.wait_idle(LONG).unwrap();
    assert_eq!(
        dev.trace(),
        t,
        "the reaper's end of the job changed nothing"
    );
    println!("CHILD-OK");
}

#[test]
fn a_loss_the_reaper_finds_first_is_traced_before_it_shows() {
    if !in_child() {
        run(
            "child_reaper_first",
            loss::loss_behind_a_hang(),
            (FIRST_CALL_ENV, "none"),
        );
    }
}

/// The reaper is the first to learn of the loss (common/loss.rs); most of the 17 jobs were
/// still pending when it showed, before the fix.
#[test]
fn child_reaper_first() {
    if !in_child() {
        return;
    }
    loss::loss_behind_a_hang_scenario(
        &DrmDevice::open_default().unwrap(),
        BUDGET.as_millis() as u64,
    );
    println!("CHILD-OK");
}
