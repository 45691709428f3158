//! The span path of the sampler: bilinear samples of eight pixels of a row per call on a
//! LOD-free unit of an 8-bit RGBA kind (B8G8R8A8, R8G8B8A8, B8G8R8X8) whose base level is held
//! in one mapping. The footprints (products, floors, weights, wraps) run eight lanes at once in
//! AVX2 with the same IEEE operations as `footprints_scalar`; the taps and blends run through
//! the quad path's AVX2 blend, two pixels per register. Every lane is bit-identical to
//! `quad_linear`: `fast/tests.rs` compares the footprints with `footprints_scalar` on random
//! and special coordinates, sizes and every wrap mode (the blend is the quad path's, tested
//! there), and `crate::fastpaths::spans::span_path_scenes` compares whole renders with the reference
//! on every kind, both layouts, every wrap mode, a swizzle and each interpolation.
//!
//! Tried and not kept (measured in CPU time over `bench sim`): channels in lanes, each tap's
//! eight texels gathered (`vpgatherdd`, also for the column and row tables) or loaded one by
//! one, decoded and blended a channel per register, then transposed: 10-20% slower than this
//! form, whose table reads are unchecked loads and whose texels are read a pixel pair at a
//! time. And on the Emerald Rapids Xeon, a quad's four pixels blended in one AVX-512 register
//! (bit-exact, the same operations lane by lane): `bench sim` on one thread ran slower, medians
//! 62 against 68 and 45 against 52 Mpix/s in two sets of six interleaved rounds.

use sgx_hwdocs::texture::{AddrMode, Filter};

use super::{avx2_available, footprints_scalar, Footprints, Kind, Level, Sampler, TexUnit};

/// Pixels per span call.
pub(crate) const SPAN_PX: usize = 8;

/// A unit the span path takes, with its base level's view.
pub(crate) struct SpanTex<'a> {
    u: &'a TexUnit,
    lv: Level<'a>,
    /// (`SWAP_RB`, `OPAQUE`) of the unit's kind.
    rgba8: (bool, bool),
}

impl<'a> Sampler<'a> {
    /// The span view of unit `unit` when it is fast, LOD-free, bilinear, of an 8-bit RGBA
    /// kind with its base level held, and the CPU has AVX2; None otherwise (the caller then
    /// samples quad by quad).
    pub(crate) fn span_tex(&self, unit: u32) -> Option<SpanTex<'a>> {
        let u = self
            .table
            .units
            .get(unit.wrapping_add(self.base) as usize)?;
        let l = u.st.base_level as usize;
        let p = (*u.ptr.get(l)?)?;
        let rgba8 = match u.fast.kind {
            Kind::Bgra8 => (true, false),
            Kind::Rgba8 => (false, false),
            Kind::Bgrx8 => (true, true),
            Kind::Table | Kind::Decoder => return None,
        };
        // Texel coordinates are normalised on the quad path (`tsp::normalized`), not here.
        let ok = self.fast
            && !u.st.unnormalized
            && u.lod_free
            && !u.fast.cols_B.is_empty()
            && u.st.mag_filter == Filter::LINEAR
            && avx2_available();
        ok.then(|| SpanTex {
            u,
            lv: Level::of(u, l, p, true),
            rgba8,
        })
    }
}

