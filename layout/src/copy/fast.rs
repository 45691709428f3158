//! The fast copies: a walk over the rectangle's tiles (in the manner of isl's
//! tiled_memcpy). A tile is the largest aligned square of at most 16x16 elements whose
//! texels are contiguous in twiddled memory; a tile wholly inside the rectangle is moved by a
//! specialised body, 4x4 blocks at a time, in bands of four rows so each linear row segment
//! is used whole while it is in cache. Partial tiles on the rectangle's borders take the
//! generic per-texel path. Neither interleaves bits per texel: X and Y are kept in deposited
//! (Morton) form and advanced with the carry trick of [`crate::morton::step`].
//!
//! The walk's order is chosen by measurement (`sgx535 bench twiddle`): linear to twiddled
//! goes along rows of tiles, so the 16 linear rows being read stream forward (which hardware
//! prefetchers follow) while each tile's twiddled kilobyte is written whole. Twiddled to
//! linear goes along rows too when the copy streams (non-temporal stores, below): the 16
//! linear rows being written then advance together, a line per row and tile, which measured
//! 0.77-0.81x the best plain copy on 2048x2048 and 1024x1024 B8G8R8A8 against 0.70-0.73x in
//! twiddled order, and 0.56-0.65x against 0.28x for 8-byte elements (Xeon, AVX-512, 2 MiB L2
//! per core). On an AMD EPYC (AVX2 only, 512 KiB L2 per core, 32 MiB L3) those interleaved
//! streams ran at 0.23-0.29x (B8G8R8A8), 0.10-0.16x (16-bit) and 0.08-0.10x (8-bit); below
//! AVX-512 a streaming copy to linear memory therefore goes through a staging buffer
//! (`staged`). Staging whole-width rows of tiles ran at 0.24-0.26x, 0.18-0.30x and
//! 0.15-0.27x, bound by reading the tiles of a row, which are scattered over the level (6 GB/s
//! with no linear stores at all): the hardware prefetchers only follow ascending addresses.
//! `staged` therefore reads Morton squares 512 bytes wide in address order, unit by unit,
//! and streams the previous square's rows between units: 0.39-0.58x B8G8R8A8 against
//! 0.25-0.31x for the strips in the same minutes (EPYC, load 1-2 on its two cores), 16- and
//! 8-bit no clear gain (0.21-0.44x, 0.27-0.31x; bound by their bodies: `staged`). With the
//! 32-byte bodies below, 4 MiB copies of 1-byte elements (2048x2048 8-bit), and on the pool
//! 8 MiB copies of 2-byte ones, run faster with cached stores along rows of tile groups than
//! staged (`STAGED_CACHED_MAX_B`).
//! Linear to twiddled stays along rows of tiles on the EPYC too: the same squares written in
//! address order (0.26-0.30x B8G8R8A8 against 0.77-0.95x), the twiddled-order walk
//! (0.15-0.22x narrow against 0.36-0.54x), and two rows of tiles at a time so that twiddled
//! neighbours are written together (0.30-0.66x against 0.35-0.86x) were all slower, because
//! presumably its 16 forward linear streams are what the prefetchers follow. A copy to linear
//! memory that stays in cache goes along rows of tiles too (1- and 2-byte tiles in groups,
//! below). It went in twiddled order within 128x128 super-tiles, so that the twiddled side being
//! read streamed, which measured 0.70x against 0.66x along rows for 256x256 B8G8R8A8 with the
//! bodies of the time; on a 2-core Xeon with AVX-512 (Emerald Rapids: 2 MiB L2 per core, 260 MiB
//! L3) rows won with every body since: B8G8R8A8 256x256 0.71-0.73x against 0.60-0.63x, 512x512
//! 0.73-0.80x against 0.53-0.57x, 8-byte 512x512 0.74x against 0.56-0.65x of memcpy, 16-byte
//! 256x256 0.69-0.72x against 0.59x (AVX-512 body; AVX2's 256x256 0.63-0.65x against 0.59-0.60x;
//! `bench_twiddle`, A/B in the same minutes, load under 1). Not yet measured again on the EPYC.
//!
//! Copies of 4 MiB and more run on the process's pool (`parallel`): to linear memory in bands
//! of rows, to twiddled memory in blocks of the level whose twiddled bytes are contiguous, each
//! piece through the walk below with the stores and bodies chosen for the whole copy. One core
//! keeps too few misses in flight to reach memory's speed: on the EPYC a plain non-temporal
//! copy of 16 MiB ran at 1.1-1.9x its one-core speed on two cores, and so the pooled plain
//! copies are anchors of `bench twiddle` too.
//!
//! Block shape and stores, by element size (figures: `sgx535 bench twiddle`, README
//! "Performance"): 4-byte tiles are 16 texels = one 64-byte line per row, so a tile alone
//! reads or writes whole lines; 1- and 2-byte tiles are 16 or 32 bytes per row, so
//! `Mover::group` hands 4 or 2 tiles side by side to one body that goes band by band across
//! them, four whole lines per band (a lone narrow tile left its lines half used, and at a
//! power-of-two stride its 16 rows share one L1 set, so they were evicted before the
//! neighbour came back: 2048x2048 16-bit ran at a quarter of memcpy). Where two such groups
//! (or two 4-byte tiles) fit side by side, the walk hands both to `Mover::group_pair`; the
//! AVX-512 bodies going to linear memory then store each row's two lines one after the other
//! (`avx512_narrow::group_pair_to_linear`): on Emerald Rapids, A/B in the same minutes,
//! 256x256 8-bit 0.56-0.58x -> 0.61-0.64x, 16-bit 0.62-0.63x -> 0.59-0.72x, B8G8R8A8
//! 0.71-0.75x -> 0.77x of memcpy; 2048x2048 streaming 8-bit 0.66-0.75x -> 0.74-0.98x, 16-bit
//! 0.59-0.68x -> 0.77-0.89x, B8G8R8A8 0.71-0.78x -> 0.87-0.92x of the pooled plain copy
//! (512x512 B8G8R8A8 0.73-0.78x -> 0.72x). Large copies (`STREAM_MIN_B`) store
//! non-temporally: every store then completes a whole line.
//!
//! Below AVX-512 (the AMD EPYC: Zen 3, two 256-bit shuffle pipes that also carry the store
//! data), every body loads and stores 32 bytes (`avx2`, `avx2_narrow`): a 32-byte row piece
//! holds two 16-byte problems, twiddled by SSE2's unpack rounds per lane (to linear: one
//! `vpshufb` per vector and a transpose of 4-byte pieces), and one `vperm2i128` per 32
//! twiddled bytes pairs the halves that belong together there. Each store is cached: on
//! 256x256 levels both sides stay in the 512 KiB L2. What made these bodies win was as much
//! the instructions around the shuffles as the shuffles: bounds checks on every row piece
//! (the stride is only known at run time) and a branch per store on the store type were as
//! many instructions as the shuffles; rows are now checked once (`rows`) and each body is
//! compiled once per store type. `sgx535 bench twiddle` (the example `bench_twiddle`),
//! 256x256, fast/best, before -> after (two runs each, interleaved, load average 4.1-4.4 with
//! other builds running): 4-byte linear->twiddled 0.48-0.59x -> 0.84-0.85x, twiddled->linear
//! 0.65-0.70x -> 0.82-0.83x; 16-bit 0.45-0.46x -> 0.84-0.87x and 0.40-0.43x -> 0.78-0.79x;
//! 8-bit 0.39x -> 0.76x and 0.36-0.37x -> 0.72-0.73x. Earlier AVX2 attempts that lost to
//! SSE2 (0.30x against 0.45x with 16-byte stores; 0.27x against 0.38x with the lanes two
//! bands built by 16-byte inserts) carried those overheads. Building the lanes from a
//! 16-byte load, a broadcast load and a blend instead of `vperm2i128` measured slower
//! (8-bit twiddled->linear 0.45x against 0.54x at the time). Where the CPU has SSSE3 but not
//! AVX2, 1- and 2-byte groups go to linear memory with `pshufb` (`ssse3_narrow`).
//!
//! Where the CPU has AVX-512 (F, BW, VBMI; [`Isa`], capped by `SGX_TWIDDLE_ISA`), the groups of
//! 1- and 2-byte tiles, and 4-byte tiles in both directions, take `avx512_narrow`'s bodies:
//! two-source permutes reorder whole 64-byte lines and every store is one aligned line, which
//! measured 1.3-1.6x the AVX2/SSE2 bodies on 16-bit 2048x2048 and on narrow twiddled->linear,
//! and for 4-byte tiles to linear memory (eight shuffles per 256 bytes against AVX2's 24)
//! 256x256 B8G8R8A8 0.63x of memcpy against 0.59-0.60x (Emerald Rapids, A/B, before the row walk
//! above; 2048x2048, streaming, 0.70-0.81x of the pooled plain copy against 0.62-0.79x).

