//! The plain copies a twiddle copy is held against: the fastest way this machine can move the
//! same bytes without reordering them. A twiddle copy cannot beat the best of these, so
//! `fast / best` is how far from the limit it is (memcpy alone is not the limit: glibc picks
//! cached stores below a size threshold it sets for the whole machine). Large twiddle copies
//! run on the process's pool (`copy::parallel`), so the anchors include the best plain
//! copies on that pool too, cut into the same size of pieces: one core's copy is not the
//! limit of a copy that uses every core.

/// One way of copying bytes unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Anchor {
    /// `copy_from_slice` (glibc's memcpy).
    Memcpy,
    /// `rep movsb` (fast on CPUs with ERMS/FSRM).
    RepMovsb,
    /// 16-byte non-temporal stores (SSE2, every x86_64) then `sfence`.
    Sse2Stream,
    /// 32-byte non-temporal stores (AVX2) then `sfence`.
    Avx2Stream,
    /// 64-byte non-temporal stores (AVX-512F) then `sfence`.
    Avx512Stream,
    /// `rep movsb` in pieces on the process's pool (the caller and one worker per other core).
    PooledRepMovsb,
    /// The widest non-temporal stores, in pieces on the process's pool.
    PooledStream,
}

impl Anchor {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Anchor::Memcpy => "memcpy",
            Anchor::RepMovsb => "rep movsb",
            Anchor::Sse2Stream => "SSE2 NT",
            Anchor::Avx2Stream => "AVX2 NT",
            Anchor::Avx512Stream => "AVX-512 NT",
            Anchor::PooledRepMovsb => "movsb pool",
            Anchor::PooledStream => "NT pool",
        }
    }

    /// The anchors this CPU can run, memcpy first.
    pub fn available() -> Vec<Anchor> {
        #[allow(unused_mut)]
        let mut v = vec![Anchor::Memcpy];
        #[cfg(target_arch = "x86_64")]
        {
            v.extend([Anchor::RepMovsb, Anchor::Sse2Stream]);
            if std::arch::is_x86_feature_detected!("avx2") {
                v.push(Anchor::Avx2Stream);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                v.push(Anchor::Avx512Stream);
            }
            if sgx_pool::global().is_some() {
                v.extend([Anchor::PooledRepMovsb, Anchor::PooledStream]);
            }
        }
        v
    }

    /// The widest non-temporal anchor this CPU runs.
    fn widest_stream() -> Anchor {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Anchor::Avx512Stream;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Anchor::Avx2Stream;
            }
        }
        Anchor::Sse2Stream
    }

    /// Copies `src` into `dst` (equal lengths). An anchor the CPU lacks falls back to memcpy.
    pub fn copy(self, dst: &mut [u8], src: &[u8]) {
        assert_eq!(dst.len(), src.len(), "anchor copy of unequal lengths");
        match self {
            Anchor::Memcpy => dst.copy_from_slice(src),
            #[cfg(target_arch = "x86_64")]
            Anchor::RepMovsb => x86::rep_movsb(dst, src),
            #[cfg(target_arch = "x86_64")]
            Anchor::Sse2Stream => x86::stream::<16>(dst, src),
            #[cfg(target_arch = "x86_64")]
            Anchor::Avx2Stream if std::arch::is_x86_feature_detected!("avx2") => {
                x86::stream::<32>(dst, src)
            }
            #[cfg(target_arch = "x86_64")]
            Anchor::Avx512Stream if std::arch::is_x86_feature_detected!("avx512f") => {
                x86::stream::<64>(dst, src)
            }
            Anchor::PooledRepMovsb => pooled(Anchor::RepMovsb, dst, src),
            Anchor::PooledStream => pooled(Anchor::widest_stream(), dst, src),
            _ => dst.copy_from_slice(src),
        }
    }
}