impl SpanTex<'_> {
    /// Filter taps per sample (bilinear).
    pub(crate) const TAPS: u64 = 4;

    /// What `quad_fast` gives for eight pixels with coordinates (`s[i]`, `t[i]`): their
    /// filtered, swizzled colours into `out` (every lane is sampled; the caller counts the
    /// texels of the lanes it keeps).
    ///
    /// # Safety
    /// AVX2 is available (a `SpanTex` is only made when it is).
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn bilinear8(
        &self,
        s: &[f32; SPAN_PX],
        t: &[f32; SPAN_PX],
        out: &mut [[f32; 4]; SPAN_PX],
    ) {
        let mut f = [Footprints::default(); 2];
        // SAFETY: AVX2 is available per the contract.
        if !unsafe { footprints8(&self.lv, s, t, &mut f) } {
            for (h, fh) in f.iter_mut().enumerate() {
                let c: [[f32; 4]; 4] = [0, 1, 2, 3].map(|i| [s[4 * h + i], t[4 * h + i], 0.0, 0.0]);
                *fh = footprints_scalar(&self.lv, &c, [true; 4]);
            }
        }
        let lv = &self.lv;
        for (h, fh) in f.iter().enumerate() {
            let mut off = [[0u32; 4]; 4];
            for (i, o) in off.iter_mut().enumerate() {
                // SAFETY: the footprints wrap columns into 0..w and rows into 0..h, the
                // tables' lengths (`FastUnit::plan`). Unchecked: the 32 bounds checks of a
                // span were a tenth of its instructions.
                let (ca, cb, ra, rb) = unsafe {
                    (
                        *lv.cols_B.get_unchecked(fh.xa[i] as usize),
                        *lv.cols_B.get_unchecked(fh.xb[i] as usize),
                        *lv.rows_B.get_unchecked(fh.ya[i] as usize),
                        *lv.rows_B.get_unchecked(fh.yb[i] as usize),
                    )
                };
                *o = [ca + ra, cb + ra, ca + rb, cb + rb];
            }
            let q: &mut [[f32; 4]; 4] = (&mut out[4 * h..4 * h + 4]).try_into().unwrap();
            // SAFETY: AVX2 is available; the tables hold offsets of elements of the held
            // level, whose elements are 4 bytes for these kinds.
            unsafe {
                match self.rgba8 {
                    (true, true) => {
                        super::simd::avx2::quad::<true, true>(lv.p, &off, fh.ax, fh.ay, q)
                    }
                    (true, false) => {
                        super::simd::avx2::quad::<true, false>(lv.p, &off, fh.ax, fh.ay, q)
                    }
                    (false, true) => {
                        super::simd::avx2::quad::<false, true>(lv.p, &off, fh.ax, fh.ay, q)
                    }
                    (false, false) => {
                        super::simd::avx2::quad::<false, false>(lv.p, &off, fh.ax, fh.ay, q)
                    }
                }
            }
            if !self.u.fast.swz_identity {
                for o in q.iter_mut() {
                    *o = self.u.fast.swizzle(*o);
                }
            }
        }
    }
}

