//! Every vertex format draws what its values mean: the model converts some itself, the CPU
//! converts the rest at draw time (vertex_translate.rs). Each is compared byte for byte with
//! the same values given as 32-bit floats, decoded by this test's own arithmetic; and the
//! model's conversions with the CPU's (`set_translate_all_vertex_formats`). Indexed draws
//! with a bias, zero strides, user data, and data past a buffer's end are covered too.

mod common;

use std::sync::Arc;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
/// The target's clear colour, B G R A.
const BLACK: [u8; 4] = [0, 0, 0, 255];
const F4: VertexFormat = VertexFormat::R32G32B32A32_FLOAT;

/// A black 32x32 target, the colour pipeline and `triangle_grid`'s positions.
fn setup() -> (Rig, Arc<Resource>, Arc<Resource>) {
    let mut r = rig();
    let (t, pos) = colour_grid(&mut r, W);
    (r, t, pos)
}

/// Position from buffer 0, colour of `fmt` from buffer 1 at `src_offset`.
fn layout(r: &mut Rig, fmt: VertexFormat, src_offset: u32) -> Arc<Vec<VertexElement>> {
    let e = vec![
        VertexElement {
            src_offset: 0,
            vertex_buffer_index: 0,
            src_format: F4,
        },
        VertexElement {
            src_offset,
            vertex_buffer_index: 1,
            src_format: fmt,
        },
    ];
    r.ctx.create_vertex_elements_state(&e).unwrap()
}

fn bind(r: &mut Rig, pos: &Arc<Resource>, colour: BufferSource, stride: u32, offset: u32) {
    let vb = |buffer, stride, buffer_offset| {
        Some(VertexBuffer {
            stride,
            buffer_offset,
            buffer,
        })
    };
    r.ctx
        .set_vertex_buffers(
            0,
            &[
                vb(BufferSource::Resource(pos.clone()), 16, 0),
                vb(colour, stride, offset),
            ],
        )
        .unwrap();
}

/// A deterministic stream of u64s (xorshift).
struct Bits(u64);
impl Bits {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// This test's decoding of one component: its own arithmetic in f64 (the library's is
/// `VertexFormat::to_f32`).
fn decode(ty: CompType, bits: u32, raw: u64) -> f64 {
    let signed = ((raw << (64 - bits)) as i64 >> (64 - bits)) as f64;
    let max_u = 2f64.powi(bits as i32) - 1.0;
    let max_s = 2f64.powi(bits as i32 - 1) - 1.0;
    match ty {
        CompType::Float if bits == 16 => {
            let (s, e, m) = ((raw >> 15) & 1, (raw >> 10) & 31, raw & 1023);
            let mag = if e == 0 {
                m as f64 * 2f64.powi(-24)
            } else {
                (1.0 + m as f64 / 1024.0) * 2f64.powi(e as i32 - 15)
            };
            if s == 1 {
                -mag
            } else {
                mag
            }
        }
        CompType::Float if bits == 32 => f64::from(f32::from_bits(raw as u32)),
        CompType::Float => f64::from_bits(raw),
        CompType::Fixed => signed / 65536.0,
        CompType::Unorm => raw as f64 / max_u,
        CompType::Snorm => (signed / max_s).max(-1.0),
        CompType::Uscaled | CompType::Uint => raw as f64,
        CompType::Sscaled | CompType::Sint => signed,
    }
}

/// A raw component whose value, as an 8-bit colour, is not near a rounding boundary (so
/// the last bit of either conversion cannot decide a pixel), and its value.
fn component(ty: CompType, bits: u32, rng: &mut Bits) -> (u64, f64) {
    loop {
        let r = rng.next();
        let raw = match (ty, bits) {
            // Values in [-0.25, 1.25]: the same for every float width.
            (CompType::Float, _) => {
                let v = (r % 1537) as f64 / 1024.0 - 0.25;
                match bits {
                    16 => u64::from(half_bits(v)),
                    32 => u64::from((v as f32).to_bits()),
                    _ => v.to_bits(),
                }
            }
            (CompType::Fixed, _) => (((r % 81920) as i64 - 8192) as u64) & 0xffff_ffff,
            // Integers: small values, some past 1 (clamped by the render target).
            (CompType::Uscaled | CompType::Uint | CompType::Sscaled | CompType::Sint, _) => {
                (r % 5).wrapping_sub(2) & (u64::MAX >> (64 - bits))
            }
            _ => r & (u64::MAX >> (64 - bits)),
        };
        let v = decode(ty, bits, raw);
        let frac = (v.clamp(0.0, 1.0) * 255.0).fract();
        if (frac - 0.5).abs() > 0.02 {
            return (raw, v);
        }
    }
}

/// The binary16 bits of `v`, a multiple of 1/1024 in [-0.25, 1.25] (exact in binary16).
fn half_bits(v: f64) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let sign = if v < 0.0 { 0x8000 } else { 0 };
    let a = v.abs();
    let e = a.log2().floor() as i32;
    let m = ((a / 2f64.powi(e) - 1.0) * 1024.0).round() as u16;
    sign | (((e + 15) as u16) << 10) | m
}