use super::{check_copy, parallel, Rect};
use crate::morton::{block_of, step, step_by, Twiddle};
use crate::LayoutError;

#[path = "staged.rs"]
mod staged;

/// Largest tile side, log2: the pixel pipeline's 16x16 tile.
const MAX_TILE_LOG2: u32 = 4;

/// Element index, within a 4x4 twiddled block, of each (row, column).
const BLOCK_INDEX: [[usize; 4]; 4] = [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]];

/// Copies of at least this many bytes write with non-temporal stores where they can: at
/// that size the source and destination together (8 MiB) outgrow the 2 MiB L2 of a core, so
/// cached stores only add a read for ownership and evict the source. Measured with
/// `bench twiddle` on 4 MiB copies (1024x1024 B8G8R8A8, 2048x2048 8-bit): streaming took
/// them from 0.45-0.61x of the best plain copy to 0.74-0.95x (an 8 MiB threshold left them
/// cached). Below it, at 2 MiB, cached stores were as fast or faster. Those figures are the
/// Xeon's (2 MiB L2 per core). On the AMD EPYC (512 KiB L2, 32 MiB L3) 4 and 8 MiB copies run
/// from L3, where `rep movsb` (25-33 GB/s) beats any non-temporal copy (23 GB/s): there
/// streaming still won linear->twiddled (2048x2048 16-bit 0.43-0.52x against 0.22x cached),
/// and twiddled->linear, once staged, measured the same streamed or cached (16-bit: both
/// 0.18-0.30x across runs); staged by Morton squares, cached stores from the buffer lost
/// (16-bit 0.15-0.20x against 0.26-0.31x, 8-bit 0.20-0.24x against 0.26-0.27x). A
/// threshold from the last-level cache size (16 MiB here) would pick cached stores for those
/// copies, where they lose, and would move the Xeon's measured 4 MiB; the threshold stays. On
/// the Zen 4 EPYC (AVX-512, 32 MiB L3) cached stores for the 4 MiB copies gained nothing beyond
/// noise: 2048x2048 8-bit 0.45-0.56x and 0.37-0.62x (to twiddled, to linear) against 0.48-0.65x
/// and 0.40-0.60x streamed, 1024x1024 B8G8R8A8 0.52-0.68x and 0.58-0.69x against 0.46-0.81x and
/// 0.41-0.65x (six rounds interleaved).
const STREAM_MIN_B: u64 = 4 << 20;

