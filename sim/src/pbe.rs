//! The pixel backend: colour target addressing (linear stride or twiddled with the surface's
//! own log2 size), format conversion with round-to-nearest unorm, clip-limited tile stores
//! and tile loads.

use sgx_hwdocs::limits::TILE_W_PX;
use sgx_hwdocs::pbe::{MemLayout, PbeState};
use sgx_hwdocs::{Format, FormatKind};

use crate::job::JobErr;
use crate::mmu::Mmu;
use crate::num::clamp01_fast;
use crate::tsp::{twiddle, twiddle_col, twiddle_row, Decoder};
use crate::{Fault, Unit};

const T: u32 = TILE_W_PX as u32;

/// Bytes of a tile's colours encoded ([`Target::encode`]): 256 pixels of at most 4 bytes
/// (the row buffers of `store` hold the same).
pub(crate) const ENCODED_TILE_B: usize = 4 * (T * T) as usize;

/// Bytes of a tile row of 4-byte pixels.
const ROW4_B: usize = 4 * T as usize;

/// Packs RGBA into an element: per channel (shift, width, source lane; 4 = constant ones).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Encoder {
    ch: [(u32, u32, u8); 4],
    nch: usize,
}

impl Encoder {
    pub(crate) fn new(f: Format) -> Encoder {
        let mut ch = [(0, 0, 0u8); 4];
        let mut nch = 0;
        for c in f.info().channels {
            let src = match c.name {
                "r" => 0,
                "g" => 1,
                "b" => 2,
                "a" => 3,
                _ => 4,
            };
            if nch < 4 {
                ch[nch] = (c.lo, c.bits, src);
                nch += 1;
            }
        }
        Encoder { ch, nch }
    }

    /// Round-to-nearest unorm of clamped values (NaN as 0); padding channels all ones.
    #[inline(always)]
    pub(crate) fn encode(&self, c: [f32; 4]) -> u32 {
        let mut v = 0u32;
        for &(lo, bits, src) in &self.ch[..self.nch] {
            let max = ((1u64 << bits) - 1) as f32;
            let q = if src == 4 {
                max as u32
            } else {
                let x = c[usize::from(src)];
                let x = if x >= 1.0 {
                    1.0
                } else if x > 0.0 {
                    x
                } else {
                    0.0
                };
                (x * max + 0.5) as u32
            };
            v |= q << lo;
        }
        v
    }
}

/// The fast `Encoder`: per channel slot (shift, max, source lane) with padding channels
/// folded into `ones`, so encoding is four branch-free steps; unused slots have max 0 and
/// contribute (0 * 0 + 0.5) as u32 = 0.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastEncoder {
    ch: [(u32, f32, usize); 4],
    ones: u32,
    /// 32-bit formats of four 8-bit bytes, encoded four lanes at once.
    bytes: Bytes,
}

/// Which 4 x 8-bit byte order a format has (source lane of bytes 0, 1, 2, 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bytes {
    /// R G B A.
    Rgba,
    /// B G R A.
    Bgra,
    /// B G R, then a padding byte of ones.
    Bgrx,
    /// Anything else (the per-channel loop).
    Other,
}

impl FastEncoder {
    /// The fast form of `e`, when every channel is 16 bits or narrower (so a clamped channel
    /// times its max stays far inside u32).
    pub(crate) fn new(e: &Encoder) -> Option<FastEncoder> {
        let mut f = FastEncoder {
            ch: [(0, 0.0, 0); 4],
            ones: 0,
            bytes: Bytes::Other,
        };
        for (k, &(lo, bits, src)) in e.ch[..e.nch].iter().enumerate() {
            if bits > 16 {
                return None;
            }
            let max = (1u32 << bits) - 1;
            if src == 4 {
                f.ones |= max << lo;
            } else {
                f.ch[k] = (lo, max as f32, usize::from(src));
            }
        }
        // (shift, bits, source) of each channel, in any order, for the byte kinds.
        let mut chans: Vec<(u32, u32, u8)> = e.ch[..e.nch].to_vec();
        chans.sort_by_key(|c| c.0);
        let byte = |src: u8| (8, src);
        let layout: Vec<(u32, u8)> = chans.iter().map(|c| (c.1, c.2)).collect();
        f.bytes = if chans.iter().enumerate().any(|(k, c)| c.0 != 8 * k as u32) || chans.len() != 4
        {
            Bytes::Other
        } else if layout == [byte(0), byte(1), byte(2), byte(3)] {
            Bytes::Rgba
        } else if layout == [byte(2), byte(1), byte(0), byte(3)] {
            Bytes::Bgra
        } else if layout == [byte(2), byte(1), byte(0), byte(4)] {
            Bytes::Bgrx
        } else {
            Bytes::Other
        };
        Some(f)
    }

