//! Blits through the C ABI that st/mesa sends for glCopyPixels, glCopyTexSubImage and
//! glBlitFramebuffer: a copy within one level, a scissored copy, and depth/stencil copies
//! that keep the channels outside the mask. Every pixel is compared, inside and outside.

mod common;

use common::*;
use sgx535::*;

const PIPE_FORMAT_Z24_UNORM_S8_UINT: u32 = 144;
const PIPE_BIND_DEPTH_STENCIL: u32 = 1;
const MASK_RGBA: u32 = 0xF;
const MASK_Z: u32 = 0x10;
const MASK_S: u32 = 0x20;

fn pattern(n: u32, seed: u32) -> Vec<u8> {
    (0..n * n * 4)
        .map(|i| (i.wrapping_mul(29).wrapping_add(seed * 101) % 251) as u8)
        .collect()
}

fn image(
    resource: sgx535_resource,
    format: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
) -> sgx535_blit_image {
    sgx535_blit_image {
        resource,
        level: 0,
        r#box: sgx535_box {
            x,
            y,
            z: 0,
            width: w,
            height: h,
            depth: 1,
        },
        format,
    }
}

fn info(dst: sgx535_blit_image, src: sgx535_blit_image, mask: u32) -> sgx535_blit_info {
    sgx535_blit_info {
        dst,
        src,
        mask,
        filter: 0,
        scissor_enable: 0,
        render_condition_enable: 0,
        pad: [0; 2],
        scissor: sgx535_scissor_state::default(),
    }
}

/// The expected image after copying `w`x`h` from (sx, sy) to (dx, dy) of `before`, clipped
/// to the rectangle `clip` (x0, y0, x1, y1).
#[allow(clippy::too_many_arguments)]
fn copied(
    before: &[u8],
    n: u32,
    (sx, sy): (u32, u32),
    (dx, dy): (u32, u32),
    (w, h): (u32, u32),
    clip: (u32, u32, u32, u32),
) -> Vec<u8> {
    let mut want = before.to_vec();
    for y in dy..dy + h {
        for x in dx..dx + w {
            if x < clip.0 || y < clip.1 || x >= clip.2 || y >= clip.3 {
                continue;
            }
            let d = ((y * n + x) * 4) as usize;
            let s = (((sy + y - dy) * n + sx + x - dx) * 4) as usize;
            want[d..d + 4].copy_from_slice(&before[s..s + 4]);
        }
    }
    want
}

#[test]
fn a_copy_within_one_level_reads_the_source_as_it_was() {
    let (s, c) = model();
    let n = 16u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let t = create(s, &tex2d(PIPE_FORMAT_B8G8R8A8_UNORM, n, n, 0, bind));
    let before = pattern(n, 1);
    upload(c, t, 0, n, n, &before);
    // Overlapping boxes: (2,3) 9x7 onto (5,4).
    let f = PIPE_FORMAT_B8G8R8A8_UNORM;
    let b = info(image(t, f, 5, 4, 9, 7), image(t, f, 2, 3, 9, 7), MASK_RGBA);
    // SAFETY: a valid pointer.
    ok(unsafe { sgx535_blit(c, &b) });
    let want = copied(&before, n, (2, 3), (5, 4), (9, 7), (0, 0, n, n));
    assert_eq!(read_level(c, t, 0, n, n, 4), want);
    ok(sgx535_screen_destroy(s));
}

