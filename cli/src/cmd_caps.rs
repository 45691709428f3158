//! `sgx535 caps`: what the driver reports to Mesa, and the GL versions Mesa would make of it
//! (by Mesa's rules, the stricter where releases differ; see `sgx_pipe::mesa_version`).

use crate::out::outln;
use sgx_pipe::{bind, Cap, Format, ResourceTarget, Screen, ShaderCap, ShaderStage};

#[derive(clap::Args)]
pub struct Args {
    /// Also list every capability and format.
    #[arg(long)]
    all: bool,
}

fn version(v: u32) -> String {
    format!("{}.{}", v / 10, v % 10)
}

pub fn run(a: &Args) -> anyhow::Result<()> {
    let screen = Screen::new(sgx_winsys::open_from_env()?);
    let v = screen.mesa_versions();
    outln!(
        "Mesa would expose: OpenGL {}, GLSL {}.{:02}, OpenGL ES {}",
        version(v.gl),
        v.glsl / 100,
        v.glsl % 100,
        if v.gles == 0 {
            "none".to_string()
        } else {
            version(v.gles)
        }
    );
    if v.missing.is_empty() && v.unchecked.is_empty() {
        outln!("missing for GL 2.1: nothing");
    }
    for m in &v.missing {
        outln!("missing: {m}");
    }
    // Mesa advertises these without checking; a driver lacking them breaks applications.
    for m in &v.unchecked {
        outln!("missing (Mesa does not check): {m}");
    }
    if !a.all {
        return Ok(());
    }
    outln!("\ncaps:");
    for &c in Cap::ALL {
        outln!("  {:<48} {}", c.name(), screen.get_param(c));
    }
    outln!("\nshader caps (vertex, fragment):");
    for &c in ShaderCap::ALL {
        outln!(
            "  {:<48} {:>6} {:>6}",
            c.name(),
            screen.get_shader_param(ShaderStage::Vertex, c),
            screen.get_shader_param(ShaderStage::Fragment, c)
        );
    }
    outln!("\nformats (sampled as 1D 2D 3D cube; render target; depth/stencil):");
    for &f in Format::ALL {
        let s = |t| screen.is_format_supported(f, t, bind::SAMPLER_VIEW, 1);
        let mark = |b: bool, c: &'static str| if b { c } else { "-" };
        outln!(
            "  {:<20} {} {} {} {}  {}  {}",
            f.name(),
            mark(s(ResourceTarget::Texture1D), "1D"),
            mark(s(ResourceTarget::Texture2D), "2D"),
            mark(s(ResourceTarget::Texture3D), "3D"),
            mark(s(ResourceTarget::TextureCube), "cube"),
            mark(
                screen.is_format_supported(f, ResourceTarget::Texture2D, bind::RENDER_TARGET, 1),
                "render"
            ),
            mark(
                screen.is_format_supported(f, ResourceTarget::Texture2D, bind::DEPTH_STENCIL, 1),
                "depth"
            ),
        );
    }
    Ok(())
}
