//! Constant state objects and bound state, in Gallium's shape (`pipe_blend_state`,
//! `pipe_depth_stencil_alpha_state`, ...). The hardware enums of hwdocs serve as the Gallium
//! enums: their numbering follows GL's, as Gallium's `PIPE_FUNC_*` and `PIPE_STENCIL_OP_*` do.

use std::sync::Arc;

pub use sgx_hwdocs::isp::{CompareFunc, CullMode, StencilOp};
pub use sgx_hwdocs::render::FillMode;
pub use sgx_hwdocs::texture::{AddrMode, Filter, MipFilter, Swizzle};
pub use sgx_hwdocs::tsp::{BlendFactor, BlendFunc, LogicOp};

pub use crate::vertex_format::{CompType, VertexFormat};
use sgx_hwdocs::Format;

use crate::resource::Resource;

/// `pipe_blend_state` for one render target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlendState {
    /// Blending on.
    pub blend_enable: bool,
    /// RGB equation.
    pub rgb_func: BlendFunc,
    /// RGB source factor.
    pub rgb_src_factor: BlendFactor,
    /// RGB destination factor.
    pub rgb_dst_factor: BlendFactor,
    /// Alpha equation.
    pub alpha_func: BlendFunc,
    /// Alpha source factor.
    pub alpha_src_factor: BlendFactor,
    /// Alpha destination factor.
    pub alpha_dst_factor: BlendFactor,
    /// Bit 0 red, 1 green, 2 blue, 3 alpha (`PIPE_MASK_*`).
    pub colormask: u8,
    /// Logic op on: replaces blending (GL ignores the blend equation on unorm targets then).
    pub logicop_enable: bool,
    /// The logic op (`PIPE_LOGICOP_*` numbering).
    pub logicop_func: LogicOp,
}

impl Default for BlendState {
    fn default() -> Self {
        BlendState {
            blend_enable: false,
            rgb_func: BlendFunc::ADD,
            rgb_src_factor: BlendFactor::ONE,
            rgb_dst_factor: BlendFactor::ZERO,
            alpha_func: BlendFunc::ADD,
            alpha_src_factor: BlendFactor::ONE,
            alpha_dst_factor: BlendFactor::ZERO,
            colormask: 0xF,
            logicop_enable: false,
            logicop_func: LogicOp::COPY,
        }
    }
}

/// One face's stencil state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StencilState {
    /// Test on.
    pub enabled: bool,
    /// Compare function.
    pub func: CompareFunc,
    /// On stencil fail.
    pub fail_op: StencilOp,
    /// On depth fail.
    pub zfail_op: StencilOp,
    /// On pass.
    pub zpass_op: StencilOp,
    /// Compare mask.
    pub valuemask: u8,
    /// Write mask.
    pub writemask: u8,
}

impl Default for StencilState {
    fn default() -> Self {
        StencilState {
            enabled: false,
            func: CompareFunc::ALWAYS,
            fail_op: StencilOp::KEEP,
            zfail_op: StencilOp::KEEP,
            zpass_op: StencilOp::KEEP,
            valuemask: u8::MAX,
            writemask: u8::MAX,
        }
    }
}

/// `pipe_depth_stencil_alpha_state` (alpha test is lowered into shaders by Mesa: no cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DepthStencilAlphaState {
    /// Depth test on.
    pub depth_enabled: bool,
    /// Depth writes on.
    pub depth_writemask: bool,
    /// Depth compare.
    pub depth_func: CompareFunc,
    /// Front [0] and back [1] stencil; back is used when its `enabled` is set.
    pub stencil: [StencilState; 2],
}

impl Default for DepthStencilAlphaState {
    fn default() -> Self {
        DepthStencilAlphaState {
            depth_enabled: false,
            depth_writemask: false,
            depth_func: CompareFunc::ALWAYS,
            stencil: [StencilState::default(); 2],
        }
    }
}

