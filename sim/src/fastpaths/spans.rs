//! The span path (`tsp/fast/span.rs`) against the reference on whole renders: tile-covering
//! rectangles it shades whole, and random triangles it meets in part.

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, TexState};
use sgx_hwdocs::tsp::Interp;
use sgx_hwdocs::usse::Opcode;
use sgx_hwdocs::Format;

use super::{
    all_done, chain_bytes, check, random_texture, rect, swizzle_b1r0, target, textured, TEX_FS,
};
use crate::kit::*;

#[test]
fn span_path_scenes() {
    // Rectangles covering whole tiles with nothing tested or blended: the span path shades
    // their inner windows (every 8-bit RGBA kind, both layouts, odd texture sizes, every
    // wrap mode, a swizzle, each interpolation, perspective, coordinates far outside [0, 1]
    // that the span's packed footprints refuse), on an odd target whose last tiles are
    // partial; a window also ends mid-span (widths not a multiple of 8).
    let formats = [
        Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_UNORM,
        Format::B8G8R8X8_UNORM,
    ];
    let wraps = [
        (AddrMode::CLAMP_TO_EDGE, AddrMode::CLAMP_TO_EDGE),
        (AddrMode::REPEAT, AddrMode::MIRRORED_REPEAT),
        (AddrMode::MIRRORED_REPEAT, AddrMode::REPEAT),
    ];
    let interps = [Interp::PERSPECTIVE, Interp::LINEAR, Interp::FLAT];
    let span_px = crate::raster::SPAN_SHADED_PX.with(|c| c.get());
    for (n, &f) in formats.iter().enumerate() {
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            let name = format!("span {f:?} {layout:?}");
            let r = check(&name, |s| {
                let mut rng = Rng(0x5ba7_0000 ^ f.raw() ^ u32::from(layout == MemLayout::TWIDDLED));
                let (tw, th) = match layout {
                    MemLayout::TWIDDLED => (32, 8),
                    _ => (23, 17),
                };
                let (rd, fb) = target(s, 75, 53);
                let mut draws = Vec::new();
                let mut bufs = vec![fb];
                for (k, &(ws, wt)) in wraps.iter().enumerate() {
                    let mut st = TexState {
                        format: f,
                        layout,
                        width_m1: tw - 1,
                        height_m1: th - 1,
                        min_filter: Filter::LINEAR,
                        mag_filter: Filter::LINEAR,
                        wrap_s: ws,
                        wrap_t: wt,
                        ..TexState::default()
                    };
                    if (k + n) % 3 == 1 {
                        swizzle_b1r0(&mut st);
                    }
                    let size_B = chain_bytes(&st);
                    bufs.push(random_texture(s, &mut rng, &mut st, size_B));
                    // Three rectangles, overlapping, each over several whole tiles, two with
                    // windows 4 and 6 pixels wide at their left; the last reaches 2^23 texels
                    // out and beyond.
                    let (x0, y0) = ([0.0, 12.0, 10.0][k], [0.0, 4.0, 18.0][k]);
                    let uv = [
                        (-0.2, -0.1, 1.3, 1.2),
                        (0.1, 0.9, 2.7, -1.4),
                        (-40.0, 3.0, 4.0e5, -2.5),
                    ][k];
                    let verts = rect(
                        (x0, y0, 75.0, 53.0),
                        uv,
                        75.0,
                        53.0,
                        0.5,
                        [1.0, 2.5, 1.3][k],
                    );
                    let mut d = textured(
                        Topology::TRIANGLES,
                        &verts,
                        TEX_FS(Opcode::TEX),
                        (75.0, 53.0),
                        st,
                    );
                    d.tsp.v0_interp = interps[(k + n) % 3];
                    draws.push(d);
                }
                // The first rectangle again, polygon-stippled: a stipple drops pixels, so its
                // windows must leave the span path (which has no stipple) to the quad loop.
                let mut stippled = draws[0].clone();
                stippled.prim.poly_stipple = true;
                for (y, row) in stippled.poly_stipple.iter_mut().enumerate() {
                    *row = 0x9c3a_61f5u32.rotate_left(y as u32 * 5);
                }
                draws.push(stippled);
                (vec![build(s, &rd, &draws)], bufs)
            });
            all_done(&name, &r);
        }
    }
    // The scenes took the span path (counted on this thread, where one-thread runs shade).
    let taken = crate::raster::SPAN_SHADED_PX.with(|c| c.get()) - span_px;
    assert!(
        taken > 6 * 3 * 16 * 16,
        "{taken} pixels through the span path"
    );
}

#[test]
fn span_path_random_triangles() {
    // Random textured triangles, most smaller than a tile, so the span path meets windows it
    // covers in part: vertices on a half-pixel grid (pixel centres on edges, the top-left
    // rule), fans sharing edges, a few huge triangles (vertices too far out for the span), and
    // windows cut by the odd target's last tiles.
    let r = check("span random", |s| {
        let mut rng = Rng(0x0dd5_ba11);
        let (w, h) = (53.0, 41.0);
        let (rd, fb) = target(s, 53, 41);
        let mut st = TexState {
            layout: MemLayout::TWIDDLED,
            width_m1: 15,
            height_m1: 31,
            min_filter: Filter::LINEAR,
            mag_filter: Filter::LINEAR,
            wrap_s: AddrMode::REPEAT,
            wrap_t: AddrMode::MIRRORED_REPEAT,
            ..TexState::default()
        };
        let size_B = chain_bytes(&st);
        let m = random_texture(s, &mut rng, &mut st, size_B);
        let mut verts = Vec::new();
        // A vertex within `spread` of (cx, cy), on the half-pixel grid.
        let vert = |rng: &mut Rng, (cx, cy): (f32, f32), spread: f32| {
            let x = ((cx + rng.f(-spread, spread)) * 2.0).round() / 2.0;
            let y = ((cy + rng.f(-spread, spread)) * 2.0).round() / 2.0;
            let c = [rng.f(-1.0, 2.0), rng.f(-1.0, 2.0), 0.0, 1.0];
            (clip_xy(x, y, w, h, 0.5), c)
        };
        for k in 0..80 {
            let spread = if k % 20 == 19 { 1e6 } else { 12.0 };
            let at = (rng.f(0.0, w), rng.f(0.0, h));
            let centre = vert(&mut rng, at, 0.0);
            let (a, b) = (vert(&mut rng, at, spread), vert(&mut rng, at, spread));
            // A fan around the centre: the second triangle shares an edge with the first.
            let c = vert(&mut rng, at, spread);
            verts.extend([centre, a, b, centre, b, c]);
        }
        let d = textured(Topology::TRIANGLES, &verts, TEX_FS(Opcode::TEX), (w, h), st);
        (vec![build(s, &rd, &[d])], vec![fb, m])
    });
    all_done("span random", &r);
}
