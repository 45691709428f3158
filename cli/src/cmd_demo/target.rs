//! What both demos share: a colour and depth target seen the way Mesa's state tracker sets up a
//! window (y flipped in the viewport, so GL's y-up NDC lands right side up), the lighting
//! constants, buffer uploads, and PNG output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use sgx_pipe::state::{
    BufferSource, CompareFunc, ConstantBuffer, CullMode, DepthStencilAlphaState, FramebufferState,
    RasterizerState, Surface, VertexBuffer, ViewportState,
};
use sgx_pipe::{
    bind, clear_flags, Context, DrawInfo, Format, PrimMode, Resource, ResourceTemplate, Screen,
};

use super::math::Mat4;
use super::shaders::VS_CONST_REGS;

/// The cube and shadow demos' background colour (RGBA).
pub const BACKGROUND_RGBA: [f32; 4] = [0.08, 0.09, 0.14, 1.0];

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
        let buffer = |format, bind_flags, what| {
            let t = ResourceTemplate::texture_2d(format, width_px, height_px, 0, bind_flags);
            screen.resource_create(&t).context(what)
        };
        let colour = buffer(Format::B8G8R8A8_UNORM, bind::RENDER_TARGET, "colour buffer")?;
        let depth = buffer(
            Format::Z24_UNORM_S8_UINT,
            bind::DEPTH_STENCIL,
            "depth buffer",
        )?;
        Ok(Target {
            colour,
            depth,
            width_px,
            height_px,
        })
    }

    /// Binds both buffers and a whole-target viewport with y pointing up, as GL's.
    pub fn bind(&self, ctx: &mut Context) -> sgx_pipe::Result<()> {
        let surface = |r: &Arc<Resource>| Surface::new(r, 0, 0);
        ctx.set_framebuffer_state(&FramebufferState {
            width: self.width_px,
            height: self.height_px,
            cbuf: Some(surface(&self.colour)),
            zsbuf: Some(surface(&self.depth)),
            extra_cbufs: Vec::new(),
        })?;
        let mut vp = ViewportState::rect(0.0, 0.0, self.width_px as f32, self.height_px as f32);
        // The window's row 0 is its top, where GL's NDC y = +1 belongs: Mesa negates the y
        // scale the same way for a y-0-top (window) framebuffer.
        vp.scale[1] = -vp.scale[1];
        ctx.set_viewport_state(&vp)
    }

    /// Binds the target ([`Target::bind`]) and clears colour to `rgba`, depth to 1 and stencil
    /// to 0, as every demo frame starts.
    pub fn bind_and_clear(&self, ctx: &mut Context, rgba: [f32; 4]) -> sgx_pipe::Result<()> {
        self.bind(ctx)?;
        let all = clear_flags::COLOR0 | clear_flags::DEPTH | clear_flags::STENCIL;
        ctx.clear(all, rgba, 1.0, 0)
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
    // Written beside the final name and renamed into place, so a failure (a full disk) leaves
    // neither a truncated PNG nor the temporary file.
    let tmp = path.with_extension("png.partial");
    let write = || -> anyhow::Result<()> {
        let mut bytes = Vec::new();
        let mut enc = png::Encoder::new(&mut bytes, width_px, height_px);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header()?;
        w.write_image_data(rgba)?;
        w.finish()?;
        std::fs::write(&tmp, &bytes)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    };
    write()
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
        .with_context(|| format!("writing {}", path.display()))
}

/// The output directory of a run: the folders the run created are removed again if the run
/// fails before [`OutDir::keep`], so a failure leaves no empty `--out` behind.
pub struct OutDir {
    path: PathBuf,
    created: Vec<PathBuf>,
    kept: bool,
}

