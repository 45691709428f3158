/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Gallium fences are reference-counted pointers; each wraps one library
 * fence handle, released when the last reference goes.
 */
#include "sgx535_screen.h"

#include "util/u_inlines.h"
#include "util/u_memory.h"

struct pipe_fence_handle *
sgx535g_fence_wrap(sgx535_fence lib)
{
   struct sgx535g_fence *fence = CALLOC_STRUCT(sgx535g_fence);
   if (!fence) {
      sgx535g_check(sgx535_fence_destroy(lib), "fence_destroy");
      return NULL;
   }
   pipe_reference_init(&fence->reference, 1);
   fence->lib = lib;
   return (struct pipe_fence_handle *)fence;
}

static void
sgx535g_fence_reference(struct pipe_screen *pscreen, struct pipe_fence_handle **ptr,
                       struct pipe_fence_handle *pfence)
{
   struct sgx535g_fence *old = (struct sgx535g_fence *)*ptr;
   struct sgx535g_fence *fence = (struct sgx535g_fence *)pfence;

   if (pipe_reference(old ? &old->reference : NULL, fence ? &fence->reference : NULL)) {
      sgx535g_check(sgx535_fence_destroy(old->lib), "fence_destroy");
      FREE(old);
   }
   *ptr = pfence;
}

static bool
sgx535g_fence_finish(struct pipe_screen *pscreen, struct pipe_context *pctx,
                    struct pipe_fence_handle *pfence, uint64_t timeout_ns)
{
   struct sgx535g_fence *fence = (struct sgx535g_fence *)pfence;
   uint8_t signalled = 0;

   /* Gallium's "forever" is PIPE_TIMEOUT_INFINITE, which equals the ABI's
    * UINT64_MAX. */
   if (!sgx535g_check(sgx535_fence_finish(sgx535g_screen(pscreen)->lib, fence->lib, timeout_ns,
                                         &signalled),
                     "fence_finish"))
      return true; /* a faulted fence is over: waiting longer would not help */
   return signalled != 0;
}

static int
sgx535g_fence_get_fd(struct pipe_screen *pscreen, struct pipe_fence_handle *pfence)
{
   struct sgx535g_fence *fence = (struct sgx535g_fence *)pfence;
   int32_t fd = -1;
   sgx535_status st = sgx535_fence_get_fd(sgx535g_screen(pscreen)->lib, fence->lib, &fd);
   if (st != SGX535_ERROR_UNSUPPORTED)
      sgx535g_check(st, "fence_get_fd");
   return st == SGX535_OK ? fd : -1;
}

void
sgx535g_init_fence_functions(struct sgx535g_screen *screen)
{
   screen->base.fence_reference = sgx535g_fence_reference;
   screen->base.fence_finish = sgx535g_fence_finish;
   screen->base.fence_get_fd = sgx535g_fence_get_fd;
}
