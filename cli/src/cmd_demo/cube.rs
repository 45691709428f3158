//! `demo cube`: a lit, depth-tested, textured and mipmapped cube turning in perspective.
//! The texture is a procedural checker whose mip chain the blitter generates on the GPU; the
//! texture coordinates repeat twice per face, so the faces minify it and trilinear filtering
//! reads the generated levels.

use std::sync::Arc;

use anyhow::Context as _;
use sgx_blitter::{Blitter, Route};
use sgx_pipe::state::*;
use sgx_pipe::{bind, Context, Format, PipeBox, Resource, ResourceTemplate, Screen, ShaderStage};

use super::math::{Mat4, CUBE_FACES};
use super::shaders;
use super::target::{
    bind_vertex_buffer, cull_back_faces, depth_less, draw_indexed_triangles, f32_bytes, u16_bytes,
    upload_buffer, vs_constants, Lighting, Target, BACKGROUND_RGBA,
};

/// Side of the square target, in pixels.
pub const SIZE_PX: u32 = 256;
/// Side of the texture's level 0, in texels.
const TEX_PX: u32 = 128;
/// Side of one checker square, in texels.
const CHECK_PX: u32 = 16;
/// Texture repeats across one face.
const REPEATS: f32 = 2.0;
/// Bytes between vertices: position xyz, normal xyz, texcoord st.
const STRIDE_B: u32 = 32;

/// Four corners per face (each face has its own normal), two triangles each.
fn geometry() -> (Vec<f32>, Vec<u16>) {
    let mut verts = Vec::new();
    let mut idx = Vec::new();
    for (f, (n, u, v)) in CUBE_FACES.iter().enumerate() {
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            for k in 0..3 {
                verts.push(n[k] + su * u[k] + sv * v[k]);
            }
            verts.extend_from_slice(n);
            verts.push((su + 1.0) / 2.0 * REPEATS);
            verts.push((sv + 1.0) / 2.0 * REPEATS);
        }
        let b = 4 * f as u16;
        idx.extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
    }
    (verts, idx)
}

/// Level 0 of the texture, B8G8R8A8: a checker of warm and cool squares whose tints drift
/// across the texture, so orientation and repetition show.
fn texels() -> Vec<u8> {
    let mut t = Vec::with_capacity((TEX_PX * TEX_PX * 4) as usize);
    for y in 0..TEX_PX {
        for x in 0..TEX_PX {
            let light = ((x / CHECK_PX) + (y / CHECK_PX)) & 1 == 0;
            let (r, g, b) = if light {
                (
                    250,
                    170 + (x * 80 / TEX_PX) as u8,
                    40 + (y * 60 / TEX_PX) as u8,
                )
            } else {
                (
                    30 + (y * 40 / TEX_PX) as u8,
                    50,
                    150 + (x * 100 / TEX_PX) as u8,
                )
            };
            t.extend_from_slice(&[b, g, r, 255]);
        }
    }
    t
}

/// The cube's resources and state objects.
pub struct Cube {
    target: Target,
    texture: Arc<Resource>,
    vbuf: Arc<Resource>,
    ibuf: Arc<Resource>,
    vs: Arc<sgx_pipe::ShaderState>,
    fs: Arc<sgx_pipe::ShaderState>,
    velems: Arc<Vec<VertexElement>>,
    dsa: Arc<DepthStencilAlphaState>,
    rast: Arc<RasterizerState>,
    sampler: Arc<SamplerState>,
    /// How the mip chain was made, for the report.
    pub mip_route: String,
}