/// `pipe_rasterizer_state`, the parts the SGX535 model has.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RasterizerState {
    /// Which faces to drop.
    pub cull_face: CullMode,
    /// Counter-clockwise is front.
    pub front_ccw: bool,
    /// Scissor test on.
    pub scissor: bool,
    /// Flat shading of colour inputs.
    pub flatshade: bool,
    /// Point size when the vertex shader writes none.
    pub point_size: f32,
    /// Line width.
    pub line_width: f32,
    /// Antialiased lines (GL_LINE_SMOOTH): coverage multiplies the fragment's alpha.
    pub line_smooth: bool,
    /// Point sprites: texture coordinates replaced by the point coordinate.
    pub point_quad_rasterization: bool,
    /// Bit n: when drawing points, fragment input GENERIC[n] reads the point coordinate
    /// (GL's COORD_REPLACE on texture unit n).
    pub sprite_coord_enable: u16,
    /// The point coordinate's t is 0 at the sprite's bottom edge (Gallium
    /// `PIPE_SPRITE_COORD_LOWER_LEFT`); otherwise at its top edge.
    pub sprite_coord_lower_left: bool,
    /// Flat varyings take the first vertex of each primitive (GL_FIRST_VERTEX_CONVENTION),
    /// else the last.
    pub flatshade_first: bool,
    /// Polygon stipple: triangles keep only the pixels whose bit is set in the pattern of
    /// `Context::set_polygon_stipple`.
    pub poly_stipple: bool,
    /// Line stipple `(factor, pattern)`: pixel n along a line is drawn when bit
    /// `(n / factor) % 16` of the pattern is set; None draws every pixel.
    pub line_stipple: Option<(u16, u16)>,
    /// How front-facing polygons are drawn (glPolygonMode), after culling.
    pub fill_front: FillMode,
    /// How back-facing polygons are drawn.
    pub fill_back: FillMode,
    /// Polygon offset of polygons drawn as triangles.
    pub offset_tri: bool,
    /// Polygon offset of polygons drawn as lines.
    pub offset_line: bool,
    /// Polygon offset of polygons drawn as points.
    pub offset_point: bool,
    /// Polygon offset units: multiples of the depth buffer's minimum resolvable difference.
    pub offset_units: f32,
    /// Polygon offset factor of the depth slope.
    pub offset_scale: f32,
    /// Bound of the offset (0: none).
    pub offset_clamp: f32,
}

impl RasterizerState {
    /// Polygons may be drawn other than as filled triangles.
    pub fn unfilled(&self) -> bool {
        self.fill_front != FillMode::FILL || self.fill_back != FillMode::FILL
    }
}

impl Default for RasterizerState {
    fn default() -> Self {
        RasterizerState {
            cull_face: CullMode::NONE,
            front_ccw: true,
            scissor: false,
            flatshade: false,
            point_size: 1.0,
            line_width: 1.0,
            line_smooth: false,
            point_quad_rasterization: false,
            sprite_coord_enable: 0,
            sprite_coord_lower_left: false,
            flatshade_first: false,
            poly_stipple: false,
            line_stipple: None,
            fill_front: FillMode::FILL,
            fill_back: FillMode::FILL,
            offset_tri: false,
            offset_line: false,
            offset_point: false,
            offset_units: 0.0,
            offset_scale: 0.0,
            offset_clamp: 0.0,
        }
    }
}

/// `pipe_sampler_state`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerState {
    /// Wrap in s.
    pub wrap_s: AddrMode,
    /// Wrap in t.
    pub wrap_t: AddrMode,
    /// Wrap in r (3D textures).
    pub wrap_r: AddrMode,
    /// Minification filter.
    pub min_img_filter: Filter,
    /// Magnification filter.
    pub mag_img_filter: Filter,
    /// Mip filter.
    pub min_mip_filter: MipFilter,
    /// LOD bias.
    pub lod_bias: f32,
    /// Lower clamp of the biased LOD, in levels above the view's first level
    /// (GL_TEXTURE_MIN_LOD).
    pub min_lod: f32,
    /// Upper clamp of the biased LOD, in levels above the view's first level
    /// (GL_TEXTURE_MAX_LOD); 0 magnifies every sample.
    pub max_lod: f32,
    /// The colour a CLAMP_TO_BORDER fetch outside the texture reads (RGBA, as a decoded
    /// texel; the model keeps 8 bits per channel).
    pub border_color: [f32; 4],
    /// Shadow compare of depth textures (`PIPE_TEX_COMPARE_R_TO_TEXTURE`).
    pub compare_mode: bool,
    /// The compare function: a tap passes when `reference FUNC depth`.
    pub compare_func: CompareFunc,
    /// s and t in texels of the view's first level (Gallium's `normalized_coords` = 0, which
    /// st/mesa sets for RECT textures), not in [0, 1]. Only for 1D/2D views.
    pub unnormalized_coords: bool,
}

impl Default for SamplerState {
    fn default() -> Self {
        SamplerState {
            wrap_s: AddrMode::REPEAT,
            wrap_t: AddrMode::REPEAT,
            min_img_filter: Filter::NEAREST,
            mag_img_filter: Filter::NEAREST,
            min_mip_filter: MipFilter::NONE,
            lod_bias: 0.0,
            // GL's defaults: no clamp.
            min_lod: -1000.0,
            max_lod: 1000.0,
            wrap_r: AddrMode::REPEAT,
            border_color: [0.0; 4],
            compare_mode: false,
            compare_func: CompareFunc::LEQUAL,
            unnormalized_coords: false,
        }
    }
}

