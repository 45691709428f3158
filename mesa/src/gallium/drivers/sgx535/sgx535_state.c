/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Constant state objects and parameter state: Gallium's structs copied field
 * by field into the ABI's plain structs (same enum numbering), one call each.
 * A CSO the library refuses still gets an object (Gallium has no way to
 * refuse one); binding it unbinds, and the draw that needs it fails in the
 * library with a clear error.
 */
#include "sgx535_screen.h"

#include "indices/u_primconvert.h"
#include "util/u_inlines.h"
#include "util/u_framebuffer.h"
#include "util/u_memory.h"

struct sgx535g_cso_obj {
   sgx535_cso lib;
};

struct sgx535g_rasterizer_obj {
   sgx535_cso lib;
   struct pipe_rasterizer_state state; /* util_primconvert needs it */
};

static void *
sgx535g_wrap_cso(struct sgx535g_context *ctx, sgx535_status st, sgx535_cso lib, const char *call)
{
   struct sgx535g_cso_obj *obj = CALLOC_STRUCT(sgx535g_cso_obj);
   if (!obj)
      return NULL;
   if (sgx535g_ctx_check(ctx, st, call))
      obj->lib = lib;
   return obj;
}

static sgx535_cso
sgx535g_cso_handle(void *obj)
{
   return obj ? ((struct sgx535g_cso_obj *)obj)->lib : (sgx535_cso){0};
}

/* ---- blend ---- */

static void *
sgx535g_create_blend_state(struct pipe_context *pctx, const struct pipe_blend_state *b)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   const struct pipe_rt_blend_state *rt = &b->rt[0];
   sgx535_blend_state s = {
      .blend_enable = rt->blend_enable,
      .rgb_func = rt->rgb_func,
      .rgb_src_factor = rt->rgb_src_factor,
      .rgb_dst_factor = rt->rgb_dst_factor,
      .alpha_func = rt->alpha_func,
      .alpha_src_factor = rt->alpha_src_factor,
      .alpha_dst_factor = rt->alpha_dst_factor,
      .colormask = rt->colormask,
      .logicop_enable = b->logicop_enable,
      .logicop_func = b->logicop_func,
      .dither = b->dither,
      .alpha_to_coverage = b->alpha_to_coverage,
   };
   /* With blending off Gallium leaves the factors unset (0, not a factor);
    * the library checks every field, so the unused ones get their identity. */
   if (!rt->blend_enable) {
      s.rgb_func = s.alpha_func = PIPE_BLEND_ADD;
      s.rgb_src_factor = s.alpha_src_factor = PIPE_BLENDFACTOR_ONE;
      s.rgb_dst_factor = s.alpha_dst_factor = PIPE_BLENDFACTOR_ZERO;
   }
   sgx535_cso lib = {0};
   return sgx535g_wrap_cso(ctx, sgx535_create_blend_state(ctx->lib, &s, &lib), lib,
                          "create_blend_state");
}

static void
sgx535g_bind_blend_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_bind_blend_state(ctx->lib, sgx535g_cso_handle(obj)),
                    "bind_blend_state");
}

static void
sgx535g_delete_blend_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (sgx535g_cso_handle(obj).id)
      sgx535g_check(sgx535_delete_blend_state(ctx->lib, sgx535g_cso_handle(obj)),
                   "delete_blend_state");
   FREE(obj);
}

/* ---- depth, stencil, alpha ---- */

