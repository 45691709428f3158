//! `demo gears`: glxgears' three gears (red, green, blue), built as its gear() function builds
//! them, lit per vertex by one directional light, depth-tested and back-face culled as
//! glxgears does, turning across frames.

use std::sync::Arc;

use sgx_pipe::state::*;
use sgx_pipe::{bind, Context, DrawInfo, PrimMode, Resource, Screen, ShaderStage};

use super::math::Mat4;
use super::shaders;
use super::target::{
    bind_vertex_buffer, cull_back_faces, depth_less, f32_bytes, upload_buffer, vs_constants,
    Lighting, Target,
};

/// Side of the square target, in pixels (glxgears' default window is 300x300).
pub const SIZE_PX: u32 = 300;
/// Bytes between vertices: position xyz, normal xyz.
const STRIDE_B: u32 = 24;
/// Degrees the first gear turns per frame.
const DEG_PER_FRAME: f32 = 5.0;

type V3 = [f32; 3];

/// Immediate-mode vertices with the current normal, as glVertex/glNormal record them.
#[derive(Default)]
struct Strip {
    normal: V3,
    v: Vec<(V3, V3)>,
}

impl Strip {
    fn new(normal: V3) -> Strip {
        Strip {
            normal,
            v: Vec::new(),
        }
    }
    fn vertex(&mut self, x: f32, y: f32, z: f32) {
        self.v.push(([x, y, z], self.normal));
    }
}

/// Triangles with per-vertex normals: x y z nx ny nz per vertex.
#[derive(Default)]
struct Mesh(Vec<f32>);

impl Mesh {
    fn tri(&mut self, t: [(V3, V3); 3]) {
        for (p, n) in t {
            self.0.extend_from_slice(&p);
            self.0.extend_from_slice(&n);
        }
    }

    /// GL_QUAD_STRIP, flat shaded: quad k is v[2k], v[2k+1], v[2k+3], v[2k+2] and takes the
    /// normal of its last vertex (GL's provoking vertex for quad strips).
    fn quad_strip_flat(&mut self, s: &Strip) {
        for k in 0..s.v.len().saturating_sub(2) / 2 {
            let [a, b, c, d] = [s.v[2 * k], s.v[2 * k + 1], s.v[2 * k + 3], s.v[2 * k + 2]];
            let n = c.1;
            self.tri([(a.0, n), (b.0, n), (c.0, n)]);
            self.tri([(a.0, n), (c.0, n), (d.0, n)]);
        }
    }

    /// GL_QUAD_STRIP, smooth shaded.
    fn quad_strip_smooth(&mut self, s: &Strip) {
        for k in 0..s.v.len().saturating_sub(2) / 2 {
            let [a, b, c, d] = [s.v[2 * k], s.v[2 * k + 1], s.v[2 * k + 3], s.v[2 * k + 2]];
            self.tri([a, b, c]);
            self.tri([a, c, d]);
        }
    }

    /// GL_QUADS, flat shaded: each quad takes its fourth vertex's normal.
    fn quads_flat(&mut self, s: &Strip) {
        for q in s.v.chunks_exact(4) {
            let n = q[3].1;
            self.tri([(q[0].0, n), (q[1].0, n), (q[2].0, n)]);
            self.tri([(q[0].0, n), (q[2].0, n), (q[3].0, n)]);
        }
    }
}

