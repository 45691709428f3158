/*
 * The few Gallium numbers (Mesa 22.3.6's p_defines.h and p_format.h) the examples pass to
 * libsgx535. Mesa's glue includes Mesa's own headers instead; an emulator's GL layer without
 * Mesa copies what it uses, as here. The library checks every value it is given, so a wrong
 * number here is an error status, not a silent mis-render.
 */
#ifndef SGX535_EXAMPLES_PIPE_NUMBERS_H
#define SGX535_EXAMPLES_PIPE_NUMBERS_H

/* enum pipe_texture_target */
#define PIPE_BUFFER 0
#define PIPE_TEXTURE_2D 2
#define PIPE_TEXTURE_CUBE 4

/* enum pipe_format */
#define PIPE_FORMAT_R32G32_FLOAT 14
#define PIPE_FORMAT_R32G32B32_FLOAT 15
#define PIPE_FORMAT_R32G32B32A32_FLOAT 16
#define PIPE_FORMAT_B8G8R8A8_UNORM 54
#define PIPE_FORMAT_Z24_UNORM_S8_UINT 144

/* PIPE_BIND_* */
#define PIPE_BIND_DEPTH_STENCIL (1u << 0)
#define PIPE_BIND_RENDER_TARGET (1u << 1)
#define PIPE_BIND_SAMPLER_VIEW (1u << 3)
#define PIPE_BIND_VERTEX_BUFFER (1u << 4)

/* enum pipe_map_flags */
#define PIPE_MAP_READ (1u << 0)
#define PIPE_MAP_WRITE (1u << 1)

/* PIPE_CLEAR_* */
#define PIPE_CLEAR_DEPTH (1u << 0)
#define PIPE_CLEAR_STENCIL (1u << 1)
#define PIPE_CLEAR_COLOR0 (1u << 2)

/* enum pipe_prim_type */
#define PIPE_PRIM_TRIANGLES 4
#define PIPE_PRIM_TRIANGLE_STRIP 5
#define PIPE_PRIM_QUADS 7

/* enum pipe_shader_type */
#define PIPE_SHADER_VERTEX 0
#define PIPE_SHADER_FRAGMENT 4

/* enum pipe_compare_func */
#define PIPE_FUNC_LESS 1
#define PIPE_FUNC_ALWAYS 7

/* enum pipe_tex_wrap, pipe_tex_filter, pipe_tex_mipfilter */
#define PIPE_TEX_WRAP_REPEAT 0
#define PIPE_TEX_WRAP_CLAMP_TO_EDGE 2
#define PIPE_TEX_FILTER_NEAREST 0
#define PIPE_TEX_FILTER_LINEAR 1
#define PIPE_TEX_MIPFILTER_NONE 2

/* enum pipe_swizzle */
#define PIPE_SWIZZLE_X 0
#define PIPE_SWIZZLE_Y 1
#define PIPE_SWIZZLE_Z 2
#define PIPE_SWIZZLE_W 3

/* PIPE_MASK_*, PIPE_FACE_*, PIPE_BLEND_*, PIPE_BLENDFACTOR_* */
#define PIPE_MASK_RGBA 0xf
#define PIPE_FACE_NONE 0
#define PIPE_BLEND_ADD 0
#define PIPE_BLENDFACTOR_ONE 0x01
#define PIPE_BLENDFACTOR_ZERO 0x11

/* enum pipe_query_type, pipe_cap */
#define PIPE_QUERY_OCCLUSION_COUNTER 0
#define PIPE_CAP_MAX_TEXTURE_2D_SIZE 9

#endif