impl Cube {
    /// Creates everything and generates the texture's mip chain with the blitter.
    pub fn new(screen: &Screen, ctx: &mut Context) -> anyhow::Result<Cube> {
        let target = Target::new(screen, SIZE_PX, SIZE_PX)?;
        let last_level = TEX_PX.trailing_zeros();
        let texture = screen.resource_create(&ResourceTemplate::texture_2d(
            Format::B8G8R8A8_UNORM,
            TEX_PX,
            TEX_PX,
            last_level,
            bind::SAMPLER_VIEW | bind::RENDER_TARGET,
        ))?;
        ctx.texture_subdata(
            &texture,
            0,
            0,
            PipeBox::new(0, 0, TEX_PX, TEX_PX),
            &texels(),
            TEX_PX as usize * 4,
            0,
        )?;
        let blitter = Blitter::new(ctx)?;
        let report = blitter
            .generate_mipmap(ctx, &texture, 0, last_level)
            .context("generating mipmaps")?;
        let mip_route = match &report.route {
            Route::Gpu => format!("GPU, {} blitter passes", report.passes.len()),
            Route::Cpu { reason } => format!("CPU ({reason})"),
        };

        let (verts, idx) = geometry();
        let vbuf = upload_buffer(screen, ctx, &f32_bytes(&verts), bind::VERTEX_BUFFER)?;
        let ibuf = upload_buffer(screen, ctx, &u16_bytes(&idx), bind::INDEX_BUFFER)?;

        Ok(Cube {
            target,
            texture,
            vbuf,
            ibuf,
            vs: ctx.create_vs_state(shaders::VS_LIT_TEXTURED)?,
            fs: ctx.create_fs_state(shaders::FS_TEXTURED)?,
            velems: ctx.create_vertex_elements_state(&VertexElement::packed(&[
                VertexFormat::R32G32B32_FLOAT,
                VertexFormat::R32G32B32_FLOAT,
                VertexFormat::R32G32_FLOAT,
            ]))?,
            dsa: ctx.create_depth_stencil_alpha_state(&depth_less()),
            rast: ctx.create_rasterizer_state(&cull_back_faces())?,
            sampler: ctx.create_sampler_state(&SamplerState {
                wrap_s: AddrMode::REPEAT,
                wrap_t: AddrMode::REPEAT,
                min_img_filter: Filter::LINEAR,
                mag_img_filter: Filter::LINEAR,
                min_mip_filter: MipFilter::LINEAR,
                ..Default::default()
            })?,
            mip_route,
        })
    }

    /// Replaces the rasterizer state with one culling `cull` (tests compare culling with depth
    /// testing alone).
    #[cfg(test)]
    pub fn set_cull(&mut self, ctx: &Context, cull: CullMode) -> sgx_pipe::Result<()> {
        self.rast = ctx.create_rasterizer_state(&RasterizerState {
            cull_face: cull,
            ..*self.rast
        })?;
        Ok(())
    }

    /// The render target.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Records frame `n` (not flushed).
    pub fn draw(&self, ctx: &mut Context, n: u32) -> anyhow::Result<()> {
        self.target.bind_and_clear(ctx, BACKGROUND_RGBA)?;
        ctx.bind_blend_state(Some(&ctx.create_blend_state(&BlendState::default())));
        ctx.bind_depth_stencil_alpha_state(Some(&self.dsa));
        ctx.bind_rasterizer_state(Some(&self.rast));
        ctx.bind_vs_state(Some(&self.vs))?;
        ctx.bind_fs_state(Some(&self.fs))?;
        ctx.bind_sampler_states(0, &[Some(self.sampler.clone())])?;
        ctx.set_sampler_views(0, &[Some(SamplerView::new(&self.texture))])?;
        ctx.bind_vertex_elements_state(Some(&self.velems));
        bind_vertex_buffer(ctx, &self.vbuf, STRIDE_B)?;
        let n = n as f32;
        let modelview = Mat4::translate(0.0, 0.0, -6.0)
            .mul(&Mat4::rotate(25.0 + 9.0 * n, 1.0, 0.0, 0.0))
            .mul(&Mat4::rotate(35.0 + 15.0 * n, 0.0, 1.0, 0.0));
        let projection = Mat4::perspective(40.0, 1.0, 1.0, 20.0);
        let light = Lighting {
            light_dir: [0.4, 0.6, 1.0],
            diffuse: [0.85, 0.85, 0.85, 0.0],
            ambient: [0.2, 0.2, 0.2, 1.0],
        };
        ctx.set_constant_buffer(
            ShaderStage::Vertex,
            0,
            Some(vs_constants(&projection, &modelview, &light)),
        )?;
        ctx.set_constant_buffer(ShaderStage::Fragment, 0, None)?;
        draw_indexed_triangles(ctx, &self.ibuf, 36, 23)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_face_winds_counter_clockwise_seen_from_outside() {
        let (v, idx) = geometry();
        super::super::math::assert_ccw_from_outside(&v, 8, &idx);
    }

    #[test]
    fn the_checker_alternates_every_square() {
        let t = texels();
        let px = |x: u32, y: u32| t[((y * TEX_PX + x) * 4) as usize + 2];
        assert_ne!(px(0, 0), px(CHECK_PX, 0));
        assert_eq!(px(0, 0), px(CHECK_PX, CHECK_PX));
    }
}
