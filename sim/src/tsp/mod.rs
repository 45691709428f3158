//! The TSP's texture sampler: TexState decode, level and cube-face addressing (computed here,
//! independently of `layout`), twiddled and linear fetch, every sampleable format, nearest /
//! bilinear / mip filtering, LOD from derivatives, wrap modes, channel swizzle.

use sgx_hwdocs::limits::{CUBE_FACE_ALIGN_B, LINEAR_STRIDE_ALIGN_B, MAX_TEXTURE_LEVELS};
use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::render::ProgramState;
use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, Swizzle, TexState};
use sgx_hwdocs::{Format, FormatKind};

use crate::mmu::Mmu;
use crate::render::JobErr;

mod fast;
use crate::usse::{Lod, Textures};
use crate::{Fault, Unit};
use fast::FastUnit;
pub(crate) use fast::{twiddle_col, twiddle_row};

const LEVELS: usize = MAX_TEXTURE_LEVELS as usize;

/// Twiddled (Morton) offset in elements: Y in bit 0, X in bit 1; on a non-square level the
/// longer side's remaining bits sit above the interleaved ones.
pub(crate) fn twiddle(x: u32, y: u32, log2_w: u32, log2_h: u32) -> u32 {
    fn spread(v: u32) -> u32 {
        let mut v = v & 0xffff;
        v = (v | (v << 8)) & 0x00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333;
        (v | (v << 1)) & 0x5555_5555
    }
    let m = log2_w.min(log2_h);
    let lo = (1u32 << m) - 1;
    let inter = spread(y & lo) | (spread(x & lo) << 1);
    let rest = if log2_w > log2_h { x >> m } else { y >> m };
    inter | (rest << (2 * m))
}

/// k / 255 for every byte k (the same values a division gives, without dividing per texel).
static UNORM8: [f32; 256] = {
    let mut t = [0.0f32; 256];
    let mut k = 0;
    while k < 256 {
        t[k] = k as f32 / 255.0;
        k += 1;
    }
    t
};

/// How to turn one element into RGBA: per channel (shift, width, destination lanes, scale).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decoder {
    ch: [(u32, u32, u8, f32); 4],
    nch: usize,
    float: bool,
    /// Every channel is an 8-bit unorm byte.
    bytes8: bool,
    /// For `bytes8`: the byte shift feeding each of r, g, b, a (None: 0 for colour, 1 for alpha).
    map8: [Option<u32>; 4],
}

impl Decoder {
    pub(crate) fn new(f: Format) -> Decoder {
        let info = f.info();
        let mut ch = [(0, 0, 0u8, 0.0f32); 4];
        let mut nch = 0;
        for c in info.channels {
            let lanes = match c.name {
                "r" => 0b0001,
                "g" => 0b0010,
                "b" => 0b0100,
                "a" => 0b1000,
                "l" => 0b0111,
                "i" => 0b1111,
                _ => 0,
            };
            if lanes != 0 && nch < 4 {
                ch[nch] = (c.lo, c.bits, lanes, 1.0 / ((1u64 << c.bits) - 1) as f32);
                nch += 1;
            }
        }
        let float = info.kind == FormatKind::Float;
        let bytes8 = !float && ch[..nch].iter().all(|c| c.1 == 8 && c.0 % 8 == 0);
        let mut map8 = [None; 4];
        for c in &ch[..nch] {
            for (l, m) in map8.iter_mut().enumerate() {
                if c.2 & (1 << l) != 0 {
                    *m = Some(c.0);
                }
            }
        }
        Decoder {
            ch,
            nch,
            float,
            bytes8,
            map8,
        }
    }

