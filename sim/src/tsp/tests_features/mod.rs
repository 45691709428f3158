//! The sampler's GL 2.1 features on whole renders, against slow CPU models written here from
//! the TexState docs (not from the sampler's code): volumes, CLAMP_TO_BORDER, shadow compare,
//! sRGB and depth decode. Every probe is one pixel: a flat-shaded square whose varying 0 is the
//! coordinate; each scene runs on the reference and the fast paths, which must agree byte for
//! byte, and the pixels must equal the model's.

mod border;
mod decode;
mod lod_clamp;
mod rho;
mod shadow;
mod unnormalized;
mod vertex;
mod volume;

use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::ta_stream::Topology;
use sgx_hwdocs::texture::{AddrMode, Filter, TexState};
use sgx_hwdocs::tsp::Interp;
use sgx_hwdocs::usse::Opcode;

use crate::kit::*;
use crate::{JobStatus, Perm};

/// Probes sharing explicit derivatives (TEXD) or none (the op's own LOD).
pub(super) struct Group {
    pub coords: Vec<[f32; 4]>,
    /// d/dx and d/dy for TEXD.
    pub grads: Option<([f32; 4], [f32; 4])>,
}

impl Group {
    /// Probes at `coords` with the op's own LOD (no explicit derivatives).
    pub(super) fn plain(coords: Vec<[f32; 4]>) -> Group {
        Group {
            coords,
            grads: None,
        }
    }
}

/// The round-to-nearest unorm8 the PBE stores (NaN as 0).
pub(super) fn unorm8(x: f32) -> u8 {
    let x = if x >= 1.0 {
        1.0
    } else if x > 0.0 {
        x
    } else {
        0.0
    };
    (x * 255.0 + 0.5) as u8
}

pub(super) fn bytes_of(c: [f32; 4]) -> [u8; 4] {
    c.map(unorm8)
}

/// The element offset of (x, y) in a twiddled w x h level, bit by bit: y's bit i at 2i and
/// x's at 2i + 1 while both sides have bits, then the longer side's bits on top.
pub(super) fn morton(x: u32, y: u32, w: u32, h: u32) -> u32 {
    let (lw, lh) = (w.trailing_zeros(), h.trailing_zeros());
    let m = lw.min(lh);
    let mut o = 0;
    for i in 0..m {
        o |= ((y >> i) & 1) << (2 * i);
        o |= ((x >> i) & 1) << (2 * i + 1);
    }
    let rest = if lw > lh { x >> m } else { y >> m };
    o | (rest << (2 * m))
}

/// Texel index on an axis of n under mode m; None outside under CLAMP_TO_BORDER.
pub(super) fn axis(i: i64, n: u32, m: AddrMode) -> Option<u32> {
    let n = i64::from(n);
    Some(match m {
        AddrMode::REPEAT => i.rem_euclid(n),
        AddrMode::CLAMP_TO_EDGE => i.clamp(0, n - 1),
        AddrMode::MIRRORED_REPEAT => {
            let k = i.rem_euclid(2 * n);
            if k < n {
                k
            } else {
                2 * n - 1 - k
            }
        }
        AddrMode::CLAMP_TO_BORDER => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
    } as u32)
}

/// a + (b - a) * t lane by lane.
pub(super) fn lerp(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    [0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * t)
}

/// The filter footprint on one axis: the texel at or left of `c * n - 0.5` and its weight.
pub(super) fn foot(c: f32, n: u32) -> (i64, f32) {
    let f = c * n as f32 - 0.5;
    let i = f.floor();
    (i as i64, f - i)
}