static void *
sgx535g_create_dsa_state(struct pipe_context *pctx, const struct pipe_depth_stencil_alpha_state *d)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_depth_stencil_alpha_state s = {
      .depth_enabled = d->depth_enabled,
      .depth_writemask = d->depth_writemask,
      .depth_func = d->depth_func,
      .alpha_enabled = d->alpha_enabled,
      .alpha_func = d->alpha_func,
      .alpha_ref_value = d->alpha_ref_value,
   };
   for (unsigned i = 0; i < 2; i++) {
      s.stencil[i] = (sgx535_stencil_state){
         .enabled = d->stencil[i].enabled,
         .func = d->stencil[i].func,
         .fail_op = d->stencil[i].fail_op,
         .zpass_op = d->stencil[i].zpass_op,
         .zfail_op = d->stencil[i].zfail_op,
         .valuemask = d->stencil[i].valuemask,
         .writemask = d->stencil[i].writemask,
      };
   }
   sgx535_cso lib = {0};
   return sgx535g_wrap_cso(ctx, sgx535_create_depth_stencil_alpha_state(ctx->lib, &s, &lib), lib,
                          "create_depth_stencil_alpha_state");
}

static void
sgx535g_bind_dsa_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_bind_depth_stencil_alpha_state(ctx->lib, sgx535g_cso_handle(obj)),
                    "bind_depth_stencil_alpha_state");
}

static void
sgx535g_delete_dsa_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (sgx535g_cso_handle(obj).id)
      sgx535g_check(sgx535_delete_depth_stencil_alpha_state(ctx->lib, sgx535g_cso_handle(obj)),
                   "delete_depth_stencil_alpha_state");
   FREE(obj);
}

/* ---- rasterizer ---- */

static void *
sgx535g_create_rasterizer_state(struct pipe_context *pctx, const struct pipe_rasterizer_state *r)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_rasterizer_obj *obj = CALLOC_STRUCT(sgx535g_rasterizer_obj);
   if (!obj)
      return NULL;
   obj->state = *r;

   sgx535_rasterizer_state s = {
      .flatshade = r->flatshade,
      .light_twoside = r->light_twoside,
      .front_ccw = r->front_ccw,
      .cull_face = r->cull_face,
      .fill_front = r->fill_front,
      .fill_back = r->fill_back,
      .offset_point = r->offset_point,
      .offset_line = r->offset_line,
      .offset_tri = r->offset_tri,
      .scissor = r->scissor,
      .poly_smooth = r->poly_smooth,
      .poly_stipple_enable = r->poly_stipple_enable,
      .point_smooth = r->point_smooth,
      .sprite_coord_mode = r->sprite_coord_mode,
      .point_quad_rasterization = r->point_quad_rasterization,
      .point_size_per_vertex = r->point_size_per_vertex,
      .multisample = r->multisample,
      .line_smooth = r->line_smooth,
      .line_stipple_enable = r->line_stipple_enable,
      .flatshade_first = r->flatshade_first,
      .half_pixel_center = r->half_pixel_center,
      .bottom_edge_rule = r->bottom_edge_rule,
      .rasterizer_discard = r->rasterizer_discard,
      .depth_clip_near = r->depth_clip_near,
      .depth_clip_far = r->depth_clip_far,
      .clip_halfz = r->clip_halfz,
      .clip_plane_enable = r->clip_plane_enable,
      .line_stipple_factor = r->line_stipple_factor,
      .sprite_coord_enable = r->sprite_coord_enable,
      .line_stipple_pattern = r->line_stipple_pattern,
      .line_width = r->line_width,
      .point_size = r->point_size,
      .offset_units = r->offset_units,
      .offset_scale = r->offset_scale,
      .offset_clamp = r->offset_clamp,
   };
   sgx535_status st = sgx535_create_rasterizer_state(ctx->lib, &s, &obj->lib);
   if (!sgx535g_ctx_check(ctx, st, "create_rasterizer_state"))
      obj->lib.id = 0;
   return obj;
}

static void
sgx535g_bind_rasterizer_state(struct pipe_context *pctx, void *pobj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_rasterizer_obj *obj = pobj;
   sgx535g_ctx_check(ctx, sgx535_bind_rasterizer_state(ctx->lib, obj ? obj->lib : (sgx535_cso){0}),
                    "bind_rasterizer_state");
   if (obj)
      util_primconvert_save_rasterizer_state(ctx->primconvert, &obj->state);
}

