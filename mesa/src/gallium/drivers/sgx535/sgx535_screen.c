/*
 * Copyright 2026 the sgx535 authors
 * SPDX-License-Identifier: MIT
 *
 * The screen: caps, formats and names come from the library, which answers
 * with Gallium's numbering; the driver adds only what is a fact of this glue
 * (it hands shaders over as TGSI text, and has no compute).
 */
#include "sgx535_public.h"
#include "sgx535_screen.h"

#include <inttypes.h>
#include <stdio.h>

#include "frontend/sw_winsys.h"
#include "util/log.h"
#include "util/u_debug.h"
#include "util/u_memory.h"
#include "util/u_screen.h"
#include "util/u_vbuf.h"

bool
sgx535g_check(sgx535_status status, const char *call)
{
   if (status == SGX535_OK)
      return true;
   mesa_loge("%s failed (%d): %s", call, (int)status, sgx535_last_error_message());
   return false;
}

bool
sgx535g_ctx_check(struct sgx535g_context *ctx, sgx535_status status, const char *call)
{
   if (sgx535g_check(status, call))
      return true;
   /* The ABI's lost-device and GPU-fault statuses end the context for GL
    * (a lost context); the rest leave it usable. A fault resets the GPU, and
    * the library knows whose job caused it: guilty or innocent, else unknown. */
   if (status == SGX535_ERROR_DEVICE_LOST || status == SGX535_ERROR_GPU_FAULT) {
      /* The failed job is recorded by now: tell the application what failed
       * (GL_KHR_debug) before the context is marked lost. */
      sgx535g_report_job_failures(ctx);
      sgx535g_mark_reset(ctx, PIPE_UNKNOWN_CONTEXT_RESET);
   }
   return false;
}

static const char *
sgx535g_get_name(struct pipe_screen *pscreen)
{
   const char *name = NULL;
   if (!sgx535g_check(sgx535_screen_get_name(sgx535g_screen(pscreen)->lib, &name), "get_name"))
      return "SGX535";
   return name;
}

static const char *
sgx535g_get_vendor(struct pipe_screen *pscreen)
{
   return "sgx535";
}

static const char *
sgx535g_get_device_vendor(struct pipe_screen *pscreen)
{
   return "Imagination Technologies";
}

static int
sgx535g_get_param(struct pipe_screen *pscreen, enum pipe_cap cap)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   if (screen->caps_cached && cap < PIPE_CAP_LAST)
      return screen->caps[cap];

   int32_t value = 0;
   sgx535_status st = sgx535_screen_get_param(sgx535g_screen(pscreen)->lib, cap, &value);
   /* GL draws adjacency primitives only with geometry shaders and patches
    * only with tessellation (Mesa's valid-primitive mask), and this driver
    * has neither: sgx535g_draw_vbo refuses them. They are claimed so that
    * u_vbuf, which stays in front of every draw of a driver missing any
    * primitive type, stays out of the draw path (u_vbuf_get_caps). */
   if (st == SGX535_OK && cap == PIPE_CAP_SUPPORTED_PRIM_MODES)
      return value | (BITFIELD_MASK(PIPE_PRIM_MAX) & ~BITFIELD_MASK(PIPE_PRIM_POLYGON + 1));
   if (st == SGX535_OK)
      return value;
   /* INVALID_ARGUMENT: a cap number the library does not know (its table
    * missed one of Mesa 22.3's): Mesa's default, said once. */
   if (st == SGX535_ERROR_INVALID_ARGUMENT)
      mesa_logw_once("the library does not know cap %d: %s", cap, sgx535_last_error_message());
   if (st == SGX535_ERROR_UNSUPPORTED || st == SGX535_ERROR_INVALID_ARGUMENT) {
      switch (cap) {
      /* u_pipe_screen_get_param_defaults has no answer for these: a library
       * without one is a bug in the library, said loudly, answered as 0. */
      case PIPE_CAP_MAX_TEXTURE_2D_SIZE:
      case PIPE_CAP_MAX_TEXTURE_3D_LEVELS:
      case PIPE_CAP_MAX_TEXTURE_CUBE_LEVELS:
      case PIPE_CAP_ACCELERATED:
      case PIPE_CAP_VIDEO_MEMORY:
      case PIPE_CAP_UMA:
         mesa_loge("the library has no answer for cap %d", cap);
         return 0;
      /* Mesa's default is 1, but the ABI's maps are staging copies written
       * back at unmap (sgx535_transfer_map): a persistent map would never be
       * written back, and the GPU would read stale data. */
      case PIPE_CAP_BUFFER_MAP_PERSISTENT_COHERENT:
         return 0;
      default:
         return u_pipe_screen_get_param_defaults(pscreen, cap);
      }
   }
   sgx535g_check(st, "get_param");
   return 0;
}

