//! The OpenGL, GLSL and OpenGL ES versions Mesa's state tracker would expose on a screen.
//!
//! Mesa decides the GL version from extensions, and the extensions from a driver's caps and
//! format support (st_extensions.c, version.c). This module follows those rules up to GL 2.1 /
//! GLES 2.0 — the SGX535's class — so that a caps change that would cost Mesa a GL version
//! fails a test here, not on a user's laptop. Where Mesa releases differ (older ones also
//! gated GL 1.4 on ARB_depth_texture, 1.5 on ARB_occlusion_query and 2.0 on ARB_point_sprite;
//! later ones assume those of every Gallium driver), the stricter rule is kept.
//!
//! Mesa advertises some core features without checking them: 3D textures (GL 1.2), cube maps
//! (GL 1.3), and GL 2.1's minimum limits. A driver lacking them still gets the version but
//! breaks applications, so they are reported apart, as `unchecked`.

use sgx_hwdocs::Format;

use crate::caps::{Cap, ShaderCap, ShaderStage};
use crate::resource::{bind, ResourceTarget};
use crate::screen::Screen;

/// What the version rules ask of a screen.
pub trait CapsSource {
    /// `get_param`.
    fn param(&self, cap: Cap) -> i64;
    /// `get_shader_param`.
    fn shader_param(&self, stage: ShaderStage, cap: ShaderCap) -> i64;
    /// `is_format_supported` for one sample.
    fn format(&self, format: Format, target: ResourceTarget, bind: u32) -> bool;
}

/// The versions, and why the next one up is out of reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MesaVersions {
    /// Desktop GL, major * 10 + minor (compatibility profile).
    pub gl: u32,
    /// GLSL, e.g. 120.
    pub glsl: u32,
    /// OpenGL ES, major * 10 + minor; 0 when not even ES 2.0.
    pub gles: u32,
    /// Each unmet requirement Mesa checks for the GL versions up to 2.1, as "GL x.y: what".
    pub missing: Vec<String>,
    /// Core features and GL 2.1 minimum limits Mesa assumes without checking, that this
    /// screen lacks.
    pub unchecked: Vec<String>,
}

struct Ext {
    npot: bool,
    occlusion_query: bool,
    point_sprite: bool,
    blend_equation_separate: bool,
    stencil_two_side: bool,
    depth_texture: bool,
    shadow: bool,
    texture_3d: bool,
    cube_map: bool,
    srgb: bool,
    shaders: bool,
}

fn sampled_2d(c: &dyn CapsSource, f: Format) -> bool {
    c.format(f, ResourceTarget::Texture2D, bind::SAMPLER_VIEW)
}

fn extensions(c: &dyn CapsSource) -> Ext {
    let glsl = c.param(Cap::GlslFeatureLevelCompatibility);
    let fs_ir_tgsi = c.shader_param(ShaderStage::Fragment, ShaderCap::SupportedIrs) & 1 == 1;
    let vs_ir_tgsi = c.shader_param(ShaderStage::Vertex, ShaderCap::SupportedIrs) & 1 == 1;
    let depth_formats = [Format::Z16_UNORM, Format::Z24_UNORM_S8_UINT];
    Ext {
        npot: c.param(Cap::NpotTextures) != 0,
        occlusion_query: c.param(Cap::OcclusionQuery) != 0,
        point_sprite: c.param(Cap::PointSprite) != 0,
        blend_equation_separate: c.param(Cap::BlendEquationSeparate) != 0,
        stencil_two_side: c.param(Cap::TwoSidedStencil) != 0,
        // ARB_depth_texture, ARB_shadow and ARB_fragment_program_shadow follow
        // PIPE_CAP_TEXTURE_SHADOW_MAP; a depth format must also be sampleable.
        depth_texture: c.param(Cap::TextureShadowMap) != 0
            && depth_formats.iter().any(|&f| sampled_2d(c, f)),
        shadow: c.param(Cap::TextureShadowMap) != 0,
        texture_3d: c.param(Cap::MaxTexture3dLevels) > 0,
        cube_map: c.param(Cap::MaxTextureCubeLevels) > 0,
        // EXT_texture_sRGB: at least one 8-bit sRGB RGBA format sampleable.
        srgb: sampled_2d(c, Format::B8G8R8A8_SRGB),
        shaders: glsl >= 110 && fs_ir_tgsi && vs_ir_tgsi,
    }
}

