//! The sampler's fast paths, each equal to the reference in `mod.rs` (held by the tests below
//! and by whole renders in `crate::fastpaths`): a floor without the libm call, twiddled
//! addressing split into column and row parts, table decoders, and a per-quad path for
//! LOD-free units that decodes the unit once per quad and filters with the texel format known
//! at compile time; volumes, border reads and shadow compare through `filter_ext_at`.

use sgx_hwdocs::texture::{AddrMode, Filter, Swizzle, TexState};

use super::decode::SRGB8;
use super::{shadow, wrap, At, Decoder, Sampler, TexUnit, BORDER, LEVELS};
use crate::num::{floor_fast, floor_i};
use crate::Fault;

use super::spread_even as spread;

/// The X part of [`super::twiddle`]: its bits are disjoint from [`twiddle_row`]'s, so
/// `twiddle(x, y) == twiddle_col(x) | twiddle_row(y)` for x, y inside the level.
#[inline(always)]
pub(crate) fn twiddle_col(x: u32, log2_w: u32, log2_h: u32) -> u32 {
    let m = log2_w.min(log2_h);
    let lo = (1u32 << m) - 1;
    let rest = if log2_w > log2_h { x >> m } else { 0 };
    (spread(x & lo) << 1) | (rest << (2 * m))
}

/// The Y part of [`super::twiddle`] (see [`twiddle_col`]).
#[inline(always)]
pub(crate) fn twiddle_row(y: u32, log2_w: u32, log2_h: u32) -> u32 {
    let m = log2_w.min(log2_h);
    let lo = (1u32 << m) - 1;
    let rest = if log2_w > log2_h { 0 } else { y >> m };
    spread(y & lo) | (rest << (2 * m))
}

/// raw / (2^bits - 1) for every unorm channel width 1..=8 and raw value (row 0 unused): the
/// values the reference decoder's division gives.
static UNORM: [[f32; 256]; 9] = {
    // One row per channel width, one entry per raw value up to a byte's.
    let mut t = [[0.0f32; 256]; 9];
    let mut bits = 1;
    while bits <= 8 {
        let max = ((1u32 << bits) - 1) as f32;
        let mut k = 0;
        while k < (1 << bits) {
            t[bits][k] = k as f32 / max;
            k += 1;
        }
        bits += 1;
    }
    t
};

/// Ones, for a missing alpha lane.
static ONES: [f32; 256] = [1.0; 256];

/// The table decoder of a unorm format whose channels are all 8 bits or narrower: lane `l` of
/// an element `v` is `table[l][(v >> shift[l]) & mask[l]]` (a missing lane has mask 0 and a
/// table holding its constant), without branches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lut {
    shift: [u32; 4],
    mask: [u32; 4],
    // Each channel's row of UNORM: one entry per raw value.
    table: [&'static [f32; 256]; 4],
}

impl Lut {
    /// The table decoder equal to `dec`, when its format has one.
    pub(crate) fn new(dec: &Decoder) -> Option<Lut> {
        if dec.float || dec.ch[..dec.nch].iter().any(|c| c.1 > 8) {
            return None;
        }
        let mut lut = Lut {
            shift: [0; 4],
            mask: [0; 4],
            table: [&UNORM[1], &UNORM[1], &UNORM[1], &ONES],
        };
        // Later channels win a lane, as in `Decoder::decode`.
        for &(lo, bits, lanes, _) in &dec.ch[..dec.nch] {
            for l in 0..4 {
                if lanes & (1 << l) != 0 {
                    lut.shift[l] = lo;
                    lut.mask[l] = (1 << bits) - 1;
                    lut.table[l] = if dec.srgb && bits == 8 && l < 3 {
                        &SRGB8
                    } else {
                        &UNORM[bits as usize]
                    };
                }
            }
        }
        Some(lut)
    }

    /// RGBA of one element; equal to `Decoder::decode`.
    #[inline(always)]
    pub(crate) fn decode(&self, v: u32) -> [f32; 4] {
        let lane = |l: usize| self.table[l][((v >> self.shift[l]) & self.mask[l] & 0xff) as usize];
        [lane(0), lane(1), lane(2), lane(3)]
    }

