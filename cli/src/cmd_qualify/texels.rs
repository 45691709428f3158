//! Texels of the qualified formats as channel values: the test patterns, the error figures
//! between two levels, and RGBA8 images for the report. Channel positions and widths come
//! from hwdocs' format table.

use sgx_hwdocs::Format;

/// A level-0 pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Every 2x2 average at every level is an integer in every channel: any correct box filter
    /// matches the CPU reference byte for byte.
    Exact,
    /// Smooth ramps whose averages need rounding.
    Gradient,
    /// Random channel values.
    Random,
}

impl Pattern {
    /// Every pattern.
    pub const ALL: [Pattern; 3] = [Pattern::Exact, Pattern::Gradient, Pattern::Random];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Exact => "exact",
            Pattern::Gradient => "gradient",
            Pattern::Random => "random",
        }
    }

    /// The largest per-channel error (in units of the channel) a format qualifies under: 0 for
    /// the exact pattern; 1 otherwise, since the CPU reference rounds `(a + b + c + d + 2) / 4`
    /// at the channel's width and a filter that rounds at another point lands one unit off.
    pub fn tolerance(self) -> u64 {
        match self {
            Pattern::Exact => 0,
            _ => 1,
        }
    }
}

fn max_of(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

/// Channel `c` (its index in the format) of the exact pattern at (x, y): a base plus even
/// weights on bits of x and y (so every 2x2 average is an integer at every level), the
/// weights taken while the channel's width allows. A 1-bit channel stays constant 1.
fn exact_value(c: usize, bits: u32, x: u32, y: u32) -> u64 {
    let max = max_of(bits);
    let mut v = 1u64.min(max);
    let mut budget = max.saturating_sub(v);
    for k in 0..11u32 {
        for (axis, coord) in [(0usize, x), (1, y)] {
            // Weights vary by channel and bit so channels differ; all even.
            let w = 2 * (1 + ((k as usize + c * 3 + axis * 2) % 4) as u64);
            let w = if w <= budget {
                w
            } else if budget >= 2 {
                2
            } else {
                continue;
            };
            budget -= w;
            v += u64::from((coord >> k) & 1) * w;
        }
    }
    v
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Level 0 of `pattern` for a `size_px` square of `format`, linear rows. Padding channels
/// (`x`) hold all ones: the PBE writes them so, whatever the filter.
pub fn level0(format: Format, pattern: Pattern, size_px: u32) -> Vec<u8> {
    let info = format.info();
    let bpe = info.bytes_per_el as usize;
    let mut out = Vec::with_capacity(size_px as usize * size_px as usize * bpe);
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ u64::from(size_px) ^ (u64::from(info.code) << 32);
    let span = u64::from(size_px.max(2) - 1);
    for y in 0..size_px {
        for x in 0..size_px {
            let mut el = 0u64;
            for (c, ch) in info.channels.iter().enumerate() {
                let max = max_of(ch.bits);
                let v = if ch.name == "x" {
                    max
                } else {
                    match pattern {
                        Pattern::Exact => exact_value(c, ch.bits, x, y),
                        Pattern::Gradient => {
                            let t = match c % 3 {
                                0 => u64::from(x) * 2 * max,
                                1 => u64::from(y) * 2 * max,
                                _ => u64::from(x + y) * max,
                            };
                            // Rounded to nearest: (t / span).div_ceil(2).
                            (t / span).div_ceil(2)
                        }
                        Pattern::Random => xorshift(&mut seed) & max,
                    }
                };
                el |= (v & max) << ch.lo;
            }
            out.extend_from_slice(&el.to_le_bytes()[..bpe]);
        }
    }
    out
}

/// Channel values of texel `i` of a tightly packed level.
fn channels(format: Format, data: &[u8], i: usize) -> Vec<u64> {
    let info = format.info();
    let bpe = info.bytes_per_el as usize;
    let mut b = [0u8; 8];
    b[..bpe].copy_from_slice(&data[i * bpe..][..bpe]);
    let el = u64::from_le_bytes(b);
    info.channels
        .iter()
        .map(|c| (el >> c.lo) & max_of(c.bits))
        .collect()
}

/// How two levels differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Diff {
    /// Bytes that differ.
    pub bytes: u64,
    /// Largest per-channel difference, in units of the channel.
    pub max_channel_err: u64,
}

impl Diff {
    /// Adds another level's figures.
    pub fn add(&mut self, o: Diff) {
        self.bytes += o.bytes;
        self.max_channel_err = self.max_channel_err.max(o.max_channel_err);
    }
}

/// The figures of `got` against `want` (both tightly packed levels of `format`). A length
/// mismatch counts every byte of the longer as differing.
pub fn diff(format: Format, got: &[u8], want: &[u8]) -> Diff {
    if got.len() != want.len() {
        return Diff {
            bytes: got.len().max(want.len()) as u64,
            max_channel_err: u64::MAX,
        };
    }
    let bytes = got.iter().zip(want).filter(|(a, b)| a != b).count() as u64;
    let mut max_channel_err = 0;
    if bytes != 0 {
        let bpe = format.info().bytes_per_el as usize;
        for i in 0..got.len() / bpe {
            let (g, w) = (channels(format, got, i), channels(format, want, i));
            for (a, b) in g.iter().zip(&w) {
                max_channel_err = max_channel_err.max(a.abs_diff(*b));
            }
        }
    }
    Diff {
        bytes,
        max_channel_err,
    }
}

fn to_u8(v: u64, bits: u32) -> u8 {
    ((v * 255 + max_of(bits) / 2) / max_of(bits)) as u8
}

/// A tightly packed level as RGBA8 for a PNG: r, g, b, a by name, luminance to all three,
/// missing alpha opaque.
pub fn to_rgba8(format: Format, data: &[u8]) -> Vec<u8> {
    let info = format.info();
    let bpe = info.bytes_per_el as usize;
    let mut out = Vec::with_capacity(data.len() / bpe * 4);
    for i in 0..data.len() / bpe {
        let vals = channels(format, data, i);
        let mut px = [0u8, 0, 0, 255];
        for (ch, v) in info.channels.iter().zip(vals) {
            let b = to_u8(v, ch.bits);
            match ch.name {
                "r" => px[0] = b,
                "g" => px[1] = b,
                "b" => px[2] = b,
                "a" => px[3] = b,
                "l" | "i" => {
                    px[0] = b;
                    px[1] = b;
                    px[2] = b;
                }
                _ => {}
            }
        }
        out.extend_from_slice(&px);
    }
    out
}

/// The per-channel difference of two levels magnified `gain` times, opaque RGBA8 (black
/// where equal).
pub fn diff_rgba8(format: Format, got: &[u8], want: &[u8], gain: u32) -> Vec<u8> {
    let (g, w) = (to_rgba8(format, got), to_rgba8(format, want));
    g.chunks_exact(4)
        .zip(w.chunks_exact(4))
        .flat_map(|(a, b)| {
            let m = |i: usize| (u32::from(a[i].abs_diff(b[i])) * gain).min(255) as u8;
            // Alpha differences show as white in all three colour channels.
            let al = m(3);
            [m(0).max(al), m(1).max(al), m(2).max(al), 255]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: [Format; 6] = [
        Format::B8G8R8A8_UNORM,
        Format::B8G8R8X8_UNORM,
        Format::R8G8B8A8_UNORM,
        Format::B5G6R5_UNORM,
        Format::B4G4R4A4_UNORM,
        Format::B5G5R5A1_UNORM,
    ];

    #[test]
    fn the_exact_pattern_averages_exactly_at_every_level() {
        for f in FORMATS {
            let size = 64u32;
            let mut level = level0(f, Pattern::Exact, size);
            let mut s = size;
            while s > 1 {
                // The CPU reference's rounding must never be needed: the sum of every 2x2
                // block is a multiple of 4 in every channel.
                let bpe = f.info().bytes_per_el as usize;
                for y in 0..(s / 2) as usize {
                    for x in 0..(s / 2) as usize {
                        let at = |dx: usize, dy: usize| {
                            channels(f, &level, (2 * y + dy) * s as usize + 2 * x + dx)
                        };
                        let taps = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)];
                        for c in 0..taps[0].len() {
                            let sum: u64 = taps.iter().map(|t| t[c]).sum();
                            assert_eq!(sum % 4, 0, "{f:?} size {s} ({x},{y}) channel {c}");
                        }
                    }
                }
                level = sgx_layout::mipgen::downsample(f, &level, s, s).unwrap();
                s /= 2;
                assert_eq!(level.len(), (s * s) as usize * bpe);
            }
        }
    }

    #[test]
    fn patterns_vary_and_keep_padding_ones() {
        for f in FORMATS {
            for p in Pattern::ALL {
                let l = level0(f, p, 32);
                let first = &l[..f.info().bytes_per_el as usize];
                assert!(
                    l.chunks_exact(first.len()).any(|t| t != first),
                    "{f:?} {p:?} is flat"
                );
            }
        }
        let l = level0(Format::B8G8R8X8_UNORM, Pattern::Random, 8);
        assert!(l.chunks_exact(4).all(|t| t[3] == 0xFF));
    }

    #[test]
    fn diff_counts_bytes_and_the_largest_channel_error() {
        let f = Format::B5G6R5_UNORM;
        // Green (bits 5..11) 10 vs 13: one byte pair differs in both bytes? 10<<5 = 0x140,
        // 13<<5 = 0x1A0: low bytes 0x40 vs 0xA0 differ, high bytes equal.
        let a = (10u16 << 5).to_le_bytes();
        let b = (13u16 << 5).to_le_bytes();
        let d = diff(f, &[a, a].concat(), &[a, b].concat());
        assert_eq!(
            d,
            Diff {
                bytes: 1,
                max_channel_err: 3
            }
        );
        assert_eq!(diff(f, &a, &a), Diff::default());
        assert_eq!(diff(f, &a, &[a, a].concat()).bytes, 4);
    }

    #[test]
    fn rgba8_scales_channels_and_the_diff_magnifies() {
        let px = to_rgba8(Format::B5G6R5_UNORM, &0xFFFFu16.to_le_bytes());
        assert_eq!(px, vec![255, 255, 255, 255]);
        let px = to_rgba8(Format::B8G8R8A8_UNORM, &[1, 2, 3, 4]);
        assert_eq!(px, vec![3, 2, 1, 4]);
        let d = diff_rgba8(Format::B8G8R8A8_UNORM, &[1, 2, 3, 4], &[1, 2, 5, 4], 16);
        assert_eq!(d, vec![32, 0, 0, 255]);
    }
}