#[test]
fn a_scissored_blit_writes_only_inside_the_scissor() {
    let (s, c) = model();
    let n = 16u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let f = PIPE_FORMAT_B8G8R8A8_UNORM;
    let src = create(s, &tex2d(f, n, n, 0, bind));
    let dst = create(s, &tex2d(f, n, n, 0, bind));
    let (sp, dp) = (pattern(n, 2), pattern(n, 3));
    upload(c, src, 0, n, n, &sp);
    upload(c, dst, 0, n, n, &dp);
    let mut b = info(
        image(dst, f, 1, 2, 12, 10),
        image(src, f, 3, 1, 12, 10),
        MASK_RGBA,
    );
    b.scissor_enable = 1;
    b.scissor = sgx535_scissor_state {
        minx: 4,
        miny: 5,
        maxx: 9,
        maxy: 15,
    };
    // SAFETY: a valid pointer.
    ok(unsafe { sgx535_blit(c, &b) });
    // The destination as the copy would leave it, then only the scissor's pixels taken.
    let mut merged = dp.clone();
    let full = {
        let mut w = dp.clone();
        for y in 2..12u32 {
            for x in 1..13u32 {
                let d = ((y * n + x) * 4) as usize;
                let s = (((y - 2 + 1) * n + x - 1 + 3) * 4) as usize;
                w[d..d + 4].copy_from_slice(&sp[s..s + 4]);
            }
        }
        w
    };
    for y in 5..15u32 {
        for x in 4..9u32 {
            let d = ((y * n + x) * 4) as usize;
            merged[d..d + 4].copy_from_slice(&full[d..d + 4]);
        }
    }
    assert_eq!(read_level(c, dst, 0, n, n, 4), merged);
    // A scissor that misses the box writes nothing.
    b.scissor = sgx535_scissor_state {
        minx: 14,
        miny: 0,
        maxx: 16,
        maxy: 16,
    };
    ok(unsafe { sgx535_blit(c, &b) });
    assert_eq!(read_level(c, dst, 0, n, n, 4), merged);
    ok(sgx535_screen_destroy(s));
}

#[test]
fn depth_and_stencil_blits_copy_only_the_masked_bits() {
    let (s, c) = model();
    let n = 8u32;
    let f = PIPE_FORMAT_Z24_UNORM_S8_UINT;
    let src = create(s, &tex2d(f, n, n, 0, PIPE_BIND_DEPTH_STENCIL));
    let dst = create(s, &tex2d(f, n, n, 0, PIPE_BIND_DEPTH_STENCIL));
    let (sp, dp) = (pattern(n, 4), pattern(n, 5));
    for (mask, keep) in [
        (MASK_Z, 0xFF00_0000u32),
        (MASK_S, 0x00FF_FFFF),
        (MASK_Z | MASK_S, 0),
    ] {
        upload(c, src, 0, n, n, &sp);
        upload(c, dst, 0, n, n, &dp);
        let b = info(image(dst, f, 2, 1, 4, 5), image(src, f, 0, 3, 4, 5), mask);
        // SAFETY: a valid pointer.
        ok(unsafe { sgx535_blit(c, &b) });
        let got = read_level(c, dst, 0, n, n, 4);
        for y in 0..n {
            for x in 0..n {
                let d = ((y * n + x) * 4) as usize;
                let old = u32::from_le_bytes(dp[d..d + 4].try_into().unwrap());
                let want = if (2..6).contains(&x) && (1..6).contains(&y) {
                    let s = (((y - 1 + 3) * n + x - 2) * 4) as usize;
                    let new = u32::from_le_bytes(sp[s..s + 4].try_into().unwrap());
                    (old & keep) | (new & !keep)
                } else {
                    old
                };
                let g = u32::from_le_bytes(got[d..d + 4].try_into().unwrap());
                assert_eq!(g, want, "mask {mask:#x} ({x},{y})");
            }
        }
    }
    // Scaled depth blits have no path: a clear error, nothing written.
    let b = info(image(dst, f, 0, 0, 8, 8), image(src, f, 0, 0, 4, 4), MASK_Z);
    // SAFETY: a valid pointer.
    assert_ne!(unsafe { sgx535_blit(c, &b) }, sgx535_status::SGX535_OK);
    ok(sgx535_screen_destroy(s));
}

