//! The demos' shaders, as TGSI text like Mesa 22.3's state tracker hands a driver for
//! fixed-function lighting: the MVP transform as DP4s against constant rows, the normal through
//! the modelview's 3x3 rows, one directional light (DP3, MAX, MAD), and TEX in the fragment
//! shader. Constant layout (vec4 registers), shared by both vertex shaders:
//! 0..=3 MVP rows, 4..=6 normal matrix rows, 7 light direction (eye space, unit),
//! 8 diffuse colour (material times light), 9 ambient colour.

/// Instructions 0..=3 of every demo vertex shader: the clip position as DP4s of IN[0] against
/// the MVP rows in constants 0..=3.
macro_rules! mvp_rows {
    () => {
        "  0: DP4 OUT[0].x, IN[0], CONST[0][0]
  1: DP4 OUT[0].y, IN[0], CONST[0][1]
  2: DP4 OUT[0].z, IN[0], CONST[0][2]
  3: DP4 OUT[0].w, IN[0], CONST[0][3]
"
    };
}

/// The lit vertex shaders' temporaries and their zero immediate.
macro_rules! lit_decls {
    () => {
        "DCL TEMP[0..2], LOCAL
IMM[0] FLT32 { 0x00000000, 0x3f800000, 0x00000000, 0x00000000}
"
    };
}
/// Instructions 4..=8 of the lit vertex shaders: the normal (IN[1]) through the normal matrix
/// rows 4..=6, then `max(dot(n, light direction 7), 0)` in TEMP[1].x.
macro_rules! diffuse_term {
    () => {
        "  4: DP3 TEMP[0].x, IN[1].xyzz, CONST[0][4].xyzz
  5: DP3 TEMP[0].y, IN[1].xyzz, CONST[0][5].xyzz
  6: DP3 TEMP[0].z, IN[1].xyzz, CONST[0][6].xyzz
  7: DP3 TEMP[1].x, TEMP[0].xyzz, CONST[0][7].xyzz
  8: MAX TEMP[1].x, TEMP[1].xxxx, IMM[0].xxxx
"
    };
}

/// Registers in the vertex constant buffer.
pub const VS_CONST_REGS: usize = 10;

/// Lit, textured: position, normal and texture coordinate in; clip position, lit colour and
/// texture coordinate out.
pub const VS_LIT_TEXTURED: &str = concat!(
    "VERT
DCL IN[0]
DCL IN[1]
DCL IN[2]
DCL OUT[0], POSITION
DCL OUT[1], COLOR
DCL OUT[2], GENERIC[0]
DCL CONST[0][0..9]
",
    lit_decls!(),
    mvp_rows!(),
    diffuse_term!(),
    "  9: MAD TEMP[2], CONST[0][8], TEMP[1].xxxx, CONST[0][9]
 10: MOV_SAT OUT[1], TEMP[2]
 11: MOV OUT[2], IN[2]
 12: END
"
);

/// The texture modulated by the lit colour.
pub const FS_TEXTURED: &str = "FRAG
DCL IN[0], COLOR, COLOR
DCL IN[1], GENERIC[0], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, FLOAT
DCL TEMP[0], LOCAL
  0: TEX TEMP[0], IN[1].xyyy, SAMP[0], 2D
  1: MUL OUT[0], TEMP[0], IN[0]
  2: END
";

/// Lit, untextured (glxgears): position and normal in; clip position and lit colour out.
pub const VS_LIT: &str = concat!(
    "VERT
DCL IN[0]
DCL IN[1]
DCL OUT[0], POSITION
DCL OUT[1], COLOR
DCL CONST[0][0..9]
",
    lit_decls!(),
    mvp_rows!(),
    diffuse_term!(),
    "  9: MUL TEMP[2], CONST[0][8], TEMP[1].xxxx
 10: ADD TEMP[2], TEMP[2], CONST[0][9]
 11: MOV_SAT OUT[1], TEMP[2]
 12: END
"
);

/// The fragment shader Mesa 22.3 hands a driver for glxgears.
pub const FS_COLOR: &str = "FRAG
PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1
DCL IN[0], COLOR, COLOR
DCL OUT[0], COLOR
  0: MOV OUT[0], IN[0]
  1: END
";

/// Registers in the shadow demo's main-pass vertex constant buffer: 0..=3 MVP rows,
/// 4..=6 normal matrix rows (world space), 7 direction towards the light (world, unit),
/// 8..=11 shadow matrix rows (object to shadow-map s, t, reference depth, q), 12 light
/// diffuse colour, 13 ambient colour.
pub const VS_SHADOW_CONST_REGS: usize = 14;

/// The shadow demo's depth pass from the light: position only, MVP rows in 0..=3.
pub const VS_DEPTH: &str = concat!(
    "VERT
DCL IN[0]
DCL OUT[0], POSITION
DCL CONST[0][0..3]
",
    mvp_rows!(),
    "  4: END
"
);

/// What Mesa hands a driver for a depth-only pass: a fragment shader writing a constant
/// colour nobody stores.
pub const FS_DEPTH: &str = "FRAG
DCL OUT[0], COLOR
IMM[0] FLT32 { 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000}
  0: MOV OUT[0], IMM[0]
  1: END
";

/// The shadow demo's main pass: position, normal and material colour in; clip position, the
/// diffuse term (COLOR), the shadow-map coordinate (GENERIC[0]) and the ambient term
/// (GENERIC[1]) out. The diffuse term is kept apart so the shadow can scale it alone.
pub const VS_SHADOW: &str = concat!(
    "VERT
DCL IN[0]
DCL IN[1]
DCL IN[2]
DCL OUT[0], POSITION
DCL OUT[1], COLOR
DCL OUT[2], GENERIC[0]
DCL OUT[3], GENERIC[1]
DCL CONST[0][0..13]
",
    lit_decls!(),
    mvp_rows!(),
    diffuse_term!(),
    "  9: MUL TEMP[2], IN[2], CONST[0][12]
 10: MUL_SAT OUT[1], TEMP[2], TEMP[1].xxxx
 11: DP4 OUT[2].x, IN[0], CONST[0][8]
 12: DP4 OUT[2].y, IN[0], CONST[0][9]
 13: DP4 OUT[2].z, IN[0], CONST[0][10]
 14: DP4 OUT[2].w, IN[0], CONST[0][11]
 15: MUL_SAT OUT[3], IN[2], CONST[0][13]
 16: END
"
);

/// shadow2DProj as Mesa 22.3 translates it: TXP with a SHADOW2D target reads the PCF-filtered
/// compare result, which scales the diffuse term; the ambient term is added unshadowed.
pub const FS_SHADOW: &str = "FRAG
DCL IN[0], COLOR, COLOR
DCL IN[1], GENERIC[0], PERSPECTIVE
DCL IN[2], GENERIC[1], PERSPECTIVE
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], SHADOW2D, FLOAT
DCL TEMP[0], LOCAL
  0: TXP TEMP[0], IN[1], SAMP[0], SHADOW2D
  1: MAD_SAT OUT[0], IN[0], TEMP[0].xxxx, IN[2]
  2: END
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_shaders_compile_and_link() {
        sgx_compiler::link(VS_LIT_TEXTURED, FS_TEXTURED).expect("cube program");
        sgx_compiler::link(VS_LIT, FS_COLOR).expect("gears program");
        sgx_compiler::link(VS_DEPTH, FS_DEPTH).expect("shadow depth pass");
        sgx_compiler::link(VS_SHADOW, FS_SHADOW).expect("shadow main pass");
    }
}
