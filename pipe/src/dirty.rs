//! Dirty bits per state group, as Gallium drivers keep them (lima's `LIMA_CONTEXT_DIRTY_*`,
//! v3d's `V3D_DIRTY_*`): a setter marks its group, and the draw repacks only the parts of the
//! DrawState that a marked group feeds, then clears the bits it consumed.
//!
//! The framebuffer has no bit: it is not part of the DrawState but of the batch (one render
//! per framebuffer), and binding a different one submits the batch.

bitflags::bitflags! {
    /// State groups changed since the last DrawState was built.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) struct Dirty: u32 {
        /// `bind_blend_state`.
        const BLEND = 1 << 0;
        /// `set_blend_color`.
        const BLEND_COLOR = 1 << 1;
        /// `bind_depth_stencil_alpha_state`.
        const DSA = 1 << 2;
        /// `set_stencil_ref`.
        const STENCIL_REF = 1 << 3;
        /// `bind_rasterizer_state`.
        const RASTERIZER = 1 << 4;
        /// `set_viewport_state`.
        const VIEWPORT = 1 << 5;
        /// `set_scissor_state`.
        const SCISSOR = 1 << 6;
        /// `bind_sampler_states`.
        const SAMPLERS = 1 << 7;
        /// `set_sampler_views`, or a viewed texture's storage was replaced.
        const VIEWS = 1 << 8;
        /// `bind_vertex_elements_state`.
        const VERTEX_ELEMENTS = 1 << 9;
        /// `set_vertex_buffers`, a vertex buffer's storage was replaced, or a new batch (user
        /// vertex data is uploaded into each batch's arena).
        const VBUF = 1 << 10;
        /// `set_constant_buffer` for the vertex stage.
        const CONSTBUF_VS = 1 << 11;
        /// `set_constant_buffer` for the fragment stage.
        const CONSTBUF_FS = 1 << 12;
        /// `bind_vs_state`, `bind_fs_state`, or a different linked program found by the draw
        /// (point sprites link their own).
        const SHADERS = 1 << 13;
        /// The occlusion query slot the draw counts into differs from the packed one (begin,
        /// end, `set_active_query_state`, a new batch): found by the draw, which asks for the
        /// slot anyway.
        const QUERY = 1 << 14;
        /// `set_polygon_stipple`.
        const STIPPLE = 1 << 15;
        /// `set_framebuffer_state` bound a depth buffer of another depth resolution (the
        /// polygon offset's units scale by it).
        const DEPTH_FORMAT = 1 << 16;
    }
}

impl Dirty {
    /// Groups packed into the ISP words.
    pub const ISP: Dirty = Dirty::DSA
        .union(Dirty::RASTERIZER)
        .union(Dirty::STENCIL_REF)
        .union(Dirty::QUERY);
    /// Groups packed into the TSP words.
    pub const TSP: Dirty = Dirty::BLEND
        .union(Dirty::BLEND_COLOR)
        .union(Dirty::RASTERIZER)
        .union(Dirty::SHADERS);
    /// Groups packed into the program words (attribute and texture counts among them).
    pub const PROGRAM: Dirty = Dirty::SHADERS.union(Dirty::VERTEX_ELEMENTS);
    /// Groups packed into the raster words (point size, query address).
    pub const RASTER: Dirty = Dirty::RASTERIZER.union(Dirty::QUERY).union(Dirty::SHADERS);
    /// Groups packed into the PrimState words and the stipple pattern.
    pub const PRIM: Dirty = Dirty::RASTERIZER.union(Dirty::STIPPLE);
    /// Groups packed into the polygon words (fill modes, offset, edge flag output).
    pub const POLY: Dirty = Dirty::RASTERIZER
        .union(Dirty::SHADERS)
        .union(Dirty::DEPTH_FORMAT);
    /// Groups packed into the vertex attribute table.
    pub const ATTRS: Dirty = Dirty::VERTEX_ELEMENTS.union(Dirty::VBUF);
    /// Groups packed into the texture table.
    pub const TEXS: Dirty = Dirty::VIEWS.union(Dirty::SAMPLERS).union(Dirty::SHADERS);
    /// Groups packed into the vertex stage's constants.
    pub const VS_CONSTS: Dirty = Dirty::CONSTBUF_VS.union(Dirty::SHADERS);
    /// Groups packed into the fragment stage's constants.
    pub const FS_CONSTS: Dirty = Dirty::CONSTBUF_FS.union(Dirty::SHADERS);
    /// What a new batch invalidates: addresses inside the previous batch's memory (user
    /// vertex data; a query slot is per batch too, and the draw compares it as it does the
    /// program).
    pub const NEW_BATCH: Dirty = Dirty::VBUF;
}
