/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * CPU access: the library maps a linear staging copy of the box (waiting for
 * the GPU's writes first) and writes it back at unmap when mapped for
 * writing; flush_region has nothing left to do.
 */
#include "sgx535_screen.h"

#include "util/u_inlines.h"
#include "util/u_memory.h"

static sgx535_box
sgx535g_box_from_pipe(const struct pipe_box *b)
{
   return (sgx535_box){b->x, b->y, b->z, b->width, b->height, b->depth};
}

static void *
sgx535g_map(struct pipe_context *pctx, struct pipe_resource *pres, unsigned level, unsigned usage,
           const struct pipe_box *box, struct pipe_transfer **out)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_transfer *t = CALLOC_STRUCT(sgx535g_transfer);
   sgx535_box b = sgx535g_box_from_pipe(box);
   void *ptr = NULL;
   uint32_t stride_B = 0;
   uint64_t layer_stride_B = 0;

   *out = NULL;
   if (!t)
      return NULL;
   if (!sgx535g_ctx_check(ctx,
                         sgx535_transfer_map(ctx->lib, sgx535g_resource_handle(pres), level, usage,
                                             &b, &t->lib, &ptr, &stride_B, &layer_stride_B),
                         "transfer_map")) {
      FREE(t);
      return NULL;
   }
   pipe_resource_reference(&t->base.resource, pres);
   t->base.level = level;
   t->base.usage = usage;
   t->base.box = *box;
   t->base.stride = stride_B;
   t->base.layer_stride = layer_stride_B;
   *out = &t->base;
   return ptr;
}

static void
sgx535g_unmap(struct pipe_context *pctx, struct pipe_transfer *ptrans)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_transfer *t = (struct sgx535g_transfer *)ptrans;

   sgx535g_ctx_check(ctx, sgx535_transfer_unmap(ctx->lib, t->lib), "transfer_unmap");
   pipe_resource_reference(&t->base.resource, NULL);
   FREE(t);
}

static void
sgx535g_transfer_flush_region(struct pipe_context *pctx, struct pipe_transfer *ptrans,
                             const struct pipe_box *box)
{
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
