//! The TSP's texture sampler: TexState decode, level, slice and cube-face addressing
//! (computed here, independently of `layout`), twiddled and linear fetch, every sampleable
//! format (sRGB and depth decoded per texel), nearest / bilinear / trilinear-in-a-volume / mip
//! filtering, LOD from derivatives, wrap modes with border colour, shadow compare, channel
//! swizzle.

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::limits::{
    CUBE_FACE_ALIGN_B, LINEAR_STRIDE_ALIGN_B, MAX_TEXTURE_3D_PX, MAX_TEXTURE_LEVELS,
};
use sgx_hwdocs::pbe::MemLayout;
use sgx_hwdocs::render::ProgramState;
use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, Swizzle, TexState, LOD_BIAS_STEPS};
use sgx_hwdocs::FormatKind;

use crate::job::JobErr;
use crate::mmu::Mmu;

mod decode;
mod fast;
#[cfg(test)]
mod tests_features;
use crate::usse::{Lod, Textures};
use crate::{Fault, Unit};
pub(crate) use decode::Decoder;
use decode::UNORM8;
pub(crate) use fast::span::{SpanTex, SPAN_PX};
use fast::FastUnit;
pub(crate) use fast::{twiddle_col, twiddle_row};

const LEVELS: usize = MAX_TEXTURE_LEVELS as usize;

/// The low 16 bits of `v` spread into its even bits (bit i to bit 2i): a coordinate's part of a
/// square Morton index. The model keeps its own copy of this rather than using the driver's
/// (layout's): the model is the independent reference the driver's twiddling is tested against.
#[inline(always)]
pub(crate) fn spread_even(v: u32) -> u32 {
    let mut v = v & 0xffff;
    v = (v | (v << 8)) & 0x00ff_00ff;
    v = (v | (v << 4)) & 0x0f0f_0f0f;
    v = (v | (v << 2)) & 0x3333_3333;
    (v | (v << 1)) & 0x5555_5555
}

