//! Which generation requests the GPU route admits: the blitter's own table, one file per kind
//! of device (admission/model.json, admission/hardware.json, documented in
//! admission/README.md), extended by `sgx535 qualify --record` and, for one process, by a
//! file named in `SGX_MIPGEN_ADMIT`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sgx_hwdocs::{limits, Format, FormatKind};

use crate::error::{BlitError, Result};

/// The tables shipped with the driver, one per device kind.
const BUILTIN: [(DeviceKind, &str); 2] = [
    (DeviceKind::Model, include_str!("../admission/model.json")),
    (
        DeviceKind::Hardware,
        include_str!("../admission/hardware.json"),
    ),
];

/// Kind of device a row was qualified on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// The device model (sim, replay, drm-shim).
    Model,
    /// A GMA500.
    Hardware,
}

impl DeviceKind {
    /// "model" or "hardware": the table's file stem.
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Model => "model",
            DeviceKind::Hardware => "hardware",
        }
    }

    /// The kind of a device: the model (sim, replay, drm-shim) or hardware.
    pub fn of(info: &sgx_winsys::DeviceInfo) -> DeviceKind {
        if info.is_model {
            DeviceKind::Model
        } else {
            DeviceKind::Hardware
        }
    }

    /// The source file of this kind's built-in table (in the blitter's source tree), where
    /// `sgx535 qualify --record` writes.
    pub fn table_path(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("admission")
            .join(format!("{}.json", self.name()))
    }
}

/// What a row's qualification rests on, as `sgx535 qualify --record` writes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// Day of the run (YYYY-MM-DD, UTC).
    pub date: String,
    /// The device it ran on.
    pub device: String,
    /// Patterns compared.
    pub patterns: Vec<String>,
    /// What the trace showed.
    pub trace: String,
    /// The tolerance the comparisons passed under.
    pub tolerance: String,
}

/// One row: a format, square source sizes and the base levels of windows admitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdmissionEntry {
    /// Device kind.
    pub device: DeviceKind,
    /// Format name.
    pub format: String,
    /// Level-0 sizes (square).
    pub sizes_px: Vec<u32>,
    /// First level of the window (the level sampled by the first pass).
    pub base_levels: Vec<u32>,
    /// Where the row's qualification comes from.
    pub source: String,
    /// The qualification run behind the row (rows of the seed article have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    #[serde(default)]
    doc: String,
    entries: Vec<AdmissionEntry>,
}

/// The admission table in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    /// Rows.
    pub entries: Vec<AdmissionEntry>,
}

/// What a request is, for admission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MipRequest {
    /// Texel format.
    pub format: Format,
    /// Level-0 width.
    pub width_px: u32,
    /// Level-0 height.
    pub height_px: u32,
    /// 2D (not a cube or array).
    pub single_layer: bool,
    /// Samples.
    pub samples: u32,
    /// First level of the window.
    pub base_level: u32,
}

fn parse_file(text: &str, path: &str) -> Result<TableFile> {
    let t: TableFile = serde_json::from_str(text).map_err(|e| BlitError::Admission {
        path: path.into(),
        msg: e.to_string(),
    })?;
    for (i, e) in t.entries.iter().enumerate() {
        check_row(e).map_err(|msg| BlitError::Admission {
            path: path.into(),
            msg: format!("entry {i}: {msg}"),
        })?;
    }
    Ok(t)
}

fn parse(text: &str, path: &str) -> Result<Vec<AdmissionEntry>> {
    Ok(parse_file(text, path)?.entries)
}

/// Adds `rows` to the table file at `path` (created if missing), replacing rows of the same
/// device, format, sizes and base levels; every row must be of `kind`.
pub fn record(path: &Path, kind: DeviceKind, rows: &[AdmissionEntry]) -> Result<()> {
    let name = path.display().to_string();
    let mut file = match std::fs::read_to_string(path) {
        Ok(text) => parse_file(&text, &name)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => TableFile {
            doc: format!("GPU mip route admission table for the {} kind of device; see blitter/admission/README.md.", kind.name()),
            entries: Vec::new(),
        },
        Err(e) => {
            return Err(BlitError::Admission {
                path: name,
                msg: e.to_string(),
            })
        }
    };
    for r in rows {
        if r.device != kind {
            return Err(BlitError::InvalidArgument(format!(
                "a {} row for the {} table",
                r.device.name(),
                kind.name()
            )));
        }
        file.entries.retain(|e| {
            !(e.device == r.device
                && e.format == r.format
                && e.sizes_px == r.sizes_px
                && e.base_levels == r.base_levels)
        });
        file.entries.push(r.clone());
    }
    let text = serde_json::to_string_pretty(&file).map_err(|e| BlitError::Admission {
        path: name.clone(),
        msg: e.to_string(),
    })?;
    std::fs::write(path, text + "\n").map_err(|e| BlitError::Admission {
        path: name,
        msg: e.to_string(),
    })
}