static void
sgx535g_delete_rasterizer_state(struct pipe_context *pctx, void *pobj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_rasterizer_obj *obj = pobj;
   if (obj->lib.id)
      sgx535g_check(sgx535_delete_rasterizer_state(ctx->lib, obj->lib), "delete_rasterizer_state");
   FREE(obj);
}

/* ---- samplers ---- */

static void *
sgx535g_create_sampler_state(struct pipe_context *pctx, const struct pipe_sampler_state *p)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_sampler_state s = {
      .wrap_s = p->wrap_s,
      .wrap_t = p->wrap_t,
      .wrap_r = p->wrap_r,
      .min_img_filter = p->min_img_filter,
      .min_mip_filter = p->min_mip_filter,
      .mag_img_filter = p->mag_img_filter,
      .compare_mode = p->compare_mode,
      .compare_func = p->compare_func,
      .normalized_coords = !p->unnormalized_coords,
      .max_anisotropy = p->max_anisotropy,
      .seamless_cube_map = p->seamless_cube_map,
      .lod_bias = p->lod_bias,
      .min_lod = p->min_lod,
      .max_lod = p->max_lod,
   };
   memcpy(s.border_color, p->border_color.f, sizeof(s.border_color));
   sgx535_cso lib = {0};
   return sgx535g_wrap_cso(ctx, sgx535_create_sampler_state(ctx->lib, &s, &lib), lib,
                          "create_sampler_state");
}

static void
sgx535g_bind_sampler_states(struct pipe_context *pctx, enum pipe_shader_type shader,
                           unsigned start, unsigned count, void **samplers)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_cso handles[PIPE_MAX_SAMPLERS] = {0};
   count = MIN2(count, PIPE_MAX_SAMPLERS);
   for (unsigned i = 0; i < count; i++)
      handles[i] = sgx535g_cso_handle(samplers ? samplers[i] : NULL);
   sgx535g_ctx_check(ctx, sgx535_bind_sampler_states(ctx->lib, shader, start, count, handles),
                    "bind_sampler_states");
}

static void
sgx535g_delete_sampler_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (sgx535g_cso_handle(obj).id)
      sgx535g_check(sgx535_delete_sampler_state(ctx->lib, sgx535g_cso_handle(obj)),
                   "delete_sampler_state");
   FREE(obj);
}

/* ---- vertex elements ---- */

static void *
sgx535g_create_vertex_elements_state(struct pipe_context *pctx, unsigned count,
                                    const struct pipe_vertex_element *elements)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_vertex_element e[PIPE_MAX_ATTRIBS];
   count = MIN2(count, PIPE_MAX_ATTRIBS);
   for (unsigned i = 0; i < count; i++) {
      e[i] = (sgx535_vertex_element){
         .src_offset = elements[i].src_offset,
         .vertex_buffer_index = elements[i].vertex_buffer_index,
         .src_format = elements[i].src_format,
         .instance_divisor = elements[i].instance_divisor,
      };
   }
   sgx535_cso lib = {0};
   return sgx535g_wrap_cso(ctx, sgx535_create_vertex_elements_state(ctx->lib, count, e, &lib), lib,
                          "create_vertex_elements_state");
}

static void
sgx535g_bind_vertex_elements_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_bind_vertex_elements_state(ctx->lib, sgx535g_cso_handle(obj)),
                    "bind_vertex_elements_state");
}

static void
sgx535g_delete_vertex_elements_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (sgx535g_cso_handle(obj).id)
      sgx535g_check(sgx535_delete_vertex_elements_state(ctx->lib, sgx535g_cso_handle(obj)),
                   "delete_vertex_elements_state");
   FREE(obj);
}

/* ---- parameter state ---- */