/// Twiddled (Morton) offset in elements: Y in bit 0, X in bit 1; on a non-square level the
/// longer side's remaining bits sit above the interleaved ones.
pub(crate) fn twiddle(x: u32, y: u32, log2_w: u32, log2_h: u32) -> u32 {
    let m = log2_w.min(log2_h);
    let lo = (1u32 << m) - 1;
    let inter = spread_even(y & lo) | (spread_even(x & lo) << 1);
    let rest = if log2_w > log2_h { x >> m } else { y >> m };
    inter | (rest << (2 * m))
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
    /// Slices of each level (1 unless `st.volume`).
    d: [u32; LEVELS],
    lw: [u32; LEVELS],
    lh: [u32; LEVELS],
    stride: [u32; LEVELS],
    /// Bytes from one slice of a level to the next: the size of that 2D level.
    slice_B: [u32; LEVELS],
    off: [u32; LEVELS],
    /// Bytes of each level, all its slices.
    size: [u32; LEVELS],
    face_stride: u32,
    /// The addressing mode of s, t and r as sampled (cube faces clamp to the edge).
    wraps: [AddrMode; 3],
    /// What a tap outside the level reads under CLAMP_TO_BORDER: the border colour standing
    /// in for a decoded texel.
    border: [f32; 4],
    /// The shadow compare (depth formats only).
    cmp: Option<CompareFunc>,
    /// A volume, a border-addressed axis or a compare: more than the plain 2D filter.
    ext: bool,
    /// Host pointers of each (face, level) when it lies wholly in one readable mapping.
    ptr: Vec<Option<*const u8>>,
    /// The highest LOD a sample reaches: the view's level range and TexState.max_lod.
    lod_max: f32,
    /// TexState.min_lod and max_lod in levels: the clamp of the biased LOD, applied before
    /// the magnification test.
    lod_clamp: (f32, f32),
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
            d: [1; LEVELS],
            lw: [0; LEVELS],
            lh: [0; LEVELS],
            stride: [0; LEVELS],
            slice_B: [0; LEVELS],
            off: [0; LEVELS],
            size: [0; LEVELS],
            face_stride: 0,
            wraps: [AddrMode::CLAMP_TO_EDGE; 3],
            border: [0.0, 0.0, 0.0, 1.0],
            cmp: None,
            ext: false,
            ptr: Vec::new(),
            lod_max: 0.0,
            lod_clamp: (0.0, 0.0),
            bias: 0.0,
            lod_free: false,
        }
    }

    /// Refuses TexState combinations the sampler cannot take.
    fn check(st: &TexState) -> Result<(), String> {
        let info = st.format.info();
        if !info.sampleable {
            return Err(format!("{} is not sampleable", info.name));
        }
        let depth_fmt = matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil);
        let (w0, h0, d0) = (st.width_m1 + 1, st.height_m1 + 1, st.depth_m1 + 1);
        if st.volume && st.cube {
            return Err("volume and cube together".into());
        }
        if st.unnormalized && (st.cube || st.volume) {
            return Err("unnormalized coordinates on a cube or volume".into());
        }
        if !st.volume && d0 != 1 {
            return Err(format!("depth {d0} on a texture that is not a volume"));
        }
        if st.volume {
            let max = MAX_TEXTURE_3D_PX as u32;
            if w0.max(h0).max(d0) > max {
                return Err(format!("volume {w0}x{h0}x{d0} has a side over {max}"));
            }
            // A volume never holds depth, so it has nothing to compare.
            if st.compare {
                return Err("compare on a volume texture".into());
            }
            if depth_fmt {
                return Err(format!("{} cannot be a volume", info.name));
            }
        }
        if st.compare && !depth_fmt {
            return Err(format!("compare on {} (not a depth format)", info.name));
        }
        let twiddled = st.layout == MemLayout::TWIDDLED;
        if twiddled && (!w0.is_power_of_two() || !h0.is_power_of_two()) {
            return Err(format!("twiddled {w0}x{h0} is not power-of-two"));
        }
        if twiddled && !info.twiddlable {
            return Err(format!("{} cannot be twiddled", info.name));
        }
        if st.cube && w0 != h0 {
            return Err(format!("cube faces {w0}x{h0} are not square"));
        }
        let full = 32 - w0.max(h0).max(d0).leading_zeros();
        if st.levels == 0 || st.levels > full {
            return Err(format!(
                "{} levels for {w0}x{h0}x{d0} (1..={full})",
                st.levels
            ));
        }
        if st.base_level >= st.levels {
            return Err(format!(
                "base_level {} past {} levels",
                st.base_level, st.levels
            ));
        }
        Ok(())
    }

    fn new(mmu: &Mmu, st: TexState, unit: Unit) -> Result<TexUnit, JobErr> {
        TexUnit::check(&st).map_err(|m| JobErr::bad(unit, format!("TexState: {m}")))?;
        let info = st.format.info();
        let (w0, h0, d0) = (st.width_m1 + 1, st.height_m1 + 1, st.depth_m1 + 1);
        let twiddled = st.layout == MemLayout::TWIDDLED;
        let bpe = info.bytes_per_el;
        let mut u = TexUnit::blank(st);
        u.bias = st.lod_bias as f32 / 16.0;
        let mut at = 0u64;
        for l in 0..st.levels as usize {
            let (w, h, d) = ((w0 >> l).max(1), (h0 >> l).max(1), (d0 >> l).max(1));
            u.w[l] = w;
            u.h[l] = h;
            u.d[l] = d;
            u.lw[l] = w.trailing_zeros();
            u.lh[l] = h.trailing_zeros();
            u.stride[l] = if twiddled {
                w * bpe
            } else {
                align_up(u64::from(w * bpe), LINEAR_STRIDE_ALIGN_B) as u32
            };
            let slice = if twiddled {
                u64::from(w * h * bpe)
            } else {
                u64::from(u.stride[l]) * u64::from(h)
            };
            // At most 512 x 512 x 4 B x 512 slices = 2^29 B for a volume's level 0.
            let size = slice * u64::from(d);
            u.slice_B[l] = slice as u32;
            u.off[l] = at as u32;
            u.size[l] = size as u32;
            at += size;
        }
        u.face_stride = if st.cube {
            align_up(at, CUBE_FACE_ALIGN_B) as u32
        } else {
            0
        };
        u.wraps = if st.cube {
            // Cube faces clamp to the edge in every mode, CLAMP_TO_BORDER included (a
            // seam-free lookup has no border).
            [AddrMode::CLAMP_TO_EDGE; 3]
        } else if st.volume {
            [st.wrap_s, st.wrap_t, st.wrap_r]
        } else {
            [st.wrap_s, st.wrap_t, AddrMode::CLAMP_TO_EDGE]
        };
        let b = |v: u32| UNORM8[v as usize];
        u.border = if matches!(info.kind, FormatKind::Depth | FormatKind::DepthStencil) {
            // A depth texel reads (d, d, d, 1); border_r is the border depth.
            [b(st.border_r), b(st.border_r), b(st.border_r), 1.0]
        } else {
            [
                b(st.border_r),
                b(st.border_g),
                b(st.border_b),
                b(st.border_a),
            ]
        };
        u.cmp = st.compare.then_some(st.compare_func);
        u.ext = st.volume || u.cmp.is_some() || u.wraps.contains(&AddrMode::CLAMP_TO_BORDER);
        let max = st.max_level.min(st.levels - 1).max(st.base_level);
        let steps = LOD_BIAS_STEPS as f32;
        u.lod_clamp = (st.min_lod as f32 / steps, st.max_lod as f32 / steps);
        u.lod_max = ((max - st.base_level) as f32).min(u.lod_clamp.1);
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

    /// The decoded element at (x, y) of slice z of level l (every coordinate inside it).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn texel(
        &self,
        mmu: &Mmu,
        face: u32,
        l: usize,
        x: u32,
        y: u32,
        z: u32,
        n: &mut u64,
    ) -> Result<[f32; 4], Fault> {
        *n += 1;
        let in_slice = if self.twiddled {
            twiddle(x, y, self.lw[l], self.lh[l]) * self.bpe
        } else {
            y * self.stride[l] + x * self.bpe
        };
        let off = z * self.slice_B[l] + in_slice;
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

/// What [`wrap`] gives for a CLAMP_TO_BORDER coordinate outside the level: the tap reads the
/// border colour.
const BORDER: u32 = u32::MAX;

/// Texel index `i` on an axis of `n` texels under mode `m`, or [`BORDER`].
#[inline(always)]
fn wrap(i: i32, n: u32, m: AddrMode) -> u32 {
    let n = n as i32;
    (match m {
        AddrMode::REPEAT => i.rem_euclid(n),
        AddrMode::CLAMP_TO_EDGE => i.clamp(0, n - 1),
        AddrMode::CLAMP_TO_BORDER => {
            if (0..n).contains(&i) {
                i
            } else {
                return BORDER;
            }
        }
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

/// The shadow compare of one tap: (c, c, c, 1) with c = 1 when `reference FUNC depth` passes.
#[inline(always)]
fn shadow(f: CompareFunc, reference: f32, depth: f32) -> [f32; 4] {
    let pass = match f {
        CompareFunc::NEVER => false,
        CompareFunc::LESS => reference < depth,
        CompareFunc::EQUAL => reference == depth,
        CompareFunc::LEQUAL => reference <= depth,
        CompareFunc::GREATER => reference > depth,
        CompareFunc::NOTEQUAL => reference != depth,
        CompareFunc::GEQUAL => reference >= depth,
        CompareFunc::ALWAYS => true,
    };
    let c = if pass { 1.0 } else { 0.0 };
    [c, c, c, 1.0]
}

/// Where one sample reads inside a level: face, s, t, r (r for volumes) in [0, 1] units, and
/// the shadow reference (already clamped; unused without compare).
#[derive(Clone, Copy, Debug)]
struct At {
    face: u32,
    s: f32,
    t: f32,
    r: f32,
    refz: f32,
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
            let entry_B = 4 * TexState::DWORDS as u32;
            mmu.read_dwords(unit, ps.tex_table_addr.wrapping_add(entry_B * i), &mut w)?;
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
    /// Filter taps, border taps included.
    pub texels: u64,
    /// Take the fast paths (else only the reference ones; results are identical).
    fast: bool,
    /// The table entry of the program's unit 0 (ProgramState.vs_tex_base for a vertex
    /// program, 0 for a pixel one).
    base: u32,
}

impl<'a> Sampler<'a> {
    pub(crate) fn new(mmu: &'a Mmu, table: &'a TexTable, fast: bool) -> Sampler<'a> {
        Sampler {
            mmu,
            table,
            texels: 0,
            fast,
            base: 0,
        }
    }

    /// The sampler of a vertex program, whose unit u reads table entry `base` + u.
    pub(crate) fn with_base(self, base: u32) -> Sampler<'a> {
        Sampler { base, ..self }
    }

    /// One filter tap at wrapped (x, y, z) of level `l`: the border colour when any of them
    /// is [`BORDER`], else the decoded texel; then the shadow compare, if any.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn tap(
        &mut self,
        u: &TexUnit,
        face: u32,
        l: usize,
        x: u32,
        y: u32,
        z: u32,
        refz: f32,
    ) -> Result<[f32; 4], Fault> {
        let t = if x == BORDER || y == BORDER || z == BORDER {
            self.texels += 1;
            u.border
        } else {
            u.texel(self.mmu, face, l, x, y, z, &mut self.texels)?
        };
        Ok(match u.cmp {
            Some(f) => shadow(f, refz, t[0]),
            None => t,
        })
    }

    /// The reference filter of level `l`: NEAREST one tap; LINEAR four taps in a 2D level,
    /// eight (two slices blended) in a volume level.
    fn filter_ref(&mut self, u: &TexUnit, at: At, l: usize, f: Filter) -> Result<[f32; 4], Fault> {
        let (w, h, d) = (u.w[l], u.h[l], u.d[l]);
        let [ws, wt, wr] = u.wraps;
        let (face, s, t) = (at.face, at.s, at.t);
        match f {
            Filter::NEAREST => {
                let x = wrap((s * w as f32).floor() as i32, w, ws);
                let y = wrap((t * h as f32).floor() as i32, h, wt);
                let z = if u.st.volume {
                    wrap((at.r * d as f32).floor() as i32, d, wr)
                } else {
                    0
                };
                self.tap(u, face, l, x, y, z, at.refz)
            }
            Filter::LINEAR => {
                let fx = s * w as f32 - 0.5;
                let fy = t * h as f32 - 0.5;
                let (x0f, y0f) = (fx.floor(), fy.floor());
                let (ax, ay) = (fx - x0f, fy - y0f);
                let (x0, y0) = (x0f as i32, y0f as i32);
                let (xa, xb) = (wrap(x0, w, ws), wrap(x0.saturating_add(1), w, ws));
                let (ya, yb) = (wrap(y0, h, wt), wrap(y0.saturating_add(1), h, wt));
                let mut bilinear = |z: u32| -> Result<[f32; 4], Fault> {
                    let t00 = self.tap(u, face, l, xa, ya, z, at.refz)?;
                    let t10 = self.tap(u, face, l, xb, ya, z, at.refz)?;
                    let t01 = self.tap(u, face, l, xa, yb, z, at.refz)?;
                    let t11 = self.tap(u, face, l, xb, yb, z, at.refz)?;
                    let mut o = [0.0; 4];
                    for i in 0..4 {
                        let top = t00[i] + (t10[i] - t00[i]) * ax;
                        let bot = t01[i] + (t11[i] - t01[i]) * ax;
                        o[i] = top + (bot - top) * ay;
                    }
                    Ok(o)
                };
                if !u.st.volume {
                    return bilinear(0);
                }
                let fz = at.r * d as f32 - 0.5;
                let z0f = fz.floor();
                let az = fz - z0f;
                let z0 = z0f as i32;
                let a = bilinear(wrap(z0, d, wr))?;
                let b = bilinear(wrap(z0.saturating_add(1), d, wr))?;
                Ok([0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * az))
            }
        }
    }
}

fn rho(ddx: [f32; 2], ddy: [f32; 2]) -> f32 {
    let a = (ddx[0] * ddx[0] + ddx[1] * ddx[1]).sqrt();
    let b = (ddy[0] * ddy[0] + ddy[1] * ddy[1]).sqrt();
    a.max(b)
}

/// `rho` of a volume: the longer of the two 3-axis derivative vectors.
fn rho3(ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
    let a = (ddx[0] * ddx[0] + ddx[1] * ddx[1] + ddx[2] * ddx[2]).sqrt();
    let b = (ddy[0] * ddy[0] + ddy[1] * ddy[1] + ddy[2] * ddy[2]).sqrt();
    a.max(b)
}

impl Sampler<'_> {
    /// One sample; `FAST` = false is the reference (every LOD computed, every texel through
    /// `filter_ref`), `FAST` = true skips the LOD of LOD-free units and filters held levels
    /// through the filters of `fast`.
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
        let refz = if u.cmp.is_none() {
            0.0
        } else {
            // c.w for a cube (c.xyz is its direction), else c.z; NaN clamps to 0.
            let c = if u.st.cube { coord[3] } else { coord[2] };
            if c >= 1.0 {
                1.0
            } else if c > 0.0 {
                c
            } else {
                0.0
            }
        };
        let at = At {
            face,
            s,
            t,
            r: coord[2],
            refz,
        };
        let st = &u.st;
        let out = if FAST && u.lod_free {
            self.filter::<FAST>(u, at, base, st.mag_filter)?
        } else {
            let implicit = |ddx: [f32; 4], ddy: [f32; 4]| {
                if u.st.volume {
                    let bd = u.d[base] as f32;
                    let scale = |d: [f32; 4]| [d[0] * bw, d[1] * bh, d[2] * bd];
                    return rho3(scale(ddx), scale(ddy)).log2();
                }
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
            // GL's clamp to [MIN_LOD, MAX_LOD] comes before the magnification test: a
            // MAX_LOD of 0 magnifies every sample, a MIN_LOD above 0 minifies them all.
            let (lo, hi) = u.lod_clamp;
            let lambda = if lambda < lo {
                lo
            } else if lambda > hi {
                hi
            } else {
                lambda
            };
            if lambda.is_nan() || lambda <= 0.0 {
                // Magnification (and NaN): the base level.
                self.filter::<FAST>(u, at, base, st.mag_filter)?
            } else {
                let lam = lambda.min(u.lod_max);
                match st.mip_filter {
                    MipFilter::NONE => self.filter::<FAST>(u, at, base, st.min_filter)?,
                    MipFilter::NEAREST => {
                        let l = if lam <= 0.5 {
                            0
                        } else {
                            ((lam + 0.5).ceil() - 1.0) as usize
                        };
                        self.filter::<FAST>(u, at, base + l, st.min_filter)?
                    }
                    MipFilter::LINEAR => {
                        let l0 = lam.floor();
                        let fr = lam - l0;
                        let l0 = l0 as usize;
                        let a = self.filter::<FAST>(u, at, base + l0, st.min_filter)?;
                        if fr == 0.0 {
                            a
                        } else {
                            let b = self.filter::<FAST>(u, at, base + l0 + 1, st.min_filter)?;
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

/// The coordinate and LOD an `unnormalized` unit samples with: s and t (and their
/// derivatives) divided by the base level's width and height, so everything after reads
/// normalised coordinates. Other units' are returned as they are.
#[inline(always)]
fn normalized(u: &TexUnit, coord: [f32; 4], lod: Lod) -> ([f32; 4], Lod) {
    if !u.st.unnormalized {
        return (coord, lod);
    }
    let base = u.st.base_level as usize;
    let (w, h) = (u.w[base] as f32, u.h[base] as f32);
    let n = |c: [f32; 4]| [c[0] / w, c[1] / h, c[2], c[3]];
    let lod = match lod {
        Lod::Implicit { ddx, ddy } => Lod::Implicit {
            ddx: n(ddx),
            ddy: n(ddy),
        },
        Lod::Bias { ddx, ddy, bias } => Lod::Bias {
            ddx: n(ddx),
            ddy: n(ddy),
            bias,
        },
        Lod::Explicit(l) => Lod::Explicit(l),
    };
    (n(coord), lod)
}

impl Textures for Sampler<'_> {
    fn needs_lod(&self, unit: u32) -> bool {
        let unit = unit.wrapping_add(self.base);
        // LOD-free units ignore it on the fast path (`sample_with::<true>`, `quad_fast`).
        !(self.fast
            && self
                .table
                .units
                .get(unit as usize)
                .is_some_and(|u| u.lod_free))
    }

    fn sample(&mut self, unit: u32, coord: [f32; 4], lod: Lod) -> Result<[f32; 4], Fault> {
        let unit = unit.wrapping_add(self.base);
        let (coord, lod) = match self.table.units.get(unit as usize) {
            Some(u) => normalized(u, coord, lod),
            None => (coord, lod),
        };
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
        let unit = unit.wrapping_add(self.base);
        let (mut coord, mut lod) = (*coord, *lod);
        if let Some(u) = self.table.units.get(unit as usize) {
            for i in 0..4 {
                (coord[i], lod[i]) = normalized(u, coord[i], lod[i]);
            }
            if self.fast && ex != [false; 4] && self.quad_fast(u, &coord, ex, out) {
                return Ok(());
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
    fn cube_faces() {
        assert_eq!(cube_face([1.0, 0.0, 0.0, 0.0]).0, 0);
        assert_eq!(cube_face([-1.0, 0.2, 0.0, 0.0]).0, 1);
        assert_eq!(cube_face([0.0, 1.0, 0.5, 0.0]).0, 2);
        assert_eq!(cube_face([0.0, -1.0, 0.5, 0.0]).0, 3);
        assert_eq!(cube_face([0.0, 0.0, 1.0, 0.0]), (4, 0.5, 0.5));
        assert_eq!(cube_face([0.5, 0.0, -1.0, 0.0]), (5, 0.25, 0.5));
    }
}
