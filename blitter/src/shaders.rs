//! The blitter's internal shaders, as TGSI text like Mesa's state tracker hands a driver.

/// Passes a position and a texture coordinate through.
pub const VS_PASSTHROUGH: &str = "VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], GENERIC[0]
  0: MOV OUT[0], IN[0]
  1: MOV OUT[1], IN[1]
  2: END
";

/// Passes a position through (the texture coordinate of the quad is ignored).
pub const VS_POSITION: &str = "VERT
DCL IN[0]
DCL OUT[0], POSITION
  0: MOV OUT[0], IN[0]
  1: END
";

/// Writes constant 0 as the colour.
pub const FS_CONSTANT: &str = "FRAG
DCL OUT[0], COLOR
DCL CONST[0]
  0: MOV OUT[0], CONST[0]
  1: END
";

/// Samples texture unit 0 at the coordinate.
pub const FS_TEXTURE: &str = "FRAG
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, FLOAT
  0: TEX OUT[0], IN[0], SAMP[0], 2D
  1: END
";

/// Bytes between vertices of the blitter's quads: x y z w s t.
pub const QUAD_STRIDE_B: u32 = 24;

/// A triangle strip covering NDC [-1, 1]^2, texture coordinates from (s0, t0) to (s1, t1).
/// With the viewport mapping NDC y = -1 to the top row, t0 is the top edge.
pub fn quad(s0: f32, t0: f32, s1: f32, t1: f32) -> Vec<u8> {
    let v: [[f32; 6]; 4] = [
        [-1.0, -1.0, 0.0, 1.0, s0, t0],
        [1.0, -1.0, 0.0, 1.0, s1, t0],
        [-1.0, 1.0, 0.0, 1.0, s0, t1],
        [1.0, 1.0, 0.0, 1.0, s1, t1],
    ];
    v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}
