/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Resources live in the library. On the software window system a resource
 * that is shown (a display target) also gets a window-system buffer, and
 * flush_frontbuffer reads the library's pixels (linear rows, after the GPU's
 * writes) straight into it.
 */
#include "sgx535_screen.h"

#include "drm-uapi/drm_fourcc.h"
#include "frontend/sw_winsys.h"
#include "frontend/winsys_handle.h"
#include "util/format/u_format.h"
#include "util/u_inlines.h"
#include "util/u_memory.h"

#define SGX535_PRESENT_BINDS (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT | PIPE_BIND_SHARED)

static void
sgx535g_template(const struct pipe_resource *templ, sgx535_resource_template *t)
{
   *t = (sgx535_resource_template){
      .target = templ->target,
      .format = templ->format,
      .width = templ->width0,
      .height = templ->height0,
      .depth = templ->depth0,
      .array_size = templ->array_size,
      .last_level = templ->last_level,
      .nr_samples = templ->nr_samples,
      .bind = templ->bind,
      .flags = templ->flags,
   };
}

static struct pipe_resource *
sgx535g_resource_create(struct pipe_screen *pscreen, const struct pipe_resource *templ)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = CALLOC_STRUCT(sgx535g_resource);
   sgx535_resource_template t;

   if (!res)
      return NULL;
   res->base = *templ;
   pipe_reference_init(&res->base.reference, 1);
   res->base.screen = pscreen;

   sgx535g_template(templ, &t);
   bool shown = screen->winsys && (templ->bind & SGX535_PRESENT_BINDS);
   /* What is shown is the window system's business, not the library's. */
   if (screen->winsys)
      t.bind &= ~SGX535_PRESENT_BINDS;
   if (!sgx535g_check(sgx535_resource_create(screen->lib, &t, &res->lib), "resource_create")) {
      FREE(res);
      return NULL;
   }
   if (shown) {
      res->dt = screen->winsys->displaytarget_create(screen->winsys, templ->bind, templ->format,
                                                     templ->width0, templ->height0, 64, NULL,
                                                     &res->dt_stride_B);
      if (!res->dt) {
         sgx535g_check(sgx535_resource_destroy(res->lib), "resource_destroy");
         FREE(res);
         return NULL;
      }
   }
   return &res->base;
}

static void
sgx535g_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *pres)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = sgx535g_resource(pres);

   if (res->dt)
      screen->winsys->displaytarget_destroy(screen->winsys, res->dt);
   sgx535g_check(sgx535_resource_destroy(res->lib), "resource_destroy");
   FREE(res);
}

static struct pipe_resource *
sgx535g_resource_from_handle(struct pipe_screen *pscreen, const struct pipe_resource *templ,
                            struct winsys_handle *whandle, unsigned usage)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   if (whandle->type != WINSYS_HANDLE_TYPE_FD || screen->winsys)
      return NULL;

   struct sgx535g_resource *res = CALLOC_STRUCT(sgx535g_resource);
   if (!res)
      return NULL;
   res->base = *templ;
   pipe_reference_init(&res->base.reference, 1);
   res->base.screen = pscreen;

   sgx535_resource_template t;
   sgx535g_template(templ, &t);
   sgx535_winsys_handle h = {
      .fd = (int32_t)whandle->handle,
      .stride = whandle->stride,
      .offset = whandle->offset,
      .size = whandle->size,
   };
   if (!sgx535g_check(sgx535_resource_from_handle(screen->lib, &t, &h, &res->lib),
                     "resource_from_handle")) {
      FREE(res);
      return NULL;
   }
   return &res->base;
}

static bool
sgx535g_resource_get_handle(struct pipe_screen *pscreen, struct pipe_context *pctx,
                           struct pipe_resource *pres, struct winsys_handle *whandle,
                           unsigned usage)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = sgx535g_resource(pres);

   if (res->dt)
      return screen->winsys->displaytarget_get_handle(screen->winsys, res->dt, whandle);
   if (whandle->type != WINSYS_HANDLE_TYPE_FD)
      return false;

   sgx535_winsys_handle h = {.fd = -1};
   if (!sgx535g_check(sgx535_resource_get_handle(screen->lib, res->lib, &h), "resource_get_handle"))
      return false;
   whandle->handle = (unsigned)h.fd;
   whandle->stride = h.stride;
   whandle->offset = h.offset;
   whandle->size = h.size;
   whandle->modifier = DRM_FORMAT_MOD_INVALID;
   return true;
}

/* Reads the library's level 0 straight into the display target's rows: one
 * copy (a read map and a row copy made two, ~9% of glxgears). */
static bool
sgx535g_copy_to_displaytarget(struct sgx535g_screen *screen, sgx535_context lib_ctx,
                             struct sgx535g_resource *res)
{
   struct pipe_resource *p = &res->base;
   sgx535_box box = {0, 0, 0, (int32_t)p->width0, (int32_t)p->height0, 1};
   unsigned row_B = util_format_get_stride(p->format, p->width0);
   unsigned rows = util_format_get_nblocksy(p->format, p->height0);

   uint8_t *dst = screen->winsys->displaytarget_map(screen->winsys, res->dt, PIPE_MAP_WRITE);
   if (!dst)
      return false;
   bool ok = sgx535g_check(sgx535_resource_read_box(lib_ctx, res->lib, 0, &box, dst,
                                                   res->dt_stride_B,
                                                   (uint64_t)res->dt_stride_B * (rows - 1) + row_B),
                           "resource_read_box (present)");
   screen->winsys->displaytarget_unmap(screen->winsys, res->dt);
   return ok;
}

static void
sgx535g_flush_frontbuffer(struct pipe_screen *pscreen, struct pipe_context *pctx,
                         struct pipe_resource *pres, unsigned level, unsigned layer,
                         void *context_private, struct pipe_box *sub_box)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = sgx535g_resource(pres);
   bool copied;

   if (!res->dt)
      return;
   if (pctx) {
      copied = sgx535g_copy_to_displaytarget(screen, sgx535g_context(pctx)->lib, res);
   } else {
      simple_mtx_lock(&screen->internal_mtx);
      if (!screen->internal_ctx.id)
         sgx535g_check(sgx535_context_create(screen->lib, &screen->internal_ctx), "context_create");
      copied = screen->internal_ctx.id &&
               sgx535g_copy_to_displaytarget(screen, screen->internal_ctx, res);
      simple_mtx_unlock(&screen->internal_mtx);
   }
   if (copied)
      screen->winsys->displaytarget_display(screen->winsys, res->dt, context_private, sub_box);
}

void
sgx535g_init_resource_functions(struct sgx535g_screen *screen)
{
   screen->base.resource_create = sgx535g_resource_create;
   screen->base.resource_destroy = sgx535g_resource_destroy;
   screen->base.resource_from_handle = sgx535g_resource_from_handle;
   screen->base.resource_get_handle = sgx535g_resource_get_handle;
   screen->base.flush_frontbuffer = sgx535g_flush_frontbuffer;
}