/// Copies of 1- and 2-byte elements to linear memory that would stage ([`stages`]) but move at
/// most this many bytes keep cached stores and the plain tile walk (along rows of tile groups).
/// 2-byte copies joined once large copies ran on the pool ([`parallel`]): there 2048x2048 16-bit
/// (8 MiB) ran cached at 24.4-27.0 GB/s (0.66-0.71x of the best pooled plain copy) against
/// 19.2-21.5 GB/s (0.56-0.65x) staged, while cached 2048x2048 B8G8R8A8 (16 MiB: it and its source
/// fill the 32 MiB L3) lost, 0.48-0.69x against 0.66-0.76x (`bench_twiddle`, A/B interleaved, load
/// 1; alone on one thread, `SGX_THREADS=1`, 16-bit measured 8.2-12.5 GB/s cached and 9.2-12.9
/// staged, no difference beyond noise). The figures before the pool follow. With the 32-byte
/// bodies, on the AMD EPYC (32 MiB L3, where a 4 MiB copy and its source stay), the staged walk ran
/// 2048x2048 8-bit at 13.3-14.3 GB/s (0.39-0.42x of the best plain copy) and the cached walk at
/// 17.2-20.4 GB/s (0.50-0.57x), SSSE3 bodies 0.32x -> 0.39-0.43x, SSE2 0.31-0.34x -> 0.52-0.55x
/// (`bench_twiddle 2048x1`, A/B in the same minutes, load 0.8-1.0; in whole `bench_twiddle` runs,
/// three each, 0.43-0.49x against 0.39-0.41x, 17.7 against 12.8 GB/s, load 1.0-1.1). Its buffer
/// (two 512x512 squares) fills the 512 KiB L2, which the twiddled reads go through too: presumably
/// why 1-byte elements stage worst. Cached lost for the other sizes: 2048x2048 16-bit (8 MiB)
/// 0.43-0.48x against 0.46-0.55x staged (SSE2, SSSE3 bodies: 0.23-0.29x against 0.29-0.35x),
/// 1024x1024 B8G8R8A8 (4 MiB) 0.46-0.50x against 0.51-0.53x. Walking two rows of tile groups together, so that the
/// twiddled neighbours of a group (the row below's) are read with it, lost for 8-bit (2048x2048
/// 0.39-0.41x against 0.52-0.58x, 256x256 0.64x against 0.71-0.73x) and 16-bit 1024x1024
/// (0.50-0.53x against 0.54-0.63x); 16-bit 256x256 gained a little (0.77-0.81x against 0.72-0.76x),
/// not enough to keep a second walk for it.
const STAGED_CACHED_MAX_B: u64 = 8 << 20;

/// Moves elements of `N` bytes in one direction. `t` is a twiddled byte offset, `l` a
/// linear byte offset.
trait Mover<const N: usize>: Sized {
    /// One element.
    fn texel(&mut self, t: usize, l: usize);
    /// A 4x4 block: 16 contiguous twiddled elements from `t`, rows of 4 from `l`.
    fn block(&mut self, t: usize, l: usize);
    /// A whole tile of `side x side` 4x4 blocks.
    #[inline(always)]
    fn tile(&mut self, t: usize, l: usize, side: usize, stride: usize) {
        whole_tile::<N, Self>(self, t, l, side, stride);
    }
    /// Whole 16x16 tiles the row walk hands over side by side (1: one at a time).
    const GROUP: usize = 1;
    /// [`Mover::GROUP`] whole 16x16 tiles side by side: twiddled starts `ts`, linear top-left
    /// `l`.
    #[inline(always)]
    fn group(&mut self, ts: [usize; 4], l: usize, stride: usize) {
        tiles_side_by_side::<N, Self>(self, ts, l, stride);
    }
    /// Two groups side by side (twiddled starts `ts[0]`, then `ts[1]`), linear top-left `l`:
    /// one group after the other unless a body takes both at once.
    #[inline(always)]
    fn group_pair(&mut self, ts: [[usize; 4]; 2], l: usize, stride: usize) {
        groups_one_by_one::<N, Self>(self, ts, l, stride);
    }
}