    /// `Encoder::encode`, equal for every input.
    #[inline(always)]
    pub(crate) fn encode(&self, c: [f32; 4]) -> u32 {
        #[cfg(target_arch = "x86_64")]
        match self.bytes {
            Bytes::Rgba => return sse::bytes::<false>(c),
            Bytes::Bgra => return sse::bytes::<true>(c),
            Bytes::Bgrx => return sse::bytes::<true>(c) | 0xff00_0000,
            Bytes::Other => {}
        }
        self.encode_channels(c)
    }

    /// `put(dst element k, encode(src[k]), bpe)` for every colour of `src`, with the format
    /// dispatch taken once per run instead of once per pixel.
    #[inline]
    pub(crate) fn encode_run(&self, src: &[[f32; 4]], dst: &mut [u8], bpe: usize) {
        #[cfg(target_arch = "x86_64")]
        if bpe == 4 && self.bytes != Bytes::Other {
            let mut src = src;
            let mut dst = dst;
            if std::arch::is_x86_feature_detected!("avx2") {
                // Eight pixels at a time in AVX2, the rest in SSE2: pixel by pixel, a tile
                // row's store was an eighth of the textured quad's cycles.
                let n = src.len().min(dst.len() / 4) / 8 * 8;
                for (c, d) in src[..n].chunks_exact(8).zip(dst.chunks_exact_mut(32)) {
                    let c: &[[f32; 4]; 8] = c.try_into().expect("chunks of 8");
                    // SAFETY: AVX2 was detected.
                    let v = unsafe {
                        match self.bytes {
                            Bytes::Rgba => avx2::bytes8::<false>(c),
                            Bytes::Bgra => avx2::bytes8::<true>(c),
                            _ => avx2::bytes8::<true>(c).map(|v| v | 0xff00_0000),
                        }
                    };
                    for (px, v) in d.chunks_exact_mut(4).zip(v) {
                        px.copy_from_slice(&v.to_le_bytes());
                    }
                }
                src = &src[n..];
                dst = &mut dst[n * 4..];
            }
            #[inline(always)]
            fn run4(src: &[[f32; 4]], dst: &mut [u8], f: impl Fn([f32; 4]) -> u32) {
                for (c, d) in src.iter().zip(dst.chunks_exact_mut(4)) {
                    d.copy_from_slice(&f(*c).to_le_bytes());
                }
            }
            return match self.bytes {
                Bytes::Rgba => run4(src, dst, sse::bytes::<false>),
                Bytes::Bgra => run4(src, dst, sse::bytes::<true>),
                _ => run4(src, dst, |c| sse::bytes::<true>(c) | 0xff00_0000),
            };
        }
        for (c, d) in src.iter().zip(dst.chunks_exact_mut(bpe)) {
            put(d, self.encode(*c), bpe);
        }
    }

    /// `encode` channel by channel.
    #[inline(always)]
    fn encode_channels(&self, c: [f32; 4]) -> u32 {
        let mut v = self.ones;
        for &(lo, max, src) in &self.ch {
            let x = clamp01_fast(c[src & 3]);
            // SAFETY: x * max + 0.5 lies in [0, 65535.5]: finite and inside u32.
            let q: u32 = unsafe { (x * max + 0.5).to_int_unchecked() };
            v |= q << lo;
        }
        v
    }
}