/// glxgears' gear(): front and back faces, the teeth's front and back sides, the outward
/// faces of the teeth (flat), and the inner cylinder (smooth).
fn gear(
    inner_radius: f32,
    outer_radius: f32,
    width: f32,
    teeth: u32,
    tooth_depth: f32,
) -> Vec<f32> {
    use std::f32::consts::PI;
    let r0 = inner_radius;
    let r1 = outer_radius - tooth_depth / 2.0;
    let r2 = outer_radius + tooth_depth / 2.0;
    let da = 2.0 * PI / teeth as f32 / 4.0;
    let hw = width * 0.5;
    let ang = |i: u32| i as f32 * 2.0 * PI / teeth as f32;
    let (c, s) = (f32::cos, f32::sin);
    let mut m = Mesh::default();

    // Front face.
    let mut st = Strip::new([0.0, 0.0, 1.0]);
    for i in 0..=teeth {
        let a = ang(i);
        st.vertex(r0 * c(a), r0 * s(a), hw);
        st.vertex(r1 * c(a), r1 * s(a), hw);
        if i < teeth {
            st.vertex(r0 * c(a), r0 * s(a), hw);
            st.vertex(r1 * c(a + 3.0 * da), r1 * s(a + 3.0 * da), hw);
        }
    }
    m.quad_strip_flat(&st);

    // Front sides of the teeth.
    let mut st = Strip::new([0.0, 0.0, 1.0]);
    for i in 0..teeth {
        let a = ang(i);
        st.vertex(r1 * c(a), r1 * s(a), hw);
        st.vertex(r2 * c(a + da), r2 * s(a + da), hw);
        st.vertex(r2 * c(a + 2.0 * da), r2 * s(a + 2.0 * da), hw);
        st.vertex(r1 * c(a + 3.0 * da), r1 * s(a + 3.0 * da), hw);
    }
    m.quads_flat(&st);

    // Back face.
    let mut st = Strip::new([0.0, 0.0, -1.0]);
    for i in 0..=teeth {
        let a = ang(i);
        st.vertex(r1 * c(a), r1 * s(a), -hw);
        st.vertex(r0 * c(a), r0 * s(a), -hw);
        if i < teeth {
            st.vertex(r1 * c(a + 3.0 * da), r1 * s(a + 3.0 * da), -hw);
            st.vertex(r0 * c(a), r0 * s(a), -hw);
        }
    }
    m.quad_strip_flat(&st);

    // Back sides of the teeth.
    let mut st = Strip::new([0.0, 0.0, -1.0]);
    for i in 0..teeth {
        let a = ang(i);
        st.vertex(r1 * c(a + 3.0 * da), r1 * s(a + 3.0 * da), -hw);
        st.vertex(r2 * c(a + 2.0 * da), r2 * s(a + 2.0 * da), -hw);
        st.vertex(r2 * c(a + da), r2 * s(a + da), -hw);
        st.vertex(r1 * c(a), r1 * s(a), -hw);
    }
    m.quads_flat(&st);

    // Outward faces of the teeth.
    let mut st = Strip::new([0.0, 0.0, -1.0]);
    for i in 0..teeth {
        let a = ang(i);
        st.vertex(r1 * c(a), r1 * s(a), hw);
        st.vertex(r1 * c(a), r1 * s(a), -hw);
        let (u, v) = (r2 * c(a + da) - r1 * c(a), r2 * s(a + da) - r1 * s(a));
        let len = (u * u + v * v).sqrt();
        st.normal = [v / len, -u / len, 0.0];
        st.vertex(r2 * c(a + da), r2 * s(a + da), hw);
        st.vertex(r2 * c(a + da), r2 * s(a + da), -hw);
        st.normal = [c(a), s(a), 0.0];
        st.vertex(r2 * c(a + 2.0 * da), r2 * s(a + 2.0 * da), hw);
        st.vertex(r2 * c(a + 2.0 * da), r2 * s(a + 2.0 * da), -hw);
        let (u, v) = (
            r1 * c(a + 3.0 * da) - r2 * c(a + 2.0 * da),
            r1 * s(a + 3.0 * da) - r2 * s(a + 2.0 * da),
        );
        // glxgears does not normalise this one; GL_NORMALIZE is off, so neither do we.
        st.normal = [v, -u, 0.0];
        st.vertex(r1 * c(a + 3.0 * da), r1 * s(a + 3.0 * da), hw);
        st.vertex(r1 * c(a + 3.0 * da), r1 * s(a + 3.0 * da), -hw);
        st.normal = [c(a), s(a), 0.0];
    }
    st.vertex(r1, 0.0, hw);
    st.vertex(r1, 0.0, -hw);
    m.quad_strip_flat(&st);

    // Inside radius cylinder.
    let mut st = Strip::default();
    for i in 0..=teeth {
        let a = ang(i);
        st.normal = [-c(a), -s(a), 0.0];
        st.vertex(r0 * c(a), r0 * s(a), -hw);
        st.vertex(r0 * c(a), r0 * s(a), hw);
    }
    m.quad_strip_smooth(&st);
    m.0
}

/// One gear: its vertices, colour and placement.
struct Gear {
    vbuf: Arc<Resource>,
    vertices: u32,
    colour: [f32; 4],
    /// x, y translation; rotation = turn * angle + phase degrees.
    at: (f32, f32),
    turn: f32,
    phase: f32,
}

/// The three gears and the state objects.
pub struct Gears {
    target: Target,
    gears: Vec<Gear>,
    vs: Arc<sgx_pipe::ShaderState>,
    fs: Arc<sgx_pipe::ShaderState>,
    velems: Arc<Vec<VertexElement>>,
    dsa: Arc<DepthStencilAlphaState>,
    rast: Arc<RasterizerState>,
    blend: Arc<BlendState>,
}

