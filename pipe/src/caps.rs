//! The screen's capabilities, named like Gallium's `PIPE_CAP_*` and `PIPE_SHADER_CAP_*`.
//!
//! Chosen for the SGX535's class: what Mesa 22.3 needs to expose OpenGL 2.1 with GLSL 1.20 and
//! OpenGL ES 2.0, with TGSI as the preferred shader IR. Limits come from hwdocs where it has
//! them, so a change of the hardware data changes what the driver reports.

use sgx_hwdocs::{limits, usse};

/// Declares a fieldless enum and its `ALL` list together, so the list cannot miss a variant.
macro_rules! cap_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum $name {
            $($variant),*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
        }
    };
}

cap_enum! {
    /// Screen capabilities (a subset of Gallium's `pipe_cap`, by name).
    Cap {
        NpotTextures,
        MaxDualSourceRenderTargets,
        AnisotropicFilter,
        PointSprite,
        MaxRenderTargets,
        OcclusionQuery,
        QueryTimeElapsed,
        QueryTimestamp,
        TextureSwizzle,
        MaxTexture2dSize,
        MaxTexture3dLevels,
        TextureShadowMap,
        MaxTextureCubeLevels,
        TextureMirrorClamp,
        BlendEquationSeparate,
        TwoSidedStencil,
        IndepBlendEnable,
        FragmentShaderTextureLod,
        FragmentShaderDerivatives,
        VertexShaderSaturate,
        TgsiFsCoordOriginUpperLeft,
        TgsiFsCoordPixelCenterHalfInteger,
        DepthClipDisable,
        ConditionalRender,
        PrimitiveRestart,
        MaxVertexAttribStride,
        GlslFeatureLevel,
        GlslFeatureLevelCompatibility,
        EsslFeatureLevel,
        Integers,
        ConstantBufferOffsetAlignment,
        MinMapBufferAlignment,
        TextureBorderColorQuirk,
        AlphaTest,
        MaxViewports,
        Endianness,
        VertexElementSrcOffset4ByteAligned,
        TimerResolution,
        TextureMultisample,
        ShaderStencilExport,
        UserVertexBuffers,
        Accelerated,
        Uma,
        VideoMemory,
        PreferBlitBasedTextureTransfer,
        ClipHalfz,
        QueryOcclusionPredicate,
        SupportedPrimModes,
        SupportedPrimModesWithRestart,
        TwoSidedColor,
        ClipPlanes,
        GlClamp,
        Flatshade,
        PointSizeFixed,
        TextureTransferModes,
        MaxVaryings,
        Texrect,
        MaxVertexBuffers,
        BufferMapPersistentCoherent,
        MixedFramebufferSizes,
        GenerateMipmap,
        DeviceResetStatusQuery,
    }
}

/// A variant's Gallium name: `prefix` then the CamelCase name in SHOUTING_SNAKE_CASE.
fn gallium_name(prefix: &str, variant: &str) -> String {
    let mut s = String::from(prefix);
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(c.to_ascii_uppercase());
    }
    s
}

impl Cap {
    /// The Gallium name.
    pub fn name(self) -> String {
        gallium_name("PIPE_CAP_", &format!("{self:?}"))
            .replace("2D_", "_2D_")
            .replace("3D_", "_3D_")
            .replace("__", "_")
    }
}

fn level_count(size_px: u64) -> i64 {
    i64::from(u64::BITS - size_px.leading_zeros())
}

