//! Which device a program uses: the `SGX535_DEVICE` environment variable (or a command's
//! `--device`), parsed in one place so the CLI, the C ABI and the Mesa driver agree.

use std::path::Path;
use std::sync::Arc;

use crate::device::Device;
use crate::drm::DrmDevice;
use crate::error::{Result, WinsysError};
use crate::sim::SimDevice;

/// The environment variable naming the device.
pub const DEVICE_ENV: &str = "SGX535_DEVICE";

/// A parsed device specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSpec {
    /// `model`: the device model in-process (the sim backend).
    Model,
    /// `drm` (the first sgx535 render node, or `SGX_DRM_NODE`) or `drm:/dev/dri/renderD128`.
    Drm(Option<String>),
    /// `replay:FILE`: the model with a host fixture's failures injected.
    Replay(String),
}

impl DeviceSpec {
    /// Parses `model`, `drm`, `drm:NODE` or `replay:FILE`.
    pub fn parse(spec: &str) -> Result<DeviceSpec> {
        let bad = |why: &str| {
            Err(WinsysError::InvalidArgument(format!(
                "device {spec:?}: {why} (model, drm, drm:NODE or replay:FILE)"
            )))
        };
        match spec.split_once(':') {
            None if spec == "model" => Ok(DeviceSpec::Model),
            None if spec == "drm" => Ok(DeviceSpec::Drm(None)),
            Some(("drm", node)) if !node.is_empty() => Ok(DeviceSpec::Drm(Some(node.into()))),
            Some(("replay", file)) if !file.is_empty() => Ok(DeviceSpec::Replay(file.into())),
            Some(("drm" | "replay", _)) => bad("a path is missing after the colon"),
            _ => bad("unknown device"),
        }
    }

    /// Opens the device.
    pub fn open(&self) -> Result<Arc<dyn Device>> {
        Ok(match self {
            DeviceSpec::Model => Arc::new(SimDevice::new()?),
            DeviceSpec::Drm(None) => Arc::new(DrmDevice::open_default()?),
            DeviceSpec::Drm(Some(node)) => Arc::new(DrmDevice::open(Path::new(node))?),
            DeviceSpec::Replay(file) => Arc::new(crate::replay::open(Path::new(file))?),
        })
    }

    /// The specification in `SGX535_DEVICE`, `model` when unset or empty.
    pub fn from_env() -> Result<DeviceSpec> {
        match std::env::var(DEVICE_ENV) {
            Ok(s) if !s.is_empty() => DeviceSpec::parse(&s),
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(DeviceSpec::Model),
            Err(std::env::VarError::NotUnicode(_)) => Err(WinsysError::InvalidArgument(format!(
                "{DEVICE_ENV} is not valid UTF-8"
            ))),
        }
    }
}

impl std::fmt::Display for DeviceSpec {
    /// The form `parse` reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceSpec::Model => f.write_str("model"),
            DeviceSpec::Drm(None) => f.write_str("drm"),
            DeviceSpec::Drm(Some(n)) => write!(f, "drm:{n}"),
            DeviceSpec::Replay(p) => write!(f, "replay:{p}"),
        }
    }
}

/// Opens the device `SGX535_DEVICE` names (`model` when unset): what every entry point of the
/// library (CLI, C ABI, Mesa driver) calls when the caller does not choose a device.
pub fn open_from_env() -> Result<Arc<dyn Device>> {
    DeviceSpec::from_env()?.open()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_rejects_the_rest() {
        assert_eq!(DeviceSpec::parse("model").unwrap(), DeviceSpec::Model);
        assert_eq!(DeviceSpec::parse("drm").unwrap(), DeviceSpec::Drm(None));
        assert_eq!(
            DeviceSpec::parse("drm:/dev/dri/renderD129").unwrap(),
            DeviceSpec::Drm(Some("/dev/dri/renderD129".into()))
        );
        assert_eq!(
            DeviceSpec::parse("replay:fixtures/host/hang_job.json").unwrap(),
            DeviceSpec::Replay("fixtures/host/hang_job.json".into())
        );
        for s in ["model", "drm", "drm:/dev/dri/card0", "replay:a.json"] {
            assert_eq!(DeviceSpec::parse(s).unwrap().to_string(), s);
        }
        for bad in ["", "sim", "drm:", "replay:", "replay", "gpu:0", "model:x"] {
            assert!(
                matches!(DeviceSpec::parse(bad), Err(WinsysError::InvalidArgument(_))),
                "accepted {bad:?}"
            );
        }
    }

    #[test]
    fn opens_the_model_and_a_replay_device() {
        use crate::device::Backend;
        let m = DeviceSpec::Model.open().unwrap();
        assert_eq!(m.info().backend, Backend::Sim);
        let fx = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/host/hang_job.json"
        );
        let r = DeviceSpec::Replay(fx.into()).open().unwrap();
        assert_eq!(r.info().backend, Backend::Replay);
        assert!(matches!(
            DeviceSpec::Replay("/nonexistent.json".into()).open(),
            Err(WinsysError::Fixture { .. })
        ));
    }
}
