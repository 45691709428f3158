//! Vertex texture fetch: a vertex shader samples its own sampler slots (their table entries
//! follow the fragment shader's), byte for byte, beside a fragment shader sampling its own.

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const VS_TXL: &str = "VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL SAMP[0]
DCL TEMP[0]
IMM[0] FLT32 { 0.0000, 0.0000, 0.0000, 0.0000 }
  0: MOV OUT[0], IN[0]
  1: MOV TEMP[0], IN[1]
  2: MOV TEMP[0].w, IMM[0].xxxx
  3: TXL OUT[1], TEMP[0], SAMP[0], 2D
  4: END
";

/// The varying times the fragment stage's own texture (all 1.0: a swapped table shows).
const FS_MUL_TEX: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL TEMP[0]
IMM[0] FLT32 { 0.5000, 0.5000, 0.0000, 0.0000 }
  0: TEX TEMP[0], IMM[0], SAMP[0], 2D
  1: MUL OUT[0], IN[0], TEMP[0]
  2: END
";

/// BGRA bytes of the vertex texture's 2x2 texels, row by row.
const TEXELS: [[u8; 4]; 4] = [
    [0x10, 0x20, 0x30, 0xff],
    [0xc0, 0x80, 0x40, 0xf0],
    [0x01, 0xfe, 0x7f, 0x80],
    [0x55, 0xaa, 0x00, 0xff],
];

fn texture(r: &mut Rig, w: u32, h: u32, data: &[u8]) -> Arc<Resource> {
    let t = sampled_texture(r, Format::B8G8R8A8_UNORM, w, h, 0);
    r.ctx
        .texture_subdata(&t, 0, 0, PipeBox::new(0, 0, w, h), data, w as usize * 4, 0)
        .unwrap();
    t
}

/// Draws an 8x8 quad whose vertices all sample the vertex texture at `tc`; the target's bytes.
fn draw(r: &mut Rig, tc: [f32; 2], bind_vertex_view: bool) -> Result<Vec<u8>> {
    let vtex = texture(r, 2, 2, &TEXELS.concat());
    let ftex = texture(r, 1, 1, &[0xff; 4]);
    let t = target(r, Format::B8G8R8A8_UNORM, 8, 8);
    let ctx = &mut r.ctx;
    ctx.set_framebuffer_state(&fb(&t, None))?;
    ctx.set_viewport_state(&ViewportState::rect(0.0, 0.0, 8.0, 8.0))?;
    let vs = ctx.create_vs_state(VS_TXL)?;
    let fs = ctx.create_fs_state(FS_MUL_TEX)?;
    ctx.bind_vs_state(Some(&vs))?;
    ctx.bind_fs_state(Some(&fs))?;
    let ve = ctx.create_vertex_elements_state(&VertexElement::packed(
        &[VertexFormat::R32G32B32A32_FLOAT; 2],
    ))?;
    ctx.bind_vertex_elements_state(Some(&ve));
    let nearest = ctx.create_sampler_state(&SamplerState::default())?;
    ctx.bind_sampler_states(0, &[Some(nearest.clone())])?;
    ctx.set_sampler_views(0, &[Some(SamplerView::new(&ftex))])?;
    ctx.bind_stage_sampler_states(ShaderStage::Vertex, 0, &[Some(nearest)])?;
    if bind_vertex_view {
        ctx.set_stage_sampler_views(ShaderStage::Vertex, 0, &[Some(SamplerView::new(&vtex))])?;
    }
    let mut v = Vec::new();
    for (x, y) in [(-1.0f32, -1.0f32), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
        for q in [x, y, 0.0, 1.0, tc[0], tc[1], 0.0, 1.0] {
            v.extend_from_slice(&q.to_le_bytes());
        }
    }
    ctx.set_vertex_buffers(
        0,
        &[Some(VertexBuffer {
            stride: 32,
            buffer_offset: 0,
            buffer: BufferSource::User(v.into()),
        })],
    )?;
    ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))?;
    ctx.read_level(&t, 0, 0)
}

#[test]
fn the_vertex_stage_samples_its_own_texture_beside_the_fragment_stage() {
    for (k, tc) in [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]
        .into_iter()
        .enumerate()
    {
        let mut r = rig();
        let px = draw(&mut r, tc, true).unwrap();
        assert_eq!(px, TEXELS[k].repeat(64), "texel {k} at {tc:?}");
    }
}

#[test]
fn vertex_samplers_are_limited_and_must_be_bound() {
    let mut r = rig();
    assert_eq!(
        r.screen
            .get_shader_param(ShaderStage::Vertex, ShaderCap::MaxTextureSamplers),
        MAX_VERTEX_SAMPLERS as i64
    );
    let s = r
        .ctx
        .create_sampler_state(&SamplerState::default())
        .unwrap();
    let past = vec![Some(s); MAX_VERTEX_SAMPLERS + 1];
    assert!(matches!(
        r.ctx
            .bind_stage_sampler_states(ShaderStage::Vertex, 0, &past),
        Err(PipeError::InvalidArgument(_))
    ));
    assert!(matches!(
        draw(&mut r, [0.25, 0.25], false),
        Err(PipeError::NotBound("sampler view"))
    ));
}