impl Gears {
    /// Builds the gears (glxgears' init()) and the state objects.
    pub fn new(screen: &Screen, ctx: &mut Context) -> anyhow::Result<Gears> {
        let target = Target::new(screen, SIZE_PX, SIZE_PX)?;
        let specs = [
            (
                (1.0, 4.0, 1.0, 20, 0.7),
                [0.8, 0.1, 0.0, 1.0],
                (-3.0, -2.0),
                1.0,
                0.0,
            ),
            (
                (0.5, 2.0, 2.0, 10, 0.7),
                [0.0, 0.8, 0.2, 1.0],
                (3.1, -2.0),
                -2.0,
                -9.0,
            ),
            (
                (1.3, 2.0, 0.5, 10, 0.7),
                [0.2, 0.2, 1.0, 1.0],
                (-3.1, 4.2),
                -2.0,
                -25.0,
            ),
        ];
        let mut gears = Vec::new();
        for ((r0, r1, w, teeth, depth), colour, at, turn, phase) in specs {
            let v = gear(r0, r1, w, teeth, depth);
            gears.push(Gear {
                vbuf: upload_buffer(screen, ctx, &f32_bytes(&v), bind::VERTEX_BUFFER)?,
                vertices: (v.len() / 6) as u32,
                colour,
                at,
                turn,
                phase,
            });
        }
        Ok(Gears {
            target,
            gears,
            vs: ctx.create_vs_state(shaders::VS_LIT)?,
            fs: ctx.create_fs_state(shaders::FS_COLOR)?,
            velems: ctx.create_vertex_elements_state(&VertexElement::packed(&[
                VertexFormat::R32G32B32_FLOAT,
                VertexFormat::R32G32B32_FLOAT,
            ]))?,
            dsa: ctx.create_depth_stencil_alpha_state(&depth_less()),
            rast: ctx.create_rasterizer_state(&cull_back_faces())?,
            blend: ctx.create_blend_state(&BlendState::default()),
        })
    }

    /// The render target.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Triangles per frame.
    pub fn triangles(&self) -> u32 {
        self.gears.iter().map(|g| g.vertices / 3).sum()
    }

    /// Records frame `n` (not flushed): glxgears' draw().
    pub fn draw(&self, ctx: &mut Context, n: u32) -> anyhow::Result<()> {
        self.target.bind_and_clear(ctx, [0.0, 0.0, 0.0, 1.0])?;
        ctx.bind_blend_state(Some(&self.blend));
        ctx.bind_depth_stencil_alpha_state(Some(&self.dsa));
        ctx.bind_rasterizer_state(Some(&self.rast));
        ctx.bind_vs_state(Some(&self.vs))?;
        ctx.bind_fs_state(Some(&self.fs))?;
        ctx.bind_vertex_elements_state(Some(&self.velems));
        ctx.set_constant_buffer(ShaderStage::Fragment, 0, None)?;
        // glxgears' reshape() and draw(): frustum, eye at z = 40, view rotation 20, 30, 0.
        let h = self.target.height_px as f32 / self.target.width_px as f32;
        let projection = Mat4::frustum(-1.0, 1.0, -h, h, 5.0, 60.0);
        let view = Mat4::translate(0.0, 0.0, -40.0)
            .mul(&Mat4::rotate(20.0, 1.0, 0.0, 0.0))
            .mul(&Mat4::rotate(30.0, 0.0, 1.0, 0.0));
        let angle = n as f32 * DEG_PER_FRAME;
        for g in &self.gears {
            let modelview = view
                .mul(&Mat4::translate(g.at.0, g.at.1, 0.0))
                .mul(&Mat4::rotate(g.turn * angle + g.phase, 0.0, 0.0, 1.0));
            // GL_AMBIENT_AND_DIFFUSE material under light 0 (diffuse 1) and the default global
            // ambient of 0.2; the light's position (5, 5, 10, 0) was given in eye space.
            let [r, gr, b, a] = g.colour;
            let light = Lighting {
                light_dir: [5.0, 5.0, 10.0],
                diffuse: [r, gr, b, 0.0],
                ambient: [0.2 * r, 0.2 * gr, 0.2 * b, a],
            };
            ctx.set_constant_buffer(
                ShaderStage::Vertex,
                0,
                Some(vs_constants(&projection, &modelview, &light)),
            )?;
            bind_vertex_buffer(ctx, &g.vbuf, STRIDE_B)?;
            ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, g.vertices))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gear_has_glxgears_triangle_count() {
        // Per tooth: front face 2 quads, front tooth side 1, back face 2, back tooth side 1,
        // outward faces 4, inner cylinder 1: 11 quads, 22 triangles.
        let v = gear(1.0, 4.0, 1.0, 20, 0.7);
        assert_eq!(v.len() / 6 / 3, 20 * 22);
    }

    #[test]
    fn front_face_triangles_wind_counter_clockwise_seen_from_the_front() {
        let v = gear(1.0, 4.0, 1.0, 20, 0.7);
        let mut checked = 0;
        for t in v.chunks_exact(18) {
            if t[5] != 1.0 {
                continue;
            }
            let area = (t[6] - t[0]) * (t[13] - t[1]) - (t[12] - t[0]) * (t[7] - t[1]);
            assert!(area >= 0.0, "front triangle winds clockwise: {t:?}");
            checked += 1;
        }
        assert!(checked > 0);
    }
}
