//! `sgx535 trace FILE`: a recorded submission trace (the winsys's trace JSON, as
//! `sgx535 replay --trace-dir` writes it) as a table: submissions, jobs, fences, results and
//! timings, with a summary.

use crate::out::out;
use std::path::PathBuf;

use anyhow::Context as _;
use serde_json::Value;

#[derive(clap::Args)]
pub struct Args {
    /// A trace JSON file.
    file: PathBuf,
}

fn field<'a>(e: &'a Value, n: usize, name: &str) -> anyhow::Result<&'a Value> {
    e.get(name)
        .with_context(|| format!("entry {n}: field `{name}` missing"))
}

fn opt_u64(v: &Value) -> String {
    v.as_u64().map_or("-".into(), |n| n.to_string())
}

/// How a traced submission ended, in words.
fn result_text(r: &Value) -> String {
    let status = r["status"].as_str().unwrap_or("?");
    match status {
        "refused" => format!("refused {}", r["errno"].as_str().unwrap_or("?")),
        "fault" => format!(
            "fault {} {} {}",
            r["unit"].as_str().unwrap_or("?"),
            if r["write"].as_bool() == Some(true) {
                "write"
            } else {
                "read"
            },
            r["addr"]
                .as_u64()
                .map_or("?".into(), |a| format!("{a:#010x}"))
        ),
        "failed" => format!("failed: {}", r["reason"].as_str().unwrap_or("")),
        "pending" => "pending (never ended)".into(),
        other => other.replace('_', " "),
    }
}

/// The table and the summary of a trace document.
pub fn render(doc: &Value) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let entries = doc
        .get("entries")
        .and_then(Value::as_array)
        .context("not a trace: no `entries` list")?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>4} {:<6} {:>5} {:<10} {:>4} {:>4} {:>9} {:>10} {:>9} {:>6}  result",
        "sub", "kind", "fence", "after", "bos", "wr", "time_us", "cycles", "pixels", "tiles"
    );
    let (mut refused, mut done, mut failed, mut pending, mut time_us) = (0, 0, 0, 0, 0u64);
    for (n, e) in entries.iter().enumerate() {
        let sub = field(e, n, "submission")?
            .as_u64()
            .with_context(|| format!("entry {n}: `submission` is not a number"))?;
        let kind = field(e, n, "kind")?.as_str().unwrap_or("?");
        let result = field(e, n, "result")?;
        match result["status"].as_str() {
            Some("refused") => refused += 1,
            Some("done") => done += 1,
            Some("pending") => pending += 1,
            _ => failed += 1,
        }
        let deps: Vec<String> = field(e, n, "deps")?
            .as_array()
            .map(|d| d.iter().map(opt_u64).collect())
            .unwrap_or_default();
        let bos = field(e, n, "bos")?.as_array().cloned().unwrap_or_default();
        let writes = bos
            .iter()
            .filter(|b| matches!(b["access"].as_str(), Some("write" | "read_write")))
            .count();
        let cycles = match (e["start_cycles"].as_u64(), e["end_cycles"].as_u64()) {
            (Some(s), Some(t)) => (t - s).to_string(),
            _ => "-".into(),
        };
        time_us += e["duration_us"].as_u64().unwrap_or(0);
        let _ = writeln!(
            out,
            "{:>4} {:<6} {:>5} {:<10} {:>4} {:>4} {:>9} {:>10} {:>9} {:>6}  {}",
            sub,
            kind,
            opt_u64(&e["fence"]),
            if deps.is_empty() {
                "-".into()
            } else {
                deps.join(",")
            },
            bos.len(),
            writes,
            opt_u64(&e["duration_us"]),
            cycles,
            opt_u64(&e["counters"]["pixels_shaded"]),
            opt_u64(&e["counters"]["tiles_rendered"]),
            result_text(result)
        );
    }
    let _ = writeln!(
        out,
        "{} submissions: {done} done, {failed} ended with an error, {pending} never ended, {refused} refused; {time_us} us on the GPU{}",
        entries.len(),
        match doc["dropped"].as_u64() {
            Some(d) if d > 0 => format!("; {d} older entries dropped"),
            _ => String::new(),
        }
    );
    Ok(out)
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let name = a.file.display();
    let text = std::fs::read_to_string(&a.file).with_context(|| format!("reading {name}"))?;
    let doc: Value = serde_json::from_str(&text).with_context(|| format!("{name}"))?;
    out!("{}", render(&doc).with_context(|| format!("{name}"))?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_real_trace_and_names_what_is_missing() {
        use sgx_winsys::{BoDesc, Device, SimDevice};
        let dev = SimDevice::new().unwrap();
        let bo = dev.create_bo(&BoDesc::new(64)).unwrap();
        let cmd = dev
            .create_bo(&BoDesc::new(sgx_winsys::twod::list_size_B(1)))
            .unwrap();
        let s = sgx_winsys::twod::Surface {
            bo: &bo,
            offset_B: 0,
            stride_B: 16,
            format: sgx_hwdocs::Format::B8G8R8A8_UNORM,
        };
        let fill = sgx_winsys::twod::fill(
            &s,
            sgx_winsys::twod::Rect {
                x: 0,
                y: 0,
                w: 4,
                h: 4,
            },
            7,
        )
        .unwrap();
        let job = sgx_winsys::twod::job(&cmd, &[fill], std::time::Duration::from_secs(5))
            .unwrap()
            .with_bo(&bo, sgx_winsys::Access::Write);
        dev.submit(job)
            .unwrap()
            .wait(std::time::Duration::from_secs(5))
            .unwrap();
        let doc: Value = serde_json::from_str(&dev.trace().to_json()).unwrap();
        let t = render(&doc).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(lines[1].trim_start().starts_with("0 2d"), "{t}");
        assert!(lines[1].ends_with("done"), "{t}");
        assert!(
            lines[2].starts_with("1 submissions: 1 done, 0 ended with an error"),
            "{t}"
        );
        let bad: Value = serde_json::json!({"entries": [{"kind": "2d"}]});
        let e = render(&bad).unwrap_err().to_string();
        assert!(e.contains("entry 0: field `submission` missing"), "{e}");
        assert!(render(&serde_json::json!({"x": 1})).is_err());
    }
}
