/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * The context: one library context, Mesa's upload manager for user data,
 * and util_primconvert for the primitives the library does not draw.
 */
#include "sgx535_screen.h"

#include "indices/u_primconvert.h"
#include "util/log.h"
#include "util/u_debug_cb.h"
#include "util/u_framebuffer.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"
#include "util/u_upload_mgr.h"

void
sgx535g_mark_reset(struct sgx535g_context *ctx, enum pipe_reset_status fallback)
{
   if (ctx->reset_status != PIPE_NO_RESET)
      return;
   uint32_t lib_status = PIPE_NO_RESET;
   if (sgx535_get_device_reset_status(ctx->lib, &lib_status) == SGX535_OK &&
       lib_status != PIPE_NO_RESET)
      ctx->reset_status = (enum pipe_reset_status)lib_status;
   else
      ctx->reset_status = fallback;
   if (ctx->reset_cb.reset)
      ctx->reset_cb.reset(ctx->reset_cb.data, ctx->reset_status);
}

/* Renders of this context that failed (their pixels are lost) reach the
 * application as GL_KHR_debug errors through the debug callback the frontend
 * set (u_default_set_debug_callback), as other Gallium drivers report theirs:
 * a render out of parameter memory as UTIL_DEBUG_TYPE_OUT_OF_MEMORY (the
 * context stays usable, as after GL_OUT_OF_MEMORY), anything else as
 * UTIL_DEBUG_TYPE_ERROR, which also makes get_device_reset_status report the
 * context's work lost. Failures are seen at a later flush, or when a call
 * returns the fault (sgx535g_ctx_check). */
void
sgx535g_report_job_failures(struct sgx535g_context *ctx)
{
   for (;;) {
      sgx535_status error = SGX535_OK;
      char msg[256];
      if (!sgx535g_check(sgx535_take_job_failure(ctx->lib, &error, msg, sizeof(msg)),
                         "take_job_failure") ||
          error == SGX535_OK)
         return;
      mesa_loge("sgx535: %s", msg);
      if (error == SGX535_ERROR_OUT_OF_MEMORY) {
         util_debug_message(&ctx->base.debug, OUT_OF_MEMORY, "sgx535: %s", msg);
      } else {
         util_debug_message(&ctx->base.debug, ERROR, "sgx535: %s", msg);
         sgx535g_mark_reset(ctx, PIPE_GUILTY_CONTEXT_RESET);
      }
   }
}

static void
sgx535g_flush(struct pipe_context *pctx, struct pipe_fence_handle **fence, unsigned flags)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_fence lib_fence = {0};

   if (!sgx535g_ctx_check(ctx, sgx535_flush(ctx->lib, flags, fence ? &lib_fence : NULL), "flush")) {
      if (fence)
         *fence = NULL;
      return;
   }
   sgx535g_report_job_failures(ctx);
   if (fence) {
      struct pipe_fence_handle *wrapped = lib_fence.id ? sgx535g_fence_wrap(lib_fence) : NULL;
      pctx->screen->fence_reference(pctx->screen, fence, NULL);
      *fence = wrapped;
   }
}

static enum pipe_reset_status
sgx535g_get_device_reset_status(struct pipe_context *pctx)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   uint32_t lib_status = PIPE_NO_RESET;
   /* The library knows of device resets (a hang its watchdog ended) and whose job caused
    * them, in pipe_reset_status's numbering; a fault or loss a call returned is kept on the
    * context as unknown. */
   if (sgx535g_check(sgx535_get_device_reset_status(ctx->lib, &lib_status),
                     "get_device_reset_status") &&
       lib_status != PIPE_NO_RESET)
      ctx->reset_status = (enum pipe_reset_status)lib_status;
   return ctx->reset_status;
}

static void
sgx535g_set_device_reset_callback(struct pipe_context *pctx,
                                 const struct pipe_device_reset_callback *cb)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (cb)
      ctx->reset_cb = *cb;
   else
      memset(&ctx->reset_cb, 0, sizeof(ctx->reset_cb));
}

static void
sgx535g_flush_resource(struct pipe_context *pctx, struct pipe_resource *pres)
{
}

static void
sgx535g_context_destroy(struct pipe_context *pctx)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);

   if (ctx->primconvert)
      util_primconvert_destroy(ctx->primconvert);
   util_unreference_framebuffer_state(&ctx->fb);
   for (unsigned i = 0; i < PIPE_MAX_ATTRIBS; i++)
      sgx535g_vb_release(ctx, i);
   for (unsigned s = 0; s < PIPE_SHADER_TYPES; s++) {
      for (unsigned i = 0; i < PIPE_MAX_CONSTANT_BUFFERS; i++)
         pipe_resource_reference(&ctx->cb[s][i], NULL);
      for (unsigned i = 0; i < PIPE_MAX_SHADER_SAMPLER_VIEWS; i++)
         pipe_sampler_view_reference(&ctx->views[s][i], NULL);
   }
   if (pctx->stream_uploader)
      u_upload_destroy(pctx->stream_uploader);
   if (pctx->const_uploader && pctx->const_uploader != pctx->stream_uploader)
      u_upload_destroy(pctx->const_uploader);
   FREE(ctx->spare_staging);
   FREE(ctx->spare_transfer);
   /* The library deletes every object still created on the context. */
   sgx535g_check(sgx535_context_destroy(ctx->lib), "context_destroy");
   FREE(ctx);
}

struct pipe_context *
sgx535g_context_create(struct pipe_screen *pscreen, void *priv, unsigned flags)
{
   struct sgx535g_context *ctx = CALLOC_STRUCT(sgx535g_context);
   if (!ctx)
      return NULL;

   if (!sgx535g_check(sgx535_context_create(sgx535g_screen(pscreen)->lib, &ctx->lib),
                     "context_create")) {
      FREE(ctx);
      return NULL;
   }

   struct pipe_context *p = &ctx->base;
   p->screen = pscreen;
   p->priv = priv;
   p->destroy = sgx535g_context_destroy;
   p->flush = sgx535g_flush;
   p->flush_resource = sgx535g_flush_resource;
   p->get_device_reset_status = sgx535g_get_device_reset_status;
   p->set_device_reset_callback = sgx535g_set_device_reset_callback;
   p->set_debug_callback = u_default_set_debug_callback;
   sgx535g_init_transfer_functions(ctx);
   sgx535g_init_state_functions(ctx);
   sgx535g_init_shader_functions(ctx);
   sgx535g_init_draw_functions(ctx);
   sgx535g_init_query_functions(ctx);

   p->stream_uploader = u_upload_create_default(p);
   if (!p->stream_uploader)
      goto fail;
   p->const_uploader = p->stream_uploader;

   /* The plan of the ABI: POINTS..POLYGON at most (the library's TA takes quads,
    * quad strips and polygons whole, so that glPolygonMode outlines them without
    * their inner diagonals); what the cap does not claim is converted here. */
   unsigned prims = pscreen->get_param(pscreen, PIPE_CAP_SUPPORTED_PRIM_MODES) &
                    BITFIELD_MASK(PIPE_PRIM_POLYGON + 1);
   ctx->primconvert_modes = prims;
   ctx->primconvert = util_primconvert_create(p, prims);
   if (!ctx->primconvert)
      goto fail;
   return p;

fail:
   sgx535g_context_destroy(p);
   return NULL;
}