/// SSE2 (part of every x86_64) encoding of four 8-bit unorm lanes: clamp with max/min (whose
/// x86 semantics are exactly the selects of `clamp01_fast`), scale, round by +0.5 and
/// truncate, per lane as the scalar code does, then pack to bytes.
#[cfg(target_arch = "x86_64")]
mod sse {
    use std::arch::x86_64::*;

    /// Bytes of `c` (r, g, b, a) in that order, or b, g, r, a with `SWAP_RB`; alpha 0 is
    /// left for the caller to replace with padding.
    #[inline(always)]
    pub(super) fn bytes<const SWAP_RB: bool>(c: [f32; 4]) -> u32 {
        // SAFETY: SSE2 is in the x86_64 baseline; the load reads the four floats of `c`.
        unsafe {
            let mut x = _mm_loadu_ps(c.as_ptr());
            if SWAP_RB {
                x = _mm_shuffle_ps::<0b11_00_01_10>(x, x);
            }
            let x = _mm_min_ps(_mm_max_ps(x, _mm_setzero_ps()), _mm_set1_ps(1.0));
            let q = _mm_cvttps_epi32(_mm_add_ps(
                _mm_mul_ps(x, _mm_set1_ps(255.0)),
                _mm_set1_ps(0.5),
            ));
            let w = _mm_packs_epi32(q, q);
            _mm_cvtsi128_si32(_mm_packus_epi16(w, w)) as u32
        }
    }
}

/// AVX2 form of [`sse::bytes`] for eight pixels: two pixels per register, each in its own half
/// with the lanes `sse::bytes` gives it (the same clamp, multiply, add and truncation), packed
/// to bytes and put back in pixel order.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// `sse::bytes::<SWAP_RB>` of each colour of `c`.
    ///
    /// # Safety
    /// AVX2 is available.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn bytes8<const SWAP_RB: bool>(c: &[[f32; 4]; 8]) -> [u32; 8] {
        let p = c.as_ptr() as *const f32;
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        let (k255, half) = (_mm256_set1_ps(255.0), _mm256_set1_ps(0.5));
        let mut q = [_mm256_setzero_si256(); 4];
        for (k, qk) in q.iter_mut().enumerate() {
            // SAFETY: pixels 2k and 2k + 1 of `c`: eight floats.
            let mut x = unsafe { _mm256_loadu_ps(p.add(8 * k)) };
            if SWAP_RB {
                x = _mm256_permute_ps::<0b11_00_01_10>(x);
            }
            let x = _mm256_min_ps(_mm256_max_ps(x, zero), one);
            *qk = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(x, k255), half));
        }
        // Halves: packs gives [p0 p2 | p1 p3] and [p4 p6 | p5 p7] as words, packus
        // [p0 p2 p4 p6 | p1 p3 p5 p7] as bytes; the permute restores p0..p7.
        let w01 = _mm256_packs_epi32(q[0], q[1]);
        let w23 = _mm256_packs_epi32(q[2], q[3]);
        let b = _mm256_packus_epi16(w01, w23);
        let b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        let mut out = [0u32; 8];
        // SAFETY: the store writes the eight lanes of `out`.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, b) };
        out
    }
}

/// Stores the low `bpe` bytes of `v` little-endian at the start of `dst`, with a fixed-size
/// copy per element size (no memcpy call per pixel).
#[inline(always)]
fn put(dst: &mut [u8], v: u32, bpe: usize) {
    let b = v.to_le_bytes();
    match bpe {
        4 => dst[..4].copy_from_slice(&b),
        2 => dst[..2].copy_from_slice(&b[..2]),
        1 => dst[0] = b[0],
        _ => dst[..bpe].copy_from_slice(&b[..bpe]),
    }
}

/// A linear target's rows in one writable mapping (see `Target::linear_rows`).
struct Rows {
    p: *mut u8,
    first: u32,
    stride: usize,
}

impl Rows {
    /// Where row `y` (of the checked range) starts: inside one mapping no address wraps, so
    /// `(y - first) * stride` on.
    fn at(&self, y: u32) -> *mut u8 {
        self.p.wrapping_add((y - self.first) as usize * self.stride)
    }
}