static float
sgx535g_get_paramf(struct pipe_screen *pscreen, enum pipe_capf cap)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   if (screen->caps_cached && cap < ARRAY_SIZE(screen->capsf))
      return screen->capsf[cap];

   float value = 0.0f;
   sgx535_status st = sgx535_screen_get_paramf(sgx535g_screen(pscreen)->lib, cap, &value);
   if (st != SGX535_ERROR_UNSUPPORTED)
      sgx535g_check(st, "get_paramf");
   return st == SGX535_OK ? value : 0.0f;
}

static int
sgx535g_get_shader_param(struct pipe_screen *pscreen, enum pipe_shader_type shader,
                        enum pipe_shader_cap cap)
{
   /* The glue hands shaders over as tgsi_dump text, whatever the library
    * would prefer. */
   if (cap == PIPE_SHADER_CAP_PREFERRED_IR)
      return PIPE_SHADER_IR_TGSI;
   if (cap == PIPE_SHADER_CAP_SUPPORTED_IRS)
      return 1 << PIPE_SHADER_IR_TGSI;
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   if (screen->caps_cached && shader < PIPE_SHADER_TYPES && cap < ARRAY_SIZE(screen->shader_caps[0]))
      return screen->shader_caps[shader][cap];

   int32_t value = 0;
   sgx535_status st =
      sgx535_screen_get_shader_param(sgx535g_screen(pscreen)->lib, shader, cap, &value);
   if (st == SGX535_OK)
      return value;
   /* Stages and caps the library does not know are absent. */
   if (st != SGX535_ERROR_UNSUPPORTED)
      sgx535g_check(st, "get_shader_param");
   return 0;
}

static int
sgx535g_get_compute_param(struct pipe_screen *pscreen, enum pipe_shader_ir ir,
                         enum pipe_compute_cap cap, void *ret)
{
   return 0;
}

static bool
sgx535g_is_format_supported(struct pipe_screen *pscreen, enum pipe_format format,
                           enum pipe_texture_target target, unsigned sample_count,
                           unsigned storage_sample_count, unsigned bind)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);
   uint8_t supported = 0;

   if (MAX2(1, sample_count) != MAX2(1, storage_sample_count))
      return false;
   /* st/mesa asks about PIPE_FORMAT_NONE for framebuffers without
    * attachments, which this driver does not do. */
   if (format == PIPE_FORMAT_NONE)
      return false;
   /* Display targets live in the window system's memory: the library's
    * render target is copied into them, so the window system decides. */
   if (bind & (PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT | PIPE_BIND_SHARED)) {
      if (screen->winsys && !screen->winsys->is_displaytarget_format_supported(
                               screen->winsys, bind & (PIPE_BIND_DISPLAY_TARGET), format))
         return false;
      bind &= ~(PIPE_BIND_DISPLAY_TARGET | PIPE_BIND_SCANOUT | PIPE_BIND_SHARED);
   }
   sgx535_status st = sgx535_screen_is_format_supported(
      screen->lib, format, target, sample_count, storage_sample_count, bind, &supported);
   if (st != SGX535_OK && st != SGX535_ERROR_UNSUPPORTED)
      sgx535g_check(st, "is_format_supported");
   return st == SGX535_OK && supported;
}

static uint64_t
sgx535g_get_timestamp(struct pipe_screen *pscreen)
{
   uint64_t ns = 0;
   sgx535g_check(sgx535_screen_get_timestamp(sgx535g_screen(pscreen)->lib, &ns), "get_timestamp");
   return ns;
}

/* SGX535_STATS=1: the device's counters at screen destroy, on stderr. Tests
 * read them to prove that the application's pixels came from the library. */
