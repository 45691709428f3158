//! Sampling every sampleable format, twiddled (power-of-two) and linear (NPOT), against a
//! decoder written here from formats.json's channel table; and cube maps.

mod common;

use std::sync::Arc;

use common::*;
use sgx_hwdocs::FormatKind;
use sgx_pipe::state::*;
use sgx_pipe::*;

/// The RGBA a texel of `f` samples as (unorm channels expanded, float channels as they are).
fn decode(f: Format, texel: &[u8]) -> [f32; 4] {
    let info = f.info();
    let mut raw = 0u64;
    for (i, b) in texel.iter().enumerate() {
        raw |= u64::from(*b) << (8 * i);
    }
    let get = |name: &str| -> Option<f32> {
        let c = info.channel(name)?;
        let v = (raw >> c.lo) & ((1u64 << c.bits) - 1);
        Some(match info.kind {
            FormatKind::Float if c.bits == 16 => half(v as u16),
            FormatKind::Float => f32::from_bits(v as u32),
            _ => v as f32 / ((1u64 << c.bits) - 1) as f32,
        })
    };
    // Depth samples as (d, d, d, 1); the stencil byte of Z24S8 is not sampled.
    if let Some(z) = get("z") {
        return [z, z, z, 1.0];
    }
    if info.kind == FormatKind::Srgb {
        // IEC 61966-2-1 on R, G and B; alpha stays linear.
        let lin = |c: f32| {
            let c = f64::from(c);
            (if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }) as f32
        };
        return [
            lin(get("r").unwrap()),
            lin(get("g").unwrap()),
            lin(get("b").unwrap()),
            get("a").unwrap(),
        ];
    }
    if let Some(l) = get("l") {
        return [l, l, l, get("a").unwrap_or(1.0)];
    }
    if let Some(i) = get("i") {
        return [i, i, i, i];
    }
    if info.channels.len() == 1 && get("a").is_some() {
        return [0.0, 0.0, 0.0, get("a").unwrap()];
    }
    [
        get("r").unwrap_or(0.0),
        get("g").unwrap_or(0.0),
        get("b").unwrap_or(0.0),
        get("a").unwrap_or(1.0),
    ]
}