/// `pipe_sampler_view`: a resource seen through a level range and a swizzle.
#[derive(Debug, Clone)]
pub struct SamplerView {
    /// The texture.
    pub resource: Arc<Resource>,
    /// Format it is read as (must equal the resource's here).
    pub format: Format,
    /// First level sampled.
    pub first_level: u32,
    /// Last level sampled.
    pub last_level: u32,
    /// Result channel sources.
    pub swizzle: [Swizzle; 4],
}

impl SamplerView {
    /// A view of every level, identity swizzle.
    pub fn new(resource: &Arc<Resource>) -> SamplerView {
        SamplerView {
            resource: resource.clone(),
            format: resource.format(),
            first_level: 0,
            last_level: resource.last_level(),
            swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
        }
    }

    /// The same view restricted to levels first..=last.
    pub fn levels(mut self, first: u32, last: u32) -> SamplerView {
        self.first_level = first;
        self.last_level = last;
        self
    }

    /// Checks the level range: `first_level..=last_level`, in order, within the resource's
    /// levels (else InvalidArgument naming both ranges). Binding a view checks it; the C ABI
    /// checks it when a view is made.
    pub fn check_levels(&self) -> crate::error::Result<()> {
        let last = self.resource.last_level();
        if self.first_level > self.last_level || self.last_level > last {
            return crate::error::invalid(format!(
                "view levels {}..={} of a resource with 0..={last}",
                self.first_level, self.last_level
            ));
        }
        Ok(())
    }
}

impl PartialEq for SamplerView {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.resource, &o.resource)
            && self.format == o.format
            && self.first_level == o.first_level
            && self.last_level == o.last_level
            && self.swizzle == o.swizzle
    }
}

/// `pipe_vertex_element`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VertexElement {
    /// Byte offset within a vertex.
    pub src_offset: u32,
    /// Which vertex buffer.
    pub vertex_buffer_index: u32,
    /// Format.
    pub src_format: VertexFormat,
}

impl VertexElement {
    /// The elements of one interleaved vertex buffer (index 0) whose attributes follow each
    /// other with no gaps, in `formats`' order: offsets are the running sum of their sizes.
    pub fn packed(formats: &[VertexFormat]) -> Vec<VertexElement> {
        let mut offset_B = 0;
        formats
            .iter()
            .map(|&f| {
                let e = VertexElement {
                    src_offset: offset_B,
                    vertex_buffer_index: 0,
                    src_format: f,
                };
                offset_B += f.size_B();
                e
            })
            .collect()
    }
}

/// A vertex or index buffer binding: a buffer resource, or data the application owns.
#[derive(Debug, Clone)]
pub enum BufferSource {
    /// A buffer resource.
    Resource(Arc<Resource>),
    /// User memory, copied into the batch at draw time.
    User(Arc<[u8]>),
}

