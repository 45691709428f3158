//! `sgx535 bench twiddle`: the plain copies of the same bytes ([`Anchor`]: memcpy, `rep movsb`,
//! non-temporal stores), the reference copy and the fast copy, side by side in one process on
//! the same (page-aligned) buffers, in both directions. Timing is best-of-N wall
//! time; it is a measurement to print, never a test.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::copy::{self, reference, Rect};
use crate::morton::Twiddle;
use crate::LayoutError;

/// Direction of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Direction {
    /// Linear to twiddled (upload).
    ToTwiddled,
    /// Twiddled to linear (readback).
    ToLinear,
}

impl Direction {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Direction::ToTwiddled => "linear->twiddled",
            Direction::ToLinear => "twiddled->linear",
        }
    }
}

mod anchors;
pub use anchors::Anchor;

/// One measured size, format and direction.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BenchRow {
    /// Square side in pixels.
    pub size_px: u32,
    /// Bytes per pixel (4: B8G8R8A8, 2: 16-bit formats, 1: 8-bit formats).
    pub bytes_per_px: usize,
    /// Direction.
    pub direction: Direction,
    /// Bytes moved per copy.
    pub bytes: u64,
    /// Each plain copy of the same bytes (the anchors), GB/s (10^9 bytes per second).
    pub anchors_gbps: Vec<(Anchor, f64)>,
    /// The reference copy, GB/s.
    pub reference_gbps: f64,
    /// The fast copy, GB/s.
    pub fast_gbps: f64,
}

impl BenchRow {
    /// memcpy's figure.
    pub fn memcpy_gbps(&self) -> f64 {
        self.anchors_gbps[0].1
    }

    /// The fastest anchor and its figure: the limit a reordering copy is held against.
    pub fn best(&self) -> (Anchor, f64) {
        self.anchors_gbps
            .iter()
            .copied()
            .fold((Anchor::Memcpy, 0.0), |b, a| if a.1 > b.1 { a } else { b })
    }

    /// fast / best anchor.
    pub fn fast_vs_best(&self) -> f64 {
        self.fast_gbps / self.best().1
    }
}

/// The reference copy, 30 to 50 times slower, is timed in one round of this many.
const REFERENCE_EVERY: u32 = 8;

/// Page size the benchmark buffers are aligned to.
const PAGE_B: usize = 4096;

