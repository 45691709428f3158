//! `demo shadow`: a box on a floor lit by one directional light that circles it, with the
//! box's shadow cast by a shadow map, in two passes per frame as a GL 2.1 program through Mesa
//! draws it: a depth-only pass from the light into a Z24S8 texture, then the camera's pass
//! sampling that texture with `TXP ..., SHADOW2D` through a compare sampler (LEQUAL, LINEAR
//! for 2x2 PCF, border depth 1.0 so whatever the light's box does not cover is lit).

use std::sync::Arc;

use anyhow::Context as _;
use sgx_pipe::state::*;
use sgx_pipe::{
    bind, clear_flags, Context, Format, Resource, ResourceTemplate, Screen, ShaderStage,
};

use super::math::{normalize, Mat4, CUBE_FACES};
use super::shaders;
use super::shadow_scene::*;
use super::target::{
    bind_vertex_buffer, depth_less, draw_indexed_triangles, f32_bytes, u16_bytes, upload_buffer,
    Target, BACKGROUND_RGBA,
};

/// Bytes between vertices: position xyz, normal xyz, colour rgba.
const STRIDE_B: u32 = 40;
/// Floor and box material colours.
const FLOOR_RGBA: [f32; 4] = [0.70, 0.74, 0.80, 1.0];
const BOX_RGBA: [f32; 4] = [0.92, 0.45, 0.18, 1.0];
/// Light colour scaling the diffuse term, and the ambient light kept in shadow.
const LIGHT_DIFFUSE: [f32; 4] = [0.8, 0.8, 0.8, 0.0];
const AMBIENT: [f32; 4] = [0.3, 0.3, 0.3, 1.0];
/// The light's orthographic box: half its side, and its near and far planes measured from a
/// light "eye" LIGHT_DISTANCE away from the origin along the light direction.
const LIGHT_HALF: f32 = 3.0;
const LIGHT_DISTANCE: f32 = 10.0;
const LIGHT_NEAR: f32 = 5.0;
const LIGHT_FAR: f32 = 15.0;
/// Subtracted from the reference depth (in [0, 1], a tenth of a scene unit here) so surfaces
/// do not shadow themselves where the map's texels straddle them ("acne").
const DEPTH_BIAS: f32 = 0.003;
/// Indices: the floor's two triangles first, then the box's twelve.
const FLOOR_INDICES: u32 = 6;
const INDICES: u32 = FLOOR_INDICES + 36;

/// What the main pass's shadow lookup does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// Compare against the shadow map (LEQUAL).
    Shadowed,
    /// Compare with ALWAYS: every lookup reads 1.0, lit, through the same shaders and
    /// passes (tests diff the two).
    ForcedLit,
}

/// Floor quad and box, each face with its own normal, counter-clockwise seen from outside.
fn geometry() -> (Vec<f32>, Vec<u16>) {
    let mut verts = Vec::new();
    let mut idx: Vec<u16> = Vec::new();
    let mut quad = |corners: [[f32; 3]; 4], n: [f32; 3], rgba: [f32; 4]| {
        let b = (verts.len() / 10) as u16;
        for c in corners {
            verts.extend_from_slice(&c);
            verts.extend_from_slice(&n);
            verts.extend_from_slice(&rgba);
        }
        idx.extend_from_slice(&[b, b + 1, b + 2, b, b + 2, b + 3]);
    };
    let f = FLOOR_HALF;
    quad(
        [[-f, 0.0, f], [f, 0.0, f], [f, 0.0, -f], [-f, 0.0, -f]],
        [0.0, 1.0, 0.0],
        FLOOR_RGBA,
    );
    let h = BOX_HALF;
    for (n, u, v) in CUBE_FACES {
        let corner =
            |su: f32, sv: f32| box_to_world([0, 1, 2].map(|k| h * (n[k] + su * u[k] + sv * v[k])));
        let wn = box_to_world(n);
        // box_to_world lifts points by BOX_HALF; a normal is a direction.
        let wn = [wn[0], wn[1] - BOX_HALF, wn[2]];
        quad(
            [
                corner(-1.0, -1.0),
                corner(1.0, -1.0),
                corner(1.0, 1.0),
                corner(-1.0, 1.0),
            ],
            wn,
            BOX_RGBA,
        );
    }
    (verts, idx)
}

