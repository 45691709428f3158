//! The unpack rounds of the 1- and 2-byte bodies and their inverses, once for SSE2's 16-byte
//! vectors and AVX2's 32-byte ones: AVX2's shuffles work within 128-bit lanes, so per lane
//! they are SSE2's, and one generic [`band_to_blocks`] and [`blocks_to_band_pshufb`] serve
//! both widths (`sse2_narrow`, `ssse3_narrow`, `avx2_narrow`); [`blocks_to_band`] is SSE2's
//! inverse without a byte shuffle. Every function is `#[inline(always)]` so that it compiles
//! inside the calling body, under its `#[target_feature]`.

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_permute2x128_si256, _mm256_shuffle_epi8, _mm256_unpackhi_epi16,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpackhi_epi8, _mm256_unpacklo_epi16,
    _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm256_unpacklo_epi8, _mm_and_si128,
    _mm_castps_si128, _mm_castsi128_ps, _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi16,
    _mm_shuffle_epi8, _mm_shuffle_ps, _mm_slli_epi32, _mm_srai_epi32, _mm_srli_epi16,
    _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpackhi_epi8,
    _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_unpacklo_epi8,
};

use super::vector::Vector;

/// Per 128-bit lane: the unpacks of each size and the byte shuffle.
pub(super) trait Unpack: Vector {
    /// unpacklo_epi64 and unpackhi_epi64 of `a` and `b`.
    fn unpack64(a: Self, b: Self) -> (Self, Self);
    /// unpacklo_epi8 and unpackhi_epi8 of `a` and `b`.
    fn unpack8(a: Self, b: Self) -> (Self, Self);
    /// unpacklo_epi16 and unpackhi_epi16 of `a` and `b`.
    fn unpack16(a: Self, b: Self) -> (Self, Self);
    /// unpacklo_epi32 and unpackhi_epi32 of `a` and `b`.
    fn unpack32(a: Self, b: Self) -> (Self, Self);
    /// Per 128-bit lane, byte i of the result is byte `idx[i]` of `a` (`pshufb`). For 16-byte
    /// vectors that is SSSE3: only bodies compiled with SSSE3 or above may call it.
    fn shuffle_bytes(a: Self, idx: Self) -> Self;
}

impl Unpack for __m128i {
    #[inline(always)]
    fn unpack64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: SSE2 (baseline); touches no memory.
        unsafe { (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)) }
    }
    #[inline(always)]
    fn unpack8(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: SSE2 (baseline); touches no memory.
        unsafe { (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)) }
    }
    #[inline(always)]
    fn unpack16(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: SSE2 (baseline); touches no memory.
        unsafe { (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)) }
    }
    #[inline(always)]
    fn unpack32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: SSE2 (baseline); touches no memory.
        unsafe { (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)) }
    }
    #[inline(always)]
    fn shuffle_bytes(a: Self, idx: Self) -> Self {
        // SAFETY: SSSE3 (the trait's contract: callers are SSSE3 functions or above);
        // touches no memory.
        unsafe { _mm_shuffle_epi8(a, idx) }
    }
}

impl Unpack for __m256i {
    #[inline(always)]
    fn unpack64(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
        unsafe { (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)) }
    }
    #[inline(always)]
    fn unpack8(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
        unsafe { (_mm256_unpacklo_epi8(a, b), _mm256_unpackhi_epi8(a, b)) }
    }
    #[inline(always)]
    fn unpack16(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
        unsafe { (_mm256_unpacklo_epi16(a, b), _mm256_unpackhi_epi16(a, b)) }
    }
    #[inline(always)]
    fn unpack32(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
        unsafe { (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b)) }
    }
    #[inline(always)]
    fn shuffle_bytes(a: Self, idx: Self) -> Self {
        // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
        unsafe { _mm256_shuffle_epi8(a, idx) }
    }
}

/// Even and odd bytes of `a` then `b` (the inverse of unpacklo/hi_epi8).
#[inline(always)]
fn split8(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 (baseline); touches no memory.
    unsafe {
        let m = _mm_set1_epi16(0x00ff); // the low byte of each 16-bit lane
        (
            _mm_packus_epi16(_mm_and_si128(a, m), _mm_and_si128(b, m)),
            _mm_packus_epi16(_mm_srli_epi16::<8>(a), _mm_srli_epi16::<8>(b)),
        )
    }
}

/// Even and odd 16-bit lanes of `a` then `b` (sign extension first, so the signed
/// saturating pack keeps every value).
#[inline(always)]
fn split16(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE2 (baseline); touches no memory.
    unsafe {
        let lo = |x| _mm_srai_epi32::<16>(_mm_slli_epi32::<16>(x));
        (
            _mm_packs_epi32(lo(a), lo(b)),
            _mm_packs_epi32(_mm_srai_epi32::<16>(a), _mm_srai_epi32::<16>(b)),
        )
    }
}

/// Even and odd 32-bit lanes of `a` then `b`.
#[inline(always)]
fn split32(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: SSE (baseline); touches no memory.
    unsafe {
        let (fa, fb) = (_mm_castsi128_ps(a), _mm_castsi128_ps(b));
        (
            _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(fa, fb)),
            _mm_castps_si128(_mm_shuffle_ps::<0b11_01_11_01>(fa, fb)),
        )
    }
}

