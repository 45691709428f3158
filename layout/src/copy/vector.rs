//! One load, one store and one streaming-store rule for the three x86 vector widths the
//! copy bodies use (SSE2's 16 bytes, AVX2's 32, AVX-512's 64), so each body names only its
//! shuffles.
//!
//! Every function here is `#[inline(always)]`: a body's `#[target_feature]` then covers the
//! instructions, as if the body had written them itself (the bodies are measured with
//! `cargo run --release -p sgx-layout --example bench_twiddle`).

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_stream_si256,
    _mm512_loadu_si512, _mm512_storeu_si512, _mm512_stream_si512, _mm_stream_si128,
};

/// How a body writes its vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stores {
    /// Ordinary (cached) stores.
    Cached,
    /// Non-temporal stores wherever the destination is aligned to the vector's size; a
    /// fence (`sse2::fence`) must follow.
    Stream,
}

/// `per_store!(how, body(args))` calls `body(args, how)` with `how` as a constant, one call
/// per store type, so each body is compiled once for cached and once for streaming stores and
/// has no branch per store. A macro because a function taking the body as a closure left the
/// closure out of line (the figures: `avx2_narrow`'s module comment).
macro_rules! per_store {
    ($how:expr, $body:ident $(::<$($g:tt),+>)? ($($arg:expr),*)) => {
        match $how {
            Stores::Cached => $body $(::<$($g),+>)? ($($arg,)* Stores::Cached),
            Stores::Stream => $body $(::<$($g),+>)? ($($arg,)* Stores::Stream),
        }
    };
}
pub(super) use per_store;

/// A vector register of one width.
pub(super) trait Vector: Copy {
    /// Its size in bytes (16, 32 or 64).
    const BYTES: usize;
    /// The first `BYTES` bytes of `b`, read unaligned.
    fn read(b: &[u8]) -> Self;
    /// Writes `v` to the first `BYTES` bytes of `b`, unaligned, through the cache.
    fn write(b: &mut [u8], v: Self);
    /// Writes `v` non-temporally at `p`.
    ///
    /// # Safety
    /// `p` points at `BYTES` writable bytes that start on a `BYTES` boundary, and the CPU has
    /// the width's instructions (the caller is a body compiled for them).
    unsafe fn stream(p: *mut u8, v: Self);
}

impl Vector for __m128i {
    // SSE2's register: 128 bits (not a hardware fact of the GPU).
    const BYTES: usize = 16;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        bytemuck::pod_read_unaligned(&b[..16])
    }
    #[inline(always)]
    fn write(b: &mut [u8], v: Self) {
        b[..16].copy_from_slice(bytemuck::bytes_of(&v));
    }
    #[inline(always)]
    unsafe fn stream(p: *mut u8, v: Self) {
        // SAFETY: the caller's contract (16 aligned writable bytes; SSE2 is baseline).
        unsafe { _mm_stream_si128(p.cast(), v) }
    }
}

impl Vector for __m256i {
    // AVX2's register: 256 bits (not a hardware fact of the GPU).
    const BYTES: usize = 32;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        let b = &b[..32];
        // SAFETY: `b` is 32 readable bytes; the load is unaligned. Callers are AVX2 functions.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    }
    #[inline(always)]
    fn write(b: &mut [u8], v: Self) {
        let b = &mut b[..32];
        // SAFETY: `b` is 32 writable bytes; the store is unaligned. Callers are AVX2 functions.
        unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    unsafe fn stream(p: *mut u8, v: Self) {
        // SAFETY: the caller's contract (32 aligned writable bytes, an AVX2 function).
        unsafe { _mm256_stream_si256(p.cast(), v) }
    }
}

impl Vector for __m512i {
    // AVX-512's register: 512 bits (not a hardware fact of the GPU).
    const BYTES: usize = 64;
    #[inline(always)]
    fn read(b: &[u8]) -> Self {
        let b = &b[..64];
        // SAFETY: `b` is 64 readable bytes; the load is unaligned. Callers are AVX-512 functions.
        unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
    }
    #[inline(always)]
    fn write(b: &mut [u8], v: Self) {
        let b = &mut b[..64];
        // SAFETY: `b` is 64 writable bytes; the store is unaligned. Callers are AVX-512
        // functions.
        unsafe { _mm512_storeu_si512(b.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    unsafe fn stream(p: *mut u8, v: Self) {
        // SAFETY: the caller's contract (64 aligned writable bytes, an AVX-512 function).
        unsafe { _mm512_stream_si512(p.cast(), v) }
    }
}

/// One vector from the start of `b` (unaligned).
#[inline(always)]
pub(super) fn load<V: Vector>(b: &[u8]) -> V {
    V::read(b)
}

/// `v` at the start of `b` through the cache (unaligned).
#[inline(always)]
pub(super) fn store<V: Vector>(b: &mut [u8], v: V) {
    V::write(b, v)
}

/// `v` at the start of `b`: non-temporally when streaming and `b` starts on a boundary of the
/// vector's size (what MOVNTDQ and its wider forms need), else through the cache.
#[inline(always)]
pub(super) fn store_as<V: Vector>(how: Stores, b: &mut [u8], v: V) {
    let dst = &mut b[..V::BYTES];
    if how == Stores::Stream && dst.as_ptr().align_offset(V::BYTES) == 0 {
        // SAFETY: `dst` is `V::BYTES` writable bytes (a bounds-checked slice of a `&mut [u8]`),
        // checked just above to start on a `V::BYTES` boundary; the width's instructions are
        // the caller's (`Vector::stream`).
        unsafe { V::stream(dst.as_mut_ptr(), v) }
    } else {
        V::write(dst, v)
    }
}

/// Copies `src` into `dst` (equal lengths) with non-temporal stores of `V` from `dst`'s
/// first `V::BYTES` boundary on, and ordinary stores for the unaligned head and the tail. A
/// fence (`sse2::fence`) must follow.
///
/// # Safety
/// The CPU has `V`'s instructions (the caller is a function compiled for them).
#[inline(always)]
pub(super) unsafe fn stream_copy<V: Vector>(dst: &mut [u8], src: &[u8]) {
    assert_eq!(dst.len(), src.len(), "stream_copy of unequal lengths");
    let head = dst.as_ptr().align_offset(V::BYTES).min(dst.len());
    dst[..head].copy_from_slice(&src[..head]);
    let (mut d, mut s) = (
        dst[head..].chunks_exact_mut(V::BYTES),
        src[head..].chunks_exact(V::BYTES),
    );
    for (dv, sv) in (&mut d).zip(&mut s) {
        // SAFETY: `dv` is `V::BYTES` writable bytes starting on a `V::BYTES` boundary (`dst`
        // from `head` on, in whole chunks); the instructions are the caller's.
        unsafe { V::stream(dv.as_mut_ptr(), V::read(sv)) }
    }
    d.into_remainder().copy_from_slice(s.remainder());
}