/// A row must name a request the GPU route could run: a colour format it can sample and
/// render, power-of-two sizes up to the texture limit, and base levels that leave at least
/// one level to generate in every size of the row.
fn check_row(e: &AdmissionEntry) -> std::result::Result<(), String> {
    let format =
        Format::from_name(&e.format).ok_or_else(|| format!("unknown format {}", e.format))?;
    let info = format.info();
    if matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil)
        || !info.sampleable
        || !info.renderable
    {
        return Err(format!(
            "{} is not a colour format the GPU route can both sample and render",
            e.format
        ));
    }
    if e.sizes_px.is_empty() || e.base_levels.is_empty() {
        return Err("sizes_px and base_levels must each list at least one value".into());
    }
    let max_px = limits::MAX_TEXTURE_PX;
    for &s in &e.sizes_px {
        if s < 2 || !s.is_power_of_two() || u64::from(s) > max_px {
            return Err(format!(
                "size {s}: sizes_px takes powers of two from 2 to {max_px} (limits::MAX_TEXTURE_PX)"
            ));
        }
    }
    let smallest = e.sizes_px.iter().copied().min().unwrap_or(2);
    let top = smallest.ilog2();
    for &b in &e.base_levels {
        if b >= top {
            return Err(format!(
                "base level {b}: a {smallest}x{smallest} chain has levels 0..={top}, so base_levels take 0..={}",
                top - 1
            ));
        }
    }
    Ok(())
}

impl Admission {
    /// The built-in tables of every device kind.
    pub fn builtin() -> Admission {
        let mut entries = Vec::new();
        for (kind, text) in BUILTIN {
            entries.extend(
                parse(text, &format!("blitter/admission/{}.json", kind.name()))
                    .expect("the built-in admission tables parse (checked by a test)"),
            );
        }
        Admission { entries }
    }

    /// A table of the given rows only (qualification runs admit exactly the case they test).
    pub fn only(entries: Vec<AdmissionEntry>) -> Admission {
        Admission { entries }
    }

    /// The built-in table extended by `SGX_MIPGEN_ADMIT`, if set.
    pub fn from_env() -> Result<Admission> {
        let mut a = Admission::builtin();
        if let Some(p) = std::env::var_os("SGX_MIPGEN_ADMIT") {
            a.extend_from_file(std::path::Path::new(&p))?;
        }
        Ok(a)
    }

    /// Adds the rows of a table file.
    pub fn extend_from_file(&mut self, path: &std::path::Path) -> Result<()> {
        let text = std::fs::read_to_string(path).map_err(|e| BlitError::Admission {
            path: path.display().to_string(),
            msg: e.to_string(),
        })?;
        self.entries
            .extend(parse(&text, &path.display().to_string())?);
        Ok(())
    }