/// `footprints_scalar` for eight pixels in AVX2 lanes, pixels 0..4 into `f[0]` and 4..8 into
/// `f[1]`, when every lane's scaled coordinates lie inside +-2^23 (else false, `f` partly
/// written): the same products and differences lane-wise, the floor as `roundps` (IEEE floor,
/// which `floor_i` equals), CLAMP_TO_EDGE as max/min and REPEAT on a power of two as a mask
/// (other modes wrap lane by lane). Inside +-2^23 the reference's saturating +1 is a plain +1.
///
/// # Safety
/// AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn footprints8(
    lv: &Level,
    s: &[f32; SPAN_PX],
    t: &[f32; SPAN_PX],
    f: &mut [Footprints; 2],
) -> bool {
    use std::arch::x86_64::*;

    // SAFETY: the loads read the eight floats of `s` and `t`.
    let (sv, tv) = unsafe { (_mm256_loadu_ps(s.as_ptr()), _mm256_loadu_ps(t.as_ptr())) };
    let half = _mm256_set1_ps(0.5);
    let fx = _mm256_sub_ps(_mm256_mul_ps(sv, _mm256_set1_ps(lv.w as f32)), half);
    let fy = _mm256_sub_ps(_mm256_mul_ps(tv, _mm256_set1_ps(lv.h as f32)), half);
    let sign = _mm256_set1_ps(-0.0);
    let limit = _mm256_set1_ps(8_388_608.0);
    // Macros, not closures: a closure would not inherit the target feature, and the
    // intrinsics in it would stay out of line.
    macro_rules! small {
        ($v:expr) => {
            _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(
                _mm256_andnot_ps(sign, $v),
                limit,
            ))
        };
    }
    if small!(fx) & small!(fy) != 0xff {
        return false;
    }
    let (x0f, y0f) = (_mm256_floor_ps(fx), _mm256_floor_ps(fy));
    let (ax, ay) = (_mm256_sub_ps(fx, x0f), _mm256_sub_ps(fy, y0f));
    let (x0, y0) = (_mm256_cvttps_epi32(x0f), _mm256_cvttps_epi32(y0f));
    // SAFETY: AVX2 is available per the contract.
    let [xa, xb] = unsafe { axis8(x0, lv.w, lv.ws) };
    // SAFETY: as above.
    let [ya, yb] = unsafe { axis8(y0, lv.h, lv.wt) };
    let (lo, hi) = f.split_at_mut(1);
    let (f0, f1) = (&mut lo[0], &mut hi[0]);
    macro_rules! put_ps {
        ($v:expr, $a:expr, $b:expr) => {
            _mm_storeu_ps($a.as_mut_ptr(), _mm256_castps256_ps128($v));
            _mm_storeu_ps($b.as_mut_ptr(), _mm256_extractf128_ps::<1>($v));
        };
    }
    macro_rules! put_si {
        ($v:expr, $a:expr, $b:expr) => {
            _mm_storeu_si128($a.as_mut_ptr() as *mut __m128i, _mm256_castsi256_si128($v));
            _mm_storeu_si128(
                $b.as_mut_ptr() as *mut __m128i,
                _mm256_extracti128_si256::<1>($v),
            );
        };
    }
    // SAFETY: each store writes four lanes into a whole four-lane array.
    unsafe {
        put_ps!(ax, f0.ax, f1.ax);
        put_ps!(ay, f0.ay, f1.ay);
        put_si!(xa, f0.xa, f1.xa);
        put_si!(xb, f0.xb, f1.xb);
        put_si!(ya, f0.ya, f1.ya);
        put_si!(yb, f0.yb, f1.yb);
    }
    true
}

/// Columns (or rows) `v` and `v + 1` of eight lanes, wrapped by `m` into 0..n (n >= 1), as
/// `wrap` does lane by lane.
///
/// # Safety
/// AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn axis8(
    v: std::arch::x86_64::__m256i,
    n: u32,
    m: AddrMode,
) -> [std::arch::x86_64::__m256i; 2] {
    use std::arch::x86_64::*;
    let v1 = _mm256_add_epi32(v, _mm256_set1_epi32(1));
    if m == AddrMode::CLAMP_TO_EDGE {
        let top = _mm256_set1_epi32(n as i32 - 1);
        let zero = _mm256_setzero_si256();
        [
            _mm256_min_epi32(_mm256_max_epi32(v, zero), top),
            _mm256_min_epi32(_mm256_max_epi32(v1, zero), top),
        ]
    } else if m == AddrMode::REPEAT && n.is_power_of_two() {
        // `rem_euclid` by a power of two is a mask in two's complement.
        let mask = _mm256_set1_epi32(n as i32 - 1);
        [_mm256_and_si256(v, mask), _mm256_and_si256(v1, mask)]
    } else {
        let mut raw = [0i32; SPAN_PX];
        // SAFETY: the store writes the eight lanes of a local array.
        unsafe { _mm256_storeu_si256(raw.as_mut_ptr() as *mut __m256i, v) };
        let a = raw.map(|i| super::wrap(i, n, m) as i32);
        let b = raw.map(|i| super::wrap(i + 1, n, m) as i32);
        // SAFETY: the loads read the eight lanes of local arrays.
        unsafe {
            [
                _mm256_loadu_si256(a.as_ptr() as *const __m256i),
                _mm256_loadu_si256(b.as_ptr() as *const __m256i),
            ]
        }
    }
}
