//! The GL 1.2-2.1 texture features the caps claim, end to end on the model: border clamp,
//! sRGB decode, depth textures rendered by the GPU and sampled with and without shadow
//! compare, 1D and 3D textures. Expected pixels are computed here, independently of the sim.

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

fn texture(r: &Rig, t: ResourceTemplate) -> Arc<Resource> {
    r.screen.resource_create(&t).unwrap()
}

fn upload(r: &mut Rig, tex: &Arc<Resource>, bytes: &[u8]) {
    let (w, h) = (tex.width(), tex.height());
    let bpe = tex.format().info().bytes_per_el as usize;
    r.ctx
        .texture_subdata(
            tex,
            0,
            0,
            PipeBox::new(0, 0, w, h),
            bytes,
            w as usize * bpe,
            0,
        )
        .unwrap();
}

fn unorm8(f: f64) -> u8 {
    (f.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The texel a NEAREST sample at texture coordinate `u` (one axis) of `n` texels reads,
/// or None outside the texture (where CLAMP_TO_BORDER reads the border).
fn nearest(u: f32, n: u32) -> Option<u32> {
    let i = (u * n as f32).floor();
    (0.0..n as f32).contains(&i).then_some(i as u32)
}

#[test]
fn the_screen_offers_mesa_gl_2_1_with_glsl_1_20_and_gles_2_0() {
    let r = rig();
    let v = r.screen.mesa_versions();
    assert_eq!(
        (v.gl, v.glsl, v.gles, v.missing.len()),
        (21, 120, 20, 0),
        "{v:?}"
    );
}

#[test]
fn clamp_to_border_reads_the_border_colour_outside_the_texture() {
    let mut r = rig();
    let tex = texture(
        &r,
        ResourceTemplate::texture_2d(Format::B8G8R8A8_UNORM, 4, 4, 0, bind::SAMPLER_VIEW),
    );
    let texels: Vec<u8> = (0..16u8)
        .flat_map(|i| [i * 16, 255 - i * 16, i, 255])
        .collect();
    upload(&mut r, &tex, &texels);
    let sampler = SamplerState {
        wrap_s: AddrMode::CLAMP_TO_BORDER,
        wrap_t: AddrMode::CLAMP_TO_BORDER,
        // 0.2, 0.4, 0.6, 0.8 are 51, 102, 153 and 204 exactly.
        border_color: [0.2, 0.4, 0.6, 0.8],
        ..Default::default()
    };
    let px = draw_sampled(
        &mut r,
        (16, 16),
        &fs_sample("TEX", "2D"),
        SamplerView::new(&tex),
        sampler,
        corners(-0.5, -0.5, 1.5, 1.5, 0.0, 1.0),
    )
    .unwrap();
    let border_bgra = [153, 102, 51, 204];
    for y in 0..16 {
        for x in 0..16 {
            let at = |p: u32| -0.5 + 2.0 * (p as f32 + 0.5) / 16.0;
            let want = match (nearest(at(x), 4), nearest(at(y), 4)) {
                (Some(i), Some(j)) => {
                    let k = ((j * 4 + i) * 4) as usize;
                    [texels[k], texels[k + 1], texels[k + 2], texels[k + 3]]
                }
                _ => border_bgra,
            };
            assert_eq!(pixel(&px, 16, x, y), want, "({x},{y})");
        }
    }
}

fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn srgb_texels_are_decoded_before_sampling_and_alpha_is_not() {
    let mut r = rig();
    let tex = texture(
        &r,
        ResourceTemplate::texture_2d(Format::B8G8R8A8_SRGB, 16, 16, 0, bind::SAMPLER_VIEW),
    );
    // Every byte value once in each of B, G (reversed), R (rotated) and A.
    let texels: Vec<u8> = (0..=255u8)
        .flat_map(|i| [i, 255 - i, i.wrapping_add(85), i])
        .collect();
    upload(&mut r, &tex, &texels);
    let tc = corners(0.0, 0.0, 1.0, 1.0, 0.0, 1.0);
    let px = draw_sampled(
        &mut r,
        (16, 16),
        &fs_sample("TEX", "2D"),
        SamplerView::new(&tex),
        SamplerState::default(),
        tc,
    )
    .unwrap();
    for (i, t) in texels.chunks(4).enumerate() {
        let dec = |b: u8| unorm8(srgb_to_linear(f64::from(b) / 255.0));
        let want = [dec(t[0]), dec(t[1]), dec(t[2]), t[3]];
        assert_eq!(&px[i * 4..i * 4 + 4], want, "texel {i}: {t:?}");
    }
    // Through a UNORM view of the same bytes nothing is decoded.
    let mut view = SamplerView::new(&tex);
    view.format = Format::B8G8R8A8_UNORM;
    let px = draw_sampled(
        &mut r,
        (16, 16),
        &fs_sample("TEX", "2D"),
        view,
        SamplerState::default(),
        tc,
    )
    .unwrap();
    assert_eq!(px, texels);
}

/// A 16x16 Z24S8 depth texture drawn by the GPU: depth 0.25 on the left half, 0.75 on the
/// right, stencil 0xA5 everywhere (which sampling must ignore).
fn rendered_depth(r: &mut Rig) -> Arc<Resource> {
    let z = texture(
        r,
        ResourceTemplate::texture_2d(
            Format::Z24_UNORM_S8_UINT,
            16,
            16,
            0,
            bind::DEPTH_STENCIL | bind::SAMPLER_VIEW,
        ),
    );
    let c = target(r, Format::B8G8R8A8_UNORM, 16, 16);
    bind_const(r, &fb(&c, Some(&z)));
    bind_depth(r, CompareFunc::ALWAYS);
    let all = clear_flags::COLOR0 | clear_flags::DEPTH | clear_flags::STENCIL;
    r.ctx.clear(all, [0.0; 4], 1.0, 0xA5).unwrap();
    set_colour(r, [1.0; 4]);
    // NDC z -0.5 and 0.5: the viewport maps NDC [-1, 1] to depth [0, 1].
    rect(r, 0, 0, 8, 16, -0.5);
    rect(r, 8, 0, 16, 16, 0.5);
    r.ctx.bind_depth_stencil_alpha_state(None);
    z
}

#[test]
fn a_depth_texture_the_gpu_rendered_samples_as_its_depth() {
    let mut r = rig();
    let z = rendered_depth(&mut r);
    let px = draw_sampled(
        &mut r,
        (16, 16),
        &fs_sample("TEX", "2D"),
        SamplerView::new(&z),
        SamplerState::default(),
        corners(0.0, 0.0, 1.0, 1.0, 0.0, 1.0),
    )
    .unwrap();
    // z = 0.25 and 0.75 stored in 24 bits read back as 64 and 191 (63.75, 191.25).
    assert_eq!(pixel(&px, 16, 3, 5), [64, 64, 64, 255]);
    assert_eq!(pixel(&px, 16, 12, 5), [191, 191, 191, 255]);
}

#[test]
fn shadow_compare_passes_where_the_reference_meets_the_stored_depth() {
    let cases = [
        // (func, reference, left (depth 0.25), right (depth 0.75))
        (CompareFunc::LEQUAL, 0.5, 0, 255),
        (CompareFunc::GREATER, 0.5, 255, 0),
        (CompareFunc::ALWAYS, 0.5, 255, 255),
        (CompareFunc::NEVER, 0.5, 0, 0),
        (CompareFunc::LESS, 0.1, 255, 255),
        // The reference is clamped to [0, 1]: 1.5 acts as 1.0.
        (CompareFunc::GEQUAL, 1.5, 255, 255),
    ];
    let mut r = rig();
    let z = rendered_depth(&mut r);
    for (func, reference, left, right) in cases {
        for op in ["TEX", "TXP"] {
            // TXP divides by q = 2, so the projected coordinates are given doubled.
            let q = if op == "TXP" { 2.0 } else { 1.0 };
            let sampler = SamplerState {
                compare_mode: true,
                compare_func: func,
                ..Default::default()
            };
            let px = draw_sampled(
                &mut r,
                (16, 16),
                &fs_sample(op, "SHADOW2D"),
                SamplerView::new(&z),
                sampler,
                corners(0.0, 0.0, q, q, reference * q, q),
            )
            .unwrap();
            let what = format!("{func:?} {reference} {op}");
            assert_eq!(pixel(&px, 16, 3, 5), [left, left, left, 255], "{what}");
            assert_eq!(pixel(&px, 16, 12, 5), [right, right, right, 255], "{what}");
        }
    }
}

#[test]
fn a_view_of_another_target_than_the_shader_samples_is_refused() {
    let mut r = rig();
    let tex = texture(
        &r,
        ResourceTemplate::cube(Format::B8G8R8A8_UNORM, 4, 0, bind::SAMPLER_VIEW),
    );
    let err = draw_sampled(
        &mut r,
        (16, 16),
        &fs_sample("TEX", "2D"),
        SamplerView::new(&tex),
        SamplerState::default(),
        corners(0.0, 0.0, 1.0, 1.0, 0.0, 1.0),
    )
    .unwrap_err();
    assert!(matches!(err, PipeError::InvalidArgument(_)), "{err}");
}

#[test]
fn a_1d_texture_samples_by_s_alone() {
    let mut r = rig();
    let tex = texture(
        &r,
        ResourceTemplate::texture_1d(Format::B8G8R8A8_UNORM, 8, 0, bind::SAMPLER_VIEW),
    );
    let texels = (0..32u8).map(|i| i.wrapping_mul(29)).collect::<Vec<_>>();
    upload(&mut r, &tex, &texels);
    // t and r vary over the quad and must not matter: the compiler samples at y = 0.5.
    let sampler = SamplerState {
        wrap_t: AddrMode::CLAMP_TO_BORDER,
        min_img_filter: Filter::LINEAR,
        mag_img_filter: Filter::NEAREST,
        border_color: [1.0; 4],
        ..Default::default()
    };
    let px = draw_sampled(
        &mut r,
        (8, 4),
        &fs_sample("TEX", "1D"),
        SamplerView::new(&tex),
        sampler,
        corners(0.0, -3.0, 1.0, 7.0, 0.9, 1.0),
    )
    .unwrap();
    for row in px.chunks(32) {
        assert_eq!(row, texels);
    }
    // A 1D texture of height 2 is refused.
    let mut t = ResourceTemplate::texture_1d(Format::B8G8R8A8_UNORM, 8, 0, bind::SAMPLER_VIEW);
    t.height = 2;
    assert!(r.screen.resource_create(&t).is_err());
}

/// st/mesa creates sRGB textures with RENDER_TARGET when their linear twin renders, and draws
/// into them through linear surfaces (the screen offers no sRGB rendering): the texture is
/// created, the format rule still says sRGB does not render, and a draw writes its colour
/// unencoded, byte for byte, leaving the pixels outside it as they were.
#[test]
fn an_srgb_texture_renders_through_its_linear_twin_unencoded() {
    let mut r = rig();
    let rt_sv = bind::RENDER_TARGET | bind::SAMPLER_VIEW;
    assert!(!r.screen.is_format_supported(
        Format::B8G8R8A8_SRGB,
        ResourceTarget::Texture2D,
        rt_sv,
        0
    ));
    assert_eq!(render_format(Format::B8G8R8A8_SRGB), Format::B8G8R8A8_UNORM);
    let tex = texture(
        &r,
        ResourceTemplate::texture_2d(Format::B8G8R8A8_SRGB, 16, 16, 0, rt_sv),
    );
    let before: Vec<u8> = (0..16 * 16 * 4).map(|i| (i * 7 % 251) as u8).collect();
    upload(&mut r, &tex, &before);
    bind_const(&mut r, &fb(&tex, None));
    // 0.5 encoded would be 188; unencoded it is 128 (B G R A bytes).
    set_colour(&mut r, [0.5, 0.25, 1.0, 0.5]);
    rect(&mut r, 4, 4, 12, 8, 0.0);
    let got = r.ctx.read_level(&tex, 0, 0).unwrap();
    for y in 0..16 {
        for x in 0..16 {
            let want = if (4..12).contains(&x) && (4..8).contains(&y) {
                [255, 64, 128, 128]
            } else {
                pixel(&before, 16, x, y)
            };
            assert_eq!(pixel(&got, 16, x, y), want, "pixel {x},{y}");
        }
    }
}

#[test]
fn an_srgb_render_target_needs_a_renderable_linear_twin_and_a_sampleable_srgb() {
    let r = rig();
    // A depth binding is no speculative colour binding: still refused.
    let t = ResourceTemplate::texture_2d(
        Format::B8G8R8A8_SRGB,
        16,
        16,
        0,
        bind::RENDER_TARGET | bind::DEPTH_STENCIL,
    );
    assert!(matches!(
        r.screen.resource_create(&t),
        Err(PipeError::UnsupportedFormat { .. })
    ));
}
