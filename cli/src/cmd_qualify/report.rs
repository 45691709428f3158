//! The qualification report: report.json, and index.html with one row per case and, for
//! each small enough level, the expected, actual and magnified-difference PNGs.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;

use super::case::Outcome;

/// The whole run, as report.json holds it.
#[derive(serde::Serialize)]
pub struct Report {
    /// The device the cases ran on.
    pub device: String,
    /// UTC date of the run.
    pub date: String,
    /// Wall-clock time of the run.
    pub elapsed_s: f64,
    /// Cases passed, failed, not renderable.
    pub passed: usize,
    pub failed: usize,
    pub not_renderable: usize,
    pub cases: Vec<Outcome>,
}

/// A file-name-safe id of a case.
pub fn case_id(o: &Outcome) -> String {
    format!(
        "{}-{}-b{}-{}",
        o.spec.format.name().to_lowercase(),
        o.spec.size_px,
        o.spec.base,
        o.spec.pattern.name()
    )
}

fn write_png(path: &Path, side_px: u32, rgba: &[u8]) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), side_px, side_px);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header()?.write_image_data(rgba)?;
    Ok(())
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes report.json, index.html and png/ into `dir`.
pub fn write(dir: &Path, r: &Report) -> anyhow::Result<()> {
    let png_dir = dir.join("png");
    std::fs::create_dir_all(&png_dir).with_context(|| format!("creating {}", png_dir.display()))?;
    std::fs::write(
        dir.join("report.json"),
        serde_json::to_string_pretty(r)? + "\n",
    )
    .context("writing report.json")?;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>sgx535 qualification</title>\n\
         <style>body{{font-family:sans-serif}} table{{border-collapse:collapse}} \
         td,th{{border:1px solid #ccc;padding:2px 6px;vertical-align:top}} \
         .pass{{background:#dfd}} .fail{{background:#fdd}} .nr{{background:#eee}} \
         img{{image-rendering:pixelated;width:48px;height:48px;border:1px solid #888}}</style>\n\
         </head><body>\n<h1>sgx535 qualify</h1>\n<p>{} &middot; {} &middot; {:.2} s &middot; \
         {} passed, {} failed, {} not renderable</p>\n\
         <p>Each level: expected (the CPU filter of the level the device generated before it), \
         actual (generated on the device), and their per-channel difference magnified 32 times \
         (black: equal). Direct: the level read back; sampled: the level sampled NEAREST at its \
         texel centres, against the reference sampled alike; chain: the level against the CPU \
         reference chain (rounding may compound there). Tolerance per pass: 0 for the exact \
         pattern, whose chain must also match byte for byte; one unit of the channel otherwise \
         (the reference rounds (a+b+c+d+2)/4).</p>\n\
         <table>\n<tr><th>case</th><th>result</th><th>direct: bytes differing / max error</th>\
         <th>sampled: bytes differing / max error</th><th>chain: bytes / max error</th><th>submissions</th><th>levels</th></tr>\n",
        esc(&r.device),
        esc(&r.date),
        r.elapsed_s,
        r.passed,
        r.failed,
        r.not_renderable
    );
    for o in &r.cases {
        let id = case_id(o);
        let class = match o.status {
            "pass" => "pass",
            "fail" => "fail",
            _ => "nr",
        };
        let mut levels = String::new();
        for l in &o.levels {
            if let Some(imgs) = &l.images {
                let mut cell = format!("L{} {}px ", l.level, l.extent_px);
                for (name, data) in ["expected", "actual", "diff"].iter().zip(imgs) {
                    let file = format!("{id}-L{}-{name}.png", l.level);
                    write_png(&png_dir.join(&file), l.extent_px, data)?;
                    let _ = write!(
                        cell,
                        "<img src=\"png/{file}\" title=\"{name}\" alt=\"{name}\">"
                    );
                }
                let _ = write!(levels, "<div>{cell}</div>");
            }
        }
        let n_big = o.levels.iter().filter(|l| l.images.is_none()).count();
        if n_big > 0 {
            let _ = write!(levels, "<div>{n_big} larger levels: figures only</div>");
        }
        let result = if o.failures.is_empty() {
            o.status.to_string()
        } else {
            format!("{}<br>{}", o.status, esc(&o.failures.join("; ")))
        };
        let _ = writeln!(
            h,
            "<tr class=\"{class}\"><td>{} {}x{} levels {}..={} {}</td><td>{result}</td>\
             <td>{} / {}</td><td>{} / {}</td><td>{} / {}</td><td>{}</td><td>{levels}</td></tr>",
            o.spec.format.name(),
            o.spec.size_px,
            o.spec.size_px,
            o.spec.base + 1,
            o.spec.last,
            o.spec.pattern.name(),
            o.direct.bytes,
            o.direct.max_channel_err,
            o.sampled.bytes,
            o.sampled.max_channel_err,
            o.chain.bytes,
            o.chain.max_channel_err,
            o.submissions.len()
        );
    }
    h.push_str("</table>\n</body></html>\n");
    std::fs::write(dir.join("index.html"), h).context("writing index.html")?;
    Ok(())
}