static void
sgx535g_set_constant_buffer(struct pipe_context *pctx, enum pipe_shader_type shader, uint index,
                           bool take_ownership, const struct pipe_constant_buffer *cb)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (!cb) {
      sgx535g_ctx_check(ctx, sgx535_set_constant_buffer(ctx->lib, shader, index, NULL),
                       "set_constant_buffer");
      if (index < PIPE_MAX_CONSTANT_BUFFERS)
         pipe_resource_reference(&ctx->cb[shader][index], NULL);
      return;
   }
   sgx535_constant_buffer c = {
      .buffer = sgx535g_resource_handle(cb->buffer),
      .buffer_offset = cb->buffer_offset,
      .buffer_size = cb->buffer_size,
      .user_buffer = cb->user_buffer,
   };
   sgx535g_ctx_check(ctx, sgx535_set_constant_buffer(ctx->lib, shader, index, &c),
                    "set_constant_buffer");
   if (index < PIPE_MAX_CONSTANT_BUFFERS) {
      if (take_ownership) {
         pipe_resource_reference(&ctx->cb[shader][index], NULL);
         ctx->cb[shader][index] = cb->buffer;
      } else {
         pipe_resource_reference(&ctx->cb[shader][index], cb->buffer);
      }
   }
}

static void
sgx535g_set_framebuffer_state(struct pipe_context *pctx, const struct pipe_framebuffer_state *fb)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_framebuffer_state f = {
      .width = fb->width,
      .height = fb->height,
      .nr_cbufs = fb->nr_cbufs,
      .zsbuf = sgx535g_surface_handle(fb->zsbuf),
   };
   for (unsigned i = 0; i < fb->nr_cbufs && i < 8; i++)
      f.cbufs[i] = sgx535g_surface_handle(fb->cbufs[i]);
   sgx535g_ctx_check(ctx, sgx535_set_framebuffer_state(ctx->lib, &f), "set_framebuffer_state");
   util_copy_framebuffer_state(&ctx->fb, fb);
}

static void
sgx535g_set_viewport_states(struct pipe_context *pctx, unsigned start, unsigned count,
                           const struct pipe_viewport_state *vp)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_viewport_state v[PIPE_MAX_VIEWPORTS];
   count = MIN2(count, PIPE_MAX_VIEWPORTS);
   for (unsigned i = 0; i < count; i++) {
      memcpy(v[i].scale, vp[i].scale, sizeof(v[i].scale));
      memcpy(v[i].translate, vp[i].translate, sizeof(v[i].translate));
   }
   sgx535g_ctx_check(ctx, sgx535_set_viewport_states(ctx->lib, start, count, v),
                    "set_viewport_states");
}

static void
sgx535g_set_scissor_states(struct pipe_context *pctx, unsigned start, unsigned count,
                          const struct pipe_scissor_state *sc)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_scissor_state s[PIPE_MAX_VIEWPORTS];
   count = MIN2(count, PIPE_MAX_VIEWPORTS);
   for (unsigned i = 0; i < count; i++)
      s[i] = (sgx535_scissor_state){sc[i].minx, sc[i].miny, sc[i].maxx, sc[i].maxy};
   sgx535g_ctx_check(ctx, sgx535_set_scissor_states(ctx->lib, start, count, s),
                    "set_scissor_states");
}

static void
sgx535g_set_stencil_ref(struct pipe_context *pctx, const struct pipe_stencil_ref ref)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_stencil_ref r = {{ref.ref_value[0], ref.ref_value[1]}};
   sgx535g_ctx_check(ctx, sgx535_set_stencil_ref(ctx->lib, r), "set_stencil_ref");
}

static void
sgx535g_set_blend_color(struct pipe_context *pctx, const struct pipe_blend_color *color)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_blend_color c;
   memcpy(c.color, color->color, sizeof(c.color));
   sgx535g_ctx_check(ctx, sgx535_set_blend_color(ctx->lib, &c), "set_blend_color");
}

static void
sgx535g_set_sample_mask(struct pipe_context *pctx, unsigned mask)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_set_sample_mask(ctx->lib, mask), "set_sample_mask");
}

static void
sgx535g_set_clip_state(struct pipe_context *pctx, const struct pipe_clip_state *clip)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_clip_state c;
   memcpy(c.ucp, clip->ucp, sizeof(c.ucp));
   sgx535g_ctx_check(ctx, sgx535_set_clip_state(ctx->lib, &c), "set_clip_state");
}

