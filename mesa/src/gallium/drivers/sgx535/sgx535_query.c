/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Queries and conditional rendering: the library latches at begin and reads
 * once at end; the glue only converts the result to Gallium's union.
 */
#include "sgx535_screen.h"

#include "util/u_memory.h"

static struct pipe_query *
sgx535g_create_query(struct pipe_context *pctx, unsigned type, unsigned index)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_query *q = CALLOC_STRUCT(sgx535g_query);
   if (!q)
      return NULL;
   q->type = type;
   if (!sgx535g_ctx_check(ctx, sgx535_create_query(ctx->lib, type, index, &q->lib),
                          "create_query")) {
      FREE(q);
      return NULL;
   }
   return (struct pipe_query *)q;
}

static void
sgx535g_destroy_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_query *q = (struct sgx535g_query *)pq;
   sgx535g_check(sgx535_destroy_query(ctx->lib, q->lib), "destroy_query");
   FREE(q);
}

static bool
sgx535g_begin_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_query *q = (struct sgx535g_query *)pq;
   return sgx535g_ctx_check(ctx, sgx535_begin_query(ctx->lib, q->lib), "begin_query");
}

static bool
sgx535g_end_query(struct pipe_context *pctx, struct pipe_query *pq)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_query *q = (struct sgx535g_query *)pq;
   return sgx535g_ctx_check(ctx, sgx535_end_query(ctx->lib, q->lib), "end_query");
}

static bool
sgx535g_get_query_result(struct pipe_context *pctx, struct pipe_query *pq, bool wait,
                         union pipe_query_result *result)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_query *q = (struct sgx535g_query *)pq;
   uint8_t ready = 0;
   uint64_t value = 0;

   if (!sgx535g_ctx_check(ctx, sgx535_get_query_result(ctx->lib, q->lib, wait, &ready, &value),
                          "get_query_result"))
      return false;
   if (!ready)
      return false;
   switch (q->type) {
   case PIPE_QUERY_OCCLUSION_PREDICATE:
   case PIPE_QUERY_OCCLUSION_PREDICATE_CONSERVATIVE:
   case PIPE_QUERY_GPU_FINISHED:
      result->b = value != 0;
      break;
   default:
      result->u64 = value;
      break;
   }
   return true;
}

static void
sgx535g_render_condition(struct pipe_context *pctx, struct pipe_query *pq, bool condition,
                         enum pipe_render_cond_flag mode)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535_query lib = pq ? ((struct sgx535g_query *)pq)->lib : (sgx535_query){0};
   sgx535g_ctx_check(ctx, sgx535_render_condition(ctx->lib, lib, condition, mode),
                     "render_condition");
}

static void
sgx535g_set_active_query_state(struct pipe_context *pctx, bool enable)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_set_active_query_state(ctx->lib, enable),
                     "set_active_query_state");
}

void
sgx535g_init_query_functions(struct sgx535g_context *ctx)
{
   struct pipe_context *p = &ctx->base;
   p->create_query = sgx535g_create_query;
   p->destroy_query = sgx535g_destroy_query;
   p->begin_query = sgx535g_begin_query;
   p->end_query = sgx535g_end_query;
   p->get_query_result = sgx535g_get_query_result;
   p->render_condition = sgx535g_render_condition;
   p->set_active_query_state = sgx535g_set_active_query_state;
}