/// The value of a screen capability.
pub fn get_param(cap: Cap) -> i64 {
    use Cap::*;
    match cap {
        NpotTextures => 1,
        // One colour output: the PBE state words describe one target (hwdocs pbe.json). A
        // framebuffer may still bind more colour buffers (GL_FRONT_AND_BACK): each gets output
        // 0 (FS_COLOR0_WRITES_ALL_CBUFS), the render replayed per buffer (flush.rs).
        MaxRenderTargets => 1,
        MaxDualSourceRenderTargets => 0,
        AnisotropicFilter => 0,
        PointSprite => 1,
        OcclusionQuery | QueryOcclusionPredicate => 1,
        QueryTimeElapsed | QueryTimestamp => 1,
        TextureSwizzle => 1,
        MaxTexture2dSize => limits::MAX_TEXTURE_PX as i64,
        MaxTexture3dLevels => level_count(limits::MAX_TEXTURE_3D_PX),
        // Depth textures with compare (ARB_depth_texture, ARB_shadow).
        TextureShadowMap => 1,
        MaxTextureCubeLevels => level_count(limits::MAX_TEXTURE_PX),
        TextureMirrorClamp => 0,
        BlendEquationSeparate => 1,
        TwoSidedStencil => 1,
        IndepBlendEnable => 0,
        FragmentShaderTextureLod | FragmentShaderDerivatives => 1,
        VertexShaderSaturate => 1,
        TgsiFsCoordOriginUpperLeft | TgsiFsCoordPixelCenterHalfInteger => 1,
        DepthClipDisable => 0,
        ConditionalRender => 1,
        PrimitiveRestart => 0,
        MaxVertexAttribStride => 4095,
        GlslFeatureLevel | GlslFeatureLevelCompatibility => 120,
        EsslFeatureLevel => 100,
        // The USSE model ISA has integer ops; the compiler takes both forms.
        Integers => 0,
        ConstantBufferOffsetAlignment => limits::CONST_ALIGN_B as i64,
        // Gallium's minimum for mapped buffers (a cache line): a driver choice.
        MinMapBufferAlignment => 64,
        TextureBorderColorQuirk => 0,
        // Mesa lowers alpha test into the fragment shader when the driver lacks it.
        AlphaTest => 0,
        MaxViewports => 1,
        Endianness => 0,
        VertexElementSrcOffset4ByteAligned => 0,
        // Nanoseconds per timestamp tick of the model clock.
        TimerResolution => (1_000_000_000 / limits::CORE_CLOCK_HZ) as i64,
        TextureMultisample => 0,
        ShaderStencilExport => 0,
        // Gallium's user vertex buffers carry no size; Mesa's u_vbuf uploads them instead.
        UserVertexBuffers => 0,
        Accelerated => 1,
        Uma => 1,
        // MiB reported to GL for a UMA device: a driver choice (GMA500 shares system RAM).
        VideoMemory => 256,
        PreferBlitBasedTextureTransfer => 0,
        ClipHalfz => 1,
        // Points, lines, line loops and strips, triangles, strips and fans (hwdocs Topology);
        // Mesa converts quads and polygons (util_primconvert). No primitive restart.
        // POINTS..POLYGON: the TA takes quads and polygons whole (hwdocs ta-stream.json).
        SupportedPrimModes => (1 << 10) - 1,
        SupportedPrimModesWithRestart => 0,
        // Mesa lowers these into shaders when the cap is 0: the model has no back-colour
        // select and no GL_CLAMP address mode; without user clip planes st/mesa lowers
        // glClipPlane and gl_ClipVertex to CLIPDIST outputs, which the compiler turns into a
        // discard.
        TwoSidedColor | ClipPlanes | GlClamp => 0,
        // Flat shading and a fixed point size are rasterizer state here.
        Flatshade | PointSizeFixed => 1,
        // Transfers are CPU copies of the twiddled layout, never blits.
        TextureTransferModes => 0,
        MaxVaryings => limits::MAX_VARYINGS as i64,
        // Rectangle textures: RECT targets compile as 2D ones and the sampler takes texel
        // coordinates (TexState.unnormalized, from the sampler's unnormalised coordinates).
        Texrect => 1,
        MaxVertexBuffers => limits::MAX_VERTEX_ATTRIBS as i64,
        // Maps are staging copies written back at unmap: no persistent or coherent mappings.
        BufferMapPersistentCoherent => 0,
        // Attachments may be larger than the framebuffer (Gallium sets it to the smallest);
        // each surface keeps its own layout (context.rs check_framebuffer).
        MixedFramebufferSizes => 1,
        // generate_mipmap is the blitter's fenced per-level chain (or its CPU route), so
        // st/mesa calls it instead of blitting level by level itself.
        GenerateMipmap => 1,
        // get_device_reset_status tells guilty / innocent after a hang or an MMU fault
        // (reset.rs); with it st/mesa answers glGetGraphicsResetStatusARB and the DRI
        // frontends offer robust (lose-context-on-reset) contexts.
        DeviceResetStatusQuery => 1,
    }
}

/// Shader stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShaderStage {
    /// Vertex programs.
    Vertex,
    /// Pixel (fragment) programs.
    Fragment,
}