/// 16 triangles' colours (one per triangle, its three vertices alike) in `fmt`, `stride`
/// bytes apart starting at `lead` bytes: the bytes and the floats they mean, with the
/// components `fmt` lacks as (0, 0, 0, 1).
fn colours(fmt: VertexFormat, stride: usize, lead: usize, seed: u64) -> (Vec<u8>, Vec<[f32; 4]>) {
    let (ty, bits, comps) = fmt.layout();
    let mut rng = Bits(seed | 1);
    let mut data = vec![0xa5u8; lead + 48 * stride];
    let mut floats = Vec::new();
    for k in 0..16 {
        let mut el = Vec::new();
        let mut f = [0.0, 0.0, 0.0, 1.0];
        for c in f.iter_mut().take(comps as usize) {
            let (raw, v) = component(ty, bits, &mut rng);
            el.extend_from_slice(&raw.to_le_bytes()[..bits as usize / 8]);
            *c = v as f32;
        }
        if fmt == VertexFormat::B8G8R8A8_UNORM {
            f.swap(0, 2);
        }
        for v in 0..3 {
            let at = lead + (3 * k + v) * stride;
            data[at..at + el.len()].copy_from_slice(&el);
            floats.push(f);
        }
    }
    (data, floats)
}

fn f32_bytes(floats: &[[f32; 4]]) -> Vec<u8> {
    floats
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect()
}

/// The pixels of triangles `first..16` drawn with colours `data` of `fmt` (stride, offset).
fn draw(
    fmt: VertexFormat,
    data: &[u8],
    stride: u32,
    offset: u32,
    translate_all: bool,
    first: u32,
) -> Vec<u8> {
    let (mut r, t, pos) = setup();
    r.ctx.set_translate_all_vertex_formats(translate_all);
    let buf = vertex_resource(&mut r, data, data.len() as u32);
    let ve = layout(&mut r, fmt, 0);
    r.ctx.bind_vertex_elements_state(Some(&ve));
    bind(&mut r, &pos, BufferSource::Resource(buf), stride, offset);
    r.ctx
        .draw_vbo(&DrawInfo::arrays(
            PrimMode::TRIANGLES,
            3 * first,
            48 - 3 * first,
        ))
        .unwrap();
    flush_and_read(&mut r, &t).0
}

#[test]
fn every_format_draws_as_its_values_given_as_floats() {
    let mut converted = 0;
    for (i, &fmt) in VertexFormat::ALL.iter().enumerate() {
        // An odd stride and offset: the CPU reads unaligned elements.
        let stride = fmt.size_B() as usize + 3;
        let (data, floats) = colours(fmt, stride, 5, 0x9e37 + i as u64);
        // From triangle 1: the converted vertices do not start at vertex 0.
        let got = draw(fmt, &data, stride as u32, 5, false, 1);
        let want = draw(F4, &f32_bytes(&floats), 16, 0, false, 1);
        assert_eq!(got, want, "{fmt:?}");
        assert!(got.chunks(4).any(|p| p != BLACK), "{fmt:?}: nothing drawn");
        converted += usize::from(fmt.native().is_none());
    }
    assert!(converted > 30, "{converted} formats converted on the CPU");
}