    /// Whether lanes r, g, b, a are whole bytes at these shifts (None: the constant 1).
    fn is_bytes(&self, shifts: [Option<u32>; 4]) -> bool {
        (0..4).all(|l| match shifts[l] {
            Some(sh) => {
                self.shift[l] == sh
                    && self.mask[l] == 0xff
                    && std::ptr::eq(self.table[l], &UNORM[8])
            }
            None => self.mask[l] == 0 && std::ptr::eq(self.table[l], &ONES),
        })
    }
}

/// Which statically known texel reader the quad path uses for a unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// 32-bit, bytes B G R A.
    Bgra8,
    /// 32-bit, bytes R G B A.
    Rgba8,
    /// 32-bit, bytes B G R X (alpha 1).
    Bgrx8,
    /// Any format with a [`Lut`].
    Table,
    /// The reference decoder (float formats).
    Decoder,
}

/// What the fast paths precompute per texture unit.
#[derive(Clone, Debug)]
pub(crate) struct FastUnit {
    lut: Option<Lut>,
    kind: Kind,
    /// Swizzle as indices into (r, g, b, a, 0, 1).
    swz: [usize; 4],
    swz_identity: bool,
    /// For the quad path (LOD-free units with a held base level): the byte offset of each
    /// column and each row of the base level (`col_B`, `row_B` as tables).
    cols_B: Vec<u32>,
    rows_B: Vec<u32>,
}

impl FastUnit {
    pub(crate) fn new(st: &TexState, dec: &Decoder, bpe: u32) -> FastUnit {
        let lut = Lut::new(dec);
        let kind = match &lut {
            Some(l) if bpe == 4 && l.is_bytes([Some(16), Some(8), Some(0), Some(24)]) => {
                Kind::Bgra8
            }
            Some(l) if bpe == 4 && l.is_bytes([Some(0), Some(8), Some(16), Some(24)]) => {
                Kind::Rgba8
            }
            Some(l) if bpe == 4 && l.is_bytes([Some(16), Some(8), Some(0), None]) => Kind::Bgrx8,
            Some(_) => Kind::Table,
            None => Kind::Decoder,
        };
        let idx = |z: Swizzle| match z {
            Swizzle::R => 0,
            Swizzle::G => 1,
            Swizzle::B => 2,
            Swizzle::A => 3,
            Swizzle::ZERO => 4,
            Swizzle::ONE => 5,
        };
        let swz = [idx(st.swz_r), idx(st.swz_g), idx(st.swz_b), idx(st.swz_a)];
        FastUnit {
            lut,
            kind,
            swz,
            swz_identity: swz == [0, 1, 2, 3],
            cols_B: Vec::new(),
            rows_B: Vec::new(),
        }
    }

    /// Fills the quad path's offset tables once `u`'s levels are laid out: only for plain
    /// units, as the tables hold no border taps, slices or compares (an empty table keeps
    /// every other unit off the quad path).
    pub(crate) fn plan(u: &mut TexUnit) {
        let l = u.st.base_level as usize;
        if u.lod_free && !u.ext && u.ptr.get(l).is_some_and(Option::is_some) {
            u.fast.cols_B = (0..u.w[l]).map(|x| u.col_B(l, x)).collect();
            u.fast.rows_B = (0..u.h[l]).map(|y| u.row_B(l, y)).collect();
        }
    }

    /// The reference's channel swizzle of a filtered colour.
    #[inline(always)]
    fn swizzle(&self, o: [f32; 4]) -> [f32; 4] {
        if self.swz_identity {
            return o;
        }
        let e = [o[0], o[1], o[2], o[3], 0.0, 1.0];
        self.swz.map(|i| e[i])
    }
}

/// Reads and decodes one element of a level held in host memory.
trait Texel {
    /// For the 8-bit RGBA kinds, the (`SWAP_RB`, `OPAQUE`) of their SIMD blends.
    const RGBA8: Option<(bool, bool)> = None;

    /// The element at `p + off`, decoded.
    ///
    /// # Safety
    /// `p` is a level pointer of `u` and `off` the byte offset of an element of that level.
    unsafe fn at(u: &TexUnit, p: *const u8, off: u32) -> [f32; 4];

