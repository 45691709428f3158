//! `sgx535 layout FORMAT WxH[xD] [--cube] [--levels N] [--json]`.

use crate::out::{out, outln};
use anyhow::{anyhow, Context};
use sgx_hwdocs::Format;
use sgx_layout::{Layout, Template};

#[derive(clap::Args)]
pub struct Args {
    /// Format, e.g. B8G8R8A8_UNORM (any case, PIPE_FORMAT_ prefix optional).
    format: String,
    /// Size, WIDTHxHEIGHT in pixels, or WIDTHxHEIGHTxDEPTH for a 3D texture.
    size: String,
    /// A cube map (square faces).
    #[arg(long)]
    cube: bool,
    /// Levels (default: the full chain).
    #[arg(long)]
    levels: Option<u32>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let format = Format::parse_name(&a.format)?;
    let sides: Vec<&str> = a.size.split(['x', 'X']).collect();
    let (w, h, d) = match sides[..] {
        [w, h] => (w, h, None),
        [w, h, d] => (w, h, Some(d)),
        _ => {
            return Err(anyhow!(
                "size {} is not WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH",
                a.size
            ))
        }
    };
    let w: u32 = w.parse().with_context(|| format!("width {w}"))?;
    let h: u32 = h.parse().with_context(|| format!("height {h}"))?;
    let d: Option<u32> = d
        .map(|d| d.parse().with_context(|| format!("depth {d}")))
        .transpose()?;
    let t = match (a.cube, d) {
        (true, Some(_)) => return Err(anyhow!("a cube map has no depth: give WIDTHxHEIGHT")),
        (true, None) => {
            if w != h {
                return Err(anyhow!("cube faces are square, not {w}x{h}"));
            }
            Template::new_cube(format, w)
        }
        (false, Some(d)) => Template::new_3d(format, w, h, d),
        (false, None) => Template::new_2d(format, w, h),
    };
    let t = match a.levels {
        Some(n) => t.with_levels(n),
        None => t.with_full_chain(),
    };
    let l = Layout::new(&t)?;
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&l)?);
    } else {
        out!("{}", sgx_layout::level_table(&l));
    }
    Ok(())
}