/// SSE2's inverse of [`band_to_blocks`], by masking and packing (SSE2 has no byte shuffle):
/// four twiddled 4x4 blocks of 1-byte elements (`N` 1), left to right, or two of 2-byte
/// elements in two vectors each (`N` 2), as their band's four rows; the 64-bit (2-byte) or
/// 32-bit (1-byte) round first, then the element round.
#[inline(always)]
pub(super) fn blocks_to_band<const N: usize>(w: [__m128i; 4]) -> [__m128i; 4] {
    let ((u0, v0), (u1, v1)) = if N == 1 {
        (split32(w[0], w[1]), split32(w[2], w[3]))
    } else {
        (__m128i::unpack64(w[0], w[1]), __m128i::unpack64(w[2], w[3]))
    };
    let ((r0, r1), (r2, r3)) = if N == 1 {
        (split8(u0, u1), split8(v0, v1))
    } else {
        (split16(u0, u1), split16(v0, v1))
    };
    [r0, r1, r2, r3]
}

/// Per 128-bit lane: a band of four rows of `N`-byte elements (`N` 1 or 2), 16 bytes of each,
/// as its twiddled vectors: for 1-byte elements the four 4x4 blocks left to right, for 2-byte
/// ones the two blocks' halves (block 0 low, high, block 1 low, high). Two rounds, each one
/// address bit of Y: rows 2j and 2j+1 interleave element by element (Y bit 0), then the row
/// pairs interleave in units of two pairs (X bit 0 between, Y bit 1 above).
#[inline(always)]
pub(super) fn band_to_blocks<V: Unpack, const N: usize>(r: [V; 4]) -> [V; 4] {
    let ((u0, u1), (v0, v1)) = if N == 1 {
        (V::unpack8(r[0], r[1]), V::unpack8(r[2], r[3]))
    } else {
        (V::unpack16(r[0], r[1]), V::unpack16(r[2], r[3]))
    };
    let ((a, b), (c, d)) = if N == 1 {
        (V::unpack32(u0, v0), V::unpack32(u1, v1))
    } else {
        (V::unpack64(u0, v0), V::unpack64(u1, v1))
    };
    [a, b, c, d]
}

/// `pshufb` indices, per 16 bytes, from twiddled to row order: for 1-byte elements a 4x4 block
/// as its four 4-byte rows; for 2-byte elements the first or second half of a block (its
/// columns 0-1 or 2-3, X bit 1 being the block's top index bit) as four 4-byte row pieces.
const fn rows_index(n: usize) -> [u8; 32] {
    let mut t = [0u8; 32];
    let mut j = 0;
    while j < 16 {
        // Row-order element k of the 16 bytes, at (row r, column c) of a 4 x (4 / n) piece.
        let (k, b) = (j / n, j % n);
        let (r, c) = (k / (4 / n), k % (4 / n));
        let src = (r & 1) | ((c & 1) << 1) | ((r & 2) << 1) | ((c & 2) << 2);
        t[j] = (src * n + b) as u8;
        t[j + 16] = t[j];
        j += 1;
    }
    t
}

/// [`rows_index`] for 1- and 2-byte elements (both 128-bit lanes alike).
static ROWS_INDEX: [[u8; 32]; 2] = [rows_index(1), rows_index(2)];

/// The `pshufb` indices of [`blocks_to_band_pshufb`] for `N`-byte elements, opaque to the
/// compiler: seeing the constant, it merged the byte shuffle with the unpack rounds around it
/// into more shuffles than it replaced (1-byte: three `vpshufb` and a blend where one
/// `vpshufb` and an unpack were written; 2-byte: `vpshuflw` and `vpshufhw` for one
/// `vpshufb`), at about a fifth of the speed lost.
#[inline(always)]
pub(super) fn rows_index_of<V: Unpack, const N: usize>() -> V {
    core::hint::black_box(V::read(&ROWS_INDEX[N - 1]))
}

/// Per 128-bit lane: the inverse of [`band_to_blocks`] with byte shuffles (SSSE3 `pshufb`,
/// AVX2 `vpshufb`): one shuffle by `idx` ([`rows_index_of`]) puts each vector in row order
/// (4-byte row pieces), then a 4x4 transpose of 4-byte pieces (two unpack rounds) makes the
/// rows. Twelve shuffles per four vectors, against sixteen operations for
/// [`blocks_to_band`]'s mask-and-pack on 1-byte elements and twenty on 2-byte ones. Only
/// bodies compiled with SSSE3 or above may call it.
#[inline(always)]
pub(super) fn blocks_to_band_pshufb<V: Unpack>(w: [V; 4], idx: V) -> [V; 4] {
    let b = w.map(|v| V::shuffle_bytes(v, idx));
    let ((a0, a1), (c0, c1)) = (V::unpack32(b[0], b[1]), V::unpack32(b[2], b[3]));
    let ((r0, r1), (r2, r3)) = (V::unpack64(a0, c0), V::unpack64(a1, c1));
    [r0, r1, r2, r3]
}

/// `a`'s and `b`'s low lanes (`HI` false) or high lanes (`HI` true) as one vector.
#[inline(always)]
pub(super) fn lanes_of<const HI: bool>(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 (callers are AVX2 functions); touches no memory.
    unsafe {
        if HI {
            _mm256_permute2x128_si256::<0x31>(a, b)
        } else {
            _mm256_permute2x128_si256::<0x20>(a, b)
        }
    }
}
