/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Shaders reach the library as tgsi_dump text with floats in hex, so that no
 * constant changes on the way (the screen prefers TGSI: st/mesa hands over
 * nir_to_tgsi's tokens).
 */
#include "sgx535_screen.h"

#include "tgsi/tgsi_dump.h"
#include "util/log.h"
#include "util/u_memory.h"

struct sgx535g_shader_obj {
   sgx535_shader lib;
};

typedef sgx535_status (*sgx535g_create_shader_fn)(sgx535_context, const char *, sgx535_shader *);

/* tgsi_dump_str says when the text did not fit: grow until it does. */
static char *
sgx535g_tgsi_text(const struct tgsi_token *tokens)
{
   for (size_t size_B = 16 * 1024; size_B <= 64 * 1024 * 1024; size_B *= 4) {
      char *text = MALLOC(size_B);
      if (!text)
         return NULL;
      if (tgsi_dump_str(tokens, TGSI_DUMP_FLOAT_AS_HEX, text, size_B))
         return text;
      FREE(text);
   }
   return NULL;
}

static void *
sgx535g_create_shader(struct pipe_context *pctx, const struct pipe_shader_state *state,
                     sgx535g_create_shader_fn create, const char *call)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   struct sgx535g_shader_obj *obj = CALLOC_STRUCT(sgx535g_shader_obj);
   if (!obj)
      return NULL;
   if (state->type != PIPE_SHADER_IR_TGSI) {
      mesa_loge("%s: shader IR %d is not TGSI", call, state->type);
      return obj;
   }
   char *text = sgx535g_tgsi_text(state->tokens);
   if (!text) {
      mesa_loge("%s: no memory for the shader's text", call);
      return obj;
   }
   /* A shader the library refuses stays an empty object: draws with it
    * bound fail in the library with its message. */
   if (!sgx535g_ctx_check(ctx, create(ctx->lib, text, &obj->lib), call))
      obj->lib.id = 0;
   FREE(text);
   return obj;
}

static sgx535_shader
sgx535g_shader_handle(void *obj)
{
   return obj ? ((struct sgx535g_shader_obj *)obj)->lib : (sgx535_shader){0};
}

static void *
sgx535g_create_vs_state(struct pipe_context *pctx, const struct pipe_shader_state *state)
{
   return sgx535g_create_shader(pctx, state, sgx535_create_vs_state, "create_vs_state");
}

static void
sgx535g_bind_vs_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_bind_vs_state(ctx->lib, sgx535g_shader_handle(obj)),
                    "bind_vs_state");
}

static void
sgx535g_delete_vs_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (sgx535g_shader_handle(obj).id)
      sgx535g_check(sgx535_delete_vs_state(ctx->lib, sgx535g_shader_handle(obj)), "delete_vs_state");
   FREE(obj);
}

static void *
sgx535g_create_fs_state(struct pipe_context *pctx, const struct pipe_shader_state *state)
{
   return sgx535g_create_shader(pctx, state, sgx535_create_fs_state, "create_fs_state");
}

static void
sgx535g_bind_fs_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   sgx535g_ctx_check(ctx, sgx535_bind_fs_state(ctx->lib, sgx535g_shader_handle(obj)),
                    "bind_fs_state");
}

static void
sgx535g_delete_fs_state(struct pipe_context *pctx, void *obj)
{
   struct sgx535g_context *ctx = sgx535g_context(pctx);
   if (sgx535g_shader_handle(obj).id)
      sgx535g_check(sgx535_delete_fs_state(ctx->lib, sgx535g_shader_handle(obj)), "delete_fs_state");
   FREE(obj);
}

void
sgx535g_init_shader_functions(struct sgx535g_context *ctx)
{
   ctx->base.create_vs_state = sgx535g_create_vs_state;
   ctx->base.bind_vs_state = sgx535g_bind_vs_state;
   ctx->base.delete_vs_state = sgx535g_delete_vs_state;
   ctx->base.create_fs_state = sgx535g_create_fs_state;
   ctx->base.bind_fs_state = sgx535g_bind_fs_state;
   ctx->base.delete_fs_state = sgx535g_delete_fs_state;
}
