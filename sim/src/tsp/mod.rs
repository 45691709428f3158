//! The TSP's texture sampler: TexState decode, level, slice and cube-face addressing
//! (computed here, independently of `layout`), twiddled and linear fetch, every sampleable
//! format (sRGB and depth decoded per texel), nearest / bilinear / trilinear-in-a-volume / mip
//! filtering, LOD from derivatives, wrap modes with border colour, shadow compare, channel
//! swizzle. This file holds the sampler (LOD, filters, compare, swizzle); `unit` a texture
//! unit's levels and texel fetch, `addr` the addressing, `decode` the formats, `fast` the
//! fast paths checked against this reference.

use sgx_hwdocs::isp::CompareFunc;
use sgx_hwdocs::limits::MAX_TEXTURE_LEVELS;
use sgx_hwdocs::texture::{Filter, MipFilter, Swizzle};

use crate::mmu::Mmu;
use crate::usse::{Lod, Textures};
use crate::{Fault, Unit};

mod addr;
mod decode;
mod fast;
#[cfg(test)]
mod tests_features;
mod unit;

use addr::{cube_face, cube_st_on, wrap, BORDER};
pub(crate) use addr::{spread_even, twiddle};
pub(crate) use decode::Decoder;
pub(crate) use fast::span::{SpanTex, SPAN_PX};
pub(crate) use fast::{twiddle_col, twiddle_row};
pub(crate) use unit::{TexTable, TexUnit};

/// Levels a unit holds room for (hwdocs' limit).
const LEVELS: usize = MAX_TEXTURE_LEVELS as usize;

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

/// The scale factor rho of GL 2.1 section 3.8.8 from the derivatives (in texels) of each
/// axis across (`ddx`) and down (`ddy`) the quad, in the form that section allows instead of
/// the vectors' lengths: the largest `max(|d/dx|, |d/dy|)` over the axes (MODEL, hwdocs
/// model-choices "Texture LOD"; softpipe's form). A NaN derivative is passed over, as
/// `f32::max` does.
fn rho<const N: usize>(ddx: [f32; N], ddy: [f32; N]) -> f32 {
    let mut r = 0.0f32;
    for k in 0..N {
        r = r.max(ddx[k].abs()).max(ddy[k].abs());
    }
    r
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
                    return rho(scale(ddx), scale(ddy)).log2();
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