    /// The reference bilinear blend of the elements at offsets `off` (t00, t10, t01, t11)
    /// with weights `ax`, `ay`.
    ///
    /// # Safety
    /// As `at`, for every offset.
    #[inline(always)]
    unsafe fn bilinear(u: &TexUnit, p: *const u8, off: [u32; 4], ax: f32, ay: f32) -> [f32; 4] {
        // SAFETY: forwarded contract.
        unsafe { bilinear_scalar::<Self>(u, p, off, ax, ay) }
    }
}

/// `Texel::bilinear` in scalar code, element by element as `filter2d` blends.
///
/// # Safety
/// As `Texel::at`, for every offset.
#[inline(always)]
unsafe fn bilinear_scalar<X: Texel + ?Sized>(
    u: &TexUnit,
    p: *const u8,
    off: [u32; 4],
    ax: f32,
    ay: f32,
) -> [f32; 4] {
    // SAFETY: forwarded contract.
    let (t00, t10, t01, t11) = unsafe {
        (
            X::at(u, p, off[0]),
            X::at(u, p, off[1]),
            X::at(u, p, off[2]),
            X::at(u, p, off[3]),
        )
    };
    let mut o = [0.0; 4];
    for c in 0..4 {
        let top = t00[c] + (t10[c] - t00[c]) * ax;
        let bot = t01[c] + (t11[c] - t01[c]) * ax;
        o[c] = top + (bot - top) * ay;
    }
    o
}

mod simd;
pub(crate) mod span;
use simd::avx2_available;
#[cfg(target_arch = "x86_64")]
use simd::sse;
#[cfg(test)]
use simd::{INV255_HI, INV255_LO};

/// # Safety
/// `p + off .. p + off + 4` is readable.
#[inline(always)]
unsafe fn read32(p: *const u8, off: u32) -> u32 {
    // SAFETY: per the contract.
    u32::from_le(unsafe { std::ptr::read_unaligned(p.add(off as usize) as *const u32) })
}

#[inline(always)]
fn byte(v: u32, sh: u32) -> f32 {
    UNORM[8][usize::from((v >> sh) as u8)]
}

struct Bgra8;
impl Texel for Bgra8 {
    const RGBA8: Option<(bool, bool)> = Some((true, false));

    #[inline(always)]
    unsafe fn at(_: &TexUnit, p: *const u8, off: u32) -> [f32; 4] {
        // SAFETY: a Bgra8 unit has 4-byte elements.
        let v = unsafe { read32(p, off) };
        [byte(v, 16), byte(v, 8), byte(v, 0), byte(v, 24)]
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn bilinear(_: &TexUnit, p: *const u8, off: [u32; 4], ax: f32, ay: f32) -> [f32; 4] {
        // SAFETY: forwarded contract (4-byte elements).
        unsafe { sse::bilinear::<true, false>(p, off, ax, ay) }
    }
}

struct Rgba8;
impl Texel for Rgba8 {
    const RGBA8: Option<(bool, bool)> = Some((false, false));

    #[inline(always)]
    unsafe fn at(_: &TexUnit, p: *const u8, off: u32) -> [f32; 4] {
        // SAFETY: an Rgba8 unit has 4-byte elements.
        let v = unsafe { read32(p, off) };
        [byte(v, 0), byte(v, 8), byte(v, 16), byte(v, 24)]
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn bilinear(_: &TexUnit, p: *const u8, off: [u32; 4], ax: f32, ay: f32) -> [f32; 4] {
        // SAFETY: forwarded contract (4-byte elements).
        unsafe { sse::bilinear::<false, false>(p, off, ax, ay) }
    }
}

struct Bgrx8;
impl Texel for Bgrx8 {
    const RGBA8: Option<(bool, bool)> = Some((true, true));

