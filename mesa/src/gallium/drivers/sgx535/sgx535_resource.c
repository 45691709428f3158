/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * Resources live in the library. On the software window system a resource
 * that is shown (a display target) also gets a window-system buffer, and
 * flush_frontbuffer reads the library's pixels (linear rows, after the GPU's
 * writes) straight into it.
 *
 * A front buffer (resource_create_front: the frontend asks for one when the
 * application reads or draws GL_FRONT) holds what the window shows: presenting
 * a back buffer to the same drawable copies the presented rows into it too,
 * since after a swap GL's front is the old back.
 */
#include "sgx535_screen.h"

#include "drm-uapi/drm_fourcc.h"
#include "frontend/sw_winsys.h"
#include "frontend/winsys_handle.h"
#include "util/format/u_format.h"
#include "util/u_box.h"
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

/* The screen's own context; the caller holds internal_mtx. */
static sgx535_context
sgx535g_internal_ctx(struct sgx535g_screen *screen)
{
   if (!screen->internal_ctx.id)
      sgx535g_check(sgx535_context_create(screen->lib, &screen->internal_ctx), "context_create");
   return screen->internal_ctx;
}

/* Copies rows of `box` of level 0 from `src` (rows src_stride_B apart) into `dst`. */
static bool
sgx535g_write_rows(sgx535_context lib_ctx, struct sgx535g_resource *dst, const struct pipe_box *box,
                   const uint8_t *src, unsigned src_stride_B, const char *why)
{
   sgx535_box b = {box->x, box->y, 0, box->width, box->height, 1};
   sgx535_transfer transfer = {0};
   void *map = NULL;
   uint32_t stride_B = 0;
   uint64_t layer_stride_B = 0;

   if (!sgx535g_check(sgx535_transfer_map(lib_ctx, dst->lib, 0, PIPE_MAP_WRITE, &b, &transfer, &map,
                                         &stride_B, &layer_stride_B),
                     why))
      return false;
   unsigned row_B = util_format_get_stride(dst->base.format, box->width);
   unsigned rows = util_format_get_nblocksy(dst->base.format, box->height);
   for (unsigned y = 0; y < rows; y++)
      memcpy((uint8_t *)map + (size_t)y * stride_B, src + (size_t)y * src_stride_B, row_B);
   return sgx535g_check(sgx535_transfer_unmap(lib_ctx, transfer), why);
}

static struct pipe_resource *
sgx535g_create(struct pipe_screen *pscreen, const struct pipe_resource *templ,
               const void *front_private)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = CALLOC_STRUCT(sgx535g_resource);
   sgx535_resource_template t;

   if (!res)
      return NULL;
   res->base = *templ;
   pipe_reference_init(&res->base.reference, 1);
   res->base.screen = pscreen;
   list_inithead(&res->front_link);

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
                                                     templ->width0, templ->height0, 64,
                                                     front_private, &res->dt_stride_B);
      if (!res->dt) {
         sgx535g_check(sgx535_resource_destroy(res->lib), "resource_destroy");
         FREE(res);
         return NULL;
      }
      if (front_private) {
         /* Not filled from the window: a read map of the window system's buffer
          * is an XGetImage, which fails (BadMatch, fatal under Xlib's default
          * handler) on a window not shown yet, as glxinfo's. Presents fill it. */
         res->front_private = front_private;
         simple_mtx_lock(&screen->fronts_mtx);
         list_addtail(&res->front_link, &screen->fronts);
         simple_mtx_unlock(&screen->fronts_mtx);
      }
   }
   return &res->base;
}

static struct pipe_resource *
sgx535g_resource_create(struct pipe_screen *pscreen, const struct pipe_resource *templ)
{
   return sgx535g_create(pscreen, templ, NULL);
}

static struct pipe_resource *
sgx535g_resource_create_front(struct pipe_screen *pscreen, const struct pipe_resource *templ,
                              const void *map_front_private)
{
   return sgx535g_create(pscreen, templ, map_front_private);
}

static void
sgx535g_resource_destroy(struct pipe_screen *pscreen, struct pipe_resource *pres)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = sgx535g_resource(pres);

   if (res->front_private) {
      simple_mtx_lock(&screen->fronts_mtx);
      list_del(&res->front_link);
      simple_mtx_unlock(&screen->fronts_mtx);
   }
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

/* After `back` was shown on `drawable`, the drawable's front buffer (if it has
 * one) takes the shown rows: `src` is back's mapped level 0 over `box`. */