static void
sgx535g_print_stats(struct sgx535g_screen *screen)
{
   sgx535_device_stats s = {0};
   if (!sgx535g_check(sgx535_screen_get_stats(screen->lib, &s), "get_stats"))
      return;
   /* Whether Mesa's u_vbuf sits in front of every draw (it does when the
    * screen lacks any vertex format, primitive type or alignment it checks):
    * the same question cso_context asks, for tests to see the answer. */
   struct u_vbuf_caps vbuf_caps;
   u_vbuf_get_caps(&screen->base, &vbuf_caps, true);
   fprintf(stderr,
           "sgx535 stats: submissions=%" PRIu64 " refused=%" PRIu64 " jobs_completed=%" PRIu64
           " jobs_failed=%" PRIu64 " pixels_shaded=%" PRIu64 " pbe_bytes_written=%" PRIu64
           " texels_fetched=%" PRIu64 " live_buffers=%" PRIu64 " jobs_pending=%" PRIu64
           " u_vbuf=%s\n",
           s.submissions, s.refused, s.jobs_completed, s.jobs_failed, s.pixels_shaded,
           s.pbe_bytes_written, s.texels_fetched, s.live_buffers, s.jobs_pending,
           vbuf_caps.fallback_always ? "always" : "off");
}

static void
sgx535g_screen_destroy(struct pipe_screen *pscreen)
{
   struct sgx535g_screen *screen = sgx535g_screen(pscreen);

   if (screen->internal_ctx.id)
      sgx535g_check(sgx535_context_destroy(screen->internal_ctx), "context_destroy");
   if (screen->print_stats)
      sgx535g_print_stats(screen);
   sgx535g_check(sgx535_screen_destroy(screen->lib), "screen_destroy");
   if (screen->winsys && screen->winsys->destroy)
      screen->winsys->destroy(screen->winsys);
   simple_mtx_destroy(&screen->internal_mtx);
   simple_mtx_destroy(&screen->fronts_mtx);
   FREE(screen);
}

static void
sgx535g_cache_caps(struct sgx535g_screen *screen)
{
   struct pipe_screen *p = &screen->base;
   for (unsigned cap = 0; cap < PIPE_CAP_LAST; cap++)
      screen->caps[cap] = p->get_param(p, cap);
   for (unsigned cap = 0; cap < ARRAY_SIZE(screen->capsf); cap++)
      screen->capsf[cap] = p->get_paramf(p, cap);
   for (unsigned sh = 0; sh < PIPE_SHADER_TYPES; sh++) {
      for (unsigned cap = 0; cap < ARRAY_SIZE(screen->shader_caps[sh]); cap++)
         screen->shader_caps[sh][cap] = p->get_shader_param(p, sh, cap);
   }
   screen->caps_cached = true;
}

struct pipe_screen *
sgx535g_screen_create_lib(const sgx535_device_desc *desc, struct sw_winsys *winsys)
{
   struct sgx535g_screen *screen = CALLOC_STRUCT(sgx535g_screen);
   if (!screen)
      return NULL;

   if (!sgx535g_check(sgx535_screen_create(desc, &screen->lib), "screen_create")) {
      FREE(screen);
      return NULL;
   }
   screen->winsys = winsys;
   screen->print_stats = debug_get_bool_option("SGX535_STATS", false);
   simple_mtx_init(&screen->internal_mtx, mtx_plain);
   simple_mtx_init(&screen->fronts_mtx, mtx_plain);
   list_inithead(&screen->fronts);

   struct pipe_screen *p = &screen->base;
   p->destroy = sgx535g_screen_destroy;
   p->get_name = sgx535g_get_name;
   p->get_vendor = sgx535g_get_vendor;
   p->get_device_vendor = sgx535g_get_device_vendor;
   p->get_param = sgx535g_get_param;
   p->get_paramf = sgx535g_get_paramf;
   p->get_shader_param = sgx535g_get_shader_param;
   p->get_compute_param = sgx535g_get_compute_param;
   p->is_format_supported = sgx535g_is_format_supported;
   p->get_timestamp = sgx535g_get_timestamp;
   p->context_create = sgx535g_context_create;
   sgx535g_init_resource_functions(screen);
   sgx535g_init_fence_functions(screen);
   sgx535g_cache_caps(screen);
   return p;
}

struct pipe_screen *
sgx535_screen_create_sw(struct sw_winsys *winsys)
{
   /* SGX535_DEVICE picks the device (the model by default): see sgx535.h. */
   sgx535_device_desc desc = {.kind = SGX535_DEVICE_DEFAULT, .fd = -1, .path = NULL};
   return sgx535g_screen_create_lib(&desc, winsys);
}

struct pipe_screen *
sgx535_screen_create_drm(int fd)
{
   sgx535_device_desc desc = {.kind = SGX535_DEVICE_DRM, .fd = fd, .path = NULL};
   return sgx535g_screen_create_lib(&desc, NULL);
}