/// The light's view and orthographic projection in frame `frame`.
fn light_view_projection(frame: u32) -> Mat4 {
    let l = towards_light(frame);
    let eye = l.map(|c| c * LIGHT_DISTANCE);
    let view = Mat4::look_at(eye, [0.0; 3], [0.0, 1.0, 0.0]);
    let h = LIGHT_HALF;
    Mat4::ortho(-h, h, -h, h, LIGHT_NEAR, LIGHT_FAR).mul(&view)
}

/// Clip space of the light to shadow-map coordinates: x and y from [-1, 1] to texture s and t
/// in [0, 1], and z as the viewport maps NDC z to the stored depth (scale 0.5, bias 0.5),
/// less the depth bias.
fn shadow_matrix(frame: u32) -> Mat4 {
    Mat4::translate(0.5, 0.5, 0.5 - DEPTH_BIAS)
        .mul(&Mat4::scale(0.5, 0.5, 0.5))
        .mul(&light_view_projection(frame))
}

fn camera_view_projection() -> Mat4 {
    Mat4::perspective(FOVY_DEG, 1.0, 1.0, 30.0).mul(&Mat4::look_at(EYE, LOOK_AT, [0.0, 1.0, 0.0]))
}

fn constants(regs: &[[f32; 4]]) -> ConstantBuffer {
    ConstantBuffer {
        data: regs.iter().flatten().map(|f| f.to_bits()).collect(),
    }
}

/// The scene's resources and state objects.
pub struct Shadow {
    target: Target,
    shadow_map: Arc<Resource>,
    vbuf: Arc<Resource>,
    ibuf: Arc<Resource>,
    vs_depth: Arc<sgx_pipe::ShaderState>,
    fs_depth: Arc<sgx_pipe::ShaderState>,
    vs: Arc<sgx_pipe::ShaderState>,
    fs: Arc<sgx_pipe::ShaderState>,
    velems_depth: Arc<Vec<VertexElement>>,
    velems: Arc<Vec<VertexElement>>,
    dsa: Arc<DepthStencilAlphaState>,
    blend: Arc<BlendState>,
    rast_depth: Arc<RasterizerState>,
    rast: Arc<RasterizerState>,
    sampler: Arc<SamplerState>,
}

impl Shadow {
    /// Creates everything; `lookup` chooses the compare function of the shadow sampler.
    pub fn new(screen: &Screen, ctx: &mut Context, lookup: Lookup) -> anyhow::Result<Shadow> {
        let target = Target::new(screen, SIZE_PX, SIZE_PX)?;
        let shadow_map = screen
            .resource_create(&ResourceTemplate::texture_2d(
                Format::Z24_UNORM_S8_UINT,
                SHADOW_MAP_PX,
                SHADOW_MAP_PX,
                0,
                bind::DEPTH_STENCIL | bind::SAMPLER_VIEW,
            ))
            .context("shadow map")?;
        let (verts, idx) = geometry();
        let vbuf = upload_buffer(screen, ctx, &f32_bytes(&verts), bind::VERTEX_BUFFER)?;
        let ibuf = upload_buffer(screen, ctx, &u16_bytes(&idx), bind::INDEX_BUFFER)?;
        let raster = |cull_face, front_ccw| {
            ctx.create_rasterizer_state(&RasterizerState {
                cull_face,
                front_ccw,
                ..Default::default()
            })
        };
        Ok(Shadow {
            target,
            shadow_map,
            vbuf,
            ibuf,
            vs_depth: ctx.create_vs_state(shaders::VS_DEPTH)?,
            fs_depth: ctx.create_fs_state(shaders::FS_DEPTH)?,
            vs: ctx.create_vs_state(shaders::VS_SHADOW)?,
            fs: ctx.create_fs_state(shaders::FS_SHADOW)?,
            velems_depth: ctx.create_vertex_elements_state(&VertexElement::packed(&[
                VertexFormat::R32G32B32_FLOAT,
            ]))?,
            velems: ctx.create_vertex_elements_state(&VertexElement::packed(&[
                VertexFormat::R32G32B32_FLOAT,
                VertexFormat::R32G32B32_FLOAT,
                VertexFormat::R32G32B32A32_FLOAT,
            ]))?,
            dsa: ctx.create_depth_stencil_alpha_state(&depth_less()),
            blend: ctx.create_blend_state(&BlendState::default()),
            // The light's pass keeps the faces turned away from it: the lit faces then compare
            // against the box's far side, well behind them, and cannot shadow themselves; the
            // floor (facing the light) is not drawn and shadows nothing.
            // GL's counter-clockwise fronts: the window pass's y-flipped viewport keeps them
            // counter-clockwise on screen (as the cube demo), the texture's unflipped one
            // turns them clockwise, so the flag flips with the flip, as Mesa flips it.
            rast_depth: raster(CullMode::FRONT, false)?,
            rast: raster(CullMode::BACK, true)?,
            sampler: ctx.create_sampler_state(&SamplerState {
                wrap_s: AddrMode::CLAMP_TO_BORDER,
                wrap_t: AddrMode::CLAMP_TO_BORDER,
                min_img_filter: Filter::LINEAR,
                mag_img_filter: Filter::LINEAR,
                min_mip_filter: MipFilter::NONE,
                border_color: [1.0; 4],
                compare_mode: true,
                compare_func: match lookup {
                    Lookup::Shadowed => CompareFunc::LEQUAL,
                    Lookup::ForcedLit => CompareFunc::ALWAYS,
                },
                ..Default::default()
            })?,
        })
    }

