//! What both demos share: a colour and depth target seen the way Mesa's state tracker sets up a
//! window (y flipped in the viewport, so GL's y-up NDC lands right side up), the lighting
//! constants, buffer uploads, and PNG output.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use sgx_pipe::state::{ConstantBuffer, FramebufferState, Surface, ViewportState};
use sgx_pipe::{bind, Context, Format, Resource, ResourceTemplate, Screen};

use super::math::Mat4;
use super::shaders::VS_CONST_REGS;

/// A colour buffer and a depth/stencil buffer of one size.
pub struct Target {
    /// B8G8R8A8_UNORM colour.
    pub colour: Arc<Resource>,
    /// Z24_UNORM_S8_UINT depth and stencil.
    pub depth: Arc<Resource>,
    /// Width in pixels.
    pub width_px: u32,
    /// Height in pixels.
    pub height_px: u32,
}

impl Target {
    /// Creates both buffers.
    pub fn new(screen: &Screen, width_px: u32, height_px: u32) -> anyhow::Result<Target> {
        let colour = screen
            .resource_create(&ResourceTemplate::texture_2d(
                Format::B8G8R8A8_UNORM,
                width_px,
                height_px,
                0,
                bind::RENDER_TARGET,
            ))
            .context("colour buffer")?;
        let depth = screen
            .resource_create(&ResourceTemplate::texture_2d(
                Format::Z24_UNORM_S8_UINT,
                width_px,
                height_px,
                0,
                bind::DEPTH_STENCIL,
            ))
            .context("depth buffer")?;
        Ok(Target {
            colour,
            depth,
            width_px,
            height_px,
        })
    }

    /// Binds both buffers and a whole-target viewport with y pointing up, as GL's.
    pub fn bind(&self, ctx: &mut Context) -> sgx_pipe::Result<()> {
        let surface = |r: &Arc<Resource>| Surface {
            resource: r.clone(),
            level: 0,
            face: 0,
        };
        ctx.set_framebuffer_state(&FramebufferState {
            width: self.width_px,
            height: self.height_px,
            cbuf: Some(surface(&self.colour)),
            zsbuf: Some(surface(&self.depth)),
        })?;
        let mut vp = ViewportState::rect(0.0, 0.0, self.width_px as f32, self.height_px as f32);
        // The window's row 0 is its top, where GL's NDC y = +1 belongs: Mesa negates the y
        // scale the same way for a y-0-top (window) framebuffer.
        vp.scale[1] = -vp.scale[1];
        ctx.set_viewport_state(&vp)
    }

    /// Reads the colour buffer back as RGBA8 rows (waits for the GPU).
    pub fn read_rgba(&self, ctx: &mut Context) -> sgx_pipe::Result<Vec<u8>> {
        let bgra = ctx.read_level(&self.colour, 0, 0)?;
        Ok(bgra
            .chunks_exact(4)
            .flat_map(|p| [p[2], p[1], p[0], 255])
            .collect())
    }
}

/// Writes RGBA8 rows as a PNG.
pub fn write_png(path: &Path, width_px: u32, height_px: u32, rgba: &[u8]) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width_px, height_px);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header()?;
    w.write_image_data(rgba)?;
    w.finish()?;
    Ok(())
}

/// One directional light on a material, as GL's fixed function with a single light and the
/// default global ambient computes it per vertex.
pub struct Lighting {
    /// Direction towards the light, eye space (need not be unit).
    pub light_dir: [f32; 3],
    /// Material diffuse times light diffuse.
    pub diffuse: [f32; 4],
    /// Material ambient times global ambient.
    pub ambient: [f32; 4],
}

/// The vertex constant buffer of [`super::shaders`]: MVP rows, normal matrix rows, lighting.
pub fn vs_constants(projection: &Mat4, modelview: &Mat4, l: &Lighting) -> ConstantBuffer {
    let mvp = projection.mul(modelview);
    let dir = super::math::normalize(l.light_dir);
    let mut regs: Vec<[f32; 4]> = Vec::with_capacity(VS_CONST_REGS);
    regs.extend(mvp.0);
    // Rigid motions only: the normal matrix is the modelview's rotation.
    for r in &modelview.0[..3] {
        regs.push([r[0], r[1], r[2], 0.0]);
    }
    regs.push([dir[0], dir[1], dir[2], 0.0]);
    regs.push(l.diffuse);
    regs.push(l.ambient);
    ConstantBuffer {
        data: regs.iter().flatten().map(|f| f.to_bits()).collect(),
    }
}

/// A buffer resource holding `bytes`.
pub fn upload_buffer(
    screen: &Screen,
    ctx: &mut Context,
    bytes: &[u8],
    bind_flags: u32,
) -> anyhow::Result<Arc<Resource>> {
    let len = u32::try_from(bytes.len()).context("buffer too large")?;
    let r = screen.resource_create(&ResourceTemplate::buffer(len, bind_flags))?;
    ctx.buffer_subdata(&r, 0, bytes)?;
    Ok(r)
}

/// f32s as little-endian bytes.
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}