/// [`Mover::group_pair`] one group after the other, through [`Mover::group`].
#[inline(always)]
fn groups_one_by_one<const N: usize, M: Mover<N>>(
    m: &mut M,
    ts: [[usize; 4]; 2],
    l: usize,
    stride: usize,
) {
    m.group(ts[0], l, stride);
    m.group(ts[1], l + 16 * N * M::GROUP, stride);
}

/// [`Mover::group`] one tile at a time, through [`Mover::tile`].
#[inline(always)]
fn tiles_side_by_side<const N: usize, M: Mover<N>>(
    m: &mut M,
    ts: [usize; 4],
    l: usize,
    stride: usize,
) {
    for (g, &t) in ts.iter().enumerate().take(M::GROUP) {
        m.tile(t, l + 16 * N * g, 4, stride);
    }
}

/// How the x86_64 bodies store, for a copy that streams or not.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn stores(stream: bool) -> super::vector::Stores {
    if stream {
        super::vector::Stores::Stream
    } else {
        super::vector::Stores::Cached
    }
}

/// [`Mover::GROUP`] of the SSE2 bodies: 1- and 2-byte tiles go in groups whose rows are a
/// whole 64-byte line (why: `sse2_narrow::group_to_twiddled`).
const fn narrow_group(n: usize) -> usize {
    if cfg!(target_arch = "x86_64") && n < 4 {
        4 / n
    } else {
        1
    }
}

/// One copy's two sides (`T` the twiddled level's bytes, `L` the linear rectangle's), the
/// linear stride and the bodies; which side is written depends on the direction.
struct Sides<T, L> {
    tw: T,
    lin: L,
    stride: usize,
    b: Bodies,
}

/// Twiddled to linear.
type ToLinear<'a> = Sides<&'a [u8], &'a mut [u8]>;

impl<const N: usize> Mover<N> for ToLinear<'_> {
    const GROUP: usize = narrow_group(N);

    #[inline(always)]
    fn group(&mut self, ts: [usize; 4], l: usize, stride: usize) {
        #[cfg(target_arch = "x86_64")]
        if N < 4 {
            let (how, lin, tw) = (stores(self.b.stream), &mut *self.lin, self.tw);
            // SAFETY: `isa` names a level above SSE2 only where that level's available() said
            // the CPU runs it (Isa::runs).
            return unsafe {
                match self.b.isa {
                    Isa::Avx512 => {
                        super::avx512_narrow::group_to_linear::<N>(lin, l, stride, tw, ts, how)
                    }
                    Isa::Avx2 => {
                        super::avx2_narrow::group_to_linear::<N>(lin, l, stride, tw, ts, how)
                    }
                    Isa::Ssse3 => {
                        super::ssse3_narrow::group_to_linear::<N>(lin, l, stride, tw, ts, how)
                    }
                    Isa::Sse2 => {
                        super::sse2_narrow::group_to_linear::<N>(lin, l, stride, tw, ts, how)
                    }
                }
            };
        }
        tiles_side_by_side::<N, Self>(self, ts, l, stride);
    }

    #[inline(always)]
    fn group_pair(&mut self, ts: [[usize; 4]; 2], l: usize, stride: usize) {
        #[cfg(target_arch = "x86_64")]
        if N <= 4 && self.b.isa == Isa::Avx512 {
            use super::avx512_narrow::{group_pair_to_linear, tile_pair_to_linear};
            use super::sse2::TILE16_B;
            let (how, lin, tw) = (stores(self.b.stream), &mut *self.lin, self.tw);
            if N == 4 {
                let tile =
                    |t: usize| -> &[u8; TILE16_B] { tw[t..t + TILE16_B].try_into().unwrap() };
                let pair = [tile(ts[0][0]), tile(ts[1][0])];
                // SAFETY: `isa` is Avx512 only where avx512_narrow::available() said so.
                return unsafe { tile_pair_to_linear(lin, l, stride, pair, how) };
            }
            // SAFETY: as above.
            return unsafe { group_pair_to_linear::<N>(lin, l, stride, tw, ts, how) };
        }
        groups_one_by_one::<N, Self>(self, ts, l, stride);
    }

    #[inline(always)]
    fn texel(&mut self, t: usize, l: usize) {
        self.lin[l..l + N].copy_from_slice(&self.tw[t..t + N]);
    }

    #[inline(always)]
    fn block(&mut self, t: usize, l: usize) {
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            return super::sse2::block_to_linear(self.lin, l, self.stride, self.tw, t);
        }
        let src = &self.tw[t..t + 16 * N];
        for (r, idx) in BLOCK_INDEX.iter().enumerate() {
            let row = &mut self.lin[l + r * self.stride..][..4 * N];
            for (c, &i) in idx.iter().enumerate() {
                row[c * N..][..N].copy_from_slice(&src[i * N..][..N]);
            }
        }
    }

    #[inline(always)]
    fn tile(&mut self, t: usize, l: usize, side: usize, stride: usize) {
        #[cfg(target_arch = "x86_64")]
        if N <= 4 && side == 4 {
            use super::sse2::{tile16_to_linear, TILE16_B};
            let how = stores(self.b.stream);
            if N == 4 {
                let src = self.tw[t..t + TILE16_B].try_into().unwrap();
                if self.b.isa == Isa::Avx512 {
                    // SAFETY: `isa` is Avx512 only where avx512_narrow::available() said so.
                    return unsafe {
                        super::avx512_narrow::tile16_to_linear(self.lin, l, stride, src, how)
                    };
                }
                if self.b.isa >= Isa::Avx2 {
                    // SAFETY: `isa` is Avx2 or above only where avx2::available() said so.
                    return unsafe { super::avx2::tile16_to_linear(self.lin, l, stride, src, how) };
                }
                return tile16_to_linear(self.lin, l, stride, src, how);
            }
            return super::sse2_narrow::tile16_to_linear::<N>(
                self.lin,
                l,
                stride,
                &self.tw[t..],
                how,
            );
        }
        whole_tile::<N, Self>(self, t, l, side, stride);
    }
}

