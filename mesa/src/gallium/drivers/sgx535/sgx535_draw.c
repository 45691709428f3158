/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Draws, clears, blits, copies and mipmap generation: every pixel is the
 * library's. Primitives the library's caps do not claim go through
 * util_primconvert, which draws them again through this draw_vbo as
 * triangles.
 */
#include "sgx535_screen.h"

#include "indices/u_primconvert.h"
#include "util/log.h"
#include "util/u_inlines.h"

static void
sgx535g_draw_vbo(struct pipe_context *pctx, const struct pipe_draw_info *info,
                 unsigned drawid_offset, const struct pipe_draw_indirect_info *indirect,
                 const struct pipe_draw_start_count_bias *draws, unsigned num_draws)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);

   if (indirect && indirect->buffer) {
      mesa_loge("indirect draws are not supported");
      goto out;
   }
   /* Claimed only to keep u_vbuf away (sgx535g_get_param); GL does not draw
    * them without geometry or tessellation shaders. */
   if (info->mode > PIPE_PRIM_POLYGON) {
      mesa_loge("primitive type %u needs a geometry or tessellation shader: not drawn",
                info->mode);
      goto out;
   }
   if (!(ctx->primconvert_modes & (1u << info->mode))) {
      util_primconvert_draw_vbo(ctx->primconvert, info, drawid_offset, indirect, draws,
                                num_draws);
      return;
   }
   for (unsigned i = 0; i < num_draws; i++) {
      if (!draws[i].count)
         continue;
      sgx535_draw_info d = {
         .mode = info->mode,
         .index_size = info->index_size,
         .index_buffer = info->index_size && !info->has_user_indices
                            ? sgx535g_resource_handle(info->index.resource)
                            : (sgx535_resource){0},
         .index_user = info->index_size && info->has_user_indices ? info->index.user : NULL,
         .start = draws[i].start,
         .count = draws[i].count,
         .index_bias = info->index_size ? draws[i].index_bias : 0,
         /* The vertices a draw reads: its range when not indexed, Gallium's
          * bounds when known, else every index a buffer can hold. */
         .min_index = !info->index_size          ? draws[i].start
                      : info->index_bounds_valid ? info->min_index
                                                 : 0,
         .max_index = !info->index_size          ? draws[i].start + draws[i].count - 1
                      : info->index_bounds_valid ? info->max_index
                                                 : ~0u,
         .start_instance = info->start_instance,
         .instance_count = info->instance_count,
      };
      if (!sgx535g_ctx_check(ctx, sgx535_draw_vbo(ctx->lib, &d), "draw_vbo"))
         break;
   }
out:
   if (info->take_index_buffer_ownership && info->index_size && !info->has_user_indices) {
      struct pipe_resource *ib = info->index.resource;
      pipe_resource_reference(&ib, NULL);
   }
}

static void
sgx535g_clear(struct pipe_context *pctx, unsigned buffers, const struct pipe_scissor_state *scissor,
              const union pipe_color_union *color, double depth, unsigned stencil)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   /* st/mesa passes a scissor only when the library answers
    * PIPE_CAP_CLEAR_SCISSORED. */
   sgx535_scissor_state s;
   if (scissor)
      s = (sgx535_scissor_state){scissor->minx, scissor->miny, scissor->maxx, scissor->maxy};
   sgx535g_ctx_check(ctx, sgx535_clear(ctx->lib, buffers, scissor ? &s : NULL, color->f, depth, stencil),
                     "clear");
}

static void
sgx535g_clear_render_target(struct pipe_context *pctx, struct pipe_surface *dst,
                            const union pipe_color_union *color, unsigned x, unsigned y,
                            unsigned w, unsigned h, bool render_condition_enabled)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx,
                     sgx535_clear_render_target(ctx->lib, sgx535g_surface_handle(dst), color->f,
                                                x, y, w, h),
                     "clear_render_target");
}

static void
sgx535g_clear_depth_stencil(struct pipe_context *pctx, struct pipe_surface *dst, unsigned flags,
                            double depth, unsigned stencil, unsigned x, unsigned y, unsigned w,
                            unsigned h, bool render_condition_enabled)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx,
                     sgx535_clear_depth_stencil(ctx->lib, sgx535g_surface_handle(dst), flags,
                                                depth, stencil, x, y, w, h),
                     "clear_depth_stencil");
}

static sgx535_box
sgx535g_box(const struct pipe_box *b)
{
   return (sgx535_box){b->x, b->y, b->z, b->width, b->height, b->depth};
}

static void
sgx535g_blit(struct pipe_context *pctx, const struct pipe_blit_info *info)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_blit_info b = {
      .dst = {sgx535g_resource_handle(info->dst.resource), info->dst.level,
              sgx535g_box(&info->dst.box), info->dst.format},
      .src = {sgx535g_resource_handle(info->src.resource), info->src.level,
              sgx535g_box(&info->src.box), info->src.format},
      .mask = info->mask,
      .filter = info->filter,
      .scissor_enable = info->scissor_enable,
      .render_condition_enable = info->render_condition_enable,
      .scissor = {info->scissor.minx, info->scissor.miny, info->scissor.maxx, info->scissor.maxy},
   };
   sgx535g_ctx_check(ctx, sgx535_blit(ctx->lib, &b), "blit");
}

static void
sgx535g_resource_copy_region(struct pipe_context *pctx, struct pipe_resource *dst,
                             unsigned dst_level, unsigned dstx, unsigned dsty, unsigned dstz,
                             struct pipe_resource *src, unsigned src_level,
                             const struct pipe_box *src_box)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_box box = sgx535g_box(src_box);
   sgx535g_ctx_check(ctx,
                     sgx535_resource_copy_region(ctx->lib, sgx535g_resource_handle(dst), dst_level,
                                                 dstx, dsty, dstz, sgx535g_resource_handle(src),
                                                 src_level, &box),
                     "resource_copy_region");
}

/* The library's blitter: one fenced submission per level (or its own CPU
 * route for what the device kind is not qualified for). Returning false would
 * send st/mesa to its own fallback, which draws through this driver anyway;
 * the library's answer is final. */
static bool
sgx535g_generate_mipmap(struct pipe_context *pctx, struct pipe_resource *pres,
                        enum pipe_format format, unsigned base_level, unsigned last_level,
                        unsigned first_layer, unsigned last_layer)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   uint8_t generated = 0;
   if (!sgx535g_ctx_check(ctx,
                          sgx535_generate_mipmap(ctx->lib, sgx535g_resource_handle(pres), format,
                                                 base_level, last_level, first_layer, last_layer,
                                                 &generated),
                          "generate_mipmap"))
      return false;
   return generated != 0;
}

void
sgx535g_init_draw_functions(struct sgx535g_context *ctx)
{
   struct pipe_context *p = &ctx->base;
   p->draw_vbo = sgx535g_draw_vbo;
   p->clear = sgx535g_clear;
   p->clear_render_target = sgx535g_clear_render_target;
   p->clear_depth_stencil = sgx535g_clear_depth_stencil;
   p->blit = sgx535g_blit;
   p->resource_copy_region = sgx535g_resource_copy_region;
   p->generate_mipmap = sgx535g_generate_mipmap;
}