/// Each GL 2.1 minimum limit the screen falls short of.
fn limit_shortfalls(c: &dyn CapsSource) -> Vec<String> {
    let levels_for = |px: i64| i64::from(u64::BITS - (px as u64).leading_zeros());
    let fs = |cap| c.shader_param(ShaderStage::Fragment, cap);
    let vs = |cap| c.shader_param(ShaderStage::Vertex, cap);
    // GL 2.1's minimum values (its specification's table 6.36 ff.), not the hardware's.
    let checks: [(&str, i64, i64); 8] = [
        ("MAX_TEXTURE_SIZE", c.param(Cap::MaxTexture2dSize), 64),
        (
            "MAX_3D_TEXTURE_SIZE (levels)",
            c.param(Cap::MaxTexture3dLevels),
            levels_for(16),
        ),
        (
            "MAX_CUBE_MAP_TEXTURE_SIZE (levels)",
            c.param(Cap::MaxTextureCubeLevels),
            levels_for(16),
        ),
        ("MAX_TEXTURE_IMAGE_UNITS", fs(ShaderCap::MaxSamplerViews), 2),
        ("MAX_VERTEX_ATTRIBS", vs(ShaderCap::MaxInputs), 16),
        // Varyings in vec4s: 32 floats.
        ("MAX_VARYING_FLOATS / 4", fs(ShaderCap::MaxInputs), 8),
        (
            "MAX_VERTEX_UNIFORM_COMPONENTS (bytes / 4)",
            vs(ShaderCap::MaxConstBufferSize) / 4,
            512,
        ),
        (
            "MAX_FRAGMENT_UNIFORM_COMPONENTS (bytes / 4)",
            fs(ShaderCap::MaxConstBufferSize) / 4,
            64,
        ),
    ];
    checks
        .iter()
        .filter(|(_, have, need)| have < need)
        .map(|(what, have, need)| format!("GL 2.1 limit: {what} is {have}, needs {need}"))
        .collect()
}

/// The versions Mesa would expose on `c`.
pub fn mesa_versions(c: &dyn CapsSource) -> MesaVersions {
    let e = extensions(c);
    let mut missing = Vec::new();
    let mut need = |ver: &str, ok: bool, what: &str| {
        if !ok {
            missing.push(format!("GL {ver}: {what}"));
        }
        ok
    };
    // Evaluate every requirement (no short-circuit) so `missing` lists them all. GL 1.3 is
    // Mesa's floor.
    let v14 = [
        need(
            "1.4",
            e.depth_texture,
            "ARB_depth_texture (a sampleable depth format)",
        ),
        need("1.4", e.shadow, "ARB_shadow (PIPE_CAP_TEXTURE_SHADOW_MAP)"),
    ]
    .iter()
    .all(|&b| b);
    let v15 = need("1.5", e.occlusion_query, "ARB_occlusion_query") && v14;
    let v20 = [
        need("2.0", e.shaders, "GLSL vertex and fragment shaders"),
        need("2.0", e.npot, "ARB_texture_non_power_of_two"),
        need("2.0", e.point_sprite, "ARB_point_sprite"),
        need(
            "2.0",
            e.blend_equation_separate,
            "EXT_blend_equation_separate",
        ),
        need("2.0", e.stencil_two_side, "EXT_stencil_two_side"),
    ]
    .iter()
    .all(|&b| b)
        && v15;
    let v21 = need("2.1", e.srgb, "EXT_texture_sRGB (a sampleable sRGB format)") && v20;
    let gl = match () {
        _ if v21 => 21,
        _ if v20 => 20,
        _ if v15 => 15,
        _ if v14 => 14,
        _ => 13,
    };
    let mut unchecked = Vec::new();
    if !e.texture_3d {
        unchecked.push("GL 1.2: 3D textures (PIPE_CAP_MAX_TEXTURE_3D_LEVELS)".to_string());
    }
    if !e.cube_map {
        unchecked.push("GL 1.3: cube maps (PIPE_CAP_MAX_TEXTURE_CUBE_LEVELS)".to_string());
    }
    unchecked.extend(limit_shortfalls(c));
    // Mesa caps the GLSL version by the GL version in a compatibility context.
    let glsl_for_gl = match gl {
        21 => 120,
        20 => 110,
        _ => 0,
    };
    let glsl = (c.param(Cap::GlslFeatureLevelCompatibility) as u32).min(glsl_for_gl);
    let es2 = e.shaders && e.npot && e.blend_equation_separate;
    MesaVersions {
        gl,
        glsl,
        gles: if es2 { 20 } else { 0 },
        missing,
        unchecked,
    }
}