    #[inline(always)]
    unsafe fn at(_: &TexUnit, p: *const u8, off: u32) -> [f32; 4] {
        // SAFETY: a Bgrx8 unit has 4-byte elements.
        let v = unsafe { read32(p, off) };
        [byte(v, 16), byte(v, 8), byte(v, 0), 1.0]
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn bilinear(_: &TexUnit, p: *const u8, off: [u32; 4], ax: f32, ay: f32) -> [f32; 4] {
        // SAFETY: forwarded contract (4-byte elements).
        unsafe { sse::bilinear::<true, true>(p, off, ax, ay) }
    }
}

/// Any format: its table decoder, else the reference decoder.
struct AnyTexel;
impl Texel for AnyTexel {
    #[inline(always)]
    unsafe fn at(u: &TexUnit, p: *const u8, off: u32) -> [f32; 4] {
        // SAFETY: forwarded contract.
        let v = unsafe { u.raw_at(p, off) };
        match &u.fast.lut {
            Some(l) => l.decode(v),
            None => u.dec.decode(v),
        }
    }
}

impl TexUnit {
    /// Byte offset of column `x` of level `l`; an element's offset is `col_B + row_B`.
    #[inline(always)]
    fn col_B(&self, l: usize, x: u32) -> u32 {
        if self.twiddled {
            twiddle_col(x, self.lw[l], self.lh[l]) * self.bpe
        } else {
            x * self.bpe
        }
    }

    /// Byte offset of row `y` of level `l`.
    #[inline(always)]
    fn row_B(&self, l: usize, y: u32) -> u32 {
        if self.twiddled {
            twiddle_row(y, self.lw[l], self.lh[l]) * self.bpe
        } else {
            y * self.stride[l]
        }
    }

