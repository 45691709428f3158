//! Tiles no primitive touches (`Tile::bg_only`, stored by `Target::store_bg`: the background
//! encoded once, no tile copy) against the reference on whole renders: every 8-bit and a
//! 16-bit target format, linear and twiddled, a target whose clip cuts tiles short, tiles
//! that load their colour (which take the general path) beside ones that do not, and a
//! target running past its buffer (the fault and the bytes before it). The untouched pixels
//! are also checked against the background encoded by hand.

use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::render::TileCtrl;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::Format;

use super::{check, rect};
use crate::kit::*;
use crate::{JobStatus, Perm};

/// A w x h target of `format` and `layout` (linear rows `stride_of` apart; twiddled of log2
/// size `l2`) in a buffer of `len_B` bytes filled with 0x5a, cleared to `bg`, with one small
/// rectangle at (x, y) drawn in its vertex colour, and the tile control `ctrl` when given.
struct Setup {
    format: Format,
    layout: MemLayout,
    w: u32,
    h: u32,
    bg: [f32; 4],
    ctrl: Option<Vec<u8>>,
    len_B: usize,
}

fn scene(su: &Setup, s: &mut Scene) -> super::Built {
    // Rows 32-byte aligned with 32 spare bytes each, which must keep their 0x5a.
    let stride_B = stride_of(su);
    let m = Mem::filled(su.len_B, 0x5a);
    let va = s.alloc_with(m.clone(), Perm::RW);
    let mut rd = RenderDesc::linear(va, su.w, su.h, stride_B);
    rd.pbe.format = su.format;
    if su.layout == MemLayout::TWIDDLED {
        let l2 = su.w.max(su.h).next_power_of_two().trailing_zeros();
        rd.pbe = PbeState {
            layout: MemLayout::TWIDDLED,
            log2_w: l2,
            log2_h: l2,
            stride_B: 0,
            ..rd.pbe
        };
    }
    rd.bg = su.bg;
    rd.tile_ctrl = su.ctrl.clone();
    let (w, h) = (su.w as f32, su.h as f32);
    let d = DrawDesc::new(
        Topology::TRIANGLES,
        &rect(
            (17.0, 3.0, 29.0, 13.0),
            (0.25, 0.75, 0.5, 1.0),
            w,
            h,
            0.5,
            1.0,
        ),
        words(&[emitpix(pa(0)), end()]),
        viewport(w, h),
    );
    (vec![build(s, &rd, &[d])], vec![m])
}

fn stride_of(su: &Setup) -> u32 {
    (su.w * su.format.info().bytes_per_el).div_ceil(32) * 32 + 32
}

fn tile_ctrl(colour_load: bool) -> u8 {
    let w = TileCtrl {
        colour_load,
        colour_store: true,
        ..TileCtrl::default()
    }
    .pack()
    .expect("a TileCtrl packs (invariant of the test)")[0];
    w as u8
}

#[test]
fn untouched_tiles_store_the_background() {
    let bg = [0.2, 0.6, 1.0, 0.35];
    let formats = [
        Format::B8G8R8A8_UNORM,
        Format::R8G8B8A8_UNORM,
        Format::B8G8R8X8_UNORM,
        Format::B5G6R5_UNORM,
    ];
    for format in formats {
        let bpe = format.info().bytes_per_el as usize;
        // 53 x 37: partial last tiles in both directions, 4 x 3 tiles.
        let (w, h) = (53u32, 37u32);
        for layout in [MemLayout::LINEAR, MemLayout::TWIDDLED] {
            if layout == MemLayout::TWIDDLED && !format.info().twiddlable {
                continue;
            }
            let len_B = 64 * 64 * bpe;
            // Every tile stores; the tiles of the middle column also load their colour.
            let ctrl: Vec<u8> = (0..12).map(|t| tile_ctrl(t % 4 == 2)).collect();
            for ctrl in [None, Some(ctrl)] {
                let su = Setup {
                    format,
                    layout,
                    w,
                    h,
                    bg,
                    ctrl: ctrl.clone(),
                    len_B,
                };
                let name = format!("{format:?} {layout:?} ctrl {}", ctrl.is_some());
                let r = check(&name, |s| scene(&su, s));
                assert!(
                    matches!(r[0].status, JobStatus::Done),
                    "{name}: {:?}",
                    r[0].status
                );
                assert_eq!(r[0].counters.tiles_stored, 12, "{name}");
                // The last pixel (52, 36) lies in an untouched tile that loads nothing: it
                // holds the background as the encoder makes it.
                let mut s = Scene::new();
                let (jobs, bufs) = scene(&su, &mut s);
                s.gpu.run(&jobs[0]);
                let off = if layout == MemLayout::LINEAR {
                    36 * stride_of(&su) as usize + 52 * bpe
                } else {
                    crate::tsp::twiddle(52, 36, 6, 6) as usize * bpe
                };
                let want = crate::pbe::Encoder::new(format).encode(bg).to_le_bytes();
                assert_eq!(bufs[0].bytes()[off..off + bpe], want[..bpe], "{name}");
            }
        }
    }
}

#[test]
fn an_untouched_tile_past_the_buffer_faults_alike() {
    // A linear 64 x 64 BGRA8 target in 5000 bytes, mapped as two pages: rows past 32 fault,
    // first in tile (0, 2), which no primitive touches (the rectangle lies in tile (1, 0));
    // the bytes before the fault land alike.
    for bg in [[0.2, 0.6, 1.0, 0.35], [f32::NAN, -1.0, 2.0, 0.5]] {
        let su = Setup {
            format: Format::B8G8R8A8_UNORM,
            layout: MemLayout::LINEAR,
            w: 64,
            h: 64,
            bg,
            ctrl: None,
            len_B: 5000,
        };
        let r = check("untouched tile fault", |s| scene(&su, s));
        assert!(
            matches!(r[0].status, JobStatus::Fault(_)),
            "{:?}",
            r[0].status
        );
    }
}