impl PartialEq for BufferSource {
    fn eq(&self, o: &Self) -> bool {
        match (self, o) {
            (BufferSource::Resource(a), BufferSource::Resource(b)) => Arc::ptr_eq(a, b),
            (BufferSource::User(a), BufferSource::User(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// `pipe_vertex_buffer`.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexBuffer {
    /// Bytes between vertices.
    pub stride: u32,
    /// Byte offset of vertex 0.
    pub buffer_offset: u32,
    /// The data.
    pub buffer: BufferSource,
}

/// One slot of [`crate::Context::set_vertex_buffer_slots`].
#[derive(Debug)]
pub enum VertexBufferSlot {
    /// Nothing bound.
    Unbound,
    /// A buffer, taken by the context.
    Bind(VertexBuffer),
    /// The resource the slot holds already, at a new stride and offset.
    Rebind {
        /// Bytes between vertices.
        stride: u32,
        /// Byte offset of vertex 0.
        buffer_offset: u32,
    },
}

impl VertexBuffer {
    /// Vertices in the caller's memory (a user buffer), `stride_B` bytes apart from byte 0.
    pub fn user(stride_B: u32, bytes: Vec<u8>) -> VertexBuffer {
        VertexBuffer {
            stride: stride_B,
            buffer_offset: 0,
            buffer: BufferSource::User(bytes.into()),
        }
    }

    /// A user buffer of vertices made of `per_vertex` f32 values each, from `values` in order.
    pub fn user_f32(per_vertex: u32, values: &[f32]) -> VertexBuffer {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        VertexBuffer::user(per_vertex * 4, bytes)
    }
}

/// `pipe_constant_buffer`: constants as f32/u32 bits, four per vec4.
#[derive(Debug, Clone, PartialEq)]
pub struct ConstantBuffer {
    /// The constants; copied into each batch that draws with them.
    pub data: Arc<[u32]>,
}

/// `pipe_surface`: one level (and cube face) of a texture as a render target.
#[derive(Debug, Clone)]
pub struct Surface {
    /// The texture.
    pub resource: Arc<Resource>,
    /// Level.
    pub level: u32,
    /// Cube face, or slice of a 3D texture (0 for 2D).
    pub face: u32,
}

impl Surface {
    /// Level `level`, face (or 3D slice) `face` of `resource`.
    pub fn new(resource: &Arc<Resource>, level: u32, face: u32) -> Surface {
        Surface {
            resource: resource.clone(),
            level,
            face,
        }
    }
}

impl PartialEq for Surface {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.resource, &o.resource) && self.level == o.level && self.face == o.face
    }
}

/// `pipe_framebuffer_state`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FramebufferState {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Colour buffer (`cbufs[0]`: the one target a render's PBE stores).
    pub cbuf: Option<Surface>,
    /// Further colour buffers (`cbufs[1..]`, as st/mesa binds the front and the back buffer
    /// for `glDrawBuffer(GL_FRONT_AND_BACK)`): each takes what `cbuf` takes, colour output 0
    /// (`FS_COLOR0_WRITES_ALL_CBUFS`; with `PIPE_CAP_MAX_RENDER_TARGETS` 1 a shader has no
    /// other). The render is replayed once per colour buffer (hwdocs model-choices: "More
    /// than one colour buffer", MODEL). Needs `cbuf`.
    pub extra_cbufs: Vec<Surface>,
    /// Depth/stencil buffer.
    pub zsbuf: Option<Surface>,
}

impl FramebufferState {
    /// A `width` x `height` framebuffer of the one colour buffer `cbuf`, without depth/stencil.
    pub fn colour(cbuf: Surface, width: u32, height: u32) -> FramebufferState {
        FramebufferState {
            width,
            height,
            cbuf: Some(cbuf),
            ..Default::default()
        }
    }
}

/// `pipe_viewport_state`: window = ndc * scale + translate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewportState {
    /// Scale x, y, z.
    pub scale: [f32; 3],
    /// Translate x, y, z.
    pub translate: [f32; 3],
}

impl ViewportState {
    /// The viewport mapping NDC onto the rectangle (x, y, w, h), depth 0..1, y down.
    pub fn rect(x: f32, y: f32, w: f32, h: f32) -> ViewportState {
        ViewportState {
            scale: [w / 2.0, h / 2.0, 0.5],
            translate: [x + w / 2.0, y + h / 2.0, 0.5],
        }
    }
}

impl Default for ViewportState {
    fn default() -> Self {
        ViewportState::rect(0.0, 0.0, 1.0, 1.0)
    }
}

/// `pipe_scissor_state`: pixels minx..maxx, miny..maxy (max exclusive, as Gallium).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScissorState {
    /// First column.
    pub minx: u32,
    /// First row.
    pub miny: u32,
    /// One past the last column.
    pub maxx: u32,
    /// One past the last row.
    pub maxy: u32,
}

/// `pipe_stencil_ref`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StencilRef {
    /// Front and back reference values.
    pub ref_value: [u8; 2],
}

/// `pipe_blend_color`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BlendColor {
    /// RGBA.
    pub color: [f32; 4],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_elements_follow_each_other() {
        let e = VertexElement::packed(&[
            VertexFormat::R32G32B32_FLOAT,
            VertexFormat::R8G8B8A8_UNORM,
            VertexFormat::R32G32_FLOAT,
        ]);
        let offsets: Vec<u32> = e.iter().map(|e| e.src_offset).collect();
        assert_eq!(offsets, [0, 12, 16]);
        assert!(e.iter().all(|e| e.vertex_buffer_index == 0));
        assert_eq!(e[1].src_format, VertexFormat::R8G8B8A8_UNORM);
        assert!(VertexElement::packed(&[]).is_empty());
    }

    #[test]
    fn user_f32_vertices_are_little_endian_floats_a_vertex_apart() {
        let vb = VertexBuffer::user_f32(3, &[1.0, -2.0, 0.5, 4.0, 5.0, 6.0]);
        assert_eq!((vb.stride, vb.buffer_offset), (12, 0));
        let BufferSource::User(bytes) = &vb.buffer else {
            panic!("not a user buffer: {vb:?}");
        };
        assert_eq!(bytes.len(), 24);
        assert_eq!(bytes[4..8], (-2.0f32).to_le_bytes());
        assert_eq!(bytes[20..24], 6.0f32.to_le_bytes());
    }
}