static void
sgx535g_set_polygon_stipple(struct pipe_context *pctx, const struct pipe_poly_stipple *stipple)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_poly_stipple s;
   memcpy(s.stipple, stipple->stipple, sizeof(s.stipple));
   sgx535g_ctx_check(ctx, sgx535_set_polygon_stipple(ctx->lib, &s), "set_polygon_stipple");
}

/* Drops the references kept beyond vertex buffer slot `slot`'s own, in one
 * locked operation: the slot's own remains, so the count does not reach
 * zero. */
static void
sgx535g_vb_release_extra(struct sgx535g_context *ctx, unsigned slot)
{
   if (ctx->vb[slot] && ctx->vb_extra_refs[slot])
      p_atomic_add(&ctx->vb[slot]->reference.count, -(int)ctx->vb_extra_refs[slot]);
   ctx->vb_extra_refs[slot] = 0;
}

/* Unbinds vertex buffer slot `slot`: every reference it holds goes. */
void
sgx535g_vb_release(struct sgx535g_context *ctx, unsigned slot)
{
   sgx535g_vb_release_extra(ctx, slot);
   pipe_resource_reference(&ctx->vb[slot], NULL);
}

static void
sgx535g_set_vertex_buffers(struct pipe_context *pctx, unsigned start, unsigned count,
                          unsigned unbind_trailing, bool take_ownership,
                          const struct pipe_vertex_buffer *buffers)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_vertex_buffer vb[PIPE_MAX_ATTRIBS];
   count = MIN2(count, PIPE_MAX_ATTRIBS);
   /* The trailing slots to unbind go in the same call, as entries naming no
    * buffer: u_vbuf unbinds one whenever a draw has fewer buffers than the one
    * before, and a second call was a second lock and lookup (drawoverhead's
    * test 6 alternates). */
   unsigned n = MIN2(count + unbind_trailing, PIPE_MAX_ATTRIBS - MIN2(start, PIPE_MAX_ATTRIBS));

   for (unsigned i = 0; i < n; i++) {
      const struct pipe_vertex_buffer *b = buffers && i < count ? &buffers[i] : NULL;
      if (!b) {
         vb[i] = (sgx535_vertex_buffer){0};
      } else {
         vb[i] = (sgx535_vertex_buffer){
            .stride = b->stride,
            .buffer_offset = b->buffer_offset,
            .buffer = b->is_user_buffer ? (sgx535_resource){0}
                                        : sgx535g_resource_handle(b->buffer.resource),
            .user_buffer = b->is_user_buffer ? b->buffer.user : NULL,
            /* User arrays never reach here: PIPE_CAP_USER_VERTEX_BUFFERS is
             * the library's, and u_vbuf uploads them when it is 0. */
            .user_size = 0,
         };
      }
   }
   bool same = true;
   for (unsigned i = 0; i < n && same; i++) {
      const sgx535_vertex_buffer *was = &ctx->vb_set[start + i];
      same = !vb[i].user_buffer && vb[i].buffer.id == was->buffer.id &&
             vb[i].stride == was->stride && vb[i].buffer_offset == was->buffer_offset &&
             !was->user_buffer && !was->user_size;
   }
   if (n && !same) {
      bool ok = sgx535g_ctx_check(ctx, sgx535_set_vertex_buffers(ctx->lib, start, n, vb),
                                  "set_vertex_buffers");
      for (unsigned i = 0; i < n; i++) {
         ctx->vb_set[start + i] = vb[i];
         /* A refused call may have left any binding: the next one is made. */
         if (!ok)
            ctx->vb_set[start + i].user_size = ~(uint64_t)0;
      }
   }
   for (unsigned i = 0; i < count && start + i < PIPE_MAX_ATTRIBS; i++) {
      unsigned slot = start + i;
      struct pipe_resource *r =
         buffers && !buffers[i].is_user_buffer ? buffers[i].buffer.resource : NULL;
      if (r && r == ctx->vb[slot]) {
         /* The buffer the slot holds: a reference handed over is kept (a
          * locked decrement per draw was 40% of this function in
          * drawoverhead's test 5), a bounded number of them. */
         if (take_ownership && ++ctx->vb_extra_refs[slot] >= (1u << 20))
            sgx535g_vb_release_extra(ctx, slot);
      } else if (take_ownership) {
         sgx535g_vb_release(ctx, slot);
         ctx->vb[slot] = r;
      } else {
         sgx535g_vb_release(ctx, slot);
         pipe_resource_reference(&ctx->vb[slot], r);
      }
   }
   for (unsigned i = start + count; i < start + count + unbind_trailing && i < PIPE_MAX_ATTRIBS; i++)
      sgx535g_vb_release(ctx, i);
}