    /// Whether the GPU route takes the request on this kind of device; `Err` says why not.
    pub fn admits(&self, kind: DeviceKind, r: &MipRequest) -> std::result::Result<(), String> {
        if !r.single_layer {
            return Err("not a single-layer 2D texture".into());
        }
        if r.samples != 1 {
            return Err(format!("{} samples", r.samples));
        }
        if r.width_px != r.height_px {
            return Err(format!("not square ({}x{})", r.width_px, r.height_px));
        }
        let hit = self.entries.iter().any(|e| {
            e.device == kind
                && e.format == r.format.name()
                && e.sizes_px.contains(&r.width_px)
                && e.base_levels.contains(&r.base_level)
        });
        if hit {
            Ok(())
        } else {
            Err(format!(
                "{} {}x{} from base level {} is not qualified on {:?}",
                r.format.name(),
                r.width_px,
                r.height_px,
                r.base_level,
                kind
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(size: u32, base: u32) -> MipRequest {
        MipRequest {
            format: Format::B8G8R8A8_UNORM,
            width_px: size,
            height_px: size,
            single_layer: true,
            samples: 1,
            base_level: base,
        }
    }

    #[test]
    fn the_seed_set_is_admitted_and_nothing_else() {
        let a = Admission::builtin();
        for s in [32, 64, 128, 256, 512, 2048] {
            assert!(a.admits(DeviceKind::Model, &req(s, 0)).is_ok(), "{s}");
        }
        for s in [16, 1024, 4096, 48] {
            assert!(a.admits(DeviceKind::Model, &req(s, 0)).is_err(), "{s}");
        }
        assert!(a.admits(DeviceKind::Model, &req(2048, 2)).is_ok());
        assert!(a.admits(DeviceKind::Model, &req(2048, 4)).is_ok());
        assert!(a.admits(DeviceKind::Model, &req(2048, 3)).is_err());
        assert!(a.admits(DeviceKind::Model, &req(512, 2)).is_err());
        let mut r = req(64, 0);
        r.format = Format::B5G6R5_UNORM;
        assert!(a
            .admits(DeviceKind::Model, &r)
            .unwrap_err()
            .contains("B5G6R5_UNORM"));
        let mut r = req(64, 0);
        r.height_px = 32;
        assert!(a
            .admits(DeviceKind::Model, &r)
            .unwrap_err()
            .contains("square"));
        let mut r = req(64, 0);
        r.single_layer = false;
        assert!(a.admits(DeviceKind::Model, &r).is_err());
    }

    #[test]
    fn each_builtin_file_parses_and_lists_only_its_kind() {
        for (kind, text) in BUILTIN {
            let rows = parse(text, kind.name()).unwrap();
            assert!(!rows.is_empty(), "{}", kind.name());
            assert!(rows.iter().all(|r| r.device == kind), "{}", kind.name());
        }
        assert!(DeviceKind::Model.table_path().exists());
        assert!(DeviceKind::Hardware.table_path().exists());
    }

    #[test]
    fn record_adds_and_replaces_rows_and_the_table_admits_them() {
        let dir = std::env::temp_dir().join(format!("sgx-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("model.json");
        let _ = std::fs::remove_file(&p);
        let row = |source: &str| AdmissionEntry {
            device: DeviceKind::Model,
            format: "B5G6R5_UNORM".into(),
            sizes_px: vec![64],
            base_levels: vec![0],
            source: source.into(),
            evidence: Some(Evidence {
                date: "2026-12-02".into(),
                device: "sim".into(),
                patterns: vec!["exact".into()],
                trace: "ordered".into(),
                tolerance: "0".into(),
            }),
        };
        record(&p, DeviceKind::Model, &[row("first")]).unwrap();
        record(&p, DeviceKind::Model, &[row("second")]).unwrap();
        let mut a = Admission::only(Vec::new());
        a.extend_from_file(&p).unwrap();
        assert_eq!(a.entries.len(), 1);
        assert_eq!(a.entries[0].source, "second");
        let mut r = req(64, 0);
        r.format = Format::B5G6R5_UNORM;
        assert!(a.admits(DeviceKind::Model, &r).is_ok());
        assert!(a.admits(DeviceKind::Hardware, &r).is_err());
        let mut hw = row("x");
        hw.device = DeviceKind::Hardware;
        assert!(matches!(
            record(&p, DeviceKind::Model, &[hw]),
            Err(BlitError::InvalidArgument(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_override_file_extends_the_table() {
        let dir = std::env::temp_dir().join(format!("sgx-admit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("extra.json");
        std::fs::write(&p, r#"{"entries":[{"device":"model","format":"B5G6R5_UNORM","sizes_px":[64],"base_levels":[0],"source":"experiment"}]}"#).unwrap();
        let mut a = Admission::builtin();
        a.extend_from_file(&p).unwrap();
        let mut r = req(64, 0);
        r.format = Format::B5G6R5_UNORM;
        assert!(a.admits(DeviceKind::Model, &r).is_ok());
        std::fs::write(&p, r#"{"entries":[{"device":"model","format":"NOPE","sizes_px":[64],"base_levels":[0],"source":"x"}]}"#).unwrap();
        assert!(matches!(
            a.extend_from_file(&p),
            Err(BlitError::Admission { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_the_gpu_route_could_not_run_are_refused_by_name() {
        let row = |format: &str, sizes: &str, bases: &str| {
            format!(
                r#"{{"entries":[{{"device":"model","format":"{format}","sizes_px":{sizes},"base_levels":{bases},"source":"x"}}]}}"#
            )
        };
        for (text, says) in [
            (row("B8G8R8A8_UNORM", "[0]", "[0]"), "size 0"),
            (row("B8G8R8A8_UNORM", "[3]", "[0]"), "size 3"),
            (row("B8G8R8A8_UNORM", "[65536]", "[0]"), "size 65536"),
            (row("B8G8R8A8_UNORM", "[1]", "[0]"), "size 1"),
            (
                row("B8G8R8A8_UNORM", "[64, 4]", "[2]"),
                "base level 2: a 4x4 chain has levels 0..=2",
            ),
            (row("B8G8R8A8_UNORM", "[64]", "[99]"), "base level 99"),
            (row("B8G8R8A8_UNORM", "[]", "[0]"), "at least one"),
            (
                row("Z24_UNORM_S8_UINT", "[64]", "[0]"),
                "not a colour format",
            ),
            (row("NOPE", "[64]", "[0]"), "unknown format NOPE"),
        ] {
            let e = parse(&text, "extra.json").expect_err(&text).to_string();
            assert!(
                e.contains("extra.json: entry 0: ") && e.contains(says),
                "{e}"
            );
        }
        parse(&row("B8G8R8A8_UNORM", "[2, 64]", "[0]"), "ok.json").expect("a good row");
    }
}
