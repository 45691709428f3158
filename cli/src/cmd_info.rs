//! `sgx535 info`: the device in use (SGX535_DEVICE or `--device`), its backend and memory, the
//! GL versions Mesa would expose on it, how much of hwdocs is evidence, and the GPU mip
//! route's admission table for its kind.

use crate::out::outln;
use sgx_blitter::{Admission, DeviceKind};
use sgx_hwdocs::{evidence_summary, ITEMS};
use sgx_pipe::{Screen, ShaderCache};
use sgx_winsys::DeviceSpec;

#[derive(clap::Args)]
pub struct Args {
    /// Device: model, drm, drm:NODE or replay:FILE. Default: SGX535_DEVICE, else model.
    #[arg(long)]
    device: Option<String>,
}

fn version(v: u32) -> String {
    format!("{}.{}", v / 10, v % 10)
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let spec = match &a.device {
        Some(s) => DeviceSpec::parse(s)?,
        None => DeviceSpec::from_env()?,
    };
    let dev = spec.open()?;
    let info = dev.info();
    let kind = DeviceKind::of(&info);
    outln!("device:     {spec} ({} backend)", info.backend.name());
    outln!(
        "driver:     {}{}; core revision {:#010x}",
        info.driver,
        if info.is_model {
            " (the device model)"
        } else {
            ""
        },
        info.core_revision
    );
    let va_B = info.va_end - info.va_start;
    let live = dev.live();
    outln!(
        "memory:     GPU addresses {:#010x}..{:#010x} ({} MiB), {} KiB pages; {} buffers live",
        info.va_start,
        info.va_end,
        va_B >> 20,
        info.page_B >> 10,
        live.bos
    );
    let screen = Screen::with_shader_cache(dev.clone(), ShaderCache::in_memory());
    let v = screen.mesa_versions();
    outln!(
        "caps:       Mesa would expose OpenGL {}, GLSL {}.{:02}, OpenGL ES {} (`sgx535 caps --all` lists every cap)",
        version(v.gl),
        v.glsl / 100,
        v.glsl % 100,
        if v.gles == 0 { "none".into() } else { version(v.gles) }
    );
    let t = evidence_summary(None);
    outln!(
        "hwdocs:     {} items: {} CONFIRMED, {} INFERRED, {} MODEL (`sgx535 hwdocs`)",
        ITEMS.len(),
        t.confirmed,
        t.inferred,
        t.model
    );
    let table = Admission::from_env()?;
    let rows: Vec<_> = table.entries.iter().filter(|e| e.device == kind).collect();
    outln!(
        "admission:  {} rows for the {} kind (blitter/admission/{}.json{})",
        rows.len(),
        kind.name(),
        kind.name(),
        if std::env::var_os("SGX_MIPGEN_ADMIT").is_some() {
            ", extended by SGX_MIPGEN_ADMIT"
        } else {
            ""
        }
    );
    for r in rows {
        let sizes: Vec<String> = r.sizes_px.iter().map(u32::to_string).collect();
        let bases: Vec<String> = r.base_levels.iter().map(u32::to_string).collect();
        outln!(
            "            {:<16} sizes {:<26} base {:<5} {}",
            r.format,
            sizes.join(","),
            bases.join(","),
            r.evidence.as_ref().map_or_else(
                || r.source.clone(),
                |e| format!("qualified {} on {}", e.date, e.device)
            )
        );
    }
    Ok(())
}