/// A buffer whose usable bytes start on a page boundary. glibc's memcpy (`rep movsb` on
/// AMD Zen) runs at a tenth of its speed when the destination sits a few bytes past the
/// source modulo 4 KiB, which two heap allocations placed back to back can produce (the
/// 256x256 linear->twiddled memcpy at 2 GB/s against 30 GB/s the other way); GPU memory is
/// page aligned, so aligning both sides measures the case that matters.
struct PageAligned {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl PageAligned {
    fn new(len_B: u64) -> Self {
        let len = len_B as usize;
        let raw = vec![0u8; len + PAGE_B];
        let start = raw.as_ptr().align_offset(PAGE_B);
        Self { raw, start, len }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

/// Best times of `n` copies (`run(0)` .. `run(n - 1)`), measured in interleaved rounds so
/// that load from other processes falls on all alike. Each timed run follows an untimed run
/// of the same copy, so each starts from the cache state its own repetition leaves (rather
/// than whatever the previous copy left) and from faulted-in pages. The slow reference
/// (`run(0)`) takes part in one round of [`REFERENCE_EVERY`] only.
fn best_of_rounds(rounds: u32, n: usize, mut run: impl FnMut(usize)) -> Vec<Duration> {
    let mut best = vec![Duration::MAX; n];
    for round in 0..rounds {
        for (which, b) in best.iter_mut().enumerate() {
            if which == 0 && round % REFERENCE_EVERY != 0 {
                continue;
            }
            run(which);
            let t = Instant::now();
            run(which);
            *b = (*b).min(t.elapsed());
        }
    }
    best
}

fn gbps(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64().max(1e-12) / 1e9
}

/// The cases `sgx535 bench twiddle` measures: (square side, bytes per pixel).
// The largest texture side (2048) and a cache-resident one (256): bench sizes, not limits.
pub const BENCH_CASES: [(u32, usize); 6] = [
    (2048, 4),
    (2048, 2),
    (2048, 1),
    (256, 4),
    (256, 2),
    (256, 1),
];

/// Measures copies of each (square side in pixels, a power of two up to 2048; bytes per
/// pixel), against every plain-copy [`Anchor`] this CPU has.
pub fn bench_twiddle(cases: &[(u32, usize)]) -> Result<Vec<BenchRow>, LayoutError> {
    let anchors = Anchor::available();
    let mut rows = Vec::new();
    for &(size_px, bpe) in cases {
        if !copy::ELEMENT_SIZES_B.contains(&bpe) {
            return Err(LayoutError::UnsupportedElementSize { bytes_per_el: bpe });
        }
        let g = Twiddle::from_extent(size_px, size_px)?;
        let bytes = g.len_el() * bpe as u64;
        let stride = size_px as usize * bpe;
        let rect = Rect::full(size_px, size_px);
        let (mut lin_buf, mut tw_buf) = (PageAligned::new(bytes), PageAligned::new(bytes));
        let (lin, tw) = (lin_buf.bytes_mut(), tw_buf.bytes_mut());
        for (i, b) in lin.iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        // About 512 MiB of timed fast copies per measurement, at least 32 rounds: best-of
        // needs many samples on a shared machine.
        let rounds = ((512 << 20) / bytes).clamp(32, 2000) as u32;
        for direction in [Direction::ToTwiddled, Direction::ToLinear] {
            let times = best_of_rounds(rounds, 2 + anchors.len(), |which| {
                let r = match (direction, which) {
                    (Direction::ToTwiddled, 0) => reference::linear_to_twiddled(
                        &mut *tw,
                        &g,
                        rect,
                        black_box(&*lin),
                        stride,
                        bpe,
                    ),
                    (Direction::ToTwiddled, 1) => {
                        copy::linear_to_twiddled(&mut *tw, &g, rect, black_box(&*lin), stride, bpe)
                    }
                    (Direction::ToTwiddled, k) => {
                        anchors[k - 2].copy(tw, black_box(&*lin));
                        Ok(())
                    }
                    (Direction::ToLinear, 0) => reference::twiddled_to_linear(
                        &mut *lin,
                        stride,
                        black_box(&*tw),
                        &g,
                        rect,
                        bpe,
                    ),
                    (Direction::ToLinear, 1) => {
                        copy::twiddled_to_linear(&mut *lin, stride, black_box(&*tw), &g, rect, bpe)
                    }
                    (Direction::ToLinear, k) => {
                        anchors[k - 2].copy(lin, black_box(&*tw));
                        Ok(())
                    }
                };
                black_box(r).ok();
            });
            rows.push(BenchRow {
                size_px,
                bytes_per_px: bpe,
                direction,
                bytes,
                anchors_gbps: anchors
                    .iter()
                    .zip(&times[2..])
                    .map(|(&a, &t)| (a, gbps(bytes, t)))
                    .collect(),
                reference_gbps: gbps(bytes, times[0]),
                fast_gbps: gbps(bytes, times[1]),
            });
        }
    }
    Ok(rows)
}

/// Prints rows as a table: every anchor, then the fast copy against memcpy and the best.
pub fn format_bench(rows: &[BenchRow]) -> String {
    let mut s = String::new();
    let Some(first) = rows.first() else {
        return s;
    };
    let _ = write!(
        s,
        "{:<10} {:>3} {:<17} {:>6}",
        "size", "B/px", "direction", "MiB"
    );
    for (a, _) in &first.anchors_gbps {
        let _ = write!(s, " {:>10}", a.name());
    }
    let _ = writeln!(
        s,
        " {:>9} {:>9} {:>8} {:>9} {:<10}",
        "reference", "fast", "fast/memcpy", "fast/best", "best"
    );
    for r in rows {
        let _ = write!(
            s,
            "{:<10} {:>3} {:<17} {:>6.2}",
            format!("{0}x{0}", r.size_px),
            r.bytes_per_px,
            r.direction.name(),
            r.bytes as f64 / (1 << 20) as f64,
        );
        for (_, g) in &r.anchors_gbps {
            let _ = write!(s, " {:>6.2}GB/s", g);
        }
        let (best, _) = r.best();
        let _ = writeln!(
            s,
            " {:>5.2}GB/s {:>5.2}GB/s {:>10.2}x {:>8.2}x {:<10}",
            r.reference_gbps,
            r.fast_gbps,
            r.fast_gbps / r.memcpy_gbps(),
            r.fast_vs_best(),
            best.name()
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_buffers_start_on_a_page() {
        for len_B in [1u64, 100, 4096, 5000] {
            let mut b = PageAligned::new(len_B);
            let bytes = b.bytes_mut();
            assert_eq!(bytes.len() as u64, len_B);
            assert_eq!(bytes.as_ptr() as usize % PAGE_B, 0);
        }
    }

    #[test]
    fn rows_cover_both_directions_of_each_case() {
        let rows = bench_twiddle(&[(8, 4), (16, 2)]).unwrap();
        let shape: Vec<(u32, usize, Direction, u64)> = rows
            .iter()
            .map(|r| (r.size_px, r.bytes_per_px, r.direction, r.bytes))
            .collect();
        assert_eq!(
            shape,
            vec![
                (8, 4, Direction::ToTwiddled, 256),
                (8, 4, Direction::ToLinear, 256),
                (16, 2, Direction::ToTwiddled, 512),
                (16, 2, Direction::ToLinear, 512)
            ]
        );
        let anchors = Anchor::available();
        for r in &rows {
            assert!(r.fast_gbps > 0.0 && r.reference_gbps > 0.0);
            assert_eq!(r.anchors_gbps.len(), anchors.len());
            assert!(r.anchors_gbps.iter().all(|&(_, g)| g > 0.0));
            // The best is the largest anchor figure, never below memcpy's.
            assert!(r.best().1 >= r.memcpy_gbps());
            assert!(r.anchors_gbps.iter().all(|&(_, g)| g <= r.best().1));
        }
        let table = format_bench(&rows);
        assert_eq!(table.lines().count(), 5);
        assert!(table.contains("16x16") && table.contains("twiddled->linear"));
        assert!(table.contains("fast/best") && table.contains("memcpy"));
        assert!(matches!(
            bench_twiddle(&[(48, 4)]),
            Err(LayoutError::TwiddleNeedsPowerOfTwo { .. })
        ));
        assert!(matches!(
            bench_twiddle(&[(16, 3)]),
            Err(LayoutError::UnsupportedElementSize { bytes_per_el: 3 })
        ));
    }
}