    /// RGBA of one element (missing colour channels 0, missing alpha 1).
    #[inline(always)]
    pub(crate) fn decode(&self, v: u32) -> [f32; 4] {
        if self.bytes8 {
            let m = &self.map8;
            let get = |l: usize, d: f32| match m[l] {
                Some(lo) => UNORM8[((v >> lo) & 0xff) as usize],
                None => d,
            };
            return [get(0, 0.0), get(1, 0.0), get(2, 0.0), get(3, 1.0)];
        }
        let mut o = [0.0, 0.0, 0.0, 1.0];
        for &(lo, bits, lanes, scale) in &self.ch[..self.nch] {
            let raw = if bits == 32 {
                v
            } else {
                (v >> lo) & ((1 << bits) - 1)
            };
            let x = if self.float {
                if bits == 16 {
                    half_to_f32(raw as u16)
                } else {
                    f32::from_bits(raw)
                }
            } else if bits == 1 {
                raw as f32
            } else {
                raw as f32 / (1.0 / scale).round()
            };
            for (l, ol) in o.iter_mut().enumerate() {
                if lanes & (1 << l) != 0 {
                    *ol = x;
                }
            }
        }
        o
    }
}

/// IEEE half to f32.
pub(crate) fn half_to_f32(h: u16) -> f32 {
    let s = u32::from(h >> 15) << 31;
    let e = u32::from((h >> 10) & 0x1f);
    let m = u32::from(h & 0x3ff);
    let bits = match (e, m) {
        (0, 0) => s,
        (0, _) => {
            // Subnormal: m * 2^-24.
            return f32::from_bits(s)
                + (if s != 0 { -1.0 } else { 1.0 }) * m as f32 * (1.0 / 16_777_216.0);
        }
        (31, 0) => s | 0x7f80_0000,
        (31, _) => s | 0x7fc0_0000 | (m << 13),
        _ => s | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// One decoded texture unit with its level addresses.
#[derive(Clone, Debug)]
pub(crate) struct TexUnit {
    st: TexState,
    dec: Decoder,
    /// What the fast paths precompute.
    fast: FastUnit,
    bpe: u32,
    twiddled: bool,
    w: [u32; LEVELS],
    h: [u32; LEVELS],
    lw: [u32; LEVELS],
    lh: [u32; LEVELS],
    stride: [u32; LEVELS],
    off: [u32; LEVELS],
    size: [u32; LEVELS],
    face_stride: u32,
    /// Host pointers of each (face, level) when it lies wholly in one readable mapping.
    ptr: Vec<Option<*const u8>>,
    lod_max: f32,
    bias: f32,
    /// Every sample reads the base level of face 0 with `mag_filter`, whatever the LOD
    /// (one filter, no mip selection left once clamped to `lod_max`): the fast path then
    /// skips the LOD computation.
    lod_free: bool,
}

/// The texture table of a draw.
#[derive(Clone, Debug, Default)]
pub(crate) struct TexTable {
    units: Vec<TexUnit>,
}

fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

impl TexUnit {
    /// A unit with `st`'s format and layout and no levels yet.
    fn blank(st: TexState) -> TexUnit {
        let bpe = st.format.info().bytes_per_el;
        let dec = Decoder::new(st.format);
        TexUnit {
            st,
            dec,
            fast: FastUnit::new(&st, &dec, bpe),
            bpe,
            twiddled: st.layout == MemLayout::TWIDDLED,
            w: [1; LEVELS],
            h: [1; LEVELS],
            lw: [0; LEVELS],
            lh: [0; LEVELS],
            stride: [0; LEVELS],
            off: [0; LEVELS],
            size: [0; LEVELS],
            face_stride: 0,
            ptr: Vec::new(),
            lod_max: 0.0,
            bias: 0.0,
            lod_free: false,
        }
    }

    fn new(mmu: &Mmu, st: TexState, unit: Unit) -> Result<TexUnit, JobErr> {
        let bad = |m: String| JobErr::bad(unit, format!("TexState: {m}"));
        let info = st.format.info();
        if !info.sampleable {
            return Err(bad(format!("{} is not sampleable", info.name)));
        }
        let (w0, h0) = (st.width_m1 + 1, st.height_m1 + 1);
        let twiddled = st.layout == MemLayout::TWIDDLED;
        if twiddled && (!w0.is_power_of_two() || !h0.is_power_of_two()) {
            return Err(bad(format!("twiddled {w0}x{h0} is not power-of-two")));
        }
        if twiddled && !info.twiddlable {
            return Err(bad(format!("{} cannot be twiddled", info.name)));
        }
        if st.cube && w0 != h0 {
            return Err(bad(format!("cube faces {w0}x{h0} are not square")));
        }
        let full = 32 - w0.max(h0).leading_zeros();
        if st.levels == 0 || st.levels > full {
            return Err(bad(format!(
                "{} levels for {w0}x{h0} (1..={full})",
                st.levels
            )));
        }
        if st.base_level >= st.levels {
            return Err(bad(format!(
                "base_level {} past {} levels",
                st.base_level, st.levels
            )));
        }
        let bpe = info.bytes_per_el;
        let mut u = TexUnit::blank(st);
        u.bias = st.lod_bias as f32 / 16.0;
        let mut at = 0u64;
        for l in 0..st.levels as usize {
            let (w, h) = ((w0 >> l).max(1), (h0 >> l).max(1));
            u.w[l] = w;
            u.h[l] = h;
            u.lw[l] = w.trailing_zeros();
            u.lh[l] = h.trailing_zeros();
            u.stride[l] = if twiddled {
                w * bpe
            } else {
                align_up(u64::from(w * bpe), LINEAR_STRIDE_ALIGN_B) as u32
            };
            let size = if twiddled {
                u64::from(w * h * bpe)
            } else {
                u64::from(u.stride[l]) * u64::from(h)
            };
            u.off[l] = at as u32;
            u.size[l] = size as u32;
            at += size;
        }
        u.face_stride = if st.cube {
            align_up(at, CUBE_FACE_ALIGN_B) as u32
        } else {
            0
        };
        let max = st.max_level.min(st.levels - 1).max(st.base_level);
        u.lod_max = (max - st.base_level) as f32;
        // With lod_max 0 a minified sample clamps to LOD 0: NEAREST picks level 0 and LINEAR
        // has fraction 0, so only the filter could differ from magnification.
        u.lod_free = !st.cube
            && st.min_filter == st.mag_filter
            && (st.mip_filter == MipFilter::NONE || u.lod_max == 0.0);
        let faces = if st.cube { 6 } else { 1 };
        for face in 0..faces {
            for l in 0..LEVELS {
                let p = if l < st.levels as usize {
                    let a = u.level_addr(face, l);
                    mmu.span(a, u.size[l] as usize, false)
                        .map(|p| p as *const u8)
                } else {
                    None
                };
                u.ptr.push(p);
            }
        }
        FastUnit::plan(&mut u);
        Ok(u)
    }

    fn level_addr(&self, face: u32, l: usize) -> u32 {
        self.st
            .base_addr
            .wrapping_add(face.wrapping_mul(self.face_stride))
            .wrapping_add(self.off[l])
    }

    #[inline(always)]
    fn texel(
        &self,
        mmu: &Mmu,
        face: u32,
        l: usize,
        x: u32,
        y: u32,
        n: &mut u64,
    ) -> Result<[f32; 4], Fault> {
        *n += 1;
        let off = if self.twiddled {
            twiddle(x, y, self.lw[l], self.lh[l]) * self.bpe
        } else {
            y * self.stride[l] + x * self.bpe
        };
        let bpe = self.bpe as usize;
        let v = match self.ptr[face as usize * LEVELS + l] {
            // SAFETY: the (face, level) span was checked to lie in a readable mapping at setup
            // and off + bpe <= the level size; no mapping changes while a job runs.
            Some(p) => unsafe {
                let p = p.add(off as usize);
                match bpe {
                    4 => u32::from_le(std::ptr::read_unaligned(p as *const u32)),
                    2 => u32::from(u16::from_le(std::ptr::read_unaligned(p as *const u16))),
                    _ => u32::from(*p),
                }
            },
            None => {
                let mut b = [0u8; 4];
                mmu.read(
                    Unit::Tsp,
                    self.level_addr(face, l).wrapping_add(off),
                    &mut b[..bpe],
                )?;
                u32::from_le_bytes(b)
            }
        };
        Ok(self.dec.decode(v))
    }
}

#[inline(always)]
fn wrap(i: i32, n: u32, m: AddrMode) -> u32 {
    let n = n as i32;
    (match m {
        AddrMode::REPEAT => i.rem_euclid(n),
        // Interim: border reads are not modelled yet, so a border fetch clamps to the edge.
        AddrMode::CLAMP_TO_EDGE | AddrMode::CLAMP_TO_BORDER => i.clamp(0, n - 1),
        AddrMode::MIRRORED_REPEAT => {
            let k = i.rem_euclid(2 * n);
            if k >= n {
                2 * n - 1 - k
            } else {
                k
            }
        }
    }) as u32
}

/// Cube face and face coordinates (s, t in [0, 1]) for a direction; faces +X -X +Y -Y +Z -Z.
fn cube_face(c: [f32; 4]) -> (u32, f32, f32) {
    let [x, y, z, _] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    let ma = if ma == 0.0 { 1.0 } else { ma };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

fn cube_st_on(face: u32, c: [f32; 4]) -> (f32, f32) {
    let [x, y, z, _] = c;
    let (sc, tc, ma) = match face {
        0 => (-z, -y, x),
        1 => (z, -y, -x),
        2 => (x, z, y),
        3 => (x, -z, -y),
        4 => (x, -y, z),
        _ => (-x, -y, -z),
    };
    let ma = if ma == 0.0 { 1.0 } else { ma.abs() };
    ((sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

impl TexTable {
    /// Reads `tex_count` TexState entries of the draw.
    pub(crate) fn load(mmu: &Mmu, ps: &ProgramState, unit: Unit) -> Result<TexTable, JobErr> {
        let mut units = Vec::with_capacity(ps.tex_count as usize);
        for i in 0..ps.tex_count {
            let mut w = [0u32; TexState::DWORDS];
            let entry_b = 4 * TexState::DWORDS as u32;
            mmu.read_dwords(unit, ps.tex_table_addr.wrapping_add(entry_b * i), &mut w)?;
            let st = TexState::unpack(&w)
                .map_err(|e| JobErr::bad(unit, format!("TexState {i}: {e}")))?;
            units.push(TexUnit::new(mmu, st, unit)?);
        }
        Ok(TexTable { units })
    }

    pub(crate) fn len(&self) -> usize {
        self.units.len()
    }
}

/// Samples through a texture table; counts texels.
pub(crate) struct Sampler<'a> {
    mmu: &'a Mmu,
    table: &'a TexTable,
    pub texels: u64,
    /// Take the fast paths (else only the reference ones; results are identical).
    fast: bool,
}

impl<'a> Sampler<'a> {
    pub(crate) fn new(mmu: &'a Mmu, table: &'a TexTable, fast: bool) -> Sampler<'a> {
        Sampler {
            mmu,
            table,
            texels: 0,
            fast,
        }
    }

    fn filter2d(
        &mut self,
        u: &TexUnit,
        face: u32,
        l: usize,
        s: f32,
        t: f32,
        f: Filter,
    ) -> Result<[f32; 4], Fault> {
        let (w, h) = (u.w[l], u.h[l]);
        let (ws, wt) = if u.st.cube {
            (AddrMode::CLAMP_TO_EDGE, AddrMode::CLAMP_TO_EDGE)
        } else {
            (u.st.wrap_s, u.st.wrap_t)
        };
        match f {
            Filter::NEAREST => {
                let x = wrap((s * w as f32).floor() as i32, w, ws);
                let y = wrap((t * h as f32).floor() as i32, h, wt);
                u.texel(self.mmu, face, l, x, y, &mut self.texels)
            }
            Filter::LINEAR => {
                let fx = s * w as f32 - 0.5;
                let fy = t * h as f32 - 0.5;
                let (x0f, y0f) = (fx.floor(), fy.floor());
                let (ax, ay) = (fx - x0f, fy - y0f);
                let (x0, y0) = (x0f as i32, y0f as i32);
                let (xa, xb) = (wrap(x0, w, ws), wrap(x0.saturating_add(1), w, ws));
                let (ya, yb) = (wrap(y0, h, wt), wrap(y0.saturating_add(1), h, wt));
                let t00 = u.texel(self.mmu, face, l, xa, ya, &mut self.texels)?;
                let t10 = u.texel(self.mmu, face, l, xb, ya, &mut self.texels)?;
                let t01 = u.texel(self.mmu, face, l, xa, yb, &mut self.texels)?;
                let t11 = u.texel(self.mmu, face, l, xb, yb, &mut self.texels)?;
                let mut o = [0.0; 4];
                for i in 0..4 {
                    let top = t00[i] + (t10[i] - t00[i]) * ax;
                    let bot = t01[i] + (t11[i] - t01[i]) * ax;
                    o[i] = top + (bot - top) * ay;
                }
                Ok(o)
            }
        }
    }
}

fn rho(ddx: [f32; 2], ddy: [f32; 2]) -> f32 {
    let a = (ddx[0] * ddx[0] + ddx[1] * ddx[1]).sqrt();
    let b = (ddy[0] * ddy[0] + ddy[1] * ddy[1]).sqrt();
    a.max(b)
}

impl Sampler<'_> {
    /// One sample; `FAST` = false is the reference (every LOD computed, every texel through
    /// `filter2d`), `FAST` = true skips the LOD of LOD-free units and filters held levels
    /// through `fast::filter_at`.
    #[inline(always)]
    fn sample_with<const FAST: bool>(
        &mut self,
        unit: u32,
        coord: [f32; 4],
        lod: Lod,
    ) -> Result<[f32; 4], Fault> {
        let table = self.table;
        // Programs are checked against tex_count before they run; past it reads as a TSP fault.
        let u = table.units.get(unit as usize).ok_or(Fault {
            unit: Unit::Tsp,
            addr: 0,
            write: false,
        })?;
        let base = u.st.base_level as usize;
        let (bw, bh) = (u.w[base] as f32, u.h[base] as f32);
        let (face, s, t) = if u.st.cube {
            cube_face(coord)
        } else {
            (0, coord[0], coord[1])
        };
        let st = &u.st;
        let out = if FAST && u.lod_free {
            self.filter::<FAST>(u, 0, base, s, t, st.mag_filter)?
        } else {
            let implicit = |ddx: [f32; 4], ddy: [f32; 4]| {
                let (dx, dy) = if u.st.cube {
                    let (s0, t0) = (s, t);
                    let add =
                        |d: [f32; 4]| [coord[0] + d[0], coord[1] + d[1], coord[2] + d[2], 0.0];
                    let (sx, tx) = cube_st_on(face, add(ddx));
                    let (sy, ty) = cube_st_on(face, add(ddy));
                    (
                        [(sx - s0) * bw, (tx - t0) * bh],
                        [(sy - s0) * bw, (ty - t0) * bh],
                    )
                } else {
                    ([ddx[0] * bw, ddx[1] * bh], [ddy[0] * bw, ddy[1] * bh])
                };
                rho(dx, dy).log2()
            };
            let lambda = match lod {
                Lod::Implicit { ddx, ddy } => implicit(ddx, ddy),
                Lod::Bias { ddx, ddy, bias } => implicit(ddx, ddy) + bias,
                Lod::Explicit(l) => l,
            } + u.bias;
            if lambda.is_nan() || lambda <= 0.0 {
                // Magnification (and NaN): the base level.
                self.filter::<FAST>(u, face, base, s, t, st.mag_filter)?
            } else {
                let lam = lambda.min(u.lod_max);
                match st.mip_filter {
                    MipFilter::NONE => self.filter::<FAST>(u, face, base, s, t, st.min_filter)?,
                    MipFilter::NEAREST => {
                        let l = if lam <= 0.5 {
                            0
                        } else {
                            ((lam + 0.5).ceil() - 1.0) as usize
                        };
                        self.filter::<FAST>(u, face, base + l, s, t, st.min_filter)?
                    }
                    MipFilter::LINEAR => {
                        let l0 = lam.floor();
                        let fr = lam - l0;
                        let l0 = l0 as usize;
                        let a = self.filter::<FAST>(u, face, base + l0, s, t, st.min_filter)?;
                        if fr == 0.0 {
                            a
                        } else {
                            let b =
                                self.filter::<FAST>(u, face, base + l0 + 1, s, t, st.min_filter)?;
                            [0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * fr)
                        }
                    }
                }
            }
        };
        let pick = |z: Swizzle| match z {
            Swizzle::R => out[0],
            Swizzle::G => out[1],
            Swizzle::B => out[2],
            Swizzle::A => out[3],
            Swizzle::ZERO => 0.0,
            Swizzle::ONE => 1.0,
        };
        Ok([
            pick(st.swz_r),
            pick(st.swz_g),
            pick(st.swz_b),
            pick(st.swz_a),
        ])
    }
}

impl Textures for Sampler<'_> {
    fn needs_lod(&self, unit: u32) -> bool {
        // LOD-free units ignore it on the fast path (`sample_with::<true>`, `quad_fast`).
        !(self.fast
            && self
                .table
                .units
                .get(unit as usize)
                .is_some_and(|u| u.lod_free))
    }

    fn sample(&mut self, unit: u32, coord: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        if self.fast {
            self.sample_with::<true>(unit, coord, lod)
        } else {
            self.sample_with::<false>(unit, coord, lod)
        }
    }

    fn sample_quad(
        &mut self,
        unit: u32,
        coord: &[[f32; 4]; 4],
        lod: &[Lod; 4],
        ex: [bool; 4],
        out: &mut [[f32; 4]; 4],
    ) -> Result<(), Fault> {
        if self.fast && ex != [false; 4] {
            if let Some(u) = self.table.units.get(unit as usize) {
                if self.quad_fast(u, coord, ex, out) {
                    return Ok(());
                }
            }
        }
        for i in 0..4 {
            if ex[i] {
                out[i] = if self.fast {
                    self.sample_with::<true>(unit, coord[i], lod[i])?
                } else {
                    self.sample_with::<false>(unit, coord[i], lod[i])?
                };
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twiddle_order() {
        // Y in bit 0, X in bit 1.
        assert_eq!(twiddle(0, 1, 3, 3), 1);
        assert_eq!(twiddle(1, 0, 3, 3), 2);
        assert_eq!(twiddle(1, 1, 3, 3), 3);
        assert_eq!(twiddle(2, 0, 3, 3), 8);
        assert_eq!(twiddle(7, 7, 3, 3), 63);
        // 4x2: one interleaved bit pair, then X's remaining bit on top.
        assert_eq!(twiddle(2, 0, 2, 1), 4);
        assert_eq!(twiddle(3, 1, 2, 1), 7);
        // 1x4: no interleave; Y alone.
        assert_eq!(twiddle(0, 3, 0, 2), 3);
    }

    #[test]
    fn decoders() {
        let d = Decoder::new(Format::B8G8R8A8_UNORM);
        assert_eq!(
            d.decode(u32::from_le_bytes([0, 51, 255, 102])),
            [1.0, 0.2, 0.0, 0.4]
        );
        assert_eq!(
            Decoder::new(Format::L8_UNORM).decode(255),
            [1.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::A8_UNORM).decode(255),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(Decoder::new(Format::I8_UNORM).decode(0), [0.0; 4]);
        assert_eq!(
            Decoder::new(Format::B5G6R5_UNORM).decode(0xf800),
            [1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::B5G5R5A1_UNORM).decode(0x8000),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::R16_FLOAT).decode(0x3c00),
            [1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::R32_FLOAT).decode(2.5f32.to_bits()),
            [2.5, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            Decoder::new(Format::L8A8_UNORM).decode(0xff00),
            [0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(half_to_f32(0xc000), -2.0);
    }

    #[test]
    fn cube_faces() {
        assert_eq!(cube_face([1.0, 0.0, 0.0, 0.0]).0, 0);
        assert_eq!(cube_face([-1.0, 0.2, 0.0, 0.0]).0, 1);
        assert_eq!(cube_face([0.0, 1.0, 0.5, 0.0]).0, 2);
        assert_eq!(cube_face([0.0, -1.0, 0.5, 0.0]).0, 3);
        assert_eq!(cube_face([0.0, 0.0, 1.0, 0.0]), (4, 0.5, 0.5));
        assert_eq!(cube_face([0.5, 0.0, -1.0, 0.0]), (5, 0.25, 0.5));
    }
}