    /// The raw element at byte offset `off` of a level held at `p`.
    ///
    /// # Safety
    /// `p` is a level pointer of this unit and `off` the offset of an element of that level.
    #[inline(always)]
    unsafe fn raw_at(&self, p: *const u8, off: u32) -> u32 {
        // SAFETY: [p + off, p + off + bpe) lies inside the level's span, per the contract.
        unsafe {
            let p = p.add(off as usize);
            match self.bpe {
                4 => u32::from_le(std::ptr::read_unaligned(p as *const u32)),
                2 => u32::from(u16::from_le(std::ptr::read_unaligned(p as *const u16))),
                _ => u32::from(*p),
            }
        }
    }
}

/// The reference `filter_ref` of a plain unit (2D, no border, no compare) on level `l` held
/// at host pointer `p`: the same arithmetic, with the addressing split into column and row
/// offsets and elements read through `X`.
#[inline(always)]
fn filter_at<X: Texel>(
    u: &TexUnit,
    p: *const u8,
    l: usize,
    s: f32,
    t: f32,
    f: Filter,
    texels: &mut u64,
) -> [f32; 4] {
    let (w, h) = (u.w[l], u.h[l]);
    let [ws, wt, _] = u.wraps;
    match f {
        Filter::NEAREST => {
            let x = wrap(floor_fast(s * w as f32) as i32, w, ws);
            let y = wrap(floor_fast(t * h as f32) as i32, h, wt);
            *texels += 1;
            // SAFETY: wrap keeps x < w and y < h, so the offset is an element of level l.
            unsafe { X::at(u, p, u.col_B(l, x) + u.row_B(l, y)) }
        }
        Filter::LINEAR => {
            let fx = s * w as f32 - 0.5;
            let fy = t * h as f32 - 0.5;
            let (x0f, y0f) = (floor_fast(fx), floor_fast(fy));
            let (ax, ay) = (fx - x0f, fy - y0f);
            let (x0, y0) = (x0f as i32, y0f as i32);
            let (xa, xb) = (wrap(x0, w, ws), wrap(x0.saturating_add(1), w, ws));
            let (ya, yb) = (wrap(y0, h, wt), wrap(y0.saturating_add(1), h, wt));
            let (ca, cb) = (u.col_B(l, xa), u.col_B(l, xb));
            let (ra, rb) = (u.row_B(l, ya), u.row_B(l, yb));
            *texels += 4;
            // SAFETY: wrap keeps every coordinate inside level l.
            let (t00, t10, t01, t11) = unsafe {
                (
                    X::at(u, p, ca + ra),
                    X::at(u, p, cb + ra),
                    X::at(u, p, ca + rb),
                    X::at(u, p, cb + rb),
                )
            };
            let mut o = [0.0; 4];
            for i in 0..4 {
                let top = t00[i] + (t10[i] - t00[i]) * ax;
                let bot = t01[i] + (t11[i] - t01[i]) * ax;
                o[i] = top + (bot - top) * ay;
            }
            o
        }
    }
}

/// The reference `filter_ref` of any unit (volumes, border-addressed axes, shadow compare)
/// on level `l` held at host pointer `p`: the same arithmetic and tap order, with slices at
/// byte offsets `z * slice_B` and elements read through `X`.
#[inline(always)]
fn filter_ext_at<X: Texel>(
    u: &TexUnit,
    p: *const u8,
    l: usize,
    at: At,
    f: Filter,
    texels: &mut u64,
) -> [f32; 4] {
    let (w, h, d) = (u.w[l], u.h[l], u.d[l]);
    let [ws, wt, wr] = u.wraps;
    let slice_B = u.slice_B[l];
    let tap = |x: u32, y: u32, z: u32| {
        let t = if x == BORDER || y == BORDER || z == BORDER {
            u.border
        } else {
            // SAFETY: wrap keeps x < w, y < h and z < d (else BORDER, handled above), so the
            // offset is an element of level l, whose span covers every slice.
            unsafe { X::at(u, p, z * slice_B + u.col_B(l, x) + u.row_B(l, y)) }
        };
        match u.cmp {
            Some(func) => shadow(func, at.refz, t[0]),
            None => t,
        }
    };
    match f {
        Filter::NEAREST => {
            let x = wrap(floor_fast(at.s * w as f32) as i32, w, ws);
            let y = wrap(floor_fast(at.t * h as f32) as i32, h, wt);
            let z = if u.st.volume {
                wrap(floor_fast(at.r * d as f32) as i32, d, wr)
            } else {
                0
            };
            *texels += 1;
            tap(x, y, z)
        }
        Filter::LINEAR => {
            let fx = at.s * w as f32 - 0.5;
            let fy = at.t * h as f32 - 0.5;
            let (x0f, y0f) = (floor_fast(fx), floor_fast(fy));
            let (ax, ay) = (fx - x0f, fy - y0f);
            let (x0, y0) = (x0f as i32, y0f as i32);
            let (xa, xb) = (wrap(x0, w, ws), wrap(x0.saturating_add(1), w, ws));
            let (ya, yb) = (wrap(y0, h, wt), wrap(y0.saturating_add(1), h, wt));
            let bilinear = |z: u32| {
                let (t00, t10, t01, t11) = (
                    tap(xa, ya, z),
                    tap(xb, ya, z),
                    tap(xa, yb, z),
                    tap(xb, yb, z),
                );
                let mut o = [0.0; 4];
                for i in 0..4 {
                    let top = t00[i] + (t10[i] - t00[i]) * ax;
                    let bot = t01[i] + (t11[i] - t01[i]) * ax;
                    o[i] = top + (bot - top) * ay;
                }
                o
            };
            if !u.st.volume {
                *texels += 4;
                return bilinear(0);
            }
            *texels += 8;
            let fz = at.r * d as f32 - 0.5;
            let z0f = floor_fast(fz);
            let az = fz - z0f;
            let z0 = z0f as i32;
            let a = bilinear(wrap(z0, d, wr));
            let b = bilinear(wrap(z0.saturating_add(1), d, wr));
            [0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * az)
        }
    }
}

impl Sampler<'_> {
    /// `filter_ref` through the fast path when the level is held in one mapping.
    #[inline(always)]
    pub(super) fn filter<const FAST: bool>(
        &mut self,
        u: &TexUnit,
        at: At,
        l: usize,
        f: Filter,
    ) -> Result<[f32; 4], Fault> {
        if FAST {
            if let Some(p) = u.ptr[at.face as usize * LEVELS + l] {
                let n = &mut self.texels;
                return Ok(if u.ext {
                    filter_ext_at::<AnyTexel>(u, p, l, at, f, n)
                } else {
                    filter_at::<AnyTexel>(u, p, l, at.s, at.t, f, n)
                });
            }
        }
        self.filter_ref(u, at, l, f)
    }