impl CapsSource for Screen {
    fn param(&self, cap: Cap) -> i64 {
        self.get_param(cap)
    }
    fn shader_param(&self, stage: ShaderStage, cap: ShaderCap) -> i64 {
        self.get_shader_param(stage, cap)
    }
    fn format(&self, format: Format, target: ResourceTarget, bind: u32) -> bool {
        self.is_format_supported(format, target, bind, 1)
    }
}

impl Screen {
    /// The OpenGL, GLSL and GLES versions Mesa would expose on this screen.
    pub fn mesa_versions(&self) -> MesaVersions {
        mesa_versions(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The real caps with some overridden, and formats that can be switched off.
    struct Fake {
        caps: HashMap<Cap, i64>,
        no_formats: Vec<Format>,
    }

    impl Fake {
        fn real() -> Fake {
            Fake {
                caps: HashMap::new(),
                no_formats: Vec::new(),
            }
        }
        fn cap(mut self, cap: Cap, v: i64) -> Fake {
            self.caps.insert(cap, v);
            self
        }
        fn without(mut self, f: Format) -> Fake {
            self.no_formats.push(f);
            self
        }
    }

    impl CapsSource for Fake {
        fn param(&self, cap: Cap) -> i64 {
            self.caps
                .get(&cap)
                .copied()
                .unwrap_or_else(|| crate::caps::get_param(cap))
        }
        fn shader_param(&self, stage: ShaderStage, cap: ShaderCap) -> i64 {
            crate::caps::get_shader_param(stage, cap)
        }
        fn format(&self, format: Format, target: ResourceTarget, bind: u32) -> bool {
            !self.no_formats.contains(&format)
                && crate::screen::format_supported(format, target, bind, 1)
        }
    }

    #[test]
    fn the_screen_gets_gl_2_1_glsl_1_20_and_gles_2_0() {
        let v = mesa_versions(&Fake::real());
        assert_eq!(v.missing, Vec::<String>::new());
        assert_eq!(v.unchecked, Vec::<String>::new());
        assert_eq!((v.gl, v.glsl, v.gles), (21, 120, 20));
    }

    #[test]
    fn each_missing_feature_costs_the_version_mesa_would_lose() {
        let case = |f: Fake| mesa_versions(&f);
        let v = case(Fake::real().without(Format::B8G8R8A8_SRGB));
        assert_eq!((v.gl, v.glsl), (20, 110));
        assert!(v.missing[0].contains("EXT_texture_sRGB"), "{:?}", v.missing);
        assert_eq!(case(Fake::real().cap(Cap::PointSprite, 0)).gl, 15);
        assert_eq!(case(Fake::real().cap(Cap::TwoSidedStencil, 0)).gl, 15);
        assert_eq!(case(Fake::real().cap(Cap::OcclusionQuery, 0)).gl, 14);
        assert_eq!(case(Fake::real().cap(Cap::TextureShadowMap, 0)).gl, 13);
        let v = case(
            Fake::real()
                .without(Format::Z16_UNORM)
                .without(Format::Z24_UNORM_S8_UINT),
        );
        assert_eq!(v.gl, 13);
        // Mesa does not check 3D textures: the version stays, the gap is reported.
        let v = case(Fake::real().cap(Cap::MaxTexture3dLevels, 0));
        assert_eq!((v.gl, v.missing.len()), (21, 0));
        assert!(v.unchecked.iter().any(|m| m.contains("3D textures")));
        assert!(v
            .unchecked
            .iter()
            .any(|m| m.contains("MAX_3D_TEXTURE_SIZE")));
        // ES 2.0 needs only shaders, NPOT and separate blend equations.
        assert_eq!(case(Fake::real().cap(Cap::MaxTexture3dLevels, 0)).gles, 20);
        assert_eq!(case(Fake::real().cap(Cap::NpotTextures, 0)).gles, 0);
    }

    #[test]
    fn a_small_limit_is_reported() {
        let v = mesa_versions(&Fake::real().cap(Cap::MaxTexture3dLevels, 4));
        assert_eq!(
            (v.gl, v.missing.len()),
            (21, 0),
            "Mesa does not check limits"
        );
        assert_eq!(v.unchecked.len(), 1, "{:?}", v.unchecked);
        assert!(v.unchecked[0].contains("MAX_3D_TEXTURE_SIZE (levels) is 4, needs 5"));
    }
}
