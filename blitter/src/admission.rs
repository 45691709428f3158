//! Which generation requests the GPU route admits: a data table per kind of device (the model,
//! hardware), extended by qualification and, for one process, by a file named in
//! `SGX_MIPGEN_ADMIT`.

use serde::Deserialize;
use sgx_hwdocs::{limits, Format, FormatKind};

use crate::error::{BlitError, Result};

/// The table shipped with the driver.
const BUILTIN: &str = include_str!("../../fixtures/qualification/mipgen.json");

/// Kind of device a row was qualified on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// The device model (sim, replay, drm-shim).
    Model,
    /// A GMA500.
    Hardware,
}

/// One row: a format, square source sizes and the base levels of windows admitted.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    #[serde(default)]
    #[allow(dead_code)]
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

fn parse(text: &str, path: &str) -> Result<Vec<AdmissionEntry>> {
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
    Ok(t.entries)
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
    /// The built-in table.
    pub fn builtin() -> Admission {
        Admission {
            entries: parse(BUILTIN, "fixtures/qualification/mipgen.json")
                .expect("the built-in admission table parses (checked by a test)"),
        }
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
