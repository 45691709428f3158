//! The CPU references of `sgx535 bench sim`: the simplest straight loops that write the same
//! pixels as the model's benchmark jobs (bilinear taps in f32, round to bytes), with no
//! tiling, no shader and no state decoding. They are what the model's work costs at C speed,
//! so model / reference is the model's overhead as a ratio. Four bytes per texel, each byte a
//! channel: the B8G8R8A8 order needs no swizzle.

/// The element index of (x, y) in a square twiddled level (Y in bit 0).
#[inline(always)]
fn twiddle(x: u32, y: u32) -> usize {
    use crate::tsp::spread_even as spread;
    (spread(y) | (spread(x) << 1)) as usize
}

/// Bilinear sample (clamp to edge) of a square twiddled `side`-texel level at (s, t).
#[inline(always)]
fn bilinear(tex: &[u8], side: u32, s: f32, t: f32) -> [f32; 4] {
    let (fx, fy) = (s * side as f32 - 0.5, t * side as f32 - 0.5);
    // floor() is a libm call on baseline x86_64; truncation and a fix-up is not.
    let floor = |v: f32| {
        let i = v as i32;
        i - i32::from((i as f32) > v)
    };
    let (x0, y0) = (floor(fx), floor(fy));
    let (ax, ay) = (fx - x0 as f32, fy - y0 as f32);
    let clamp = |v: i32| v.clamp(0, side as i32 - 1) as u32;
    let (xa, xb, ya, yb) = (clamp(x0), clamp(x0 + 1), clamp(y0), clamp(y0 + 1));
    let texel = |x, y| {
        let i = 4 * twiddle(x, y);
        [0, 1, 2, 3].map(|c| f32::from(tex[i + c]) * (1.0 / 255.0))
    };
    let (t00, t10, t01, t11) = (texel(xa, ya), texel(xb, ya), texel(xa, yb), texel(xb, yb));
    let mut o = [0.0; 4];
    for i in 0..4 {
        let top = t00[i] + (t10[i] - t00[i]) * ax;
        let bot = t01[i] + (t11[i] - t01[i]) * ax;
        o[i] = top + (bot - top) * ay;
    }
    o
}

#[inline(always)]
fn to_bytes(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8)
}

/// A `size x size` linear target (rows `size * 4` bytes) covered by the texture `tex`
/// (`side` texels square, twiddled), magnified bilinearly.
pub fn textured_quad(fb: &mut [u8], size: u32, tex: &[u8], side: u32) {
    let inv = 1.0 / size as f32;
    for y in 0..size {
        let row = &mut fb[(y * size * 4) as usize..][..(size * 4) as usize];
        let t = (y as f32 + 0.5) * inv;
        for (x, px) in row.chunks_exact_mut(4).enumerate() {
            let s = (x as f32 + 0.5) * inv;
            px.copy_from_slice(&to_bytes(bilinear(tex, side, s, t)));
        }
    }
}

/// A twiddled mip chain of a square `base`-texel level at `chain[0..]`, levels packed largest
/// first: each level from the one before by a bilinear tap at each texel's centre.
pub fn mip_chain(chain: &mut [u8], base: u32) {
    let (mut off, mut side) = (0usize, base);
    while side > 1 {
        let (src, dst) = chain[off..].split_at_mut((side * side * 4) as usize);
        let half = side / 2;
        let inv = 1.0 / half as f32;
        for y in 0..half {
            for x in 0..half {
                let c = bilinear(src, side, (x as f32 + 0.5) * inv, (y as f32 + 0.5) * inv);
                let i = 4 * twiddle(x, y);
                dst[i..i + 4].copy_from_slice(&to_bytes(c));
            }
        }
        off += (side * side * 4) as usize;
        side = half;
    }
}