impl OutDir {
    /// Creates `path` and any missing parents.
    pub fn create(path: &Path) -> anyhow::Result<OutDir> {
        let created: Vec<PathBuf> = path
            .ancestors()
            .filter(|p| !p.as_os_str().is_empty() && !p.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(path).with_context(|| format!("creating {}", path.display()))?;
        Ok(OutDir {
            path: path.to_path_buf(),
            created,
            kept: false,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run succeeded: leave the directory.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        if !self.kept {
            // Deepest first; remove_dir refuses a folder that is not empty, so nothing the
            // run wrote successfully is lost.
            for d in &self.created {
                let _ = std::fs::remove_dir(d);
            }
        }
    }
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

/// Binds `vbuf` as vertex buffer 0, vertices `stride_B` apart.
pub fn bind_vertex_buffer(
    ctx: &mut Context,
    vbuf: &Arc<Resource>,
    stride_B: u32,
) -> anyhow::Result<()> {
    ctx.set_vertex_buffers(
        0,
        &[Some(VertexBuffer {
            stride: stride_B,
            buffer_offset: 0,
            buffer: BufferSource::Resource(vbuf.clone()),
        })],
    )?;
    Ok(())
}

/// Draws triangles of the first `count` 16-bit indices of `ibuf`, which reach vertex
/// `max_index` at most.
pub fn draw_indexed_triangles(
    ctx: &mut Context,
    ibuf: &Arc<Resource>,
    count: u32,
    max_index: u32,
) -> anyhow::Result<()> {
    ctx.draw_vbo(&DrawInfo {
        mode: PrimMode::TRIANGLES,
        index_size: 2,
        index: Some(BufferSource::Resource(ibuf.clone())),
        start: 0,
        count,
        index_bias: 0,
        min_index: 0,
        max_index,
    })?;
    Ok(())
}

/// f32s as little-endian bytes.
pub fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// Indices as the bytes of a 16-bit index buffer.
pub fn u16_bytes(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// The depth test of every demo: nearer fragments pass and write their depth.
pub fn depth_less() -> DepthStencilAlphaState {
    DepthStencilAlphaState {
        depth_enabled: true,
        depth_writemask: true,
        depth_func: CompareFunc::LESS,
        ..Default::default()
    }
}

/// Back faces culled, fronts counter-clockwise as GL's. The target's viewport flips y as a GL
/// window's does, so GL's `front_ccw` carries over; an unflipped viewport (the shadow demo's
/// depth pass) needs it inverted.
pub fn cull_back_faces() -> RasterizerState {
    RasterizerState {
        cull_face: CullMode::BACK,
        front_ccw: true,
        ..Default::default()
    }
}

#[cfg(test)]
mod debris_tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sgx535-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_failed_run_removes_the_folders_it_made_and_keeps_what_it_wrote() {
        let d = scratch("outdir");
        let nested = d.join("a").join("b");
        drop(OutDir::create(&nested).expect("creates"));
        assert!(!d.exists(), "left {}", d.display());

        // A folder holding a finished PNG is not removed.
        let out = OutDir::create(&nested).expect("creates");
        write_png(&out.path().join("f.png"), 1, 1, &[1, 2, 3, 4]).expect("writes");
        drop(out);
        assert!(nested.join("f.png").is_file());
        // A kept run keeps its folder.
        let kept = d.join("kept");
        OutDir::create(&kept).expect("creates").keep();
        assert!(kept.is_dir());
        std::fs::remove_dir_all(&d).expect("cleanup");
    }

    #[test]
    fn a_png_that_cannot_be_written_leaves_neither_a_partial_nor_a_temporary_file() {
        let d = scratch("png");
        // The final name is a non-empty folder, so the rename into place fails.
        let png = d.join("f.png");
        std::fs::create_dir_all(png.join("x")).expect("blocker");
        let e = write_png(&png, 1, 1, &[1, 2, 3, 4]).expect_err("cannot rename");
        assert!(format!("{e:#}").contains("f.png"), "{e:#}");
        let names: Vec<String> = std::fs::read_dir(&d)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["f.png"], "only the blocker is left");
        // Too few pixels for the size: refused by the encoder, nothing written.
        let e = write_png(&d.join("g.png"), 4, 4, &[0; 4]).expect_err("short data");
        assert!(format!("{e:#}").contains("g.png"), "{e:#}");
        assert!(!d.join("g.png").exists() && !d.join("g.png.partial").exists());
        std::fs::remove_dir_all(&d).expect("cleanup");
    }
}
