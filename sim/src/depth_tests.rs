//! Renders that show the ISP testing depth at the depth buffer's precision (MODEL:
//! `crate::depth`), on every depth format and without a depth buffer, each on the fast and
//! on the reference paths: a surface redrawn at the depth it wrote compares equal whether
//! that depth stayed on chip or went through memory; a surface at the cleared depth compares
//! equal to it; depths less than half a buffer step apart compare equal, more than half do not.

use std::sync::Arc;

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::Format;

use crate::kit::*;
use crate::{JobStatus, Perm};

const W: u32 = 40;
const H: u32 = 24;
/// 3 x 2 tiles of 16 pixels (hwdocs limits: TILE_W_PX) cover the target.
const TILES: usize = 6;
/// Tile control bytes (hwdocs render.json TileCtrl): store colour and depth; load and store.
const STORE: u8 = 0b1010;
const LOAD_STORE: u8 = 0b1111;

const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
/// The same colours as the B8G8R8A8 target stores them.
const RED_PX: [u8; 4] = [0, 0, 255, 255];
const GREEN_PX: [u8; 4] = [0, 255, 0, 255];

/// Depth buffers: format, bytes per element, largest depth code (2^bits - 1, from the
/// formats' bit counts); None is no depth buffer (the tile keeps f32 depth).
const BUFFERS: [Option<(Format, u32, u32)>; 3] = [
    None,
    Some((Format::Z16_UNORM, 2, 65_535)),
    Some((Format::Z24_UNORM_S8_UINT, 4, 16_777_215)),
];

struct Rig {
    s: Scene,
    rd: RenderDesc,
    fb: Arc<Mem>,
    zb: Option<Arc<Mem>>,
}

fn rig(buf: Option<(Format, u32, u32)>, reference: bool) -> Rig {
    let mut s = Scene::new();
    s.gpu.set_reference_paths(reference);
    let fb = Mem::filled((W * H * 4) as usize, 0x33);
    let va = s.alloc_with(fb.clone(), Perm::RW);
    let mut rd = RenderDesc::linear(va, W, H, W * 4);
    let zb = buf.map(|(f, bpe, _)| {
        let zb = Mem::filled((W * H * bpe) as usize, 0x77);
        let zva = s.alloc_with(zb.clone(), Perm::RW);
        rd.zls = Some((f, zva, W * bpe));
        zb
    });
    Rig { s, rd, fb, zb }
}

impl Rig {
    fn render(&mut self, ctrl: u8, draws: &[DrawDesc]) {
        self.rd.tile_ctrl = Some(vec![ctrl; TILES]);
        let r = self.s.render(&self.rd, draws);
        assert_eq!(r.status, JobStatus::Done);
    }

    /// Every pixel is `want`, or the test fails naming the first few that are not.
    fn all(&self, want: [u8; 4], what: &str) {
        let b = self.fb.bytes();
        let off: Vec<(usize, usize)> = (0..(W * H) as usize)
            .filter(|i| b[4 * i..4 * i + 4] != want)
            .map(|i| (i % W as usize, i / W as usize))
            .collect();
        assert!(
            off.is_empty(),
            "{what}: {} pixels are not {want:?}, first {:?}",
            off.len(),
            &off[..off.len().min(8)]
        );
    }

    /// The depth codes the buffer holds.
    fn codes(&self, bpe: u32) -> Vec<u32> {
        let b = self.zb.as_ref().expect("a depth buffer").bytes();
        b.chunks(bpe as usize)
            .map(|e| {
                let mut v = [0u8; 4];
                v[..e.len()].copy_from_slice(e);
                u32::from_le_bytes(v) & if bpe == 2 { 0xffff } else { 0xff_ffff }
            })
            .collect()
    }
}

/// Two triangles over the whole target, corners off the pixel grid and past its edges (so
/// the barycentric weights are not simple fractions). `depth`: the window depth of each
/// corner (top-left, top-right, bottom-left, bottom-right), through the viewport's z
/// mapping; `flat`: one exact window depth instead (viewport z scale 0, offset `flat`).
fn surface(depth: [f32; 4], flat: Option<f32>, c: [f32; 4], func: CompareFunc) -> DrawDesc {
    let (w, h) = (W as f32, H as f32);
    let corners = [
        (-3.3, -2.7),
        (w + 3.1, -1.9),
        (-2.9, h + 3.3),
        (w + 2.7, h + 1.9),
    ];
    let v = |k: usize| {
        let (x, y) = corners[k];
        (clip_xy(x, y, w, h, depth[k] * 2.0 - 1.0), [0.0; 4])
    };
    let mut d = DrawDesc::new(
        Topology::TRIANGLES,
        &[v(0), v(1), v(2), v(1), v(3), v(2)],
        words(&[emitpix(sa(0)), end()]),
        viewport(w, h),
    );
    if let Some(z) = flat {
        d.vp.scale_z = 0.0;
        d.vp.trans_z = z;
    }
    d.fs_consts = vec![fv(c)];
    d.isp.depth_test = true;
    d.isp.depth_write = true;
    d.isp.depth_func = func;
    d
}

/// Sloped and flat surfaces, the flat ones on rounding edges of both unorm formats (0.5 is
/// halfway between two codes of each).
const SURFACES: [([f32; 4], Option<f32>); 4] = [
    ([0.2, 0.9, 0.45, 0.7], None),
    ([0.51, 0.49, 0.5, 0.505], None),
    ([0.0; 4], Some(0.5)),
    ([0.0; 4], Some(0.333_333_34)),
];