/// A decoded colour target.
pub(crate) struct Target {
    st: PbeState,
    bpe: u32,
    enc: Encoder,
    fast_enc: Option<FastEncoder>,
    dec: Decoder,
    /// Writable pixel rectangle, inclusive-exclusive.
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl Target {
    pub(crate) fn new(st: PbeState) -> Result<Target, JobErr> {
        let info = st.format.info();
        let bad = |m: String| JobErr::bad(Unit::Pbe, format!("PbeState: {m}"));
        if !info.renderable || info.kind != FormatKind::Unorm {
            return Err(bad(format!("{} is not a colour target format", info.name)));
        }
        if st.extent_w_tl == 0 || st.extent_h_tl == 0 {
            return Err(bad("target extent of zero tiles".into()));
        }
        let twiddled = st.layout == MemLayout::TWIDDLED;
        if twiddled && !info.twiddlable {
            return Err(bad(format!("{} cannot be twiddled", info.name)));
        }
        let mut x1 = (st.extent_w_tl * T).min(st.clip_xmax + 1);
        let mut y1 = (st.extent_h_tl * T).min(st.clip_ymax + 1);
        if twiddled {
            x1 = x1.min(1 << st.log2_w);
            y1 = y1.min(1 << st.log2_h);
        }
        Ok(Target {
            st,
            bpe: info.bytes_per_el,
            enc: Encoder::new(st.format),
            fast_enc: FastEncoder::new(&Encoder::new(st.format)),
            dec: Decoder::new(st.format),
            x0: st.clip_xmin,
            y0: st.clip_ymin,
            x1,
            y1,
        })
    }

    /// The largest stored value of the red, green, blue and alpha channels (2^bits - 1); 255
    /// for a channel the format lacks (nothing reads it back).
    pub(crate) fn channel_max(&self) -> [u32; 4] {
        let mut max = [255; 4];
        for &(_, bits, src) in &self.enc.ch[..self.enc.nch] {
            if src < 4 {
                max[usize::from(src)] = ((1u64 << bits) - 1) as u32;
            }
        }
        max
    }

    /// The pixel rectangle the PBE writes (x0, y0, x1, y1), exclusive end.
    pub(crate) fn rect(&self) -> (u32, u32, u32, u32) {
        (self.x0, self.y0, self.x1, self.y1)
    }

    fn addr(&self, x: u32, y: u32) -> u32 {
        let off = match self.st.layout {
            MemLayout::LINEAR => y.wrapping_mul(self.st.stride_B).wrapping_add(x * self.bpe),
            MemLayout::TWIDDLED => twiddle(x, y, self.st.log2_w, self.st.log2_h) * self.bpe,
        };
        self.st.base_addr.wrapping_add(off)
    }

    /// Tile (tx, ty)'s pixels inside the writable rectangle: (x range, y range).
    fn span(&self, tx: u32, ty: u32) -> Option<(std::ops::Range<u32>, std::ops::Range<u32>)> {
        let xs = (tx * T).max(self.x0)..((tx + 1) * T).min(self.x1);
        let ys = (ty * T).max(self.y0)..((ty + 1) * T).min(self.y1);
        (!xs.is_empty() && !ys.is_empty()).then_some((xs, ys))
    }

    /// Stores tile (tx, ty) from `colour` (row-major 16x16); returns bytes written.
    pub(crate) fn store(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        colour: &[[f32; 4]; 256],
    ) -> Result<u64, Fault> {
        let Some((xs, ys)) = self.span(tx, ty) else {
            return Ok(0);
        };
        let bpe = self.bpe as usize;
        let mut row = [0u8; 4 * T as usize];
        let mut n = 0u64;
        for y in ys {
            let line = &colour[((y - ty * T) * T) as usize..];
            match self.st.layout {
                MemLayout::LINEAR => {
                    let mut k = 0;
                    for x in xs.clone() {
                        let v = self.enc.encode(line[(x - tx * T) as usize]).to_le_bytes();
                        row[k..k + bpe].copy_from_slice(&v[..bpe]);
                        k += bpe;
                    }
                    mmu.write(Unit::Pbe, self.addr(xs.start, y), &row[..k])?;
                    n += k as u64;
                }
                MemLayout::TWIDDLED => {
                    for x in xs.clone() {
                        let v = self.enc.encode(line[(x - tx * T) as usize]).to_le_bytes();
                        mmu.write(Unit::Pbe, self.addr(x, y), &v[..bpe])?;
                        n += bpe as u64;
                    }
                }
            }
        }
        Ok(n)
    }

    /// `store` through the fast paths: the fast encoder ([`Target::encode`]), then
    /// [`Target::store_encoded`]. Falls back to `store` without a fast encoder.
    pub(crate) fn store_fast(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        colour: &[[f32; 4]; 256],
    ) -> Result<u64, Fault> {
        let mut b = [0u8; ENCODED_TILE_B];
        if self.encode(colour, &mut b) {
            self.store_encoded(mmu, tx, ty, &b)
        } else {
            self.store(mmu, tx, ty, colour)
        }
    }

    /// A tile's colours in the target's format through the fast encoder, row-major with
    /// `T * bpe` bytes a row (the whole tile, clipped only when stored); false, with `out`
    /// untouched, when the format has no fast encoder. The store then moves bytes only:
    /// the encoding can run on the thread that shaded the tile, and a quarter of its float
    /// colours (for a 4-byte format) crosses to the thread that stores it.
    pub(crate) fn encode(&self, colour: &[[f32; 4]; 256], out: &mut [u8; ENCODED_TILE_B]) -> bool {
        let Some(enc) = self.fast_enc else {
            return false;
        };
        let bpe = self.bpe as usize;
        enc.encode_run(colour, &mut out[..colour.len() * bpe], bpe);
        true
    }

    /// Stores tile (tx, ty) from its colours `encode` made: the same bytes, in the same
    /// order and with the same faults, as `store` of the colours. Rows of a linear target
    /// held in one writable mapping, and a twiddled surface held in one, are copied straight
    /// in (no per-pixel MMU walk; nothing can fault); otherwise row by row (linear) or
    /// element by element (twiddled) through the MMU, which faults at the exact address.
    pub(crate) fn store_encoded(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        b: &[u8; ENCODED_TILE_B],
    ) -> Result<u64, Fault> {
        let Some((xs, ys)) = self.span(tx, ty) else {
            return Ok(0);
        };
        let bpe = self.bpe as usize;
        let k = xs.len() * bpe;
        // Row y's encoded bytes inside the span.
        let x0_B = (xs.start - tx * T) as usize * bpe;
        let row = |y: u32| &b[(y - ty * T) as usize * T as usize * bpe + x0_B..][..k];
        let mut n = 0u64;
        match self.st.layout {
            MemLayout::LINEAR => {
                if let Some(rows) = self.linear_rows(mmu, &xs, &ys, k) {
                    for y in ys {
                        let src = row(y);
                        // SAFETY: `linear_rows` checked row y's k bytes are writable host
                        // memory; `b` is the caller's buffer, not guest memory.
                        unsafe {
                            if k == ROW4_B {
                                // A whole row of 4-byte pixels, the common case: a copy of
                                // known size, inlined, where `k` bytes would call memcpy.
                                let v =
                                    std::ptr::read_unaligned(src.as_ptr() as *const [u8; ROW4_B]);
                                std::ptr::write_unaligned(rows.at(y) as *mut [u8; ROW4_B], v);
                            } else {
                                std::ptr::copy_nonoverlapping(src.as_ptr(), rows.at(y), k);
                            }
                        }
                        n += k as u64;
                    }
                    return Ok(n);
                }
                for y in ys {
                    mmu.write(Unit::Pbe, self.addr(xs.start, y), row(y))?;
                    n += k as u64;
                }
            }
            MemLayout::TWIDDLED => {
                let (lw, lh) = (self.st.log2_w, self.st.log2_h);
                let surface_B = 1usize.checked_shl(lw + lh).and_then(|n| n.checked_mul(bpe));
                let p = surface_B.and_then(|sb| mmu.span(self.st.base_addr, sb, true));
                for y in ys {
                    let line = row(y);
                    let row_B = twiddle_row(y, lw, lh) as usize * bpe;
                    for (x, v) in xs.clone().zip(line.chunks_exact(bpe)) {
                        match p {
                            Some(p) => {
                                let off = row_B + twiddle_col(x, lw, lh) as usize * bpe;
                                // SAFETY: x < 2^log2_w and y < 2^log2_h (the writable
                                // rectangle is clipped to the surface), so the element lies
                                // inside the surface's span, which `span` checked is
                                // writable host memory; `v` is the caller's buffer.
                                unsafe {
                                    std::ptr::copy_nonoverlapping(v.as_ptr(), p.add(off), bpe)
                                };
                            }
                            None => mmu.write(Unit::Pbe, self.addr(x, y), v)?,
                        }
                        n += bpe as u64;
                    }
                }
            }
        }
        Ok(n)
    }

    /// The host memory of a linear target's rows `ys`, `k` bytes each from column
    /// `xs.start`, when they lie in one writable mapping and do not overlap.
    fn linear_rows(
        &self,
        mmu: &Mmu,
        xs: &std::ops::Range<u32>,
        ys: &std::ops::Range<u32>,
        k: usize,
    ) -> Option<Rows> {
        let (first, stride) = (ys.start, self.st.stride_B as usize);
        let span_B = (ys.end - 1 - first) as usize * stride + k;
        let start = self.addr(xs.start, first);
        let p = (stride >= k)
            .then(|| mmu.span(start, span_B, true))
            .flatten()?;
        Some(Rows { p, first, stride })
    }

    /// `store_fast` of a tile whose every pixel is `c` (one no primitive touched): on a
    /// linear target, `c` encoded once and its row written to each row of the tile (the same
    /// bytes and faults as `store_fast`, which is the fallback otherwise).
    pub(crate) fn store_bg(&self, mmu: &Mmu, tx: u32, ty: u32, c: [f32; 4]) -> Result<u64, Fault> {
        let (Some(enc), MemLayout::LINEAR) = (self.fast_enc, self.st.layout) else {
            return self.store_fast(mmu, tx, ty, &[c; 256]);
        };
        let Some((xs, ys)) = self.span(tx, ty) else {
            return Ok(0);
        };
        let bpe = self.bpe as usize;
        let k = xs.len() * bpe;
        let mut row = [0u8; 4 * T as usize];
        let v = enc.encode(c);
        for px in row[..k].chunks_exact_mut(bpe) {
            put(px, v, bpe);
        }
        let row = &row[..k];
        let mut n = 0u64;
        // As `store_fast`: rows in one writable mapping are copied straight in, otherwise
        // written row by row through the MMU, which faults at the exact address.
        if let Some(rows) = self.linear_rows(mmu, &xs, &ys, k) {
            for y in ys {
                // SAFETY: `linear_rows` checked row y's k bytes are writable host memory;
                // `row` is a local array, so the two do not overlap.
                unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), rows.at(y), k) };
                n += k as u64;
            }
            return Ok(n);
        }
        for y in ys {
            mmu.write(Unit::Pbe, self.addr(xs.start, y), row)?;
            n += k as u64;
        }
        Ok(n)
    }

    /// Loads tile (tx, ty)'s pixels inside the writable rectangle into `colour`.
    pub(crate) fn load(
        &self,
        mmu: &Mmu,
        tx: u32,
        ty: u32,
        colour: &mut [[f32; 4]; 256],
    ) -> Result<(), Fault> {
        let Some((xs, ys)) = self.span(tx, ty) else {
            return Ok(());
        };
        let bpe = self.bpe as usize;
        for y in ys {
            for x in xs.clone() {
                let mut b = [0u8; 4];
                mmu.read(Unit::Pbe, self.addr(x, y), &mut b[..bpe])?;
                colour[((y - ty * T) * T + x - tx * T) as usize] =
                    self.dec.decode(u32::from_le_bytes(b));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_rounds_to_nearest() {
        let e = Encoder::new(Format::B8G8R8A8_UNORM);
        assert_eq!(
            e.encode([1.0, 0.5, 0.0, 2.0]).to_le_bytes(),
            [0, 128, 255, 255]
        );
        assert_eq!(
            e.encode([f32::NAN, 0.2, -1.0, 0.4]).to_le_bytes(),
            [0, 51, 0, 102]
        );
        let e = Encoder::new(Format::B5G6R5_UNORM);
        assert_eq!(e.encode([1.0, 0.0, 1.0, 0.0]), 0xf81f);
        let e = Encoder::new(Format::B8G8R8X8_UNORM);
        assert_eq!(e.encode([0.0; 4]), 0xff00_0000);
        let e = Encoder::new(Format::B5G5R5A1_UNORM);
        assert_eq!(e.encode([0.0, 0.0, 0.0, 0.6]), 0x8000);
    }

    #[test]
    fn encode_run_equals_encoder_per_pixel() {
        let vals = [
            f32::NAN,
            -0.0,
            0.2,
            0.5,
            1.0,
            1.5,
            -3.0,
            0.998,
            0.001_96,
            // Either side of a rounding boundary: 254.5 / 255.
            0.998_039_2,
            0.998_039_24,
            f32::INFINITY,
        ];
        let all: Vec<[f32; 4]> = (0..37)
            .map(|i| [0, 1, 2, 3].map(|c| vals[(i * 5 + c * 3 + i / 7) % vals.len()]))
            .collect();
        // Every length, so runs end on every position of the eight-pixel blocks.
        let mut n = 0;
        for len in 0..=all.len() {
            let src = &all[..len];
            for &f in Format::ALL.iter().filter(|f| f.info().renderable) {
                let e = Encoder::new(f);
                let Some(fe) = FastEncoder::new(&e) else {
                    continue;
                };
                n += 1;
                let bpe = f.info().bytes_per_el as usize;
                let mut got = vec![0xa5u8; src.len() * bpe];
                fe.encode_run(src, &mut got, bpe);
                let want: Vec<u8> = src
                    .iter()
                    .flat_map(|&c| e.encode(c).to_le_bytes()[..bpe].to_vec())
                    .collect();
                assert_eq!(got, want, "{f:?} {len} pixels");
            }
        }
        assert!(n >= 5 * 38);
    }

    #[test]
    fn fast_encoder_equals_encoder() {
        let mut vals = vec![
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            0.0,
            1.0,
            -1.0,
            2.0,
            f32::MIN_POSITIVE,
            1.0 - f32::EPSILON,
        ];
        // Every k/4096 in [-0.25, 1.25], and near each 8-bit rounding boundary.
        vals.extend((-1024..=5120).map(|k| k as f32 / 4096.0));
        vals.extend((0..=255).flat_map(|k| {
            let b = (k as f32 + 0.5) / 255.0;
            [
                b,
                f32::from_bits(b.to_bits() - 1),
                f32::from_bits(b.to_bits() + 1),
            ]
        }));
        let mut n = 0;
        for &f in Format::ALL.iter().filter(|f| f.info().renderable) {
            let e = Encoder::new(f);
            let Some(fe) = FastEncoder::new(&e) else {
                continue;
            };
            n += 1;
            for (i, &a) in vals.iter().enumerate() {
                let c = [
                    a,
                    vals[(i * 7 + 1) % vals.len()],
                    vals[(i * 13 + 2) % vals.len()],
                    vals[(i * 31 + 3) % vals.len()],
                ];
                assert_eq!(fe.encode(c), e.encode(c), "{f:?} {c:?}");
            }
        }
        assert!(n >= 5, "{n} formats with a fast encoder");
        let kind = |f: Format| FastEncoder::new(&Encoder::new(f)).map(|e| e.bytes);
        assert_eq!(kind(Format::B8G8R8A8_UNORM), Some(Bytes::Bgra));
        assert_eq!(kind(Format::R8G8B8A8_UNORM), Some(Bytes::Rgba));
        assert_eq!(kind(Format::B8G8R8X8_UNORM), Some(Bytes::Bgrx));
        assert_eq!(kind(Format::B5G6R5_UNORM), Some(Bytes::Other));
    }
}