cap_enum! {
    /// Per-stage capabilities (a subset of Gallium's `pipe_shader_cap`).
    ShaderCap {
        MaxInstructions,
        MaxControlFlowDepth,
        MaxInputs,
        MaxOutputs,
        MaxConstBufferSize,
        MaxConstBuffers,
        MaxTemps,
        CondCodes,
        IndirectInputAddr,
        IndirectTempAddr,
        IndirectConstAddr,
        Subroutines,
        Integers,
        MaxTextureSamplers,
        MaxSamplerViews,
        PreferredIr,
        SupportedIrs,
        TgsiSqrtSupported,
        MaxAluInstructions,
        MaxTexInstructions,
        MaxTexIndirections,
        ContSupported,
        IndirectOutputAddr,
        Int64Atomics,
        Fp16,
        Fp16Derivatives,
        Fp16ConstBuffers,
        Int16,
        Glsl16bitConsts,
        DroundSupported,
        DfracexpDldexpSupported,
        LdexpSupported,
        TgsiAnyInoutDeclRange,
        MaxShaderBuffers,
        MaxShaderImages,
        MaxHwAtomicCounters,
        MaxHwAtomicCounterBuffers,
    }
}

impl ShaderCap {
    /// The Gallium name.
    pub fn name(self) -> String {
        gallium_name("PIPE_SHADER_CAP_", &format!("{self:?}"))
    }
}

/// The IR a stage prefers: 0 = TGSI, as Gallium numbers `PIPE_SHADER_IR_TGSI`.
pub const PIPE_SHADER_IR_TGSI: i64 = 0;

/// The value of a per-stage capability.
pub fn get_shader_param(stage: ShaderStage, cap: ShaderCap) -> i64 {
    use ShaderCap::*;
    match cap {
        MaxInstructions => usse::MAX_INSTRUCTIONS as i64 / 4,
        MaxControlFlowDepth => usse::CALL_STACK_DEPTH as i64,
        MaxInputs => match stage {
            ShaderStage::Vertex => limits::MAX_VERTEX_ATTRIBS as i64,
            ShaderStage::Fragment => limits::MAX_VARYINGS as i64,
        },
        MaxOutputs => match stage {
            ShaderStage::Vertex => 1 + limits::MAX_VARYINGS as i64,
            ShaderStage::Fragment => 1,
        },
        // Constant memory, not only the secondary bank: reads past the bank and indexed reads
        // are LDC loads (compiler lower/constants.rs), so uniform arrays reach this far.
        MaxConstBufferSize => usse::CONST_MEMORY_REGS as i64 * 16,
        MaxConstBuffers => 1,
        MaxTemps => usse::TEMP_REGS as i64,
        CondCodes => 0,
        IndirectInputAddr => 0,
        // The compiler takes TGSI arrays (compiler lower/array.rs, tgsi/float_addr.rs), but
        // Mesa 22.3's nir_to_tgsi without native integers drops stores to a local array at a
        // constant index whose constant is shared with float arithmetic (`array[1] = ..` next
        // to `i++` or `col < 1`; apparently int_to_float turns the index into 1.0): with 1, 21
        // piglit GLSL 1.10/1.20 execution tests fail that pass with 0 (temp-array-indexing,
        // *-temp-mat2-col-row-rd). So st/mesa lowers indirect temporaries itself.
        IndirectTempAddr => 0,
        IndirectConstAddr => 1,
        Subroutines => 1,
        Integers => 0,
        MaxTextureSamplers | MaxSamplerViews => match stage {
            // Vertex texture fetch: table entries after the fragment stage's (hwdocs
            // ProgramState.vs_tex_base).
            ShaderStage::Vertex => limits::MAX_VERTEX_TEXTURE_UNITS as i64,
            ShaderStage::Fragment => limits::MAX_TEXTURE_UNITS as i64,
        },
        PreferredIr => PIPE_SHADER_IR_TGSI,
        SupportedIrs => 1 << PIPE_SHADER_IR_TGSI,
        TgsiSqrtSupported => 1,
        // One instruction store: ALU and texture instructions share it, and any number of
        // dependent texture reads is allowed.
        MaxAluInstructions | MaxTexInstructions | MaxTexIndirections => {
            usse::MAX_INSTRUCTIONS as i64 / 4
        }
        // The compiler lowers CONT inside loops.
        ContSupported => 1,
        IndirectOutputAddr => 0,
        // No 16- or 64-bit types, doubles, buffers, images or atomics on this GPU class.
        Int64Atomics | Fp16 | Fp16Derivatives | Fp16ConstBuffers | Int16 | Glsl16bitConsts => 0,
        DroundSupported | DfracexpDldexpSupported | LdexpSupported => 0,
        TgsiAnyInoutDeclRange => 0,
        MaxShaderBuffers | MaxShaderImages | MaxHwAtomicCounters | MaxHwAtomicCounterBuffers => 0,
    }
}