/// `one` in pieces of [`crate::copy::parallel::PIECE_B`] on the process's pool (on this
/// thread alone where there is none).
fn pooled(one: Anchor, dst: &mut [u8], src: &[u8]) {
    use crate::copy::parallel::{run_pieces, PIECE_B};
    let piece_B = PIECE_B as usize;
    let pieces: Vec<_> = dst.chunks_mut(piece_B).zip(src.chunks(piece_B)).collect();
    match sgx_pool::global() {
        Some(pool) => {
            // The anchors' copies cannot fail.
            let _ = run_pieces(&pool, pieces, |(d, s)| {
                one.copy(d, s);
                Ok(())
            });
        }
        None => pieces.into_iter().for_each(|(d, s)| one.copy(d, s)),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    pub(super) fn rep_movsb(dst: &mut [u8], src: &[u8]) {
        // SAFETY: rcx bytes are read from src and written to dst, both exactly that long and
        // distinct (a `&mut` and a `&`); the ABI guarantees the direction flag is clear.
        unsafe {
            core::arch::asm!(
                "rep movsb",
                inout("rcx") dst.len() => _,
                inout("rdi") dst.as_mut_ptr() => _,
                inout("rsi") src.as_ptr() => _,
                options(nostack, preserves_flags)
            );
        }
    }

    /// Non-temporal copy in vectors of `V` bytes, four per iteration; the unaligned head and
    /// the tail go through memcpy.
    pub(super) fn stream<const V: usize>(dst: &mut [u8], src: &[u8]) {
        let head = dst.as_ptr().align_offset(V).min(dst.len());
        dst[..head].copy_from_slice(&src[..head]);
        let body = (dst.len() - head) / (4 * V) * (4 * V);
        let (d, s) = (&mut dst[head..head + body], &src[head..head + body]);
        // SAFETY: `d` starts V-aligned and both `d` and `s` are `body` bytes, a multiple of
        // 4V; the feature each width needs was checked by the caller (SSE2 is baseline).
        unsafe {
            match V {
                16 => body_sse2(d, s),
                32 => body_avx2(d, s),
                _ => body_avx512(d, s),
            }
            _mm_sfence();
        }
        let done = head + body;
        dst[done..].copy_from_slice(&src[done..]);
    }

    unsafe fn body_sse2(d: &mut [u8], s: &[u8]) {
        let (dp, sp) = (d.as_mut_ptr() as *mut __m128i, s.as_ptr() as *const __m128i);
        for i in (0..d.len() / 16).step_by(4) {
            for k in 0..4 {
                _mm_stream_si128(dp.add(i + k), _mm_loadu_si128(sp.add(i + k)));
            }
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn body_avx2(d: &mut [u8], s: &[u8]) {
        let (dp, sp) = (d.as_mut_ptr() as *mut __m256i, s.as_ptr() as *const __m256i);
        for i in (0..d.len() / 32).step_by(4) {
            for k in 0..4 {
                _mm256_stream_si256(dp.add(i + k), _mm256_loadu_si256(sp.add(i + k)));
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    unsafe fn body_avx512(d: &mut [u8], s: &[u8]) {
        let (dp, sp) = (d.as_mut_ptr() as *mut __m512i, s.as_ptr() as *const __m512i);
        for i in (0..d.len() / 64).step_by(4) {
            for k in 0..4 {
                _mm512_stream_si512(dp.add(i + k), _mm512_loadu_si512(sp.add(i + k)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_anchor_copies_exactly_at_any_alignment() {
        // 2.5 MiB and more: several pieces of the pooled anchors.
        let big = (5 << 19) + 3;
        let src: Vec<u8> = (0..big as u32 + 8).map(|i| (i * 31 + 7) as u8).collect();
        for a in Anchor::available() {
            for (skew, len) in [(0, 4096), (1, 4000), (3, 257), (5, 0), (0, 63), (7, big)] {
                let mut dst = vec![0xa5u8; big + 8];
                a.copy(&mut dst[skew..skew + len], &src[..len]);
                assert_eq!(&dst[skew..skew + len], &src[..len], "{a:?} {skew} {len}");
                assert!(dst[..skew].iter().all(|&b| b == 0xa5), "{a:?} before");
                assert!(dst[skew + len..].iter().all(|&b| b == 0xa5), "{a:?} after");
            }
        }
    }
}
