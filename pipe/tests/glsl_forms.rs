//! Draws with the TGSI forms st/mesa sends for GLSL 1.20 programs that the compiler lowers
//! rather than maps one to one: indexed temporaries (local arrays) and clip distances
//! (user clip planes, `gl_ClipVertex`). Every pixel of the target is compared.

mod common;

use common::*;
use sgx_pipe::state::*;
use sgx_pipe::*;

const W: u32 = 32;
const H: u32 = 32;
const BLACK: [u8; 4] = [0, 0, 0, 255];

fn unorm8(f: f32) -> u8 {
    (f.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// B G R A bytes of an RGBA colour.
fn bgra(c: [f32; 4]) -> [u8; 4] {
    [unorm8(c[2]), unorm8(c[1]), unorm8(c[0]), unorm8(c[3])]
}

fn vs_consts(r: &mut Rig, words: &[u32]) {
    r.ctx
        .set_constant_buffer(
            ShaderStage::Vertex,
            0,
            Some(ConstantBuffer {
                data: words.to_vec().into(),
            }),
        )
        .unwrap();
}

/// A target cleared to black with `vs` and `fs` bound; draws the whole target and reads it.
fn draw_full(r: &mut Rig, vs: &str, fs: &str) -> Vec<u8> {
    let t = target(r, Format::B8G8R8A8_UNORM, W, H);
    bind_const(r, &fb(&t, None));
    let v = r.ctx.create_vs_state(vs).unwrap();
    let f = r.ctx.create_fs_state(fs).unwrap();
    r.ctx.bind_vs_state(Some(&v)).unwrap();
    r.ctx.bind_fs_state(Some(&f)).unwrap();
    r.ctx
        .clear(clear_flags::COLOR0, [0.0, 0.0, 0.0, 1.0], 1.0, 0)
        .unwrap();
    rect(r, 0, 0, W, H, 0.0);
    r.ctx.read_level(&t, 0, 0).unwrap()
}

const FS_VARYING: &str =
    "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n";

/// A local array of four colours, one element overwritten through ADDR[0], then the colour
/// read at CONST[0].y; CONST[0].x picks the element written. Indices are integers.
const VS_ARRAY: &str = "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL CONST[0][0]
DCL TEMP[0..3], ARRAY(1), LOCAL
DCL ADDR[0]
IMM[0] FLT32 {1.0, 0.0, 0.0, 1.0}
IMM[1] FLT32 {0.0, 1.0, 0.0, 1.0}
IMM[2] FLT32 {0.0, 0.0, 1.0, 1.0}
IMM[3] FLT32 {1.0, 1.0, 0.0, 1.0}
IMM[4] FLT32 {0.0, 1.0, 1.0, 1.0}
  0: MOV TEMP[0], IMM[0]
  1: MOV TEMP[1], IMM[1]
  2: MOV TEMP[2], IMM[2]
  3: MOV TEMP[3], IMM[3]
  4: UARL ADDR[0].x, CONST[0][0].xxxx
  5: MOV TEMP[ADDR[0].x](1), IMM[4]
  6: UARL ADDR[0].x, CONST[0][0].yyyy
  7: MOV OUT[1], TEMP[ADDR[0].x](1)
  8: MOV OUT[0], IN[0]
  9: END
";

#[test]
fn a_local_array_indexed_in_and_out_of_range_draws_the_clamped_element() {
    let colours = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    let written = [0.0, 1.0, 1.0, 1.0];
    let mut r = rig();
    for (w, rd) in [
        (1i32, 1i32),
        (1, 2),
        (-4, 0),
        (9, 3),
        (2, 7),
        (0, -1),
        (3, 3),
    ] {
        vs_consts(&mut r, &[w as u32, rd as u32, 0, 0]);
        let px = draw_full(&mut r, VS_ARRAY, FS_VARYING);
        // Out-of-range indices clamp to the first or last element, for writes and reads.
        let (w, rd) = (w.clamp(0, 3), rd.clamp(0, 3));
        let want = bgra(if w == rd {
            written
        } else {
            colours[rd as usize]
        });
        assert_pixels(&px, W, H, &format!("write {w} read {rd}"), |_, _| want);
    }
}

/// Two clip distances from two planes in CONST[0] and CONST[1], as st/mesa writes them when
/// it lowers `glClipPlane` (the driver does not claim PIPE_CAP_CLIP_PLANES); the clip vertex
/// is written too and has no effect of its own.
const VS_CLIP: &str = "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL OUT[2], CLIPVERTEX
DCL OUT[3].xy, CLIPDIST[0]
DCL CONST[0][0..2]
  0: MOV OUT[0], IN[0]
  1: MOV OUT[2], IN[0]
  2: DP4 OUT[3].x, IN[0], CONST[0][0]
  3: DP4 OUT[3].y, IN[0], CONST[0][1]
  4: MOV OUT[1], CONST[0][2]
  5: END
";

/// A clip plane (a, b, c, d) in clip space.
type Plane = [f32; 4];
/// Whether pixel (x, y) is inside every plane of a case.
type Inside = fn(u32, u32) -> bool;

#[test]
fn clip_distances_clip_the_pixels_behind_each_plane() {
    let mut r = rig();
    let green = [0.0f32, 1.0, 0.0, 1.0];
    let bits = |v: [f32; 4]| v.map(f32::to_bits);
    // Planes through pixel edges, so no pixel centre lies on one: x_ndc >= 0 keeps x >= 16,
    // y_ndc >= -0.5 keeps y >= 8. A zero plane keeps everything (a disabled plane).
    let cases: [(Plane, Plane, Inside); 3] = [
        ([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.5], |x, y| {
            x >= 16 && y >= 8
        }),
        ([-1.0, 0.0, 0.0, 0.0], [0.0; 4], |x, _| x < 16),
        ([0.0; 4], [0.0; 4], |_, _| true),
    ];
    for (p0, p1, inside) in cases {
        let mut c = Vec::new();
        for v in [p0, p1, green] {
            c.extend_from_slice(&bits(v));
        }
        vs_consts(&mut r, &c);
        let px = draw_full(&mut r, VS_CLIP, FS_VARYING);
        assert_pixels(&px, W, H, &format!("planes {p0:?} {p1:?}"), |x, y| {
            if inside(x, y) {
                bgra(green)
            } else {
                BLACK
            }
        });
    }
}

/// Fourteen varyings (two flat), eight of two lanes and six of one: 22 floats, more
/// varyings than the ten slots, so the compiler packs them. Each carries CONST[k] to the
/// fragment shader, which sums their lanes into red and green.
fn packed_pair() -> (String, String) {
    let widths = [2, 1, 2, 1, 2, 1, 2, 2, 1, 2, 1, 2, 1, 2];
    let mut vs = String::from("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\nDCL CONST[0][0..13]\n");
    let mut fs = String::from("FRAG\n");
    for (k, w) in widths.iter().enumerate() {
        let m = if *w == 2 { "xy" } else { "x" };
        let interp = if k == 3 || k == 8 {
            "CONSTANT"
        } else {
            "PERSPECTIVE"
        };
        vs += &format!("DCL OUT[{}].{m}, GENERIC[{k}]\n", k + 1);
        fs += &format!("DCL IN[{k}].{m}, GENERIC[{k}], {interp}\n");
    }
    fs += "DCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 {0.0, 0.0, 0.0, 1.0}\n  0: MOV TEMP[0], IMM[0]\n";
    let mut n = 1;
    for (k, w) in widths.iter().enumerate() {
        let m = if *w == 2 { "xy" } else { "x" };
        vs += &format!("{:3}: MOV OUT[{}].{m}, CONST[0][{k}]\n", k, k + 1);
        fs += &format!("{n:3}: ADD TEMP[0].{m}, TEMP[0], IN[{k}]\n");
        n += 1;
    }
    vs += &format!(
        "{:3}: MOV OUT[0], IN[0]\n{:3}: END\n",
        widths.len(),
        widths.len() + 1
    );
    fs += &format!("{n:3}: MOV OUT[0], TEMP[0]\n{:3}: END\n", n + 1);
    (vs, fs)
}

#[test]
fn fourteen_varyings_pack_and_each_arrives() {
    let (vs, fs) = packed_pair();
    let mut r = rig();
    // Each varying k carries (k+1)/256 in x and (14-k)/512 in y; then one at a time is
    // zeroed, so a varying that arrived in the wrong lane or slot changes the sum.
    let base: Vec<[f32; 2]> = (0..14)
        .map(|k| [(k + 1) as f32 / 256.0, (14 - k) as f32 / 512.0])
        .collect();
    for drop in [None, Some(0usize), Some(3), Some(6), Some(13)] {
        let mut c = Vec::new();
        let (mut red, mut green) = (0f32, 0f32);
        for (k, v) in base.iter().enumerate() {
            let v = if Some(k) == drop { [0.0; 2] } else { *v };
            c.extend_from_slice(&[v[0].to_bits(), v[1].to_bits(), 0, 0]);
            red += v[0];
            // Scalar varyings (odd widths list entries) carry no y.
            if [0, 2, 4, 6, 7, 9, 11, 13].contains(&k) {
                green += v[1];
            }
        }
        vs_consts(&mut r, &c);
        let px = draw_full(&mut r, &vs, &fs);
        let want = bgra([red, green, 0.0, 1.0]);
        // The sums sit well inside a unorm8 step, so interpolation's last-bit rounding
        // cannot move a byte.
        for s in [red, green] {
            let f = (s * 255.0).fract();
            assert!((f - 0.5).abs() > 0.02, "{s}");
        }
        assert_pixels(&px, W, H, &format!("drop {drop:?}"), |_, _| want);
    }
}

/// A 300-vec4 uniform array (a skinning palette's size): the colour is the element
/// CONST[0][299].x selects, plus a direct read past the secondary bank (CONST[0][200]).
const VS_PALETTE: &str = "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
DCL CONST[0][0..299]
DCL TEMP[0]
DCL ADDR[0]
  0: UARL ADDR[0].x, CONST[0][299].xxxx
  1: MOV TEMP[0], CONST[0][ADDR[0].x+3]
  2: ADD OUT[1], TEMP[0], CONST[0][200]
  3: MOV OUT[0], IN[0]
  4: END
";

#[test]
fn a_uniform_array_past_the_constant_bank_draws_the_indexed_element() {
    let mut r = rig();
    // Element i: red (i % 16) / 16, green (i / 16) / 32; element 200 adds blue only.
    let element = |i: u32| -> [f32; 4] {
        if i == 200 {
            return [0.0, 0.0, 0.5, 0.0];
        }
        [(i % 16) as f32 / 16.0, (i / 16) as f32 / 32.0, 0.0, 1.0]
    };
    let c: Vec<u32> = (0..300)
        .flat_map(|i| element(i).map(f32::to_bits))
        .collect();
    for index in [0i32, 100, 196, 252, 296, 500, -7, i32::MIN] {
        let mut c = c.clone();
        c[299 * 4] = index as u32;
        vs_consts(&mut r, &c);
        let px = draw_full(&mut r, VS_PALETTE, FS_VARYING);
        // Out of range clamps into the declared array: 3 + index within 0..=299.
        let k = (3 + i64::from(index)).clamp(0, 299) as u32;
        let mut e = element(k);
        if k == 299 {
            // The last element's x holds the index itself (integer bits: a denormal, red 0).
            e[0] = f32::from_bits(index as u32);
        }
        let extra = element(200);
        let want = bgra([
            e[0] + extra[0],
            e[1] + extra[1],
            e[2] + extra[2],
            e[3] + extra[3],
        ]);
        assert_pixels(&px, W, H, &format!("index {index}"), |_, _| want);
    }
}