fn half(h: u16) -> f32 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1F);
    let m = f32::from(h & 0x3FF);
    s * match e {
        0 => m * 2f32.powi(-24),
        31 => f32::INFINITY,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

fn to_bgra8(c: [f32; 4]) -> [u8; 4] {
    let u = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    [u(c[2]), u(c[1]), u(c[0]), u(c[3])]
}

/// Texel bytes: anything for unorm formats; for float formats, values whose 8-bit result has
/// no rounding tie.
fn texel_bytes(f: Format, n: usize) -> Vec<u8> {
    let bpe = f.info().bytes_per_el as usize;
    let mut out = Vec::with_capacity(n * bpe);
    for i in 0..n {
        match f {
            Format::R16_FLOAT => out.extend_from_slice(
                &[0x0000u16, 0x3400, 0x3A00, 0x3C00, 0x4000, 0xBC00][i % 6].to_le_bytes(),
            ),
            Format::R32_FLOAT => {
                out.extend_from_slice(&[0.0f32, 0.25, 0.75, 1.0, 2.0, -1.0][i % 6].to_le_bytes())
            }
            _ => out.extend((0..bpe).map(|k| ((i * 37 + k * 101 + i / 3) % 251) as u8)),
        }
    }
    out
}

fn sample_whole(r: &mut Rig, tex: &Arc<Resource>) -> Vec<u8> {
    let sampler = SamplerState {
        wrap_s: AddrMode::CLAMP_TO_EDGE,
        wrap_t: AddrMode::CLAMP_TO_EDGE,
        ..Default::default()
    };
    let (w, h) = (tex.width(), tex.height());
    let tc = corners(0.0, 0.0, 1.0, 1.0, 0.0, 1.0);
    let fs = fs_sample("TEX", "2D");
    draw_sampled(r, (w, h), &fs, SamplerView::new(tex), sampler, tc).unwrap()
}

#[test]
fn every_sampleable_format_twiddled_and_linear_samples_as_decoded() {
    let formats: Vec<Format> = Format::ALL
        .iter()
        .copied()
        .filter(|f| f.info().sampleable)
        .collect();
    assert!(formats.len() >= 12);
    for f in formats {
        for (w, h) in [(8u32, 8u32), (16, 4), (6, 5)] {
            let mut r = rig();
            let tex = sampled_texture(&r, f, w, h, 0);
            let tiling = tex.layout().unwrap().tiling;
            let bpe = f.info().bytes_per_el as usize;
            let data = texel_bytes(f, (w * h) as usize);
            r.ctx
                .texture_subdata(
                    &tex,
                    0,
                    0,
                    PipeBox::new(0, 0, w, h),
                    &data,
                    w as usize * bpe,
                    0,
                )
                .unwrap();
            let px = sample_whole(&mut r, &tex);
            for i in 0..(w * h) as usize {
                let want = to_bgra8(decode(f, &data[i * bpe..(i + 1) * bpe]));
                assert_eq!(
                    px[i * 4..i * 4 + 4],
                    want,
                    "{} {w}x{h} ({:?}) texel {i}",
                    f.name(),
                    tiling
                );
            }
        }
    }
}

#[test]
fn cube_faces_are_sampled_by_major_axis() {
    const FS_CUBE: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], CUBE, FLOAT
  0: TEX OUT[0], IN[0], SAMP[0], CUBE
  1: END
";
    let mut r = rig();
    let cube = r
        .screen
        .resource_create(&ResourceTemplate::cube(
            Format::B8G8R8A8_UNORM,
            8,
            3,
            bind::SAMPLER_VIEW,
        ))
        .unwrap();
    let colours: [[u8; 4]; 6] = [
        [0, 0, 255, 255],
        [0, 255, 0, 255],
        [255, 0, 0, 255],
        [0, 255, 255, 255],
        [255, 0, 255, 255],
        [255, 255, 0, 255],
    ];
    for (face, c) in colours.iter().enumerate() {
        for l in 0..4u32 {
            let s = 8 >> l;
            let d: Vec<u8> = (0..s * s).flat_map(|_| *c).collect();
            r.ctx
                .texture_subdata(
                    &cube,
                    l,
                    face as u32,
                    PipeBox::new(0, 0, s, s),
                    &d,
                    s as usize * 4,
                    0,
                )
                .unwrap();
        }
    }
    let t = target(&r, Format::B8G8R8A8_UNORM, 6 * 8, 8);
    let ctx = &mut r.ctx;
    ctx.set_framebuffer_state(&fb(&t, None)).unwrap();
    ctx.set_viewport_state(&ViewportState::rect(0.0, 0.0, 48.0, 8.0))
        .unwrap();
    let vs = ctx.create_vs_state(VS_POS_TEX).unwrap();
    let fs = ctx.create_fs_state(FS_CUBE).unwrap();
    ctx.bind_vs_state(Some(&vs)).unwrap();
    ctx.bind_fs_state(Some(&fs)).unwrap();
    let ve = ctx
        .create_vertex_elements_state(&VertexElement::packed(&[
            VertexFormat::R32G32B32A32_FLOAT,
            VertexFormat::R32G32B32_FLOAT,
        ]))
        .unwrap();
    ctx.bind_vertex_elements_state(Some(&ve));
    let s = ctx
        .create_sampler_state(&SamplerState {
            min_mip_filter: MipFilter::NEAREST,
            ..Default::default()
        })
        .unwrap();
    ctx.bind_sampler_states(0, &[Some(s)]).unwrap();
    ctx.set_sampler_views(0, &[Some(SamplerView::new(&cube))])
        .unwrap();
    let dirs: [[f32; 3]; 6] = [
        [1.0, 0.1, 0.2],
        [-1.0, 0.2, -0.1],
        [0.1, 1.0, 0.2],
        [0.2, -1.0, 0.1],
        [0.1, 0.2, 1.0],
        [-0.2, 0.1, -1.0],
    ];
    for (i, d) in dirs.iter().enumerate() {
        let x0 = i as f32 / 3.0 - 1.0;
        let x1 = x0 + 1.0 / 3.0;
        let mut v = Vec::new();
        for (x, y) in [(x0, -1.0f32), (x1, -1.0), (x0, 1.0), (x1, 1.0)] {
            for q in [x, y, 0.0, 1.0, d[0], d[1], d[2]] {
                v.push(q);
            }
        }
        ctx.set_vertex_buffers(0, &[Some(VertexBuffer::user_f32(7, &v))])
            .unwrap();
        ctx.draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
            .unwrap();
    }
    let px = ctx.read_level(&t, 0, 0).unwrap();
    for (face, c) in colours.iter().enumerate() {
        let x = face * 8 + 4;
        assert_eq!(px[(4 * 48 + x) * 4..][..4], c[..], "face {face}");
    }
}

/// A texture whose storage is replaced (the blitter adopts its private chain this way) is
/// sampled from the new storage by the next draw, though no state was bound again: the draw
/// notices the moved buffer and repacks the texture table.
#[test]
fn a_replaced_storage_is_sampled_without_rebinding() {
    let mut r = rig();
    let solid = |r: &mut Rig, bgra: [u8; 4]| {
        let tex = sampled_texture(r, Format::B8G8R8A8_UNORM, 4, 4, 0);
        let data: Vec<u8> = bgra.repeat(16);
        r.ctx
            .texture_subdata(&tex, 0, 0, PipeBox::new(0, 0, 4, 4), &data, 16, 0)
            .unwrap();
        tex
    };
    let (red, blue) = ([0, 0, 255, 255], [255, 0, 0, 255]);
    let a = solid(&mut r, red);
    let b = solid(&mut r, blue);
    let fs = fs_sample("TEX", "2D");
    let px = draw_sampled(
        &mut r,
        (8, 8),
        &fs,
        SamplerView::new(&a),
        SamplerState::default(),
        corners(0.0, 0.0, 1.0, 1.0, 0.0, 1.0),
    )
    .unwrap();
    assert_eq!(pixel(&px, 8, 3, 3), red);

    a.adopt_storage(b.bo(), b.layout().unwrap()).unwrap();
    let before = r.ctx.stats();
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLE_STRIP, 0, 4))
        .unwrap();
    let target = r.ctx.framebuffer_state().cbuf.unwrap().resource;
    let px = r.ctx.read_level(&target, 0, 0).unwrap();
    assert_eq!(
        pixel(&px, 8, 3, 3),
        blue,
        "sampled from the adopted storage"
    );
    // The new batch repacks the attribute table; the moved texture, the texture table.
    assert_eq!(
        r.ctx.stats().state_parts_packed - before.state_parts_packed,
        2
    );
}