/// glCopyTexImage of a Z24S8 depth buffer into a Z16 texture: depth converts as unorm
/// (rounded to nearest), inside the box only; the pixels outside keep their bytes.
#[test]
fn a_depth_blit_between_formats_rescales_depth() {
    const PIPE_FORMAT_Z16_UNORM: u32 = 140;
    let (s, c) = model();
    let n = 8u32;
    let (zs, z) = (PIPE_FORMAT_Z24_UNORM_S8_UINT, PIPE_FORMAT_Z16_UNORM);
    let src = create(s, &tex2d(zs, n, n, 0, PIPE_BIND_DEPTH_STENCIL));
    let dst = create(s, &tex2d(z, n, n, 0, PIPE_BIND_DEPTH_STENCIL));
    let sp = pattern(n, 6);
    upload(c, src, 0, n, n, &sp);
    let dp: Vec<u8> = pattern(n, 7)[..(n * n * 2) as usize].to_vec();
    // SAFETY: `dp` holds n*n*2 bytes.
    ok(unsafe {
        sgx535_texture_subdata(
            c,
            dst,
            0,
            PIPE_MAP_WRITE,
            &full_box(n, n),
            dp.as_ptr().cast(),
            n * 2,
            0,
        )
    });
    let b = info(
        image(dst, z, 1, 2, 5, 4),
        image(src, zs, 3, 0, 5, 4),
        MASK_Z | MASK_S,
    );
    // SAFETY: a valid pointer.
    ok(unsafe { sgx535_blit(c, &b) });
    let got = read_level(c, dst, 0, n, n, 2);
    for y in 0..n {
        for x in 0..n {
            let d = ((y * n + x) * 2) as usize;
            let want = if (1..6).contains(&x) && (2..6).contains(&y) {
                let s = (((y - 2) * n + x - 1 + 3) * 4) as usize;
                let z24 = u32::from_le_bytes(sp[s..s + 4].try_into().unwrap()) & 0xFF_FFFF;
                let z16 = (u64::from(z24) * 0xFFFF + 0xFF_FFFF / 2) / 0xFF_FFFF;
                z16 as u16
            } else {
                u16::from_le_bytes(dp[d..d + 2].try_into().unwrap())
            };
            let g = u16::from_le_bytes(got[d..d + 2].try_into().unwrap());
            assert_eq!(g, want, "({x},{y})");
        }
    }
    ok(sgx535_screen_destroy(s));
}

const PIPE_FORMAT_R8G8B8A8_UNORM: u32 = 53;
const PIPE_FORMAT_R8G8B8A8_SRGB: u32 = 161;

/// Blits `src` (`sf` view) 6x5 from (1, 2) to (2, 1) of a fresh 8x8 UNORM destination holding
/// `pattern(8, 9)`; returns the destination's bytes and the pattern it started with.
fn blit_through_view(
    s: sgx535_screen,
    c: sgx535_context,
    src: sgx535_resource,
    sf: u32,
) -> (Vec<u8>, Vec<u8>) {
    let n = 8u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let df = PIPE_FORMAT_R8G8B8A8_UNORM;
    let dst = create(s, &tex2d(df, n, n, 0, bind));
    let dp = pattern(n, 9);
    upload(c, dst, 0, n, n, &dp);
    let b = info(
        image(dst, df, 2, 1, 6, 5),
        image(src, sf, 1, 2, 6, 5),
        MASK_RGBA,
    );
    // SAFETY: a valid pointer.
    ok(unsafe { sgx535_blit(c, &b) });
    (read_level(c, dst, 0, n, n, 4), dp)
}