/// Linear to twiddled.
type ToTwiddled<'a> = Sides<&'a mut [u8], &'a [u8]>;

impl<const N: usize> Mover<N> for ToTwiddled<'_> {
    const GROUP: usize = narrow_group(N);

    #[inline(always)]
    fn group(&mut self, ts: [usize; 4], l: usize, stride: usize) {
        #[cfg(target_arch = "x86_64")]
        if N < 4 {
            let (how, tw, lin) = (stores(self.b.stream), &mut *self.tw, self.lin);
            if self.b.isa == Isa::Avx512 {
                // SAFETY: `isa` is Avx512 only where avx512_narrow::available() said so.
                return unsafe {
                    super::avx512_narrow::group_to_twiddled::<N>(tw, ts, lin, l, stride, how)
                };
            }
            if self.b.isa == Isa::Avx2 {
                // SAFETY: `isa` is Avx2 only where avx2::available() said so.
                return unsafe {
                    super::avx2_narrow::group_to_twiddled::<N>(tw, ts, lin, l, stride, how)
                };
            }
            return super::sse2_narrow::group_to_twiddled::<N>(tw, ts, lin, l, stride, how);
        }
        tiles_side_by_side::<N, Self>(self, ts, l, stride);
    }

    #[inline(always)]
    fn texel(&mut self, t: usize, l: usize) {
        self.tw[t..t + N].copy_from_slice(&self.lin[l..l + N]);
    }

    #[inline(always)]
    fn block(&mut self, t: usize, l: usize) {
        #[cfg(target_arch = "x86_64")]
        if N == 4 {
            return super::sse2::block_to_twiddled(self.tw, t, self.lin, l, self.stride);
        }
        let mut blk = [[0u8; N]; 16];
        for (r, idx) in BLOCK_INDEX.iter().enumerate() {
            let mut row = [[0u8; N]; 4];
            row.as_flattened_mut()
                .copy_from_slice(&self.lin[l + r * self.stride..][..4 * N]);
            for (c, &i) in idx.iter().enumerate() {
                blk[i] = row[c];
            }
        }
        self.tw[t..t + 16 * N].copy_from_slice(blk.as_flattened());
    }

    #[inline(always)]
    fn tile(&mut self, t: usize, l: usize, side: usize, stride: usize) {
        #[cfg(target_arch = "x86_64")]
        if N <= 4 && side == 4 {
            use super::sse2::{tile16_to_twiddled, TILE16_B};
            let how = stores(self.b.stream);
            if N == 4 {
                let dst = (&mut self.tw[t..t + TILE16_B]).try_into().unwrap();
                if self.b.isa == Isa::Avx512 {
                    // SAFETY: `isa` is Avx512 only where avx512_narrow::available() said so.
                    return unsafe {
                        super::avx512_narrow::tile16_to_twiddled(dst, self.lin, l, stride, how)
                    };
                }
                if self.b.isa >= Isa::Avx2 {
                    // SAFETY: `isa` is Avx2 or above only where avx2::available() said so.
                    return unsafe {
                        super::avx2::tile16_to_twiddled(dst, self.lin, l, stride, how)
                    };
                }
                return tile16_to_twiddled(dst, self.lin, l, stride, how);
            }
            return super::sse2_narrow::tile16_to_twiddled::<N>(
                &mut self.tw[t..],
                self.lin,
                l,
                stride,
                how,
            );
        }
        whole_tile::<N, Self>(self, t, l, side, stride);
    }
}

/// Per-texel path for the part `xs x ys` of the rectangle whose origin is (`x0`, `y0`).
#[inline(always)]
fn border<const N: usize, M: Mover<N>>(
    m: &mut M,
    g: &Twiddle,
    (x0, y0): (u32, u32),
    xs: std::ops::Range<u32>,
    ys: std::ops::Range<u32>,
    stride: usize,
) {
    let xb0 = g.x_bits(xs.start);
    let mut yb = g.y_bits(ys.start);
    for y in ys {
        let mut l = (y - y0) as usize * stride + (xs.start - x0) as usize * N;
        let mut xb = xb0;
        for _ in xs.clone() {
            m.texel((xb | yb) as usize * N, l);
            xb = step(xb, g.x_mask);
            l += N;
        }
        yb = step(yb, g.y_mask);
    }
}