/// The 2D magnification filter of the CPU models: `st.mag_filter` at coordinate `c` of a
/// `w`x`h` level, where `tap(x, y)` is the (already wrapped, bordered or compared) value of the
/// texel at any integer (x, y).
pub(super) fn filter_2d(
    st: &TexState,
    (w, h): (u32, u32),
    c: [f32; 4],
    tap: impl Fn(i64, i64) -> [f32; 4],
) -> [f32; 4] {
    match st.mag_filter {
        Filter::NEAREST => tap(
            (c[0] * w as f32).floor() as i64,
            (c[1] * h as f32).floor() as i64,
        ),
        Filter::LINEAR => {
            let ((x, ax), (y, ay)) = (foot(c[0], w), foot(c[1], h));
            let top = lerp(tap(x, y), tap(x + 1, y), ax);
            let bot = lerp(tap(x, y + 1), tap(x + 1, y + 1), ax);
            lerp(top, bot, ay)
        }
    }
}

/// A texture image: level extents and bytes of every texel, laid out into memory by
/// `memory` (levels packed largest first, slices consecutive, the usual 32-byte linear stride).
pub(super) struct Image {
    pub layout: MemLayout,
    pub bpe: u32,
    /// (w, h, d) of each level.
    pub levels: Vec<(u32, u32, u32)>,
    /// Element value of (level, x, y, z).
    pub el: Box<dyn Fn(usize, u32, u32, u32) -> u32>,
}

impl Image {
    pub fn new(
        layout: MemLayout,
        bpe: u32,
        (w, h, d): (u32, u32, u32),
        levels: usize,
        el: impl Fn(usize, u32, u32, u32) -> u32 + 'static,
    ) -> Image {
        let levels = (0..levels)
            .map(|l| ((w >> l).max(1), (h >> l).max(1), (d >> l).max(1)))
            .collect();
        Image {
            layout,
            bpe,
            levels,
            el: Box::new(el),
        }
    }

    pub fn memory(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (l, &(w, h, d)) in self.levels.iter().enumerate() {
            let stride = (w * self.bpe).div_ceil(32) * 32;
            let slice_B = if self.layout == MemLayout::TWIDDLED {
                w * h * self.bpe
            } else {
                stride * h
            };
            let base = out.len();
            out.resize(base + (slice_B * d) as usize, 0);
            for z in 0..d {
                for y in 0..h {
                    for x in 0..w {
                        let o = if self.layout == MemLayout::TWIDDLED {
                            morton(x, y, w, h) * self.bpe
                        } else {
                            y * stride + x * self.bpe
                        };
                        let at = base + (z * slice_B + o) as usize;
                        let v = (self.el)(l, x, y, z).to_le_bytes();
                        out[at..at + self.bpe as usize].copy_from_slice(&v[..self.bpe as usize]);
                    }
                }
            }
        }
        out
    }
}

const W_PX: u32 = 16;

/// The fragment program of `op` (TEXD reads its derivatives from constants 0 and 1).
fn program(op: Opcode) -> Vec<u32> {
    if op == Opcode::TEXD {
        words(&[
            mov(dr(2), sa(0)),
            mov(dr(3), sa(1)),
            tex_full(op, dr(0), pa(0), 0, 2),
            emitpix(r(0)),
            end(),
        ])
    } else {
        words(&[tex_full(op, dr(0), pa(0), 0, 0), emitpix(r(0)), end()])
    }
}