/* ---- sampler views and surfaces ---- */

static struct pipe_sampler_view *
sgx535g_create_sampler_view(struct pipe_context *pctx, struct pipe_resource *pres,
                           const struct pipe_sampler_view *templ)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_sampler_view *view = CALLOC_STRUCT(sgx535g_sampler_view);
   if (!view)
      return NULL;

   sgx535_sampler_view_template t = {
      .format = templ->format,
      .first_level = pres->target == PIPE_BUFFER ? 0 : templ->u.tex.first_level,
      .last_level = pres->target == PIPE_BUFFER ? 0 : templ->u.tex.last_level,
      .swizzle_r = templ->swizzle_r,
      .swizzle_g = templ->swizzle_g,
      .swizzle_b = templ->swizzle_b,
      .swizzle_a = templ->swizzle_a,
   };
   if (!sgx535g_ctx_check(ctx,
                         sgx535_create_sampler_view(ctx->lib, sgx535g_resource_handle(pres), &t,
                                                    &view->lib),
                         "create_sampler_view")) {
      FREE(view);
      return NULL;
   }
   view->base = *templ;
   pipe_reference_init(&view->base.reference, 1);
   view->base.texture = NULL;
   pipe_resource_reference(&view->base.texture, pres);
   view->base.context = pctx;
   return &view->base;
}

static void
sgx535g_sampler_view_destroy(struct pipe_context *pctx, struct pipe_sampler_view *pview)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_sampler_view *view = (struct sgx535g_sampler_view *)pview;
   sgx535g_check(sgx535_sampler_view_destroy(ctx->lib, view->lib), "sampler_view_destroy");
   pipe_resource_reference(&view->base.texture, NULL);
   FREE(view);
}

static void
sgx535g_set_sampler_views(struct pipe_context *pctx, enum pipe_shader_type shader, unsigned start,
                         unsigned count, unsigned unbind_trailing, bool take_ownership,
                         struct pipe_sampler_view **views)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_sampler_view v[PIPE_MAX_SHADER_SAMPLER_VIEWS] = {0};
   count = MIN2(count, PIPE_MAX_SHADER_SAMPLER_VIEWS);
   for (unsigned i = 0; i < count; i++) {
      if (views && views[i])
         v[i] = ((struct sgx535g_sampler_view *)views[i])->lib;
   }
   if (count)
      sgx535g_ctx_check(ctx, sgx535_set_sampler_views(ctx->lib, shader, start, count, v),
                       "set_sampler_views");
   if (unbind_trailing)
      sgx535g_ctx_check(ctx,
                       sgx535_set_sampler_views(ctx->lib, shader, start + count, unbind_trailing,
                                                NULL),
                       "set_sampler_views");
   for (unsigned i = 0; i < count && start + i < PIPE_MAX_SHADER_SAMPLER_VIEWS; i++) {
      struct pipe_sampler_view **slot = &ctx->views[shader][start + i];
      struct pipe_sampler_view *view = views ? views[i] : NULL;
      if (take_ownership) {
         pipe_sampler_view_reference(slot, NULL);
         *slot = view;
      } else {
         pipe_sampler_view_reference(slot, view);
      }
   }
   for (unsigned i = start + count;
        i < start + count + unbind_trailing && i < PIPE_MAX_SHADER_SAMPLER_VIEWS; i++)
      pipe_sampler_view_reference(&ctx->views[shader][i], NULL);
}