#[test]
fn a_surface_redrawn_at_its_depth_compares_as_written_on_chip() {
    for buf in BUFFERS {
        for reference in [false, true] {
            for (depth, flat) in SURFACES {
                let name = format!("{buf:?} reference {reference} {depth:?} {flat:?}");
                let mut r = rig(buf, reference);
                r.render(
                    STORE,
                    &[
                        surface(depth, flat, RED, CompareFunc::ALWAYS),
                        surface(depth, flat, GREEN, CompareFunc::LESS),
                    ],
                );
                r.all(RED_PX, &format!("{name}: LESS redraw"));
                r.render(
                    STORE,
                    &[
                        surface(depth, flat, RED, CompareFunc::ALWAYS),
                        surface(depth, flat, GREEN, CompareFunc::EQUAL),
                    ],
                );
                r.all(GREEN_PX, &format!("{name}: EQUAL redraw"));
            }
        }
    }
}

/// The same across renders: the second render loads what the first stored (the case the
/// unquantised f32 compare got wrong: gl-2.0-two-sided-stencil's GL_LESS redraw at 0.5).
#[test]
fn a_surface_redrawn_at_its_depth_compares_as_written_through_memory() {
    for buf in BUFFERS.into_iter().flatten() {
        for reference in [false, true] {
            for (depth, flat) in SURFACES {
                let name = format!("{buf:?} reference {reference} {depth:?} {flat:?}");
                let mut r = rig(Some(buf), reference);
                r.render(STORE, &[surface(depth, flat, RED, CompareFunc::ALWAYS)]);
                let written = r.codes(buf.1);
                r.render(
                    LOAD_STORE,
                    &[surface(depth, flat, GREEN, CompareFunc::LESS)],
                );
                r.all(RED_PX, &format!("{name}: LESS redraw"));
                assert_eq!(r.codes(buf.1), written, "{name}: depth kept");
                r.render(
                    LOAD_STORE,
                    &[surface(depth, flat, GREEN, CompareFunc::EQUAL)],
                );
                r.all(GREEN_PX, &format!("{name}: EQUAL redraw"));
                r.render(
                    LOAD_STORE,
                    &[surface(depth, flat, RED, CompareFunc::GREATER)],
                );
                r.all(GREEN_PX, &format!("{name}: GREATER redraw"));
            }
        }
    }
}

/// piglit's depthstencil-default_fb-clear: a surface at the depth the buffer was cleared to
/// passes GL_EQUAL at every pixel, and the cleared depth is stored as its nearest code.
#[test]
fn a_surface_at_the_cleared_depth_passes_equal() {
    for buf in BUFFERS {
        for reference in [false, true] {
            for d in [0.5f32, 0.25, 0.75, 0.507_812_5, 0.1, 0.333_333_34, 1.0, 0.0] {
                let name = format!("{buf:?} reference {reference} depth {d}");
                let mut r = rig(buf, reference);
                r.rd.bg_depth = d;
                let mut s = surface([0.0; 4], Some(d), GREEN, CompareFunc::EQUAL);
                s.isp.depth_write = false;
                r.render(STORE, &[s]);
                r.all(GREEN_PX, &name);
                if let Some((_, bpe, max)) = buf {
                    let want = (f64::from(d) * f64::from(max)).round() as u32;
                    assert!(r.codes(bpe).iter().all(|&c| c == want), "{name}: stored");
                }
            }
        }
    }
}

/// Around a code c of each unorm buffer (cleared to c / max), depths c + f steps away:
/// within half a step (f = +-0.4) they are c and compare equal; past it (f = +-0.6) they are
/// the next code and compare less or greater, and a write stores that code. Without a depth
/// buffer even 0.4 of a Z16 step compares unequal.
#[test]
fn depths_less_than_half_a_step_apart_compare_equal() {
    for buf in BUFFERS {
        let max = buf.map_or(65_535, |b| b.2);
        let c = max / 3;
        for reference in [false, true] {
            for f in [-0.6f64, -0.4, 0.4, 0.6] {
                let clear = (f64::from(c) / f64::from(max)) as f32;
                let z = ((f64::from(c) + f) / f64::from(max)) as f32;
                let name = format!("{buf:?} reference {reference} code {c} {f:+}");
                let same = buf.is_some() && f.abs() < 0.5;
                for (func, passes) in [
                    (CompareFunc::EQUAL, same),
                    (CompareFunc::LESS, !same && f < 0.0),
                    (CompareFunc::GREATER, !same && f > 0.0),
                ] {
                    let mut r = rig(buf, reference);
                    r.rd.bg_depth = clear;
                    r.render(STORE, &[surface([0.0; 4], Some(z), GREEN, func)]);
                    let want = if passes { GREEN_PX } else { [0, 0, 0, 0] };
                    r.all(want, &format!("{name} {func:?}"));
                    if let Some((_, bpe, _)) = buf {
                        let step = if same { 0 } else { f.signum() as i64 };
                        let code = if passes { c as i64 + step } else { c as i64 } as u32;
                        assert!(r.codes(bpe).iter().all(|&k| k == code), "{name} {func:?}");
                    }
                }
            }
        }
    }
}