/// Whole-tile body: a `side x side` grid of 4x4 blocks from twiddled byte `t`, linear
/// top-left byte `l`, in bands of four rows, left to right (why: the `sse2` module).
#[inline(always)]
fn whole_tile<const N: usize, M: Mover<N>>(
    m: &mut M,
    t: usize,
    l: usize,
    side: usize,
    stride: usize,
) {
    for by in 0..side {
        for bx in 0..side {
            m.block(
                t + block_of(bx, by) * 16 * N,
                l + by * 4 * stride + bx * 4 * N,
            );
        }
    }
}

/// Walks the rectangle's tiles along rows of tiles (why: the module comment).
fn walk<const N: usize, M: Mover<N>>(m: &mut M, g: &Twiddle, r: Rect, stride: usize) {
    let (x0, y0, x1, y1) = (r.x, r.y, r.x + r.w, r.y + r.h);
    let s = g.log2_w.min(g.log2_h);
    let tile_log2 = s.min(MAX_TILE_LOG2);
    if tile_log2 < 2 {
        // One or two elements thick: no 4x4 block fits.
        border::<N, M>(m, g, (x0, y0), x0..x1, y0..y1, stride);
        return;
    }
    let side_blocks = 1usize << (tile_log2 - 2);
    let tile_side = 1u32 << tile_log2;
    // One tile with top-left element (tx, ty), twiddled start element `te`.
    let visit = |m: &mut M, tx: u32, ty: u32, te: usize| {
        if tx >= x0 && ty >= y0 && tx + tile_side <= x1 && ty + tile_side <= y1 {
            let l = (ty - y0) as usize * stride + (tx - x0) as usize * N;
            m.tile(te * N, l, side_blocks, stride);
        } else {
            let xs = tx.max(x0)..(tx + tile_side).min(x1);
            let ys = ty.max(y0)..(ty + tile_side).min(y1);
            if !xs.is_empty() && !ys.is_empty() {
                border::<N, M>(m, g, (x0, y0), xs, ys, stride);
            }
        }
    };
    // Tiles covering the rectangle, with their deposited X and Y increments.
    let side = 1u32 << tile_log2;
    let (txs, tys, x_inc, y_inc) = (
        (x0 >> tile_log2)..=((x1 - 1) >> tile_log2),
        (y0 >> tile_log2)..=((y1 - 1) >> tile_log2),
        g.x_bits(side),
        g.y_bits(side),
    );
    let xb0 = g.x_bits(txs.start() << tile_log2);
    let mut yb = g.y_bits(tys.start() << tile_log2);
    let group = if tile_log2 == MAX_TILE_LOG2 {
        M::GROUP as u32
    } else {
        1
    };
    for ty in tys {
        let mut xb = xb0;
        let (py0, py1) = (ty << tile_log2, (ty + 1) << tile_log2);
        let rows_whole = py0 >= y0 && py1 <= y1;
        let mut tx = *txs.start();
        while tx <= *txs.end() {
            let (px0, px1) = (tx << tile_log2, (tx + group) << tile_log2);
            if tile_log2 == MAX_TILE_LOG2 && rows_whole && px0 >= x0 && px1 <= x1 {
                // Two groups at once where both fit ([`Mover::group_pair`]).
                let pair = (tx + 2 * group) << tile_log2 <= x1;
                let mut ts = [[0usize; 4]; 2];
                for half in ts.iter_mut().take(1 + usize::from(pair)) {
                    for t in half.iter_mut().take(group as usize) {
                        *t = (xb | yb) as usize * N;
                        xb = step_by(xb, x_inc, g.x_mask);
                    }
                }
                let l = (py0 - y0) as usize * stride + (px0 - x0) as usize * N;
                if pair {
                    m.group_pair(ts, l, stride);
                    tx += 2 * group;
                } else {
                    m.group(ts[0], l, stride);
                    tx += group;
                }
                continue;
            }
            visit(m, tx << tile_log2, py0, (xb | yb) as usize);
            xb = step_by(xb, x_inc, g.x_mask);
            tx += 1;
        }
        yb = step_by(yb, y_inc, g.y_mask);
    }
}

/// Walks the copy at its element size ([`walk`]).
fn dispatch<M: Movers>(m: &mut M, g: &Twiddle, r: Rect, stride: usize, bpe: usize) {
    match bpe {
        1 => walk::<1, M>(m, g, r, stride),
        2 => walk::<2, M>(m, g, r, stride),
        4 => walk::<4, M>(m, g, r, stride),
        8 => walk::<8, M>(m, g, r, stride),
        16 => walk::<16, M>(m, g, r, stride),
        // check_copy admits only the sizes above.
        _ => unreachable!("element size checked"),
    }
}

/// Whether a copy of `rect_el` is large enough to write with non-temporal stores.
fn streams(rect_el: Rect, bytes_per_el: usize) -> bool {
    cfg!(target_arch = "x86_64") && len_B(rect_el, bytes_per_el) >= STREAM_MIN_B
}

/// Vector body sets, narrowest first; each includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Isa {
    /// SSE2 (the x86_64 baseline) or, elsewhere, the generic bodies.
    Sse2,
    /// SSSE3: 1-/2-byte groups twiddled to linear with `pshufb`.
    Ssse3,
    /// AVX2: 4-byte tiles, and 1-/2-byte groups in both directions.
    Avx2,
    /// AVX-512 F, BW and VBMI: 1-/2-byte groups in both directions.
    Avx512,
}