static void
sgx535g_update_front(struct sgx535g_screen *screen, sgx535_context lib_ctx,
                     struct sgx535g_resource *back, const void *drawable,
                     const struct pipe_box *box, const uint8_t *src, unsigned src_stride_B)
{
   struct pipe_resource *front = NULL;

   simple_mtx_lock(&screen->fronts_mtx);
   list_for_each_entry(struct sgx535g_resource, f, &screen->fronts, front_link) {
      if (f->front_private == drawable && f != back && f->base.format == back->base.format &&
          f->base.width0 == back->base.width0 && f->base.height0 == back->base.height0) {
         pipe_resource_reference(&front, &f->base);
         break;
      }
   }
   simple_mtx_unlock(&screen->fronts_mtx);
   if (!front)
      return;
   sgx535g_write_rows(lib_ctx, sgx535g_resource(front), box, src, src_stride_B,
                      "transfer_map (front after swap)");
   pipe_resource_reference(&front, NULL);
}

/* Reads the library's level 0 straight into the display target's rows (one
 * copy: a read map and a row copy made two, ~9% of glxgears), shows them, and,
 * for a back buffer, updates the drawable's front buffer from the shown rows. */
static void
sgx535g_present(struct sgx535g_screen *screen, sgx535_context lib_ctx,
                struct sgx535g_resource *res, void *context_private, struct pipe_box *sub_box)
{
   struct pipe_resource *p = &res->base;
   sgx535_box box = {0, 0, 0, (int32_t)p->width0, (int32_t)p->height0, 1};
   unsigned row_B = util_format_get_stride(p->format, p->width0);
   unsigned rows = util_format_get_nblocksy(p->format, p->height0);

   /* PIPE_MAP_WRITE only: a read map of the window system's buffer fetches the
    * window's pixels (XGetImage, BadMatch on a window not shown yet). The rows
    * read back below for the front buffer are the ones just written. */
   uint8_t *dst = screen->winsys->displaytarget_map(screen->winsys, res->dt, PIPE_MAP_WRITE);
   if (!dst)
      return;
   bool ok = sgx535g_check(sgx535_resource_read_box(lib_ctx, res->lib, 0, &box, dst,
                                                   res->dt_stride_B,
                                                   (uint64_t)res->dt_stride_B * (rows - 1) + row_B),
                           "resource_read_box (present)");
   if (ok && !res->front_private && context_private) {
      /* The shown part: sub_box (a CopySubBuffer, top-down rows) within the
       * resource, or all of it. */
      struct pipe_box shown;
      u_box_2d(0, 0, p->width0, p->height0, &shown);
      if (sub_box) {
         int x0 = MAX2(sub_box->x, 0), y0 = MAX2(sub_box->y, 0);
         int x1 = MIN2(sub_box->x + sub_box->width, (int)p->width0);
         int y1 = MIN2(sub_box->y + sub_box->height, (int)p->height0);
         u_box_2d(x0, y0, MAX2(x1 - x0, 0), MAX2(y1 - y0, 0), &shown);
      }
      if (shown.width > 0 && shown.height > 0) {
         const uint8_t *at = dst + (size_t)shown.y * res->dt_stride_B +
                             util_format_get_stride(p->format, shown.x);
         sgx535g_update_front(screen, lib_ctx, res, context_private, &shown, at,
                              res->dt_stride_B);
      }
   }
   screen->winsys->displaytarget_unmap(screen->winsys, res->dt);
   if (ok)
      screen->winsys->displaytarget_display(screen->winsys, res->dt, context_private, sub_box);
}

static void
sgx535g_flush_frontbuffer(struct pipe_screen *pscreen, struct pipe_context *pctx,
                         struct pipe_resource *pres, unsigned level, unsigned layer,
                         void *context_private, struct pipe_box *sub_box)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   struct sgx535g_resource *res = sgx535g_resource(pres);

   if (!res->dt)
      return;
   if (pctx) {
      sgx535g_present(screen, sgx535g_context(pctx)->lib, res, context_private, sub_box);
   } else {
      simple_mtx_lock(&screen->internal_mtx);
      sgx535_context lib_ctx = sgx535g_internal_ctx(screen);
      if (lib_ctx.id)
         sgx535g_present(screen, lib_ctx, res, context_private, sub_box);
      simple_mtx_unlock(&screen->internal_mtx);
   }
}

void
sgx535g_init_resource_functions(struct sgx535g_screen *screen)
{
   screen->base.resource_create = sgx535g_resource_create;
   screen->base.resource_create_front = sgx535g_resource_create_front;
   screen->base.resource_destroy = sgx535g_resource_destroy;
   screen->base.resource_from_handle = sgx535g_resource_from_handle;
   screen->base.resource_get_handle = sgx535g_resource_get_handle;
   screen->base.flush_frontbuffer = sgx535g_flush_frontbuffer;
}