static struct pipe_surface *
sgx535g_create_surface(struct pipe_context *pctx, struct pipe_resource *pres,
                      const struct pipe_surface *templ)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_surface *surf = CALLOC_STRUCT(sgx535g_surface);
   if (!surf)
      return NULL;

   sgx535_surface_template t = {
      .format = templ->format,
      .level = templ->u.tex.level,
      .first_layer = templ->u.tex.first_layer,
      .last_layer = templ->u.tex.last_layer,
   };
   if (!sgx535g_ctx_check(ctx,
                         sgx535_create_surface(ctx->lib, sgx535g_resource_handle(pres), &t,
                                               &surf->lib),
                         "create_surface")) {
      FREE(surf);
      return NULL;
   }
   pipe_reference_init(&surf->base.reference, 1);
   pipe_resource_reference(&surf->base.texture, pres);
   surf->base.context = pctx;
   surf->base.format = templ->format;
   surf->base.width = u_minify(pres->width0, templ->u.tex.level);
   surf->base.height = u_minify(pres->height0, templ->u.tex.level);
   surf->base.u.tex = templ->u.tex;
   return &surf->base;
}

static void
sgx535g_surface_destroy(struct pipe_context *pctx, struct pipe_surface *psurf)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_surface *surf = (struct sgx535g_surface *)psurf;
   sgx535g_check(sgx535_surface_destroy(ctx->lib, surf->lib), "surface_destroy");
   pipe_resource_reference(&surf->base.texture, NULL);
   FREE(surf);
}

void
sgx535g_init_state_functions(struct sgx535g_context *ctx)
{
   struct pipe_context *p = &ctx->base;
   p->create_blend_state = sgx535g_create_blend_state;
   p->bind_blend_state = sgx535g_bind_blend_state;
   p->delete_blend_state = sgx535g_delete_blend_state;
   p->create_depth_stencil_alpha_state = sgx535g_create_dsa_state;
   p->bind_depth_stencil_alpha_state = sgx535g_bind_dsa_state;
   p->delete_depth_stencil_alpha_state = sgx535g_delete_dsa_state;
   p->create_rasterizer_state = sgx535g_create_rasterizer_state;
   p->bind_rasterizer_state = sgx535g_bind_rasterizer_state;
   p->delete_rasterizer_state = sgx535g_delete_rasterizer_state;
   p->create_sampler_state = sgx535g_create_sampler_state;
   p->bind_sampler_states = sgx535g_bind_sampler_states;
   p->delete_sampler_state = sgx535g_delete_sampler_state;
   p->create_vertex_elements_state = sgx535g_create_vertex_elements_state;
   p->bind_vertex_elements_state = sgx535g_bind_vertex_elements_state;
   p->delete_vertex_elements_state = sgx535g_delete_vertex_elements_state;
   p->set_constant_buffer = sgx535g_set_constant_buffer;
   p->set_framebuffer_state = sgx535g_set_framebuffer_state;
   p->set_viewport_states = sgx535g_set_viewport_states;
   p->set_scissor_states = sgx535g_set_scissor_states;
   p->set_stencil_ref = sgx535g_set_stencil_ref;
   p->set_blend_color = sgx535g_set_blend_color;
   p->set_sample_mask = sgx535g_set_sample_mask;
   p->set_clip_state = sgx535g_set_clip_state;
   p->set_polygon_stipple = sgx535g_set_polygon_stipple;
   p->set_vertex_buffers = sgx535g_set_vertex_buffers;
   p->create_sampler_view = sgx535g_create_sampler_view;
   p->sampler_view_destroy = sgx535g_sampler_view_destroy;
   p->set_sampler_views = sgx535g_set_sampler_views;
   p->create_surface = sgx535g_create_surface;
   p->surface_destroy = sgx535g_surface_destroy;
}
