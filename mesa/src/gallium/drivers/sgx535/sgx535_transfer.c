/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * CPU access: the library maps a linear staging copy of the box (waiting for
 * the GPU's writes first) and writes it back at unmap when mapped for
 * writing. A write-only FLUSH_EXPLICIT buffer map is the exception: Mesa's
 * u_upload_mgr maps the rest of its upload buffer that way for every draw and
 * writes a few bytes of it, and staging the whole range in the library (a
 * zeroed copy, then all of it written back) was 84% of a draw's CPU time in
 * piglit's drawoverhead. Such a map hands out memory of the driver's own, and
 * each flush_region writes just its range with an unsynchronized
 * buffer_subdata (which is what the caller promised); unmap writes nothing
 * more, as Gallium leaves unflushed bytes undefined.
 */
#include "sgx535_screen.h"

#include "util/u_inlines.h"
#include "util/u_memory.h"

#include <string.h>

static sgx535_box
sgx535g_box_from_pipe(const struct pipe_box *b)
{
   return (sgx535_box){b->x, b->y, b->z, b->width, b->height, b->depth};
}

/* Fills the Gallium side of a mapped transfer (a reference to `pres`, what was
 * mapped, rows `stride_B` and layers `layer_stride_B` apart) and hands it out
 * through `out`. */
static void
sgx535g_transfer_hand_out(struct sgx535g_transfer *t, struct pipe_resource *pres, unsigned level,
                          unsigned usage, const struct pipe_box *box, unsigned stride_B,
                          uint64_t layer_stride_B, struct pipe_transfer **out)
{
   pipe_resource_reference(&t->base.resource, pres);
   t->base.level = level;
   t->base.usage = usage;
   t->base.box = *box;
   t->base.stride = stride_B;
   t->base.layer_stride = layer_stride_B;
   *out = &t->base;
}

static void *
sgx535g_map(struct pipe_context *pctx, struct pipe_resource *pres, unsigned level, unsigned usage,
           const struct pipe_box *box, struct pipe_transfer **out)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_transfer *t = ctx->spare_transfer;
   sgx535_box b = sgx535g_box_from_pipe(box);
   void *ptr = NULL;
   uint32_t stride_B = 0;
   uint64_t layer_stride_B = 0;

   *out = NULL;
   if (t) {
      ctx->spare_transfer = NULL;
      memset(t, 0, sizeof(*t));
   } else {
      t = CALLOC_STRUCT(sgx535g_transfer);
      if (!t)
         return NULL;
   }
   if (pres->target == PIPE_BUFFER && (usage & PIPE_MAP_FLUSH_EXPLICIT) &&
       (usage & PIPE_MAP_WRITE) && !(usage & PIPE_MAP_READ) && box->width > 0) {
      if (ctx->spare_staging && ctx->spare_staging_B >= (unsigned)box->width) {
         t->explicit_staging = ctx->spare_staging;
         t->explicit_staging_B = ctx->spare_staging_B;
         /* The spare is the transfer's now: with its size left behind, the unmap
          * below found the spare no smaller and freed the buffer, so every other
          * draw allocated and freed a megabyte (drawoverhead's test 6). */
         ctx->spare_staging = NULL;
         ctx->spare_staging_B = 0;
      } else {
         t->explicit_staging = MALLOC(box->width);
         t->explicit_staging_B = box->width;
      }
      if (!t->explicit_staging) {
         FREE(t);
         return NULL;
      }
      sgx535g_transfer_hand_out(t, pres, level, usage, box, box->width, box->width, out);
      return t->explicit_staging;
   }
   if (!sgx535g_ctx_check(ctx,
                         sgx535_transfer_map(ctx->lib, sgx535g_resource_handle(pres), level, usage,
                                             &b, &t->lib, &ptr, &stride_B, &layer_stride_B),
                         "transfer_map")) {
      FREE(t);
      return NULL;
   }
   sgx535g_transfer_hand_out(t, pres, level, usage, box, stride_B, layer_stride_B, out);
   return ptr;
}

static void
sgx535g_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_transfer *t = (struct sgx535g_transfer *)ptrans;

   if (t->explicit_staging) {
      /* Keep the larger of the two for the next map. */
      if (ctx->spare_staging_B < t->explicit_staging_B) {
         FREE(ctx->spare_staging);
         ctx->spare_staging = t->explicit_staging;
         ctx->spare_staging_B = t->explicit_staging_B;
      } else {
         FREE(t->explicit_staging);
      }
   } else
      sgx535g_ctx_check(ctx, sgx535_transfer_unmap(ctx->lib, t->lib), "transfer_unmap");
   pipe_resource_reference(&t->base.resource, NULL);
   if (!ctx->spare_transfer)
      ctx->spare_transfer = t;
   else
      FREE(t);
}

static void
sgx535g_transfer_flush_region(struct pipe_context *pctx, struct pipe_transfer *ptrans,
                             const struct pipe_box *box)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_transfer *t = (struct sgx535g_transfer *)ptrans;

   /* Other maps write their whole staging copy back at unmap. */
   if (!t->explicit_staging || box->width <= 0)
      return;
   /* `box` is relative to the mapped range; the caller promised no GPU work
    * uses these bytes, so they are written without a wait, in one call. */
   sgx535g_ctx_check(ctx,
                     sgx535_buffer_subdata(ctx->lib, sgx535g_resource_handle(ptrans->resource),
                                           PIPE_MAP_WRITE | PIPE_MAP_DISCARD_RANGE |
                                              PIPE_MAP_UNSYNCHRONIZED,
                                           t->base.box.x + box->x, box->width,
                                           t->explicit_staging + box->x),
                     "buffer_subdata (flush_region)");
}

static void
sgx535g_buffer_subdata(struct pipe_context *pctx, struct pipe_resource *pres, unsigned usage,
                      unsigned offset, unsigned size, const void *data)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx,
                    sgx535_buffer_subdata(ctx->lib, sgx535g_resource_handle(pres), usage, offset,
                                          size, data),
                    "buffer_subdata");
}

static void
sgx535g_texture_subdata(struct pipe_context *pctx, struct pipe_resource *pres, unsigned level,
                       unsigned usage, const struct pipe_box *box, const void *data,
                       unsigned stride, unsigned layer_stride)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_box b = sgx535g_box_from_pipe(box);
   sgx535g_ctx_check(ctx,
                    sgx535_texture_subdata(ctx->lib, sgx535g_resource_handle(pres), level, usage,
                                           &b, data, stride, layer_stride),
                    "texture_subdata");
}

void
sgx535g_init_transfer_functions(struct sgx535g_context *ctx)
{
   ctx->base.buffer_map = sgx535g_map;
   ctx->base.texture_map = sgx535g_map;
   ctx->base.buffer_unmap = sgx535g_unmap;
   ctx->base.texture_unmap = sgx535g_unmap;
   ctx->base.transfer_flush_region = sgx535g_transfer_flush_region;
   ctx->base.buffer_subdata = sgx535g_buffer_subdata;
   ctx->base.texture_subdata = sgx535g_texture_subdata;
}