#[test]
fn the_models_conversions_match_the_cpus() {
    for (i, &fmt) in VertexFormat::ALL.iter().enumerate() {
        if fmt.native().is_none() {
            continue;
        }
        // Any bits at all: the two conversions agree to the bit, not only near colours.
        let stride = fmt.size_B() as usize;
        let mut rng = Bits(0x51ed + i as u64);
        let data: Vec<u8> = (0..48 * stride).map(|_| rng.next() as u8).collect();
        let data: Vec<u8> = if fmt.layout().0 == CompType::Float {
            // Finite floats in [0, 1]: NaNs and infinities aside.
            data.chunks(4)
                .flat_map(|c| (f32::from(c[0]) / 255.0).to_le_bytes())
                .collect()
        } else {
            data
        };
        let model = draw(fmt, &data, stride as u32, 0, false, 0);
        let cpu = draw(fmt, &data, stride as u32, 0, true, 0);
        assert_eq!(model, cpu, "{fmt:?}");
    }
}

/// Draws the 16 triangles indexed (a bias and a start), with a zero-stride colour, or from
/// user data, in `fmt`; returns the pixels.
fn indexed(fmt: VertexFormat, colour: BufferSource, stride: u32, offset: u32) -> Vec<u8> {
    let (mut r, t, pos) = setup();
    let ve = layout(&mut r, fmt, 0);
    r.ctx.bind_vertex_elements_state(Some(&ve));
    bind(&mut r, &pos, colour, stride, offset);
    // Indices 10.. with a bias of -10 name vertices 6..48 (triangles 2..16), after two
    // leading indices the draw does not read.
    let idx: Vec<u8> = [999u16, 999]
        .into_iter()
        .chain((6..48u16).rev().map(|v| v + 10))
        .flat_map(u16::to_le_bytes)
        .collect();
    let ib = vertex_resource(&mut r, &idx, idx.len() as u32);
    r.ctx
        .draw_vbo(&DrawInfo {
            mode: PrimMode::TRIANGLES,
            index_size: 2,
            index: Some(BufferSource::Resource(ib)),
            start: 2,
            count: 42,
            index_bias: -10,
            min_index: 0,
            max_index: u32::MAX,
        })
        .unwrap();
    flush_and_read(&mut r, &t).0
}

#[test]
fn indexed_draws_zero_strides_and_user_data_convert_the_vertices_they_read() {
    let fmt = VertexFormat::R16G16B16A16_FLOAT;
    let (data, floats) = colours(fmt, 8, 0, 7);
    let want = draw(F4, &f32_bytes(&floats), 16, 0, false, 2);
    let (mut r, ..) = setup();
    let buf = vertex_resource(&mut r, &data, data.len() as u32);
    assert_eq!(indexed(fmt, BufferSource::Resource(buf), 8, 0), want);
    assert_eq!(
        indexed(fmt, BufferSource::User(data.clone().into()), 8, 0),
        want
    );

    // Stride 0: every vertex reads triangle 5's colour.
    let one = vec![floats[15]; 48];
    let want = draw(F4, &f32_bytes(&one), 16, 0, false, 2);
    let buf = vertex_resource(&mut r, &data, data.len() as u32);
    assert_eq!(indexed(fmt, BufferSource::Resource(buf), 0, 15 * 8), want);
}

#[test]
fn vertex_data_past_the_buffer_is_refused_and_nothing_is_drawn() {
    let fmt = VertexFormat::R8G8B8_SNORM;
    let (data, _) = colours(fmt, 3, 0, 3);
    let (mut r, t, pos) = setup();
    // One vertex short.
    let buf = vertex_resource(&mut r, &data[..47 * 3], 47 * 3);
    let ve = layout(&mut r, fmt, 0);
    r.ctx.bind_vertex_elements_state(Some(&ve));
    bind(&mut r, &pos, BufferSource::Resource(buf), 3, 0);
    let e = r
        .ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 48))
        .unwrap_err();
    assert!(matches!(e, PipeError::InvalidArgument(_)), "{e}");
    // The draw before the last vertex still draws, as from a buffer that holds them all.
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 45))
        .unwrap();
    let (px, stats) = flush_and_read(&mut r, &t);
    assert_eq!(stats.draws, 1);
    let (mut r, t, pos) = setup();
    let buf = vertex_resource(&mut r, &data, 48 * 3);
    let ve = layout(&mut r, fmt, 0);
    r.ctx.bind_vertex_elements_state(Some(&ve));
    bind(&mut r, &pos, BufferSource::Resource(buf), 3, 0);
    r.ctx
        .draw_vbo(&DrawInfo::arrays(PrimMode::TRIANGLES, 0, 45))
        .unwrap();
    assert_eq!(px, flush_and_read(&mut r, &t).0);
}