    /// The render target.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The shadow map (tests read it back).
    #[cfg(test)]
    pub fn shadow_map(&self) -> &Arc<Resource> {
        &self.shadow_map
    }

    fn draw_scene(
        &self,
        ctx: &mut Context,
        velems: &Arc<Vec<VertexElement>>,
    ) -> anyhow::Result<()> {
        ctx.bind_vertex_elements_state(Some(velems));
        bind_vertex_buffer(ctx, &self.vbuf, STRIDE_B)?;
        draw_indexed_triangles(ctx, &self.ibuf, INDICES, 4 * 7 - 1)
    }

    /// Records frame `n`'s two passes (the first is submitted when the second binds its
    /// framebuffer; the second is left unflushed).
    pub fn draw(&self, ctx: &mut Context, n: u32) -> anyhow::Result<()> {
        // Pass 1: depth only, from the light. The map must not stay bound for sampling while
        // it is the depth buffer.
        ctx.set_sampler_views(0, &[None])?;
        ctx.set_framebuffer_state(&FramebufferState {
            width: SHADOW_MAP_PX,
            height: SHADOW_MAP_PX,
            cbuf: None,
            zsbuf: Some(Surface::new(&self.shadow_map, 0, 0)),
            extra_cbufs: Vec::new(),
        })?;
        // A texture is y-0-bottom: no flip, so row 0 is t = 0 as the sampler reads it.
        let side = SHADOW_MAP_PX as f32;
        ctx.set_viewport_state(&ViewportState::rect(0.0, 0.0, side, side))?;
        ctx.clear(clear_flags::DEPTH | clear_flags::STENCIL, [0.0; 4], 1.0, 0)?;
        ctx.bind_blend_state(Some(&self.blend));
        ctx.bind_depth_stencil_alpha_state(Some(&self.dsa));
        ctx.bind_rasterizer_state(Some(&self.rast_depth));
        ctx.bind_vs_state(Some(&self.vs_depth))?;
        ctx.bind_fs_state(Some(&self.fs_depth))?;
        ctx.set_constant_buffer(
            ShaderStage::Vertex,
            0,
            Some(constants(&light_view_projection(n).0)),
        )?;
        ctx.set_constant_buffer(ShaderStage::Fragment, 0, None)?;
        self.draw_scene(ctx, &self.velems_depth)?;

        // Pass 2: the camera's view, sampling the map.
        self.target.bind_and_clear(ctx, BACKGROUND_RGBA)?;
        ctx.bind_rasterizer_state(Some(&self.rast));
        ctx.bind_vs_state(Some(&self.vs))?;
        ctx.bind_fs_state(Some(&self.fs))?;
        ctx.bind_sampler_states(0, &[Some(self.sampler.clone())])?;
        ctx.set_sampler_views(0, &[Some(SamplerView::new(&self.shadow_map))])?;
        let l = normalize(towards_light(n));
        let mut regs: Vec<[f32; 4]> = Vec::with_capacity(shaders::VS_SHADOW_CONST_REGS);
        regs.extend(camera_view_projection().0);
        // The scene is modelled in world space: the normal matrix is the identity.
        regs.extend(Mat4::identity().0[..3].iter().copied());
        regs.push([l[0], l[1], l[2], 0.0]);
        regs.extend(shadow_matrix(n).0);
        regs.push(LIGHT_DIFFUSE);
        regs.push(AMBIENT);
        ctx.set_constant_buffer(ShaderStage::Vertex, 0, Some(constants(&regs)))?;
        self.draw_scene(ctx, &self.velems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_face_winds_counter_clockwise_seen_from_outside() {
        let (v, idx) = geometry();
        super::super::math::assert_ccw_from_outside(&v, 10, &idx);
        assert_eq!(idx.len() as u32, INDICES);
    }

    #[test]
    fn the_shadow_matrix_maps_the_light_box_onto_the_unit_cube_less_the_bias() {
        let m = shadow_matrix(0);
        let l = towards_light(0);
        // The origin lies on the light's axis, LIGHT_DISTANCE from its eye.
        let o = m.apply([0.0, 0.0, 0.0, 1.0]);
        let z = (LIGHT_DISTANCE - LIGHT_NEAR) / (LIGHT_FAR - LIGHT_NEAR) - DEPTH_BIAS;
        assert!(
            (o[0] - 0.5).abs() < 1e-5 && (o[1] - 0.5).abs() < 1e-5,
            "{o:?}"
        );
        assert!((o[2] - z).abs() < 1e-5 && o[3] == 1.0, "{o:?}");
        // Nearer the light is a smaller depth.
        let p = m.apply([l[0], l[1], l[2], 1.0]);
        assert!((p[2] - (z - 0.1)).abs() < 1e-5, "{p:?}");
    }

    #[test]
    fn the_light_pass_stores_the_box_far_side_and_leaves_the_floor_out() {
        use sgx_winsys::{Device, SimDevice};
        let dev: Arc<dyn Device> = Arc::new(SimDevice::new().expect("model"));
        let screen = Screen::with_shader_cache(dev.clone(), sgx_pipe::ShaderCache::in_memory());
        let mut ctx = screen.context_create();
        let s = Shadow::new(&screen, &mut ctx, Lookup::Shadowed).expect("scene");
        s.draw(&mut ctx, 0).expect("draw");
        ctx.flush().expect("flush");
        let map = ctx.read_level(s.shadow_map(), 0, 0).expect("read back");
        let m = shadow_matrix(0);
        // (stored depth, unbiased reference depth) where the light sees world point p.
        let look = |p: [f32; 3]| {
            let c = m.apply([p[0], p[1], p[2], 1.0]);
            let texel = |u: f32| (u * SHADOW_MAP_PX as f32) as usize;
            assert!(
                (0.0..1.0).contains(&c[0]) && (0.0..1.0).contains(&c[1]),
                "{p:?}"
            );
            let i = (texel(c[1]) * SHADOW_MAP_PX as usize + texel(c[0])) * 4;
            let v = u32::from_le_bytes([map[i], map[i + 1], map[i + 2], map[i + 3]]) & 0xFF_FFFF;
            (v as f32 / 16_777_215.0, c[2] + DEPTH_BIAS)
        };
        // The floor faces the light and is culled: the clear depth stays on either side of
        // the box, beyond the shadow's tip (2.47 units from the centre).
        let l = towards_light(0);
        let h = (l[0] * l[0] + l[2] * l[2]).sqrt();
        for d in [-2.7, 2.7] {
            let (stored, _) = look([l[0] / h * d, 0.0, l[2] / h * d]);
            assert_eq!(stored, 1.0, "floor {d} towards the light");
        }
        // Through the box's centre the light sees its far side: behind the centre, in front
        // of the floor beneath.
        let (stored, centre) = look([0.0, BOX_HALF, 0.0]);
        assert!(
            stored > centre && stored < 1.0,
            "{stored} vs centre {centre}"
        );
        let (stored, top) = look([0.0, 2.0 * BOX_HALF, 0.0]);
        assert!(
            stored > top + 0.05,
            "the top face is not stored: {stored} vs {top}"
        );
    }
}