/// glGetTexImage of an sRGB texture (st/mesa: a blit whose source view is the UNORM twin):
/// the bytes arrive undecoded, inside the box only.
#[test]
fn an_srgb_texture_read_through_its_unorm_twin_is_copied_undecoded() {
    let (s, c) = model();
    let n = 8u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let src = create(s, &tex2d(PIPE_FORMAT_R8G8B8A8_SRGB, n, n, 0, bind));
    let sp = pattern(n, 8);
    upload(c, src, 0, n, n, &sp);
    let (got, dp) = blit_through_view(s, c, src, PIPE_FORMAT_R8G8B8A8_UNORM);
    assert_eq!(got, copied_from(&sp, &dp, n));
    ok(sgx535_screen_destroy(s));
}

/// The other direction: a UNORM texture read through its sRGB twin is decoded exactly as an
/// sRGB texture holding the same bytes (and so differs from the raw copy).
#[test]
fn a_unorm_texture_read_through_its_srgb_twin_is_decoded() {
    let (s, c) = model();
    let n = 8u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let sp = pattern(n, 8);
    let unorm = create(s, &tex2d(PIPE_FORMAT_R8G8B8A8_UNORM, n, n, 0, bind));
    let srgb = create(s, &tex2d(PIPE_FORMAT_R8G8B8A8_SRGB, n, n, 0, bind));
    upload(c, unorm, 0, n, n, &sp);
    upload(c, srgb, 0, n, n, &sp);
    let (through_view, dp) = blit_through_view(s, c, unorm, PIPE_FORMAT_R8G8B8A8_SRGB);
    let (decoded, _) = blit_through_view(s, c, srgb, PIPE_FORMAT_R8G8B8A8_SRGB);
    assert_eq!(through_view, decoded);
    assert_ne!(
        through_view,
        copied_from(&sp, &dp, n),
        "the view must decode"
    );
    ok(sgx535_screen_destroy(s));
}

/// `blit_through_view`'s expected result for an undecoded copy.
fn copied_from(sp: &[u8], dp: &[u8], n: u32) -> Vec<u8> {
    let mut want = dp.to_vec();
    for y in 1..6u32 {
        for x in 2..8u32 {
            let d = ((y * n + x) * 4) as usize;
            let s = (((y - 1 + 2) * n + x - 2 + 1) * 4) as usize;
            want[d..d + 4].copy_from_slice(&sp[s..s + 4]);
        }
    }
    want
}

/// Views that do not read the resource's bytes as they are, or that would ask for sRGB
/// encoding on write, are refused before anything is drawn.
#[test]
fn blits_through_unrelated_views_are_unsupported_and_write_nothing() {
    let (s, c) = model();
    let n = 8u32;
    let bind = PIPE_BIND_SAMPLER_VIEW | PIPE_BIND_RENDER_TARGET;
    let (u, srgb) = (PIPE_FORMAT_R8G8B8A8_UNORM, PIPE_FORMAT_R8G8B8A8_SRGB);
    let src = create(s, &tex2d(srgb, n, n, 0, bind));
    let dst = create(s, &tex2d(u, n, n, 0, bind));
    upload(c, src, 0, n, n, &pattern(n, 10));
    let dp = pattern(n, 11);
    upload(c, dst, 0, n, n, &dp);
    let cases = [
        // A source view in a format of other bytes (BGRA is not RGBA's twin).
        (u, PIPE_FORMAT_B8G8R8A8_UNORM),
        // An sRGB view of a UNORM destination would need encoding on write.
        (srgb, u),
    ];
    for (df, sf) in cases {
        let b = info(
            image(dst, df, 0, 0, 4, 4),
            image(src, sf, 0, 0, 4, 4),
            MASK_RGBA,
        );
        // SAFETY: a valid pointer.
        let st = unsafe { sgx535_blit(c, &b) };
        assert_eq!(
            st,
            SGX535_ERROR_UNSUPPORTED,
            "dst {df} src {sf}: {}",
            last_error()
        );
        assert!(
            last_error().contains("views in another format"),
            "{}",
            last_error()
        );
    }
    assert_eq!(read_level(c, dst, 0, n, n, 4), dp);
    ok(sgx535_screen_destroy(s));
}