impl Isa {
    /// Every level, for tests that run each one the CPU has.
    #[cfg(test)]
    const ALL: [Isa; 4] = [Isa::Sse2, Isa::Ssse3, Isa::Avx2, Isa::Avx512];

    /// Whether this CPU runs the level's bodies.
    fn runs(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return match self {
            Isa::Sse2 => true,
            Isa::Ssse3 => super::ssse3_narrow::available(),
            Isa::Avx2 => super::avx2::available(),
            Isa::Avx512 => super::avx2::available() && super::avx512_narrow::available(),
        };
        #[cfg(not(target_arch = "x86_64"))]
        return self == Isa::Sse2;
    }

    /// The widest level this CPU runs, at most the one `SGX_TWIDDLE_ISA` names (`sse2`,
    /// `ssse3`, `avx2`, `avx512`: for debugging a body, and for `bench twiddle` comparisons).
    fn best() -> Isa {
        static BEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let cap = match std::env::var("SGX_TWIDDLE_ISA").as_deref() {
                Ok("sse2") => Isa::Sse2,
                Ok("ssse3") => Isa::Ssse3,
                Ok("avx2") => Isa::Avx2,
                Ok("avx512") | Err(_) => Isa::Avx512,
                Ok(v) => {
                    log::warn!("SGX_TWIDDLE_ISA={v:?} is not sse2, ssse3, avx2 or avx512: ignored");
                    Isa::Avx512
                }
            };
            [Isa::Avx512, Isa::Avx2, Isa::Ssse3]
                .into_iter()
                .find(|&i| i <= cap && i.runs())
                .unwrap_or(Isa::Sse2)
        })
    }
}

/// Makes non-temporal stores visible in order before the copy returns.
fn fence() {
    #[cfg(target_arch = "x86_64")]
    super::sse2::fence();
}

/// Copies a linear rectangle into a twiddled level by the tile walk.
pub fn linear_to_twiddled(
    tw: &mut [u8],
    geom: &Twiddle,
    rect_el: Rect,
    lin: &[u8],
    lin_stride_B: usize,
    bytes_per_el: usize,
) -> Result<(), LayoutError> {
    let b = Bodies::best(rect_el, bytes_per_el);
    let pool = parallel::pool_for(len_B(rect_el, bytes_per_el));
    pooled_to_twiddled(
        pool.as_deref(),
        parallel::PIECE_B,
        tw,
        geom,
        rect_el,
        lin,
        lin_stride_B,
        bytes_per_el,
        b,
    )
}

/// Copies a rectangle of a twiddled level into linear memory by the tile walk.
pub fn twiddled_to_linear(
    lin: &mut [u8],
    lin_stride_B: usize,
    tw: &[u8],
    geom: &Twiddle,
    rect_el: Rect,
    bytes_per_el: usize,
) -> Result<(), LayoutError> {
    let b = Bodies::best_to_linear(rect_el, bytes_per_el);
    let pool = parallel::pool_for(len_B(rect_el, bytes_per_el));
    pooled_to_linear(
        pool.as_deref(),
        parallel::PIECE_B,
        lin,
        lin_stride_B,
        tw,
        geom,
        rect_el,
        bytes_per_el,
        b,
    )
}

/// Bytes a copy of `rect_el` moves.
fn len_B(rect_el: Rect, bytes_per_el: usize) -> u64 {
    u64::from(rect_el.w) * u64::from(rect_el.h) * bytes_per_el as u64
}

/// [`to_twiddled`] on `pool` in pieces of about `piece_B` ([`parallel`]), or on this thread
/// without one (or where the level does not split).
#[allow(clippy::too_many_arguments)]
fn pooled_to_twiddled(
    pool: Option<&sgx_pool::Pool>,
    piece_B: u64,
    tw: &mut [u8],
    geom: &Twiddle,
    rect_el: Rect,
    lin: &[u8],
    stride: usize,
    bytes_per_el: usize,
    b: Bodies,
) -> Result<(), LayoutError> {
    if let Some(pool) = pool {
        if !check_copy(tw.len(), geom, rect_el, lin.len(), stride, bytes_per_el)? {
            return Ok(());
        }
        let copy = |t: &mut [u8], g: &Twiddle, r: Rect, l: &[u8]| {
            to_twiddled(t, g, r, l, stride, bytes_per_el, b)
        };
        if parallel::to_twiddled(
            pool,
            &mut *tw,
            geom,
            rect_el,
            lin,
            stride,
            bytes_per_el,
            piece_B,
            copy,
        )? {
            return Ok(());
        }
    }
    to_twiddled(tw, geom, rect_el, lin, stride, bytes_per_el, b)
}

/// [`to_linear`] on `pool` in bands of about `piece_B` ([`parallel`]), or on this thread
/// without one.
#[allow(clippy::too_many_arguments)]
fn pooled_to_linear(
    pool: Option<&sgx_pool::Pool>,
    piece_B: u64,
    lin: &mut [u8],
    stride: usize,
    tw: &[u8],
    geom: &Twiddle,
    rect_el: Rect,
    bytes_per_el: usize,
    b: Bodies,
) -> Result<(), LayoutError> {
    let Some(pool) = pool else {
        return to_linear(lin, stride, tw, geom, rect_el, bytes_per_el, b);
    };
    if !check_copy(tw.len(), geom, rect_el, lin.len(), stride, bytes_per_el)? {
        return Ok(());
    }
    parallel::to_linear(
        pool,
        lin,
        stride,
        rect_el,
        bytes_per_el,
        piece_B,
        |band, r| to_linear(band, stride, tw, geom, r, bytes_per_el, b),
    )
}