cap_enum! {
    /// Float capabilities (Gallium's `pipe_capf`).
    CapF {
        MinLineWidth,
        MinLineWidthAa,
        MaxLineWidth,
        MaxLineWidthAa,
        LineWidthGranularity,
        MinPointSize,
        MinPointSizeAa,
        MaxPointSize,
        MaxPointSizeAa,
        PointSizeGranularity,
        MaxTextureAnisotropy,
        MaxTextureLodBias,
        MinConservativeRasterDilate,
        MaxConservativeRasterDilate,
        ConservativeRasterDilateGranularity,
    }
}

impl CapF {
    /// The Gallium name.
    pub fn name(self) -> String {
        gallium_name("PIPE_CAPF_", &format!("{self:?}"))
    }
}

/// The value of a float capability.
pub fn get_paramf(cap: CapF) -> f32 {
    use CapF::*;
    match cap {
        MinLineWidth | MinPointSize | MinLineWidthAa => 1.0,
        // No antialiased points. Smooth lines are drawn with coverage (hwdocs PrimKind
        // SMOOTH_LINE, MODEL), at any width.
        MinPointSizeAa | MaxPointSizeAa => 0.0,
        // The rasterizer state carries f32 sizes (hwdocs RasterState, MODEL); the largest
        // useful one covers the largest render target.
        MaxLineWidth | MaxLineWidthAa | MaxPointSize => limits::MAX_TARGET_PX as f32,
        LineWidthGranularity | PointSizeGranularity => 0.1,
        MaxTextureAnisotropy => 1.0,
        // The texture word's bias is a signed 8-bit count of 1/16 levels (hwdocs TexState).
        MaxTextureLodBias => 127.0 / 16.0,
        MinConservativeRasterDilate
        | MaxConservativeRasterDilate
        | ConservativeRasterDilateGranularity => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_gallium() {
        assert_eq!(Cap::MaxTexture2dSize.name(), "PIPE_CAP_MAX_TEXTURE_2D_SIZE");
        assert_eq!(Cap::NpotTextures.name(), "PIPE_CAP_NPOT_TEXTURES");
        assert_eq!(Cap::GlslFeatureLevel.name(), "PIPE_CAP_GLSL_FEATURE_LEVEL");
        assert_eq!(
            Cap::MaxTexture3dLevels.name(),
            "PIPE_CAP_MAX_TEXTURE_3D_LEVELS"
        );
        assert_eq!(
            ShaderCap::MaxConstBufferSize.name(),
            "PIPE_SHADER_CAP_MAX_CONST_BUFFER_SIZE"
        );
        let names: std::collections::HashSet<String> = Cap::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Cap::ALL.len(), "names are distinct");
    }

    #[test]
    fn limits_come_from_hwdocs() {
        assert_eq!(get_param(Cap::MaxTexture2dSize), 2048);
        assert_eq!(get_param(Cap::MaxTextureCubeLevels), 12);
        assert_eq!(get_param(Cap::MaxTexture3dLevels), 10);
        assert_eq!(get_param(Cap::GlslFeatureLevel), 120);
        assert_eq!(
            get_shader_param(ShaderStage::Fragment, ShaderCap::PreferredIr),
            PIPE_SHADER_IR_TGSI
        );
        assert_eq!(
            get_shader_param(ShaderStage::Vertex, ShaderCap::MaxConstBufferSize),
            16384
        );
        assert_eq!(
            get_shader_param(ShaderStage::Vertex, ShaderCap::MaxTextureSamplers),
            limits::MAX_VERTEX_TEXTURE_UNITS as i64
        );
    }
}