    /// `sample` for the `ex` pixels of a quad on a LOD-free unit whose base level is held in
    /// one mapping (what `sample_with::<true>` does per pixel, with the unit decoded once);
    /// false, touching nothing, for any other unit.
    pub(super) fn quad_fast(
        &mut self,
        u: &TexUnit,
        coord: &[[f32; 4]; 4],
        ex: [bool; 4],
        out: &mut [[f32; 4]; 4],
    ) -> bool {
        let l = u.st.base_level as usize;
        let p = match u.ptr.get(l) {
            Some(Some(p)) if u.lod_free && !u.fast.cols_B.is_empty() => *p,
            _ => return false,
        };
        let lv = Level::of(u, l, p, avx2_available());
        let f = u.st.mag_filter;
        let n = ex.iter().filter(|&&e| e).count() as u64;
        self.texels += n * if f == Filter::LINEAR { 4 } else { 1 };
        match (u.fast.kind, f) {
            (Kind::Bgra8, Filter::LINEAR) => quad_linear::<Bgra8>(u, &lv, coord, ex, out),
            (Kind::Rgba8, Filter::LINEAR) => quad_linear::<Rgba8>(u, &lv, coord, ex, out),
            (Kind::Bgrx8, Filter::LINEAR) => quad_linear::<Bgrx8>(u, &lv, coord, ex, out),
            (_, Filter::LINEAR) => quad_linear::<AnyTexel>(u, &lv, coord, ex, out),
            (_, Filter::NEAREST) => quad_nearest(u, &lv, coord, ex, out),
        }
        true
    }
}

/// The quad path's view of one held level.
struct Level<'a> {
    p: *const u8,
    w: u32,
    h: u32,
    ws: AddrMode,
    wt: AddrMode,
    cols_B: &'a [u32],
    rows_B: &'a [u32],
    /// Whether the quad's blends may run in AVX2.
    avx2: bool,
}

impl<'a> Level<'a> {
    /// Level `l` of `u`, its texels at host pointer `p`; `avx2`: whether blends may use it.
    #[inline(always)]
    fn of(u: &'a TexUnit, l: usize, p: *const u8, avx2: bool) -> Level<'a> {
        Level {
            p,
            w: u.w[l],
            h: u.h[l],
            ws: u.st.wrap_s,
            wt: u.st.wrap_t,
            cols_B: &u.fast.cols_B,
            rows_B: &u.fast.rows_B,
            avx2,
        }
    }
}

/// A quad's bilinear footprints: per pixel the wrapped columns (xa, xb) and rows (ya, yb)
/// and the weights (ax, ay). Lanes of pixels not executing are unspecified.
#[derive(Clone, Copy, Debug, Default)]
struct Footprints {
    xa: [u32; 4],
    xb: [u32; 4],
    ya: [u32; 4],
    yb: [u32; 4],
    ax: [f32; 4],
    ay: [f32; 4],
}

/// `filter_at` LINEAR's coordinate maths, pixel by pixel.
#[inline(always)]
fn footprints_scalar(lv: &Level, coord: &[[f32; 4]; 4], ex: [bool; 4]) -> Footprints {
    let (wf, hf) = (lv.w as f32, lv.h as f32);
    let mut f = Footprints::default();
    for i in 0..4 {
        if !ex[i] {
            continue;
        }
        let fx = coord[i][0] * wf - 0.5;
        let fy = coord[i][1] * hf - 0.5;
        let ((x0f, x0), (y0f, y0)) = (floor_i(fx), floor_i(fy));
        (f.ax[i], f.ay[i]) = (fx - x0f, fy - y0f);
        (f.xa[i], f.xb[i]) = (
            wrap(x0, lv.w, lv.ws),
            wrap(x0.saturating_add(1), lv.w, lv.ws),
        );
        (f.ya[i], f.yb[i]) = (
            wrap(y0, lv.h, lv.wt),
            wrap(y0.saturating_add(1), lv.h, lv.wt),
        );
    }
    f
}

/// `footprints_scalar` for the four pixels at once in SSE2 (part of every x86_64), when every
/// executing pixel's scaled coordinates lie inside +-2^23 (else None): the same products and
/// differences lane-wise, `floor_i` as truncate / compare / step down / copy the sign, and
/// CLAMP_TO_EDGE as compares and selects (other modes wrap lane by lane). Inside +-2^23 the
/// reference's saturating +1 is a plain +1.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn footprints_sse2(lv: &Level, coord: &[[f32; 4]; 4], ex: [bool; 4]) -> Option<Footprints> {
    use std::arch::x86_64::*;
    let ex_bits = (0..4).fold(0, |m, i| m | (i32::from(ex[i]) << i));
    // SAFETY: SSE2 is in the x86_64 baseline; stores write whole local arrays.
    unsafe {
        let lanes = |k: usize| _mm_set_ps(coord[3][k], coord[2][k], coord[1][k], coord[0][k]);
        let half = _mm_set1_ps(0.5);
        let fx = _mm_sub_ps(_mm_mul_ps(lanes(0), _mm_set1_ps(lv.w as f32)), half);
        let fy = _mm_sub_ps(_mm_mul_ps(lanes(1), _mm_set1_ps(lv.h as f32)), half);
        let sign = _mm_set1_ps(-0.0);
        let limit = _mm_set1_ps(8_388_608.0);
        let small = |v: __m128| _mm_movemask_ps(_mm_cmplt_ps(_mm_andnot_ps(sign, v), limit));
        if small(fx) & small(fy) & ex_bits != ex_bits {
            return None;
        }
        // (floor as f32, floor as i32) of lanes inside +-2^23, as `floor_i`.
        let floor = |v: __m128| {
            let i = _mm_cvttps_epi32(v);
            let t = _mm_cvtepi32_ps(i);
            let gt = _mm_cmpgt_ps(t, v);
            let i = _mm_add_epi32(i, _mm_castps_si128(gt));
            let r = _mm_sub_ps(t, _mm_and_ps(gt, _mm_set1_ps(1.0)));
            let r = _mm_or_ps(_mm_andnot_ps(sign, r), _mm_and_ps(sign, v));
            (r, i)
        };
        let ((x0f, x0), (y0f, y0)) = (floor(fx), floor(fy));
        let mut f = Footprints::default();
        _mm_storeu_ps(f.ax.as_mut_ptr(), _mm_sub_ps(fx, x0f));
        _mm_storeu_ps(f.ay.as_mut_ptr(), _mm_sub_ps(fy, y0f));
        // Columns (or rows) v and v + 1 of every lane, wrapped by `m` into 0..n (n >= 1).
        #[inline(always)]
        fn axis(
            v: __m128i,
            n: u32,
            m: AddrMode,
            ex: [bool; 4],
            a: &mut [u32; 4],
            b: &mut [u32; 4],
        ) {
            // SAFETY: SSE2 is in the x86_64 baseline; stores write whole local arrays.
            unsafe {
                let store = |v: __m128i, dst: &mut [u32; 4]| {
                    _mm_storeu_si128(dst.as_mut_ptr() as *mut __m128i, v)
                };
                let v1 = _mm_add_epi32(v, _mm_set1_epi32(1));
                if m == AddrMode::CLAMP_TO_EDGE {
                    // i.clamp(0, n - 1) lane-wise.
                    let top = _mm_set1_epi32(n as i32 - 1);
                    let clamp = |v: __m128i| {
                        let v = _mm_and_si128(v, _mm_cmpgt_epi32(v, _mm_setzero_si128()));
                        let over = _mm_cmpgt_epi32(v, top);
                        _mm_or_si128(_mm_and_si128(over, top), _mm_andnot_si128(over, v))
                    };
                    store(clamp(v), a);
                    store(clamp(v1), b);
                } else if m == AddrMode::REPEAT && n.is_power_of_two() {
                    // `rem_euclid` by a power of two is a mask in two's complement (GL's
                    // default wrap: the divides were 9% of a textured fill's cycles).
                    let mask = _mm_set1_epi32(n as i32 - 1);
                    store(_mm_and_si128(v, mask), a);
                    store(_mm_and_si128(v1, mask), b);
                } else {
                    let mut raw = [0u32; 4];
                    store(v, &mut raw);
                    for i in 0..4 {
                        if ex[i] {
                            a[i] = wrap(raw[i] as i32, n, m);
                            b[i] = wrap(raw[i] as i32 + 1, n, m);
                        }
                    }
                }
            }
        }
        axis(x0, lv.w, lv.ws, ex, &mut f.xa, &mut f.xb);
        axis(y0, lv.h, lv.wt, ex, &mut f.ya, &mut f.yb);
        Some(f)
    }
}

/// `filter_at` LINEAR for the `ex` pixels of a quad.
#[inline(always)]
fn quad_linear<X: Texel>(
    u: &TexUnit,
    lv: &Level,
    coord: &[[f32; 4]; 4],
    ex: [bool; 4],
    out: &mut [[f32; 4]; 4],
) {
    #[cfg(target_arch = "x86_64")]
    let f = footprints_sse2(lv, coord, ex).unwrap_or_else(|| footprints_scalar(lv, coord, ex));
    #[cfg(not(target_arch = "x86_64"))]
    let f = footprints_scalar(lv, coord, ex);
    #[cfg(target_arch = "x86_64")]
    if let (Some((swap_rb, opaque)), true, true, true) =
        (X::RGBA8, lv.avx2, ex == [true; 4], u.fast.swz_identity)
    {
        let mut off = [[0u32; 4]; 4];
        for (i, o) in off.iter_mut().enumerate() {
            let (ca, cb) = (lv.cols_B[f.xa[i] as usize], lv.cols_B[f.xb[i] as usize]);
            let (ra, rb) = (lv.rows_B[f.ya[i] as usize], lv.rows_B[f.yb[i] as usize]);
            *o = [ca + ra, cb + ra, ca + rb, cb + rb];
        }
        // SAFETY: AVX2 was detected; the tables hold offsets of elements of the held level,
        // whose elements are 4 bytes for these kinds.
        unsafe {
            match (swap_rb, opaque) {
                (true, true) => simd::avx2::quad::<true, true>(lv.p, &off, f.ax, f.ay, out),
                (true, false) => simd::avx2::quad::<true, false>(lv.p, &off, f.ax, f.ay, out),
                (false, true) => simd::avx2::quad::<false, true>(lv.p, &off, f.ax, f.ay, out),
                (false, false) => simd::avx2::quad::<false, false>(lv.p, &off, f.ax, f.ay, out),
            }
        }
        return;
    }
    for i in 0..4 {
        if !ex[i] {
            continue;
        }
        let (ca, cb) = (lv.cols_B[f.xa[i] as usize], lv.cols_B[f.xb[i] as usize]);
        let (ra, rb) = (lv.rows_B[f.ya[i] as usize], lv.rows_B[f.yb[i] as usize]);
        let off = [ca + ra, cb + ra, ca + rb, cb + rb];
        // SAFETY: the tables hold offsets of elements of the held level.
        let o = unsafe { X::bilinear(u, lv.p, off, f.ax[i], f.ay[i]) };
        out[i] = u.fast.swizzle(o);
    }
}

/// `filter_at` NEAREST for the `ex` pixels of a quad.
fn quad_nearest(
    u: &TexUnit,
    lv: &Level,
    coord: &[[f32; 4]; 4],
    ex: [bool; 4],
    out: &mut [[f32; 4]; 4],
) {
    let (wf, hf) = (lv.w as f32, lv.h as f32);
    for i in 0..4 {
        if ex[i] {
            let x = wrap(floor_fast(coord[i][0] * wf) as i32, lv.w, lv.ws);
            let y = wrap(floor_fast(coord[i][1] * hf) as i32, lv.h, lv.wt);
            let off = lv.cols_B[x as usize] + lv.rows_B[y as usize];
            // SAFETY: the tables hold offsets of elements of the held level.
            out[i] = u.fast.swizzle(unsafe { AnyTexel::at(u, lv.p, off) });
        }
    }
}

#[cfg(test)]
mod tests;