/// The choice of stores and vector bodies for one copy.
#[derive(Debug, Clone, Copy)]
struct Bodies {
    /// Whether whole tiles may use non-temporal stores.
    stream: bool,
    /// The widest vector bodies this CPU runs (checked available).
    isa: Isa,
    /// Most bytes of the staging buffer of streaming copies to linear memory ([`staged`]).
    stage_max_B: usize,
}

impl Bodies {
    /// What a copy of `rect_el` uses: streaming by its size, the widest bodies allowed.
    fn best(rect_el: Rect, bytes_per_el: usize) -> Self {
        let (stream, isa) = (streams(rect_el, bytes_per_el), Isa::best());
        let stage_max_B = staged::STAGE_MAX_B;
        Self {
            stream,
            isa,
            stage_max_B,
        }
    }

    /// What a copy of `rect_el` to linear memory uses: [`Bodies::best`], but with cached
    /// stores where it would stage 1- or 2-byte elements and moves at most
    /// [`STAGED_CACHED_MAX_B`].
    fn best_to_linear(rect_el: Rect, bytes_per_el: usize) -> Self {
        let b = Self::best(rect_el, bytes_per_el);
        let cached =
            stages(b) && bytes_per_el <= 2 && len_B(rect_el, bytes_per_el) <= STAGED_CACHED_MAX_B;
        Self {
            stream: b.stream && !cached,
            ..b
        }
    }
}

/// [`linear_to_twiddled`] with the choice of stores and bodies made by the caller (tests
/// force streaming on small levels, and the SSE2 bodies where AVX2 exists).
fn to_twiddled(
    tw: &mut [u8],
    geom: &Twiddle,
    rect_el: Rect,
    lin: &[u8],
    lin_stride_B: usize,
    bytes_per_el: usize,
    b: Bodies,
) -> Result<(), LayoutError> {
    run(tw, lin, lin_stride_B, geom, rect_el, bytes_per_el, b)
}

/// [`twiddled_to_linear`] with the choice of stores and bodies made by the caller.
fn to_linear(
    lin: &mut [u8],
    lin_stride_B: usize,
    tw: &[u8],
    geom: &Twiddle,
    rect_el: Rect,
    bytes_per_el: usize,
    b: Bodies,
) -> Result<(), LayoutError> {
    if b.stream && stages(b) {
        let (tw_len_B, lin_len_B) = (tw.len(), lin.len());
        if check_copy(
            tw_len_B,
            geom,
            rect_el,
            lin_len_B,
            lin_stride_B,
            bytes_per_el,
        )? {
            staged::to_linear(lin, lin_stride_B, tw, geom, rect_el, bytes_per_el, b);
        }
        return Ok(());
    }
    run(tw, lin, lin_stride_B, geom, rect_el, bytes_per_el, b)
}

/// Whether a streaming copy to linear memory goes through the staging buffer ([`staged`]).
/// Not with the AVX-512 bodies: on the Xeon they were measured on, streaming straight from
/// the tile walk met its goal (0.82x of the best copy at 2048x2048). On an AMD EPYC with
/// AVX-512 (Zen 4: 1 MiB L2 per core, 32 MiB L3) it won too, 2048x2048 B8G8R8A8 0.80-0.91x of the
/// best copy against 0.48-0.73x staged with the AVX-512 bodies and 0.69-0.80x staged with AVX2's
/// (`bench_twiddle 2048x4`, six rounds interleaved, load under 1).
fn stages(b: Bodies) -> bool {
    b.isa != Isa::Avx512
}

/// Checks a copy and, unless it is empty, walks it in the direction `T` and `L` give.
fn run<T: AsRef<[u8]>, L: AsRef<[u8]>>(
    tw: T,
    lin: L,
    stride: usize,
    geom: &Twiddle,
    rect_el: Rect,
    bytes_per_el: usize,
    b: Bodies,
) -> Result<(), LayoutError>
where
    Sides<T, L>: Movers,
{
    let (tw_len_B, lin_len_B) = (tw.as_ref().len(), lin.as_ref().len());
    if check_copy(tw_len_B, geom, rect_el, lin_len_B, stride, bytes_per_el)? {
        let mut m = Sides { tw, lin, stride, b };
        dispatch(&mut m, geom, rect_el, stride, bytes_per_el);
        if b.stream {
            fence();
        }
    }
    Ok(())
}

/// A mover for every element size.
trait Movers: Mover<1> + Mover<2> + Mover<4> + Mover<8> + Mover<16> {}

impl<M: Mover<1> + Mover<2> + Mover<4> + Mover<8> + Mover<16>> Movers for M {}

// The integration tests' helpers (noise) serve these unit tests too: one copy.
#[cfg(test)]
#[path = "../../tests/common/mod.rs"]
mod test_common;

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