/// Runs the probes through both paths (which must agree); the RGBA bytes of each probe.
pub(super) fn render(st: TexState, mem: &[u8], op: Opcode, groups: &[Group]) -> Vec<[u8; 4]> {
    let n: usize = groups.iter().map(|g| g.coords.len()).sum();
    let h_px = (n as u32).div_ceil(W_PX).max(1);
    let run = |reference: bool| {
        let mut s = Scene::new();
        let stride = W_PX * 4;
        let fb = Mem::filled((stride * h_px) as usize, 0x5a);
        let va = s.alloc_with(fb.clone(), Perm::RW);
        let rd = RenderDesc::linear(va, W_PX, h_px, stride);
        let (wf, hf) = (W_PX as f32, h_px as f32);
        let mut st = st;
        let tex = Mem::new(mem.len().max(4));
        tex.write(0, mem);
        st.base_addr = s.alloc_with(tex, Perm::RO);
        let mut draws = Vec::new();
        let mut k = 0u32;
        for g in groups {
            let mut verts = Vec::new();
            for c in &g.coords {
                let (x, y) = ((k % W_PX) as f32, (k / W_PX) as f32);
                let p = |x: f32, y: f32| (clip_xy(x, y, wf, hf, 0.5), *c);
                verts.extend([
                    p(x, y),
                    p(x + 1.0, y),
                    p(x, y + 1.0),
                    p(x + 1.0, y),
                    p(x + 1.0, y + 1.0),
                    p(x, y + 1.0),
                ]);
                k += 1;
            }
            let mut d = DrawDesc::new(Topology::TRIANGLES, &verts, program(op), viewport(wf, hf));
            d.tsp.v0_interp = Interp::FLAT;
            if let Some((dx, dy)) = g.grads {
                d.fs_consts = vec![fv(dx), fv(dy)];
            }
            d.textures = vec![st];
            draws.push(d);
        }
        let job = build(&mut s, &rd, &draws);
        s.gpu.set_reference_paths(reference);
        let res = s.gpu.run(&job);
        assert_eq!(res.status, JobStatus::Done);
        (res, fb.bytes())
    };
    let (fast, fast_b) = run(false);
    let (reference, reference_b) = run(true);
    assert_eq!(fast, reference, "fast and reference job results differ");
    assert!(fast_b == reference_b, "fast and reference pixels differ");
    (0..n)
        .map(|k| {
            let o = 4 * k;
            let b = &fast_b[o..o + 4];
            [b[2], b[1], b[0], b[3]]
        })
        .collect()
}

/// The status a render of one probe with `st` ends in (texture memory: 64 KiB of zeros).
pub(super) fn status_of(st: TexState) -> JobStatus {
    let mut s = Scene::new();
    let fb = Mem::filled(128, 0);
    let va = s.alloc_with(fb, Perm::RW);
    let rd = RenderDesc::linear(va, 4, 4, 32);
    let mut st = st;
    st.base_addr = s.alloc(1 << 16).0;
    let verts = [
        (clip_xy(0.0, 0.0, 4.0, 4.0, 0.5), [0.5; 4]),
        (clip_xy(4.0, 0.0, 4.0, 4.0, 0.5), [0.5; 4]),
        (clip_xy(0.0, 4.0, 4.0, 4.0, 0.5), [0.5; 4]),
    ];
    let mut d = DrawDesc::new(
        Topology::TRIANGLES,
        &verts,
        program(Opcode::TEX),
        viewport(4.0, 4.0),
    );
    d.textures = vec![st];
    s.render(&rd, &[d]).status
}

/// A plain BGRA8 TexState of w x h (x d for volumes) with one filter everywhere.
pub(super) fn plain(w: u32, h: u32, f: Filter) -> TexState {
    TexState {
        layout: MemLayout::LINEAR,
        width_m1: w - 1,
        height_m1: h - 1,
        min_filter: f,
        mag_filter: f,
        ..TexState::default()
    }
}

/// Asserts every probe's pixel equals the model's, naming the first that differs.
/// Renders `coords` with TEX (the implicit LOD), checks every pixel against the bytes `want`
/// gives for its coordinate, and returns the pixels.
pub(super) fn check_tex(
    name: &str,
    st: TexState,
    mem: &[u8],
    coords: &[[f32; 4]],
    want: impl Fn([f32; 4]) -> [u8; 4],
) -> Vec<[u8; 4]> {
    let group = Group::plain(coords.to_vec());
    let got = render(st, mem, Opcode::TEX, &[group]);
    let want: Vec<[u8; 4]> = coords.iter().map(|&c| want(c)).collect();
    assert_pixels(name, &got, &want, coords);
    got
}

pub(super) fn assert_pixels(name: &str, got: &[[u8; 4]], want: &[[u8; 4]], coords: &[[f32; 4]]) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "{name}: probe {k} at {:?}", coords[k]);
    }
}
